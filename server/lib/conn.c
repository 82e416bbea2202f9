/*
 * conn.c: one request stream, from the exec request to the result.
 *
 *   READ_EXEC --request--> DECIDING --run/deny--> (closed)
 *                              |
 *                          escalate
 *                              v
 *                       READ_HANDOVER --fds--> RUNNING --exit--> (closed)
 *
 * Every failure goes through conn_refuse() or conn_free(): fds closed,
 * escalated command ended, nothing left behind.  The client going away
 * while the policy decides leaves a conn with fd -1 until the answer comes.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "fdpass.h"
#include "server.h"

struct conn *
conn_new(struct loop *l, int fd, struct peer *p)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->loop = l;
	c->fd = fd;
	c->peer = p;
	c->handshaking = true;
	p->streams++;
	p->handshakes++;
	l->nconns++;
	l->handshakes++;
	c->pidfd = -1;
	c->state = CONN_READ_EXEC;
	c->wfd = (struct watch){ WATCH_STREAM, c };
	c->wpid = (struct watch){ WATCH_CHILD, c };
	c->deadline = loop_now_ms() + l->cfg->request_timeout_ms;
	frame_rx_init(&c->rx, NULL, 0, 0);
	if ((c->next = l->conns) != NULL)
		c->next->prev = c;
	l->conns = c;
	return c;
}

void
conn_handshake_done(struct conn *c)
{
	if (!c->handshaking)
		return;
	c->handshaking = false;
	c->peer->handshakes--;
	c->loop->handshakes--;
}

/* c no longer counts against its process's and the session's bounds. */
static void
conn_uncount(struct conn *c)
{
	conn_handshake_done(c);
	c->peer->streams--;
	c->loop->nconns--;
	peer_put(&c->loop->peers, c->peer);
	c->peer = NULL;
}

/* Keep loop.rx_pending in step with the payload buffer c holds. */
static void
conn_rx_account(struct conn *c)
{
	size_t now = c->rx.buf ? c->rx.len : 0;

	c->loop->rx_pending = c->loop->rx_pending - c->rx_charged + now;
	c->rx_charged = now;
}

/* The request is with the policy (or no longer): count its size, or stop. */
static void
conn_hold(struct conn *c, size_t bytes)
{
	c->loop->rx_pending = c->loop->rx_pending - c->held + bytes;
	c->held = bytes;
}

static void
conn_rx_reset(struct conn *c)
{
	frame_rx_reset(&c->rx);
	conn_rx_account(c);
}

/* The largest frame c may start now (see CONN_RX_BUDGET). */
static size_t
conn_rx_room(const struct loop *l)
{
	size_t p = l->rx_pending;

	if (p < CONN_RX_BUDGET)
		return CONN_RX_BUDGET - p < SHELLESC_FRAME_MAX ? CONN_RX_BUDGET - p : SHELLESC_FRAME_MAX;
	if (p < CONN_RX_BUDGET + CONN_RX_RESERVE)
		return CONN_RX_BUDGET + CONN_RX_RESERVE - p < CONN_RX_SMALL ?
		    CONN_RX_BUDGET + CONN_RX_RESERVE - p : CONN_RX_SMALL;
	return 0;
}

/* The client is gone or done with: stop watching and close its stream. */
static void
conn_hangup(struct conn *c)
{
	if (c->fd < 0)
		return;
	if (c->watched)
		epoll_ctl(c->loop->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	c->watched = false;
	close(c->fd);
	c->fd = -1;
	conn_rx_reset(c);
}

/*
 * Unlink c and close everything it holds.  The memory itself is kept until
 * the loop finishes the current batch of events (conn_reap_dead), since a
 * later event of the same batch may still point at it.
 */
void
conn_free(struct conn *c)
{
	struct loop *l = c->loop;

	if (c->dead)
		return;
	conn_hangup(c);
	if (c->pidfd >= 0 && !l->stopping) {
		/* Still running: end it; conn_on_child frees c once it is reaped. */
		conn_kill(c);
		return;
	}
	if (c->policy_holds && !l->stopping) {
		/* The answer will come back to this conn: free it then. */
		atomic_store(&c->req->cancelled, 1);
		return;
	}
	if (c->pidfd >= 0) {
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, c->pidfd, NULL);
		close(c->pidfd);
		c->pidfd = -1;
	}
	if (c->policy_holds)		/* the policy owns it */
		atomic_store(&c->req->cancelled, 1);
	else
		request_free(c->req);
	c->req = NULL;
	conn_uncount(c);
	if (c->prev)
		c->prev->next = c->next;
	else
		l->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	c->dead = true;
	c->next = l->dead;
	l->dead = c;
}

