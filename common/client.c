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
client_session_fd(char *const *envp, int *fd)
{
	static const char key[] = SHELLESC_ENV_SOCKET "=";
	const char *v = NULL;
	long n = 0;

	for (; envp && *envp && v == NULL; envp++)	/* the first, as getenv */
		if (strncmp(*envp, key, sizeof(key) - 1) == 0)
			v = *envp + sizeof(key) - 1;
	if (v == NULL)
		return SE_ERR_NO_SESSION;
	if (*v == '\0' || strlen(v) > 9)
		return SE_ERR_RANGE;
	for (; *v; v++) {
		if (*v < '0' || *v > '9')
			return SE_ERR_RANGE;
		n = n * 10 + (*v - '0');
	}
	*fd = (int)n;
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
	if (text->len > 0)	/* len <= SHELLESC_REASON_MAX; p may be NULL when absent */
		memcpy(req->reason, text->p, text->len);
	req->reason[text->len] = '\0';
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

int
client_ask(int session_fd, struct msg_exec_out *e, struct client_req *req)
{
	uint8_t buf[SHELLESC_REPLY_MAX];
	char cwd[PATH_MAX];
	struct msg m;
	int r;

	req->stream = -1;
	req->reason[0] = '\0';
	req->refused = false;
	if (e->cwd == NULL && getcwd(cwd, sizeof(cwd)) == NULL)
		return SE_ERR_SYSTEM;
	e->env_keep = client_env_keep;
	if ((r = handshake_connect(session_fd)) < 0)
		return r;
	req->stream = r;
	r = msg_send_exec(req->stream, &(struct msg_exec_out){ .file = e->file,
	    .cwd = e->cwd ? e->cwd : cwd, .argv = e->argv, .env = e->env,
	    .env_keep = e->env_keep, .pid = e->pid, .flags = e->flags });
	if (r == 0 && (r = client_recv_msg(req->stream, buf, sizeof(buf), &m)) == 0)
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
