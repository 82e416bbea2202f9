/*
 * cli-diag.c: showing what the rules engine reports while loading files:
 * each error or warning as FILE:LINE:COL: message, then the line of the
 * file and a caret under the place, as compilers do; and, when a file's
 * examples are run as tests (shellesc check -p FILE), a line for each.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* "    LINE\n    ^\n", or "" when e has no line: one string, so that a
 * message is one write (threads report too). */
static char *
cli_diag_source(const struct rules_error *e)
{
	char *s = NULL;

	if (e->text[0] == '\0' || e->column < 1)
		return strdup("");
	if (asprintf(&s, "    %s\n    %*s^\n", e->text, e->column - 1, "") < 0)
		return NULL;
	return s;
}

static void
cli_diag_show(const struct rules_error *e)
{
	char *src = cli_diag_source(e);

	fprintf(stderr, "shellesc: %s:%d:%d: %s%s\n%s", e->file, e->line,
	    e->column, e->severity == RULES_SEV_WARNING ? "warning: " : "",
	    e->msg, src ? src : "");
	free(src);
}

/* An example's result, on stdout: "pass ..." or "FAIL ...". */
static void
cli_diag_example(struct cli_rules_tally *t, const struct rules_error *e)
{
	bool pass = e->severity == RULES_SEV_PASS;

	if (pass)
		t->pass++;
	else
		t->fail++;
	printf("%s %s:%d:%d: %s\n", pass ? "pass" : "FAIL", e->file, e->line,
	    e->column, e->msg);
}

void
cli_rules_report(void *arg, const struct rules_error *e)
{
	struct cli_rules_tally *t = arg;

	if (t != NULL && e->example) {
		cli_diag_example(t, e);
		return;
	}
	if (e->severity == RULES_SEV_PASS)
		return;
	if (t != NULL && e->severity == RULES_SEV_ERROR)
		t->errors++;
	cli_diag_show(e);
}
