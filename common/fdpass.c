/* fdpass.c: SCM_RIGHTS transport shared by frames and the handshake. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "fdpass.h"
#include "proto.h"

union fdpass_cmsg {
	struct cmsghdr hdr;
	char buf[CMSG_SPACE(sizeof(int) * SHELLESC_MAX_FDS)];
};

void
fdpass_close_all(const int *fds, size_t n)
{
	int saved = errno;

	for (size_t i = 0; i < n; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	errno = saved;
}

int
fdpass_wait(int sock, short events, int timeout_ms)
{
	struct pollfd pfd = { .fd = sock, .events = events };
	int n;

	do
		n = poll(&pfd, 1, timeout_ms);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return SE_ERR_SYSTEM;
	return n == 0 ? SE_ERR_TIMEOUT : 0;
}

/* Attach fds to msg using cm as storage. */
static void
fdpass_attach(struct msghdr *msg, union fdpass_cmsg *cm, const int *fds,
    size_t nfds)
{
	struct cmsghdr *c;

	if (nfds == 0)
		return;
	memset(cm, 0, sizeof(*cm));
	msg->msg_control = cm->buf;
	msg->msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
	c = CMSG_FIRSTHDR(msg);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
	memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
}

/* Advance iov past n sent bytes. */
static void
fdpass_consume(struct iovec **iov, int *iovcnt, size_t n)
{
	while (*iovcnt > 0 && n >= (*iov)->iov_len) {
		n -= (*iov)->iov_len;
		(*iov)++;
		(*iovcnt)--;
	}
	if (*iovcnt > 0) {
		(*iov)->iov_base = (char *)(*iov)->iov_base + n;
		(*iov)->iov_len -= n;
	}
}

int
fdpass_send_all(int sock, const struct iovec *iov, int iovcnt,
    const int *fds, size_t nfds)
{
	return fdpass_send_timed(sock, iov, iovcnt, fds, nfds, -1);
}

int
fdpass_send_timed(int sock, const struct iovec *iov_in, int iovcnt,
    const int *fds, size_t nfds, int timeout_ms)
{
	struct iovec iovs[8], *iov = iovs;
	union fdpass_cmsg cm;
	ssize_t n;
	int r;

	if (nfds > SHELLESC_MAX_FDS)
		return SE_ERR_TOO_MANY_FDS;
	if (iovcnt < 1 || iovcnt > 8)
		return SE_ERR_RANGE;
	memcpy(iovs, iov_in, sizeof(*iov) * iovcnt);
	while (iovcnt > 0) {
		struct msghdr msg = { .msg_iov = iov, .msg_iovlen = iovcnt };

		fdpass_attach(&msg, &cm, fds, nfds);
		n = sendmsg(sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if ((r = fdpass_wait(sock, POLLOUT, timeout_ms)) != 0)
				return r;
			continue;
		}
		if (n < 0)
			return SE_ERR_SYSTEM;
		nfds = 0;	/* the fds went with the first byte */
		fdpass_consume(&iov, &iovcnt, (size_t)n);
	}
	return 0;
}

/* Collect the fds of every SCM_RIGHTS message in msg; close all on overflow. */
static int
fdpass_collect(struct msghdr *msg, int *fds, size_t *nfds)
{
	size_t cap = *nfds, got = 0;
	int r = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		int tmp[SHELLESC_MAX_FDS];

		if (n > SHELLESC_MAX_FDS)	/* cannot happen: the buffer holds 16 */
			n = SHELLESC_MAX_FDS;

		memcpy(tmp, CMSG_DATA(c), sizeof(int) * n);
		for (size_t i = 0; i < n; i++) {
			if (got < cap)
				fds[got++] = tmp[i];
			else {
				close(tmp[i]);
				r = SE_ERR_TOO_MANY_FDS;
			}
		}
	}
	if (r == 0 && (msg->msg_flags & MSG_CTRUNC))
		r = SE_ERR_CTRUNC;
	if (r != 0) {
		fdpass_close_all(fds, got);
		got = 0;
	}
	*nfds = got;
	return r;
}

ssize_t
fdpass_recv(int sock, void *buf, size_t len, int *fds, size_t *nfds)
{
	return fdpass_recv_wait(sock, buf, len, fds, nfds, false);
}

ssize_t
fdpass_recv_wait(int sock, void *buf, size_t len, int *fds, size_t *nfds, bool wait)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	union fdpass_cmsg cm;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	size_t cap = *nfds > SHELLESC_MAX_FDS ? SHELLESC_MAX_FDS : *nfds;
	ssize_t n;
	int r;

	if (cap > 0) {
		msg.msg_control = cm.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * cap);
	}
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC | (wait ? 0 : MSG_DONTWAIT));
	while (n < 0 && errno == EINTR);
	*nfds = cap;
	if (n < 0) {
		*nfds = 0;
		return (errno == EAGAIN || errno == EWOULDBLOCK) ?
		    SE_ERR_AGAIN : SE_ERR_SYSTEM;
	}
	if ((r = fdpass_collect(&msg, fds, nfds)) != 0)
		return r;
	return n;
}

int
fdpass_is_unix(int fd, int type)
{
	int v;
	socklen_t len = sizeof(v);

	/* getsockopt fails with ENOTSOCK on anything but a socket. */
	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &len) != 0 || v != AF_UNIX)
		return SE_ERR_BAD_SOCKET;
	len = sizeof(v);
	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &v, &len) != 0 || v != type)
		return SE_ERR_BAD_SOCKET;
	return 0;
}
