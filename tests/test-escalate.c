/*
 * test-escalate.c: suite escalate -- escalated commands: fd hand-over,
 * signals, callers that die, many requests at once, and fd hygiene.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdpass.h"
#include "helpers/base.h"
#include "helpers/session.h"

static struct tpol tp;
static struct shellesc_session *s;

static void
read_all(int fd, char *buf, size_t size)
{
	size_t n = 0;
	ssize_t k;

	while (n + 1 < size && (k = read(fd, buf + n, size - 1 - n)) > 0)
		n += (size_t)k;
	buf[n] = '\0';
}

/*
 * Received fds that sit on destinations: with 0, 1 and 2 closed here, the
 * server receives stdin's pipe as fd 0 (its own destination), stderr's as 1
 * (stdout's destination) and stdout's as 2 (stderr's).
 */
Test(escalate, received_fds_overlap_destinations, .timeout = TS_TIMEOUT)
{
	int in[2], out[2], err[2], saved[3], stream;
	char buf[64];
	struct msg m;

	s = ts_start(&tp, NULL);
	th_pipe(in);
	th_pipe(out);
	th_pipe(err);
	stream = ts_raw_exec(shellesc_session_client_fd(s), "escalate", "/bin/sh",
	    TS_V("sh", "-c", "cat; echo err >&2"), "/");
	ts_raw_expect(stream, SHELLESC_MSG_DECISION, &m);
	cr_assert_eq(m.action, SHELLESC_ACT_ESCALATE);
	for (int i = 0; i < 3; i++) {
		cr_assert_geq(saved[i] = fcntl(i, F_DUPFD_CLOEXEC, 3), 0);
		close(i);
	}
	cr_assert_eq(msg_send_handover(stream, (int[]){ 0, 2, 1 },
	    (int[]){ in[0], err[1], out[1] }, 3), 0);
	th_write(in[1], "overlap-ok\n", 11);
	th_close_fds((int[]){ in[0], in[1], out[1], err[1] }, 4);
	ts_raw_expect(stream, SHELLESC_MSG_RESULT, &m);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(dup2(saved[i], i), i);
	cr_assert_eq(m.exit_code, 0);
	read_all(out[0], buf, sizeof(buf));
	cr_assert_str_eq(buf, "overlap-ok\n");
	read_all(err[0], buf, sizeof(buf));
	cr_assert_str_eq(buf, "err\n");
	close(stream);
	ts_end(s, &tp);
}

/* A wrapper escalating `sh -c 'echo $$; exec sleep 100'`; returns the sleep's pid. */
static pid_t
start_escalated_sleep(struct ts_proc *p, char **env)
{
	char line[32];
	pid_t pid;

	ts_wrapper_start(p, env, NULL, "/bin/sh", TS_V("sh", "-c", "echo $$; exec sleep 100"));
	ts_read_line(p->out, line, sizeof(line), 10000);
	cr_assert_gt(pid = atoi(line), 0);
	return pid;
}

/*
 * A signal to the waiting caller: SIGINT and SIGTERM are forwarded (the
 * command dies of it, then the caller does); SIGKILL cannot be, so the
 * server sees the caller go and ends the command.
 */
Test(escalate, signals_to_the_waiting_caller, .timeout = TS_TIMEOUT)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGKILL };
	char **env;
	struct ts_proc p;
	pid_t pid;
	int st;

	s = ts_start(&tp, NULL);
	env = ts_env(s, "TEST_ACTION=escalate", NULL);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		pid = start_escalated_sleep(&p, env);
		cr_assert_eq(kill(p.pid, sigs[i]), 0);
		st = ts_proc_wait(&p, NULL, NULL, NULL);
		cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == sigs[i], "signal %d: status %#x", sigs[i], st);
		cr_assert(ts_pid_gone(pid, 5000), "signal %d: escalated %d still runs", sigs[i], pid);
		ts_wait(&tp, &tp.ended, (int)i + 1, 5000);
		if (sigs[i] != SIGKILL)
			cr_assert_eq(tp.ended_sig, sigs[i], "the command died of %d, not the forwarded signal", tp.ended_sig);
	}
	shellesc_env_free(env);
	ts_end(s, &tp);
}

static void *
ask_thread(void *arg)
{
	struct client_req req;

	if (ts_ask(shellesc_session_client_fd(s), "/bin/true", TS_V("true"), NULL, &req) != 0)
		return (void *)1;
	return req.action == SHELLESC_ACT_RUN ? NULL : (void *)1;
}

