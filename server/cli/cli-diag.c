/*
 * cli-diag.c: showing what the rules engine reports while loading files:
 * each error or warning as FILE:LINE:COL: message, then the line of the
 * file and a caret under the place, as compilers do; and, when a file's
 * examples are run as tests (shellesc check -p FILE), a line for each.
 * Everything is counted; warnings past CLI_MAX_WARNINGS are only counted,
 * so that a file with thousands of them shows a screenful and the total.
 */
#include "config.h"

#include <errno.h>
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

	if (e->line == 0) {	/* not in the text: the file itself (cannot be read) */
		fprintf(stderr, "shellesc: rules file %s: %s\n", e->file, e->msg);
		free(src);
		return;
	}
	fprintf(stderr, "shellesc: %s:%d:%d: %s%s\n%s", e->file, e->line,
	    e->column, e->severity == RULES_SEV_WARNING ? "warning: " : "",
	    e->msg, src ? src : "");
	free(src);
}

/* An example's result, on stdout: "pass ..." or "FAIL ...". */
static void
cli_diag_example(const struct rules_error *e)
{
	bool pass = e->severity == RULES_SEV_PASS;

	printf("%s %s:%d:%d: %s\n", pass ? "pass" : "FAIL", e->file, e->line,
	    e->column, e->msg);
}

/* Count an error of e's file; a file with RULES_MAX_ERRORS of them was
 * not read further (its load stops there). */
static void
cli_diag_count_error(struct cli_rules_tally *t, const struct rules_error *e)
{
	if (strcmp(t->file, e->file) != 0) {
		snprintf(t->file, sizeof(t->file), "%s", e->file);
		t->file_errors = 0;
	}
	if (++t->file_errors >= RULES_MAX_ERRORS)
		t->stopped = true;
}

/* Count e; false when it is not to be shown (a passed example outside
 * check -p, a warning past the cap). */
static bool
cli_diag_count(struct cli_rules_tally *t, const struct rules_error *e)
{
	if (e->severity == RULES_SEV_ERROR)
		cli_diag_count_error(t, e);
	if (e->example && t->examples) {
		if (e->severity == RULES_SEV_PASS)
			t->pass++;
		else
			t->fail++;
		return true;
	}
	if (e->severity == RULES_SEV_PASS)
		return false;
	if (e->severity == RULES_SEV_ERROR) {
		t->errors++;
		return true;
	}
	return ++t->warnings <= CLI_MAX_WARNINGS;
}

void
cli_rules_report(void *arg, const struct rules_error *e)
{
	struct cli_rules_tally *t = arg;

	if (!cli_diag_count(t, e) && t->collect == NULL)
		return;
	if (t->collect != NULL)
		t->collect(t->collect_arg, e);
	else if (e->example && t->examples)
		cli_diag_example(e);
	else
		cli_diag_show(e);
}

void
cli_rules_tally_end(const struct cli_rules_tally *t)
{
	size_t more = t->warnings > CLI_MAX_WARNINGS ?
	    t->warnings - CLI_MAX_WARNINGS : 0;

	if (more > 0 && t->collect == NULL)
		cli_warnx("and %zu more warning%s", more, more == 1 ? "" : "s");
}

void
cli_rules_unreadable(const struct rules_error *err, const char *file, int e)
{
	cli_warnx("%s: %s%s", err->file[0] ? err->file : file, err->msg,
	    e == ENOENT ? " (-p takes a rules file or a directory of *.rules "
	    "files: is the path right?)" : "");
}
