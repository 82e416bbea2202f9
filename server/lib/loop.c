/*
 * loop.c: the session's event-loop thread.
 *
 * Why epoll and one thread: requests are small and quick to serve; the
 * only slow part, the policy's answer, is asynchronous (it arrives through
 * the hub), and escalated commands are watched through pidfds.  So one
 * thread never waits on any single client, and the library needs no
 * signal handler (no SIGCHLD) in the embedding process.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "fdpass.h"
#include "handshake.h"
#include "server.h"

#define LOOP_EVENTS 64
#define LOOP_ACCEPT_BATCH 64	/* handshakes per wake-up, so streams get served too */

void
loop_log(const struct loop *l, enum shellesc_log_level lv, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (l->cfg->log == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	l->cfg->log(l->cfg->log_arg, lv, msg);
}

int
loop_watch(struct loop *l, int fd, struct watch *w, int op)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = w };

	return epoll_ctl(l->epfd, op, fd, &ev) == 0 ? 0 : -errno;
}

void
loop_bounds(struct loop *l)
{
	long room = (fdlimit_current() - LOOP_FD_RESERVE) / LOOP_CONN_FDS;
	size_t conns = room < LOOP_CONNS_MIN ? LOOP_CONNS_MIN :
	    room > LOOP_CONNS_MAX ? LOOP_CONNS_MAX : (size_t)room;

	l->max_conns = l->cfg->max_requests > 0 ? (size_t)l->cfg->max_requests : conns;
	l->max_per_peer = l->cfg->max_requests_per_process > 0 ?
	    (size_t)l->cfg->max_requests_per_process : LOOP_PEER_STREAMS;
	/* room in the session for other processes whatever one does */
	if (l->cfg->max_requests_per_process <= 0 && l->max_per_peer > l->max_conns / 4)
		l->max_per_peer = l->max_conns / 4 > 0 ? l->max_conns / 4 : 1;
	loop_log(l, SHELLESC_LOG_DEBUG, "fd limit %ld: up to %zu requests in flight, %zu per process",
	    fdlimit_current(), l->max_conns, l->max_per_peer);
}

/* Say why a request is refused in why (n bytes); each bound is logged
 * once a crowd, not per refusal. */
static void
loop_busy(struct loop *l, bool *warned, char *why, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void
loop_busy(struct loop *l, bool *warned, char *why, size_t n, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	if (!*warned)
		loop_log(l, SHELLESC_LOG_WARN, "request refused: %s", why);
	*warned = true;
}

size_t
loop_rx_room(const struct loop *l)
{
	size_t p = l->rx_pending;

	if (p < CONN_RX_BUDGET)
		return CONN_RX_BUDGET - p < SHELLESC_FRAME_MAX ? CONN_RX_BUDGET - p : SHELLESC_FRAME_MAX;
	if (p < CONN_RX_BUDGET + CONN_RX_RESERVE)
		return CONN_RX_BUDGET + CONN_RX_RESERVE - p < CONN_RX_SMALL ?
		    CONN_RX_BUDGET + CONN_RX_RESERVE - p : CONN_RX_SMALL;
	return 0;
}

struct inflight *
loop_room(struct loop *l, uid_t uid, pid_t pid, bool handshake, size_t bytes,
    char *why, size_t n)
{
	struct inflight *p = inflight_find(&l->inflight, uid, pid);

	if (bytes > loop_rx_room(l))
		loop_busy(l, &l->busy_warned, why, n, "server busy: %zu bytes of other requests "
		    "are held", l->rx_pending);
	else if (handshake && p && p->handshakes >= LOOP_PEER_HANDSHAKES)
		loop_busy(l, &p->warned, why, n, "server busy: process %ld has %zu requests "
		    "not yet sent", (long)pid, p->handshakes);
	else if (p && p->streams >= l->max_per_peer)
		loop_busy(l, &p->warned, why, n, "server busy: process %ld has %zu requests "
		    "in flight", (long)pid, p->streams);
	else if (l->nconns >= l->max_conns ||
	    (handshake && l->handshakes >= (l->max_conns + 1) / 2))
		loop_busy(l, &l->busy_warned, why, n, "server busy: %zu requests in flight "
		    "in the session", l->nconns);
	else if ((p = inflight_get(&l->inflight, uid, pid)) == NULL)
		loop_busy(l, &l->busy_warned, why, n, "server busy: out of memory");
	else {
		if (l->nconns < l->max_conns / 2)
			l->busy_warned = false;	/* a new crowd is worth a new message */
		return p;
	}
	return NULL;
}

void
loop_hold(struct loop *l, struct inflight *p)
{
	p->streams++;
	l->nconns++;
}

void
loop_release(struct loop *l, struct inflight *p)
{
	p->streams--;
	l->nconns--;
	inflight_put(&l->inflight, p);
}

/*
 * The client process of a new stream, if it may have one more (see
 * LOOP_PEER_STREAMS); else the stream is refused, saying why, and NULL
 * returned.
 */
static struct inflight *
loop_admit(struct loop *l, int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	struct inflight *p;
	char why[256];

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) != 0) {
		loop_log(l, SHELLESC_LOG_WARN, "handshake: SO_PEERCRED: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	if ((p = loop_room(l, cr.uid, cr.pid, true, 0, why, sizeof(why))) == NULL) {
		msg_send_error(fd, why);	/* never waits: a full stream just misses it */
		close(fd);
	}
	return p;
}

