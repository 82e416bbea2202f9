/*
 * cli-log.c: shellesc audit FILE (or shellesc log FILE): the decision
 * events of an audit log (cli-audit.c) as a table, one line each:
 *
 *   TIME  DECISION  ID  PID  PPID  PARENT  RULE or REASON  COMMAND
 *
 * each column as wide as its widest entry (the table is printed once the
 * whole log is read), the rule's up to CLI_LOG_WHY_MAX (a longer one
 * pushes its line's command right), the command last as it is: the argv
 * as the caller ran it, followed by "(file TARGET)" when the file decided
 * on (a link resolved, a loader replaced) is another path.  --decision
 * (prompt: what a person or the approver was asked), --no-rule, --program
 * (the caller's path or the target, by whole path or file name), --since and
 * --until keep the matching lines only.  With --rules, the rules that
 * --learn would have proposed for the lines kept (cli-learn.c) are
 * printed instead, each once.
 * Times are the log's own (RFC 3339, UTC) and compared as text, so a
 * prefix such as 2026-11-30 or 2026-11-30T05:51 works.  The log is
 * untrusted text: every field is shown through cli_show/cli_vis, and a
 * line that is not an event is skipped (counted on stderr).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli-json.h"

/* The program's file name or its whole path equal to want. */
static bool
cli_log_program(const char *program, const char *want)
{
	const char *slash = strrchr(program, '/');

	return strcmp(program, want) == 0 || (slash && strcmp(slash + 1, want) == 0);
}

static bool
cli_log_keep(const struct cli_opts *o, const json_t *j, const char *when,
    const char *decision, const char *program, const char *target)
{
	bool asked = json_string_value(json_object_get(j, "asked")) != NULL;
	bool ruled = json_is_object(json_object_get(j, "rule"));

	if (o->log_decision && strcmp(o->log_decision, "prompt") == 0 ? !asked :
	    o->log_decision && strcmp(decision, o->log_decision) != 0)
		return false;
	if (o->log_unmatched && ruled)
		return false;
	if (o->log_program && !cli_log_program(program, o->log_program) &&
	    (target == NULL || !cli_log_program(target, o->log_program)))
		return false;
	if (o->log_since && strcmp(when, o->log_since) < 0)
		return false;
	/* --until a prefix: everything that starts with it is still in */
	if (o->log_until && strncmp(when, o->log_until, strlen(o->log_until)) > 0)
		return false;
	return true;
}

/* A JSON array of byte strings into out (an entry that is none: "?");
 * 0 or -1. */
static int
cli_log_strv(const json_t *argv, struct cli_strv *out)
{
	size_t i;
	json_t *e;

	json_array_foreach(argv, i, e) {
		char *s = cli_json_unbytes(e);
		int r = cli_strv_add(out, s ? s : "?");

		free(s);
		if (r != 0)
			return -1;
	}
	return 0;
}

/* shown, then " (file TARGET)"; consumes shown; NULL after a message. */
static char *
cli_log_target(char *shown, const char *target)
{
	char *t = cli_show(target), *out = NULL;

	if (t == NULL || asprintf(&out, "%s (file %s)", shown, t) < 0) {
		out = NULL;
		cli_oom();
	}
	free(t);
	free(shown);
	return out;
}

/* The argv as a shell would read it, and the target when it is another
 * file; NULL after a message. */
static char *
cli_log_argv(const char *program, const json_t *argv, const char *target)
{
	struct cli_strv sv = { 0 };
	char *shown = NULL;

	if (cli_log_strv(argv, &sv) == 0)
		shown = sv.n > 0 ? cli_show_argv(program, sv.v) : cli_show(program);
	cli_strv_free(&sv);
	if (shown != NULL && target != NULL && strcmp(target, program) != 0)
		shown = cli_log_target(shown, target);
	return shown;
}

