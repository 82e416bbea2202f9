/*
 * fuzz-frame: the incremental frame reader (frame_rx_feed) on a real
 * socketpair.  The input's first two bytes choose the receiver (heap or a
 * fixed SHELLESC_REPLY_MAX buffer, how many fds it accepts, how many fds
 * come with the first write) and the write chunk size; the rest is the
 * byte stream.  Every complete frame is decoded as a message too.
 * Checks: a frame never exceeds the receiver's limits, errors are final,
 * and no fd is leaked whatever arrives.
 */
#include "config.h"

#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "fdpass.h"
#include "frame.h"
#include "fuzz.h"
#include "msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A complete frame: within limits; decode it as the server and clients would. */
static void
frame_check(const struct frame_rx *rx)
{
	struct msg m;
	struct msg_exec ex;

	FZ_CHECK(rx->len <= rx->limit, "frame of %zu bytes over the limit %zu", rx->len, rx->limit);
	FZ_CHECK(rx->got == rx->len, "incomplete frame returned");
	FZ_CHECK(rx->nfds <= rx->maxfds, "%zu fds accepted, max %zu", rx->nfds, rx->maxfds);
	if (msg_decode(rx->buf, rx->len, &m) == 0 && m.type == SHELLESC_MSG_EXEC) {
		FZ_CHECK(msg_exec_take(&m, &ex) == 0, "msg_exec_take");
		msg_exec_free(&ex);
	}
}

/* Feed until the reader wants more; false once it has failed or ended. */
static int
frame_drain(struct frame_rx *rx, int sock)
{
	int r;

	while ((r = frame_rx_feed(rx, sock)) == 0) {
		frame_check(rx);
		frame_rx_reset(rx);
	}
	return r;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t fixed[SHELLESC_REPLY_MAX];
	struct fz_in in = { data, size };
	uint8_t mode = fz_byte(&in), chunk = fz_byte(&in);
	size_t nfds = (mode >> 1) & 3, maxfds = (mode >> 3) % (SHELLESC_MAX_FDS + 1), got;
	int base = fz_count_fds(), sv[2], fds[3], r = SE_ERR_AGAIN;
	struct frame_rx rx;

	fz_pair(SOCK_STREAM, sv);
	frame_rx_init(&rx, mode & 1 ? fixed : NULL, sizeof(fixed), maxfds);
	fz_null_fds(fds, nfds);
	while (in.left > 0 && r == SE_ERR_AGAIN) {
		const uint8_t *p = fz_take(&in, (size_t)chunk + 1, &got);
		struct iovec iov = { (void *)p, got };

		FZ_CHECK(fdpass_send_all(sv[1], &iov, 1, fds, nfds) == 0, "send");
		fdpass_close_all(fds, nfds);
		nfds = 0;
		r = frame_drain(&rx, sv[0]);
	}
	fdpass_close_all(fds, nfds);
	shutdown(sv[1], SHUT_WR);
	if (r == SE_ERR_AGAIN)
		r = frame_drain(&rx, sv[0]);
	FZ_CHECK(r != SE_ERR_AGAIN, "no end after EOF");
	frame_rx_reset(&rx);
	close(sv[0]);
	close(sv[1]);
	FZ_CHECK(fz_count_fds() == base, "fds leaked: %d, was %d", fz_count_fds(), base);
	return 0;
}
