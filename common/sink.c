/* sink.c: write callbacks for msgpack-c's packer. */
#include "config.h"

#include <string.h>

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

int
sink_flush(struct sink *s)
{
	struct iovec iov = { .iov_base = s->buf, .iov_len = s->len };

	if (s->err == 0 && s->fd >= 0 && s->len > 0)
		s->err = fdpass_send_all(s->fd, &iov, 1, NULL, 0);
	s->len = 0;
	return s->err;
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
