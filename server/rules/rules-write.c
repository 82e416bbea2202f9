/*
 * rules-write.c: appending a prefix_rule for an "always" answer.
 *
 * The rule is written the way Codex's amend.rs writes one
 * (prefix_rule(pattern=[...], decision="...")), one a line, and parsed
 * back before anything is written: it must load and decide its own command
 * as asked, or the append is refused.  Strings are double-quoted; ", \
 * and control characters are escaped, UTF-8 is kept, and any byte that is
 * not part of valid UTF-8 is written as \xNN, which the lexer reads back
 * as that byte.
 *
 * The file is replaced, never edited: the old content and the new line go
 * to a temporary file in the same directory, which is fsync'd and renamed
 * over the old one, then the directory is fsync'd.  Several rules
 * (rules_append_rules) go in one such replacement.  A crash leaves the old
 * file or the new one (and at worst a stray temporary).  Appenders are
 * serialised by an flock on the directory, which survives the rename.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"
#include "utf8.h"
#include "rules-int.h"

#define RULES_TMP_TRIES		100

/* One byte (or UTF-8 sequence) of a token, quoted; *used: bytes taken. */
static int
write_char(struct rules_buf *b, const unsigned char *p, size_t n, size_t *used)
{
	static const char esc[] = "\\\\\"\"\nn\tt\rr";
	char hex[8];

	*used = 1;
	for (size_t i = 0; esc[i] != '\0'; i += 2)
		if ((unsigned char)esc[i] == p[0])
			return rules_buf_add(b, (const char[]){ '\\', esc[i + 1] }, 2);
	if (p[0] >= 0x20 && p[0] != 0x7f && (*used = utf8_len(p, n)) > 0)
		return rules_buf_add(b, p, *used);
	*used = 1;
	snprintf(hex, sizeof(hex), "\\x%02x", p[0]);
	return rules_buf_add(b, hex, 4);
}

static int
write_quote(struct rules_buf *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), used;
	int r = rules_buf_addc(b, '"');

	for (; r == 0 && n > 0; p += used, n -= used)
		r = write_char(b, p, n, &used);
	return r == 0 ? rules_buf_addc(b, '"') : r;
}

/*
 * The tokens to write: toks[0] the program (a path cleaned like rule paths
 * are), the rest as given, NULL-terminated.  Free toks[0] and toks.
 */
static int
write_prepare(char *const *tokens, size_t n, enum rules_decision d,
    char ***out)
{
	char **toks;

	if (tokens == NULL || n == 0 || n > SIZE_MAX / sizeof(*toks) - 1 ||
	    d < RULES_ESCALATE || d > RULES_DENY)
		return rules_errno(EINVAL);
	for (size_t i = 0; i < n; i++)
		if (tokens[i] == NULL)
			return rules_errno(EINVAL);
	if (tokens[0][0] == '\0' || strcmp(tokens[0], RULES_WILDCARD) == 0 ||
	    (strchr(tokens[0], '/') != NULL && tokens[0][0] != '/'))
		return rules_errno(EINVAL);
	if ((toks = calloc(n + 1, sizeof(*toks))) == NULL)
		return -1;
	if ((toks[0] = strdup(tokens[0])) == NULL) {
		free(toks);
		return rules_errno(ENOMEM);
	}
	if (toks[0][0] == '/')
		path_clean(toks[0]);
	for (size_t i = 1; i < n; i++)
		toks[i] = tokens[i];
	*out = toks;
	return 0;
}

static void
write_free_toks(char **toks)
{
	if (toks != NULL)
		free(toks[0]);
	free(toks);
}

