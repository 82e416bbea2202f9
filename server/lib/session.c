/* session.c: starting and ending a session, and its environment overlay. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server.h"

extern char **environ;

/* The client end lives on a high fd number, out of the way of shells' own fds. */
#define SESSION_CLIENT_FD_MIN 64

static void
session_defaults(struct shellesc_config *cfg)
{
	if (cfg->intercept == 0)
		cfg->intercept = SHELLESC_INTERCEPT_WRAPPER | SHELLESC_INTERCEPT_PRELOAD;
	if (cfg->wrapper_path == NULL)
		cfg->wrapper_path = SHELLESC_WRAPPER_PATH;
	if (cfg->preload_path == NULL)
		cfg->preload_path = SHELLESC_PRELOAD_PATH;
	if (cfg->scrub == NULL)
		cfg->scrub = shellesc_default_scrub;
	if (cfg->kill_grace_ms <= 0)
		cfg->kill_grace_ms = 2000;
	if (cfg->request_timeout_ms <= 0)
		cfg->request_timeout_ms = 10000;
}

/* The next entry of the overlay, NAME=value.  asprintf(3) leaves its
 * pointer undefined when it fails: the slot is put back to NULL, so
 * session_free frees only what was made. */
static int
session_put(struct shellesc_session *s, int *n, const char *name, const char *value)
{
	if (asprintf(&s->env[*n], "%s=%s", name, value) < 0) {
		s->env[*n] = NULL;
		return -ENOMEM;
	}
	(*n)++;
	return 0;
}

static int
session_overlay(struct shellesc_session *s)
{
	const struct shellesc_config *cfg = &s->cfg;
	bool preload = cfg->intercept & SHELLESC_INTERCEPT_PRELOAD;
	char fd[16];
	int n = 0, r;

	if (cfg->intercept == SHELLESC_INTERCEPT_KERNEL)
		return 0;		/* nothing of ours in the tree */
	snprintf(fd, sizeof(fd), "%d", s->client_fd);
	r = session_put(s, &n, SHELLESC_ENV_SOCKET, fd);
	if (r == 0 && (cfg->intercept & SHELLESC_INTERCEPT_WRAPPER))
		r = session_put(s, &n, SHELLESC_ENV_WRAPPER, cfg->wrapper_path);
	if (r == 0 && preload)
		r = session_put(s, &n, "LD_PRELOAD", cfg->preload_path);
	/* The preload execs the wrapper as the proxy of escalations it decides. */
	if (r == 0 && preload)
		r = session_put(s, &n, SHELLESC_ENV_PROXY_PATH, cfg->wrapper_path);
	return r;
}

/*
 * The session socket pair: ours non-blocking, the client's inheritable and
 * high.  The kernel layer alone has no client: the loop's end stays, as
 * the one its streams come from, and no process can reach it.
 */
static int
session_sockets(struct shellesc_session *s)
{
	int sv[2], e;

	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) != 0)
		return -errno;
	s->loop.sock = sv[0];
	if (s->cfg.intercept == SHELLESC_INTERCEPT_KERNEL) {
		close(sv[1]);
		return fcntl(sv[0], F_SETFL, O_NONBLOCK) != 0 ? -errno : 0;
	}
	s->client_fd = fcntl(sv[1], F_DUPFD, SESSION_CLIENT_FD_MIN);
	e = errno;
	close(sv[1]);
	if (s->client_fd < 0)
		return -e;
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK) != 0)
		return -errno;
	return 0;
}

/*
 * What escalated commands take from the session (escenv.c): its own
 * variables as they are now, and its own copy of the names to pass.
 */
