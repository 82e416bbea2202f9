/*
 * cli-learn.c: rules proposed from what ran.  run --learn FILE and exec
 * --learn FILE collect one for every exec no rule matched or a prompt
 * decided, and write them to FILE when the session ends; audit --rules
 * proposes the same from an audit log (cli-log.c).  A prompt's "prefix"
 * and "always run" answers use the same generalisation (cli-rules.c).
 *
 * The generalisation (cli_learn_rule), one for all of them:
 *  - the program by name: the name it was called by when a rule naming
 *    it matches this very file, else its file's own name, else its path;
 *    a name the trusted PATH has before the path (a name found nowhere
 *    is what the lint warns of: cc1 is learned as its path), a name
 *    found nowhere only for a program in a temporary directory;
 *  - a program with subcommands (git, docker, npm...) up to the
 *    subcommand, ["git", "status"]; one called with options first, or
 *    with none, exactly as it ran (exact=True); any other program alone;
 *  - never a temporary path or a hash (the rule would not match the next
 *    run): a command whose subcommand is one, or a program that lives in
 *    a temporary directory and has no name rule, proposes nothing;
 *  - run or escalate as decided (a deny proposes nothing: a "no" is not
 *    "never"); each rule once.
 * Every rule is checked to decide the command it came from as it was
 * decided, with the rules engine and the session's PATH, or dropped.
 */
#include "config.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Programs whose first argument is a subcommand. */
static const char *const cli_learn_subcmd[] = {
	"git", "docker", "podman", "kubectl", "helm", "npm", "pnpm", "yarn", "cargo",
	"go", "rustup", "pip", "pip3", "uv", "poetry", "apt", "apt-get", "dnf", "yum",
	"brew", "systemctl", "gh", "terraform", "conda", "svn", "hg", "ip", "nix",
	"dotnet", "cmake", "meson", "ninja", NULL,
};

/* Above this many tokens an exact rule is not worth proposing. */
#define CLI_LEARN_EXACT_MAX	8

struct cli_learned {
	struct cli_strv toks;
	enum rules_decision d;
	bool exact;
};

struct cli_learn {
	pthread_mutex_t mu;
	struct cli_learned *v;
	size_t n, cap;
	char *path;			/* the trusted PATH rules look names up in */
};

static bool
cli_learn_has_subcmd(const char *name)
{
	for (size_t i = 0; cli_learn_subcmd[i]; i++)
		if (strcmp(name, cli_learn_subcmd[i]) == 0)
			return true;
	return false;
}

/* A temporary directory's file: /tmp, /var/tmp, /dev/shm or $TMPDIR,
 * anywhere in s ("-o/tmp/x", "--out=/tmp/x"). */
static bool
cli_learn_temporary(const char *s)
{
	static const char *const dirs[] = { "/tmp/", "/var/tmp/", "/dev/shm/", NULL };
	const char *tmp = getenv("TMPDIR");

	for (size_t i = 0; dirs[i]; i++)
		if (strstr(s, dirs[i]) != NULL)
			return true;
	return tmp != NULL && tmp[0] == '/' && tmp[1] != '\0' && strstr(s, tmp) != NULL;
}

/* A hash (a commit, a checksum): 7 or more hex digits, both digits and
 * letters, as the whole of s or of its last part after '/' or '='. */
static bool
cli_learn_hash(const char *s)
{
	const char *p = s + strlen(s);
	size_t n = 0;
	bool digit = false, letter = false;

	while (p > s && p[-1] != '/' && p[-1] != '=')
		p--;
	for (; p[n] != '\0'; n++) {
		if (!isxdigit((unsigned char)p[n]))
			return false;
		if (isdigit((unsigned char)p[n]))
			digit = true;
		else
			letter = true;
	}
	return n >= 7 && digit && letter;
}

static bool
cli_learn_volatile(const char *s)
{
	return cli_learn_temporary(s) || cli_learn_hash(s);
}

