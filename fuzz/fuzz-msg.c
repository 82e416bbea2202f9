/*
 * fuzz-msg: the message decoder (msg_decode) and the copy the server makes
 * of an exec request (msg_exec_take).  Whatever decodes must survive a
 * round trip through the real encoder: encode the decoded fields again,
 * decode that, and get the same fields back.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "frame.h"
#include "fuzz.h"
#include "msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A decoded text as a C string (decoded texts hold no NUL). */
static char *
msg_text(const struct msg_bytes *b)
{
	char *s = malloc((size_t)b->len + 1);

	FZ_CHECK(s != NULL, "malloc");
	if (b->len)
		memcpy(s, b->p, b->len);
	s[b->len] = '\0';
	return s;
}

static int
msg_same_text(const struct msg_bytes *a, const struct msg_bytes *b)
{
	return a->len == b->len && (a->len == 0 || memcmp(a->p, b->p, a->len) == 0);
}

/* The exec request, copied and encoded again, must decode to the same copy. */
static void
roundtrip_exec(const struct msg *m)
{
	struct msg_exec a, b;
	struct msg m2;
	size_t cap = 64 + 2 * ((size_t)m->file.len + m->cwd.len), len;
	uint8_t *buf;

	FZ_CHECK(msg_exec_take(m, &a) == 0, "msg_exec_take");
	FZ_CHECK(a.argc == m->argv.n && a.envc == m->env.n, "counts");
	FZ_CHECK(a.argv[a.argc] == NULL && a.env[a.envc] == NULL, "not NULL-terminated");
	FZ_CHECK(strlen(a.file) == m->file.len && strlen(a.cwd) == m->cwd.len, "lengths");
	for (size_t i = 0; i < a.argc; i++)
		cap += strlen(a.argv[i]) + 8;
	for (size_t i = 0; i < a.envc; i++)
		cap += strlen(a.env[i]) + 8;
	FZ_CHECK((buf = malloc(cap)) != NULL, "malloc");
	FZ_CHECK(msg_pack_exec(buf, cap, &len, &(struct msg_exec_out){ .file = a.file,
	    .cwd = a.cwd, .argv = a.argv, .env = a.env, .pid = a.pid, .flags = a.flags }) == 0,
	    "re-encoding failed");
	FZ_CHECK(msg_decode(buf, len, &m2) == 0, "re-encoded exec does not decode");
	FZ_CHECK(msg_exec_take(&m2, &b) == 0, "msg_exec_take");
	FZ_CHECK(strcmp(a.file, b.file) == 0 && strcmp(a.cwd, b.cwd) == 0, "file/cwd differ");
	FZ_CHECK(a.argc == b.argc && a.envc == b.envc, "counts differ");
	for (size_t i = 0; i < a.argc; i++)
		FZ_CHECK(strcmp(a.argv[i], b.argv[i]) == 0, "argv[%zu] differs", i);
	for (size_t i = 0; i < a.envc; i++)
		FZ_CHECK(strcmp(a.env[i], b.env[i]) == 0, "env[%zu] differs", i);
	FZ_CHECK(a.pid == b.pid && a.flags == b.flags, "pid/flags differ");
	msg_exec_free(&a);
	msg_exec_free(&b);
	free(buf);
}

/* Send the small message m again with the real encoder; *out is what arrives. */
static void
roundtrip_small(const struct msg *m, struct msg *out, struct frame_rx *rx)
{
	int sv[2], fds[SHELLESC_MAX_FDS], r = 0;
	char *text = NULL;

	fz_pair(SOCK_STREAM, sv);
	switch (m->type) {
	case SHELLESC_MSG_DECISION:
		text = msg_has(m, "reason") ? msg_text(&m->reason) : NULL;
		r = msg_send_decision(sv[1], (int)m->action, text);
		break;
	case SHELLESC_MSG_HANDOVER:
		fz_null_fds(fds, 1);
		for (size_t i = 1; i < m->ndest; i++)
			fds[i] = fds[0];	/* the same fd may travel more than once */
		r = msg_send_handover(sv[1], m->dest, fds, m->ndest);
		close(fds[0]);
		break;
	case SHELLESC_MSG_SIGNAL:
		r = msg_send_signal(sv[1], (int)m->signal);
		break;
	case SHELLESC_MSG_STOPPED:
		r = msg_send_stopped(sv[1], (int)m->signal);
		break;
	case SHELLESC_MSG_RESULT:
		text = msg_has(m, "error") ? msg_text(&m->error) : NULL;
		r = msg_has(m, "exit_code") ? msg_send_result(sv[1], (int)m->exit_code, 0, false, text) :
		    msg_send_result(sv[1], -1, (int)m->signal, m->core, text);
		break;
	case SHELLESC_MSG_ERROR:
		text = msg_text(&m->message);
		r = msg_send_error(sv[1], text);
		break;
	}
	free(text);
	FZ_CHECK(r == 0, "re-encoding type %d: %s", (int)m->type, se_strerror(r));
	frame_rx_init(rx, NULL, 0, SHELLESC_MAX_FDS);
	FZ_CHECK(frame_recv(sv[0], rx, 1000) == 0, "no frame back");
	FZ_CHECK(msg_decode(rx->buf, rx->len, out) == 0, "re-encoded type %d does not decode", (int)m->type);
	FZ_CHECK(rx->nfds == (m->type == SHELLESC_MSG_HANDOVER ? m->ndest : 0), "fds");
	close(sv[0]);
	close(sv[1]);
}

static void
roundtrip(const struct msg *m)
{
	struct frame_rx rx;
	struct msg o;

	if (m->type == SHELLESC_MSG_EXEC)
		return roundtrip_exec(m);
	roundtrip_small(m, &o, &rx);
	FZ_CHECK(o.type == m->type, "type");
	switch (m->type) {
	case SHELLESC_MSG_DECISION:
		FZ_CHECK(o.action == m->action && msg_same_text(&o.reason, &m->reason), "decision differs");
		break;
	case SHELLESC_MSG_HANDOVER:
		FZ_CHECK(o.ndest == m->ndest && memcmp(o.dest, m->dest, sizeof(int) * o.ndest) == 0,
		    "hand-over differs");
		break;
	case SHELLESC_MSG_SIGNAL:
	case SHELLESC_MSG_STOPPED:
		FZ_CHECK(o.signal == m->signal, "signal differs");
		break;
	case SHELLESC_MSG_RESULT:
		FZ_CHECK(o.exit_code == m->exit_code && o.signal == m->signal &&
		    msg_has(&o, "exit_code") == msg_has(m, "exit_code") &&
		    msg_same_text(&o.error, &m->error), "result differs");
		FZ_CHECK(msg_has(m, "exit_code") || o.core == m->core, "core differs");
		break;
	case SHELLESC_MSG_ERROR:
		FZ_CHECK(msg_same_text(&o.message, &m->message), "error differs");
		break;
	}
	frame_rx_reset(&rx);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct msg m;
	int r = msg_decode(data, size, &m);

	FZ_CHECK(r <= 0 && r > SE_ERR_MAX_, "decode returned %d", r);
	if (r != 0)
		return 0;
	FZ_CHECK(m.type >= SHELLESC_MSG_EXEC && m.type <= SHELLESC_MSG_STOPPED, "type %d", (int)m.type);
	roundtrip(&m);
	return 0;
}
