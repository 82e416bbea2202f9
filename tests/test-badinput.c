/*
 * test-badinput.c: suite badinput -- a client that breaks the protocol at
 * every step.  The server closes that request (the client sees an error
 * frame or EOF), ends anything it started, keeps serving (a good request
 * follows each bad one) and leaks no fd.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "fdpass.h"
#include "frame.h"
#include "handshake.h"
#include "helpers/base.h"
#include "helpers/session.h"

static struct tpol tp;
static struct shellesc_session *s;

/* --- the hello datagram ------------------------------------------------- */

static void
hello_send(int session_fd, const char *hello, const int *fds, size_t nfds)
{
	struct iovec iov = { .iov_base = (void *)hello, .iov_len = strlen(hello) };

	cr_assert_eq(fdpass_send_all(session_fd, &iov, 1, fds, nfds), 0);
}

/* Send hello with n fresh stream pairs' server ends; each client end must see EOF. */
static void
hello_streams(int session_fd, const char *hello, size_t n, int type, const char *why)
{
	int mine[2], theirs[2], sv[2];

	for (size_t i = 0; i < n; i++) {
		th_pair(type, sv);
		mine[i] = sv[0];
		theirs[i] = sv[1];
	}
	hello_send(session_fd, hello, theirs, n);
	th_close_fds(theirs, n);
	for (size_t i = 0; i < n; i++)
		ts_raw_refused(mine[i], why);
}

static void
hello_no_fd(int fd)
{
	hello_send(fd, "SE\x01", NULL, 0);
}

static void
hello_two_fds(int fd)
{
	hello_streams(fd, "SE\x01", 2, SOCK_STREAM, NULL);
}

static void
hello_bad_magic(int fd)
{
	hello_streams(fd, "XY\x01", 1, SOCK_STREAM, NULL);
}

static void
hello_wrong_version(int fd)
{
	hello_streams(fd, "SE\x63", 1, SOCK_STREAM, "version mismatch");
}

static void
hello_not_stream(int fd)
{
	hello_streams(fd, "SE\x01", 1, SOCK_SEQPACKET, NULL);
}

/* A pipe instead of a socket: the server drops it, our write end sees POLLERR. */
static void
hello_pipe(int fd)
{
	struct pollfd pfd = { .events = 0 };	/* POLLERR only */
	int p[2];

	th_pipe(p);
	hello_send(fd, "SE\x01", &p[0], 1);
	close(p[0]);
	pfd.fd = p[1];
	cr_assert_eq(poll(&pfd, 1, 5000), 1);
	cr_assert(pfd.revents & POLLERR, "the server kept the pipe");
	close(p[1]);
}

/* --- the request stream ------------------------------------------------- */

/* How far a case goes properly before it misbehaves. */
enum stage {
	AT_STREAM,	/* a stream, nothing sent */
	AT_DECIDING,	/* exec sent; the policy holds it (answers late) */
	AT_DECIDED,	/* escalate decided; hand-over expected */
	AT_RUNNING,	/* an escalated `sleep 100` runs */
};

struct bad {
	const char *name;
	void (*hello)(int session_fd);	/* a bad handshake; the rest unused */
	enum stage stage;
	const char *frame;	/* th_mp spec of a frame to send */
	const char *raw;	/* or raw bytes (hex) */
	size_t nfds;		/* fds attached to the frame */
	int eof;		/* then shut the stream down */
	const char *why;	/* in the error frame; NULL: EOF only */
	int reps;		/* in the leak test */
};

#define EXEC_MAP(cwd, argv) "{type: 1, file: b\"/bin/true\", argv: " argv \
	", cwd: b\"" cwd "\", env: [], pid: 1}"

static const struct bad bad_cases[] = {
	{ "hello without fd", hello_no_fd, .reps = 200 },
	{ "hello with 2 fds", hello_two_fds, .reps = 200 },
	{ "hello with bad magic", hello_bad_magic, .reps = 200 },
	{ "hello with wrong version", hello_wrong_version, .reps = 200 },
	{ "hello with a pipe", hello_pipe, .reps = 200 },
	{ "hello with a seqpacket socket", hello_not_stream, .reps = 200 },
	{ "4 GiB frame header", .raw = "ffffffff", .why = "larger than", .reps = 200 },
	{ "malformed MessagePack", .frame = "#c1", .why = "malformed message: malformed", .reps = 200 },
	{ "not a map", .frame = "[1, 2]", .why = "malformed message", .reps = 200 },
	{ "trailing bytes", .frame = EXEC_MAP("/", "[b\"true\"]") " 1", .why = "trailing", .reps = 200 },
	{ "missing keys", .frame = "{type: 1}", .why = "missing", .reps = 200 },
	{ "NUL in a string", .frame = "{type: 1, file: b\"/bin/\\x00true\", argv: [b\"true\"], cwd: b\"/\", env: [], pid: 1}",
	  .why = "NUL", .reps = 200 },
	{ "decision instead of exec", .frame = "{type: 2, action: 0}", .why = "expected an exec request", .reps = 200 },
	{ "exec with fds", .frame = EXEC_MAP("/", "[b\"true\"]"), .nfds = 1, .why = "truncated", .reps = 200 },
	{ "relative cwd", .frame = EXEC_MAP("rel/dir", "[b\"true\"]"), .why = "cwd is not absolute", .reps = 200 },
	{ "empty argv", .frame = EXEC_MAP("/", "[]"), .why = "argv is empty", .reps = 200 },
	{ "truncated frame", .raw = "0a000000 81a4", .eof = 1, .reps = 200 },
	{ "request never sent", .why = "timed out waiting for the request", .reps = 3 },
	{ "message while deciding", .stage = AT_DECIDING, .frame = "{type: 4, signal: 2}",
	  .why = "before the decision", .reps = 20 },
	{ "hand-over short of fds", .stage = AT_DECIDED, .frame = "{type: 3, fds: [0, 1, 2]}", .nfds = 2,
	  .why = "names 3 fds but carries 2", .reps = 200 },
	{ "hand-over with extra fds", .stage = AT_DECIDED, .frame = "{type: 3, fds: [0]}", .nfds = 3,
	  .why = "names 1 fds but carries 3", .reps = 200 },
	{ "hand-over with a repeated destination", .stage = AT_DECIDED, .frame = "{type: 3, fds: [1, 1]}",
	  .nfds = 2, .why = "malformed message", .reps = 200 },
	{ "signal instead of hand-over", .stage = AT_DECIDED, .frame = "{type: 4, signal: 2}",
	  .why = "expected the hand-over", .reps = 200 },
	{ "hand-over never sent", .stage = AT_DECIDED, .why = "timed out waiting for the hand-over", .reps = 3 },
	{ "hand-over while running", .stage = AT_RUNNING, .frame = "{type: 3, fds: []}",
	  .why = "expected a signal", .reps = 20 },
	{ "4 GiB frame while running", .stage = AT_RUNNING, .raw = "ffffffff", .why = "larger than", .reps = 20 },
	{ "bad signal number", .stage = AT_RUNNING, .frame = "{type: 4, signal: 99}",
	  .why = "malformed message", .reps = 20 },
};

