/* frame.c: u32-LE length-prefixed frames with fd passing. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "fdpass.h"
#include "frame.h"

void
frame_put_len(uint8_t hdr[SHELLESC_FRAME_HDR], uint32_t len)
{
	for (int i = 0; i < SHELLESC_FRAME_HDR; i++)
		hdr[i] = (uint8_t)(len >> (8 * i));
}

static uint32_t
frame_get_len(const uint8_t hdr[SHELLESC_FRAME_HDR])
{
	return (uint32_t)hdr[0] | (uint32_t)hdr[1] << 8 |
	    (uint32_t)hdr[2] << 16 | (uint32_t)hdr[3] << 24;
}

int
frame_send(int sock, const void *payload, size_t len, const int *fds,
    size_t nfds)
{
	return frame_send_timed(sock, payload, len, fds, nfds, -1);
}

int
frame_send_timed(int sock, const void *payload, size_t len, const int *fds,
    size_t nfds, int timeout_ms)
{
	uint8_t hdr[SHELLESC_FRAME_HDR];
	struct iovec iov[2] = {
		{ .iov_base = hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)payload, .iov_len = len },
	};

	if (len > SHELLESC_FRAME_MAX)
		return SE_ERR_TOO_LARGE;
	if (nfds > SHELLESC_MAX_FDS)
		return SE_ERR_TOO_MANY_FDS;
	frame_put_len(hdr, (uint32_t)len);
	return fdpass_send_timed(sock, iov, len ? 2 : 1, fds, nfds, timeout_ms);
}

void
frame_rx_init(struct frame_rx *rx, void *fixed, size_t size, size_t maxfds)
{
	memset(rx, 0, sizeof(*rx));
	rx->fixed = fixed;
	rx->limit = fixed ? size : SHELLESC_FRAME_MAX;
	if (rx->limit > SHELLESC_FRAME_MAX)
		rx->limit = SHELLESC_FRAME_MAX;
	rx->maxfds = maxfds > SHELLESC_MAX_FDS ? SHELLESC_MAX_FDS : maxfds;
}

void
frame_rx_reset(struct frame_rx *rx)
{
	fdpass_close_all(rx->fds, rx->nfds);
	if (rx->buf != rx->fixed)
		free(rx->buf);
	rx->buf = NULL;
	rx->hdr_got = rx->len = rx->got = rx->nfds = 0;
}

/* One recvmsg into dst, keeping any fds that come with it. */
static ssize_t
frame_rx_read(struct frame_rx *rx, int sock, void *dst, size_t want)
{
	size_t n = rx->maxfds - rx->nfds;
	ssize_t r = fdpass_recv_wait(sock, dst, want, rx->fds + rx->nfds, &n, rx->wait);

	if (r >= 0)
		rx->nfds += n;
	return r;
}

/* The header is complete: check the length and find room for the payload. */
static int
frame_rx_start(struct frame_rx *rx)
{
	rx->len = frame_get_len(rx->hdr);
	if (rx->len > rx->limit)
		return SE_ERR_TOO_LARGE;
	if (rx->fixed) {
		rx->buf = rx->fixed;
		return 0;
	}
	if ((rx->buf = malloc(rx->len ? rx->len : 1)) == NULL)
		return SE_ERR_NOMEM;
	return 0;
}

int
frame_rx_feed(struct frame_rx *rx, int sock)
{
	ssize_t n;
	int r;

	while (rx->hdr_got < SHELLESC_FRAME_HDR) {
		n = frame_rx_read(rx, sock, rx->hdr + rx->hdr_got,
		    SHELLESC_FRAME_HDR - rx->hdr_got);
		if (n == 0)
			return rx->hdr_got ? SE_ERR_EOF_PAYLOAD : SE_ERR_EOF_HEADER;
		if (n < 0)
			return (int)n;
		rx->hdr_got += (size_t)n;
		if (rx->hdr_got == SHELLESC_FRAME_HDR &&
		    (r = frame_rx_start(rx)) != 0)
			return r;
	}
	while (rx->got < rx->len) {
		n = frame_rx_read(rx, sock, rx->buf + rx->got, rx->len - rx->got);
		if (n == 0)
			return SE_ERR_EOF_PAYLOAD;
		if (n < 0)
			return (int)n;
		rx->got += (size_t)n;
	}
	return 0;
}

int
frame_recv(int sock, struct frame_rx *rx, int timeout_ms)
{
	int r;

	/* Without a timeout a blocking read does it in one system call, not three. */
	rx->wait = timeout_ms < 0;
	while ((r = frame_rx_feed(rx, sock)) == SE_ERR_AGAIN)
		if ((r = fdpass_wait(sock, POLLIN, timeout_ms)) != 0)
			break;
	rx->wait = false;
	return r;
}
