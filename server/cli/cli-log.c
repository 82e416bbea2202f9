/*
 * cli-log.c: shellesc audit FILE (or shellesc log FILE): the decision
 * events of an audit log (cli-audit.c) as a table, one line each:
 *
 *   TIME                      DECISION  COMMAND                 RULE or REASON
 *
 * --decision, --program, --since and --until keep the matching lines only.
 * Times are the log's own (RFC 3339, UTC) and compared as text, so a
 * prefix such as 2026-11-30 or 2026-11-30T05:51 works.  The log is
 * untrusted text: every field is shown through cli_show/cli_vis, and a
 * line that is not an event is skipped (counted on stderr).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
cli_log_keep(const struct cli_opts *o, const char *when, const char *decision,
    const char *program)
{
	if (o->log_decision && strcmp(decision, o->log_decision) != 0)
		return false;
	if (o->log_program && !cli_log_program(program, o->log_program))
		return false;
	if (o->log_since && strcmp(when, o->log_since) < 0)
		return false;
	/* --until a prefix: everything that starts with it is still in */
	if (o->log_until && strncmp(when, o->log_until, strlen(o->log_until)) > 0)
		return false;
	return true;
}

/* The argv as a shell would read it; NULL after a message. */
static char *
cli_log_argv(const char *program, const json_t *argv)
{
	struct cli_strv sv = { 0 };
	size_t i;
	json_t *e;
	char *shown;

	json_array_foreach(argv, i, e) {
		char *s = cli_json_unbytes(e);

		if (cli_strv_add(&sv, s ? s : "?") != 0) {
			free(s);
			cli_strv_free(&sv);
			return NULL;
		}
		free(s);
	}
	shown = sv.n > 0 ? cli_show_argv(program, sv.v) : cli_show(program);
	cli_strv_free(&sv);
	return shown;
}

/* RULE (FILE:LINE) and the reason, for the last column. */
static void
cli_log_why(const json_t *j, char *buf, size_t size)
{
	const char *src = json_string_value(json_object_get(json_object_get(j, "rule"), "source"));
	const char *reason = json_string_value(json_object_get(j, "reason"));
	const char *answer = json_string_value(json_object_get(j, "answer"));
	char *s = cli_vis(src ? src : "no rule matched"), *w = reason ? cli_vis(reason) : NULL;

	snprintf(buf, size, "%s%s%s%s%s", s ? s : "?", answer ? ", answered " : "",
	    answer ? answer : "", w ? ": " : "", w ? w : "");
	free(s);
	free(w);
}

/* One event: 1 shown, 0 filtered out or not a decision, -1 not an event. */
static int
cli_log_line(const struct cli_opts *o, const char *line, size_t len)
{
	json_t *j = json_loadb(line, len, 0, NULL);
	const char *when = json_string_value(json_object_get(j, "time"));
	const char *event = json_string_value(json_object_get(j, "event"));
	const char *decision = json_string_value(json_object_get(j, "decision"));
	char *program = cli_json_unbytes(json_object_get(j, "program")), *cmd = NULL, why[1024];
	int r = j && when && event ? 0 : -1;

	if (r == 0 && strcmp(event, "decision") == 0 && decision && program &&
	    cli_log_keep(o, when, decision, program) &&
	    (cmd = cli_log_argv(program, json_object_get(j, "argv"))) != NULL) {
		cli_log_why(j, why, sizeof(why));
		printf("%-24.24s  %-8.8s  %s  %s\n", when, decision, cmd, why);
		r = 1;
	}
	free(cmd);
	free(program);
	json_decref(j);
	return r;
}

int
cli_log(struct cli *c)
{
	const char *path = c->o.argv[0];
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "re");
	char *line = NULL;
	size_t cap = 0, bad = 0;
	ssize_t n;
	bool failed;

	if (f == NULL) {
		cli_warn("audit: %s", path);
		return CLI_EXIT_FAIL;
	}
	printf("%-24s  %-8s  %s  %s\n", "TIME", "DECISION", "COMMAND", "RULE or REASON");
	while ((n = getline(&line, &cap, f)) > 0)
		if (cli_log_line(&c->o, line, (size_t)n) < 0)
			bad++;
	if ((failed = ferror(f) != 0))
		cli_warn("audit: %s", path);
	if (bad > 0)
		cli_warnx("audit: %s: %zu lines are not audit events", path, bad);
	free(line);
	if (f != stdin)
		fclose(f);
	return fflush(stdout) == 0 && !failed ? 0 : CLI_EXIT_FAIL;
}
