/*
 * test-preload-stress.c: suite preload_stress -- vfork+exec and fork+exec
 * of run-decided commands in a loop while eight threads churn malloc: the
 * preload's exec path (which runs in the vfork child, and after fork in a
 * threaded program) must neither deadlock nor corrupt anything.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "preload-helpers.h"

/*
 * 2 000 was the goal; on a 2-core machine the churning threads make every
 * fork slow (~40 ms, with or without the preload), so 400 execs (200 each
 * way), about 10 s, keep the suite bearable.
 */
#define STRESS_EXECS 400
#define STRESS_STR "400"
#define STRESS_TIMEOUT 60

static struct tpol tp;
static struct shellesc_session *s;

Test(preload_stress, vfork_and_fork_while_threads_malloc, .timeout = STRESS_TIMEOUT)
{
	char **env, *out, *err;
	struct ts_proc p;
	int st;

	s = pt_start(&tp, SHELLESC_RUN, 0);
	env = pt_env(s, true, "run");
	ts_proc_start(&p, NULL, env, TEST_VFORK_STRESS, TS_V(TEST_VFORK_STRESS, STRESS_STR, "/bin/true"));
	st = ts_proc_wait_ms(&p, (STRESS_TIMEOUT - 5) * 1000, &out, NULL, &err);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x; stderr: %s", st, err);
	cr_assert_str_eq(out, "done " STRESS_STR "\n");
	cr_assert_eq(tp.seen, STRESS_EXECS, "%d decisions", tp.seen);
	free(out);
	free(err);
	shellesc_env_free(env);
	ts_end(s, &tp);
}
