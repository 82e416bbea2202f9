/*
 * cli-check.c: shellesc check ARGV: what the rules decide for a command,
 * the rule that decided it and, with --explain, every rule that matches,
 * how the program was resolved and the rules that nearly matched
 * (cli-check-why.c).
 * ARGV[0] is found as a shell would (PATH) and identified the way the
 * server does (its real path and inode), so the answer is the one a
 * session would give; a program that is not installed is decided by its
 * name as written, and the answer says so.  Flags (static, set-id) are
 * taken as none.  The exit status is the decision (cli_check_status).
 * Without ARGV, check runs the -p files' examples (cli-check-tests.c).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "cli-json.h"
#include "path.h"

/* One matching rule, copied out of the set (--explain). */
struct cli_check_hit {
	char *source, *justification, *head;
	enum rules_decision decision;
	size_t nprefix, argi;
	bool options;			/* options placed or spelled otherwise */
};

struct cli_check {
	struct cli *c;
	const char *program;		/* the path that would run, or the name */
	bool installed;			/* program was found */
	struct rules_file f;
	struct cli_verdict v;
	struct cli_check_hit *hits;
	size_t nhits;
	bool oom;			/* a hit could not be kept */
	json_t *why;			/* --explain: cli_check_why */
	bool excluded;			/* by a host_executable (cli_check_text) */
};

int
cli_check_status(enum rules_decision d)
{
	switch (d) {
	case RULES_RUN: return CLI_CHECK_RUN;
	case RULES_ESCALATE: return CLI_CHECK_ESCALATE;
	case RULES_PROMPT: return CLI_CHECK_PROMPT;
	case RULES_DENY: return CLI_CHECK_DENY;
	default: return CLI_EXIT_FAIL;
	}
}

/* The tokens a hit's pattern matched: its program, then its arguments. */
static char **
cli_check_prefix(const struct cli_check *k, const struct cli_check_hit *h)
{
	char **v = calloc(h->nprefix + 1, sizeof(char *));

	if (v == NULL)
		return NULL;
	v[0] = h->head;
	for (size_t i = 1; i < h->nprefix; i++)
		v[i] = k->c->o.argv[h->argi + i - 1];
	return v;
}

static void
cli_check_text_hits(const struct cli_check *k)
{
	printf("  matching rules: %zu\n", k->nhits);
	for (size_t i = 0; i < k->nhits; i++) {
		const struct cli_check_hit *h = &k->hits[i];
		char **prefix = cli_check_prefix(k, h);
		char *shown = prefix ? cli_show_argv(prefix[0], prefix) : NULL;
		char *prog = cli_show(k->f.path);

		printf("    %s (%s): prefix %s, program %s%s\n", h->source,
		    rules_decision_name(h->decision), shown ? shown : "?",
		    prog ? prog : "?", h->options ? ", options written otherwise" : "");
		free(prog);
		free(shown);
		free(prefix);
	}
}

/* Why the answer may not be what the author expects. */
static void
cli_check_text_notes(const struct cli_check *k)
{
	const char *base = strrchr(k->f.path, '/');
	char *prog = cli_show(k->f.path), *name = cli_show(base ? base + 1 : k->f.path);

	if (!k->installed)
		printf("  not installed here: decided by the name as written\n");
	if (k->excluded)
		printf("  %s is not one of the paths of host_executable(name = %s): "
		    "rules for %s do not apply to it\n", prog ? prog : "?",
		    name ? name : "?", name ? name : "?");
	free(prog);
	free(name);
}

static void
cli_check_text(const struct cli_check *k)
{
	const struct cli_verdict *v = &k->v;
	char *cmd = cli_show_argv(k->program, k->c->o.argv);
	char *why = v->justification ? cli_vis(v->justification) : NULL;

	printf("%s %s\n", rules_decision_name(v->effective), cmd ? cmd : "?");
	cli_check_text_notes(k);
	if (v->rule == RULES_NONE)
		printf("  no rule matched (--default %s)\n", rules_decision_name(k->c->o.dflt));
	else
		printf("  rule %s (%s)%s%s\n", v->source ? v->source : "?",
		    rules_decision_name(v->rule), why ? ": " : "", why ? why : "");
	if (v->rule == RULES_ESCALATE || v->rule == RULES_PROMPT)
		printf("  profile: %s\n", cli_profile_name(v->profile));
	if (k->c->o.explain) {
		cli_check_text_hits(k);
		cli_check_why_text(k->why);
	}
	free(cmd);
	free(why);
}

static json_t *
cli_check_json_hits(const struct cli_check *k)
{
	json_t *a = json_array();

	for (size_t i = 0; a != NULL && i < k->nhits; i++) {
		const struct cli_check_hit *h = &k->hits[i];
		char **prefix = cli_check_prefix(k, h);

		json_array_append_new(a, json_pack("{s:o, s:s, s:o, s:o, s:o, s:o, s:b}",
		    "source", cli_json_str(h->source),
		    "decision", rules_decision_name(h->decision),
		    "justification", cli_json_str(h->justification),
		    "prefix", prefix ? cli_json_strv(prefix) : json_null(),
		    "head", cli_json_str(h->head), "program", cli_json_str(k->f.path),
		    "options", h->options));
		free(prefix);
	}
	return a;
}

