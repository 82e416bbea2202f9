/* test-frame.c: suite frame -- length-prefixed frames (common/frame.c). */
#include "config.h"

#include <criterion/criterion.h>
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

Test(frame, put_len_is_little_endian)
{
	uint8_t hdr[SHELLESC_FRAME_HDR];

	frame_put_len(hdr, 0x01020304);
	cr_assert(memcmp(hdr, "\x04\x03\x02\x01", 4) == 0);
}

/* Payloads of several sizes, with and without an fd; the fd is usable. */
Test(frame, round_trip)
{
	static const size_t sizes[] = { 0, 1, 3, 10 * 1024 + 7, 100000 };

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		int sv[2], p[2];
		uint8_t *data = malloc(sizes[i] + 1);
		struct frame_rx rx;

		for (size_t k = 0; k < sizes[i]; k++)
			data[k] = (uint8_t)(k * 7 + i);
		th_pair(SOCK_STREAM, sv);
		th_pipe(p);
		cr_assert_eq(frame_send(sv[0], data, sizes[i], &p[1], i % 2), 0);
		close(p[1]);
		frame_rx_init(&rx, NULL, 0, 1);
		cr_assert_eq(frame_recv(sv[1], &rx, 1000), 0);
		cr_assert(rx.len == sizes[i] && memcmp(rx.buf, data, sizes[i]) == 0);
		cr_assert_eq(rx.nfds, i % 2);
		if (rx.nfds)
			th_check_pipe(rx.fds[0], p[0]);
		frame_rx_reset(&rx);
		th_close_fds((int[]){ sv[0], sv[1], p[0] }, 3);
		free(data);
	}
}

/* Back-to-back frames: each keeps its own fds, none is read into the next. */
Test(frame, fds_stay_with_their_frame)
{
	int sv[2], a[2], b[2];
	struct frame_rx rx;

	th_pair(SOCK_STREAM, sv);
	th_pipe(a);
	th_pipe(b);
	cr_assert_eq(frame_send(sv[0], "one", 3, &a[1], 1), 0);
	cr_assert_eq(frame_send(sv[0], "two", 3, &b[1], 1), 0);
	frame_rx_init(&rx, NULL, 0, 1);
	for (int k = 0; k < 2; k++) {
		cr_assert_eq(frame_recv(sv[1], &rx, 1000), 0);
		cr_assert(rx.len == 3 && memcmp(rx.buf, k ? "two" : "one", 3) == 0);
		cr_assert(rx.nfds == 1 && th_same_file(rx.fds[0], k ? b[1] : a[1]));
		frame_rx_reset(&rx);
	}
	/* reset closed the fds that were not taken; a taken one stays open. */
	cr_assert_eq(frame_send(sv[0], "", 0, &a[1], 1), 0);
	cr_assert_eq(frame_recv(sv[1], &rx, 1000), 0);
	int kept = rx.fds[0];

	rx.fds[0] = -1;
	frame_rx_reset(&rx);
	cr_assert(th_fd_open(kept));
	th_check_pipe(kept, a[0]);
}

Test(frame, oversized_send_is_refused)
{
	static const size_t lens[] = { SHELLESC_FRAME_MAX + 1, SIZE_MAX };
	int sv[2], fd;
	size_t nfds = 1;
	char c;

	th_pair(SOCK_STREAM, sv);
	for (size_t i = 0; i < 2; i++)	/* refused before the payload is read */
		cr_assert_eq(frame_send(sv[0], &c, lens[i], NULL, 0), SE_ERR_TOO_LARGE);
	cr_assert_eq(fdpass_recv(sv[1], &c, 1, &fd, &nfds), SE_ERR_AGAIN);
}