/* RULE (FILE:LINE) and the reason, for the last column. */
static void
cli_log_why(const json_t *j, char *buf, size_t size)
{
	const char *src = json_string_value(json_object_get(json_object_get(j, "rule"), "source"));
	const char *reason = json_string_value(json_object_get(j, "reason"));
	const char *answer = json_string_value(json_object_get(j, "answer"));
	const char *prof = json_string_value(json_object_get(json_object_get(j, "profile"),
	    "name"));
	char *s = cli_vis(src ? src : "no rule matched"), *w = reason ? cli_vis(reason) : NULL;
	/* an escalation into a profile says which (unsandboxed: as it was) */
	char *p = prof && strcmp(prof, "unsandboxed") != 0 ? cli_vis(prof) : NULL;

	snprintf(buf, size, "%s%s%s%s%s%s%s", s ? s : "?", p ? ", profile " : "",
	    p ? p : "", answer ? ", answered " : "", answer ? answer : "", w ? ": " : "",
	    w ? w : "");
	free(s);
	free(w);
	free(p);
}

/* The table's columns, and its rows as shown (each cell malloc'd). */
#define CLI_LOG_COLS	8
#define CLI_LOG_WHY_MAX	48

struct cli_log {
	const struct cli_opts *o;
	char **cells;			/* rows * CLI_LOG_COLS */
	size_t rows, cap;
	size_t width[CLI_LOG_COLS];
	struct cli_learn *learn;	/* --rules */
};

/* An integer field as text, "-" when absent or null. */
static char *
cli_log_int(const json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);
	char *s = NULL;

	if (!json_is_integer(v))
		return strdup("-");
	return asprintf(&s, "%" JSON_INTEGER_FORMAT, json_integer_value(v)) < 0 ? NULL : s;
}

static int
cli_log_row(struct cli_log *l, char *cells[CLI_LOG_COLS])
{
	if (l->rows == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		char **v = reallocarray(l->cells, cap * CLI_LOG_COLS, sizeof(char *));

		if (v == NULL)
			return -1;
		l->cells = v;
		l->cap = cap;
	}
	for (size_t i = 0; i < CLI_LOG_COLS; i++) {
		size_t w = strlen(cells[i]);

		if (i == 6 && w > CLI_LOG_WHY_MAX)
			w = CLI_LOG_WHY_MAX;
		l->cells[l->rows * CLI_LOG_COLS + i] = cells[i];
		if (w > l->width[i])
			l->width[i] = w;
	}
	l->rows++;
	return 0;
}

/* A kept decision as a row of the table; 0 or -1 (out of memory). */
static int
cli_log_table(struct cli_log *l, const json_t *j, const char *when, const char *decision,
    char *cmd)
{
	char *cells[CLI_LOG_COLS] = { cli_vis(when), cli_vis(decision), cli_log_int(j, "id"),
	    cli_log_int(j, "pid"), cli_log_int(j, "ppid"), cli_log_int(j, "parent_id"),
	    malloc(1024), cmd };
	bool ok = true;

	for (size_t i = 0; i < CLI_LOG_COLS; i++)
		ok = ok && cells[i] != NULL;
	if (ok) {
		cli_log_why(j, cells[6], 1024);
		if (cli_log_row(l, cells) == 0)
			return 0;
	}
	for (size_t i = 0; i < CLI_LOG_COLS; i++)
		free(cells[i]);
	return -1;
}

/* Was j decided by no rule, or asked about: what --learn proposes for. */
static bool
cli_log_learnable(const json_t *j)
{
	return json_string_value(json_object_get(j, "asked")) != NULL ||
	    !json_is_object(json_object_get(j, "rule"));
}

/* --rules: what --learn would have proposed for this decision. */
static int
cli_log_learn(struct cli_log *l, const json_t *j, const char *decision)
{
	char *target = cli_json_unbytes(json_object_get(j, "target"));
	char *program = cli_json_unbytes(json_object_get(j, "program"));
	char *file = cli_json_unbytes(json_object_get(j, "file"));
	json_t *a = json_object_get(j, "target_argv");
	struct cli_strv argv = { 0 };
	struct rules_file f = { .path = target ? target : program, .written = file };
	enum rules_decision d = strcmp(decision, "run") == 0 ? RULES_RUN :
	    strcmp(decision, "escalate") == 0 ? RULES_ESCALATE : RULES_NONE;
	struct stat st;
	int r;

	if (!json_is_array(a) || json_array_size(a) == 0)
		a = json_object_get(j, "argv");
	/* the file as it is now: the log holds no identity */
	if (target && stat(target, &st) == 0) {
		f.known = true;
		f.dev = st.st_dev;
		f.ino = st.st_ino;
	}
	r = cli_log_strv(a, &argv);
	if (r == 0 && f.path != NULL && argv.n > 0 && cli_log_learnable(j))
		r = cli_learn_add(l->learn, &f, argv.v, d);
	cli_strv_free(&argv);
	free(target);
	free(program);
	free(file);
	return r;
}

