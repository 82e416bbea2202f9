/*
 * sections.c: policy scaling (the rules engine), escalated I/O, memory,
 * and the full-scale load suite.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "client.h"
#include "handshake.h"

/* --- policy scaling ------------------------------------------------------ */

void
bn_rules(const struct bn_opts *o)
{
	const char *prog = bn_path(o, "bench/bench-rules");
	char out[1024], *line, *save;

	if (!bn_exists(prog)) {
		bn_skip("rules", "decision time, 10 / 1 000 / 100 000 rules",
		    "bench/bench-rules is not built (make bench builds it)");
		return;
	}
	if (bn_capture((char *[]){ (char *)prog, "10", "1000", "100000", NULL }, NULL, out, sizeof(out)) != 0) {
		bn_skip("rules", "decision time", "bench-rules failed: %s", out);
		return;
	}
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		long n;
		double load, med, p99;
		char name[64];

		if (sscanf(line, "%ld %lf %lf %lf", &n, &load, &med, &p99) != 4)
			continue;
		snprintf(name, sizeof(name), "rules_decide with %ld rules", n);
		bn_row("rules", name, med, "us", BN_NAN, n == 100000 ? "<= 10 us" : "",
		    n == 100000 ? bn_holds(med <= 10) : "", "p99 of 1000-decision batches %.2f us; load %.0f ms",
		    p99, load);
	}
}

/* --- the socket gate ------------------------------------------------------ */

/* The median of a connect to a socket the session bound, under -s
 * landlock (through the gate: kernel-socket.c) and bare. */
void
bn_sockgate(const struct bn_opts *o)
{
	const char *prog = bn_path(o, "bench/bench-sockloop");
	const char *self = bn_path(o, "server/cli/shellesc");
	char dir[256], out[64] = "", n[16];
	char *env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", bn_part_env(o, 0), bn_part_env(o, 1), NULL };
	long bare, gated;
	int st = 0;

	if (!bn_exists(prog) || !bn_exists(self) || bn_scratch(dir, sizeof(dir), "sock", "rules") != 0) {
		bn_skip("sockgate", "connect through the socket gate", "not built, or no scratch dir");
		return;
	}
	snprintf(n, sizeof(n), "%d", bn_scaled(o, 2000, 100));
	if ((st = bn_capture((char *[]){ (char *)prog, dir, n, NULL }, NULL, out, sizeof(out))) != 0 ||
	    sscanf(out, "%ld", &bare) != 1 ||
	    (st = bn_capture((char *[]){ (char *)self, "run", "--force", "--mode", "kernel", "-s",
	    "landlock", "-w", dir, "--", (char *)prog, dir, n, NULL }, env, out, sizeof(out))) != 0 ||
	    sscanf(out, "%ld", &gated) != 1) {
		bn_skip("sockgate", "connect through the socket gate", "a run failed (wait status "
		    "%d): %s", st, out);
		return;
	}
	bn_row("sockgate", "connect(2) to a session's socket file, gated", gated / 1000.0, "us",
	    (double)gated / (double)bare, "", "", "bare connect %.1f us; median of %s", bare / 1000.0, n);
}

/* --- escalated I/O ---------------------------------------------------------- */

struct io_feed {
	int fd;
	long long bytes;
};

static void *
io_writer(void *arg)
{
	struct io_feed *f = arg;
	static char buf[128 * 1024];
	long long left = f->bytes;

	while (left > 0) {
		ssize_t k = write(f->fd, buf, left < (long long)sizeof(buf) ? (size_t)left : sizeof(buf));

		if (k <= 0)
			break;
		left -= k;
	}
	close(f->fd);
	return NULL;
}

