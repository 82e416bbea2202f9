/*
 * sink.h: where msgpack-c's packer writes.
 *
 * msgpack-c's packer is header-only and calls a write callback; a sink is
 * that callback's state.  Three kinds, none of which allocates:
 *  - counting (buf == NULL): only totals the bytes, to size a frame first;
 *  - memory: fills a caller's buffer, failing with SE_ERR_TOO_LARGE;
 *  - stream: fills a small buffer and flushes it to a socket when full,
 *    so a frame of megabytes is sent from a few KiB of stack.
 */
#ifndef SHELLESC_SINK_H
#define SHELLESC_SINK_H

#include <stddef.h>
#include <msgpack/pack.h>

struct sink {
	char *buf;
	size_t cap, len;
	size_t total;		/* bytes written so far, flushed or not */
	int fd;			/* stream target, or -1 */
	int err;		/* first SE_ERR_* met; later writes are dropped */
	/*
	 * Stream sink: called once, before the first send that would wait
	 * (or by sink_finish), e.g. to hand the stream's other end to its
	 * reader; an error it returns becomes s->err.
	 */
	int (*before_wait)(void *arg);
	void *before_wait_arg;
	msgpack_packer pk;
};

void sink_init_count(struct sink *s);
void sink_init_mem(struct sink *s, void *buf, size_t cap);
void sink_init_stream(struct sink *s, int fd, void *buf, size_t cap);

/* Stream sink: send what is buffered.  Returns s->err. */
int sink_flush(struct sink *s);

/* Stream sink: flush, then run before_wait if it has not run yet. */
int sink_finish(struct sink *s);

/* Raw bytes, e.g. a frame header. */
void sink_put(struct sink *s, const void *p, size_t n);

/* Pack n raw bytes as MessagePack bin. */
void sink_bin(struct sink *s, const void *p, size_t n);

/* Pack a NUL-terminated string as bin (argv, env, paths: raw bytes). */
void sink_cbin(struct sink *s, const char *str);

/* Pack a NUL-terminated string as str (UTF-8 text: keys, reasons). */
void sink_str(struct sink *s, const char *str);

#endif /* SHELLESC_SINK_H */