/* Tokens after the program, into out: 0, or 1 when nothing can be
 * proposed (a temporary path or hash where the rule needs the token). */
static int
cli_learn_args(const char *name, char *const *argv, struct cli_strv *out, bool *exact)
{
	size_t argc = 0;

	while (argv && argv[argc])
		argc++;
	*exact = false;
	if (!cli_learn_has_subcmd(name))
		return 0;
	if (argc > 1 && argv[1][0] != '-')
		return cli_learn_volatile(argv[1]) ? 1 : cli_strv_add(out, argv[1]);
	/* options first, or nothing: exactly this, or nothing */
	if (argc > CLI_LEARN_EXACT_MAX)
		return 1;
	*exact = true;
	for (size_t i = 1; i < argc; i++)
		if (cli_learn_volatile(argv[i]))
			return 1;
	for (size_t i = 1; i < argc; i++)
		if (cli_strv_add(out, argv[i]) != 0)
			return -1;
	return 0;
}

static const char *
cli_learn_base(const char *p)
{
	const char *slash = p ? strrchr(p, '/') : NULL;

	return slash ? slash + 1 : p;
}

/* Does the rule [head, args...] decide f's argv as d, alone? */
static bool
cli_learn_holds(const char *path, const char *head, const struct cli_strv *args,
    bool exact, const struct rules_file *f, char *const *argv, enum rules_decision d)
{
	struct cli_strv t = { 0 };
	char *line = NULL;
	bool ok = false;
	int r = cli_strv_add(&t, head);

	for (size_t i = 0; r == 0 && i < args->n; i++)
		r = cli_strv_add(&t, args->v[i]);
	if (r == 0)
		line = rules_format_rule(t.v, t.n, d, exact ? RULES_APPEND_EXACT : 0);
	if (line != NULL)
		ok = cli_rules_would(path, line, f, argv, d);
	free(line);
	cli_strv_free(&t);
	return ok;
}

/* May head h (try i of cli_learn_rule's five) be a rule's program? */
static bool
cli_learn_head_ok(const char *path, const char *h, int i)
{
	char found[PATH_MAX];

	if (h == NULL || h[0] == '\0')
		return false;
	if (i == 2)
		return h[0] == '/' && !cli_learn_temporary(h);
	if (cli_learn_volatile(h))
		return false;
	return i > 2 || rules_path_find(path, h, found, sizeof(found));
}

int
cli_learn_rule(const char *path, const struct rules_file *f, char *const *argv,
    enum rules_decision d, struct cli_strv *out, bool *exact)
{
	/* a name the trusted PATH has, else the path, else a name found
	 * nowhere (a program built in a temporary directory) */
	const char *heads[5] = { cli_learn_base(f->written), cli_learn_base(f->path), f->path,
	    cli_learn_base(f->written), cli_learn_base(f->path) };
	struct cli_strv args = { 0 };
	int r = 1;

	if (d != RULES_RUN && d != RULES_ESCALATE)
		return 1;
	for (int i = 0; r == 1 && i < 5; i++) {
		const char *h = heads[i];

		if (!cli_learn_head_ok(path, h, i))
			continue;
		cli_strv_free(&args);
		if ((r = cli_learn_args(cli_learn_base(h), argv, &args, exact)) != 0)
			break;
		r = cli_learn_holds(path, h, &args, *exact, f, argv, d) ? 0 : 1;
		if (r == 0 && (r = cli_strv_add(out, h)) == 0)
			for (size_t k = 0; r == 0 && k < args.n; k++)
				r = cli_strv_add(out, args.v[k]);
	}
	cli_strv_free(&args);
	return r;
}

static bool
cli_learn_same(const struct cli_learned *l, const struct cli_strv *t,
    enum rules_decision d, bool exact)
{
	if (l->d != d || l->exact != exact || l->toks.n != t->n)
		return false;
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(l->toks.v[i], t->v[i]) != 0)
			return false;
	return true;
}

