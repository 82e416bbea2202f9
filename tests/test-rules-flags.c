/*
 * test-rules-flags.c: suite rules_flags -- a prompt or deny rule's
 * element of short options ("-rf") matches the same options however they
 * are spelled: apart, in another order, among others, after the operands,
 * and for rm as long options; run and escalate rules stay exact.
 */
#include "config.h"

#include <criterion/criterion.h>

#include "helpers/rules.h"

TestSuite(rules_flags);

#define RM "/usr/bin/rm"

Test(rules_flags, rm_rf_spelled_otherwise)
{
	struct rules *r = tr_load(
	    "prefix_rule(pattern = [\"rm\", \"-rf\"], decision = \"deny\")\n");

	cr_expect_eq(tr_decide(r, 0, RM, "-rf", "/", NULL), RULES_DENY);
	cr_expect_eq(tr_decide(r, 0, RM, "-r", "-f", "/", NULL), RULES_DENY);
	cr_expect_eq(tr_decide(r, 0, RM, "-fr", "/", NULL), RULES_DENY);
	cr_expect_eq(tr_decide(r, 0, RM, "-v", "-Rf", "/", NULL), RULES_DENY);
	cr_expect_eq(tr_decide(r, 0, RM, "--recursive", "--force", "/", NULL), RULES_DENY);
	cr_expect_eq(tr_decide(r, 0, RM, "/", "-r", "-f", NULL), RULES_DENY);
	/* not both, or only as operands after "--" */
	cr_expect_eq(tr_decide(r, 0, RM, "-r", "/", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, RM, "-f", "x", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, RM, "--", "-r", "-f", NULL), RULES_NONE);
	rules_free(r);
}

/* Elements after the options are compared after them. */
Test(rules_flags, elements_after_the_options)
{
	struct rules *r = tr_load(
	    "prefix_rule(pattern = [\"rm\", \"-rf\", \"/\"], decision = \"prompt\")\n"
	    "prefix_rule(pattern = [\"git\", \"push\", \"-f\"], decision = \"prompt\")\n");

	cr_expect_eq(tr_decide(r, 0, RM, "-r", "-f", "/", NULL), RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, RM, "-r", "-f", "/tmp", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "push", "-vf", NULL), RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "push", "origin", "-f", NULL),
	    RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "-C", "x", "push", "-vf", NULL),
	    RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "push", "-v", NULL), RULES_NONE);
	rules_free(r);
}

Test(rules_flags, run_and_escalate_stay_exact)
{
	struct rules *r = tr_load(
	    "prefix_rule(pattern = [\"rm\", \"-rf\"], decision = \"run\")\n"
	    "prefix_rule(pattern = [\"cp\", \"-r\"], decision = \"escalate\")\n");

	cr_expect_eq(tr_decide(r, 0, RM, "-rf", "x", NULL), RULES_RUN);
	cr_expect_eq(tr_decide(r, 0, RM, "-r", "-f", "x", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/cp", "-a", "-r", "x", "y", NULL), RULES_NONE);
	rules_free(r);
}

/* Examples agree with decisions; a file loaded after keeps them. */
Test(rules_flags, examples_and_later_loads)
{
	struct rules *r = tr_load(
	    "prefix_rule(pattern = [\"rm\", \"-rf\"], decision = \"deny\",\n"
	    "    match = [\"rm -r -f /\", \"rm --recursive --force /\"],\n"
	    "    not_match = [\"rm -r /\"])\n");

	tr_add(r, "prefix_rule(pattern = [\"ls\"], decision = \"run\")\n");
	cr_expect_eq(tr_decide(r, 0, RM, "-f", "-r", "/", NULL), RULES_DENY);
	rules_free(r);
}