void
conn_reap_dead(struct loop *l)
{
	struct conn *c, *next;

	for (c = l->dead; c; c = next) {
		next = c->next;
		free(c);
	}
	l->dead = NULL;
}

void
conn_refuse(struct conn *c, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	loop_log(c->loop, SHELLESC_LOG_WARN, "request refused: %s", msg);
	if (c->fd >= 0)
		msg_send_error(c->fd, msg);
	conn_free(c);
}

/* A frame arrived in READ_EXEC: validate it and ask the policy. */
static int
conn_take_exec(struct conn *c, const struct msg *m)
{
	struct loop *l = c->loop;
	int r;

	conn_handshake_done(c);
	if (m->type != SHELLESC_MSG_EXEC)
		return conn_refuse(c, "expected an exec request, got message type %d", (int)m->type), -1;
	if (m->cwd.p[0] != '/')
		return conn_refuse(c, "cwd is not absolute"), -1;
	if (m->argv.n == 0)
		return conn_refuse(c, "argv is empty"), -1;
	if ((r = request_new(m, c->fd, &c->req)) != 0)
		return conn_refuse(c, "cannot take the request: %s", strerror(-r)), -1;
	c->req->conn = c;
	c->req->hub = l->hub;
	c->req->id = ++l->next_id;
	c->state = CONN_DECIDING;
	c->deadline = 0;
	c->policy_holds = true;
	conn_hold(c, c->rx.len);	/* its copy is about the size of the frame */
	pthread_mutex_lock(&l->hub->mu);
	l->hub->refs++;			/* the policy's reference */
	pthread_mutex_unlock(&l->hub->mu);
	loop_log(l, SHELLESC_LOG_DEBUG, "request %llu: %s", (unsigned long long)c->req->id, c->req->program);
	hub_inline_begin(c->req);
	l->cfg->policy(l->cfg->policy_arg, c->req);
	hub_inline_end();	/* an inline answer is taken up by conn_on_stream */
	return 0;
}

/* The escalated command could not start: tell the client why, as a shell would. */
static void
conn_start_failed(struct conn *c, int err, const char *what)
{
	char msg[SHELLESC_REASON_MAX];

	snprintf(msg, sizeof(msg), "%s: %s", what, strerror(err));
	loop_log(c->loop, SHELLESC_LOG_WARN, "escalated command did not start: %s", msg);
	if (c->fd >= 0)
		msg_send_result(c->fd, err == ENOENT || err == ENOTDIR ? 127 : 126, 0, false, msg);
	conn_free(c);
}

/* Prepare and spawn; the received fds are closed whatever happens. */
static int
conn_spawn(struct conn *c, const struct msg *m, struct shellesc_prepared *p)
{
	const struct shellesc_config *cfg = c->loop->cfg;
	struct spawn_fd fds[SHELLESC_MAX_FDS];
	struct spawn_spec sp = { .fds = fds, .nfds = m->ndest, .new_pgrp = true, .pdeathsig = true };
	int r = 0;

	for (size_t i = 0; i < m->ndest; i++)
		fds[i] = (struct spawn_fd){ c->rx.fds[i], m->dest[i] };
	if (cfg->prepare && (r = cfg->prepare(cfg->prepare_arg, c->req, &c->req->d, p)) != 0)
		return r < 0 ? r : -EPERM;
	sp.path = p->path;
	sp.argv = p->argv;
	sp.env = p->env;
	sp.cwd = p->cwd;
	r = spawn_run(&sp, &c->pid, &c->pidfd);
	if (cfg->prepare && cfg->release)
		cfg->release(cfg->prepare_arg, p);
	return r;
}

