/*
 * test-cli-check-why.c: suite cli_check_why -- "why not" for a rules
 * author: check --explain shows how the program was resolved (the name as
 * written, the file, the paths and names rules reach it by, and the file a
 * name rule is for on shellesc's PATH when it is another) and the rules
 * that nearly matched, each with the first element that differed; the
 * audit table and audit --program know the decided file, not only the
 * caller's path.  A versioned interpreter behind a link (pyenv's
 * .../bin/python3 -> python3.11) is played by a script behind a link named
 * cat, whose name rule is for /usr/bin/cat.  And a session asks and
 * refuses what check says it would, options placed otherwise.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/cli.h"

static const char rules[] =
    "prefix_rule(pattern=[\"cat\"], decision=\"run\")\n"
    "prefix_rule(pattern=[\"git\", \"push\"], decision=\"prompt\")\n"
    "prefix_rule(pattern=[\"git\", \"status\", \"-s\"], decision=\"run\")\n"
    "prefix_rule(pattern=[\"true\"], decision=\"run\")\n"
    "prefix_rule(pattern=[\"rm\", \"-rf\"], decision=\"deny\", justification=\"no\")\n";

TC_SUITE(cli_check_why, rules);

#define CHECK(...) TS_V("check", "-p", "t.rules", "--explain", __VA_ARGS__)

static void
expect_out(const char *want)
{
	cr_expect_not_null(strstr(r.out, want), "stdout lacks \"%s\":\n%s", want, r.out);
}

/* .../v/bin/cat -> cat3.11, a file of its own (not /usr/bin/cat). */
static char *
versioned_cat(void)
{
	tc_file(&t, "cat3.11", "#!/bin/sh\nexit 0\n");
	cr_assert_eq(chmod(tc_path(&t, "cat3.11"), 0755), 0);
	cr_assert_eq(symlink("cat3.11", tc_path(&t, "cat")), 0);
	return (char *)tc_path(&t, "cat");
}

Test(cli_check_why, program_resolved_and_name_rule_for_another_file)
{
	char *cat = versioned_cat();
	char want[1024];
	json_t *j, *why, *near;

	tc_run(&t, &r, NULL, CHECK("--", cat, "x"));
	cr_expect_eq(tc_code(&r), 0, "%s", r.err);
	expect_out("no rule matched");
	snprintf(want, sizeof(want), "  program: %s, the file %s\n", cat,
	    tc_path(&t, "cat3.11"));
	expect_out(want);
	snprintf(want, sizeof(want), "  rules reach it by: %s, cat3.11\n",
	    tc_path(&t, "cat3.11"));
	expect_out(want);
	snprintf(want, sizeof(want), "  name rules for cat are for %s (shellesc's "
	    "PATH), not this file\n", tc_which("cat"));
	expect_out(want);
	expect_out("  nearly matching rules: 1\n");
	expect_out("t.rules:1 (run): program cat: this file is not cat's");
	tc_res_free(&r);
	tc_run(&t, &r, NULL, CHECK("--json", "--", cat, "x"));
	j = tc_json(&t, r.out);
	why = json_object_get(j, "why");
	cr_assert(json_is_object(why), "%s", r.out);
	cr_expect_str_eq(tc_jstr(why, "file"), tc_path(&t, "cat3.11"));
	cr_expect_str_eq(tc_jstr(json_object_get(why, "name_files"), "cat"), tc_which("cat"));
	near = json_array_get(json_object_get(why, "near"), 0);
	cr_assert(json_is_object(near), "%s", r.out);
	cr_expect_str_eq(tc_jstr(near, "why"), "program");
	cr_expect_eq(json_integer_value(json_object_get(near, "element")), 0);
}

/* The first element that differed, nearest first; a run rule that would
 * match past options before the subcommand says why it does not. */
