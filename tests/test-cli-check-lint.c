/*
 * test-cli-check-lint.c: suite cli_check_lint -- the rules lint as an
 * author meets it through the shellesc command (a real process): warnings
 * with their fix, capped and counted, --strict, check -p --json, a word
 * when no rules files are loaded, -p DIR, help audit, and the examples
 * of shellesc-rules(5).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/cli.h"

TC_SUITE(cli_check_lint, NULL);

static void
expect_err(const char *want)
{
	cr_expect_not_null(strstr(r.err, want), "stderr lacks \"%s\":\n%s", want, r.err);
}

static void
expect_out(const char *want)
{
	cr_expect_not_null(strstr(r.out, want), "stdout lacks \"%s\":\n%s", want, r.out);
}

/* How many times s holds what. */
static size_t
occurrences(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)) != NULL; s++)
		n++;
	return n;
}

/* check -p t.rules [--strict] [--json]: run and keep r. */
static void
check_file(const char *text, char *const *extra)
{
	char *argv[8] = { "check", "-p", "t.rules" };
	size_t n = 3;

	tc_file(&t, "t.rules", text);
	for (size_t i = 0; extra != NULL && extra[i] != NULL && n < 7; i++)
		argv[n++] = extra[i];
	argv[n] = NULL;
	tc_res_free(&r);
	tc_run(&t, &r, NULL, argv);
}

/* Item 1: a rule without decision prompts, and check says so; --strict
 * makes it an error, for check and for a session. */
Test(cli_check_lint, missing_decision_prompts_and_strict_refuses)
{
	check_file("prefix_rule(pattern=[\"rm\"], justification=\"rm is dangerous\")\n", NULL);
	cr_expect_eq(tc_code(&r), 0, "%s", r.err);
	expect_err("t.rules:1:1: warning: no decision: this rule prompts");
	expect_out("0 examples held, 0 failed; 0 other errors, 1 warning\n");
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "-p", "t.rules", "--", "rm", "-rf", "x"));
	cr_expect_eq(tc_code(&r), 2, "prompt: %s%s", r.out, r.err);
	check_file("prefix_rule(pattern=[\"rm\"], justification=\"rm is dangerous\")\n",
	    TS_V("--strict"));
	cr_expect_eq(tc_code(&r), 1, "%s", r.err);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("run", "--strict", "-p", "t.rules", "--mode",
	    "wrapper", "--force", "--", "true"));
	cr_expect_eq(tc_code(&r), 125, "%s", r.err);
	expect_err("--strict: 1 warning in the rules files");
}

/* Item 1: allow says that it escalates. */
Test(cli_check_lint, allow_warns_it_runs_outside_the_sandbox)
{
	check_file("prefix_rule(pattern=[\"cp\"], decision=\"allow\")\n", NULL);
	cr_expect_eq(tc_code(&r), 0, "%s", r.err);
	expect_err("warning: decision \"allow\" escalates: matching commands run "
	    "outside the sandbox");
}

/* Item 2: a blank inside an element warns, with the split to write. */
Test(cli_check_lint, blank_in_an_element)
{
	check_file("prefix_rule(pattern=[\"rm -rf\"], decision=\"deny\")\n"
	    "prefix_rule(pattern=[\"git\", \"push --force\"], decision=\"deny\")\n", NULL);
	expect_err("t.rules:1:22: warning: pattern element \"rm -rf\" has a blank");
	expect_err("split it: \"rm\", \"-rf\"\n");
	expect_err("t.rules:2:29: warning: pattern element \"push --force\"");
	expect_out("2 warnings\n");
}

/* Item 6: no rules files at all is said, once; so is a program found
 * nowhere, with "did you mean" where PATH has a close name. */
Test(cli_check_lint, nothing_loaded_and_programs_found_nowhere)
{
	tc_run(&t, &r, NULL, TS_V("check", "--", "ls"));
	cr_expect_eq(tc_code(&r), 0, "%s", r.err);
	cr_expect_eq(occurrences(r.err, "no rules files loaded"), 1, "%s", r.err);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "--", "true"));
	cr_expect_eq(occurrences(r.err, "no rules files loaded"), 1, "%s", r.err);
	check_file("prefix_rule(pattern=[\"sduo-xyzzy\"], decision=\"deny\")\n"
	    "prefix_rule(pattern=[\"gti\"], decision=\"deny\")\n", NULL);
	expect_err("t.rules:1:22: warning: program \"sduo-xyzzy\" is in no "
	    "directory of the trusted PATH\n");
	if (tc_which("git") != NULL)
		expect_err("program \"gti\" is in no directory of the trusted PATH "
		    "(did you mean 'git'?)");
}

