/*
 * sysproc.c: system(3), popen(3) and pclose(3), rebuilt on the interposed
 * spawn so that the shell they start is decided like any other exec
 * (glibc's own versions spawn through an internal call).  They keep POSIX's
 * rules: system ignores SIGINT and SIGQUIT and blocks SIGCHLD while it
 * waits, the child gets the original dispositions and mask; a popen child
 * does not inherit the streams of earlier popen calls.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "preload.h"

extern char **environ;

/* waitpid, through EINTR; 0 or an errno (waitpid's errno stays set:
 * system and pclose fail with it). */
static int
pl_wait(pid_t pid, int *status)
{
	pid_t r;

	while ((r = waitpid(pid, status, 0)) < 0 && errno == EINTR)
		;
	return r < 0 ? errno : 0;
}

/* The child side of system(): original SIGINT/SIGQUIT unless ignored, original mask. */
static void
pl_system_attr(posix_spawnattr_t *a, const struct sigaction *oint,
    const struct sigaction *oquit, const sigset_t *omask)
{
	sigset_t def;

	sigemptyset(&def);
	if (oint->sa_handler != SIG_IGN)
		sigaddset(&def, SIGINT);
	if (oquit->sa_handler != SIG_IGN)
		sigaddset(&def, SIGQUIT);
	posix_spawnattr_init(a);
	posix_spawnattr_setsigdefault(a, &def);
	posix_spawnattr_setsigmask(a, omask);
	posix_spawnattr_setflags(a, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
}

static int
pl_system_run(const char *cmd)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
	sigset_t chld, omask;
	posix_spawnattr_t attr;
	int status = 0, r;
	pid_t pid;

	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	sigprocmask(SIG_BLOCK, &chld, &omask);
	pl_system_attr(&attr, &oint, &oquit, &omask);
	if ((r = pl_spawn(&pid, "/bin/sh", NULL, &attr, argv, environ)) != 0)
		status = 127 << 8;	/* as glibc: the shell could not run */
	else if (pl_wait(pid, &status) != 0)
		status = -1;
	posix_spawnattr_destroy(&attr);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	sigprocmask(SIG_SETMASK, &omask, NULL);
	return status;
}

PL_EXPORT int
system(const char *cmd)
{
	pl_resolve();
	if (!pl.active)
		return pl_real.system(cmd);
	if (cmd == NULL)	/* is a shell available? */
		return pl_system_run("exit 0") == 0;
	return pl_system_run(cmd);
}

/* popen streams and their children, for pclose and for later popen children. */
struct pl_popen {
	FILE *fp;
	int fd;
	pid_t pid;
	struct pl_popen *next;
};
static struct pl_popen *pl_popens;
static pthread_mutex_t pl_popen_mu = PTHREAD_MUTEX_INITIALIZER;

/* A popen child closes the streams of earlier popen calls. */
static int
pl_popen_actions(posix_spawn_file_actions_t *fa, int child, int target)
{
	int r = posix_spawn_file_actions_init(fa);

	pthread_mutex_lock(&pl_popen_mu);
	for (struct pl_popen *p = pl_popens; p && r == 0; p = p->next)
		if (p->fd != target)
			r = posix_spawn_file_actions_addclose(fa, p->fd);
	pthread_mutex_unlock(&pl_popen_mu);
	if (r == 0 && child != target)
		r = posix_spawn_file_actions_adddup2(fa, child, target);
	return r;
}

static FILE *
pl_popen_track(int fd, pid_t pid, const char *mode)
{
	struct pl_popen *p = malloc(sizeof(*p));
	FILE *fp = p ? fdopen(fd, mode) : NULL;

	if (fp == NULL) {
		free(p);
		return NULL;
	}
	*p = (struct pl_popen){ fp, fd, pid, NULL };
	pthread_mutex_lock(&pl_popen_mu);
	p->next = pl_popens;
	pl_popens = p;
	pthread_mutex_unlock(&pl_popen_mu);
	return fp;
}

static FILE *
pl_popen_open(const char *cmd, bool reading, bool cloexec)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
	int fds[2], mine, child, target = reading ? 1 : 0, r;
	posix_spawn_file_actions_t fa;
	FILE *fp = NULL;
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) != 0)
		return NULL;
	mine = reading ? fds[0] : fds[1];
	child = reading ? fds[1] : fds[0];
	if (child == target)	/* dup2 onto itself would keep close-on-exec */
		fcntl(child, F_SETFD, 0);
	if ((r = pl_popen_actions(&fa, child, target)) == 0) {
		r = pl_spawn(&pid, "/bin/sh", &fa, NULL, argv, environ);
		posix_spawn_file_actions_destroy(&fa);
	}
	close(child);
	if (r == 0 && !cloexec)
		fcntl(mine, F_SETFD, 0);
	if (r == 0 && (fp = pl_popen_track(mine, pid, reading ? "r" : "w")) == NULL) {
		r = errno;
		kill(pid, SIGKILL);
		pl_wait(pid, &(int){ 0 });
	}
	if (fp == NULL)
		close(mine);
	errno = r ? r : errno;
	return fp;
}

PL_EXPORT FILE *
popen(const char *cmd, const char *mode)
{
	bool reading = mode[0] == 'r', cloexec = strchr(mode, 'e') != NULL;

	pl_resolve();
	if (!pl.active)
		return pl_real.popen(cmd, mode);
	if ((mode[0] != 'r' && mode[0] != 'w') || strspn(mode + 1, "e") != strlen(mode + 1)) {
		pl_errno(EINVAL);
		return NULL;
	}
	return pl_popen_open(cmd, reading, cloexec);
}

PL_EXPORT int
pclose(FILE *fp)
{
	struct pl_popen **pp, *p = NULL;
	int status;

	pl_resolve();
	pthread_mutex_lock(&pl_popen_mu);
	for (pp = &pl_popens; *pp; pp = &(*pp)->next)
		if ((*pp)->fp == fp) {
			p = *pp;
			*pp = p->next;
			break;
		}
	pthread_mutex_unlock(&pl_popen_mu);
	if (p == NULL)
		return pl_real.pclose(fp);	/* not ours: glibc's popen */
	fclose(fp);
	status = pl_wait(p->pid, &status) == 0 ? status : -1;
	free(p);
	return status;
}