Test(cli_check_why, first_element_that_differed)
{
	tc_run(&t, &r, NULL, CHECK("--", "git", "status"));
	expect_out("  nearly matching rules: 2\n");
	expect_out("t.rules:3 (run): element 2: -s wanted, the command ends there\n"
	    "    ");
	expect_out("t.rules:2 (prompt): element 1: push wanted, status given\n");
	tc_res_free(&r);
	tc_run(&t, &r, NULL, CHECK("--", "git", "-C", "x", "status", "-s"));
	expect_out("t.rules:3 (run): element 1: -C given; past the options before "
	    "the subcommand it would match, but run rules match exactly\n");
	tc_res_free(&r);
	/* a prompt rule past the options matches: listed as such, not near */
	tc_run(&t, &r, NULL, CHECK("--", "git", "-C", "x", "push"));
	cr_expect_eq(tc_code(&r), 2, "%s", r.out);
	expect_out("t.rules:2 (prompt): prefix git push, program ");
	expect_out("/git, options written otherwise\n");
	cr_expect_null(strstr(r.out, "t.rules:2 (prompt): element"), "%s", r.out);
}

/* audit's table and --program: the file decided on, as well as the path
 * the caller ran. */
Test(cli_check_why, audit_knows_the_decided_file)
{
	char script[1024], want[1024];

	cr_assert_eq(symlink(tc_which("true"), tc_path(&t, "mytrue")), 0);
	snprintf(script, sizeof(script), TC_GATE "G %s", tc_path(&t, "mytrue"));
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force",
	    "-a", "audit.log", "--", "bash", "-c", script));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("audit", "--program", "true", "audit.log"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	snprintf(want, sizeof(want), "%s (file %s)", tc_path(&t, "mytrue"), tc_which("true"));
	expect_out(want);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("audit", "--program", (char *)tc_which("true"), "audit.log"));
	expect_out(want);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("audit", "--program", "mytrue", "audit.log"));
	expect_out(want);
}

/* shellesc-rules(5)'s EXAMPLES, as a file: every example holds under
 * check -p, the options placed otherwise among them, with no warning. */
Test(cli_check_why, man_examples_hold)
{
	FILE *f = fopen(TEST_RULES_MAN, "re");
	char *line = NULL, *text = NULL;
	size_t cap = 0, size = 0;
	FILE *out = open_memstream(&text, &size);
	bool in = false;

	cr_assert_not_null(f);
	cr_assert_not_null(out);
	while (getline(&line, &cap, f) > 0) {
		if (in && strcmp(line, ".fi\n") == 0)
			break;
		for (char *p = line; in && *p != '\0'; p++)
			if (!(p[0] == '\\' && p[1] == '-'))
				fputc(*p, out);
		if (strcmp(line, ".SH EXAMPLES\n") == 0 && getline(&line, &cap, f) > 0)
			in = true;
	}
	fclose(out);
	fclose(f);
	free(line);
	cr_assert_not_null(strstr(text, "\"git -C repo push\""), "%s", text);
	cr_assert_not_null(strstr(text, "\"git clean -f -d -x\""), "%s", text);
	tc_file(&t, "ex.rules", text);
	free(text);
	tc_run(&t, &r, NULL, TS_V("check", "-p", "ex.rules"));
	cr_expect_eq(tc_code(&r), 0, "%s%s", r.out, r.err);
	expect_out(" examples held, 0 failed");
	cr_expect_null(strstr(r.err, "warning"), "%s", r.err);
}

/* In a session: git -C . push is asked about under a ["git", "push"]
 * prompt rule, and rm -r -f is refused by a ["rm", "-rf"] deny rule. */
Test(cli_check_why, session_sees_options_written_otherwise)
{
	char *asked;

	tc_file(&t, "victim", "x");
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force",
	    "--default", "run", "--approver",
	    "cat >> asked; echo '{\"decision\": \"deny\", \"reason\": \"asked\"}'",
	    "--", "bash", "-c", TC_GATE "G git -C . push origin main; echo \"push: $?\"; "
	    "G rm -r -f victim; echo \"rm: $?\""));
	cr_expect_str_eq(r.out, "push: 126\nrm: 126\n", "%s", r.err);
	cr_expect_not_null(strstr(r.err, "execution denied: asked\n"), "%s", r.err);
	cr_expect_not_null(strstr(r.err, "execution denied: no\n"), "%s", r.err);
	cr_expect(tc_exists(&t, "victim"));
	cr_assert_not_null(asked = tc_read(&t, "asked"));
	cr_expect_not_null(strstr(asked, "\"push\""), "%s", asked);
	cr_expect_null(strstr(asked, "victim"), "%s", asked);
	free(asked);
}