/* Item 7: warnings are capped with a count and counted in the summary;
 * after the error cap the summary says the load stopped. */
Test(cli_check_lint, warnings_capped_and_counted)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	for (int i = 0; i < 30; i++)
		fprintf(f, "prefix_rule(pattern=[\"ls\", \"-%d x\"], decision=\"run\")\n", i);
	cr_assert_eq(fclose(f), 0);
	check_file(text, NULL);
	cr_expect_eq(tc_code(&r), 0, "%s", r.err);
	cr_expect_eq(occurrences(r.err, ": warning: "), 20, "%s", r.err);
	expect_err("shellesc: and 10 more warnings\n");
	expect_out("0 examples held, 0 failed; 0 other errors, 30 warnings\n");
	check_file(text, TS_V("--strict"));
	cr_expect_eq(tc_code(&r), 1);
	free(text);
	text = NULL;
	f = open_memstream(&text, &len);
	cr_assert_not_null(f);
	for (int i = 0; i < 25; i++)
		fprintf(f, "prefix_rule(pattern=[\"ls\"], decision=\"nope\")\n");
	cr_assert_eq(fclose(f), 0);
	check_file(text, NULL);
	cr_expect_eq(tc_code(&r), 1);
	expect_out("20 other errors, 0 warnings (stopped");
	free(text);
}

/* Item 7: check -p FILE --json: examples, diagnostics and counts. */
Test(cli_check_lint, check_p_json)
{
	json_t *j, *ex, *d;

	check_file("prefix_rule(pattern=[\"rm -rf\"], decision=\"deny\",\n"
	    "    match=[[\"rm -rf\"]], not_match=[\"rm -rf /\"])\n", TS_V("--json"));
	cr_expect_eq(tc_code(&r), 0, "%s", r.err);
	cr_expect_str_eq(r.err, "");
	j = tc_json(&t, r.out);
	cr_assert(json_is_array(ex = json_object_get(j, "examples")), "%s", r.out);
	cr_expect_eq(json_array_size(ex), 2);
	cr_expect_str_eq(tc_jstr(json_array_get(ex, 0), "result"), "pass");
	cr_assert(json_is_array(d = json_object_get(j, "diagnostics")), "%s", r.out);
	cr_assert_eq(json_array_size(d), 1, "%s", r.out);
	cr_expect_str_eq(tc_jstr(json_array_get(d, 0), "severity"), "warning");
	cr_expect_eq(json_integer_value(json_object_get(json_array_get(d, 0), "line")), 1);
	cr_expect_eq(json_integer_value(json_object_get(j, "warnings")), 1);
	cr_expect_eq(json_integer_value(json_object_get(j, "held")), 2);
	cr_expect(json_is_true(json_object_get(j, "ok")));
	check_file("prefix_rule(pattern=[\"rm -rf\"], decision=\"deny\")\n",
	    TS_V("--json", "--strict"));
	cr_expect_eq(tc_code(&r), 1);
	cr_expect(json_is_false(json_object_get(tc_json(&t, r.out), "ok")), "%s", r.out);
}

/* Item 9: escalating an interpreter or a build tool is warned of. */
Test(cli_check_lint, escalating_a_build_tool)
{
	check_file("prefix_rule(pattern=[\"make\"], decision=\"escalate\")\n"
	    "prefix_rule(pattern=[\"python3\", \"setup.py\"], decision=\"escalate\")\n",
	    NULL);
	expect_err("t.rules:1:22: warning: escalating \"make\" runs code the sandbox "
	    "may have written");
	expect_err("t.rules:2:22: warning: escalating \"python3\"");
}

/* Item 10: -p DIR loads the directory's *.rules, as the default
 * directories do; a missing file gets a hint, not 0:0. */
Test(cli_check_lint, p_dir_and_missing_file)
{
	cr_assert_eq(mkdir(tc_path(&t, "d"), 0755), 0);
	tc_file(&t, "d/a.rules", "prefix_rule(pattern=[\"rm\"], decision=\"deny\")\n");
	tc_file(&t, "d/b.txt", "this is not rules\n");
	tc_run(&t, &r, NULL, TS_V("check", "-p", "d", "--", "rm", "x"));
	cr_expect_eq(tc_code(&r), 3, "%s%s", r.out, r.err);
	expect_out("a.rules:1 (deny)");
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "-p", "d"));
	cr_expect_eq(tc_code(&r), 0, "%s", r.err);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "-p", "nosuch.rules"));
	cr_expect_eq(tc_code(&r), 1);
	expect_err("shellesc: nosuch.rules: No such file or directory (-p takes");
	cr_expect_null(strstr(r.err, "0:0"), "%s", r.err);
}

