/*
 * cli-rules.c: which rules files are loaded, deciding from them, and the
 * rule an "always" answer adds: to the one file shellesc owns, the learned
 * file (--learn FILE, else the user's learned.rules), never to a -p file,
 * which a person curates.  Every session loads the learned file when it
 * exists, after the -p files or the default directories (check only
 * without -p: from the default directory, as the other *.rules there).
 * A -p directory stands for its *.rules.
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
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "path.h"

struct cli_rules {
	pthread_rwlock_t lk;
	struct rules *r;
	struct cli_strv files;		/* what r was loaded from, in order */
	size_t ncodex;			/* the first ncodex are Codex's (mcp) */
	bool strict;			/* --strict: a warning fails the load */
	char *user;			/* the learned file "always" appends to */
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

bool
cli_rules_is_codex(const char *file)
{
	const char *codex = getenv("CODEX_HOME"), *home = getenv("HOME");
	char *dir = NULL, *real = NULL, *slash, *rdir;
	bool r = false;

	if (codex != NULL && *codex != '\0')
		dir = cli_rules_join(codex, "rules");
	else if (home != NULL && home[0] == '/')
		dir = cli_rules_join(home, ".codex/rules");
	if (dir != NULL && (real = realpath(file, NULL)) != NULL &&
	    (slash = strrchr(real, '/')) != NULL) {
		*slash = '\0';
		if ((rdir = realpath(dir, NULL)) != NULL)
			r = strcmp(rdir, real[0] ? real : "/") == 0;
		free(rdir);
	}
	free(real);
	free(dir);
	return r;
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
cli_rules_failed(const struct rules_error *err, const char *f, bool reported,
    int e)
{
	if (err->line == 0)
		cli_rules_unreadable(err, f, e);
	else if (!reported)
		cli_warnx("%s:%d:%d: %s", err->file, err->line, err->column, err->msg);
}

/* Load every file (and extra), so that each one's errors are shown at
 * once; false if one did not load. */
static bool
cli_rules_load_files(const struct cli_rules *cr, struct rules *r,
    const char *extra, bool report)
{
	struct rules_error err = { .line = 0 };
	const char *f;
	bool ok = true;

	for (size_t i = 0; i <= cr->files.n; i++) {
		f = i < cr->files.n ? cr->files.v[i] : extra;
		rules_set_codex(r, i < cr->ncodex || (f != NULL && cli_rules_is_codex(f)));
		if (f != NULL && rules_load_file(r, f, &err) != 0) {
			cli_rules_failed(&err, f, report, errno);
			ok = false;
		}
	}
	return ok;
}

/* A rules set from files (and extra, if not NULL), or NULL after a
 * message.  With report, every error and warning is shown as it is
 * found, and the set is linted; with --strict a warning fails it. */
static struct rules *
cli_rules_load(const struct cli_rules *cr, const char *extra, bool report)
{
	struct rules *r = rules_new();
	struct cli_rules_tally t = { .pass = 0 };
	bool ok;

	if (r == NULL || rules_set_path(r, cr->path) != 0) {
		rules_free(r);
		cli_oom();
		return NULL;
	}
	if (report)
		rules_set_report(r, cli_rules_report, &t);
	if ((ok = cli_rules_load_files(cr, r, extra, report)) && report)
		rules_lint(r);
	cli_rules_tally_end(&t);
	if (ok && report && cr->strict && t.warnings > 0) {
		cli_warnx("--strict: %zu warning%s in the rules files", t.warnings,
		    t.warnings == 1 ? "" : "s");
		ok = false;
	}
	if (!ok) {
		rules_free(r);
		return NULL;
	}
	rules_set_report(r, NULL, NULL);
	return r;
}

/*
 * The directories of our PATH that the sandboxed side cannot write: where
 * a rule's program name is looked up, so that a link it planted cannot
 * give another program that name's rules (rules_set_path).
 */
char *
cli_rules_trusted_path(const struct cli *c)
{
	const char *path = getenv("PATH") ? getenv("PATH") : PATH_DEFAULT;
	char *const *roots = c->o.sandbox == CLI_SANDBOX_LANDLOCK ? c->o.writable.v : NULL;
	size_t size = strlen(path) + 1;
	char *out = calloc(1, size), dir[PATH_MAX];
	gid_t groups[NGROUPS_MAX];
	int ngroups = getgroups(NGROUPS_MAX, groups);
	struct path_iter it;

	path_iter_init(&it, path, NULL, PATH_ABSOLUTE);
	while (out != NULL && path_next(&it, dir, sizeof(dir))) {
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

/* path made absolute (its directory resolved: the file may not exist
 * yet); NULL after a message. */
static char *
cli_rules_abs(const char *path)
{
	char *abs = realpath(path, NULL), *dir, *slash, *out = NULL;

	if (abs != NULL)
		return abs;
	if ((dir = strdup(path)) == NULL) {
		cli_oom();
		return NULL;
	}
	slash = strrchr(dir, '/');
	if (slash != NULL)
		*slash = '\0';
	if ((abs = realpath(slash == NULL ? "." : slash == dir ? "/" : dir, NULL)) == NULL)
		out = strdup(path);	/* a missing directory: made when written */
	else if (asprintf(&out, "%s/%s", abs, slash ? slash + 1 : path) < 0)
		out = NULL;
	free(abs);
	free(dir);
	if (out == NULL)
		cli_oom();
	return out;
}

/* The learned file is loaded by every session once it exists (a default
 * directory's glob may have it already); check -p checks its files alone,
 * so that a file's examples hold or fail whoever runs them. */
static int
cli_rules_add_learned(struct cli *c, struct cli_rules *cr)
{
	if (c->o.cmd == CLI_CHECK)
		return 0;
	for (size_t i = 0; i < cr->files.n; i++) {
		if (strcmp(cr->files.v[i], cr->user) != 0)
			continue;
		if (i < c->o.policies.n) {
			cli_warnx("--learn %s: a -p file, which shellesc never writes to; "
			    "learn into a file of its own", cr->user);
			return -1;
		}
		return 0;
	}
	return access(cr->user, F_OK) == 0 ? cli_strv_add(&cr->files, cr->user) : 0;
}

/* Where rules come from: each file loaded, the learned file, and the
 * directories whose *.rules a later session would load. */
int
cli_rules_locations(const struct cli *c, struct cli_strv *out)
{
	const struct cli_rules *cr = c->rules;
	char *user = cli_rules_userdir(), *codex = cli_rules_codexdir();
	int r = user == NULL || codex == NULL ? -1 : 0;

	for (size_t i = 0; r == 0 && cr != NULL && i < cr->files.n; i++)
		r = cli_strv_add(out, cr->files.v[i]);
	if (r == 0 && cr != NULL && cr->user != NULL)
		r = cli_strv_add(out, cr->user);
	if (r == 0)
		r = cli_strv_add(out, user);
	if (r == 0)
		r = cli_strv_add(out, SHELLESC_SYSCONFDIR "/rules");
	if (r == 0 && c->o.cmd == CLI_MCP)
		r = cli_strv_add(out, codex);
	free(user);
	free(codex);
	return r;
}

/* mcp is a drop-in for Codex's shell tool: Codex's rules come first. */
static int
cli_rules_mcp(struct cli_rules *cr)
{
	char *dir = cli_rules_codexdir();
	int r = dir ? cli_rules_glob(&cr->files, dir) : -1;

	free(dir);
	cr->ncodex = cr->files.n;
	return r;
}

static bool
cli_rules_isdir(const char *f)
{
	struct stat st;

	return stat(f, &st) == 0 && S_ISDIR(st.st_mode);
}

int
cli_rules_files(const struct cli_strv *policies, struct cli_strv *out)
{
	for (size_t i = 0; i < policies->n; i++)
		if ((cli_rules_isdir(policies->v[i]) ?
		    cli_rules_glob(out, policies->v[i]) :
		    cli_strv_add(out, policies->v[i])) != 0)
			return -1;
	return 0;
}

/* The -p files, by their absolute paths (as rule sources and "always"
 * show them). */
static int
cli_rules_policies(struct cli_rules *cr, const struct cli_strv *policies)
{
	struct cli_strv files = { 0 };
	int r = cli_rules_files(policies, &files);

	for (size_t i = 0; r == 0 && i < files.n; i++)
		r = cli_rules_add_abs(&cr->files, files.v[i]);
	cli_strv_free(&files);
	return r;
}

/* A session or check with no rules at all says so, once. */
static void
cli_rules_none(const struct cli *c, const char *dir)
{
	if (c->rules->files.n > 0)
		return;
	if (c->o.policies.n > 0)
		cli_warnx("no rules files loaded (no *.rules in the -p "
		    "directories): every command is decided by --default %s",
		    rules_decision_name(c->o.dflt));
	else
		cli_warnx("no rules files loaded (none in %s nor in %s): every "
		    "command is decided by --default %s", dir,
		    SHELLESC_SYSCONFDIR "/rules", rules_decision_name(c->o.dflt));
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
	cr->strict = c->o.strict;
	if ((dir = cli_rules_userdir()) == NULL)
		goto out;
	if (c->o.cmd == CLI_MCP && cli_rules_mcp(cr) != 0)
		goto out;
	if (c->o.policies.n > 0) {
		if (cli_rules_policies(cr, &c->o.policies) != 0)
			goto out;
	} else if (cli_rules_glob(&cr->files, dir) != 0 ||
	    cli_rules_glob(&cr->files, SHELLESC_SYSCONFDIR "/rules") != 0)
		goto out;
	if ((cr->user = c->o.learn ? cli_rules_abs(c->o.learn) :
	    cli_rules_join(dir, CLI_RULES_LEARNED)) == NULL ||
	    cli_rules_add_learned(c, cr) != 0)
		goto out;
	cli_rules_none(c, dir);
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
	v->keep_argv0 = v->rule != RULES_NONE && m.argv0;
	v->source = v->rule == RULES_NONE ? NULL : cli_rules_dup(m.source);
	v->justification = v->rule == RULES_NONE ? NULL : cli_rules_dup(m.justification);
	v->profile = v->rule == RULES_NONE ? NULL : cli_profile_dup(m.profile);
	pthread_rwlock_unlock(&cr->lk);
	v->effective = v->rule == RULES_NONE ? c->o.dflt : v->rule;
	if (v->profile == CLI_PROFILE_NOMEM) {
		/* never unsandboxed for want of memory */
		v->profile = NULL;
		v->rule = v->effective = RULES_DENY;
		free(v->reason);
		v->reason = strdup("out of memory");
	}
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

void
cli_rules_with(struct cli *c, void (*fn)(void *arg, const struct rules *r),
    void *arg)
{
	pthread_rwlock_rdlock(&c->rules->lk);
	fn(arg, c->rules->r);
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
cli_rules_request_file(const struct shellesc_request *req, struct rules_file *f)
{
	const struct shellesc_target *t = shellesc_request_target(req);

	/* the program as written matches relative rules ("./gradlew") only */
	*f = (struct rules_file){ .path = cli_request_program(req),
	    .written = shellesc_request_file(req) };
	if (shellesc_request_argv(req) != NULL)
		f->argv0 = shellesc_request_argv(req)[0];
	if (t->error == 0) {
		f->known = true;
		f->dev = t->dev;
		f->ino = t->ino;
		f->flags = t->facts & CLI_TARGET_MASK;
		f->applet = t->applet;
		f->applet_argi = t->applet_argi;
	}
	for (size_t i = 0; t->error == 0 && i < t->ninterp && i < RULES_CHAIN_MAX; i++) {
		const struct shellesc_interp *in = &t->interp[i];

		f->chain[f->nchain++] = (struct rules_link){ .path = in->path,
		    .known = true, .dev = in->dev, .ino = in->ino, .argv = in->argv };
	}
}

void
cli_rules_decide_request(struct cli *c, const struct shellesc_request *req,
    struct cli_verdict *v)
{
	struct rules_file f;

	cli_rules_request_file(req, &f);
	cli_rules_decide(c, &f, cli_request_argv(req), v);
}

bool
cli_rules_would(const char *path, const char *text, const struct rules_file *f,
    char *const *argv, enum rules_decision d)
{
	struct rules *r = rules_new();
	struct rules_error err;
	bool ok = r != NULL && rules_set_path(r, path) == 0 &&
	    rules_load_text(r, "learned", text, strlen(text), &err) == 0 &&
	    rules_decide_file(r, f, argv, NULL) == d;

	rules_free(r);
	return ok;
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
	cli_profile_free(v->profile);
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

/* The profile an "always" rule names: the one the answer escalated into
 * (NULL, unsandboxed: none written); a run rule names none. */
static const char *
cli_always_profile(const struct cli_profile *p, enum rules_decision d)
{
	return d == RULES_ESCALATE && p != NULL ? p->name : NULL;
}

/* The rule "always" of this kind adds for req, as tokens into t:
 * exactly its argv (program by path), or generalised as --learn does
 * (cli-learn.c), exactly when nothing general can be said.  0 or -1. */
static int
cli_rules_always_tokens(struct cli *c, const struct shellesc_request *req,
    enum cli_always how, enum rules_decision d, struct cli_strv *t, bool *exact)
{
	char *const *argv = cli_request_argv(req);
	struct rules_file f;
	int r = 1;

	*exact = true;
	if (how == CLI_ALWAYS_PREFIX) {
		cli_rules_request_file(req, &f);
		if ((r = cli_learn_rule(c->rules->path, &f, argv, d, t, exact)) < 0)
			return -1;
	}
	if (r == 0)
		return 0;
	cli_strv_free(t);
	*exact = true;
	r = cli_strv_add(t, cli_request_program(req));
	for (size_t i = 1; r == 0 && argv[0] && argv[i]; i++)
		r = cli_strv_add(t, argv[i]);
	return r;
}

char *
cli_rules_always_text(struct cli *c, const struct shellesc_request *req,
    enum cli_always how, enum rules_decision d, const struct cli_profile *profile)
{
	struct cli_strv t = { 0 };
	bool exact;
	char *rule = NULL;

	if (cli_rules_always_tokens(c, req, how, d, &t, &exact) == 0)
		rule = rules_format_new(&(struct rules_new){ t.v, t.n, d,
		    exact ? RULES_APPEND_EXACT : 0, cli_always_profile(profile, d) });
	cli_strv_free(&t);
	return rule;
}

/* The file "always" appends to; *ok: it can be written (or made). */
const char *
cli_rules_always_file(struct cli *c, bool *ok)
{
	const char *f = c->rules->user;

	*ok = access(f, W_OK) == 0 || errno == ENOENT;
	return f;
}

/* Run or escalate req from now on, exactly or generalised: a prefix_rule
 * in the learned file, which this session loads at once. */
int
cli_rules_always(struct cli *c, const struct shellesc_request *req,
    enum cli_always how, enum rules_decision d, const struct cli_profile *profile)
{
	struct cli_rules *cr = c->rules;
	struct rules_error err = { .msg = "out of memory" };
	struct cli_strv t = { 0 };
	bool exact;
	int r = cli_rules_always_tokens(c, req, how, d, &t, &exact);

	if (r == 0)
		r = rules_append_rules(cr->user, &(struct rules_new){ t.v, t.n, d,
		    exact ? RULES_APPEND_EXACT : 0, cli_always_profile(profile, d) }, 1, &err);
	cli_strv_free(&t);
	if (r != 0) {
		cli_warnx("cannot add a rule to %s: %s", cr->user, err.msg);
		return -1;
	}
	cli_debug(c, 1, "added a rule to %s", cr->user);
	return cli_rules_reload(cr);
}

/* The rule a caller suggested, as rules_append_rules takes it: a prefix
 * rule, escalating into the profile asked for (none written for
 * unsandboxed, the default of escalate). */
static struct rules_new
cli_rules_keep_new(const struct cli_ask *ask)
{
	const char *p = ask->profile && strcmp(ask->profile, "unsandboxed") != 0 ?
	    ask->profile : NULL;

	return (struct rules_new){ ask->prefix_rule, ask->nprefix, RULES_ESCALATE, 0, p };
}

char *
cli_rules_keep_text(const struct cli_ask *ask)
{
	struct rules_new rn = cli_rules_keep_new(ask);

	return ask->prefix_rule && ask->nprefix ? rules_format_new(&rn) : NULL;
}

int
cli_rules_keep(struct cli *c, const struct cli_ask *ask)
{
	struct cli_rules *cr = c->rules;
	struct rules_error err = { .msg = "the suggested rule is not a valid rule" };
	struct rules_new rn = cli_rules_keep_new(ask);

	if (ask->prefix_rule == NULL || ask->nprefix == 0 ||
	    rules_append_rules(cr->user, &rn, 1, &err) != 0) {
		cli_warnx("cannot add a rule to %s: %s", cr->user, err.msg);
		return -1;
	}
	cli_debug(c, 1, "added the suggested rule to %s", cr->user);
	return cli_rules_reload(cr);
}
