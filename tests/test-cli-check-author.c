/*
 * test-cli-check-author.c: suite cli_check_author -- shellesc check as a
 * policy author uses it: programs not installed, --explain, the decision
 * as exit status, a file's examples run as its tests, every error of a
 * file with its line and a caret, warnings, and Codex's files (network
 * rules, variables, relative programs) in a real session.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/cli.h"

static const char rules[] =
    "prefix_rule(pattern=[\"gti\"], decision=\"prompt\", justification=\"typo\")\n"
    "prefix_rule(pattern=[\"rm\"], decision=\"prompt\")\n"
    "prefix_rule(pattern=[\"rm\", \"-rf\"], decision=\"forbidden\")\n"
    "prefix_rule(pattern=[\"rm\", [\"-r\", \"-rf\"]], decision=\"run\")\n"
    "prefix_rule(pattern=[\"cp\"], decision=\"escalate\")\n";

TC_SUITE(cli_check_author, rules);

#define CHECK(...) TS_V("check", "-p", "t.rules", __VA_ARGS__)

static void
expect_out(const char *want)
{
	cr_expect_not_null(strstr(r.out, want), "stdout lacks \"%s\":\n%s", want, r.out);
}

static void
expect_err(const char *want)
{
	cr_expect_not_null(strstr(r.err, want), "stderr lacks \"%s\":\n%s", want, r.err);
}

/* A program not installed here is decided by its name, and it says so. */
Test(cli_check_author, a_program_not_installed)
{
	json_t *j;

	tc_run(&t, &r, NULL, CHECK("--", "gti", "status"));
	cr_expect_eq(tc_code(&r), 2, "%s", r.err);
	expect_out("prompt gti status\n  not installed here: decided by the name "
	    "as written\n  rule ");
	expect_out("t.rules:1 (prompt): typo\n");
	expect_err("gti: not found in PATH; deciding by the name as written");
	tc_res_free(&r);
	tc_run(&t, &r, NULL, CHECK("--json", "gti"));
	j = tc_json(&t, r.out);
	cr_expect_eq(tc_code(&r), 2, "%s", r.err);
	cr_expect_str_eq(tc_jstr(j, "program"), "gti");
	cr_expect(json_is_false(json_object_get(j, "installed")));
}

/* A host_executable that keeps a name's rules from the program found
 * says so. */
Test(cli_check_author, host_executable_that_excludes_the_program)
{
	char want[512];

	tc_file(&t, "h.rules", "host_executable(name = \"ls\", paths = [\"/opt/x/ls\"])\n"
	    "prefix_rule([\"ls\"], \"forbidden\")\n");
	tc_run(&t, &r, NULL, TS_V("check", "-p", "h.rules", "ls", "-l"));
	cr_expect_eq(tc_code(&r), 0, "%s", r.err);
	snprintf(want, sizeof(want), "  %s is not one of the paths of "
	    "host_executable(name = ls): rules for ls do not apply to it\n",
	    tc_which("ls"));
	expect_out(want);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "-p", "h.rules", "/opt/x/ls"));
	cr_expect_eq(tc_code(&r), 3, "%s", r.out);
	cr_expect_null(strstr(r.out, "is not one of the paths"), "%s", r.out);
}

/* The exit status is the decision. */
Test(cli_check_author, the_exit_status_is_the_decision)
{
	static const struct {
		const char *prog, *arg;
		int code;
	} cases[] = {
		{ "ls", "-l", 0 }, { "cp", "a", 1 }, { "rm", "x", 2 }, { "rm", "-rf", 3 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		tc_run(&t, &r, NULL, CHECK((char *)cases[i].prog, (char *)cases[i].arg));
		cr_expect_eq(tc_code(&r), cases[i].code, "%s %s: %d (%s)", cases[i].prog,
		    cases[i].arg, tc_code(&r), r.err);
		tc_res_free(&r);
	}
	tc_run(&t, &r, NULL, TS_V("check", "-p", "none.rules", "ls"));
	cr_expect_eq(tc_code(&r), 125);
}

/* --explain: every matching rule, its place, prefix and program. */
Test(cli_check_author, explain_lists_every_matching_rule)
{
	char want[512];
	json_t *j, *m;

	tc_run(&t, &r, NULL, CHECK("--explain", "rm", "-rf", "/"));
	cr_expect_eq(tc_code(&r), 3, "%s", r.err);
	expect_out("  matching rules: 3\n");
	snprintf(want, sizeof(want), "t.rules:3 (deny): prefix rm -rf, program %s\n",
	    tc_which("rm"));
	expect_out(want);
	snprintf(want, sizeof(want), "t.rules:2 (prompt): prefix rm, program %s\n",
	    tc_which("rm"));
	expect_out(want);
	expect_out("t.rules:4 (run): prefix rm -rf, program ");
	tc_res_free(&r);
	tc_run(&t, &r, NULL, CHECK("--explain", "--json", "rm", "-rf", "/"));
	j = tc_json(&t, r.out);
	cr_assert_eq(json_array_size(m = json_object_get(j, "matches")), 3, "%s", r.out);
	cr_expect_str_eq(tc_jstr(json_array_get(m, 0), "decision"), "deny");
	cr_expect_eq(json_array_size(json_object_get(json_array_get(m, 0), "prefix")), 2);
	cr_expect_str_eq(tc_jstr(json_array_get(m, 0), "program"), tc_which("rm"));
}

/* check -p FILE alone runs the file's examples, a line each. */
Test(cli_check_author, examples_run_as_tests)
{
	tc_file(&t, "ex.rules",
	    "prefix_rule([\"git\", \"push\"], \"prompt\", match = [\"git push x\"],\n"
	    "    not_match = [\"git pull\"])\n"
	    "prefix_rule([\"ls\"], \"run\", match = [\"lsx\"])\n");
	tc_run(&t, &r, NULL, TS_V("check", "-p", "ex.rules"));
	cr_expect_eq(tc_code(&r), 1, "%s", r.err);
	expect_out("pass ex.rules:1:49: match example \"git push x\" matches the rule\n");
	expect_out("pass ex.rules:2:18: not_match example \"git pull\" does not match");
	expect_out("FAIL ex.rules:3:37: match example \"lsx\" does not match the rule\n");
	expect_out("2 examples held, 1 failed; 0 other errors, 0 warnings\n");
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "-p", TEST_DEMO_RULES));
	cr_expect_eq(tc_code(&r), 0, "%s%s", r.out, r.err);
	expect_out("3 examples held, 0 failed; 0 other errors, 0 warnings\n");
}

