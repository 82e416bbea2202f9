/* test-handshake.c: suite handshake (the hello datagram and whole conversations). */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "fdpass.h"
#include "frame.h"
#include "handshake.h"
#include "helpers/base.h"
#include "msg.h"

/* A session socketpair: [0] the clients' end, [1] the server's (non-blocking). */
static void
session_pair(int session[2])
{
	th_pair(SOCK_DGRAM, session);
	th_nonblock(session[1]);
}

/* The stream a hello delivered is connected to peer: a frame gets across. */
static void
check_stream(int stream, int peer)
{
	struct frame_rx rx;

	cr_assert_eq(frame_send(stream, "ping", 4, NULL, 0), 0);
	frame_rx_init(&rx, NULL, 0, 0);
	cr_assert_eq(frame_recv(peer, &rx, 1000), 0);
	cr_assert(rx.len == 4 && memcmp(rx.buf, "ping", 4) == 0);
	frame_rx_reset(&rx);
}

Test(handshake, connect_and_accept)
{
	int session[2], client, stream = -2, version = -1;

	session_pair(session);
	cr_assert_eq(handshake_accept(session[1], &stream, &version), SE_ERR_AGAIN);
	cr_assert_eq(stream, -1);
	client = handshake_connect(session[0]);
	cr_assert(client >= 0, "%s", se_strerror(client));
	cr_assert_eq(handshake_accept(session[1], &stream, &version), 0);
	cr_assert_eq(version, SHELLESC_PROTO_VERSION);
	cr_assert(fcntl(client, F_GETFD) & FD_CLOEXEC);
	cr_assert(fcntl(stream, F_GETFD) & FD_CLOEXEC);
	check_stream(client, stream);
	check_stream(stream, client);
}

/* Datagrams are atomic: queued hellos come out one by one, in order. */
Test(handshake, many_clients_share_the_session)
{
	int session[2], client[8], stream, version;

	session_pair(session);
	for (int i = 0; i < 8; i++)
		cr_assert((client[i] = handshake_connect(session[0])) >= 0);
	for (int i = 0; i < 8; i++) {
		cr_assert_eq(handshake_accept(session[1], &stream, &version), 0);
		check_stream(client[i], stream);
		close(stream);
	}
	cr_assert_eq(handshake_accept(session[1], &stream, &version), SE_ERR_AGAIN);
}

enum { MANY = 300 };

static int
connect_many(void *arg)
{
	int session = *(int *)arg, fd;

	for (int i = 0; i < MANY; i++) {
		if ((fd = handshake_connect(session)) < 0)
			return fd;
		close(fd);
	}
	return 0;
}

/* More hellos than the datagram queue holds: the clients wait, none is lost. */
Test(handshake, full_session_queue_makes_clients_wait)
{
	int session[2], stream, version, r;
	pid_t pid;

	session_pair(session);
	th_nonblock(session[0]);
	pid = th_spawn(connect_many, &session[0]);
	for (int i = 0; i < MANY; i++) {
		while ((r = handshake_accept(session[1], &stream, &version)) == SE_ERR_AGAIN)
			cr_assert_eq(fdpass_wait(session[1], POLLIN, 5000), 0);
		cr_assert_eq(r, 0, "hello %d: %s", i, se_strerror(r));
		close(stream);
	}
	th_reap(pid);
	cr_assert_eq(handshake_accept(session[1], &stream, &version), SE_ERR_AGAIN);
}

Test(handshake, connect_failures_leak_nothing)
{
	int before = th_count_fds(), sv[2];

	cr_assert_eq(handshake_connect(-1), SE_ERR_SYSTEM);
	th_pair(SOCK_STREAM, sv);
	close(sv[1]);
	cr_assert_eq(handshake_connect(sv[0]), SE_ERR_SYSTEM);	/* EPIPE, no SIGPIPE */
	close(sv[0]);
	cr_assert_eq(th_count_fds(), before);
}