static void
cli_check_json(const struct cli_check *k)
{
	const struct cli_verdict *v = &k->v;
	json_t *rule = v->rule == RULES_NONE ? json_null() :
	    json_pack("{s:o, s:s, s:o, s:o}", "source", cli_json_str(v->source),
	    "decision", rules_decision_name(v->rule), "justification", cli_json_str(v->justification),
	    "profile", cli_profile_json(v->profile, v->rule));
	json_t *j = json_pack("{s:o, s:o, s:o, s:s, s:o, s:s, s:b}",
	    "program", cli_json_str(k->program), "target", cli_json_str(k->f.path),
	    "argv", cli_json_strv(k->c->o.argv),
	    "decision", rules_decision_name(v->effective), "rule", rule,
	    "default", rules_decision_name(k->c->o.dflt), "installed", k->installed);
	char *line;

	if (j != NULL)
		json_object_set_new(j, "host_executable_excludes", json_boolean(k->excluded));
	if (j != NULL && k->c->o.explain) {
		json_object_set_new(j, "matches", cli_check_json_hits(k));
		json_object_set(j, "why", k->why);
	}
	if ((line = cli_json_line(j)) != NULL)
		fputs(line, stdout);
	free(line);
}

/* name made absolute from the current directory (malloc'd), or NULL
 * after a message. */
static char *
cli_check_absolute(char *found)
{
	char *cwd = NULL, *abs = NULL;
	size_t size;

	if (found[0] == '/')
		return found;
	if ((cwd = getcwd(NULL, 0)) == NULL)
		cli_warn("check: the current directory");
	else if ((abs = malloc(size = strlen(cwd) + strlen(found) + 3)) == NULL)
		cli_warn("check");
	else
		path_absolute(abs, size, cwd, found);
	free(cwd);
	free(found);
	return abs;
}

/*
 * ARGV[0] as the absolute path that would run; or, when PATH has no such
 * program, the name as written (rules are often written for programs not
 * installed where they are checked).  NULL after a message.
 */
static char *
cli_check_program(struct cli_check *k, const char *name)
{
	char *found = cli_path_search(name), *shown;

	k->installed = found != NULL;
	if (found != NULL)
		return cli_check_absolute(found);
	if (strchr(name, '/') != NULL) {
		if ((found = strdup(name)) == NULL)
			cli_oom();
		return found ? cli_check_absolute(found) : NULL;
	}
	shown = cli_show(name);
	cli_warnx("check: %s: not found in PATH; deciding by the name as written",
	    shown ? shown : "ARGV0");
	free(shown);
	return strdup(name);
}

/* The file found, as a session's server identifies it: by its real path
 * and inode (f->path is malloc'd).  Its set-id bits, a loader or a busybox
 * are not looked at.  A name not found stays a bare name. */
static int
cli_check_file(const char *program, const char *written, struct rules_file *f)
{
	struct stat st;

	f->written = written;
	if (program[0] != '/' || (f->path = realpath(program, NULL)) == NULL)
		return (f->path = strdup(program)) == NULL ? cli_oom() : 0;
	if (stat(f->path, &st) == 0) {
		f->known = true;
		f->dev = st.st_dev;
		f->ino = st.st_ino;
	}
	return 0;
}

static void
cli_check_hit(void *arg, const struct rules_hit *h)
{
	struct cli_check *k = arg;
	struct cli_check_hit *v, *x;

	if ((v = reallocarray(k->hits, k->nhits + 1, sizeof(*v))) == NULL) {
		k->oom = true;
		return;
	}
	k->hits = v;
	x = &v[k->nhits++];
	*x = (struct cli_check_hit){ .source = strdup(h->source),
	    .justification = h->justification ? strdup(h->justification) : NULL,
	    .head = strdup(h->head), .decision = h->decision,
	    .nprefix = h->nprefix, .argi = h->argi, .options = h->options };
}

/* The strictest first, then by file and line. */
static int
cli_check_hit_cmp(const void *a, const void *b)
{
	const struct cli_check_hit *x = a, *y = b;

	if (x->decision != y->decision)
		return x->decision > y->decision ? -1 : 1;
	return strcmp(x->source ? x->source : "", y->source ? y->source : "");
}

static void
cli_check_free(struct cli_check *k)
{
	for (size_t i = 0; i < k->nhits; i++) {
		free(k->hits[i].source);
		free(k->hits[i].justification);
		free(k->hits[i].head);
	}
	free(k->hits);
	json_decref(k->why);
	cli_verdict_free(&k->v);
	free((char *)k->f.path);
	free((char *)k->program);
}

static int
cli_check_decide(struct cli_check *k)
{
	struct cli *c = k->c;

	cli_rules_decide(c, &k->f, c->o.argv, &k->v);
	k->excluded = cli_rules_host_excludes(c, &k->f);
	if (c->o.explain) {
		cli_rules_explain(c, &k->f, c->o.argv, cli_check_hit, k);
		for (size_t i = 0; i < k->nhits; i++)
			if (k->hits[i].source == NULL || k->hits[i].head == NULL)
				k->oom = true;
		if ((k->why = cli_check_why(c, &k->f, c->o.argv)) == NULL)
			k->oom = true;
		if (k->oom) {
			cli_oom();
			return CLI_EXIT_FAIL;
		}
		if (k->nhits > 1)	/* hits NULL when there are none */
			qsort(k->hits, k->nhits, sizeof(*k->hits), cli_check_hit_cmp);
	}
	if (c->o.json)
		cli_check_json(k);
	else
		cli_check_text(k);
	return fflush(stdout) == 0 ? cli_check_status(k->v.effective) : CLI_EXIT_FAIL;
}

int
cli_check(struct cli *c)
{
	struct cli_check k = { .c = c };
	int r = CLI_EXIT_FAIL;

	if (c->o.argc == 0)
		return cli_check_tests(c);
	if (cli_rules_open(c) == 0 &&
	    (k.program = cli_check_program(&k, c->o.argv[0])) != NULL &&
	    cli_check_file(k.program, c->o.argv[0], &k.f) == 0)
		r = cli_check_decide(&k);
	cli_check_free(&k);
	cli_rules_close(c);
	return r;
}
