/*
 * cli-rules.c: which rules files are loaded, deciding from them, and the
 * rule an "always" answer adds.
 *
 * The loaded set sits behind a read-write lock: the loop thread decides
 * under the read lock while an "always" answer (prompt thread) appends to
 * the user's file and swaps in a freshly loaded set, so the same command
 * is not asked about again in this session either.
 */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

struct cli_rules {
	pthread_rwlock_t lk;
	struct rules *r;
	struct cli_strv files;		/* what r was loaded from, in order */
	char *user;			/* the file "always" appends to */
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

/* $XDG_CONFIG_HOME/shellesc/rules, else ~/.config/shellesc/rules. */
static char *
cli_rules_userdir(void)
{
	const char *xdg = getenv("XDG_CONFIG_HOME"), *home = getenv("HOME");
	struct passwd *pw;

	/* the XDG spec: a relative value is invalid and ignored */
	if (xdg && xdg[0] == '/')
		return cli_rules_join(xdg, "shellesc/rules");
	if ((home == NULL || home[0] != '/') && (pw = getpwuid(getuid())) != NULL)
		home = pw->pw_dir;
	if (home == NULL) {
		cli_warnx("no home directory to find the user's rules in (set XDG_CONFIG_HOME)");
		return NULL;
	}
	return cli_rules_join(home, ".config/shellesc/rules");
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

/* A rules set from files (and extra, if not NULL), or NULL after a message. */
static struct rules *
cli_rules_load(const struct cli_strv *files, const char *extra)
{
	struct rules *r = rules_new();
	struct rules_error err = { .line = 0 };
	const char *f = NULL;

	if (r == NULL) {
		cli_oom();
		return NULL;
	}
	for (size_t i = 0; i <= files->n; i++) {
		f = i < files->n ? files->v[i] : extra;
		if (f != NULL && rules_load_file(r, f, &err) != 0)
			goto fail;
	}
	return r;
fail:
	if (err.line > 0)
		cli_warnx("%s:%d:%d: %s", err.file[0] ? err.file : f, err.line, err.column, err.msg);
	else
		cli_warnx("%s: %s", err.file[0] ? err.file : f, err.msg);
	rules_free(r);
	return NULL;
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
	if ((dir = cli_rules_userdir()) == NULL ||
	    (cr->user = cli_rules_join(dir, "default.rules")) == NULL)
		goto out;
	if (c->o.policies.n > 0) {
		for (size_t i = 0; i < c->o.policies.n; i++)
			if (cli_strv_add(&cr->files, c->o.policies.v[i]) != 0)
				goto out;
	} else if (cli_rules_glob(&cr->files, dir) != 0 ||
	    cli_rules_glob(&cr->files, SHELLESC_SYSCONFDIR "/rules") != 0)
		goto out;
	for (size_t i = 0; i < cr->files.n; i++)
		cli_debug(c, 2, "rules file %s", cr->files.v[i]);
	if ((cr->r = cli_rules_load(&cr->files, NULL)) != NULL)
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
cli_rules_decide(struct cli *c, const char *program, char *const *argv,
    unsigned flags, struct cli_verdict *v)
{
	struct cli_rules *cr = c->rules;
	struct rules_match m = { .decision = RULES_NONE };

	pthread_rwlock_rdlock(&cr->lk);
	v->rule = rules_decide(cr->r, program, argv, flags & CLI_TARGET_MASK, &m);
	v->source = v->rule == RULES_NONE ? NULL : cli_rules_dup(m.source);
	v->justification = v->rule == RULES_NONE ? NULL : cli_rules_dup(m.justification);
	pthread_rwlock_unlock(&cr->lk);
	v->effective = v->rule == RULES_NONE ? c->o.dflt : v->rule;
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
	if ((r = cli_rules_load(&cr->files, extra)) == NULL)
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

/* "RULE (to FILE)": what "always" would add, for the question. */
char *
cli_rules_always_text(struct cli *c, const char *program, char *const *argv)
{
	size_t n;
	char **tokens = cli_rules_tokens(program, argv, &n), *rule, *text = NULL;

	rule = tokens ? rules_format_prefix_rule(tokens, n, RULES_ESCALATE) : NULL;
	if (rule && asprintf(&text, "%s (to %s)", rule, c->rules->user) < 0)
		text = NULL;
	free(rule);
	free(tokens);
	return text;
}

/* Escalate program argv[1...] from now on: a prefix_rule in the user's file. */
int
cli_rules_always(struct cli *c, const char *program, char *const *argv)
{
	struct cli_rules *cr = c->rules;
	struct rules_error err = { .msg = "out of memory" };
	size_t n;
	char **tokens = cli_rules_tokens(program, argv, &n);
	int r = tokens ? rules_append_prefix_rule(cr->user, tokens, n, RULES_ESCALATE, &err) : -1;

	free(tokens);
	if (r != 0) {
		cli_warnx("cannot add a rule to %s: %s", cr->user, err.msg);
		return -1;
	}
	cli_debug(c, 1, "added a rule to %s", cr->user);
	return cli_rules_reload(cr);
}