static int
session_escenv(struct shellesc_session *s)
{
	const char *const *pass = s->cfg.pass_env;
	size_t n = 0;
	int r;

	if ((r = escenv_check_pass(&s->loop, pass)) != 0)
		return r;
	while (pass && pass[n])
		n++;
	if ((s->pass_env = calloc(n + 1, sizeof(char *))) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if ((s->pass_env[i] = strdup(pass[i])) == NULL)
			return -ENOMEM;
	s->cfg.pass_env = (const char *const *)s->pass_env;
	s->own_env = escenv_capture(s->cfg.session_env ? s->cfg.session_env : environ);
	s->cfg.session_env = NULL;	/* the caller's memory, not needed any more */
	return s->own_env ? 0 : -ENOMEM;
}

/* Every stream is an fd of ours: make room for them (fdlimit.c). */
static void
session_fd_limit(struct shellesc_session *s)
{
	int r;

	if (!s->cfg.keep_fd_limit && (r = fdlimit_raise()) != 0)
		loop_log(&s->loop, SHELLESC_LOG_WARN, "cannot raise the fd limit: %s", strerror(-r));
	loop_bounds(&s->loop);
}

/*
 * The intercept flags: the kernel layer alone, or the preload and/or the
 * wrapper.  Alone, its escalations need the wrapper as proxy, which only
 * x86-64 can be made to exec (kernel-escalate.c): no session elsewhere
 * rather than one whose escalations all fail.
 */
static int
session_intercept(struct shellesc_session *s)
{
	unsigned i = s->cfg.intercept;

	if ((i & SHELLESC_INTERCEPT_KERNEL) && i != SHELLESC_INTERCEPT_KERNEL) {
		loop_log(&s->loop, SHELLESC_LOG_ERROR, "the kernel layer alone goes with "
		    "neither the preload nor the wrapper");
		return -EINVAL;
	}
	if (i == SHELLESC_INTERCEPT_KERNEL && !kernel_escalate_possible()) {
		loop_log(&s->loop, SHELLESC_LOG_ERROR, "the kernel layer alone cannot escalate "
		    "on this architecture (x86-64 only): use it with the preload");
		return -ENOTSUP;
	}
	return 0;
}

static void
session_free(struct shellesc_session *s)
{
	for (size_t i = 0; i < sizeof(s->env) / sizeof(s->env[0]); i++)
		free(s->env[i]);
	shellesc_env_free(s->own_env);
	shellesc_env_free(s->pass_env);
	if (s->loop.sock >= 0)
		close(s->loop.sock);
	if (s->client_fd >= 0)
		close(s->client_fd);
	writable_roots_free(s->roots);
	if (s->cancel_fd >= 0)
		close(s->cancel_fd);
	if (s->loop.hub)
		hub_unref(s->loop.hub);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

int
shellesc_session_start(const struct shellesc_config *cfg,
    struct shellesc_session **out)
{
	struct shellesc_session *s;
	int r;

	if (cfg == NULL || cfg->policy == NULL)
		return -EINVAL;
	if ((s = calloc(1, sizeof(*s))) == NULL)
		return -ENOMEM;
	s->cfg = *cfg;
	session_defaults(&s->cfg);
	s->loop.s = s;
	s->loop.cfg = &s->cfg;
	s->loop.sock = s->client_fd = -1;
	pthread_mutex_init(&s->mu, NULL);
	s->cfg.writable = NULL;	/* the caller's memory; s->roots is ours */
	atomic_init(&s->cancelled, false);
	if ((s->cancel_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0)
		r = -errno;
	else if ((s->loop.hub = hub_new()) == NULL)
		r = -ENOMEM;
	else if ((r = session_intercept(s)) == 0 &&
	    (r = writable_roots(cfg->writable, &s->roots)) == 0 &&
	    (r = session_escenv(s)) == 0 && (r = session_sockets(s)) == 0 &&
	    (r = session_overlay(s)) == 0) {
		session_fd_limit(s);
		r = loop_start(&s->loop);
	}
	if (r != 0) {
		session_free(s);
		return r;
	}
	*out = s;
	return 0;
}

char *const *
shellesc_session_env(const struct shellesc_session *s)
{
	return s->env;
}

int
shellesc_session_client_fd(const struct shellesc_session *s)
{
	int fd;

	pthread_mutex_lock((pthread_mutex_t *)&s->mu);
	fd = s->client_fd;
	pthread_mutex_unlock((pthread_mutex_t *)&s->mu);
	return fd;
}

void
shellesc_session_close_client(struct shellesc_session *s)
{
	pthread_mutex_lock(&s->mu);
	if (s->client_fd >= 0)
		close(s->client_fd);
	s->client_fd = -1;
	pthread_mutex_unlock(&s->mu);
}

/* Only a flag and an eventfd write: safe in a signal handler.  Once the
 * counter is set, a full counter (EAGAIN) still reads as readable. */
void
shellesc_session_cancel(struct shellesc_session *s)
{
	uint64_t one = 1;
	int saved = errno;

	atomic_store(&s->cancelled, true);
	while (write(s->cancel_fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
	errno = saved;
}

void
shellesc_session_end(struct shellesc_session *s)
{
	if (s == NULL)
		return;
	loop_stop(&s->loop);
	session_free(s);
}