/* bytes through `cat` (argv, env) between two pipes; returns GiB/s (0 on failure). */
static double
io_once(char *const argv[], char *const env[], long long bytes)
{
	static char buf[128 * 1024];
	int in[2], out[2], st;
	struct io_feed f;
	long long got = 0;
	pthread_t t;
	pid_t pid;
	int64_t t0;
	ssize_t k;

	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
		return 0;
	t0 = bn_now_ns();
	pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		execve(argv[0], argv, env);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	f = (struct io_feed){ in[1], bytes };
	pthread_create(&t, NULL, io_writer, &f);
	while ((k = read(out[0], buf, sizeof(buf))) > 0)
		got += k;
	pthread_join(t, NULL);
	close(out[0]);
	waitpid(pid, &st, 0);
	if (got != bytes || st != 0)
		return 0;
	return (double)bytes / (1 << 30) / ((double)(bn_now_ns() - t0) / 1e9);
}

void
bn_io(const struct bn_opts *o)
{
	long long bytes = (long long)bn_scaled(o, 1024, 64) << 20;
	struct bn_session b = { 0 };
	double plain[16], esc[16];
	int rounds = o->rounds < 16 ? o->rounds : 16, asked;
	char *cat[] = { "/bin/cat", NULL };
	char *wcat[] = { (char *)bn_path(o, BN_WRAPPER), "/bin/cat", "cat", NULL };

	if (bn_session_start(o, &b, SHELLESC_INTERCEPT_WRAPPER, SHELLESC_ESCALATE) != 0)
		return;
	for (int r = 0; r < rounds; r++) {
		plain[r] = io_once(cat, b.env, bytes);
		esc[r] = io_once(wcat, b.env, bytes);
	}
	asked = atomic_load(&b.asked);
	bn_session_end(&b);
	double p = bn_median(plain, (size_t)rounds), e = bn_median(esc, (size_t)rounds);
	char name[64];

	snprintf(name, sizeof(name), "%lld MiB through plain cat", bytes >> 20);
	bn_row("io", name, p, "GiB/s", BN_NAN, "", "", "baseline; median of %d", rounds);
	snprintf(name, sizeof(name), "%lld MiB through escalated cat", bytes >> 20);
	bn_row("io", name, e, "GiB/s", e / p, ">= 0.95x", bn_holds(e / p >= 0.95),
	    "the server runs cat on the caller's own pipes; %d escalations asked", asked);
}

/* --- memory ---------------------------------------------------------------- */

#define MEM_INFLIGHT 1000

/* 1000 requests the policy keeps, from a child process (the server's RSS stays the server's). */
static void __attribute__((noreturn))
mem_clients(int session_fd, int go)
{
	static int streams[MEM_INFLIGHT];
	char *argv[] = { "make", "-j8", "all", NULL };
	char *env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/user", "LANG=C.UTF-8",
		"TERM=xterm-256color", "USER=user", "SHELL=/bin/bash", "PWD=/home/user/src", NULL };
	char c;

	for (int i = 0; i < MEM_INFLIGHT; i++) {
		struct msg_exec_out e = { .file = "/usr/bin/make", .cwd = "/home/user/src",
		    .argv = argv, .env = env, .pid = getpid() };

		if ((streams[i] = handshake_connect(session_fd)) < 0 || msg_send_exec(streams[i], &e) != 0)
			_exit(1);
	}
	if (read(go, &c, 1) < 0)	/* until the server has measured */
		_exit(1);
	_exit(0);
}

static long
mem_self_rss(void)
{
	long rss, pss;

	bn_mem_kib(getpid(), &rss, &pss);
	return rss;
}

