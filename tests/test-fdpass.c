/* test-fdpass.c: suite fdpass -- fds passed with SCM_RIGHTS (common/fdpass.c). */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "fdpass.h"
#include "frame.h"
#include "helpers/base.h"

static const int sock_types[] = { SOCK_STREAM, SOCK_DGRAM };

Test(fdpass, payload_and_fd_round_trip)
{
	for (size_t t = 0; t < 2; t++) {
		int sv[2], p[2], fd = -1;
		struct iovec iov = { .iov_base = "hello", .iov_len = 5 };
		char buf[16];
		size_t nfds = SHELLESC_MAX_FDS;

		th_pair(sock_types[t], sv);
		th_pipe(p);
		cr_assert_eq(fdpass_send_all(sv[0], &iov, 1, &p[1], 1), 0);
		close(p[1]);
		cr_assert_eq(fdpass_recv(sv[1], buf, sizeof(buf), &fd, &nfds), 5);
		cr_assert(nfds == 1 && memcmp(buf, "hello", 5) == 0);
		cr_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC, "received fds are CLOEXEC");
		th_check_pipe(fd, p[0]);
		th_close_fds((int[]){ sv[0], sv[1], p[0], fd }, 4);
	}
}

/* The maximum goes through, in order; one more is refused before sending. */
Test(fdpass, fd_count_limit)
{
	for (size_t t = 0; t < 2; t++) {
		int sv[2], fds[SHELLESC_MAX_FDS + 1], got[SHELLESC_MAX_FDS];
		struct iovec iov = { .iov_base = "x", .iov_len = 1 };
		size_t nfds = SHELLESC_MAX_FDS;
		char c;

		th_pair(sock_types[t], sv);
		th_null_fds(fds, SHELLESC_MAX_FDS + 1);
		cr_assert_eq(fdpass_send_all(sv[0], &iov, 1, fds, SHELLESC_MAX_FDS + 1),
		    SE_ERR_TOO_MANY_FDS);
		cr_assert_eq(frame_send(sv[0], "x", 1, fds, SHELLESC_MAX_FDS + 1),
		    SE_ERR_TOO_MANY_FDS);
		cr_assert_eq(fdpass_recv(sv[1], &c, 1, got, &nfds), SE_ERR_AGAIN,
		    "nothing was sent");
		for (size_t i = 0; i <= SHELLESC_MAX_FDS; i++)
			cr_assert(th_fd_open(fds[i]), "the sender keeps its fds");
		/* Make every fd distinct so the order can be checked. */
		for (size_t i = 0; i < SHELLESC_MAX_FDS; i++) {
			close(fds[i]);
			cr_assert((fds[i] = open(i % 2 ? "/" : "/dev/null", O_RDONLY)) >= 0);
		}
		cr_assert_eq(fdpass_send_all(sv[0], &iov, 1, fds, SHELLESC_MAX_FDS), 0);
		nfds = SHELLESC_MAX_FDS;
		cr_assert_eq(fdpass_recv(sv[1], &c, 1, got, &nfds), 1);
		cr_assert_eq(nfds, SHELLESC_MAX_FDS);
		for (size_t i = 0; i < SHELLESC_MAX_FDS; i++)
			cr_assert(th_same_file(got[i], fds[i]), "fd %zu in order", i);
		th_close_fds(got, SHELLESC_MAX_FDS);
		th_close_fds(fds, SHELLESC_MAX_FDS + 1);
		th_close_fds(sv, 2);
	}
}

/* More fds than the receiver takes: an error, and every fd is closed. */
Test(fdpass, truncated_fds_are_closed)
{
	static const struct { int type; size_t cap; bool via_frame; } cases[] = {
		{ SOCK_STREAM, 0, false }, { SOCK_STREAM, 1, false },
		{ SOCK_DGRAM, 0, false }, { SOCK_DGRAM, 1, false },
		{ SOCK_STREAM, 0, true }, { SOCK_STREAM, 1, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int before = th_count_fds(), sv[2], fds[3], got[1] = { -1 }, r;
		size_t nfds = cases[i].cap;
		struct frame_rx rx;
		char buf[8];

		th_pair(cases[i].type, sv);
		th_null_fds(fds, 3);
		cr_assert_eq(frame_send(sv[0], "abc", 3, fds, 3), 0);
		th_close_fds(fds, 3);
		if (cases[i].via_frame) {
			frame_rx_init(&rx, NULL, 0, cases[i].cap);
			r = frame_recv(sv[1], &rx, 1000);
			cr_assert_eq(rx.nfds, 0);
			frame_rx_reset(&rx);
		} else
			r = (int)fdpass_recv(sv[1], buf, sizeof(buf), got, &nfds);
		cr_assert(r == SE_ERR_CTRUNC || r == SE_ERR_TOO_MANY_FDS,
		    "case %zu: %s", i, se_strerror(r));
		if (cases[i].cap == 0)
			cr_assert_eq(r, SE_ERR_CTRUNC);
		th_close_fds(sv, 2);
		cr_assert_eq(th_count_fds(), before, "case %zu leaked", i);
	}
}

Test(fdpass, edge_cases)
{
	int sv[2], fd = -1;
	struct iovec iov[9] = { { .iov_base = "x", .iov_len = 1 } };
	size_t nfds = 1;
	char c;

	th_pair(SOCK_STREAM, sv);
	cr_assert_eq(fdpass_send_all(sv[0], iov, 0, NULL, 0), SE_ERR_RANGE);
	cr_assert_eq(fdpass_send_all(sv[0], iov, 9, NULL, 0), SE_ERR_RANGE);
	cr_assert_eq(fdpass_recv(sv[1], &c, 1, &fd, &nfds), SE_ERR_AGAIN);
	cr_assert_eq(nfds, 0);
	cr_assert_eq(fdpass_wait(sv[1], POLLIN, 20), SE_ERR_TIMEOUT);
	cr_assert_eq(fdpass_wait(sv[0], POLLOUT, 20), 0);
	errno = EDOM;
	fdpass_close_all((int[]){ -1, sv[1] }, 2);
	cr_assert(errno == EDOM && !th_fd_open(sv[1]), "closes, keeps errno");
	/* A closed peer: EPIPE, and no SIGPIPE kills us (MSG_NOSIGNAL). */
	cr_assert_eq(fdpass_send_all(sv[0], iov, 1, NULL, 0), SE_ERR_SYSTEM);
	cr_assert_eq(errno, EPIPE);
	close(sv[0]);
}
