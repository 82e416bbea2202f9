/*
 * test-cli-check.c: suite cli_check -- shellesc check: the decision for
 * an argv and the rule that made it, as text and as --json.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/cli.h"

static const char rules[] =
    "prefix_rule(pattern=[\"rm\", \"-rf\"], decision=\"forbidden\", justification=\"no rm -rf\")\n"
    "prefix_rule(pattern=[\"cp\", \"-r\"], decision=\"prompt\")\n";

TC_SUITE(cli_check, rules);

static json_t *j;	/* check --json's answer (t holds it) */

static void
check_json(char *const args[])
{
	tc_run(&t, &r, NULL, args);
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	j = tc_json(&t, r.out);
}

Test(cli_check, json_deny)
{
	json_t *rule;

	check_json(TS_V("check", "-p", "t.rules", "--json", "--", "rm", "-rf", "/"));
	cr_assert_str_eq(tc_jstr(j, "program"), tc_which("rm"));
	cr_assert_eq(json_array_size(json_object_get(j, "argv")), 3);
	cr_assert_str_eq(tc_jstr(j, "decision"), "deny");
	cr_assert_str_eq(tc_jstr(j, "default"), "run");
	rule = json_object_get(j, "rule");
	cr_assert_str_eq(tc_jstr(rule, "decision"), "deny");
	cr_assert_str_eq(tc_jstr(rule, "justification"), "no rm -rf");
	cr_assert_not_null(strstr(tc_jstr(rule, "source"), "t.rules:1"));
}

Test(cli_check, json_no_match_takes_the_default)
{
	check_json(TS_V("check", "-p", "t.rules", "--json", "--default", "escalate", "rm", "x"));
	cr_assert_str_eq(tc_jstr(j, "decision"), "escalate");
	cr_assert(json_is_null(json_object_get(j, "rule")));
}

/* A relative path is made absolute as the server does. */
Test(cli_check, relative_program)
{
	char want[512];

	tc_file(&t, "tool", "");
	chmod(tc_path(&t, "tool"), 0755);
	check_json(TS_V("check", "-p", "t.rules", "--json", "./tool"));
	snprintf(want, sizeof(want), "%s/tool", t.dir);
	cr_assert_str_eq(tc_jstr(j, "program"), want);
	cr_assert_str_eq(tc_jstr(j, "decision"), "run");
}

Test(cli_check, text)
{
	char want[512];

	tc_run(&t, &r, NULL, TS_V("check", "-p", "t.rules", "cp", "-r", "a b", "c"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	snprintf(want, sizeof(want), "prompt %s -r 'a b' c\n  rule ", tc_which("cp"));
	cr_assert_not_null(strstr(r.out, want), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "t.rules:2 (prompt)\n"), "%s", r.out);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "-p", "t.rules", "ls", "-l"));
	snprintf(want, sizeof(want), "run %s -l\n  no rule matched (--default run)\n",
	    tc_which("ls"));
	cr_assert_str_eq(r.out, want);
}

Test(cli_check, not_found)
{
	tc_run(&t, &r, NULL, TS_V("check", "-p", "t.rules", "no-such-program-here"));
	cr_assert_eq(tc_code(&r), 125);
	cr_assert_not_null(strstr(r.err, "no-such-program-here: not found in PATH"), "%s", r.err);
}
