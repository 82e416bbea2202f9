/*
 * cli-rules.c: which rules files are loaded, deciding from them, and the
 * rule an "always" answer adds: to the user's default.rules, or with -p to
 * the last file given, so that the files a session loads are still exactly
 * those of its command line, this session's and the next one's.
 *
 * The loaded set sits behind a read-write lock: the loop thread decides
 * under the read lock while an "always" answer (prompt thread) appends to
 * the user's file and swaps in a freshly loaded set, so the same command
 * is not asked about again in this session either.
 */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "path.h"

struct cli_rules {
	pthread_rwlock_t lk;
	struct rules *r;
	struct cli_strv files;		/* what r was loaded from, in order */
	char *user;			/* the file "always" appends to */
	char *path;			/* where names are looked up (rules_set_path) */
};

/* base/name, malloc'd; NULL after a message. */
static char *
cli_rules_join(const char *base, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", base, name) < 0) {
		cli_oom();
		return NULL;
	}
	return path;
}

/* $HOME if absolute, else the password file's; NULL after a message
 * naming the variable that would do instead. */
static const char *
cli_rules_home(const char *instead)
{
	const char *home = getenv("HOME");
	struct passwd *pw;

	if ((home == NULL || home[0] != '/') && (pw = getpwuid(getuid())) != NULL)
		home = pw->pw_dir;
	if (home == NULL)
		cli_warnx("no home directory to find rules in (set %s)", instead);
	return home;
}

/* $XDG_CONFIG_HOME/shellesc/rules, else ~/.config/shellesc/rules. */
static char *
cli_rules_userdir(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home;

	/* the XDG spec: a relative value is invalid and ignored */
	if (xdg && xdg[0] == '/')
		return cli_rules_join(xdg, "shellesc/rules");
	if ((home = cli_rules_home("XDG_CONFIG_HOME")) == NULL)
		return NULL;
	return cli_rules_join(home, ".config/shellesc/rules");
}

/* Codex's rules, for mcp: $CODEX_HOME/rules, else ~/.codex/rules. */
static char *
cli_rules_codexdir(void)
{
	const char *codex = getenv("CODEX_HOME"), *home;

	if (codex && *codex)
		return cli_rules_join(codex, "rules");
	if ((home = cli_rules_home("CODEX_HOME")) == NULL)
		return NULL;
	return cli_rules_join(home, ".codex/rules");
}

/* Every .rules file in dir, in glob's (sorted) order. */
static int
cli_rules_glob(struct cli_strv *files, const char *dir)
{
	char *pat = cli_rules_join(dir, "*.rules");
	glob_t g;
	int r = 0;

	if (pat == NULL)
		return -1;
	if (glob(pat, 0, NULL, &g) == 0) {
		for (size_t i = 0; r == 0 && i < g.gl_pathc; i++)
			r = cli_strv_add(files, g.gl_pathv[i]);
		globfree(&g);
	}
	free(pat);
	return r;
}

/* A file that did not load: every error was reported, but one that is
 * not in its text (a file that cannot be read), which has line 0. */
static void
cli_rules_failed(const struct rules_error *err, const char *f, bool reported)
{
	if (err->line == 0)
		cli_warnx("%s:0:0: %s", err->file[0] ? err->file : f, err->msg);
	else if (!reported)
		cli_warnx("%s:%d:%d: %s", err->file, err->line, err->column, err->msg);
}

/* A rules set from files (and extra, if not NULL), or NULL after a
 * message.  With report, every error and warning is shown as it is
 * found, and the set is linted. */