/* A receiver refuses a length over its limit as soon as the header is in. */
Test(frame, oversized_receive_is_refused)
{
	static const struct { uint32_t len; size_t fixed; int want; } cases[] = {
		{ 0xffffffffu, 0, SE_ERR_TOO_LARGE },
		{ SHELLESC_FRAME_MAX + 1, 0, SE_ERR_TOO_LARGE },
		{ 17, 16, SE_ERR_TOO_LARGE },
		{ 16, 16, 0 },
		{ 0, 16, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t hdr[SHELLESC_FRAME_HDR], body[16] = { 0 }, fixed[16];
		struct frame_rx rx;
		int sv[2];

		th_pair(SOCK_STREAM, sv);
		frame_put_len(hdr, cases[i].len);
		th_write(sv[0], hdr, sizeof(hdr));
		th_write(sv[0], body, cases[i].len <= 16 ? cases[i].len : 16);
		frame_rx_init(&rx, cases[i].fixed ? fixed : NULL, cases[i].fixed, 0);
		cr_assert_eq(frame_recv(sv[1], &rx, 1000), cases[i].want, "case %zu", i);
		if (cases[i].want == 0)
			cr_assert(rx.buf == fixed && rx.len == cases[i].len);
		frame_rx_reset(&rx);
		th_close_fds(sv, 2);
	}
}

/* The peer closes after n bytes of a 4-byte frame "\x04\0\0\0abcd". */
Test(frame, peer_closes_early)
{
	static const struct { size_t n; int want; } cases[] = {
		{ 0, SE_ERR_EOF_HEADER }, { 2, SE_ERR_EOF_PAYLOAD },
		{ 4, SE_ERR_EOF_PAYLOAD }, { 6, SE_ERR_EOF_PAYLOAD }, { 8, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct frame_rx rx;
		int sv[2];

		th_pair(SOCK_STREAM, sv);
		th_write(sv[0], "\x04\0\0\0abcd", cases[i].n);
		close(sv[0]);
		frame_rx_init(&rx, NULL, 0, 0);
		cr_assert_eq(frame_recv(sv[1], &rx, 1000), cases[i].want, "after %zu", cases[i].n);
		frame_rx_reset(&rx);
		close(sv[1]);
	}
}

/* Non-blocking: each partial chunk gives AGAIN, the last completes the frame. */
Test(frame, feed_partial_chunks)
{
	static const char *const chunks[] = { "\x05", "\0\0", "\0he", "l", "lo" };
	const size_t lens[] = { 1, 2, 3, 1, 2 };
	struct frame_rx rx;
	int sv[2];

	th_pair(SOCK_STREAM, sv);
	th_nonblock(sv[1]);
	frame_rx_init(&rx, NULL, 0, 0);
	cr_assert_eq(frame_rx_feed(&rx, sv[1]), SE_ERR_AGAIN);
	for (size_t i = 0; i < 5; i++) {
		th_write(sv[0], chunks[i], lens[i]);
		cr_assert_eq(frame_rx_feed(&rx, sv[1]), i < 4 ? SE_ERR_AGAIN : 0, "chunk %zu", i);
	}
	cr_assert(rx.len == 5 && memcmp(rx.buf, "hello", 5) == 0);
	frame_rx_reset(&rx);
	cr_assert_eq(frame_recv(sv[1], &rx, 30), SE_ERR_TIMEOUT);
}

#define BIG_FRAME (4u * 1024 * 1024)

static uint8_t *
big_data(void)
{
	uint8_t *data = malloc(BIG_FRAME);

	cr_assert_not_null(data);
	for (size_t i = 0; i < BIG_FRAME; i++)
		data[i] = (uint8_t)(i % 251);
	return data;
}

/* The child frees what it sent: memcheck traces it and fails its exit on a definite leak. */
static int
send_big(void *arg)
{
	int sock = *(int *)arg;
	uint8_t *data = big_data();
	int r = frame_send(sock, data, BIG_FRAME, &sock, 1);

	free(data);
	return r;
}

/* A non-blocking sender whose buffer fills waits for the slow reader. */
Test(frame, nonblocking_send_waits_for_room)
{
	int sv[2], small = 4096, r;
	struct frame_rx rx;
	uint8_t *want;
	pid_t pid;

	th_pair(SOCK_STREAM, sv);
	th_nonblock(sv[0]);
	th_nonblock(sv[1]);
	cr_assert_eq(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small)), 0);
	pid = th_spawn(send_big, &sv[0]);
	frame_rx_init(&rx, NULL, 0, 1);
	while ((r = frame_rx_feed(&rx, sv[1])) == SE_ERR_AGAIN) {
		usleep(200);
		cr_assert_eq(fdpass_wait(sv[1], POLLIN, 5000), 0);
	}
	cr_assert_eq(r, 0, "%s", se_strerror(r));
	th_reap(pid);
	cr_assert(rx.len == BIG_FRAME && rx.nfds == 1);
	want = big_data();
	cr_assert(memcmp(rx.buf, want, BIG_FRAME) == 0);
	free(want);
	frame_rx_reset(&rx);
}
