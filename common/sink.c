/* sink.c: write callbacks for msgpack-c's packer. */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "err.h"
#include "fdpass.h"
#include "sink.h"

static int sink_write(void *data, const char *p, size_t n);

static void
sink_init(struct sink *s, int fd, void *buf, size_t cap)
{
	memset(s, 0, sizeof(*s));
	s->fd = fd;
	s->buf = buf;
	s->cap = cap;
	msgpack_packer_init(&s->pk, s, sink_write);
}

void
sink_init_count(struct sink *s)
{
	sink_init(s, -1, NULL, 0);
}

void
sink_init_mem(struct sink *s, void *buf, size_t cap)
{
	sink_init(s, -1, buf, cap);
}

void
sink_init_stream(struct sink *s, int fd, void *buf, size_t cap)
{
	sink_init(s, fd, buf, cap);
}

static int
sink_before_wait(struct sink *s)
{
	int (*fn)(void *) = s->before_wait;

	s->before_wait = NULL;
	if (fn != NULL && s->err == 0)
		s->err = fn(s->before_wait_arg);
	return s->err;
}

/* Send without waiting while before_wait is pending; returns bytes sent. */
static size_t
sink_try_send(struct sink *s)
{
	ssize_t n;

	if (s->before_wait == NULL)
		return 0;
	do
		n = send(s->fd, s->buf, s->len, MSG_DONTWAIT | MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
		s->err = SE_ERR_SYSTEM;
	if (n < 0 || (size_t)n < s->len)
		sink_before_wait(s);
	return n > 0 ? (size_t)n : 0;
}

int
sink_flush(struct sink *s)
{
	struct iovec iov;
	size_t off;

	if (s->err == 0 && s->fd >= 0 && s->len > 0) {
		off = sink_try_send(s);
		iov = (struct iovec){ .iov_base = s->buf + off, .iov_len = s->len - off };
		if (s->err == 0 && off < s->len)
			s->err = fdpass_send_all(s->fd, &iov, 1, NULL, 0);
	}
	s->len = 0;
	return s->err;
}

int
sink_finish(struct sink *s)
{
	sink_flush(s);
	return sink_before_wait(s);
}

void
sink_put(struct sink *s, const void *p, size_t n)
{
	const char *c = p;

	s->total += n;
	while (s->err == 0 && s->buf != NULL && n > 0) {
		size_t room = s->cap - s->len, k = n < room ? n : room;

		if (room == 0 && s->fd < 0) {
			s->err = SE_ERR_TOO_LARGE;
			break;
		}
		memcpy(s->buf + s->len, c, k);
		s->len += k;
		c += k;
		n -= k;
		if (s->len == s->cap && s->fd >= 0)
			sink_flush(s);
	}
}

static int
sink_write(void *data, const char *p, size_t n)
{
	struct sink *s = data;

	sink_put(s, p, n);
	return s->err;
}

void
sink_bin(struct sink *s, const void *p, size_t n)
{
	msgpack_pack_bin(&s->pk, n);
	msgpack_pack_bin_body(&s->pk, p, n);
}

void
sink_cbin(struct sink *s, const char *str)
{
	sink_bin(s, str, strlen(str));
}

void
sink_str(struct sink *s, const char *str)
{
	size_t n = strlen(str);

	msgpack_pack_str(&s->pk, n);
	msgpack_pack_str_body(&s->pk, str, n);
}
