/*
 * exec.c: shellesc_session_exec(), one command string run in a session.
 *
 * The shell runs in its own process group with /dev/null as stdin and
 * pipes for stdout and stderr, or one pipe for both (one_pipe): two pipes
 * read as they come may swap writes made close together, one keeps the
 * order they were made in.  The session's client socket is the one fd
 * it inherits on purpose, and the parent's copy is closed right after the
 * spawn.  The timeout is real: on expiry the shell's process group and
 * every escalated command of the session are ended.  A cancel
 * (shellesc_session_cancel, through the session's eventfd) ends them the
 * same way.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "server.h"

/*
 * One stream's capture.  With a bound (max > 0) it keeps its first max/2
 * bytes in p and its last max - max/2 in the ring, so memory stays bounded
 * whatever the command writes; total counts every byte.
 */
struct exec_buf {
	char *p;
	size_t len, cap;
	size_t max, total;
	char *ring;
	size_t rpos, rlen;	/* next write in the ring; bytes it holds */
};

static int
exec_buf_append(struct exec_buf *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *q;

		while (cap < b->len + n + 1)
			cap *= 2;
		if ((q = realloc(b->p, cap)) == NULL)
			return -ENOMEM;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

/* The tail: the ring keeps the last max - max/2 bytes. */
static int
exec_ring_put(struct exec_buf *b, const char *p, size_t n)
{
	size_t size = b->max - b->max / 2, k;

	if (b->ring == NULL && (b->ring = malloc(size)) == NULL)
		return -ENOMEM;
	if (n > size) {
		p += n - size;
		n = size;
	}
	k = size - b->rpos < n ? size - b->rpos : n;
	memcpy(b->ring + b->rpos, p, k);
	memcpy(b->ring, p + k, n - k);
	b->rpos = (b->rpos + n) % size;
	b->rlen = b->rlen + n > size ? size : b->rlen + n;
	return 0;
}

static int
exec_buf_add(struct exec_buf *b, const char *p, size_t n)
{
	size_t head;

	b->total += n;
	if (b->max == 0)
		return exec_buf_append(b, p, n);
	head = b->len < b->max / 2 ? b->max / 2 - b->len : 0;
	head = head < n ? head : n;
	if (head > 0 && exec_buf_append(b, p, head) != 0)
		return -ENOMEM;
	return n > head ? exec_ring_put(b, p + head, n - head) : 0;
}

/* Head then tail in p (NUL-terminated); the bytes left out in between. */
static size_t
exec_buf_finish(struct exec_buf *b)
{
	size_t size = b->max - b->max / 2, from = b->ring ? (b->rpos + size - b->rlen) % size : 0;
	size_t k = size - from < b->rlen ? size - from : b->rlen;

	if ((b->ring && (exec_buf_append(b, b->ring + from, k) != 0 ||
	    exec_buf_append(b, b->ring, b->rlen - k) != 0)) ||
	    (b->p == NULL && exec_buf_append(b, "", 0) != 0)) {
		free(b->p);	/* out of memory: nothing rather than a wrong part */
		b->p = NULL;
		b->len = 0;
	}
	free(b->ring);
	b->ring = NULL;
	return b->total - b->len;
}

struct exec_run {
	struct shellesc_session *s;
	int out[2], err[2], devnull;
	pid_t pid;
	int pidfd;
	struct exec_buf bout, berr, both;
	int64_t deadline;	/* 0: none */
	int64_t kill_at;	/* SIGKILL due; 0: none */
	bool stopping;		/* timed out or cancelled: being ended */
	bool exited;
	bool one_pipe;		/* out is stdout and stderr both; no err */
	int code, sig;
};

/* The shell's listener (its sandbox's kernel layer) to the session; or
 * why there is none, said as run says it (cli-kernel.c). */
static int
exec_take_listener(void *arg, int listener, int err, pid_t pid)
{
	struct shellesc_session *s = arg;

	if (listener >= 0)
		return shellesc_session_kernel(s, listener, pid);
	loop_log(&s->loop, SHELLESC_LOG_WARN, "the kernel layer is missing (%s): execs are "
	    "caught by the preload and the wrapper only", err == EBUSY ? "this session runs "
	    "inside another with the kernel layer" : strerror(err));
	return 0;
}

static int
exec_spawn(struct exec_run *x, const struct shellesc_exec_params *pa)
{
	const char *shell = pa->shell ? pa->shell : "/bin/bash";
	char *argv[] = { (char *)shell, pa->login ? "-lc" : "-c", (char *)pa->command, NULL };
	int client = shellesc_session_client_fd(x->s);
	struct spawn_fd fds[] = {
		{ x->devnull, 0 }, { x->out[1], 1 }, { x->err[1] >= 0 ? x->err[1] : x->out[1], 2 },
		{ client, client },
	};
	struct spawn_spec sp = { .path = shell, .argv = argv, .cwd = pa->workdir,
	    .fds = fds, .nfds = client >= 0 ? 4 : 3, .new_pgrp = true,
	    .sandbox = pa->sandbox, .take_listener = exec_take_listener, .take_arg = x->s };
	char **env = shellesc_env_merge(x->s, pa->env);
	int r;

	/* a Landlock sandbox's socket gate is the session's to serve */
	if (pa->sandbox != NULL && (r = shellesc_session_sandbox(x->s, pa->sandbox)) != 0) {
		shellesc_env_free(env);
		return r;
	}
	if (env == NULL)
		return -ENOMEM;
	sp.env = env;
	r = spawn_run(&sp, &x->pid, &x->pidfd);
	shellesc_env_free(env);
	shellesc_session_close_client(x->s);	/* after the spawn, as the reference does */
	close(x->out[1]);
	if (x->err[1] >= 0)
		close(x->err[1]);
	x->out[1] = x->err[1] = -1;
	return r;
}

/* Read what a pipe has into own (NULL: the one pipe, output only); on EOF
 * close it. */
static int
exec_drain(struct exec_run *x, int *fd, struct exec_buf *own)
{
	char buf[65536];
	ssize_t n = read(*fd, buf, sizeof(buf));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 0 : -errno;
	if (n == 0) {
		close(*fd);
		*fd = -1;
		return 0;
	}
	if ((own && exec_buf_add(own, buf, (size_t)n) != 0) ||
	    exec_buf_add(&x->both, buf, (size_t)n) != 0)
		return -ENOMEM;
	return 0;
}

/* End the shell's process group and every escalated command: SIGTERM
 * now, SIGKILL after the grace period. */
static void
exec_stop(struct exec_run *x, int64_t now)
{
	x->deadline = 0;
	x->stopping = true;
	kill(-x->pid, SIGTERM);
	kill(-x->pid, SIGCONT);
	hub_poke(x->s->loop.hub, false, true);	/* and every escalated command */
	x->kill_at = now + x->s->cfg.kill_grace_ms;
}

static void
exec_timeout(struct exec_run *x, struct shellesc_exec_result *res, bool cancel)
{
	int64_t now = clock_now_ms();

	if (!x->stopping && (cancel || (x->deadline && now >= x->deadline))) {
		res->cancelled = cancel;
		res->timed_out = !cancel;
		exec_stop(x, now);
	} else if (x->kill_at && now >= x->kill_at) {
		x->kill_at = 0;
		kill(-x->pid, SIGKILL);
		if (x->exited) {	/* what still holds the pipes is beyond reach */
			if (x->out[0] >= 0)
				close(x->out[0]);
			if (x->err[0] >= 0)
				close(x->err[0]);
			x->out[0] = x->err[0] = -1;
		}
	}
}

static int
exec_wait_ms(const struct exec_run *x)
{
	int64_t t = x->deadline ? x->deadline : x->kill_at, now = clock_now_ms();

	return t == 0 ? -1 : t <= now ? 0 : (int)(t - now);
}

/* Until the shell has exited and both pipes are closed. */
static int
exec_collect(struct exec_run *x, struct shellesc_exec_result *res)
{
	while (!x->exited || x->out[0] >= 0 || x->err[0] >= 0) {
		struct pollfd p[4] = {
			{ .fd = x->out[0], .events = POLLIN }, { .fd = x->err[0], .events = POLLIN },
			{ .fd = x->exited ? -1 : x->pidfd, .events = POLLIN },
			{ .fd = x->stopping ? -1 : x->s->cancel_fd, .events = POLLIN },
		};
		int n = poll(p, 4, exec_wait_ms(x)), r = 0;
		bool core;

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0 && p[0].revents)
			r = exec_drain(x, &x->out[0], x->one_pipe ? NULL : &x->bout);
		if (r == 0 && n > 0 && p[1].revents)
			r = exec_drain(x, &x->err[0], &x->berr);
		if (r != 0)
			return r;
		if (n > 0 && p[2].revents) {
			x->code = spawn_reap(x->pidfd, &x->sig, &core);
			x->exited = true;
			if (x->stopping && x->kill_at == 0)
				x->kill_at = clock_now_ms() + x->s->cfg.kill_grace_ms;
		}
		exec_timeout(x, res, n > 0 && p[3].revents);
	}
	return 0;
}