static void
mem_server(const struct bn_opts *o)
{
	struct bn_session b = { 0 };
	long idle, busy;
	int go[2], st;
	pid_t kid;

	b.held = calloc(MEM_INFLIGHT, sizeof(*b.held));
	atomic_store(&b.hold, MEM_INFLIGHT);
	if (pipe2(go, O_CLOEXEC) != 0 || bn_session_start(o, &b, SHELLESC_INTERCEPT_WRAPPER, SHELLESC_RUN) != 0)
		return;
	usleep(200000);
	idle = mem_self_rss();
	if ((kid = fork()) == 0) {
		close(go[1]);	/* so that the parent's close is our EOF */
		mem_clients(shellesc_session_client_fd(b.s), go[0]);
	}
	close(go[0]);
	for (int i = 0; i < 1000 && atomic_load(&b.nheld) < MEM_INFLIGHT; i++)
		usleep(10000);
	busy = mem_self_rss();
	bn_row("memory", "server RSS, idle (embedding process, one session)", (double)idle, "KiB",
	    BN_NAN, "", "", "bench process with libshellesc loaded and a session started");
	bn_row("memory", "server RSS added per request in flight", (double)(busy - idle) / MEM_INFLIGHT,
	    "KiB", BN_NAN, "<= 16 KiB", bn_holds((double)(busy - idle) / MEM_INFLIGHT <= 16),
	    "%d requests held by the policy: RSS %ld -> %ld KiB", atomic_load(&b.nheld), idle, busy);
	bn_session_release(&b);
	close(go[1]);
	waitpid(kid, &st, 0);
	bn_session_end(&b);
	free(b.held);
}

/* RSS and PSS of `sleep`, plainly and with the preload in a session. */
static void
mem_preload(const struct bn_opts *o)
{
	struct bn_session b = { 0 };
	double rss[2][16], pss[2][16];
	int rounds = o->rounds < 16 ? o->rounds : 16;

	if (bn_session_start(o, &b, SHELLESC_INTERCEPT_PRELOAD, SHELLESC_RUN) != 0)
		return;
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < 2; k++) {
			char *argv[] = { "/bin/sleep", "1", NULL };
			long kr, kp;
			pid_t pid = fork();

			if (pid == 0) {
				execve(argv[0], argv, k ? b.env : (char *[]){ "PATH=/bin", NULL });
				_exit(127);
			}
			usleep(300000);
			bn_mem_kib(pid, &kr, &kp);
			rss[k][r] = (double)kr;
			pss[k][r] = (double)kp;
			kill(pid, 9);
			waitpid(pid, NULL, 0);
		}
	bn_session_end(&b);
	double dr = bn_median(rss[1], (size_t)rounds) - bn_median(rss[0], (size_t)rounds);
	double dp = bn_median(pss[1], (size_t)rounds) - bn_median(pss[0], (size_t)rounds);

	bn_row("memory", "RSS the preload adds to a process", dr, "KiB", BN_NAN, "", "",
	    "sleep: RSS %.0f -> %.0f KiB; PSS adds %.0f KiB (shared pages counted once)",
	    bn_median(rss[0], (size_t)rounds), bn_median(rss[1], (size_t)rounds), dp);
}

void
bn_memory(const struct bn_opts *o)
{
	mem_server(o);
	mem_preload(o);
}

/* --- the load suite at full scale ------------------------------------------ */

void
bn_load(const struct bn_opts *o)
{
	const char *tests = bn_path(o, "tests/shellesc-tests");
	char shells[32], execs[32];
	struct bn_cost c;
	int st;

	if (!bn_exists(tests)) {
		bn_skip("load", "32 shells x 500 execs, mixed decisions", "tests/shellesc-tests not built (make check builds it)");
		return;
	}
	snprintf(shells, sizeof(shells), "SHELLESC_LOAD_SHELLS=%d", bn_scaled(o, 32, 2));
	snprintf(execs, sizeof(execs), "SHELLESC_LOAD_EXECS=%d", bn_scaled(o, 500, 10));
	st = bn_run((char *[]){ (char *)tests, "--filter", "load/*", "-j1", NULL },
	    (char *[]){ "PATH=/usr/bin:/bin", shells, execs, NULL }, -1, -1, &c);
	bn_row("load", "32 shells x 500 execs, mixed decisions (wrapper + preload runs)", c.wall, "s", BN_NAN,
	    "all decided as the policy says", bn_holds(st == 0),
	    "load suite at full scale (%s, %s): %s; make bench-load shows its log", shells, execs,
	    st == 0 ? "passed" : "FAILED");
}
