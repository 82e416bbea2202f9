/*
 * client-escalate.c: the caller's side of an escalated command.  The caller
 * stays the process its parent waits for: it forwards signals to the
 * command, stops when the command stops (so a job-control shell sees its
 * job stop, and its SIGCONT, forwarded, continues the command), and ends
 * exactly as the command ended.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "client.h"
#include "err.h"
#include "fdpass.h"
#include "frame.h"

static const int client_fwd[] = {
	SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT
};
#define NFWD (sizeof(client_fwd) / sizeof(client_fwd[0]))

static volatile sig_atomic_t client_pending[NFWD];

static void
client_on_signal(int sig)
{
	for (size_t i = 0; i < NFWD; i++)
		if (client_fwd[i] == sig)
			client_pending[i] = 1;
}

/* Dups of 0, 1, 2 for the server; a closed one becomes /dev/null. */
static int
client_dup_stdio(int fds[3])
{
	for (int i = 0; i < 3; i++) {
		fds[i] = fcntl(i, F_DUPFD_CLOEXEC, 3);
		if (fds[i] < 0 && errno == EBADF)
			fds[i] = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (fds[i] < 0) {
			fdpass_close_all(fds, (size_t)i);
			return SE_ERR_SYSTEM;
		}
	}
	return 0;
}

/* Block the forwarded signals and catch them; *wait is the mask to wait in. */
static void
client_trap(struct sigaction old[NFWD], sigset_t *oldmask, sigset_t *wait)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = client_on_signal;
	sigfillset(&sa.sa_mask);
	sigemptyset(&set);
	for (size_t i = 0; i < NFWD; i++)
		sigaddset(&set, client_fwd[i]);
	sigprocmask(SIG_BLOCK, &set, oldmask);
	*wait = *oldmask;
	for (size_t i = 0; i < NFWD; i++) {
		client_pending[i] = 0;
		sigaction(client_fwd[i], &sa, &old[i]);
		sigdelset(wait, client_fwd[i]);
	}
}

/* Put back the dispositions, then the mask: a signal still pending meets the original disposition. */
static void
client_untrap(const struct sigaction old[NFWD], const sigset_t *oldmask)
{
	for (size_t i = 0; i < NFWD; i++)
		sigaction(client_fwd[i], &old[i], NULL);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
}

static int
client_forward_pending(int stream)
{
	int r = 0;

	for (size_t i = 0; i < NFWD && r == 0; i++)
		if (client_pending[i]) {
			client_pending[i] = 0;
			r = msg_send_signal(stream, client_fwd[i]);
		}
	return r;
}

/*
 * Stop as the command stopped: its stop signal, with the default action for
 * the moment, so the parent's wait reports the same signal.  Returns once
 * continued; the SIGCONT stays blocked until ppoll, which forwards it.
 */
static void
client_stop_like(int sig)
{
	struct sigaction dfl, old;
	sigset_t set, oldmask;

	if (sig != SIGTSTP && sig != SIGTTIN && sig != SIGTTOU && sig != SIGSTOP)
		return;
	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigaction(sig, &dfl, &old);
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_UNBLOCK, &set, &oldmask);
	raise(sig);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	sigaction(sig, &old, NULL);
}

static int
client_take_result(const struct msg *m, struct client_result *res)
{
	const struct msg_bytes *text = m->type == SHELLESC_MSG_ERROR ?
	    &m->message : &m->error;

	if (m->type != SHELLESC_MSG_RESULT && m->type != SHELLESC_MSG_ERROR)
		return SE_ERR_UNEXPECTED;
	if (text->len > 0)	/* p is NULL when the field is absent */
		memcpy(res->error, text->p, text->len);
	res->error[text->len] = '\0';
	if (m->type == SHELLESC_MSG_ERROR)
		return SE_ERR_UNEXPECTED;
	res->exit_code = msg_has(m, "exit_code") ? (int)m->exit_code : -1;
	res->signal = (int)m->signal;
	res->core = m->core;
	return 0;
}

/* Wait for one frame, forwarding signals caught meanwhile. */
static int
client_wait_frame(int stream, const sigset_t *wait, uint8_t *buf, size_t size, struct msg *m)
{
	struct pollfd pfd = { .fd = stream, .events = POLLIN };
	struct frame_rx rx;
	int r = SE_ERR_AGAIN;

	frame_rx_init(&rx, buf, size, 0);
	while (r == SE_ERR_AGAIN) {
		if (ppoll(&pfd, 1, NULL, wait) < 0) {
			if (errno != EINTR)
				return SE_ERR_SYSTEM;
			if ((r = client_forward_pending(stream)) != 0)
				return r;
			r = SE_ERR_AGAIN;
			continue;
		}
		r = frame_rx_feed(&rx, stream);
	}
	return r == 0 ? msg_decode(rx.buf, rx.len, m) : r;
}

/* Wait for the result, stopping whenever the command stops meanwhile. */
static int
client_wait_result(int stream, const sigset_t *wait, struct client_result *res)
{
	uint8_t buf[SHELLESC_REPLY_MAX];
	struct msg m;
	int r;

	while ((r = client_wait_frame(stream, wait, buf, sizeof(buf), &m)) == 0 &&
	    m.type == SHELLESC_MSG_STOPPED)
		client_stop_like((int)m.signal);
	return r == 0 ? client_take_result(&m, res) : r;
}

int
client_escalate(struct client_req *req, struct client_result *res)
{
	static const int dest[3] = { 0, 1, 2 };
	struct sigaction old[NFWD];
	sigset_t oldmask, wait;
	int fds[3], r;

	memset(res, 0, sizeof(*res));
	/* Trap before the hand-over: the command may start at once, and a signal
	 * it should get must not kill us instead (it stays blocked until ppoll). */
	client_trap(old, &oldmask, &wait);
	if ((r = client_dup_stdio(fds)) == 0) {
		r = msg_send_handover_follow(req->stream, dest, fds, 3);
		fdpass_close_all(fds, 3);
	}
	if (r == 0)
		r = client_wait_result(req->stream, &wait, res);
	client_untrap(old, &oldmask);
	fdpass_close_all(&req->stream, 1);
	req->stream = -1;
	return r;
}

void
client_exit_like(const struct client_result *res)
{
	struct rlimit none = { 0, 0 };
	struct sigaction sa;
	sigset_t set;

	if (res->exit_code >= 0)
		_exit(res->exit_code);
	/* Die of the same signal, so a shell reports 128+N; no core of our own. */
	setrlimit(RLIMIT_CORE, &none);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(res->signal, &sa, NULL);
	sigemptyset(&set);
	sigaddset(&set, res->signal);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	kill(getpid(), res->signal);
	_exit(128 + res->signal);	/* a signal whose default is to ignore */
}