static int
conn_start_escalated(struct conn *c, const struct msg *m)
{
	struct shellesc_request *req = c->req;
	struct shellesc_prepared p = { req->program, req->ex.argv, req->ex.cwd, NULL };
	char **env;
	int r;

	if (m->type != SHELLESC_MSG_HANDOVER)
		return conn_refuse(c, "expected the hand-over, got message type %d", (int)m->type), -1;
	if (c->rx.nfds != m->ndest)
		return conn_refuse(c, "hand-over names %zu fds but carries %zu", m->ndest, c->rx.nfds), -1;
	if ((env = escenv_build(c->loop->cfg, c->loop->s->own_env, req->ex.env)) == NULL)
		return conn_refuse(c, "out of memory"), -1;
	p.env = env;
	r = conn_spawn(c, m, &p);
	free(env);
	conn_rx_reset(c);		/* our copies of the caller's fds: pipes must see EOF */
	if (r != 0)
		return conn_start_failed(c, -r, req->program), -1;
	c->state = CONN_RUNNING;
	c->started = loop_now_ms();
	c->deadline = 0;
	if (loop_watch(c->loop, c->pidfd, &c->wpid, EPOLL_CTL_ADD) != 0) {
		spawn_end(c->pid, c->pidfd, 0);
		close(c->pidfd);
		c->pidfd = -1;
		return conn_refuse(c, "cannot watch the escalated command: %s", strerror(errno)), -1;
	}
	return 0;
}

/* One whole frame, by state.  Returns -1 when c was freed. */
static int
conn_on_frame(struct conn *c)
{
	struct msg m;
	int r = msg_decode(c->rx.buf, c->rx.len, &m);

	if (r != 0)
		return conn_refuse(c, "malformed message: %s%s%s", se_strerror(r),
		    m.bad_field ? " in " : "", m.bad_field ? m.bad_field : ""), -1;
	switch (c->state) {
	case CONN_READ_EXEC:
		return conn_take_exec(c, &m);
	case CONN_READ_HANDOVER:
		return conn_start_escalated(c, &m);
	case CONN_RUNNING:
		if (m.type != SHELLESC_MSG_SIGNAL)
			return conn_refuse(c, "expected a signal, got message type %d", (int)m.type), -1;
		if (!c->killing)
			kill(-c->pid, (int)m.signal);
		return 0;
	case CONN_DECIDING:
		break;
	}
	return conn_refuse(c, "message sent before the decision"), -1;
}

/* The client went away: nothing may keep running that nobody waits for. */
static void
conn_client_gone(struct conn *c, int r)
{
	if (r != SE_ERR_EOF_HEADER)
		loop_log(c->loop, SHELLESC_LOG_WARN, "request stream: %s", se_strerror(r));
	conn_hangup(c);
	if (c->state == CONN_RUNNING)
		conn_kill(c);
	else if (c->state == CONN_DECIDING)
		atomic_store(&c->req->cancelled, 1);
	else
		conn_free(c);
}

/*
 * Wait for more from the client: a stream joins the epoll set only when it
 * first runs dry, so a request that arrived whole with its hello and was
 * answered at once never costs an epoll_ctl.  Returns -1 when c was freed.
 */
static int
conn_wait(struct conn *c)
{
	if (c->watched)
		return 0;
	if (loop_watch(c->loop, c->fd, &c->wfd, EPOLL_CTL_ADD) != 0)
		return conn_refuse(c, "cannot watch the request stream: %s", strerror(errno)), -1;
	c->watched = true;
	return 0;
}

/* While the policy decides only EOF is expected; anything else is a violation. */
static void
conn_on_deciding(struct conn *c)
{
	char b;
	ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n == 0)
		return conn_client_gone(c, SE_ERR_EOF_HEADER);
	if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
		conn_wait(c);
		return;
	}
	conn_refuse(c, "message sent before the decision");
}

/*
 * Send the decision; for escalate, go on to read the hand-over.  Returns -1
 * when c is done with (freed).
 */
