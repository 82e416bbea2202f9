/*
 * test-rules-diag.c: suite rules_diag -- what a load tells a policy
 * author: every error of a file (up to the limit) with its line and
 * place, an unclosed bracket where it opened, "did you mean", warnings
 * for network_rule() and for rules that never decide (rules_lint).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/rules.h"

static size_t
count(enum rules_severity sev)
{
	size_t n = 0;

	for (size_t i = 0; i < tr_nreports; i++)
		n += tr_reports[i].severity == sev;
	return n;
}

static void
expect_report(size_t i, enum rules_severity sev, int line, int col,
    const char *msg, const char *text)
{
	const struct rules_error *e = &tr_reports[i];

	cr_assert_lt(i, tr_nreports, "report %zu missing (%zu)", i, tr_nreports);
	cr_expect_eq(e->severity, sev, "report %zu: severity %d", i, e->severity);
	cr_expect(e->line == line && e->column == col, "report %zu: %d:%d, want "
	    "%d:%d (%s)", i, e->line, e->column, line, col, e->msg);
	cr_expect(strstr(e->msg, msg) != NULL, "report %zu: \"%s\" lacks \"%s\"",
	    i, e->msg, msg);
	if (text != NULL)
		cr_expect_str_eq(e->text, text, "report %zu", i);
}

Test(rules_diag, every_error_of_a_file_with_its_line)
{
	struct rules *r = rules_new();
	const char *text =
	    "prefix_rule([\"a\"], decision = \"nope\")\n"
	    "prefix_rule([\"ok\"], \"run\")\n"
	    "\tprefix_rule([\"b\"])\n"
	    "prefix_rule([\"c\"], \"deny\", match = [\"d\"])\n"
	    "foo()\n";

	cr_assert_eq(tr_load_reported(r, text), -1);
	cr_expect_eq(count(RULES_SEV_ERROR), 4, "%zu errors", count(RULES_SEV_ERROR));
	expect_report(0, RULES_SEV_ERROR, 1, 31, "unknown decision \"nope\"",
	    "prefix_rule([\"a\"], decision = \"nope\")");
	expect_report(1, RULES_SEV_ERROR, 3, 2, "unexpected indentation",
	    " prefix_rule([\"b\"])");
	expect_report(2, RULES_SEV_ERROR, 5, 1, "unknown function 'foo'", "foo()");
	expect_report(3, RULES_SEV_ERROR, 4, 37, "match example \"d\" does not "
	    "match", NULL);
	/* *err is the first; the set is as it was */
	cr_expect(tr_error.line == 1 && tr_error.column == 31, "%d:%d", tr_error.line,
	    tr_error.column);
	cr_expect_eq(rules_count(r), 0);
	rules_free(r);
}

Test(rules_diag, errors_stop_at_the_limit)
{
	struct rules *r = rules_new();
	char text[4096] = "";

	for (int i = 0; i < RULES_MAX_ERRORS + 10; i++)
		strcat(text, "foo()\n");
	cr_assert_eq(tr_load_reported(r, text), -1);
	cr_expect_eq(tr_nreports, RULES_MAX_ERRORS);
	rules_free(r);
}

Test(rules_diag, an_unclosed_bracket_is_reported_where_it_opened)
{
	struct rules *r = rules_new();

	cr_assert_eq(tr_load_reported(r, "prefix_rule(\n    pattern = [\"a\",\n"
	    "    \"b\"\n"), -1);
	expect_report(0, RULES_SEV_ERROR, 2, 15, "'[' is not closed", NULL);
	/* a statement in column 1 ends the one left open, which is reported,
	 * and is read itself */
	cr_assert_eq(tr_load_reported(r, "prefix_rule([\"a\"]\n"
	    "prefix_rule([\"b\"], bogus = 1)\n"), -1);
	cr_expect_eq(tr_nreports, 2);
	expect_report(0, RULES_SEV_ERROR, 1, 12, "'(' is not closed",
	    "prefix_rule([\"a\"]");
	expect_report(1, RULES_SEV_ERROR, 2, 20, "no argument 'bogus'", NULL);
	rules_free(r);
}

