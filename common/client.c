/* client.c: finding the session and asking the server about one exec. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "err.h"
#include "fdpass.h"
#include "frame.h"
#include "handshake.h"

static bool
client_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool
client_env_keep(const char *entry)
{
	return !client_has_prefix(entry, SHELLESC_ENV_PREFIX) &&
	    !client_has_prefix(entry, SHELLESC_ENV_WRAPPER "=");
}

int
client_check_socket(int fd)
{
	return fdpass_is_unix(fd, SOCK_DGRAM);
}

int
client_fd_value(const char *v)
{
	long n = 0;

	if (*v == '\0' || strlen(v) > 9)
		return SE_ERR_RANGE;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return SE_ERR_RANGE;
		n = n * 10 + (*v - '0');
	}
	return (int)n;
}

int
client_session_fd(char *const *envp, int *fd)
{
	static const char key[] = SHELLESC_ENV_SOCKET "=";
	const char *v = NULL;

	for (; envp && *envp && v == NULL; envp++)	/* the first, as getenv */
		if (strncmp(*envp, key, sizeof(key) - 1) == 0)
			v = *envp + sizeof(key) - 1;
	if (v == NULL)
		return SE_ERR_NO_SESSION;
	if ((*fd = client_fd_value(v)) < 0)
		return *fd;
	return client_check_socket(*fd);
}

/* Copy a decision (or the server's refusal) out of the reply frame. */
static int
client_take_reply(const struct msg *m, struct client_req *req)
{
	const struct msg_bytes *text;

	if (m->type == SHELLESC_MSG_ERROR) {
		req->refused = true;
		text = &m->message;
	} else if (m->type == SHELLESC_MSG_DECISION) {
		req->action = (int)m->action;
		text = &m->reason;
	} else
		return SE_ERR_UNEXPECTED;
	/* len <= SHELLESC_REASON_MAX; p (in buf.reply) may be NULL when absent. */
	if (text->len > 0)
		memmove(req->buf.reply, text->p, text->len);
	req->buf.reply[text->len] = '\0';
	req->reason = (const char *)req->buf.reply;
	return req->refused ? SE_ERR_UNEXPECTED : 0;
}

int
client_recv_msg(int stream, uint8_t *buf, size_t size, struct msg *m)
{
	struct frame_rx rx;
	int r;

	frame_rx_init(&rx, buf, size, 0);
	if ((r = frame_recv(stream, &rx, -1)) != 0)
		return r;
	return msg_decode(rx.buf, rx.len, m);
}

/* The request stream's far end, on its way to the server. */
struct client_hello {
	int session_fd;
	int end;		/* closed once sent */
};

static int
client_send_hello(void *arg)
{
	struct client_hello *h = arg;
	int r = handshake_send(h->session_fd, h->end);

	fdpass_close_all(&h->end, 1);
	h->end = -1;
	return r;
}

/*
 * The request goes into the stream before the stream goes to the server
 * (msg_send_exec_then), so the server reads it whole at once instead of
 * waking up for the hello and again for each piece of the request.
 */
static int
client_send_exec(int session_fd, const struct msg_exec_out *e, int *stream)
{
	int sv[2], r;
	struct client_hello h = { .session_fd = session_fd };

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		return SE_ERR_SYSTEM;
	*stream = sv[0];
	h.end = sv[1];
	r = msg_send_exec_then(sv[0], e, client_send_hello, &h);
	fdpass_close_all(&h.end, 1);	/* still ours if the hello was never sent */
	return r;
}

int
client_ask(int session_fd, struct msg_exec_out *e, struct client_req *req)
{
	char *cwd = req->buf.cwd;
	struct msg m;
	int r;

	req->stream = -1;
	req->reason = "";
	req->refused = false;
	if (e->cwd == NULL && getcwd(cwd, sizeof(req->buf.cwd)) == NULL)
		return SE_ERR_SYSTEM;
	if (e->cwd == NULL)
		e->cwd = cwd;
	e->env_keep = client_env_keep;
	r = client_send_exec(session_fd, e, &req->stream);
	if (e->cwd == cwd)
		e->cwd = NULL;	/* buf is the reply's from here on */
	if (r == 0 && (r = client_recv_msg(req->stream, req->buf.reply,
	    sizeof(req->buf.reply), &m)) == 0)
		r = client_take_reply(&m, req);
	if (r != 0 || req->action != SHELLESC_ACT_ESCALATE) {
		fdpass_close_all(&req->stream, 1);
		req->stream = -1;
	}
	return r;
}

void
client_say(const char *prefix, const char *msg)
{
	char buf[PATH_MAX + SHELLESC_REASON_MAX + 64];
	size_t n = 0;
	const char *parts[] = { "shellesc: ", prefix, prefix && msg ? ": " : NULL, msg, "\n" };

	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		size_t k;

		if (parts[i] == NULL)
			continue;
		k = strlen(parts[i]);
		if (k > sizeof(buf) - 1 - n)
			k = sizeof(buf) - 1 - n;
		memcpy(buf + n, parts[i], k);
		n += k;
	}
	buf[n - 1] = '\n';
	while (write(STDERR_FILENO, buf, n) < 0 && errno == EINTR)
		;
}

const char *
client_strerror(int r)
{
	if (r == SE_ERR_SYSTEM) {
		const char *s = strerrordesc_np(errno);

		return s ? s : "unknown system error";
	}
	return se_strerror(r);
}
