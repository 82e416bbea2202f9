/* proc-helpers.c: child processes, their output, and waiting on them. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/session.h"
#include "helpers/user.h"

extern char **environ;

char **
ts_env(struct shellesc_session *s, ...)
{
	const char *keep[] = { "ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS=" };
	char *base[64] = { "PATH=/usr/bin:/bin" };
	size_t n = 1;
	const char *e;
	va_list ap;
	char **env;

	for (char **v = environ; *v; v++)
		for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			if (strncmp(*v, keep[i], strlen(keep[i])) == 0)
				base[n++] = *v;
	va_start(ap, s);
	while ((e = va_arg(ap, const char *)) != NULL && n < 63)
		base[n++] = (char *)e;
	va_end(ap);
	cr_assert_not_null(env = shellesc_env_merge(s, base));
	return env;
}

void
ts_child_signals(void)
{
	sigset_t none;

	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);	/* glibc's own two fail: harmless */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Child side: stdio from the pipes, default signals, u's ids (if u), then exec. */
static void __attribute__((noreturn))
ts_child(const int fds[3], const struct tu_user *u, const char *cwd, char *const env[],
    const char *path, char *const argv[])
{
	for (int i = 0; i < 3; i++)
		if (dup2(fds[i], i) < 0)
			_exit(125);
	if (u != NULL && tu_become(u) != 0)
		_exit(125);
	ts_child_signals();
	if (cwd && chdir(cwd) != 0)
		_exit(125);
	execve(path, argv, env);
	_exit(125);
}

void
ts_proc_start(struct ts_proc *p, const char *cwd, char *const env[],
    const char *path, char *const argv[])
{
	ts_proc_start_as(p, NULL, cwd, env, path, argv);
}

void
ts_proc_start_as(struct ts_proc *p, const struct tu_user *u, const char *cwd,
    char *const env[], const char *path, char *const argv[])
{
	int in[2], out[2], err[2];

	th_pipe(in);
	th_pipe(out);
	th_pipe(err);
	cr_assert((p->pid = fork()) >= 0);
	if (p->pid == 0)
		ts_child((int[]){ in[0], out[1], err[1] }, u, cwd, env, path, argv);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	p->in = in[1];
	p->out = out[0];
	p->err = err[0];
}

void
ts_wrapper_start(struct ts_proc *p, char *const env[], const char *cwd,
    const char *file, char *const argv[])
{
	size_t n = 0;

	while (argv[n])
		n++;
	char *wargv[n + 3];

	wargv[0] = (char *)"shellesc-execve-wrapper";
	wargv[1] = (char *)file;
	memcpy(wargv + 2, argv, sizeof(char *) * (n + 1));
	ts_proc_start(p, cwd, env, TEST_WRAPPER, wargv);
}

void
ts_read_line(int fd, char *buf, size_t size, int ms)
{
	int64_t until = clock_now_ms() + ms;
	size_t n = 0;

	while (n + 1 < size && (n == 0 || buf[n - 1] != '\n')) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int left = (int)(until - clock_now_ms());
		ssize_t k;

		cr_assert(left > 0 && poll(&pfd, 1, left) == 1, "no line within %d ms", ms);
		cr_assert((k = read(fd, buf + n, 1)) == 1, "EOF before a whole line");
		n++;
	}
	buf[n] = '\0';
}

struct ts_buf {
	char *p;
	size_t len;
};

/* One read into b; returns false at EOF. */
static bool
ts_drain(int fd, struct ts_buf *b)
{
	char chunk[4096];
	ssize_t k = read(fd, chunk, sizeof(chunk));

	if (k < 0 && errno == EINTR)
		return true;
	if (k <= 0)
		return false;
	cr_assert_not_null(b->p = realloc(b->p, b->len + (size_t)k + 1));
	memcpy(b->p + b->len, chunk, (size_t)k);
	b->len += (size_t)k;
	b->p[b->len] = '\0';
	return true;
}

int
ts_proc_wait(struct ts_proc *p, char **out, size_t *outlen, char **err)
{
	return ts_proc_wait_ms(p, 20000, out, outlen, err);
}

int
ts_proc_wait_ms(struct ts_proc *p, int ms, char **out, size_t *outlen, char **err)
{
	struct ts_buf b[2] = { { strdup(""), 0 }, { strdup(""), 0 } };
	int fds[2] = { p->out, p->err }, st;
	int64_t until = clock_now_ms() + ms;

	if (p->in >= 0)
		close(p->in);
	while (fds[0] >= 0 || fds[1] >= 0) {
		struct pollfd pfd[2] = { { fds[0], POLLIN, 0 }, { fds[1], POLLIN, 0 } };
		int left = (int)(until - clock_now_ms());

		cr_assert(left > 0 && poll(pfd, 2, left) > 0, "the child's output never ended");
		for (int i = 0; i < 2; i++)
			if (pfd[i].revents && !ts_drain(fds[i], &b[i])) {
				close(fds[i]);
				fds[i] = -1;
			}
	}
	cr_assert_eq(waitpid(p->pid, &st, 0), p->pid);
	if (outlen)
		*outlen = b[0].len;
	if (out)
		*out = b[0].p;
	else
		free(b[0].p);
	if (err)
		*err = b[1].p;
	else
		free(b[1].p);
	p->in = p->out = p->err = -1;
	return st;
}

/* The state letter of /proc/PID/stat, or 0 when the process is gone. */
static char
ts_pid_state(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return 0;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* the command name in parentheses may hold anything: the state follows the last ')' */
	return (p = strrchr(buf, ')')) != NULL && p[1] == ' ' ? p[2] : 0;
}

static bool
ts_state_ended(char st)
{
	return st == 0 || st == 'Z' || st == 'X';
}

/* ts_pid_gone without pidfd_open (before Linux 5.3, or valgrind 3.19): poll /proc. */
static bool
ts_pid_gone_polled(pid_t pid, int ms)
{
	int64_t until = clock_now_ms() + ms;
	char st;

	while (!ts_state_ended(st = ts_pid_state(pid)) && clock_now_ms() < until)
		poll(NULL, 0, 10);
	return ts_state_ended(st);
}

bool
ts_pid_gone(pid_t pid, int ms)
{
	int fd = pidfd_open(pid, 0);
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	if (fd < 0 && errno == ENOSYS)
		return ts_pid_gone_polled(pid, ms);
	if (fd < 0)
		return errno == ESRCH;
	do
		n = poll(&pfd, 1, ms);
	while (n < 0 && errno == EINTR);
	close(fd);
	return n == 1;
}

int
ts_fds_settle(int want, int ms)
{
	int64_t until = clock_now_ms() + ms;
	int n;

	while ((n = th_count_fds()) > want && clock_now_ms() < until)
		poll(NULL, 0, 10);
	return n;
}