/* Every error of a file, each with its line and a caret; a missing file
 * is named as a rules file, with no made-up line 0 and column 0. */
Test(cli_check_author, every_error_with_a_caret)
{
	tc_file(&t, "bad.rules",
	    "prefix_rule([\"a\"], decision = \"forbiden\")\n"
	    "prefix_rule([\"b\"],, \"run\")\n"
	    "prefix_rule([\"c\"]\n"
	    "prefx_rule([\"d\"])\n");
	tc_run(&t, &r, NULL, TS_V("check", "-p", "bad.rules", "ls"));
	cr_expect_eq(tc_code(&r), 125);
	expect_err("bad.rules:1:31: unknown decision \"forbiden\" (did you mean "
	    "'forbidden'?)");
	expect_err("\n    prefix_rule([\"a\"], decision = \"forbiden\")\n"
	    "                                  ^\n");
	expect_err("bad.rules:2:19: unexpected ',': an argument is missing before it\n"
	    "    prefix_rule([\"b\"],, \"run\")\n                      ^\n");
	expect_err("bad.rules:3:12: '(' is not closed\n");
	expect_err("bad.rules:4:1: unknown function 'prefx_rule' (did you mean "
	    "'prefix_rule'?)");
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "-p", "missing.rules", "ls"));
	cr_expect_eq(tc_code(&r), 125);
	/* issue item 10: no bogus 0:0, and a hint */
	expect_err("shellesc: missing.rules: No such file or directory (-p takes "
	    "a rules file or a directory of *.rules files: is the path right?)\n");
	cr_expect_null(strstr(r.err, ":0:0"), "%s", r.err);
}

/* Codex's default.rules: a network_rule loads, with a warning at its line;
 * so do variables.  Rules that never decide are warned of. */
Test(cli_check_author, codex_files_load_and_warnings_show)
{
	tc_file(&t, "default.rules",
	    "GH = \"gh\"\n"
	    "prefix_rule(pattern=[GH, \"pr\", \"view\"], decision=\"prompt\")\n"
	    "network_rule(host=\"api.github.com\", protocol=\"https\", decision=\"allow\")\n"
	    "prefix_rule(pattern=[\"gh\", \"pr\", \"view\", \"1\"], decision=\"allow\")\n");
	tc_run(&t, &r, NULL, TS_V("check", "-p", "default.rules", "gh", "pr", "view", "1"));
	cr_expect_eq(tc_code(&r), 2, "%s", r.err);
	expect_out("default.rules:2 (prompt)");
	expect_err("default.rules:3:1: warning: network_rule(host = \"api.github.com\") "
	    "ignored");
	/* -p files are loaded by their absolute paths */
	expect_err("default.rules:4:1: warning: this rule never decides: the rule at /");
	expect_err("/default.rules:2 (prompt)");
}

/* A relative program in a rule matches a command written so, in a real
 * session (the wrapper sends the path as the shell passed it). */
Test(cli_check_author, a_relative_program_in_a_session)
{
	tc_file(&t, "rel.rules", "prefix_rule([\"./tool\"], \"forbidden\", "
	    "justification = \"not ./tool\")\n");
	tc_file(&t, "tool", "#!/bin/sh\necho ran\n");
	chmod(tc_path(&t, "tool"), 0755);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "rel.rules", "--mode", "wrapper", "--force",
	    "--", "bash", "-c", TC_GATE "G ./tool; echo \"./tool: $?\"; "
	    "G \"$PWD/tool\"; echo \"abs: $?\""));
	cr_expect_eq(tc_code(&r), 0, "%s", r.err);
	cr_expect_str_eq(r.out, "./tool: 126\nran\nabs: 0\n");
	expect_err("execution denied: not ./tool");
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "-p", "rel.rules", "./tool"));
	cr_expect_eq(tc_code(&r), 3, "%s", r.out);
}
