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

#include "clock.h"
#include "err.h"
#include "fdpass.h"
#include "server.h"

/*
 * The handlers of a stream return true while c lives, false once it was
 * given up (conn_refuse, conn_free): its memory stays until the batch of
 * events ends, but nothing of it may be used.
 */
static bool conn_refuse(struct conn *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static bool conn_wait(struct conn *c);

struct conn *
conn_new(struct loop *l, int fd, struct inflight *p)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (c == NULL)
		return NULL;
	c->loop = l;
	c->fd = fd;
	c->inflight = p;
	c->handshaking = true;
	loop_hold(l, p);
	p->handshakes++;
	l->handshakes++;
	c->pidfd = -1;
	jobs_init(&c->jobs);
	tree_init(&c->tree);
	c->state = CONN_READ_EXEC;
	c->wfd = (struct watch){ WATCH_STREAM, c };
	c->wpid = (struct watch){ WATCH_CHILD, c };
	c->deadline = clock_now_ms() + l->cfg->request_timeout_ms;
	frame_rx_init(&c->rx, NULL, 0, 0);
	if ((c->next = l->conns) != NULL)
		c->next->prev = c;
	l->conns = c;
	return c;
}

int
conn_adopt(struct loop *l, int fd, struct shellesc_request *req)
{
	struct inflight *p = req->inflight;
	struct conn *c = conn_new(l, fd, p);

	req->inflight = NULL;
	loop_release(l, p);		/* counted now as the stream, if at all */
	if (c == NULL) {
		request_free(req);
		close(fd);
		return -ENOMEM;
	}
	conn_handshake_done(c);
	c->req = req;
	req->conn = c;
	c->state = CONN_READ_HANDOVER;
	c->rx.maxfds = SHELLESC_MAX_FDS;
	return conn_wait(c) ? 0 : -EIO;
}

void
conn_handshake_done(struct conn *c)
{
	if (!c->handshaking)
		return;
	c->handshaking = false;
	c->inflight->handshakes--;
	c->loop->handshakes--;
}

/* c no longer counts against its process's and the session's bounds. */
static void
conn_uncount(struct conn *c)
{
	conn_handshake_done(c);
	loop_release(c->loop, c->inflight);
	c->inflight = NULL;
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
	tree_end(&c->tree);
	jobs_end(&c->jobs, c->pid);
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

/* Refuse the request with a message to the client, then drop it: false. */
static bool
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
	return false;
}