Test(rules_diag, an_empty_argument_or_element)
{
	struct rules *r = rules_new();

	cr_assert_eq(tr_load_reported(r, "prefix_rule([\"a\"],, \"run\")\n"
	    "prefix_rule([\"a\",, \"b\"])\n"), -1);
	expect_report(0, RULES_SEV_ERROR, 1, 19, "unexpected ',': an argument is "
	    "missing before it", NULL);
	expect_report(1, RULES_SEV_ERROR, 2, 18, "pattern: unexpected ',': an "
	    "element is missing before it", NULL);
	rules_free(r);
}

Test(rules_diag, did_you_mean)
{
	static const struct {
		const char *text, *hint;
	} cases[] = {
		{ "prefx_rule([\"a\"])", "(did you mean 'prefix_rule'?)" },
		{ "host_executabel(name = \"a\", paths = [])",
		    "(did you mean 'host_executable'?)" },
		{ "prefix_rule(patern = [\"a\"])", "(did you mean 'pattern'?)" },
		{ "prefix_rule([\"a\"], not_mach = [])", "(did you mean 'not_match'?)" },
		{ "prefix_rule([\"a\"], \"forbiden\")", "(did you mean 'forbidden'?)" },
		{ "prefix_rule([\"a\"], \"promt\")", "(did you mean 'prompt'?)" },
		{ "prefix_rule([\"a\"], \"alow\")", "(did you mean 'allow'?)" },
		{ "prefix_rule([\"a\"], target = [\"statik\"])",
		    "(did you mean 'static'?)" },
	};
	struct rules *r = rules_new();

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(tr_load_reported(r, cases[i].text), -1, "%s", cases[i].text);
		cr_expect(strstr(tr_reports[0].msg, cases[i].hint) != NULL,
		    "\"%s\" lacks %s", tr_reports[0].msg, cases[i].hint);
	}
	/* nothing close: no guess */
	cr_assert_eq(tr_load_reported(r, "prefix_rule([\"a\"], \"maybe\")"), -1);
	cr_expect_null(strstr(tr_reports[0].msg, "did you mean"), "%s", tr_reports[0].msg);
	rules_free(r);
}

/* Codex writes network_rule() after a network approval: such files load,
 * the rule ignored with a warning at its line. */
Test(rules_diag, network_rule_loads_with_a_warning)
{
	struct rules *r = rules_new();

	cr_assert_eq(tr_load_reported(r, "prefix_rule([\"git\"], \"prompt\")\n"
	    "network_rule(host = \"api.github.com\", protocol = \"https\", "
	    "decision = \"allow\")\n"
	    "network_rule(\"example.com\", \"http\", \"deny\", \"no\")\n"), 0,
	    "%s", tr_nreports ? tr_reports[0].msg : "");
	cr_expect_eq(count(RULES_SEV_WARNING), 2);
	expect_report(0, RULES_SEV_WARNING, 2, 1, "network_rule(host = "
	    "\"api.github.com\") ignored", NULL);
	expect_report(1, RULES_SEV_WARNING, 3, 1, "ignored", NULL);
	cr_expect_eq(rules_count(r), 1);
	cr_assert_eq(tr_load_reported(r, "network_rule(host = \"*\", protocol = "
	    "\"http\", decision = \"allow\")"), -1);
	expect_report(0, RULES_SEV_ERROR, 1, 21, "wildcards are not allowed", NULL);
	cr_assert_eq(tr_load_reported(r, "network_rule(host = \"a\", protocol = "
	    "\"http\")"), -1);
	expect_report(0, RULES_SEV_ERROR, 1, 1, "missing argument decision", NULL);
	cr_assert_eq(tr_load_reported(r, "network_rule(\"a\", \"http\", \"run\")"), -1);
	expect_report(0, RULES_SEV_ERROR, 1, 27, "unknown decision \"run\"", NULL);
	rules_free(r);
}

/* Lint: rules that can never decide, and rules that only look alike. */
static size_t
lint(const char *text)
{
	struct rules *r = rules_new();
	size_t n;

	cr_assert_eq(tr_load_reported(r, text), 0, "%s", text);
	tr_nreports = 0;
	n = rules_lint(r);
	cr_expect_eq(n, tr_nreports);
	rules_free(r);
	return n;
}