static struct rules *
cli_rules_load(const struct cli_rules *cr, const char *extra, bool report)
{
	const struct cli_strv *files = &cr->files;
	struct rules *r = rules_new();
	struct rules_error err = { .line = 0 };
	const char *f = NULL;
	bool ok = true;

	if (r == NULL || rules_set_path(r, cr->path) != 0) {
		rules_free(r);
		cli_oom();
		return NULL;
	}
	if (report)
		rules_set_report(r, cli_rules_report, NULL);
	/* every file, so that each one's errors are shown at once */
	for (size_t i = 0; i <= files->n; i++) {
		f = i < files->n ? files->v[i] : extra;
		if (f != NULL && rules_load_file(r, f, &err) != 0) {
			cli_rules_failed(&err, f, report);
			ok = false;
		}
	}
	if (!ok) {
		rules_free(r);
		return NULL;
	}
	if (report)
		rules_lint(r);
	rules_set_report(r, NULL, NULL);
	return r;
}

/*
 * The directories of our PATH that the sandboxed side cannot write: where
 * a rule's program name is looked up, so that a link it planted cannot
 * give another program that name's rules (rules_set_path).
 */
static char *
cli_rules_trusted_path(const struct cli *c)
{
	const char *path = getenv("PATH") ? getenv("PATH") : PATH_DEFAULT, *p, *end;
	char *const *roots = c->o.sandbox == CLI_SANDBOX_LANDLOCK ? c->o.writable.v : NULL;
	size_t size = strlen(path) + 1;
	char *out = calloc(1, size), dir[PATH_MAX];
	gid_t groups[NGROUPS_MAX];
	int ngroups = getgroups(NGROUPS_MAX, groups);

	for (p = path; out != NULL && *p != '\0'; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		if (p[0] != '/' || (size_t)(end - p) >= sizeof(dir))
			continue;
		snprintf(dir, sizeof(dir), "%.*s", (int)(end - p), p);
		if (shellesc_path_writable(dir, getuid(), groups, ngroups < 0 ? 0 : (size_t)ngroups,
		    roots, NULL) != 0)
			continue;
		if (out[0] != '\0')
			strlcat(out, ":", size);
		strlcat(out, dir, size);
	}
	if (out == NULL)
		cli_oom();
	return out;
}

/* A -p file by its absolute path (as rule sources and "always" show it);
 * one that does not resolve is kept as given, for the load to report. */
static int
cli_rules_add_abs(struct cli_strv *files, const char *f)
{
	char *abs = realpath(f, NULL);
	int r = cli_strv_add(files, abs ? abs : f);

	free(abs);
	return r;
}

/* mcp is a drop-in for Codex's shell tool: Codex's rules come first. */
static int
cli_rules_mcp(struct cli_rules *cr)
{
	char *dir = cli_rules_codexdir();
	int r = dir ? cli_rules_glob(&cr->files, dir) : -1;

	free(dir);
	return r;
}

int
cli_rules_open(struct cli *c)
{
	struct cli_rules *cr = calloc(1, sizeof(*cr));
	char *dir = NULL;
	int r = -1;

	if ((c->rules = cr) == NULL)
		return cli_oom();
	pthread_rwlock_init(&cr->lk, NULL);
	if ((dir = cli_rules_userdir()) == NULL)
		goto out;
	if (c->o.cmd == CLI_MCP && cli_rules_mcp(cr) != 0)
		goto out;
	if (c->o.policies.n > 0) {
		for (size_t i = 0; i < c->o.policies.n; i++)
			if (cli_rules_add_abs(&cr->files, c->o.policies.v[i]) != 0)
				goto out;
	} else if (cli_rules_glob(&cr->files, dir) != 0 ||
	    cli_rules_glob(&cr->files, SHELLESC_SYSCONFDIR "/rules") != 0)
		goto out;
	if ((cr->user = c->o.policies.n > 0 ? strdup(cr->files.v[cr->files.n - 1]) :
	    cli_rules_join(dir, "default.rules")) == NULL)
		goto out;
	for (size_t i = 0; i < cr->files.n; i++)
		cli_debug(c, 2, "rules file %s", cr->files.v[i]);
	if ((cr->path = cli_rules_trusted_path(c)) != NULL &&
	    (cr->r = cli_rules_load(cr, NULL, true)) != NULL)
		r = 0;
out:
	free(dir);
	return r;
}

