/*
 * test-rules-lint.c: suite rules_lint -- the warnings a load gives about
 * rules likely not meant (shellesc-rules(5), LINT): a missing decision
 * (prompt in shellesc's files, Codex's allow in Codex's), "allow",
 * escalating an interpreter or build tool, a pattern element with a
 * blank, a program found nowhere, an example that a live command would
 * decide otherwise; and "did you mean" for a plural.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/rules.h"

/* text loaded into r (which must load), reports collected. */
static void
load(struct rules *r, const char *text)
{
	cr_assert_eq(tr_load_reported(r, text), 0, "%s", text);
}

/* The warning at line:col holding msg, or NULL. */
static const struct rules_error *
warning(int line, int col, const char *msg)
{
	for (size_t i = 0; i < tr_nreports; i++)
		if (tr_reports[i].severity == RULES_SEV_WARNING &&
		    tr_reports[i].line == line && tr_reports[i].column == col &&
		    strstr(tr_reports[i].msg, msg) != NULL)
			return &tr_reports[i];
	return NULL;
}

static size_t
nwarnings(void)
{
	size_t n = 0;

	for (size_t i = 0; i < tr_nreports; i++)
		n += tr_reports[i].severity == RULES_SEV_WARNING;
	return n;
}

static void
show(void)
{
	for (size_t i = 0; i < tr_nreports; i++)
		cr_log_info("%d:%d: %s", tr_reports[i].line, tr_reports[i].column,
		    tr_reports[i].msg);
}

/* Item 1: a forgotten decision prompts here, and says so; in Codex's
 * files it keeps Codex's allow, with a warning that it escalates. */
Test(rules_lint, missing_decision_prompts_with_a_warning)
{
	const char *text = "prefix_rule(pattern=[\"rm\"], justification=\"x\")\n";
	struct rules *r = rules_new(), *codex = rules_new();
	const char *argv[] = { "rm", "-rf", "/", NULL };

	load(r, text);
	cr_expect_not_null(warning(1, 1, "no decision: this rule prompts"));
	cr_expect_eq(rules_decide(r, "rm", (char *const *)argv, 0, NULL), RULES_PROMPT);
	rules_set_codex(codex, true);
	load(codex, text);
	cr_expect_not_null(warning(1, 1, "Codex's default, allow, escalates: "
	    "matching commands run outside the sandbox"));
	cr_expect_eq(rules_decide(codex, "rm", (char *const *)argv, 0, NULL),
	    RULES_ESCALATE);
	show();
	rules_free(r);
	rules_free(codex);
}

/* Item 1: allow (escalate) says it runs outside the sandbox; escalate,
 * said so, does not warn (but for what it escalates). */
Test(rules_lint, allow_says_it_escalates)
{
	struct rules *r = rules_new();

	load(r, "prefix_rule([\"cp\"], \"allow\")\n"
	    "prefix_rule([\"mv\"], decision = \"escalate\")\n"
	    "prefix_rule([\"ls\"], \"run\")\n");
	cr_expect_not_null(warning(1, 21, "decision \"allow\" escalates: matching "
	    "commands run outside the sandbox"));
	cr_expect_eq(nwarnings(), 1);
	show();
	rules_free(r);
}

/* Item 2: a blank inside an element never matches the words; the fix is
 * given.  A path with a blank is a path. */
Test(rules_lint, blank_in_a_pattern_element)
{
	struct rules *r = rules_new();

	load(r, "prefix_rule([\"rm -rf\"], \"deny\")\n"
	    "prefix_rule([\"git\", \"push --force\"], \"deny\")\n"
	    "prefix_rule([\"git\", [\"pull\", \"fetch  --all\"]], \"deny\")\n"
	    "prefix_rule([\"/opt/My App/bin/app\"], \"deny\")\n");
	cr_expect_not_null(warning(1, 14, "split it: \"rm\", \"-rf\""));
	cr_expect_not_null(warning(2, 21, "split it: \"push\", \"--force\""));
	cr_expect_not_null(warning(3, 30, "split it: \"fetch\", \"--all\""));
	cr_expect_null(warning(4, 14, "has a blank"));	/* but it is not there */
	cr_expect_eq(nwarnings(), 4);
	show();
	rules_free(r);
}