/* A received fd must be one end of an AF_UNIX stream socket. */
static void
loop_accept_one(struct loop *l, int fd, int r, int version)
{
	char msg[128];
	struct conn *c;
	struct inflight *p;

	if (r == SE_ERR_VERSION) {
		snprintf(msg, sizeof(msg), "protocol version mismatch: client speaks %d, server speaks %d",
		    version, SHELLESC_PROTO_VERSION);
		loop_log(l, SHELLESC_LOG_WARN, "%s", msg);
		msg_send_error(fd, msg);
		close(fd);
		return;
	}
	if (fdpass_is_unix(fd, SOCK_STREAM) != 0) {
		loop_log(l, SHELLESC_LOG_WARN, "handshake: the fd is not a stream socket");
		close(fd);
		return;
	}
	if ((p = loop_admit(l, fd)) == NULL)
		return;
	if ((c = conn_new(l, fd, p)) == NULL) {
		loop_log(l, SHELLESC_LOG_ERROR, "cannot serve a request: %s", strerror(errno));
		inflight_put(&l->inflight, p);
		close(fd);
		return;
	}
	conn_on_stream(c);	/* clients write the request before the hello */
}

static void
loop_accept(struct loop *l)
{
	int fd, version, r;

	for (int i = 0; i < LOOP_ACCEPT_BATCH; i++) {
		r = handshake_accept(l->sock, &fd, &version);
		if (r == SE_ERR_AGAIN)
			return;
		if (r == 0 || r == SE_ERR_VERSION)
			loop_accept_one(l, fd, r, version);
		else
			loop_log(l, SHELLESC_LOG_WARN, "bad handshake: %s",
			    r == SE_ERR_SYSTEM ? strerror(errno) : se_strerror(r));
	}
}

bool
loop_ask(struct loop *l, struct shellesc_request *req)
{
	static const char *const tag[] = { [REQUEST_STREAM] = "", [REQUEST_KERNEL] = " (kernel)" };

	req->hub = l->hub;
	req->id = ++l->next_id;
	pthread_mutex_lock(&l->hub->mu);
	l->hub->refs++;			/* the policy's reference */
	pthread_mutex_unlock(&l->hub->mu);
	loop_log(l, SHELLESC_LOG_DEBUG, "request %llu%s: %s", (unsigned long long)req->id,
	    tag[req->origin], req->program);
	hub_inline_begin(req);
	l->cfg->policy(l->cfg->policy_arg, req);
	hub_inline_end();
	return req->decided_inline;
}

void
loop_decided(struct loop *l, struct shellesc_request *req)
{
	switch (req->origin) {
	case REQUEST_STREAM:
		conn_on_decided(req->conn);
		break;
	case REQUEST_KERNEL:
		kernel_on_decided(l, req);
		break;
	}
}

/* Decisions from the hub; returns false when the loop must stop. */
static bool
loop_on_hub(struct loop *l)
{
	bool quit, kill_all;
	struct shellesc_request *q = hub_take(l->hub, &quit, &kill_all), *next;

	for (; q; q = next) {
		next = q->next;
		loop_decided(l, q);
	}
	if (kill_all)
		for (struct conn *c = l->conns; c; c = c->next)
			if (c->state == CONN_RUNNING)
				conn_kill(c);
	return !quit;
}

