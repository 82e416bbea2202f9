/* msg-encode.c: packing protocol messages with msgpack-c, without allocating. */
#include "config.h"

#include <string.h>

#include "err.h"
#include "frame.h"
#include "msg.h"
#include "sink.h"

/* Stack buffer for streamed frames: big enough to batch, small enough for any stack. */
#define MSG_STREAM_BUF 4096

static void
msg_key(struct sink *s, const char *key)
{
	sink_str(s, key);
}

static void
msg_key_int(struct sink *s, const char *key, int64_t v)
{
	msg_key(s, key);
	msgpack_pack_int64(&s->pk, v);
}

static size_t
msg_strv_count(char *const *v, bool (*keep)(const char *))
{
	size_t n = 0;

	for (; v && *v; v++)
		n += keep == NULL || keep(*v);
	return n;
}

static void
msg_key_strv(struct sink *s, const char *key, char *const *v,
    bool (*keep)(const char *))
{
	msg_key(s, key);
	msgpack_pack_array(&s->pk, msg_strv_count(v, keep));
	for (; v && *v; v++)
		if (keep == NULL || keep(*v))
			sink_cbin(s, *v);
}

static void
msg_exec_body(struct sink *s, const struct msg_exec_out *e)
{
	msgpack_pack_map(&s->pk, 7);
	msg_key_int(s, "type", SHELLESC_MSG_EXEC);
	msg_key(s, "file");
	sink_cbin(s, e->file);
	msg_key_strv(s, "argv", e->argv, NULL);
	msg_key(s, "cwd");
	sink_cbin(s, e->cwd);
	msg_key_strv(s, "env", e->env, e->env_keep);
	msg_key_int(s, "pid", e->pid);
	msg_key_int(s, "flags", e->flags);
}

int
msg_pack_exec(void *buf, size_t cap, size_t *len, const struct msg_exec_out *e)
{
	struct sink s;

	sink_init_mem(&s, buf, cap);
	msg_exec_body(&s, e);
	*len = s.len;
	return s.err;
}

/* Count first, so the length prefix can go first; then stream the body. */
int
msg_send_exec_then(int sock, const struct msg_exec_out *e, int (*then)(void *), void *arg)
{
	char buf[MSG_STREAM_BUF];
	uint8_t hdr[SHELLESC_FRAME_HDR];
	struct sink s;

	sink_init_count(&s);
	msg_exec_body(&s, e);
	if (s.total > SHELLESC_FRAME_MAX)
		return SE_ERR_TOO_LARGE;
	frame_put_len(hdr, (uint32_t)s.total);
	sink_init_stream(&s, sock, buf, sizeof(buf));
	s.before_wait = then;
	s.before_wait_arg = arg;
	sink_put(&s, hdr, sizeof(hdr));
	msg_exec_body(&s, e);
	return sink_finish(&s);
}

int
msg_send_exec(int sock, const struct msg_exec_out *e)
{
	return msg_send_exec_then(sock, e, NULL, NULL);
}

/* Small messages: pack into a stack buffer, send as one frame. */
struct msg_small {
	struct sink s;
	int type;
	char buf[SHELLESC_REPLY_MAX];
};

static void
msg_small_begin(struct msg_small *m, int type, size_t nkeys)
{
	sink_init_mem(&m->s, m->buf, sizeof(m->buf));
	m->type = type;
	msgpack_pack_map(&m->s.pk, nkeys);
	msg_key_int(&m->s, "type", type);
}

/*
 * Clients wait for room; the server never does (timeout 0): its replies are
 * small and go to a client that is waiting for them, so a full buffer means
 * a client that is stuffing its own stream, and that request is dropped.
 */
static int
msg_small_send(struct msg_small *m, int sock, const int *fds, size_t n)
{
	static const int server_sends = 1 << SHELLESC_MSG_DECISION |
	    1 << SHELLESC_MSG_RESULT | 1 << SHELLESC_MSG_ERROR;
	int type = m->type;

	if (m->s.err != 0)
		return m->s.err;
	return frame_send_timed(sock, m->buf, m->s.len, fds, n,
	    (server_sends >> type) & 1 ? 0 : -1);
}

/* A text field, cut to SHELLESC_REASON_MAX bytes. */
static void
msg_key_text(struct sink *s, const char *key, const char *text)
{
	size_t n = strlen(text);

	if (n > SHELLESC_REASON_MAX)
		n = SHELLESC_REASON_MAX;
	msg_key(s, key);
	msgpack_pack_str(&s->pk, n);
	msgpack_pack_str_body(&s->pk, text, n);
}

int
msg_send_decision(int sock, int action, const char *reason)
{
	struct msg_small m;

	msg_small_begin(&m, SHELLESC_MSG_DECISION, reason ? 3 : 2);
	msg_key_int(&m.s, "action", action);
	if (reason)
		msg_key_text(&m.s, "reason", reason);
	return msg_small_send(&m, sock, NULL, 0);
}

static int
msg_send_handover_opt(int sock, const int *dest, const int *fds, size_t n, bool follow)
{
	struct msg_small m;

	if (n > SHELLESC_MAX_FDS)
		return SE_ERR_TOO_MANY_FDS;
	msg_small_begin(&m, SHELLESC_MSG_HANDOVER, follow ? 3 : 2);
	msg_key(&m.s, "fds");
	msgpack_pack_array(&m.s.pk, n);
	for (size_t i = 0; i < n; i++)
		msgpack_pack_int(&m.s.pk, dest[i]);
	if (follow) {
		msg_key(&m.s, "follow_stops");
		msgpack_pack_true(&m.s.pk);
	}
	return msg_small_send(&m, sock, fds, n);
}

int
msg_send_handover(int sock, const int *dest, const int *fds, size_t n)
{
	return msg_send_handover_opt(sock, dest, fds, n, false);
}

int
msg_send_handover_follow(int sock, const int *dest, const int *fds, size_t n)
{
	return msg_send_handover_opt(sock, dest, fds, n, true);
}

/* signal (client -> server) and stopped (server -> client): a signal number. */
static int
msg_send_signo(int sock, int type, int sig)
{
	struct msg_small m;

	msg_small_begin(&m, type, 2);
	msg_key_int(&m.s, "signal", sig);
	return msg_small_send(&m, sock, NULL, 0);
}

int
msg_send_signal(int sock, int sig)
{
	return msg_send_signo(sock, SHELLESC_MSG_SIGNAL, sig);
}

int
msg_send_result(int sock, int exit_code, int sig, bool core, const char *error)
{
	struct msg_small m;

	msg_small_begin(&m, SHELLESC_MSG_RESULT, 2 + (exit_code < 0) + (error != NULL));
	if (exit_code >= 0)
		msg_key_int(&m.s, "exit_code", exit_code);
	else {
		msg_key_int(&m.s, "signal", sig);
		msg_key(&m.s, "core");
		(core ? msgpack_pack_true : msgpack_pack_false)(&m.s.pk);
	}
	if (error)
		msg_key_text(&m.s, "error", error);
	return msg_small_send(&m, sock, NULL, 0);
}

int
msg_send_error(int sock, const char *message)
{
	struct msg_small m;

	msg_small_begin(&m, SHELLESC_MSG_ERROR, 2);
	msg_key_text(&m.s, "message", message);
	return msg_small_send(&m, sock, NULL, 0);
}

int
msg_send_stopped(int sock, int sig)
{
	return msg_send_signo(sock, SHELLESC_MSG_STOPPED, sig);
}