/* Keep t (taken over) unless it is there already. */
static int
cli_learn_keep(struct cli_learn *l, struct cli_strv *t, enum rules_decision d, bool exact)
{
	struct cli_learned *v;
	int r = 0;

	pthread_mutex_lock(&l->mu);
	for (size_t i = 0; i < l->n; i++)
		if (cli_learn_same(&l->v[i], t, d, exact))
			goto out;
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;

		if ((v = reallocarray(l->v, cap, sizeof(*v))) == NULL) {
			r = cli_oom();
			goto out;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct cli_learned){ .toks = *t, .d = d, .exact = exact };
	memset(t, 0, sizeof(*t));
out:
	pthread_mutex_unlock(&l->mu);
	cli_strv_free(t);
	return r;
}

int
cli_learn_add(struct cli_learn *l, const struct rules_file *f, char *const *argv,
    enum rules_decision d)
{
	struct cli_strv t = { 0 };
	bool exact = false;
	int r = cli_learn_rule(l->path, f, argv, d, &t, &exact);

	if (r != 0) {
		cli_strv_free(&t);
		return r < 0 ? -1 : 0;
	}
	return cli_learn_keep(l, &t, d, exact);
}

struct cli_learn *
cli_learn_new(const struct cli *c)
{
	struct cli_learn *l = calloc(1, sizeof(*l));

	if (l == NULL || (l->path = cli_rules_trusted_path(c)) == NULL) {
		free(l);
		cli_oom();
		return NULL;
	}
	pthread_mutex_init(&l->mu, NULL);
	return l;
}

void
cli_learn_free(struct cli_learn *l)
{
	if (l == NULL)
		return;
	for (size_t i = 0; i < l->n; i++)
		cli_strv_free(&l->v[i].toks);
	free(l->v);
	free(l->path);
	pthread_mutex_destroy(&l->mu);
	free(l);
}

/* An exec of a --learn session, as it was answered (any thread). */
void
cli_learn_request(struct cli *c, const struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action a)
{
	struct rules_file f;

	if (c->learn == NULL || a == SHELLESC_DENY ||
	    (v->rule != RULES_NONE && v->asked == NULL))
		return;
	cli_rules_request_file(req, &f);
	cli_learn_add(c->learn, &f, cli_request_argv(req),
	    a == SHELLESC_RUN ? RULES_RUN : RULES_ESCALATE);
}

/* The rules as lines, for audit --rules; each printed once. */
int
cli_learn_print(struct cli_learn *l, FILE *out)
{
	for (size_t i = 0; i < l->n; i++) {
		char *line = rules_format_rule(l->v[i].toks.v, l->v[i].toks.n, l->v[i].d,
		    l->v[i].exact ? RULES_APPEND_EXACT : 0);

		if (line == NULL)
			return cli_oom();
		fprintf(out, "%s\n", line);
		free(line);
	}
	return 0;
}

/* Every rule learned, into path at once; 0 or -1 after a message. */
int
cli_learn_write(struct cli_learn *l, const char *path)
{
	struct rules_new *rs;
	struct rules_error err = { .msg = "out of memory" };
	int r = -1;

	if (l->n == 0)
		return 0;
	if ((rs = calloc(l->n, sizeof(*rs))) == NULL)
		return cli_oom();
	for (size_t i = 0; i < l->n; i++)
		rs[i] = (struct rules_new){ .tokens = l->v[i].toks.v, .n = l->v[i].toks.n,
		    .decision = l->v[i].d, .flags = l->v[i].exact ? RULES_APPEND_EXACT : 0 };
	if ((r = rules_append_rules(path, rs, l->n, &err)) != 0)
		cli_warnx("--learn: cannot write %s: %s", path, err.msg);
	free(rs);
	return r;
}

size_t
cli_learn_count(const struct cli_learn *l)
{
	return l ? l->n : 0;
}