/* Item 6: a program found nowhere: a name in none of the set's
 * directories (with the closest name there), a path that is not there. */
Test(rules_lint, program_found_nowhere)
{
	char *dir = th_tmpdir();
	struct rules *r = rules_new(), *bare = rules_new();
	const char *text = "prefix_rule([\"frobnicat\"], \"deny\")\n"
	    "prefix_rule([\"frobnicate\"], \"deny\")\n"
	    "prefix_rule([\"/nonexistent/frob\"], \"deny\")\n"
	    "host_executable(name = \"xyzzy\", paths = [\"/nonexistent/xyzzy\"])\n"
	    "prefix_rule([\"xyzzy\"], \"deny\")\n";

	th_write_file(th_at(dir, "frobnicate"), "");
	cr_assert_eq(rules_set_path(r, dir), 0);
	load(r, text);
	cr_expect_not_null(warning(1, 14, "program \"frobnicat\" is in no directory "
	    "of the trusted PATH (did you mean 'frobnicate'?)"));
	cr_expect_not_null(warning(3, 14, "\"/nonexistent/frob\" does not exist"));
	cr_expect_eq(nwarnings(), 2);
	show();
	/* no directories known: names are not judged */
	load(bare, text);
	cr_expect_eq(nwarnings(), 1);
	rules_free(r);
	rules_free(bare);
	th_rmtree(dir);
}

/* Item 9: escalating an interpreter or build tool runs what the sandbox
 * may have written outside it. */
Test(rules_lint, escalating_an_interpreter)
{
	static const char *const progs[] = {
		"make", "bash", "sh", "zsh", "python3", "python3.11", "perl",
		"ruby", "node", "npm", "cargo", "/usr/bin/python3",
	};
	struct rules *r;
	char text[128];

	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		snprintf(text, sizeof(text), "prefix_rule([\"%s\"], \"escalate\")\n",
		    progs[i]);
		cr_assert_not_null(r = rules_new());
		load(r, text);
		cr_expect_not_null(warning(1, 14, "runs code the sandbox may have "
		    "written"), "%s", progs[i]);
		rules_free(r);
	}
	cr_assert_not_null(r = rules_new());
	load(r, "prefix_rule([\"make\"], \"run\")\n"
	    "prefix_rule([\"git\", \"push\"], \"escalate\")\n"
	    "prefix_rule([\"pythonista\"], \"escalate\")\n");
	cr_expect_eq(nwarnings(), 0);
	show();
	rules_free(r);
}

/* Item 10: an example is checked by name, but a live command's program
 * is a file: "tool9" that is "tool" matches tool's rule.  Say so. */
Test(rules_lint, example_a_live_command_would_decide_otherwise)
{
	char *dir = th_tmpdir();
	struct rules *r = rules_new();

	th_write_file(th_at(dir, "tool"), "");
	cr_assert_eq(symlink("tool", th_at(dir, "tool9")), 0);
	cr_assert_eq(rules_set_path(r, dir), 0);
	load(r, "prefix_rule([\"tool\"], \"run\", not_match = [\"tool9 x.py\"], "
	    "match = [\"tool x.py\"])\n");
	cr_expect_not_null(warning(1, 43, "tool9 is"));
	cr_expect_not_null(warning(1, 43, "which this rule matches: a live "
	    "command would match"));
	cr_expect_eq(nwarnings(), 1);
	show();
	rules_free(r);
	th_rmtree(dir);
}

/* Item 10: "did you mean" measures a typo against the longer word. */
Test(rules_lint, plural_gets_did_you_mean)
{
	struct rules *r = rules_new();
	const char *text = "prefix_rule([\"ls\"], \"run\", matches = [\"ls\"])\n";
	struct rules_error err;

	cr_assert_eq(rules_load_text(r, "f.rules", text, strlen(text), &err), -1);
	cr_expect_not_null(strstr(err.msg, "(did you mean 'match'?)"), "%s", err.msg);
	rules_free(r);
}
