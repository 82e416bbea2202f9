/*
 * test-kernel-verify.c: suite kernel_verify -- the verifier that follows
 * each exec the kernel layer lets through lets its thread go before the
 * thread can run its code again.  A failed exec (ENOENT, as a shell or
 * execvp meets searching PATH) goes back to the caller; when the stop the
 * verifier asks for came only after the answer, the thread could be in
 * its next exec by then, still traced: that exec was refused (EACCES,
 * "it cannot be verified") or, the stop ending its unanswered wait,
 * asked twice.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdpass.h"
#include "helpers/base.h"
#include "helpers/filtered.h"
#include "helpers/cli.h"
#include "helpers/session.h"

static const char rules[] = "prefix_rule(pattern=[\"id\"], decision=\"run\")\n";

TC_SUITE(kernel_verify, rules);

static void
kv_missing(const char *mode, const char *prog)
{
	int enoent, other, err;

	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", (char *)mode, "--default",
	    "run", "--", (char *)prog, "missing", (char *)tc_which("id"), "id", "-u"));
	cr_assert_eq(tc_code(&r), 0, "%s%s", r.out, r.err);
	cr_assert_eq(sscanf(r.out, "enoent=%d other=%d errno=%d", &enoent, &other, &err), 3,
	    "raw-exec said: %s", r.out);
	cr_assert_eq(other, 0, "%d of 500 execs of a missing file failed otherwise than "
	    "ENOENT (the first: errno %d):\n%s", other, err, r.err);
	cr_assert_eq(enoent, 500);
	cr_assert_null(strstr(r.err, "cannot be verified"), "%s", r.err);
}

/* 500 failed raw execs in a row from one thread, then one that runs. */
Test(kernel_verify, failed_execs_in_a_row_each_fail_with_enoent, .timeout = 120)
{
	kv_missing("kernel", TEST_RAW_EXEC_STATIC);
}

Test(kernel_verify, failed_execs_in_a_row_beside_the_preload, .timeout = 120)
{
	TC_NEED_PRELOAD(&t, &r);
	kv_missing("preload,kernel", TEST_RAW_EXEC);
}

/*
 * A listener whose waits are not killable (an embedder's filter without
 * SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, as raw-exec's; any before
 * Linux 5.19): the stop the verifier asks for before its answer ends the
 * caller's wait, and the exec is made again.  The verifier sees that and
 * asks for the stop after the answer from then on: every exec still ends
 * (here with ENOENT), asked about a few times at most, never in a loop.
 */
#define KV_WAIT_MS	10000
#define KV_EXECS	100

Test(kernel_verify, waits_not_killable_each_exec_ends, .timeout = 60)
{
	struct tpol tp = { .action = SHELLESC_RUN };
	struct shellesc_session *s;
	struct tf_child k;
	int enoent = 0;
	unsigned char e;

	if (th_slowdown() > 1)		/* under valgrind */
		cr_skip_test("valgrind has no seccomp(2): the session cannot take a listener");
	s = ts_start(&tp, NULL);
	tf_start(&k, s, "/nonexistent/prog", "prog", KV_WAIT_MS);
	for (int i = 0; i < KV_EXECS; i++) {
		cr_assert_eq(write(k.go, "s", 1), 1);
		cr_assert_eq(poll(&(struct pollfd){ .fd = k.report, .events = POLLIN }, 1,
		    KV_WAIT_MS), 1, "exec %d never ended (asked %d times in all)", i,
		    tp.seen);
		cr_assert_eq(read(k.report, &e, 1), 1);
		enoent += e == ENOENT;
	}
	cr_assert_eq(enoent, KV_EXECS, "%d of %d execs of a missing file ended with ENOENT",
	    enoent, KV_EXECS);
	pthread_mutex_lock(&tp.mu);
	cr_assert_leq(tp.seen, KV_EXECS + 2, "%d execs asked about %d times", KV_EXECS, tp.seen);
	pthread_mutex_unlock(&tp.mu);
	tf_end(&k);
	ts_end(s, &tp);
}
