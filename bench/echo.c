/*
 * echo.c: the floor under any design of this protocol -- what one request
 * must cost at least: a stream socketpair, one fd passed over a datagram
 * socket, ~1 KiB of request, a one-byte reply.  The server is one thread
 * doing nothing else (no epoll, no decoding, no policy).
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench.h"
#include "fdpass.h"

#define ECHO_REQ 1024

struct bn_echo {
	int sv[2];		/* datagram pair: server end, client end */
	pthread_t t;
};

static void *
bn_echo_main(void *arg)
{
	struct bn_echo *e = arg;
	char hello[8], req[ECHO_REQ];

	for (;;) {
		struct iovec iov = { hello, sizeof(hello) };
		union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } cm;
		struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b,
		    .msg_controllen = sizeof(cm.b) };
		struct cmsghdr *c;
		ssize_t n = recvmsg(e->sv[0], &msg, MSG_CMSG_CLOEXEC), got = 0, k;
		int fd;

		if (n <= 0 || (c = CMSG_FIRSTHDR(&msg)) == NULL)
			return NULL;	/* the stop datagram carries no fd */
		memcpy(&fd, CMSG_DATA(c), sizeof(fd));
		while (got < ECHO_REQ && (k = read(fd, req + got, ECHO_REQ - (size_t)got)) > 0)
			got += k;
		if (write(fd, "r", 1) != 1) {
			/* the client is gone: nothing to do */
		}
		close(fd);
	}
}

struct bn_echo *
bn_echo_start(void)
{
	struct bn_echo *e = calloc(1, sizeof(*e));

	if (e == NULL || socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, e->sv) != 0)
		abort();
	pthread_create(&e->t, NULL, bn_echo_main, e);
	return e;
}

void
bn_echo_stop(struct bn_echo *e)
{
	if (send(e->sv[1], "q", 1, 0) != 1)
		abort();
	pthread_join(e->t, NULL);
	close(e->sv[0]);
	close(e->sv[1]);
	free(e);
}

void
bn_echo_once(struct bn_echo *e)
{
	static const char req[ECHO_REQ];
	char hello[3] = { 'S', 'E', 1 }, r;
	struct iovec iov = { hello, sizeof(hello) };
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
	    fdpass_send_all(e->sv[1], &iov, 1, &sv[1], 1) != 0)
		abort();
	close(sv[1]);
	if (write(sv[0], req, sizeof(req)) != (ssize_t)sizeof(req) || read(sv[0], &r, 1) != 1)
		abort();
	close(sv[0]);
}