/* One event: 1 kept, 0 filtered out or not a decision, -1 not an event,
 * -2 out of memory. */
static int
cli_log_line(struct cli_log *l, const char *line, size_t len)
{
	json_t *j = json_loadb(line, len, 0, NULL);
	const char *when = json_string_value(json_object_get(j, "time"));
	const char *event = json_string_value(json_object_get(j, "event"));
	const char *decision = json_string_value(json_object_get(j, "decision"));
	char *program = cli_json_unbytes(json_object_get(j, "program")), *cmd = NULL;
	char *target = cli_json_unbytes(json_object_get(j, "target"));
	int r = j && when && event ? 0 : -1;

	if (r != 0 || strcmp(event, "decision") != 0 || !decision || !program ||
	    !cli_log_keep(l->o, j, when, decision, program, target))
		goto out;
	if (l->learn != NULL)
		r = cli_log_learn(l, j, decision) == 0 ? 1 : -2;
	else if ((cmd = cli_log_argv(program, json_object_get(j, "argv"), target)) == NULL)
		r = -2;
	else
		r = cli_log_table(l, j, when, decision, cmd) == 0 ? 1 : -2;
out:
	free(program);
	free(target);
	json_decref(j);
	return r;
}

static void
cli_log_print(struct cli_log *l)
{
	static const char *const heads[CLI_LOG_COLS] = { "TIME", "DECISION", "ID", "PID",
	    "PPID", "PARENT", "RULE or REASON", "COMMAND" };

	for (size_t i = 0; i < CLI_LOG_COLS; i++)
		if (strlen(heads[i]) > l->width[i])
			l->width[i] = strlen(heads[i]);
	for (size_t row = 0; row <= l->rows; row++)
		for (size_t i = 0; i < CLI_LOG_COLS; i++) {
			const char *s = row == 0 ? heads[i] : l->cells[(row - 1) * CLI_LOG_COLS + i];

			if (i + 1 < CLI_LOG_COLS)
				printf("%-*s  ", (int)l->width[i], s);
			else
				printf("%s\n", s);
		}
}

static void
cli_log_free(struct cli_log *l)
{
	for (size_t i = 0; i < l->rows * CLI_LOG_COLS; i++)
		free(l->cells[i]);
	free(l->cells);
	cli_learn_free(l->learn);
}

/* Every line of f into l; false when reading failed. */
static int
cli_log_read(struct cli_log *l, FILE *f, const char *path)
{
	char *line = NULL;
	size_t cap = 0, bad = 0;
	ssize_t n;
	int k, r = 0;

	while (r == 0 && (n = getline(&line, &cap, f)) > 0)
		if ((k = cli_log_line(l, line, (size_t)n)) == -1)
			bad++;
		else if (k == -2)
			r = cli_oom();
	if (r == 0 && ferror(f) != 0) {
		cli_warn("audit: %s", path);
		r = -1;
	}
	if (bad > 0)
		cli_warnx("audit: %s: %zu lines are not audit events", path, bad);
	free(line);
	return r;
}

int
cli_log(struct cli *c)
{
	const char *path = c->o.argv[0];
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	struct cli_log l = { .o = &c->o };
	int r = -1;

	if (f == NULL) {
		cli_warn("audit: %s", path);
		return CLI_EXIT_FAIL;
	}
	if ((!c->o.log_rules || (l.learn = cli_learn_new(c)) != NULL) &&
	    (r = cli_log_read(&l, f, path)) == 0) {
		if (l.learn != NULL)
			r = cli_learn_print(l.learn, stdout);
		else
			cli_log_print(&l);
	}
	cli_log_free(&l);
	if (f != stdin)
		fclose(f);
	return fflush(stdout) == 0 && r == 0 ? 0 : CLI_EXIT_FAIL;
}