static char *
write_format(char *const *toks, size_t n, enum rules_decision d, unsigned flags,
    const char *profile)
{
	struct rules_buf b = { 0 };
	int r = rules_buf_add(&b, "prefix_rule(pattern=[", 21);

	for (size_t i = 0; r == 0 && i < n; i++) {
		if (i > 0)
			r = rules_buf_add(&b, ", ", 2);
		if (r == 0)
			r = write_quote(&b, toks[i]);
	}
	if (r == 0)
		r = rules_buf_add(&b, "], decision=", 12);
	if (r == 0)
		r = write_quote(&b, rules_decision_name(d));
	if (r == 0 && (flags & RULES_APPEND_EXACT))
		r = rules_buf_add(&b, ", exact=True", 12);
	if (r == 0 && profile != NULL && (r = rules_buf_add(&b, ", profile=", 10)) == 0)
		r = write_quote(&b, profile);
	if (r == 0)
		r = rules_buf_addc(&b, ')');
	if (r != 0)
		rules_buf_free(&b);
	return b.p;
}

/*
 * Does line load back and decide its own command as d, under profile?
 * (EINVAL if not.)  A profile not built in is defined in the files the
 * line joins: a stand-in definition lets the line be checked alone.
 */
static int
write_check(const char *line, char *const *toks, enum rules_decision d,
    const char *profile)
{
	struct rules *r = rules_new();
	struct rules_error err;
	struct rules_match m;
	char *text = NULL;
	bool ok;

	if (r == NULL)
		return -1;
	if (profile != NULL && rules_profile_find(NULL, profile) == NULL &&
	    asprintf(&text, "sandbox_profile(name=\"%s\", network=True)\n%s", profile,
	    line) < 0) {
		rules_free(r);
		return -1;
	}
	ok = rules_load_text(r, "append", text ? text : line, strlen(text ? text : line),
	    &err) == 0 && rules_decide(r, toks[0], toks, 0, &m) == d &&
	    (profile == NULL ? m.profile == NULL : m.profile != NULL &&
	    strcmp(m.profile->name, profile) == 0);
	free(text);
	rules_free(r);
	return ok ? 0 : rules_errno(EINVAL);
}

char *
rules_format_rule(char *const *tokens, size_t n, enum rules_decision d, unsigned flags)
{
	char **toks = NULL, *line;

	if (write_prepare(tokens, n, d, &toks) != 0)
		return NULL;
	line = write_format(toks, n, d, flags, NULL);
	write_free_toks(toks);
	if (line == NULL)
		errno = ENOMEM;
	return line;
}