static int
conn_apply_decision(struct conn *c)
{
	struct shellesc_request *req = c->req;
	int action = req->d.action;

	c->policy_holds = false;
	conn_hold(c, 0);
	if (c->fd < 0)
		return conn_free(c), -1;
	if (action < SHELLESC_RUN || action > SHELLESC_DENY)
		return conn_refuse(c, "the policy gave an invalid decision (%d)", action), -1;
	loop_log(c->loop, SHELLESC_LOG_DEBUG, "request %llu: decided %d",
	    (unsigned long long)req->id, action);
	if (msg_send_decision(c->fd, action, req->d.reason) != 0 || action != SHELLESC_ESCALATE)
		return conn_free(c), -1;
	c->state = CONN_READ_HANDOVER;
	c->rx.maxfds = SHELLESC_MAX_FDS;
	c->deadline = loop_now_ms() + c->loop->cfg->request_timeout_ms;
	return 0;
}

void
conn_on_stream(struct conn *c)
{
	int r;

	for (;;) {
		if (c->state == CONN_DECIDING && !c->req->decided_inline)
			return conn_on_deciding(c);
		if (c->state == CONN_DECIDING) {
			if (conn_apply_decision(c) != 0)
				return;
			continue;	/* the hand-over may already be here */
		}
		if (c->rx.hdr_got < SHELLESC_FRAME_HDR)	/* a new frame may start */
			c->rx.limit = conn_rx_room(c->loop);
		r = frame_rx_feed(&c->rx, c->fd);
		conn_rx_account(c);
		if (r == SE_ERR_AGAIN) {
			conn_wait(c);
			return;
		}
		if (r == SE_ERR_TOO_LARGE && c->rx.len <= SHELLESC_FRAME_MAX)
			return conn_refuse(c, "server busy: %zu bytes of other requests are arriving",
			    c->loop->rx_pending);
		if (r == SE_ERR_TOO_LARGE || r == SE_ERR_TOO_MANY_FDS || r == SE_ERR_CTRUNC)
			return conn_refuse(c, "%s", se_strerror(r));
		if (r != 0)
			return conn_client_gone(c, r);
		if (conn_on_frame(c) != 0 || c->fd < 0)
			return;
		conn_rx_reset(c);
		c->rx.maxfds = c->state == CONN_READ_HANDOVER ? SHELLESC_MAX_FDS : 0;
	}
}

/* An answer from the hub (given outside the policy callback). */
void
conn_on_decided(struct conn *c)
{
	if (conn_apply_decision(c) == 0)
		conn_on_stream(c);
}

void
conn_kill(struct conn *c)
{
	if (c->killing || c->pidfd < 0)
		return;
	kill(-c->pid, SIGTERM);
	kill(-c->pid, SIGCONT);
	c->killing = true;
	c->deadline = loop_now_ms() + c->loop->cfg->kill_grace_ms;
}

void
conn_on_deadline(struct conn *c)
{
	c->deadline = 0;
	if (c->killing)
		kill(-c->pid, SIGKILL);
	else if (c->state == CONN_READ_EXEC || c->state == CONN_READ_HANDOVER)
		conn_refuse(c, "timed out waiting for the %s",
		    c->state == CONN_READ_EXEC ? "request" : "hand-over");
}

void
conn_on_child(struct conn *c)
{
	const struct shellesc_config *cfg = c->loop->cfg;
	bool core;
	int sig, code = spawn_reap(c->pidfd, &sig, &core);
	double secs = (double)(loop_now_ms() - c->started) / 1000.0;

	epoll_ctl(c->loop->epfd, EPOLL_CTL_DEL, c->pidfd, NULL);
	close(c->pidfd);
	c->pidfd = -1;
	if (c->killing)
		kill(-c->pid, SIGKILL);	/* what the leader left behind */
	if (c->fd >= 0)
		msg_send_result(c->fd, code, sig, core, NULL);
	if (cfg->ended)
		cfg->ended(cfg->ended_arg, c->req, code, sig, secs);
	conn_free(c);
}