void
cli_rules_close(struct cli *c)
{
	struct cli_rules *cr = c->rules;

	if (cr == NULL)
		return;
	rules_free(cr->r);
	cli_strv_free(&cr->files);
	free(cr->user);
	free(cr->path);
	pthread_rwlock_destroy(&cr->lk);
	free(cr);
	c->rules = NULL;
}

static char *
cli_rules_dup(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The rules engine has its own target bits; the request's are the same. */
_Static_assert(RULES_TARGET_STATIC == SHELLESC_TARGET_STATIC, "target bits differ");
_Static_assert(RULES_TARGET_SETID == SHELLESC_TARGET_SETID, "target bits differ");
#define CLI_TARGET_MASK	(SHELLESC_TARGET_STATIC | SHELLESC_TARGET_SETID)

void
cli_rules_decide(struct cli *c, const struct rules_file *f, char *const *argv,
    struct cli_verdict *v)
{
	struct cli_rules *cr = c->rules;
	struct rules_match m = { .decision = RULES_NONE };

	pthread_rwlock_rdlock(&cr->lk);
	v->rule = rules_decide_file(cr->r, f, argv, &m);
	v->by_path = m.by_path;
	v->source = v->rule == RULES_NONE ? NULL : cli_rules_dup(m.source);
	v->justification = v->rule == RULES_NONE ? NULL : cli_rules_dup(m.justification);
	pthread_rwlock_unlock(&cr->lk);
	v->effective = v->rule == RULES_NONE ? c->o.dflt : v->rule;
}

bool
cli_rules_host_excludes(struct cli *c, const struct rules_file *f)
{
	bool r;

	pthread_rwlock_rdlock(&c->rules->lk);
	r = rules_host_excludes(c->rules->r, f);
	pthread_rwlock_unlock(&c->rules->lk);
	return r;
}

void
cli_rules_explain(struct cli *c, const struct rules_file *f, char *const *argv,
    void (*fn)(void *arg, const struct rules_hit *h), void *arg)
{
	pthread_rwlock_rdlock(&c->rules->lk);
	rules_explain(c->rules->r, f, argv, fn, arg);
	pthread_rwlock_unlock(&c->rules->lk);
}

const char *
cli_request_program(const struct shellesc_request *req)
{
	const struct shellesc_target *t = shellesc_request_target(req);

	return t->error == 0 && t->path != NULL ? t->path : shellesc_request_program(req);
}

char *const *
cli_request_argv(const struct shellesc_request *req)
{
	return shellesc_request_target(req)->argv;
}

/*
 * The request's file, by the server's facts: never the client's flags.
 * One the server could not open is decided by its name alone (its exec
 * fails, or it cannot be escalated: cli-policy.c).
 */
void
cli_rules_decide_request(struct cli *c, const struct shellesc_request *req,
    struct cli_verdict *v)
{
	const struct shellesc_target *t = shellesc_request_target(req);
	/* the program as written matches relative rules ("./gradlew") only */
	struct rules_file f = { .path = cli_request_program(req),
	    .written = shellesc_request_file(req) };

	if (t->error == 0) {
		f.known = true;
		f.dev = t->dev;
		f.ino = t->ino;
		f.flags = t->facts & CLI_TARGET_MASK;
		f.applet = t->applet;
		f.applet_argi = t->applet_argi;
	}
	cli_rules_decide(c, &f, t->argv, v);
}

struct cli_rules_each {
	char *const *roots;
	struct cli_strv *out;
	int r;
};

static void
cli_rules_each_path(void *arg, const char *path, enum rules_decision d)
{
	struct cli_rules_each *e = arg;

	if (d != RULES_DENY && e->r == 0 &&
	    shellesc_path_writable(path, 0, NULL, 0, e->roots, NULL) == 1)
		e->r = cli_strv_add(e->out, path);
}

int
cli_rules_exec_paths(struct cli *c, struct cli_strv *out)
{
	struct cli_rules_each e = { .roots = c->o.writable.v, .out = out };

	pthread_rwlock_rdlock(&c->rules->lk);
	rules_each_path(c->rules->r, cli_rules_each_path, &e);
	pthread_rwlock_unlock(&c->rules->lk);
	return e.r;
}

/* Record a failed or negative prompt: its answer and the deny reason.
 * Returns -1, for the asking functions to return. */
int
cli_verdict_deny(struct cli_verdict *v, const char *answer, const char *fmt, ...)
{
	va_list ap;

	v->answer = answer;
	free(v->reason);
	va_start(ap, fmt);
	if (vasprintf(&v->reason, fmt, ap) < 0)
		v->reason = NULL;	/* cli_policy_answer makes one up */
	va_end(ap);
	return -1;
}

void
cli_verdict_free(struct cli_verdict *v)
{
	free(v->source);
	free(v->justification);
	free(v->reason);
	memset(v, 0, sizeof(*v));
}

/* Reload with the user's file included, then swap the sets. */
static int
cli_rules_reload(struct cli_rules *cr)
{
	const char *extra = cr->user;
	struct rules *r, *old;

	for (size_t i = 0; i < cr->files.n; i++)
		if (strcmp(cr->files.v[i], cr->user) == 0)
			extra = NULL;
	if ((r = cli_rules_load(cr, extra, false)) == NULL)
		return -1;
	pthread_rwlock_wrlock(&cr->lk);
	old = cr->r;
	cr->r = r;
	pthread_rwlock_unlock(&cr->lk);
	rules_free(old);
	return 0;
}

/* tokens for program argv[1...]: program, then argv[1...] (not copied). */
static char **
cli_rules_tokens(const char *program, char *const *argv, size_t *n)
{
	char **tokens;

	*n = 1;
	while (argv[0] && argv[*n])
		(*n)++;
	if ((tokens = calloc(*n, sizeof(char *))) == NULL)
		return NULL;
	tokens[0] = (char *)program;
	for (size_t i = 1; i < *n; i++)
		tokens[i] = argv[i];
	return tokens;
}

/* The flags of the rule an "always" of this kind writes. */
static unsigned
cli_rules_always_flags(enum cli_always how)
{
	return how == CLI_ALWAYS_PREFIX ? 0 : RULES_APPEND_EXACT;
}

/* The rule "always" of this kind would add (no file), malloc'd or NULL. */
char *
cli_rules_always_text(struct cli *c, const char *program, char *const *argv,
    enum cli_always how)
{
	size_t n;
	char **tokens = cli_rules_tokens(program, argv, &n), *rule;

	(void)c;
	rule = tokens ? rules_format_rule(tokens, n, RULES_ESCALATE,
	    cli_rules_always_flags(how)) : NULL;
	free(tokens);
	return rule;
}

/* The file "always" appends to; *ok: it can be written (or made). */
const char *
cli_rules_always_file(struct cli *c, bool *ok)
{
	const char *f = c->rules->user;

	*ok = access(f, W_OK) == 0 || (errno == ENOENT && c->o.policies.n == 0);
	return f;
}

/* Escalate program argv[1...] from now on, exactly or as a prefix: a
 * prefix_rule in the always file, which this session loads. */
int
cli_rules_always(struct cli *c, const char *program, char *const *argv,
    enum cli_always how)
{
	struct cli_rules *cr = c->rules;
	struct rules_error err = { .msg = "out of memory" };
	size_t n;
	char **tokens = cli_rules_tokens(program, argv, &n);
	int r = tokens ? rules_append_rule(cr->user, tokens, n, RULES_ESCALATE,
	    cli_rules_always_flags(how), &err) : -1;

	free(tokens);
	if (r != 0) {
		cli_warnx("cannot add a rule to %s: %s", cr->user, err.msg);
		return -1;
	}
	cli_debug(c, 1, "added a rule to %s", cr->user);
	return cli_rules_reload(cr);
}