/*
 * 200 requests, each answered 50 ms later from another thread, all at once:
 * together they take well under the 10 s that answers one after another
 * would.  Under valgrind, where a request with its threads costs up to
 * ~90 ms, a tenth as many requests answered ten times later keep that
 * margin (10 s against ~2 s).
 */
Test(escalate, slow_answers_do_not_serialize, .timeout = TS_TIMEOUT)
{
	enum { N = 200 };
	int n = N / th_slowdown(), failed = 0;
	pthread_t t[N];
	double serial, took;
	int64_t t0;
	void *ret;

	tp.action = SHELLESC_RUN;
	tp.delay_ms = 50 * th_slowdown();
	serial = n * tp.delay_ms / 1000.0;
	s = ts_start(&tp, NULL);
	t0 = clock_now_ms();
	for (int i = 0; i < n; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, ask_thread, NULL), 0);
	for (int i = 0; i < n; i++) {
		pthread_join(t[i], &ret);
		failed += ret != NULL;
	}
	cr_assert_eq(failed, 0);
	cr_assert_eq(tp.seen, n);
	took = (clock_now_ms() - t0) / 1000.0;
	cr_assert_lt(took, serial / 2, "took %.2f s (%.2f s one after another): answers were serialized",
	    took, serial);
	ts_end(s, &tp);
}

/* Requests of each kind from this process; no fd may stay behind. */
static void
request_kind(enum shellesc_action kind)
{
	static const char *const names[] = { "TEST_ACTION=run", "TEST_ACTION=escalate", "TEST_ACTION=deny" };
	struct client_result res;
	struct client_req req;
	int r = ts_ask(shellesc_session_client_fd(s), "/bin/true", TS_V("true"),
	    TS_V((char *)names[kind]), &req);

	cr_assert_eq(r, 0, "%s", client_strerror(r));
	cr_assert_eq(req.action, (int)kind);
	if (kind == SHELLESC_ESCALATE) {
		cr_assert_eq(client_escalate(&req, &res), 0);
		cr_assert_eq(res.exit_code, 0);
	}
}

/*
 * 10 000 run and deny requests; 500 escalations (each forks and execs
 * /bin/true).  Under valgrind a tenth of them: all would take ~35 s
 * there, longer than the test may, and an fd leaked per request shows in
 * 1 000 and 50 as well.
 */
Test(escalate, no_fd_leaks_after_many_requests, .timeout = TS_TIMEOUT)
{
	static const struct { enum shellesc_action kind; int n; } kinds[] = {
		/* Enough that a leak of one fd per request shows (fds settle
		 * back to base), few enough to finish on a loaded machine. */
		{ SHELLESC_RUN, 2000 }, { SHELLESC_DENY, 2000 }, { SHELLESC_ESCALATE, 200 },
	};
	int base, n;

	s = ts_start(&tp, NULL);
	base = th_count_fds();
	for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
		n = kinds[k].n / th_slowdown();
		for (int i = 0; i < n; i++)
			request_kind(kinds[k].kind);
		cr_assert_eq(ts_fds_settle(base, 5000), base, "kind %d leaked fds", kinds[k].kind);
	}
	ts_wait(&tp, &tp.ended, n, 5000);	/* n: the last kind's, the escalations */
	ts_end(s, &tp);
}

/*
 * A slow answer for a request whose caller left, or whose session ended:
 * the policy sees it cancelled, answering is harmless, nothing leaks.
 */
Test(escalate, late_answers_after_the_caller_or_session_left, .timeout = TS_TIMEOUT)
{
	int base, stream;

	tp.delay_ms = 300;
	for (int end_session = 0; end_session < 2; end_session++) {
		s = ts_start(&tp, NULL);
		base = th_count_fds();
		stream = ts_raw_exec(shellesc_session_client_fd(s), "run", "/bin/true", TS_V("true"), "/");
		ts_wait(&tp, &tp.seen, end_session + 1, 5000);
		if (end_session) {
			ts_end(s, &tp);
			ts_raw_refused(stream, NULL);
		} else
			close(stream);
		ts_wait(&tp, &tp.decided, end_session + 1, 5000);
		cr_assert(tp.cancelled, "case %d: the policy was not told", end_session);
		if (!end_session) {
			cr_assert_eq(ts_fds_settle(base, 5000), base);
			ts_end(s, &tp);
		}
	}
}
