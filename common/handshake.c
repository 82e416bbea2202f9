/* handshake.c: the datagram that hands the server a request stream. */
#include "config.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "fdpass.h"
#include "handshake.h"
#include "proto.h"

int
handshake_send(int session_fd, int stream_end)
{
	char hello[SHELLESC_HELLO_LEN] = {
		SHELLESC_HELLO_MAGIC0, SHELLESC_HELLO_MAGIC1, SHELLESC_PROTO_VERSION
	};
	struct iovec iov = { .iov_base = hello, .iov_len = sizeof(hello) };

	return fdpass_send_all(session_fd, &iov, 1, &stream_end, 1);
}

int
handshake_connect(int session_fd)
{
	int sv[2], r;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return SE_ERR_SYSTEM;
	r = handshake_send(session_fd, sv[1]);
	fdpass_close_all(&sv[1], 1);
	if (r != 0) {
		fdpass_close_all(&sv[0], 1);
		return r;
	}
	return sv[0];
}

int
handshake_accept(int session_fd, int *stream, int *version)
{
	unsigned char buf[64];
	size_t nfds = 1;
	int fd = -1;
	ssize_t n = fdpass_recv(session_fd, buf, sizeof(buf), &fd, &nfds);

	*stream = -1;
	*version = 0;
	if (n < 0)
		return (int)n;
	if (nfds != 1)
		return SE_ERR_FDS;
	if (n != SHELLESC_HELLO_LEN || buf[0] != SHELLESC_HELLO_MAGIC0 ||
	    buf[1] != SHELLESC_HELLO_MAGIC1) {
		fdpass_close_all(&fd, 1);
		return SE_ERR_MALFORMED;
	}
	*stream = fd;
	*version = buf[2];
	return buf[2] == SHELLESC_PROTO_VERSION ? 0 : SE_ERR_VERSION;
}