static void
exec_close(struct exec_run *x)
{
	int fds[] = { x->out[0], x->out[1], x->err[0], x->err[1], x->devnull, x->pidfd };

	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
}

static void
exec_result(struct exec_run *x, struct shellesc_exec_result *res, int64_t t0)
{
	res->out_dropped = exec_buf_finish(&x->bout);
	res->err_dropped = exec_buf_finish(&x->berr);
	res->output_dropped = exec_buf_finish(&x->both);
	res->out = x->bout.p;
	res->out_len = x->bout.len;
	res->err = x->berr.p;
	res->err_len = x->berr.len;
	res->output = x->both.p;
	res->output_len = x->both.len;
	res->exit_code = x->code;
	res->signal = x->sig;
	res->duration = (double)(clock_now_ms() - t0) / 1000.0;
}

int
shellesc_session_exec(struct shellesc_session *s,
    const struct shellesc_exec_params *pa, struct shellesc_exec_result *res)
{
	struct exec_run x = { .s = s, .out = { -1, -1 }, .err = { -1, -1 }, .pidfd = -1 };
	int64_t t0 = clock_now_ms();
	int r;

	memset(res, 0, sizeof(*res));
	if (pa->command == NULL || pa->workdir == NULL || pa->workdir[0] != '/')
		return -EINVAL;
	if (atomic_load(&s->cancelled))
		return -ECANCELED;
	x.one_pipe = pa->one_pipe != 0;
	if (pipe2(x.out, O_CLOEXEC) != 0 || (!x.one_pipe && pipe2(x.err, O_CLOEXEC) != 0) ||
	    (x.devnull = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		r = -errno;
		exec_close(&x);
		return r;
	}
	if (pa->timeout_ms > 0)
		x.deadline = t0 + pa->timeout_ms;
	x.bout.max = x.berr.max = x.both.max = pa->max_output;
	if ((r = exec_spawn(&x, pa)) == 0 && (r = exec_collect(&x, res)) != 0)
		spawn_end(x.pid, x.pidfd, 0);
	exec_close(&x);
	if (r == 0)
		exec_result(&x, res, t0);
	else {
		struct exec_buf *b[] = { &x.bout, &x.berr, &x.both };

		for (size_t i = 0; i < 3; i++) {
			free(b[i]->p);
			free(b[i]->ring);
		}
	}
	return r;
}

void
shellesc_exec_result_free(struct shellesc_exec_result *res)
{
	free(res->out);
	free(res->err);
	free(res->output);
	memset(res, 0, sizeof(*res));
}
