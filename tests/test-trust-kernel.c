/*
 * test-trust-kernel.c: suite trust_kernel -- one process of the session
 * makes raw execs from many threads at once while the policy holds every
 * request (as a prompt does).  Each held exec keeps a pidfd and a request
 * in the server, so the kernel layer must count them against the same
 * bounds as streams (max_requests_per_process, max_requests): past a
 * bound the exec fails at once with EACCES instead of being held.  The
 * memory they hold counts against the same 64 MiB as the requests that
 * streams bring (the server reads argv from the caller's memory, up to
 * 8 MiB an exec, whatever the kernel's own limit).
 *
 * The session is libshellesc's own, with a seccomp filter installed the
 * way shellesc_session_kernel(3) asks (by raw-exec): execve reported to
 * a listener the session takes over.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdpass.h"
#include "helpers/base.h"
#include "helpers/filtered.h"
#include "helpers/session.h"

/* How long a held or refused exec may take to show. */
#define TK_WAIT_MS 5000

/* Wait up to TK_WAIT_MS for the policy to hold want requests. */
static int
tk_hold_wait(struct ts_hold *h, int want)
{
	for (int ms = 0; atomic_load(&h->n) < want && ms < TK_WAIT_MS; ms += 10)
		usleep(10000);
	usleep(100000);		/* and a little more, for any past the bound */
	return atomic_load(&h->n);
}

/* Errnos reported within ms, counted into counts[errno & 0xff]. */
static int
tk_reports(int fd, int want, int ms, int counts[256])
{
	unsigned char e;
	int got = 0;

	while (got < want && poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, ms) == 1 &&
	    read(fd, &e, 1) == 1) {
		counts[e]++;
		got++;
	}
	return got;
}

/* threads more execs, with a 7 MiB argv[1] when big. */
static void
tk_go(struct tf_child *k, int threads, bool big)
{
	for (int i = 0; i < threads; i++)
		cr_assert_eq(write(k->go, big ? "b" : "s", 1), 1);
}

/*
 * With room for 4 requests per process: 6 threads of one process make a
 * raw execve each; 4 are held by the policy and the other 2 fail at once
 * with EACCES.  Once the policy answers (deny: EACCES for those 4 too),
 * the count is back: a new exec of the same process is held again, and
 * the server holds no fd more than before.
 */
Test(trust_kernel, held_raw_execs_are_bounded_per_process, .timeout = 60)
{
	struct ts_hold h = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct shellesc_config cfg = { .policy = ts_hold_policy, .policy_arg = &h,
	    .intercept = SHELLESC_INTERCEPT_WRAPPER, .wrapper_path = TEST_WRAPPER,
	    .max_requests = 16, .max_requests_per_process = 4 };
	struct shellesc_session *s = NULL;
	struct tf_child k;
	int counts[256] = { 0 }, base;

	cr_assert_eq(shellesc_session_start(&cfg, &s), 0);
	tf_start(&k, s, "/bin/true", "true", TK_WAIT_MS);
	base = th_count_fds();
	tk_go(&k, 6, false);
	cr_assert_eq(tk_hold_wait(&h, 4), 4, "the policy holds %d of 6", atomic_load(&h.n));
	cr_assert_eq(tk_reports(k.report, 2, TK_WAIT_MS, counts), 2,
	    "the execs past the bound were not refused at once");
	cr_assert_eq(counts[EACCES], 2, "refused with another errno");
	ts_hold_decide(&h, SHELLESC_DENY);
	cr_assert_eq(tk_reports(k.report, 4, TK_WAIT_MS, counts), 4, "denied execs went on");
	cr_assert_eq(counts[EACCES], 6);
	cr_assert_eq(ts_fds_settle(base, TK_WAIT_MS), base, "the answered execs kept fds");
	tk_go(&k, 1, false);
	cr_assert_eq(tk_hold_wait(&h, 1), 1, "no room once answered");
	ts_hold_decide(&h, SHELLESC_DENY);
	cr_assert_eq(tk_reports(k.report, 1, TK_WAIT_MS, counts), 1);
	tf_end(&k);
	shellesc_session_end(s);
}

/*
 * With the default bounds: 12 threads of one process make a raw execve
 * each with a 7 MiB argument, which the server reads to decide.  9 are
 * held (63 MiB), the other 3 fail at once with EACCES; a small exec is
 * still held (the reserve); once the policy answers, a big one is held
 * again.
 */
Test(trust_kernel, memory_of_held_raw_execs_is_bounded, .timeout = 60)
{
	struct ts_hold h = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct shellesc_config cfg = { .policy = ts_hold_policy, .policy_arg = &h,
	    .intercept = SHELLESC_INTERCEPT_WRAPPER, .wrapper_path = TEST_WRAPPER };
	struct shellesc_session *s = NULL;
	struct tf_child k;
	int counts[256] = { 0 };

	cr_assert_eq(shellesc_session_start(&cfg, &s), 0);
	tf_start(&k, s, "/bin/true", "true", TK_WAIT_MS);
	tk_go(&k, 12, true);
	cr_assert_eq(tk_reports(k.report, 3, 2 * TK_WAIT_MS, counts), 3,
	    "the big execs past 64 MiB were not refused at once");
	cr_assert_eq(counts[EACCES], 3, "refused with another errno");
	cr_assert_eq(tk_hold_wait(&h, 9), 9, "the policy holds %d big execs", atomic_load(&h.n));
	tk_go(&k, 1, false);
	cr_assert_eq(tk_hold_wait(&h, 10), 10, "a small exec was not held beside them");
	ts_hold_decide(&h, SHELLESC_DENY);
	cr_assert_eq(tk_reports(k.report, 10, TK_WAIT_MS, counts), 10, "denied execs went on");
	tk_go(&k, 1, true);
	cr_assert_eq(tk_hold_wait(&h, 1), 1, "no room for a big exec once answered");
	ts_hold_decide(&h, SHELLESC_DENY);
	cr_assert_eq(tk_reports(k.report, 1, TK_WAIT_MS, counts), 1);
	cr_assert_eq(counts[EACCES], 14);
	tf_end(&k);
	shellesc_session_end(s);
}
