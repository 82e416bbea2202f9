/*
 * frame.h: length-prefixed frames on a stream socket.
 *
 * A frame is a u32 little-endian payload length followed by the payload
 * (one MessagePack value).  Lengths over the receiver's limit (at most
 * SHELLESC_FRAME_MAX) are refused before anything is allocated.  fds travel
 * with the first byte of a frame.  Nothing here allocates unless the
 * receiver asked for a heap buffer, so the client can run in a vfork child.
 */
#ifndef SHELLESC_FRAME_H
#define SHELLESC_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto.h"

/* Send one whole frame with fds attached.  Returns 0 or SE_ERR_*. */
int frame_send(int sock, const void *payload, size_t len, const int *fds,
    size_t nfds);

/* The same, waiting at most timeout_ms for socket buffer room (see fdpass_send_timed). */
int frame_send_timed(int sock, const void *payload, size_t len,
    const int *fds, size_t nfds, int timeout_ms);

/* Store len as the 4-byte little-endian frame header. */
void frame_put_len(uint8_t hdr[SHELLESC_FRAME_HDR], uint32_t len);

/*
 * Incremental receiver: feed it whenever the socket is readable.  With a
 * fixed buffer (vfork-safe) frames longer than its size are refused; with
 * fixed == NULL the payload is malloc'd after the length is checked.
 */
struct frame_rx {
	uint8_t hdr[SHELLESC_FRAME_HDR];
	size_t hdr_got;
	uint8_t *buf;		/* payload */
	uint8_t *fixed;		/* caller's buffer, or NULL */
	size_t limit;		/* largest payload accepted */
	size_t len, got;
	int fds[SHELLESC_MAX_FDS];
	size_t nfds, maxfds;	/* received, acceptable */
	bool wait;		/* reads block (frame_recv without a timeout) */
};

/* Prepare rx. maxfds is how many fds a frame may carry (0..SHELLESC_MAX_FDS). */
void frame_rx_init(struct frame_rx *rx, void *fixed, size_t size,
    size_t maxfds);

/*
 * Read what is available without blocking.  Returns 0 when a whole frame is
 * in rx->buf (rx->len bytes, rx->nfds fds in rx->fds), SE_ERR_AGAIN when more
 * is needed, SE_ERR_EOF_HEADER when the peer closed between frames,
 * SE_ERR_EOF_PAYLOAD when it closed inside one, or another SE_ERR_*.
 */
int frame_rx_feed(struct frame_rx *rx, int sock);

/* Blocking receive: feed, waiting with poll() up to timeout_ms (< 0: forever). */
int frame_recv(int sock, struct frame_rx *rx, int timeout_ms);

/* Forget the current frame: close fds not taken (set to -1 to take), free a heap payload. */
void frame_rx_reset(struct frame_rx *rx);

#endif /* SHELLESC_FRAME_H */