static int
write_all(int fd, const char *p, size_t n)
{
	ssize_t w;

	while (n > 0) {
		if ((w = write(fd, p, n)) < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* mkdir -p of the directories above path. */
static int
write_mkdirs(const char *path)
{
	char *p = strdup(path), *s;
	int e = 0;

	if (p == NULL)
		return -1;
	for (s = strchr(p + 1, '/'); e == 0 && s != NULL; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST)
			e = errno;
		*s = '/';
	}
	free(p);
	return e == 0 ? 0 : rules_errno(e);
}

/* The file to replace (through a symlink, its target) and its directory. */
static int
write_resolve(const char *path, char **real, char **dir)
{
	char *slash;

	if ((*real = realpath(path, NULL)) == NULL) {
		if (errno != ENOENT)
			return -1;
		if ((*real = strdup(path)) == NULL)
			return -1;
	}
	slash = strrchr(*real, '/');
	*dir = slash == NULL ? strdup(".") : slash == *real ? strdup("/") :
	    strndup(*real, (size_t)(slash - *real));
	return *dir == NULL ? -1 : 0;
}

static bool
write_has_line(const char *buf, size_t len, const char *line)
{
	size_t ll = strlen(line), l;
	const char *p = buf, *end = buf + len, *nl;

	while (p != NULL && p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		l = nl ? (size_t)(nl - p) : (size_t)(end - p);
		if (l == ll && memcmp(p, line, ll) == 0)
			return true;
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

/* A new file next to real, named into *tmp; its fd, or -1 (*tmp NULL). */
static int
write_tmp_open(const char *real, char **tmp)
{
	size_t len = strlen(real) + 48;
	int fd = -1, e = EEXIST;

	if ((*tmp = malloc(len)) == NULL)
		return -1;
	for (int i = 0; fd < 0 && e == EEXIST && i < RULES_TMP_TRIES; i++) {
		snprintf(*tmp, len, "%s.tmp-%ld-%d", real, (long)getpid(), i);
		if ((fd = open(*tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0)
			e = errno;
	}
	if (fd < 0) {
		free(*tmp);
		*tmp = NULL;
		return rules_errno(e);
	}
	return fd;
}

/* Old content, a newline if it lacks one, the new lines; then fsync. */
static int
write_contents(int fd, const char *old, size_t len, const char *add)
{
	int r = write_all(fd, old, len);

	if (r == 0 && len > 0 && old[len - 1] != '\n')
		r = write_all(fd, "\n", 1);
	if (r == 0)
		r = write_all(fd, add, strlen(add));
	if (r == 0 && fsync(fd) != 0)
		r = -1;
	return r;
}

/* old plus add in a new file next to real, with old's mode (st) if it
 * existed; *tmp names the file, even when writing it failed. */
static int
write_tmp(const char *real, const char *old, size_t len,
    const struct stat *st, const char *add, char **tmp)
{
	int fd, r, e;

	if ((fd = write_tmp_open(real, tmp)) < 0)
		return -1;
	r = st != NULL && fchmod(fd, st->st_mode & 07777) != 0 ? -1 : 0;
	if (r == 0)
		r = write_contents(fd, old, len, add);
	e = errno;
	if (close(fd) != 0 && r == 0)
		return -1;
	return r == 0 ? 0 : rules_errno(e);
}

/* The lines[0..n) not in old (nor twice), each with its newline, into a
 * new string; "" when none is new.  NULL with errno. */
static char *
write_new_lines(const char *old, size_t len, char *const *lines, size_t n)
{
	struct rules_buf b = { 0 };
	int r = rules_buf_add(&b, "", 0);

	for (size_t i = 0; r == 0 && i < n; i++) {
		if (write_has_line(old, len, lines[i]) ||
		    (b.p != NULL && write_has_line(b.p, strlen(b.p), lines[i])))
			continue;
		r = rules_buf_add(&b, lines[i], strlen(lines[i]));
		if (r == 0)
			r = rules_buf_addc(&b, '\n');
	}
	if (r != 0) {
		rules_buf_free(&b);
		return NULL;
	}
	return b.p;
}

/* With the directory locked: old content plus the lines it lacks,
 * renamed over real. */
static int
write_replace(int dfd, const char *real, char *const *lines, size_t n)
{
	struct stat st;
	char *old = NULL, *tmp = NULL, *add = NULL;
	size_t len = 0;
	int r, e, exists;

	r = rules_read_file(real, &old, &len, &st);
	exists = r == 0;
	if (r != 0 && errno == ENOENT)
		r = 0;
	if (r != 0)
		goto out;	/* unreadable */
	if ((add = write_new_lines(exists ? old : "", exists ? len : 0, lines, n)) == NULL) {
		r = -1;
		goto out;
	}
	if (add[0] == '\0')
		goto out;	/* all there already */
	r = write_tmp(real, old, exists ? len : 0, exists ? &st : NULL, add, &tmp);
	if (r == 0 && rename(tmp, real) != 0)
		r = -1;
	if (r == 0 && fsync(dfd) != 0)
		r = -1;
out:
	e = errno;
	if (tmp != NULL && r != 0)
		unlink(tmp);
	free(tmp);
	free(add);
	free(old);
	errno = e;
	return r;
}

static int
write_append(const char *path, char *const *lines, size_t n)
{
	char *real = NULL, *dir = NULL;
	int dfd = -1, r, e;

	if ((r = write_mkdirs(path)) != 0 ||
	    (r = write_resolve(path, &real, &dir)) != 0)
		goto out;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		r = -1;
		goto out;
	}
	while ((r = flock(dfd, LOCK_EX)) != 0 && errno == EINTR)
		continue;
	if (r == 0)
		r = write_replace(dfd, real, lines, n);
out:
	e = errno;
	if (dfd >= 0)
		close(dfd);	/* and unlock */
	free(real);
	free(dir);
	errno = e;
	return r;
}

/* The line for tokens, checked to load back as d; NULL with errno. */
static char *
write_line(char *const *tokens, size_t n, enum rules_decision d, unsigned flags,
    const char *profile)
{
	char **toks = NULL, *line = NULL;
	int e = ENOMEM;

	/* a name only (shellesc-rules(5)): nothing else reaches the file */
	if (profile != NULL && (profile[0] == '\0' || profile[strspn(profile,
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")] != '\0' ||
	    (d != RULES_ESCALATE && d != RULES_PROMPT))) {
		errno = EINVAL;
		return NULL;
	}
	if (write_prepare(tokens, n, d, &toks) != 0)
		return NULL;
	if ((line = write_format(toks, n, d, flags, profile)) != NULL &&
	    write_check(line, toks, d, profile) != 0) {
		e = errno;
		free(line);
		line = NULL;
	}
	write_free_toks(toks);
	if (line == NULL)
		errno = e;
	return line;
}

char *
rules_format_prefix_rule(char *const *tokens, size_t n, enum rules_decision d)
{
	return rules_format_rule(tokens, n, d, 0);
}

int
rules_append_prefix_rule(const char *path, char *const *tokens, size_t n,
    enum rules_decision d, struct rules_error *err)
{
	return rules_append_rule(path, tokens, n, d, 0, err);
}

int
rules_append_rule(const char *path, char *const *tokens, size_t n,
    enum rules_decision d, unsigned flags, struct rules_error *err)
{
	struct rules_error scratch;
	char *line;
	int r, e;

	err = err ? err : &scratch;
	if (path == NULL || path[0] == '\0')
		return rules_fail_plain(err, path, EINVAL, "invalid argument");
	if ((line = write_line(tokens, n, d, flags, NULL)) == NULL)
		return rules_fail_plain(err, path, errno,
		    errno == EINVAL ? "not a rule that can be appended" : NULL);
	r = write_append(path, &line, 1);
	e = errno;
	free(line);
	return r == 0 ? 0 : rules_fail_plain(err, path, e, NULL);
}

int
rules_append_rules(const char *path, const struct rules_new *rs, size_t n,
    struct rules_error *err)
{
	struct rules_error scratch;
	char **lines;
	size_t k = 0;
	int r = -1, e = 0;

	err = err ? err : &scratch;
	if (path == NULL || path[0] == '\0' || (n > 0 && rs == NULL))
		return rules_fail_plain(err, path, EINVAL, "invalid argument");
	if ((lines = calloc(n + 1, sizeof(*lines))) == NULL)
		return rules_fail_plain(err, path, ENOMEM, NULL);
	/* every line is checked before the file is touched */
	for (; k < n; k++)
		if ((lines[k] = write_line(rs[k].tokens, rs[k].n, rs[k].decision,
		    rs[k].flags, rs[k].profile)) == NULL)
			break;
	if (k < n)
		e = errno;
	else if ((r = write_append(path, lines, n)) != 0)
		e = errno;
	for (size_t i = 0; i < k; i++)
		free(lines[i]);
	free(lines);
	if (r == 0)
		return 0;
	return rules_fail_plain(err, path, e, e == EINVAL ? "not a rule that can be appended" : NULL);
}

char *
rules_format_new(const struct rules_new *rn)
{
	return rn == NULL ? (errno = EINVAL, NULL) :
	    write_line(rn->tokens, rn->n, rn->decision, rn->flags, rn->profile);
}