Test(rules_diag, duplicate_and_shadowed_rules)
{
	cr_assert_eq(lint("prefix_rule([\"git\", \"push\"], \"prompt\")\n"
	    "prefix_rule([\"git\", \"push\"], \"prompt\")\n"), 1);
	expect_report(0, RULES_SEV_WARNING, 2, 1, "repeats the rule at f.rules:1",
	    NULL);
	/* stricter and shorter: it always wins */
	cr_assert_eq(lint("prefix_rule([\"git\", [\"push\", \"pull\"], \"-f\"], \"run\")\n"
	    "prefix_rule([\"git\", [\"pull\", \"push\", \"fetch\"]], \"deny\")\n"), 1);
	expect_report(0, RULES_SEV_WARNING, 1, 1, "never decides: the rule at "
	    "f.rules:2 (deny)", NULL);
	/* the wildcard covers every program */
	cr_assert_eq(lint("prefix_rule([\"rm\"], \"escalate\")\n"
	    "prefix_rule([\"*\"], \"run\")\n"), 1);
	expect_report(0, RULES_SEV_WARNING, 1, 1, "f.rules:2 (run)", NULL);
	/* run beating escalate: the warning says how to fix it */
	expect_report(0, RULES_SEV_WARNING, 1, 1, "never escalates", NULL);
	expect_report(0, RULES_SEV_WARNING, 1, 1, "narrow that rule", NULL);
	/* same rank, same pattern: the first loaded decides */
	cr_assert_eq(lint("prefix_rule([\"ls\"], \"run\")\n"
	    "prefix_rule([\"ls\", \"-l\"], \"run\", justification = \"x\")\n"), 1);
	expect_report(0, RULES_SEV_WARNING, 2, 1, "f.rules:1 (run)", NULL);
}

Test(rules_diag, rules_that_can_decide_are_not_warned_of)
{
	/* argv0 = [...] narrows a rule: the other decides the rest */
	cr_expect_eq(lint("prefix_rule([\"git\"], \"deny\", argv0 = [\"git-x\"])\n"
	    "prefix_rule([\"git\", \"push\"], \"run\")\n"), 0);
	/* the longer rule is stricter: it decides its commands */
	cr_expect_eq(lint("prefix_rule([\"git\"], \"run\")\n"
	    "prefix_rule([\"git\", \"push\"], \"prompt\")\n"), 0);
	/* an alternative the other rule lacks */
	cr_expect_eq(lint("prefix_rule([\"git\", [\"push\", \"pull\"]], \"run\")\n"
	    "prefix_rule([\"git\", \"push\"], \"deny\")\n"), 0);
	/* a target rule covers only its kind of program */
	cr_expect_eq(lint("prefix_rule([\"make\"], \"run\")\n"
	    "prefix_rule([\"*\"], target = [\"static\"], decision = \"prompt\")\n"), 0);
	/* a path rule is reported before a name rule of the same rank */
	cr_expect_eq(lint("prefix_rule([\"git\"], \"run\")\n"
	    "prefix_rule([\"/usr/bin/git\"], \"run\")\n"), 0);
	/* a name and a path are not taken to be the same program */
	cr_expect_eq(lint("prefix_rule([\"/usr/bin/git\"], \"run\")\n"
	    "prefix_rule([\"git\"], \"deny\")\n"), 0);
}

/* The lint: a profile no rule names is reported at its definition. */
Test(rules_diag, lint_profile_no_rule_uses)
{
	struct rules *r = rules_new();

	cr_assert_eq(tr_load_reported(r,
	    "sandbox_profile(\"used\", network = True)\n"
	    "  \n"
	    "sandbox_profile(\"idle\", writable = [\"/tmp\"])\n"
	    "prefix_rule([\"curl\"], \"escalate\", profile = \"used\")\n"), 0);
	cr_expect_eq(count(RULES_SEV_WARNING), 0);
	tr_nreports = 0;
	cr_expect_eq(rules_lint(r), 1);
	expect_report(0, RULES_SEV_WARNING, 3, 1, "sandbox_profile \"idle\" is not used",
	    NULL);
	cr_expect_str_eq(tr_reports[0].file, "f.rules");
	rules_free(r);
}
