/*
 * test-trust-flood.c: suite trust_flood -- one process of the session
 * floods the server with hand-overs (the same stream end sent thousands of
 * times, each a new fd in the server) while another process execs.  The
 * flood must be refused at once ("server busy") and must not delay the
 * other process's decision: the server raises its fd limit at start and
 * bounds the requests in flight per process and in all.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdatomic.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "handshake.h"
#include "msg.h"
#include "helpers/base.h"
#include "helpers/session.h"

/* A common default soft limit: the server's fd table as the flood found it. */
#define FLOOD_SOFT_NOFILE 1024
/* The flood's length at most, should the test never stop it. */
#define FLOOD_MAX_MS 60000
/* The acceptance bound for an innocent exec's decision under flood. */
#define FLOOD_DECIDED_MS 1000

struct flood {
	pid_t pid;
	int stop;		/* our end: closing it stops the flooder */
	int report;		/* the flooder's counts, once it stopped */
};

struct flood_counts {
	long sent;		/* hand-overs the session socket took */
	long busy;		/* "server busy" refusals read back */
};

/* Count "server busy" in what arrived on the kept end (refusals of any copy). */
static void
flood_read_refusals(int end, struct flood_counts *n)
{
	static const char busy[] = "server busy";
	char buf[65536];
	ssize_t k;

	while ((k = recv(end, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		for (char *p = buf; (p = memmem(p, (size_t)(buf + k - p), busy,
		    sizeof(busy) - 1)) != NULL; p++)
			n->busy++;
}

/*
 * The flooder: one stream pair, its one end handed over to the session
 * again and again, as fast as the session socket takes it, until stop
 * becomes readable; then it reports.
 */
static void __attribute__((noreturn))
flood_main(int session_fd, int stop, int report)
{
	struct flood_counts n = { 0 };
	int64_t until = clock_now_ms() + FLOOD_MAX_MS;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		_exit(2);
	while (poll(&(struct pollfd){ stop, POLLIN, 0 }, 1, 0) == 0 && clock_now_ms() < until) {
		if (handshake_send(session_fd, sv[1]) != 0)
			break;
		n.sent++;
		if (n.sent % 64 == 0)
			flood_read_refusals(sv[0], &n);
	}
	poll(NULL, 0, 100);
	flood_read_refusals(sv[0], &n);
	if (write(report, &n, sizeof(n)) != (ssize_t)sizeof(n))
		_exit(3);
	_exit(0);
}

static void flood_keep_only(const int *keep, size_t n);

static void
flood_start(struct flood *f, struct shellesc_session *s)
{
	int stop[2], report[2];

	th_pipe(stop);
	th_pipe(report);
	cr_assert((f->pid = fork()) >= 0);
	if (f->pid == 0) {
		flood_keep_only((int[]){ stop[0], report[1], shellesc_session_client_fd(s) }, 3);
		flood_main(shellesc_session_client_fd(s), stop[0], report[1]);
	}
	close(stop[0]);
	close(report[1]);
	f->stop = stop[1];
	f->report = report[0];
}

static void
flood_stop(struct flood *f, struct flood_counts *n)
{
	int st;

	close(f->stop);
	cr_assert_eq(read(f->report, n, sizeof(*n)), (ssize_t)sizeof(*n), "no report from the flooder");
	close(f->report);
	cr_assert_eq(waitpid(f->pid, &st, 0), f->pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "flooder status %#x", st);
}

/*
 * In a child (no Criterion there): close every fd from 3 up but the n
 * given ones, so that it holds no copy of the server's end of anything.
 */
static void
flood_keep_only(const int *keep, size_t n)
{
	unsigned from = 3;

	for (;;) {
		unsigned next = ~0U;

		for (size_t i = 0; i < n; i++)
			if ((unsigned)keep[i] >= from && (unsigned)keep[i] < next)
				next = (unsigned)keep[i];
		if (next > from)
			close_range(from, next - 1, 0);
		if (next == ~0U)
			return;
		from = next + 1;
	}
}

struct innocent {
	pid_t pid;
	int go, report;
};

struct innocent_exec {
	int ms;			/* from fork to exit */
	int status;		/* wait status */
};

#define INNOCENT_EXECS 10

/*
 * The innocent process, started before the flood so that it needs nothing
 * from the server's (full) fd table: on "go", INNOCENT_EXECS real execs
 * through the wrapper (sh -c 'exit 7', run in place), each timed.
 */
static void __attribute__((noreturn))
innocent_main(char **env, int go, int report, int null)
{
	char *argv[] = { "shellesc-execve-wrapper", "/bin/sh", "sh", "-c", "exit 7", NULL };
	char c;

	if (read(go, &c, 1) != 1)
		_exit(2);
	for (int i = 0; i < INNOCENT_EXECS; i++) {
		struct innocent_exec x;
		int64_t t0 = clock_now_ms();
		pid_t pid = fork();

		if (pid == 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
			execve(TEST_WRAPPER, argv, env);
			_exit(125);
		}
		if (pid < 0 || waitpid(pid, &x.status, 0) != pid)
			_exit(3);
		x.ms = (int)(clock_now_ms() - t0);
		if (write(report, &x, sizeof(x)) != (ssize_t)sizeof(x))
			_exit(4);
	}
	_exit(0);
}

static void
innocent_start(struct innocent *in, struct shellesc_session *s)
{
	char **env = ts_env(s, "TEST_ACTION=run", NULL);
	int go[2], report[2], null = open("/dev/null", O_RDWR | O_CLOEXEC);

	cr_assert_geq(null, 0);
	th_pipe(go);
	th_pipe(report);
	cr_assert((in->pid = fork()) >= 0);
	if (in->pid == 0) {
		flood_keep_only((int[]){ go[0], report[1], null, shellesc_session_client_fd(s) }, 4);
		innocent_main(env, go[0], report[1], null);
	}
	close(go[0]);
	close(report[1]);
	close(null);
	shellesc_env_free(env);
	in->go = go[1];
	in->report = report[0];
}

/* The next exec's outcome; asserts it came within ms. */
static void
innocent_next(struct innocent *in, struct innocent_exec *x, int ms)
{
	struct pollfd p = { .fd = in->report, .events = POLLIN };

	cr_assert_eq(poll(&p, 1, ms), 1, "no innocent exec ended within %d ms", ms);
	cr_assert_eq(read(in->report, x, sizeof(*x)), (ssize_t)sizeof(*x));
}

static void
innocent_end(struct innocent *in)
{
	close(in->go);
	close(in->report);
	th_reap(in->pid);
}

/* The soft fd limit lowered to FLOOD_SOFT_NOFILE (the hard one kept); the hard limit. */
static rlim_t
flood_low_limit(void)
{
	struct rlimit rl;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max < FLOOD_SOFT_NOFILE)
		cr_skip_test("the hard fd limit is %lu, below %d", (unsigned long)rl.rlim_max,
		    FLOOD_SOFT_NOFILE);
	rl.rlim_cur = FLOOD_SOFT_NOFILE;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	return rl.rlim_max;
}

/*
 * The reproduction: the server starts with a soft limit of 1024 fds; a
 * process hands the same stream end over as fast as it can while another
 * process execs ten times.  Each innocent exec is decided (and run) in
 * under a second, the flood holds a few fds of the server, not its
 * table, and the flooder is told "server busy".
 */
Test(trust_flood, one_process_cannot_stop_other_decisions, .timeout = 120)
{
	struct tpol tp = { .action = SHELLESC_RUN };
	struct shellesc_session *s;
	struct flood_counts n;
	struct innocent in;
	struct flood f;
	int base, worst = 0, most = 0, fds;

	flood_low_limit();
	s = ts_start(&tp, NULL);
	base = th_count_fds();
	innocent_start(&in, s);
	flood_start(&f, s);
	base += 4;			/* the two helpers' pipes */
	poll(NULL, 0, 200);		/* the flood is under way */
	th_write(in.go, "g", 1);
	for (int i = 0; i < INNOCENT_EXECS; i++) {
		struct innocent_exec x;

		innocent_next(&in, &x, 60000);
		fds = th_try_count_fds();
		cr_log_info("innocent exec %d under flood: %d ms, status %#x, server fds %s%d", i,
		    x.ms, x.status, fds < 0 ? "full " : "+", fds < 0 ? FLOOD_SOFT_NOFILE : fds - base);
		cr_assert(WIFEXITED(x.status) && WEXITSTATUS(x.status) == 7,
		    "innocent exec %d did not run: status %#x after %d ms", i, x.status, x.ms);
		worst = x.ms > worst ? x.ms : worst;
		most = fds < 0 ? FLOOD_SOFT_NOFILE : fds - base > most ? fds - base : most;
	}
	innocent_end(&in);
	flood_stop(&f, &n);
	base -= 4;
	cr_log_info("flooder: %ld hand-overs, %ld refused as busy; slowest innocent exec %d ms,"
	    " at most %d fds more in the server", n.sent, n.busy, worst, most);
	cr_assert_lt(worst, FLOOD_DECIDED_MS * th_slowdown(), "an innocent exec took %d ms", worst);
	cr_assert_gt(n.busy, 0, "the flooder was never told the server is busy");
	cr_assert_lt(most, FLOOD_SOFT_NOFILE / 8, "the flood held %d fds of the server", most);
	cr_assert_eq(ts_fds_settle(base, 15000), base, "fds left behind");
	ts_end(s, &tp);
}

/* --- requests the policy holds: bounded per process and in the session ---- */

/* A policy that keeps every request, as a prompt would, until released. */
struct asker_counts {
	int busy, silent, other;
};

/*
 * A client process: n whole requests, each on a stream of its own, kept
 * open; then each stream is either refused at once ("server busy") or
 * silent (the policy holds it).  Reports, then waits for go to close.
 */
static void __attribute__((noreturn))
asker_main(int session_fd, int n, int report, int go)
{
	struct msg_exec_out e = { .file = "/bin/true", .cwd = "/", .argv = (char *[]){ "true", NULL },
	    .pid = getpid() };
	struct asker_counts k = { 0 };
	int streams[16];
	char buf[256], c;

	/* as clients do: the request first, then the hand-over, so that a
	 * refusal is an answer to read, not a send that fails */
	for (int i = 0; i < n; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
		    msg_send_exec(sv[0], &e) != 0 || handshake_send(session_fd, sv[1]) != 0)
			_exit(2);
		close(sv[1]);
		streams[i] = sv[0];
	}
	for (int i = 0; i < n; i++) {
		struct pollfd p = { .fd = streams[i], .events = POLLIN };
		ssize_t got = poll(&p, 1, 500 * th_slowdown()) == 1 ?
		    recv(streams[i], buf, sizeof(buf), 0) : 0;

		if (got <= 0)
			k.silent++;
		else if (memmem(buf, (size_t)got, "server busy", 11))
			k.busy++;
		else
			k.other++;
	}
	if (write(report, &k, sizeof(k)) != (ssize_t)sizeof(k) || read(go, &c, 1) < 0)
		_exit(3);
	_exit(0);
}

struct asker {
	pid_t pid;
	int report, go;
};

static void
asker_start(struct asker *a, struct shellesc_session *s, int n, struct asker_counts *k)
{
	int report[2], go[2];

	th_pipe(report);
	th_pipe(go);
	cr_assert((a->pid = fork()) >= 0);
	if (a->pid == 0) {
		flood_keep_only((int[]){ report[1], go[0], shellesc_session_client_fd(s) }, 3);
		asker_main(shellesc_session_client_fd(s), n, report[1], go[0]);
	}
	close(report[1]);
	close(go[0]);
	a->report = report[0];
	a->go = go[1];
	cr_assert_eq(read(a->report, k, sizeof(*k)), (ssize_t)sizeof(*k), "no report from the asker");
}

static void
asker_end(struct asker *a)
{
	close(a->go);
	close(a->report);
	th_reap(a->pid);
}

/*
 * With room for 4 requests per process and 6 in the session: a process
 * asking 5 times has 4 held and the 5th refused at once; another asking 3
 * times gets 2 (the session is full) and a refusal; once the policy
 * answers there is room again.
 */
Test(trust_flood, requests_in_flight_are_bounded_per_process_and_in_all, .timeout = 60)
{
	struct ts_hold h = { .mu = PTHREAD_MUTEX_INITIALIZER };
	struct shellesc_config cfg = { .policy = ts_hold_policy, .policy_arg = &h,
	    .intercept = SHELLESC_INTERCEPT_WRAPPER, .wrapper_path = TEST_WRAPPER,
	    .max_requests = 6, .max_requests_per_process = 4 };
	struct shellesc_session *s = NULL;
	struct asker_counts k1, k2, k3;
	struct asker a1, a2, a3;
	int base;

	cr_assert_eq(shellesc_session_start(&cfg, &s), 0);
	base = th_count_fds();
	asker_start(&a1, s, 5, &k1);
	cr_log_info("first process: %d held, %d busy, %d other", k1.silent, k1.busy, k1.other);
	cr_assert(k1.silent == 4 && k1.busy == 1 && k1.other == 0, "first process");
	asker_start(&a2, s, 3, &k2);
	cr_log_info("second process: %d held, %d busy, %d other", k2.silent, k2.busy, k2.other);
	cr_assert(k2.silent == 2 && k2.busy == 1 && k2.other == 0, "second process");
	cr_assert_eq(atomic_load(&h.n), 6, "the policy holds %d", atomic_load(&h.n));
	ts_hold_decide(&h, SHELLESC_RUN);
	asker_end(&a1);
	asker_end(&a2);
	cr_assert_eq(ts_fds_settle(base, 5000), base, "the answered requests were kept");
	asker_start(&a3, s, 4, &k3);
	cr_assert(k3.silent == 4 && k3.busy == 0, "no room once answered: %d held, %d busy",
	    k3.silent, k3.busy);
	ts_hold_decide(&h, SHELLESC_RUN);
	asker_end(&a3);
	shellesc_session_end(s);
}