/* A frame arrived in READ_EXEC: validate it and ask the policy. */
static bool
conn_take_exec(struct conn *c, const struct msg *m)
{
	struct loop *l = c->loop;
	int r;

	conn_handshake_done(c);
	if (m->type != SHELLESC_MSG_EXEC)
		return conn_refuse(c, "expected an exec request, got message type %d", (int)m->type);
	if (m->cwd.p[0] != '/')
		return conn_refuse(c, "cwd is not absolute");
	if (m->argv.n == 0)
		return conn_refuse(c, "argv is empty");
	if ((r = request_new(m, c->fd, (const char *const *)l->s->roots, &c->req)) != 0)
		return conn_refuse(c, "cannot take the request: %s", strerror(-r));
	c->req->conn = c;
	c->state = CONN_DECIDING;
	c->deadline = 0;
	c->policy_holds = true;
	conn_hold(c, c->rx.len);	/* its copy is about the size of the frame */
	loop_ask(l, c->req);	/* an inline answer is taken up by conn_on_stream */
	return true;
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

/*
 * How the opened target runs: an ELF file from its fd.  A script is read
 * by its interpreter, which opens it by name: by its real path when the
 * session's side cannot have changed the file there (so $0 and the like
 * look as usual), else as /dev/fd/N, the very file decided on.
 */
static int
conn_exec_target(const struct target *t, struct spawn_spec *sp)
{
	if (t->pub.error != 0)
		return -t->pub.error;
	if (t->elf || t->pub.path == NULL || (t->pub.facts & SHELLESC_TARGET_WRITABLE)) {
		sp->by_fd = true;
		sp->fd = t->fd;
		sp->fd_script = !t->elf;
	}
	return 0;
}

/* Prepare and spawn; the received fds are closed whatever happens. */
static int
conn_spawn(struct conn *c, const struct msg *m, struct shellesc_prepared *p)
{
	const struct shellesc_config *cfg = c->loop->cfg;
	struct spawn_fd fds[SHELLESC_MAX_FDS];
	struct spawn_spec sp = { .fds = fds, .nfds = m->ndest, .new_pgrp = true, .pdeathsig = true };
	const char *target = p->path;
	int r = 0;

	for (size_t i = 0; i < m->ndest; i++)
		fds[i] = (struct spawn_fd){ c->rx.fds[i], m->dest[i] };
	jobs_probe(&c->jobs, c->fd, fds, m->ndest, m->follow_stops);
	sp.foreground = jobs_foreground(&c->jobs);
	sp.tty = c->jobs.tty;
	if (cfg->prepare && (r = cfg->prepare(cfg->prepare_arg, c->req, &c->req->d, p)) != 0)
		return r < 0 ? r : -EPERM;
	sp.path = p->path;
	sp.argv = p->argv;
	sp.env = p->env;
	/* a profile: entered without the exec notification (take_listener
	 * NULL): the session's one listener is its shell's */
	sp.sandbox = p->sandbox;
	/* the request's own cwd is the caller's directory, by our fd of it */
	sp.cwd_by_fd = p->cwd == shellesc_request_cwd(c->req);
	sp.cwd = sp.cwd_by_fd ? NULL : p->cwd;
	sp.cwd_fd = c->req->cwd_fd;
	sp.tree = &c->tree;
	if (sp.cwd_by_fd && sp.cwd_fd < 0)
		r = -ENOENT;		/* never a directory named by the caller */
	else if ((p->path != target || (r = conn_exec_target(&c->req->target, &sp)) == 0) &&
	    (r = tree_start(&c->tree)) == 0 &&
	    (r = spawn_run(&sp, &c->pid, &c->pidfd)) != 0)
		tree_end(&c->tree);
	if (cfg->prepare && cfg->release)
		cfg->release(cfg->prepare_arg, p);
	return r;
}

static bool
conn_start_escalated(struct conn *c, const struct msg *m)
{
	struct shellesc_request *req = c->req;
	const struct shellesc_target *t = &req->target.pub;
	struct shellesc_prepared p = { t->path ? t->path : req->program, t->argv,
	    shellesc_request_cwd(req), NULL, NULL };
	char **env;
	int r;

	if (m->type != SHELLESC_MSG_HANDOVER)
		return conn_refuse(c, "expected the hand-over, got message type %d", (int)m->type);
	if (c->rx.nfds != m->ndest)
		return conn_refuse(c, "hand-over names %zu fds but carries %zu", m->ndest, c->rx.nfds);
	if ((env = escenv_build(c->loop->cfg, c->loop->s->own_env, req->ex.env)) == NULL)
		return conn_refuse(c, "out of memory");
	p.env = env;
	if (req->keep_argv0 && t->loader == NULL)
		p.argv = req->ex.argv;	/* a rule listed the caller's argv[0] */
	r = conn_spawn(c, m, &p);
	free(env);
	conn_rx_reset(c);		/* our copies of the caller's fds: pipes must see EOF */
	if (r != 0) {
		conn_start_failed(c, -r, req->program);
		return false;
	}
	c->state = CONN_RUNNING;
	c->started = clock_now_ms();
	/* on our terminal: checked for stops (jobs.c) */
	c->deadline = c->jobs.tty >= 0 ? c->started + JOBS_POLL_MS : 0;
	if ((r = loop_watch(c->loop, c->pidfd, &c->wpid, EPOLL_CTL_ADD)) != 0) {
		spawn_end(c->pid, c->pidfd, 0);
		close(c->pidfd);
		c->pidfd = -1;
		return conn_refuse(c, "cannot watch the escalated command: %s", strerror(-r));
	}
	return true;
}

/* One whole frame, by state. */
static bool
conn_on_frame(struct conn *c)
{
	struct msg m;
	int r = msg_decode(c->rx.buf, c->rx.len, &m);

	if (r != 0)
		return conn_refuse(c, "malformed message: %s%s%s", se_strerror(r),
		    m.bad_field ? " in " : "", m.bad_field ? m.bad_field : "");
	switch (c->state) {
	case CONN_READ_EXEC:
		return conn_take_exec(c, &m);
	case CONN_READ_HANDOVER:
		return conn_start_escalated(c, &m);
	case CONN_RUNNING:
		if (m.type != SHELLESC_MSG_SIGNAL)
			return conn_refuse(c, "expected a signal, got message type %d", (int)m.type);
		if (c->killing)
			return true;
		if (m.signal == SIGCONT)	/* the caller's shell may have run fg */
			jobs_continued(&c->jobs, c->pid);
		spawn_signal(c->pid, c->pidfd, (int)m.signal);
		return true;
	case CONN_DECIDING:
		break;
	}
	return conn_refuse(c, "message sent before the decision");
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
 * answered at once never costs an epoll_ctl.
 */
static bool
conn_wait(struct conn *c)
{
	int r;

	if (c->watched)
		return true;
	if ((r = loop_watch(c->loop, c->fd, &c->wfd, EPOLL_CTL_ADD)) != 0)
		return conn_refuse(c, "cannot watch the request stream: %s", strerror(-r));
	c->watched = true;
	return true;
}

/* While the policy decides only EOF is expected; anything else is a violation. */
static void
conn_on_deciding(struct conn *c)
{
	char b;
	ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

	if (n == 0)
		conn_client_gone(c, SE_ERR_EOF_HEADER);
	else if (n < 0 && (errno == EAGAIN || errno == EINTR))
		conn_wait(c);
	else
		conn_refuse(c, "message sent before the decision");
}

/* The policy's action goes on the wire as it is. */
_Static_assert((int)SHELLESC_RUN == (int)SHELLESC_ACT_RUN &&
    (int)SHELLESC_ESCALATE == (int)SHELLESC_ACT_ESCALATE &&
    (int)SHELLESC_DENY == (int)SHELLESC_ACT_DENY,
    "enum shellesc_action (shellesc.h) must equal the wire's action values (proto.h)");

/* Send the decision; for escalate, go on to read the hand-over. */
static bool
conn_apply_decision(struct conn *c)
{
	struct shellesc_request *req = c->req;
	int action = req->d.action;

	c->policy_holds = false;
	conn_hold(c, 0);
	if (c->fd < 0) {
		conn_free(c);
		return false;
	}
	if (action < SHELLESC_RUN || action > SHELLESC_DENY)
		return conn_refuse(c, "the policy gave an invalid decision (%d)", action);
	loop_log(c->loop, SHELLESC_LOG_DEBUG, "request %llu: decided %d",
	    (unsigned long long)req->id, action);
	if (action == SHELLESC_RUN)
		kernel_ticket_issue(c->loop, req);	/* its exec continues unasked */
	if (msg_send_decision(c->fd, action, req->d.reason) != 0 || action != SHELLESC_ESCALATE) {
		conn_free(c);
		return false;
	}
	c->state = CONN_READ_HANDOVER;
	c->rx.maxfds = SHELLESC_MAX_FDS;
	c->deadline = clock_now_ms() + c->loop->cfg->request_timeout_ms;
	return true;
}

/*
 * The stream gave no whole frame: wait for more, refuse what cannot be
 * taken, or let the client go.
 */
static void
conn_on_partial(struct conn *c, int r)
{
	if (r == SE_ERR_AGAIN)
		conn_wait(c);
	else if (r == SE_ERR_TOO_LARGE && c->rx.len <= SHELLESC_FRAME_MAX)
		conn_refuse(c, "server busy: %zu bytes of other requests are arriving",
		    c->loop->rx_pending);
	else if (r == SE_ERR_TOO_LARGE || r == SE_ERR_TOO_MANY_FDS || r == SE_ERR_CTRUNC)
		conn_refuse(c, "%s", se_strerror(r));
	else
		conn_client_gone(c, r);
}

void
conn_on_stream(struct conn *c)
{
	int r;

	for (;;) {
		if (c->state == CONN_DECIDING && !c->req->decided_inline) {
			conn_on_deciding(c);
			return;
		}
		if (c->state == CONN_DECIDING) {
			if (!conn_apply_decision(c))
				return;
			continue;	/* the hand-over may already be here */
		}
		if (c->rx.hdr_got < SHELLESC_FRAME_HDR)	/* a new frame may start */
			c->rx.limit = loop_rx_room(c->loop);
		r = frame_rx_feed(&c->rx, c->fd);
		conn_rx_account(c);
		if (r != 0) {
			conn_on_partial(c, r);
			return;
		}
		if (!conn_on_frame(c) || c->fd < 0)
			return;
		conn_rx_reset(c);
		c->rx.maxfds = c->state == CONN_READ_HANDOVER ? SHELLESC_MAX_FDS : 0;
	}
}

/* An answer from the hub (given outside the policy callback). */
void
conn_on_decided(struct conn *c)
{
	if (conn_apply_decision(c))
		conn_on_stream(c);
}

void
conn_kill(struct conn *c)
{
	if (c->killing || c->pidfd < 0)
		return;
	kill(-c->pid, SIGTERM);
	spawn_signal(c->pid, c->pidfd, SIGCONT);
	c->killing = true;
	c->deadline = clock_now_ms() + c->loop->cfg->kill_grace_ms;
}

/* A command on our terminal stopped: the caller stops too, if it can. */
static void
conn_check_stop(struct conn *c)
{
	int sig = jobs_stopped(&c->jobs, c->pid, c->pidfd);

	c->deadline = clock_now_ms() + JOBS_POLL_MS;
	if (sig == 0 || c->fd < 0 || !c->jobs.follow)
		return;
	loop_log(c->loop, SHELLESC_LOG_DEBUG, "request %llu: stopped by signal %d",
	    (unsigned long long)c->req->id, sig);
	if (msg_send_stopped(c->fd, sig) != 0)
		conn_kill(c);		/* as for any reply the client cannot take */
}

void
conn_on_deadline(struct conn *c)
{
	c->deadline = 0;
	if (c->killing) {
		kill(-c->pid, SIGKILL);
		tree_kill(&c->tree);	/* what left the group (a keeper's sweeps) */
	} else if (c->state == CONN_READ_EXEC || c->state == CONN_READ_HANDOVER)
		conn_refuse(c, "timed out waiting for the %s",
		    c->state == CONN_READ_EXEC ? "request" : "hand-over");
	else if (c->state == CONN_RUNNING)
		conn_check_stop(c);
}

void
conn_on_child(struct conn *c)
{
	const struct shellesc_config *cfg = c->loop->cfg;
	bool core;
	int sig, code = spawn_reap(c->pidfd, &sig, &core);
	double secs = (double)(clock_now_ms() - c->started) / 1000.0;

	epoll_ctl(c->loop->epfd, EPOLL_CTL_DEL, c->pidfd, NULL);
	close(c->pidfd);
	c->pidfd = -1;
	if (c->killing)
		kill(-c->pid, SIGKILL);	/* what the leader left behind */
	tree_end(&c->tree);		/* and its whole tree, whatever its group */
	jobs_end(&c->jobs, c->pid);
	if (c->fd >= 0)
		msg_send_result(c->fd, code, sig, core, NULL);
	if (cfg->ended)
		cfg->ended(cfg->ended_arg, c->req, code, sig, secs);
	conn_free(c);
}
