/*
 * test-rules-global.c: suite rules_global -- options written before a
 * subcommand (git -C DIR push) do not walk past a prompt or deny rule
 * (["git", "push"]), for the programs shellesc-rules(5) names; run and
 * escalate rules stay exact.  An option the engine does not know counts
 * both as a flag and as taking the next word (fail closed).  rules_near
 * says where a rule that did not match first differed.
 */
#include "config.h"

#include <criterion/criterion.h>

#include "helpers/rules.h"

TestSuite(rules_global);

#define GIT "/usr/bin/git"

Test(rules_global, git_options_before_push_still_prompt)
{
	struct rules *r = tr_load(
	    "prefix_rule(pattern = [\"git\", \"push\"], decision = \"prompt\")\n"
	    "prefix_rule(pattern = [\"git\", \"reset\", \"--hard\"], decision = \"deny\")\n");

	cr_expect_eq(tr_decide(r, 0, GIT, "-C", "x", "push", NULL), RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, GIT, "-c", "k=v", "--no-pager", "push", "origin", NULL),
	    RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, GIT, "--git-dir=x", "--work-tree", "y", "push", NULL),
	    RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, GIT, "--namespace", "n", "-P", "--bare", "push", NULL),
	    RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, GIT, "-C", ".", "reset", "--hard", NULL), RULES_DENY);
	/* an option git does not have: flag or value, both are looked at */
	cr_expect_eq(tr_decide(r, 0, GIT, "--frobnicate", "push", NULL), RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, GIT, "--frobnicate", "x", "push", NULL), RULES_PROMPT);
	/* -C's value is not the subcommand */
	cr_expect_eq(tr_decide(r, 0, GIT, "-C", "push", "status", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, GIT, "status", "push", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, GIT, "-C", "x", "reset", NULL), RULES_NONE);
	rules_free(r);
}

Test(rules_global, run_and_escalate_stay_exact)
{
	struct rules *r = tr_load(
	    "prefix_rule(pattern = [\"git\", \"status\"], decision = \"run\")\n"
	    "prefix_rule(pattern = [\"git\", \"log\"], decision = \"escalate\")\n");

	cr_expect_eq(tr_decide(r, 0, GIT, "status", NULL), RULES_RUN);
	cr_expect_eq(tr_decide(r, 0, GIT, "-c", "x=y", "status", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, GIT, "-C", "x", "log", NULL), RULES_NONE);
	rules_free(r);
}

Test(rules_global, other_programs)
{
	struct rules *r = tr_load(
	    "prefix_rule(pattern = [\"docker\", \"run\"], decision = \"prompt\")\n"
	    "prefix_rule(pattern = [\"kubectl\", \"delete\"], decision = \"deny\")\n"
	    "prefix_rule(pattern = [\"npm\", \"publish\"], decision = \"deny\")\n"
	    "prefix_rule(pattern = [\"cargo\", \"publish\"], decision = \"prompt\")\n");

	cr_expect_eq(tr_decide(r, 0, "/usr/bin/docker", "--context", "c", "run", "x", NULL),
	    RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/docker", "-Dl", "debug", "run", NULL),
	    RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/docker", "-Htcp://h", "run", NULL),
	    RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/docker", "-H", "run", "ps", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/kubectl", "-n", "prod", "delete", "pod", NULL),
	    RULES_DENY);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/kubectl", "--context=prod", "delete", NULL),
	    RULES_DENY);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/npm", "--prefix", "d", "publish", NULL),
	    RULES_DENY);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/npm", "-g", "publish", NULL), RULES_DENY);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/cargo", "+nightly", "publish", NULL),
	    RULES_PROMPT);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/cargo", "-Z", "x", "-vv", "publish", NULL),
	    RULES_PROMPT);
	rules_free(r);
}

/* A match example spelled with an option first holds for a prompt rule. */
Test(rules_global, examples_agree)
{
	struct rules *r = tr_load(
	    "prefix_rule(pattern = [\"git\", \"push\"], decision = \"prompt\",\n"
	    "    match = [\"git -C x push\"], not_match = [\"git -C push status\"])\n");

	rules_free(r);
}

/* rules_near: the first element that differed; a rule matched past the
 * options is none, a run rule that would be says so. */
struct near_seen {
	size_t n;
	struct rules_miss m[4];
};

static void
near_add(void *arg, const struct rules_miss *m)
{
	struct near_seen *s = arg;

	if (s->n < 4)
		s->m[s->n] = *m;
	s->n++;
}

Test(rules_global, near_says_where_it_differs)
{
	struct rules *r = tr_load(
	    "prefix_rule(pattern = [\"git\", \"push\"], decision = \"prompt\")\n"
	    "prefix_rule(pattern = [\"git\", \"status\"], decision = \"run\")\n");
	struct rules_file f = { .path = GIT };
	struct near_seen s = { 0 };

	rules_near(r, &f, (char *const[]){ "git", "-C", "x", "status", NULL }, near_add, &s);
	cr_assert_eq(s.n, 2);
	for (size_t i = 0; i < 2; i++) {
		cr_expect_eq(s.m[i].elem, 1);
		cr_expect_str_eq(s.m[i].got, "-C");
		cr_expect_eq(s.m[i].why, s.m[i].decision == RULES_RUN ?
		    RULES_MISS_OPTIONS : RULES_MISS_ELEM);
	}
	s.n = 0;
	rules_near(r, &f, (char *const[]){ "git", "-C", "x", "push", NULL }, near_add, &s);
	cr_assert_eq(s.n, 1);
	cr_expect_eq(s.m[0].decision, RULES_RUN);
	s.n = 0;
	rules_near(r, &f, (char *const[]){ "git", NULL }, near_add, &s);
	cr_assert_eq(s.n, 2);
	cr_expect_eq(s.m[0].why, RULES_MISS_SHORT);
	cr_expect_null(s.m[0].got);
	rules_free(r);
}
