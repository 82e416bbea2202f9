/*
 * cli-check-tests.c: shellesc check -p FILE... without ARGV: load the
 * files in order, as a session would, and show every match/not_match
 * example's result, a line each ("pass FILE:LINE:COL: ..." or "FAIL
 * ..."), then a summary.  A file's examples are its tests; the exit
 * status is 0 when every file loads and every example holds.
 */
#include "config.h"

#include <stdio.h>

#include "cli.h"

/* Load one file, its examples reported to t; false if it did not load. */
static bool
cli_check_tests_file(struct rules *r, const char *file,
    struct cli_rules_tally *t)
{
	struct rules_error err = { .line = 0 };

	if (rules_load_file(r, file, &err) == 0)
		return true;
	if (err.line == 0) {
		cli_warnx("%s:0:0: %s", err.file[0] ? err.file : file, err.msg);
		t->errors++;
	}
	return false;
}

int
cli_check_tests(struct cli *c)
{
	struct cli_rules_tally t = { 0 };
	struct rules *r = rules_new();
	bool ok = true;

	if (r == NULL) {
		cli_oom();
		return CLI_EXIT_FAIL;
	}
	rules_set_report(r, cli_rules_report, &t);
	for (size_t i = 0; i < c->o.policies.n; i++)
		if (!cli_check_tests_file(r, c->o.policies.v[i], &t))
			ok = false;
	if (ok)
		rules_lint(r);
	rules_free(r);
	printf("%zu example%s held, %zu failed; %zu other error%s\n", t.pass,
	    t.pass == 1 ? "" : "s", t.fail, t.errors, t.errors == 1 ? "" : "s");
	if (fflush(stdout) != 0)
		return CLI_EXIT_FAIL;
	return ok && t.fail == 0 && t.errors == 0 ? 0 : CLI_CHECK_FAILED;
}