/* Item 10: run beating escalate says how to fix it. */
Test(cli_check_lint, run_voiding_escalate_says_the_fix)
{
	check_file("prefix_rule(pattern=[\"git\"], decision=\"run\")\n"
	    "prefix_rule(pattern=[\"git\", \"push\"], decision=\"escalate\")\n", NULL);
	expect_err("t.rules:2:1: warning: this rule never escalates: the rule at ");
	expect_err("narrow that rule (more elements, or exact = True)");
}

/* Item 10: help audit is about audit. */
Test(cli_check_lint, help_audit)
{
	tc_run(&t, &r, NULL, TS_V("help", "audit"));
	cr_expect_eq(tc_code(&r), 0);
	expect_out("usage: shellesc audit");
	expect_out("Show an audit log");
	cr_expect_null(strstr(r.out, "Run PROGRAM"), "%s", r.out);
	cr_expect_null(strstr(r.out, "Options of run"), "%s", r.out);
}

/* Item 10: shellesc(1) says what the code does about root callers. */
Test(cli_check_lint, manual_on_root_callers)
{
	FILE *f = fopen(TEST_MAN_SHELLESC, "r");
	char *man = NULL;
	size_t len = 0;

	cr_assert(f != NULL && getdelim(&man, &len, '\0', f) > 0);
	fclose(f);
	cr_expect_not_null(strstr(man, "for a caller that is not root, the caller's uid"));
	cr_expect_not_null(strstr(man, "for root only the"));
	free(man);
}

/* The .nf block of shellesc-rules(5) after marker, as plain text ("\-" is
 * "-"), malloc'd. */
static char *
man_block(const char *marker)
{
	FILE *f = fopen(TEST_RULES_MAN, "r");
	char *man = NULL, *s, *e, *out, *d;
	size_t len = 0;

	cr_assert(f != NULL && getdelim(&man, &len, '\0', f) > 0);
	fclose(f);
	cr_assert_not_null(s = strstr(man, marker), "no %s", marker);
	cr_assert_not_null(s = strstr(s, ".nf\n"));
	s += 4;
	cr_assert_not_null(e = strstr(s, ".fi\n"));
	cr_assert_not_null(out = d = calloc(1, (size_t)(e - s) + 1));
	for (; s < e; s++) {
		if (s[0] == '\\' && s[1] == '-')
			s++;
		*d++ = *s;
	}
	free(man);
	return out;
}

/* shellesc-rules(5)'s examples load, and their examples hold. */
Test(cli_check_lint, manual_examples_run)
{
	char *text = man_block("\n.SH EXAMPLES\n");

	check_file(text, NULL);
	cr_expect_eq(tc_code(&r), 0, "%s%s", r.out, r.err);
	expect_out("examples held, 0 failed; 0 other errors");
	free(text);
}

/* The LINT section's example gives the warnings it says. */
Test(cli_check_lint, manual_lint_example_warns)
{
	char *text = man_block("For example, this file loads");

	check_file(text, NULL);
	cr_expect_eq(tc_code(&r), 0, "%s%s", r.out, r.err);
	expect_err("t.rules:1:1: warning: no decision: this rule prompts");
	expect_err("t.rules:2:31: warning: pattern element \"push --force\" has a "
	    "blank");
	expect_err("split it: \"push\", \"--force\"");
	expect_err("t.rules:3:");
	expect_err("decision \"allow\" escalates");
	expect_err("escalating \"make\" runs code the sandbox may have written");
	expect_out("4 warnings\n");
	free(text);
}

/* Item 1: Codex's own files (~/.codex/rules here, HOME being the test's
 * directory) keep Codex's default, allow, with a warning; check reads
 * them as mcp does. */
Test(cli_check_lint, codex_files_keep_allow)
{
	cr_assert_eq(mkdir(tc_path(&t, ".codex"), 0755), 0);
	cr_assert_eq(mkdir(tc_path(&t, ".codex/rules"), 0755), 0);
	tc_file(&t, ".codex/rules/default.rules", "prefix_rule(pattern=[\"rm\"])\n");
	tc_run(&t, &r, NULL, TS_V("check", "-p", ".codex/rules/default.rules", "--",
	    "rm", "x"));
	cr_expect_eq(tc_code(&r), 1, "escalate: %s%s", r.out, r.err);
	expect_err("warning: no decision: Codex's default, allow, escalates");
	tc_file(&t, "mine.rules", "prefix_rule(pattern=[\"rm\"])\n");
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "-p", "mine.rules", "--", "rm", "x"));
	cr_expect_eq(tc_code(&r), 2, "prompt: %s%s", r.out, r.err);
}
