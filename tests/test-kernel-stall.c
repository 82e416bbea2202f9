/*
 * test-kernel-stall.c: suite kernel_stall -- no exec of a session can
 * hold up another's.  The kernel layer verifies each exec it lets through
 * at its exec event, waiting for the caller's thread to get there; an
 * exec can stay in the kernel as long as its caller likes (exec-stall
 * pins one on a userfaultfd page never filled), and the session's other
 * execs are decided and verified meanwhile, in their usual time.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "helpers/base.h"
#include "helpers/cli.h"

static const char rules[] = "prefix_rule(pattern=[\"true\"], decision=\"run\")\n";

TC_SUITE(kernel_stall, rules);

/* What the others may take, each (a fork and a decided exec: ~2 ms). */
#define KS_NORMAL_MS	1000

static void
stall_run(const char *mode)
{
	int pinned, attempts;
	long ms;

	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", (char *)mode, "--default",
	    "deny", "--", TEST_EXEC_STALL, "/bin/true", "true"));
	if (tc_code(&r) == 77)
		TC_SKIP(&t, &r, "userfaultfd(2) is not there for this user (it needs root, "
		    "CAP_SYS_PTRACE or vm.unprivileged_userfaultfd=1): %s", r.err);
	cr_assert_eq(tc_code(&r), 0, "%s%s", r.out, r.err);
	cr_assert_eq(sscanf(r.out, "pinned=%d attempts=%d slowest_ms=%ld", &pinned, &attempts,
	    &ms), 3, "exec-stall said: %s", r.out);
	cr_assert_eq(pinned, 1, "no exec could be pinned in %d attempts: %s", attempts, r.err);
	cr_assert_lt(ms, KS_NORMAL_MS * th_slowdown(), "an exec beside the pinned one took %ld ms "
	    "(%s)", ms, r.err);
}

/* The others are raw execs: each asked, decided and verified. */
Test(kernel_stall, pinned_exec_holds_up_no_other, .timeout = 120)
{
	stall_run("wrapper,kernel");
}

/* The same beside the preload (its program is dynamic). */
Test(kernel_stall, pinned_exec_holds_up_no_other_with_the_preload, .timeout = 120)
{
	TC_NEED_PRELOAD(&t, &r);
	stall_run("preload,kernel");
}