/* Hand-made hellos: what the server gets, and no fd survives a bad one. */
Test(handshake, bad_hellos)
{
	static const struct {
		const char *bytes;
		size_t len, nfds;
		int want, alt;		/* alt: also accepted (kernel-dependent) */
		int version;
	} cases[] = {
		{ "SE\x01", 3, 1, 0, 0, 1 },
		{ "SE\x02", 3, 1, SE_ERR_VERSION, SE_ERR_VERSION, 2 },
		{ "SE\x00", 3, 1, SE_ERR_VERSION, SE_ERR_VERSION, 0 },
		{ "SE\xff", 3, 1, SE_ERR_VERSION, SE_ERR_VERSION, 255 },
		{ "XE\x01", 3, 1, SE_ERR_MALFORMED, SE_ERR_MALFORMED, 0 },
		{ "SX\x01", 3, 1, SE_ERR_MALFORMED, SE_ERR_MALFORMED, 0 },
		{ "SE", 2, 1, SE_ERR_MALFORMED, SE_ERR_MALFORMED, 0 },
		{ "SE\x01\x01", 4, 1, SE_ERR_MALFORMED, SE_ERR_MALFORMED, 0 },
		{ "", 0, 1, SE_ERR_MALFORMED, SE_ERR_MALFORMED, 0 },
		{ "SE\x01 and a long tail: more than the 64 bytes the server reads at once",
		  68, 1, SE_ERR_MALFORMED, SE_ERR_MALFORMED, 0 },
		{ "SE\x01", 3, 0, SE_ERR_FDS, SE_ERR_FDS, 0 },
		{ "SE\x01", 3, 2, SE_ERR_TOO_MANY_FDS, SE_ERR_CTRUNC, 0 },
		{ "SE\x01", 3, 16, SE_ERR_TOO_MANY_FDS, SE_ERR_CTRUNC, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int before = th_count_fds(), session[2], sv[2], fds[16], stream, version, r;
		struct iovec iov = { .iov_base = (void *)cases[i].bytes, .iov_len = cases[i].len };

		session_pair(session);
		th_pair(SOCK_STREAM, sv);
		fds[0] = sv[1];
		th_null_fds(fds + 1, cases[i].nfds > 1 ? cases[i].nfds - 1 : 0);
		cr_assert_eq(fdpass_send_all(session[0], &iov, 1, fds, cases[i].nfds), 0);
		th_close_fds(fds, cases[i].nfds ? cases[i].nfds : 1);
		r = handshake_accept(session[1], &stream, &version);
		cr_assert(r == cases[i].want || r == cases[i].alt, "case %zu: %s", i, se_strerror(r));
		if (r == 0 || r == SE_ERR_VERSION) {
			cr_assert_eq(version, cases[i].version, "case %zu", i);
			check_stream(stream, sv[0]);
			close(stream);
		} else
			cr_assert_eq(stream, -1, "case %zu", i);
		th_close_fds((int[]){ session[0], session[1], sv[0] }, 3);
		cr_assert_eq(th_count_fds(), before, "case %zu leaked", i);
	}
}

/* On a version mismatch the server still has the stream to say why. */
Test(handshake, version_mismatch_can_be_answered)
{
	int session[2], sv[2], stream, version;
	struct iovec iov = { .iov_base = "SE\x07", .iov_len = 3 };
	struct frame_rx rx;
	struct msg m;

	session_pair(session);
	th_pair(SOCK_STREAM, sv);
	cr_assert_eq(fdpass_send_all(session[0], &iov, 1, &sv[1], 1), 0);
	cr_assert_eq(handshake_accept(session[1], &stream, &version), SE_ERR_VERSION);
	cr_assert_eq(version, 7);
	cr_assert_eq(msg_send_error(stream, "protocol version 7 is not supported"), 0);
	close(stream);
	close(sv[1]);
	cr_assert_eq(th_recv_msg(sv[0], &rx, 0, &m), 0);
	cr_assert_eq(m.type, SHELLESC_MSG_ERROR);
	frame_rx_reset(&rx);
	cr_assert_eq(frame_recv(sv[0], &rx, 1000), SE_ERR_EOF_HEADER);
}

/* One whole escalated request, client and server in this process. */
static void
one_request(int session[2])
{
	char *argv[] = { "ls", "-l", NULL }, *env[] = { "A=1", NULL };
	struct msg_exec_out out = { .file = "/bin/ls", .cwd = "/", .argv = argv,
	    .env = env, .pid = 1 };
	int client, stream, version, dest = 0;
	struct frame_rx rx;
	struct msg_exec e;
	struct msg m;

	cr_assert((client = handshake_connect(session[0])) >= 0);
	cr_assert_eq(handshake_accept(session[1], &stream, &version), 0);
	cr_assert_eq(msg_send_exec(client, &out), 0);
	cr_assert_eq(th_recv_msg(stream, &rx, 0, &m), 0);
	cr_assert_eq(msg_exec_take(&m, &e), 0);
	msg_exec_free(&e);
	frame_rx_reset(&rx);
	cr_assert_eq(msg_send_decision(stream, SHELLESC_ACT_ESCALATE, NULL), 0);
	cr_assert_eq(th_recv_msg(client, &rx, 0, &m), 0);
	frame_rx_reset(&rx);
	cr_assert_eq(msg_send_handover(client, &dest, &client, 1), 0);
	cr_assert_eq(th_recv_msg(stream, &rx, SHELLESC_MAX_FDS, &m), 0);
	cr_assert_eq(rx.nfds, 1);
	frame_rx_reset(&rx);
	cr_assert_eq(msg_send_signal(client, SIGINT), 0);
	cr_assert_eq(th_recv_msg(stream, &rx, 0, &m), 0);
	frame_rx_reset(&rx);
	cr_assert_eq(msg_send_result(stream, 0, 0, false, NULL), 0);
	close(stream);
	cr_assert_eq(th_recv_msg(client, &rx, 0, &m), 0);
	cr_assert_eq(m.type, SHELLESC_MSG_RESULT);
	frame_rx_reset(&rx);
	close(client);
}

Test(handshake, no_fd_leak_over_10000_requests)
{
	int session[2], before;

	session_pair(session);
	before = th_count_fds();
	for (int i = 0; i < 10000; i++)
		one_request(session);
	cr_assert_eq(th_count_fds(), before);
}