/* An escalated `sh -c 'echo $$; exec sleep 100'` on stream; returns its pid. */
static pid_t
bad_start_sleep(int stream)
{
	int null[2], p[2];
	char line[32];
	struct msg m;

	ts_raw_expect(stream, SHELLESC_MSG_DECISION, &m);
	th_null_fds(null, 2);
	th_pipe(p);
	cr_assert_eq(msg_send_handover(stream, (int[]){ 0, 1, 2 }, (int[]){ null[0], p[1], null[1] }, 3), 0);
	th_close_fds(null, 2);
	close(p[1]);
	ts_read_line(p[0], line, sizeof(line), 10000);
	close(p[0]);
	return atoi(line);
}

/* A stream that has got as far as stage; *pid is the escalated command, if any. */
static int
bad_reach(enum stage stage, int fd, pid_t *pid)
{
	static const char *const action[] = { "run", "run", "escalate", "escalate" };
	struct msg m;
	int stream;

	*pid = 0;
	if (stage == AT_STREAM) {
		cr_assert_geq(stream = handshake_connect(fd), 0);
		return stream;
	}
	stream = ts_raw_exec(fd, action[stage], stage == AT_RUNNING ? "/bin/sh" : "/bin/true",
	    TS_V("sh", "-c", "echo $$; exec sleep 100"), "/");
	if (stage == AT_DECIDED)
		ts_raw_expect(stream, SHELLESC_MSG_DECISION, &m);
	if (stage == AT_RUNNING)
		cr_assert_gt(*pid = bad_start_sleep(stream), 0);
	return stream;
}

static void
bad_send(const struct bad *b, int stream)
{
	uint8_t raw[64];
	int fds[4];
	size_t len;

	if (b->frame) {
		uint8_t *payload = th_mp(&len, "%s", b->frame);

		th_null_fds(fds, b->nfds);
		cr_assert_eq(frame_send(stream, payload, len, fds, b->nfds), 0);
		th_close_fds(fds, b->nfds);
		free(payload);
	} else if (b->raw)
		th_write(stream, raw, th_hex(b->raw, raw, sizeof(raw)));
	if (b->eof)
		shutdown(stream, SHUT_WR);
}

static void
bad_run(const struct bad *b)
{
	pid_t pid;
	int stream;

	if (b->hello) {
		b->hello(shellesc_session_client_fd(s));
		return;
	}
	tp.delay_ms = b->stage == AT_DECIDING ? 300 : 0;
	stream = bad_reach(b->stage, shellesc_session_client_fd(s), &pid);
	bad_send(b, stream);
	ts_raw_refused(stream, b->why);
	tp.delay_ms = 0;
	if (pid > 0)
		cr_assert(ts_pid_gone(pid, 5000), "%s: escalated %d outlived its request", b->name, pid);
}

static struct shellesc_session *
bad_session(void)
{
	struct shellesc_config cfg = { .intercept = SHELLESC_INTERCEPT_WRAPPER,
	    .request_timeout_ms = 200, .kill_grace_ms = 500 };

	return ts_start(&tp, &cfg);
}

#define NBAD (sizeof(bad_cases) / sizeof(bad_cases[0]))

ParameterizedTestParameters(badinput, each_then_a_good_request)
{
	return ts_indexes(NBAD);
}

ParameterizedTest(size_t *i, badinput, each_then_a_good_request, .timeout = TS_TIMEOUT)
{
	cr_log_info("case: %s", bad_cases[*i].name);
	s = bad_session();
	bad_run(&bad_cases[*i]);
	ts_good_request(s);
	ts_end(s, &tp);
}

/* Every case, many times over: no fd is left behind in the server's process. */
Test(badinput, no_fd_leaks, .timeout = TS_TIMEOUT)
{
	int base;

	s = bad_session();
	base = th_count_fds();
	for (size_t i = 0; i < NBAD; i++) {
		for (int k = 0; k < bad_cases[i].reps; k++)
			bad_run(&bad_cases[i]);
		ts_good_request(s);
		cr_assert_eq(ts_fds_settle(base, 5000), base, "%s leaked fds", bad_cases[i].name);
	}
	ts_end(s, &tp);
}
