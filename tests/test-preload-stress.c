/*
 * test-preload-stress.c: suite preload_stress -- vfork+exec and fork+exec
 * of run-decided commands in a loop while eight threads churn malloc: the
 * preload's exec path (which runs in the vfork child, and after fork in a
 * threaded program) must neither deadlock nor corrupt anything, nor leave
 * the memory of its vfork children's copies behind in the parent.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "helpers/preload.h"

/*
 * The full stress is 2 000 execs; on a 2-core machine the churning threads
 * make every fork slow (~40 ms, with or without the preload), so make check
 * runs 400 (200 each way, about 10 s) and .ci/run runs the full 2 000 with
 * SHELLESC_STRESS_EXECS=2000.
 */
#define STRESS_EXECS 400
#define STRESS_TIMEOUT 600

static int
stress_execs(void)
{
	const char *v = getenv("SHELLESC_STRESS_EXECS");
	int n = v ? atoi(v) : STRESS_EXECS;

	return n >= 2 && n <= 100000 ? n & ~1 : STRESS_EXECS;	/* even: half each way */
}

static struct tpol tp;
static struct shellesc_session *s;

Test(preload_stress, vfork_and_fork_while_threads_malloc, .timeout = STRESS_TIMEOUT)
{
	char **env, *out, *err, count[16], done[32];
	int n = stress_execs(), st;
	struct ts_proc p;

	snprintf(count, sizeof(count), "%d", n);
	snprintf(done, sizeof(done), "done %d\n", n);
	s = tp_start(&tp, SHELLESC_RUN, 0);
	env = tp_env(s, true, "run");
	ts_proc_start(&p, NULL, env, TEST_VFORK_STRESS, TS_V(TEST_VFORK_STRESS, count, "/bin/true"));
	st = ts_proc_wait_ms(&p, (STRESS_TIMEOUT - 5) * 1000, &out, NULL, &err);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x; stderr: %s", st, err);
	cr_assert_str_eq(out, done);
	cr_assert_eq(tp.seen, n, "%d decisions", tp.seen);
	free(out);
	free(err);
	shellesc_env_free(env);
	ts_end(s, &tp);
}

/*
 * A vfork child maps its copy of the exec in its parent's memory; the
 * parent must not keep one per child (CPython's subprocess vforks).  500
 * children with a fresh environment: the parent grows by a few pages at
 * most, not by one or more per child.
 */
Test(preload_stress, vfork_children_leave_no_memory, .timeout = STRESS_TIMEOUT)
{
	char **env, *out, *err;
	struct ts_proc p;
	long grew;
	int st;

	s = tp_start(&tp, SHELLESC_RUN, 0);
	env = tp_env(s, true, "run");
	ts_proc_start(&p, NULL, env, TEST_VFORK_LEAK, TS_V(TEST_VFORK_LEAK, "500", "/bin/true"));
	st = ts_proc_wait_ms(&p, (STRESS_TIMEOUT - 5) * 1000, &out, NULL, &err);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x; stderr: %s", st, err);
	cr_assert_eq(sscanf(out, "grew=%ld", &grew), 1, "%s", out);
	cr_assert_lt(grew, 64, "the parent kept %ld KiB after 500 vfork children", grew);
	cr_assert_eq(tp.seen, 500, "%d decisions", tp.seen);
	free(out);
	free(err);
	shellesc_env_free(env);
	ts_end(s, &tp);
}
