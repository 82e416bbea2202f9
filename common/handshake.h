/*
 * handshake.h: opening a per-request channel over the session socket.
 *
 * The client makes a SOCK_STREAM socketpair and sends one end to the server
 * in a datagram of SHELLESC_HELLO_LEN bytes ("SE" + protocol version) that
 * carries exactly one fd.  Datagrams are atomic, so any number of processes
 * can share the session socket.  Both functions are async-signal-safe.
 */
#ifndef SHELLESC_HANDSHAKE_H
#define SHELLESC_HANDSHAKE_H

/* Client: returns our end of a new request stream (CLOEXEC), or SE_ERR_*. */
int handshake_connect(int session_fd);

/*
 * Client: send the hello carrying stream_end, the server's end of a request
 * stream the caller made (and may already have written the request into,
 * so the server finds it whole).  stream_end is left open.
 */
int handshake_send(int session_fd, int stream_end);

/*
 * Server: take one hello from the (non-blocking) session socket.  Returns 0
 * with *stream set; SE_ERR_AGAIN when none is queued; SE_ERR_VERSION with
 * *stream set (so the server can say why before closing) and *version the
 * client's; SE_ERR_FDS, SE_ERR_TOO_MANY_FDS or SE_ERR_MALFORMED for a bad
 * datagram, whose fds are all closed.
 */
int handshake_accept(int session_fd, int *stream, int *version);

#endif /* SHELLESC_HANDSHAKE_H */
