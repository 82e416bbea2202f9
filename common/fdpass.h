/*
 * fdpass.h: sendmsg/recvmsg with SCM_RIGHTS, done carefully.
 *
 * Every call retries EINTR, uses MSG_NOSIGNAL (a closed peer never raises
 * SIGPIPE in someone else's process) and receives with MSG_CMSG_CLOEXEC.
 * Every function here is async-signal-safe: no allocation, no locks.
 */
#ifndef SHELLESC_FDPASS_H
#define SHELLESC_FDPASS_H

#include <stddef.h>
#include <sys/types.h>
#include <stdbool.h>
#include <sys/uio.h>

/*
 * Send all of iov[] on sock, with nfds fds (at most SHELLESC_MAX_FDS)
 * attached to the first byte.  A non-blocking socket is waited on with
 * poll(), so this always completes or fails.  Returns 0 or SE_ERR_*.
 */
int fdpass_send_all(int sock, const struct iovec *iov, int iovcnt,
    const int *fds, size_t nfds);

/* The same, waiting at most timeout_ms for room (0: not at all; < 0: forever):
 * SE_ERR_TIMEOUT then.  The server uses 0, so no client can make it wait. */
int fdpass_send_timed(int sock, const struct iovec *iov, int iovcnt,
    const int *fds, size_t nfds, int timeout_ms);

/*
 * One non-blocking recvmsg of at most len bytes.  On entry *nfds is how many
 * fds the caller can take (at most SHELLESC_MAX_FDS); on return, how many
 * were received into fds[] (CLOEXEC).  If more fds arrived than the caller
 * can take, or the kernel truncated them (MSG_CTRUNC), every received fd is
 * closed and SE_ERR_TOO_MANY_FDS / SE_ERR_CTRUNC is returned: fds are never
 * leaked.  Returns the byte count (0 at EOF), SE_ERR_AGAIN when nothing is
 * ready, or another SE_ERR_*.
 */
ssize_t fdpass_recv(int sock, void *buf, size_t len, int *fds, size_t *nfds);

/* The same, but waiting for data when wait is true (never SE_ERR_AGAIN then). */
ssize_t fdpass_recv_wait(int sock, void *buf, size_t len, int *fds, size_t *nfds, bool wait);

/* Wait until sock is readable (POLLIN) or writable; timeout_ms < 0 waits forever. */
int fdpass_wait(int sock, short events, int timeout_ms);

/* 0 when fd is an AF_UNIX socket of the given type, else SE_ERR_BAD_SOCKET. */
int fdpass_is_unix(int fd, int type);

/* Close every fd in fds[0..n). Keeps errno. */
void fdpass_close_all(const int *fds, size_t n);

#endif /* SHELLESC_FDPASS_H */