/* Fire due deadlines; return ms until the next one (-1: none). */
static int
loop_deadlines(struct loop *l)
{
	int64_t now = clock_now_ms(), next = -1;
	struct conn *c, *n;

	for (c = l->conns; c; c = n) {
		n = c->next;
		if (c->deadline == 0)
			continue;
		if (c->deadline <= now)
			conn_on_deadline(c);	/* may free c (kept till the batch ends), or re-arm it */
		if (!c->dead && c->deadline > now && (next < 0 || c->deadline - now < next))
			next = c->deadline - now;
	}
	return (int)next;
}

static bool
loop_dispatch(struct loop *l, struct watch *w)
{
	if ((w->kind == WATCH_STREAM || w->kind == WATCH_CHILD) &&
	    ((struct conn *)w->ptr)->dead)
		return true;
	switch (w->kind) {
	case WATCH_SOCK:
		loop_accept(l);
		break;
	case WATCH_HUB:
		return loop_on_hub(l);
	case WATCH_STREAM:
		conn_on_stream(w->ptr);
		break;
	case WATCH_CHILD:
		conn_on_child(w->ptr);
		break;
	case WATCH_KERNEL:
		kernel_on_ready(l);
		break;
	}
	return true;
}

/*
 * End every escalated command: SIGTERM to all groups, one grace period,
 * SIGKILL.  Runs on the loop thread, which forked them: PR_SET_PDEATHSIG
 * fires when that *thread* exits, so ending them after it would skip the
 * SIGTERM and its grace period.
 */
static void
loop_end_children(struct loop *l)
{
	int64_t until = clock_now_ms() + l->cfg->kill_grace_ms;

	for (struct conn *c = l->conns; c; c = c->next)
		if (c->pidfd >= 0) {
			kill(-c->pid, SIGTERM);
			spawn_signal(c->pid, c->pidfd, SIGCONT);
		}
	for (struct conn *c = l->conns; c; c = c->next) {
		int64_t left = until - clock_now_ms();

		if (c->pidfd >= 0) {
			spawn_end(c->pid, c->pidfd, left > 0 ? (int)left : 0);
			tree_end(&c->tree);
		}
	}
}

static void *
loop_main(void *arg)
{
	struct loop *l = arg;
	struct epoll_event ev[LOOP_EVENTS];
	bool running = true;

	while (running) {
		int n = epoll_wait(l->epfd, ev, LOOP_EVENTS, loop_deadlines(l));

		if (n < 0 && errno != EINTR) {
			loop_log(l, SHELLESC_LOG_ERROR, "epoll_wait: %s", strerror(errno));
			break;
		}
		/* The hub first: a decision may free a conn whose stream also fired. */
		for (int i = 0; i < n; i++)
			if (((struct watch *)ev[i].data.ptr)->kind == WATCH_HUB)
				running = loop_dispatch(l, ev[i].data.ptr) && running;
		for (int i = 0; i < n && running; i++) {
			struct watch *w = ev[i].data.ptr;

			if (w->kind == WATCH_KERNEL)
				l->kernel.events = ev[i].events;
			if (w->kind != WATCH_HUB)
				loop_dispatch(l, w);
		}
		conn_reap_dead(l);
	}
	loop_end_children(l);
	return NULL;
}

int
loop_start(struct loop *l)
{
	char how[PATH_MAX + 128];
	sigset_t all, old;
	int r;

	kernel_init(&l->kernel);
	/* at WARN, the level an operator's -v shows: how escalated trees end */
	loop_log(l, SHELLESC_LOG_WARN, "escalated commands: %s",
	    tree_mechanism(how, sizeof(how)));
	l->wsock = (struct watch){ WATCH_SOCK, l };
	l->whub = (struct watch){ WATCH_HUB, l };
	if ((l->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return -errno;
	if ((r = loop_watch(l, l->sock, &l->wsock, EPOLL_CTL_ADD)) != 0 ||
	    (r = loop_watch(l, l->hub->efd, &l->whub, EPOLL_CTL_ADD)) != 0) {
		close(l->epfd);
		return r;
	}
	/* The loop thread takes no signals: they belong to the embedder. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&l->thread, NULL, loop_main, l);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r != 0)
		close(l->epfd);
	return r;
}

void
loop_stop(struct loop *l)
{
	hub_poke(l->hub, true, false);
	pthread_join(l->thread, NULL);
	l->stopping = true;
	while (l->conns)
		conn_free(l->conns);
	conn_reap_dead(l);
	kernel_stop(l);
	hub_kill(l->hub);
	inflight_clear(&l->inflight);	/* requests the policy still holds counted */
	close(l->epfd);
}
