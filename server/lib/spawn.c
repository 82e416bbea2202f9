/*
 * spawn.c: starting a command with exactly the fds it was handed.
 *
 * The fork happens on a threaded server, so the child runs only
 * async-signal-safe system calls until execve.  Received fds may sit on
 * another fd's destination number (or their own): every source is first
 * moved above all destinations, then each is dup2'd into place, so none is
 * clobbered.  An exec failure comes back through a close-on-exec pipe.
 *
 * A spawn with a sandbox enters it in the child just before the exec.
 * Where it gives a seccomp listener (the kernel layer), the pipe is a
 * socket pair instead: the child sends the listener on it (with 0, no
 * failure) and execs; its exec is stopped in the kernel until the
 * listener is served, so the parent hands it over (take_listener) before
 * it waits for the exec's outcome, as before.
 *
 * An escalated command's tree ends with it (tree.c): the child joins the
 * command's cgroup before exec, or, with no cgroup, runs under a keeper
 * (spawn-keeper.c), which sends the command's pid up the same pipe (as
 * -pid: an exec failure is a positive errno).  The caller then holds the
 * command's pid (its group) and the keeper's pidfd: the keeper's exit is
 * the command's, after the sweep.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdpass.h"
#include "fmt.h"
#include "script.h"
#include "server.h"


/*
 * A child's exit as an fd that becomes readable: a pidfd, or -- where the
 * kernel (before 5.3) or valgrind lacks pidfd_open -- a pipe that a waiter
 * thread fills with the wait status.
 */
static bool spawn_have_pidfd = true;

static int
spawn_read_full(int fd, void *buf, size_t n)
{
	ssize_t k;

	do
		k = read(fd, buf, n);
	while (k < 0 && errno == EINTR);
	return k == (ssize_t)n ? 0 : -1;
}

struct spawn_waiter {
	pid_t pid;
	int wfd;
};

static void *
spawn_waiter_main(void *arg)
{
	struct spawn_waiter w = *(struct spawn_waiter *)arg;
	int st = 0;

	free(arg);
	while (waitpid(w.pid, &st, 0) < 0 && errno == EINTR)
		;
	while (write(w.wfd, &st, sizeof(st)) < 0 && errno == EINTR)
		;
	close(w.wfd);
	return NULL;
}

static int
spawn_watch_thread(pid_t pid)
{
	struct spawn_waiter *w = malloc(sizeof(*w));
	pthread_attr_t attr;
	pthread_t t;
	int p[2], r;

	if (w == NULL)
		return -ENOMEM;
	if (pipe2(p, O_CLOEXEC) != 0) {
		r = -errno;
		free(w);
		return r;
	}
	*w = (struct spawn_waiter){ pid, p[1] };
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	r = pthread_create(&t, &attr, spawn_waiter_main, w);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		free(w);
		close(p[0]);
		close(p[1]);
		return -r;
	}
	return p[0];
}

static int
spawn_watch(pid_t pid)
{
	int fd;

	if (spawn_have_pidfd) {
		if ((fd = pidfd_open(pid, 0)) >= 0)
			return fd;	/* close-on-exec by definition */
		if (errno != ENOSYS)
			return -errno;
		spawn_have_pidfd = false;
	}
	return spawn_watch_thread(pid);
}

static int
spawn_max_fd(const struct spawn_spec *sp)
{
	int hi = 2;

	for (size_t i = 0; i < sp->nfds; i++) {
		if (sp->fds[i].dst > hi)
			hi = sp->fds[i].dst;
		if (sp->fds[i].src > hi)
			hi = sp->fds[i].src;
	}
	return hi;
}

static bool
spawn_is_dst(const struct spawn_spec *sp, int fd)
{
	for (size_t i = 0; i < sp->nfds; i++)
		if (sp->fds[i].dst == fd)
			return true;
	return false;
}

/* Close every fd from base up but keep[0] and keep[1] (-1: none). */
static void
spawn_close_from(int base, const int keep[2])
{
	int lo = keep[0] < keep[1] ? keep[0] : keep[1];
	int hi = keep[0] < keep[1] ? keep[1] : keep[0];

	if (lo >= base) {
		if (lo > base)
			close_range((unsigned)base, (unsigned)lo - 1, 0);
		base = lo + 1;
	}
	if (hi >= base) {
		if (hi > base)
			close_range((unsigned)base, (unsigned)hi - 1, 0);
		base = hi + 1;
	}
	close_range((unsigned)base, ~0U, 0);
}

/*
 * Child: install fds[] on their destinations, close all else but *errfd
 * and the file to execute, *xfd (-1: none).  Both are first moved above
 * the destinations (*errfd follows it at once, so the failure can still be
 * reported); *xfd stays open across the exec of a script, which its
 * interpreter opens as /dev/fd/N.  0 or -errno.
 */
static int
spawn_child_fds(const struct spawn_spec *sp, int *errfd, int *xfd)
{
	int base = spawn_max_fd(sp) + 1, tmp[SHELLESC_MAX_FDS], fd;

	if (*errfd < base) {
		if ((fd = fcntl(*errfd, F_DUPFD_CLOEXEC, base)) < 0)
			return -errno;
		*errfd = fd;
	}
	if (sp->by_fd && ((*xfd = fcntl(sp->fd, F_DUPFD_CLOEXEC, base)) < 0 ||
	    (sp->fd_script && fcntl(*xfd, F_SETFD, 0) != 0)))
		return -errno;
	for (size_t i = 0; i < sp->nfds; i++)
		if ((tmp[i] = fcntl(sp->fds[i].src, F_DUPFD_CLOEXEC, base)) < 0)
			return -errno;
	for (size_t i = 0; i < sp->nfds; i++)
		if (dup2(tmp[i], sp->fds[i].dst) < 0)
			return -errno;
	for (fd = 0; fd < base; fd++)
		if (!spawn_is_dst(sp, fd))
			close(fd);
	spawn_close_from(base, (const int[2]){ *errfd, *xfd });
	return 0;
}

static void
spawn_child_signals(void)
{
	struct sigaction sa;
	sigset_t none;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);	/* EINVAL for KILL, STOP, libc's own: fine */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* "/dev/fd/N" into buf (32 bytes), without stdio: we may be in a child of
 * a threaded process. */
static const char *
spawn_devfd(char *buf, int fd)
{
	memcpy(buf, "/dev/fd/", 8);
	fmt_uint(buf + 8, (unsigned)fd);
	return buf;
}

/*
 * execve, or execveat of the opened file xfd; a file without #! runs under
 * /bin/sh, as execvp(3) and shells do (an opened one as /dev/fd/N, which
 * is why a script's fd stays open).
 */
static void
spawn_exec(const struct spawn_spec *sp, int xfd)
{
	char devfd[32];
	const char *file = sp->path;

	if (xfd >= 0)
		syscall(SYS_execveat, xfd, "", sp->argv, sp->env, AT_EMPTY_PATH);
	else
		execve(sp->path, sp->argv, sp->env);
	if (errno != ENOEXEC || (xfd >= 0 && !sp->fd_script))
		return;
	if (xfd >= 0)
		file = spawn_devfd(devfd, xfd);
	char *argv[script_slots(sp->argv)];

	script_argv(argv, SCRIPT_SHELL, file, sp->argv);
	execve(SCRIPT_SHELL, argv, sp->env);
	errno = ENOEXEC;	/* the file's failure, not the fallback's */
}

/*
 * Child: enter the sandbox; its listener sent on errfd with the word 0,
 * or, where none could be had (the fallback), -errno saying why.  0 or
 * an errno (the failure, which the caller sends: a positive word).
 */
static int
spawn_child_sandbox(const struct spawn_spec *sp, int errfd)
{
	struct shellesc_sandbox_fault why = { .step = SHELLESC_SANDBOX_OK };
	int fd = -1, word = 0, r;
	struct iovec iov = { &word, sizeof(word) };

	if (shellesc_sandbox_enter(sp->sandbox, sp->take_listener ? &fd : NULL, &why) != 0)
		return why.err > 0 ? why.err : EPERM;
	if (fd < 0 && why.step != SHELLESC_SANDBOX_NO_LISTENER)
		return 0;	/* none wanted */
	word = fd < 0 ? -why.err : 0;
	r = fdpass_send_all(errfd, &iov, 1, &fd, fd < 0 ? 0 : 1);
	if (fd >= 0)
		close(fd);
	return r == 0 ? 0 : EPIPE;
}

/* The cgroup the command's tree lives in, joined before anything runs. */
static int
spawn_join(const struct spawn_spec *sp)
{
	ssize_t n;

	if (sp->tree == NULL || sp->tree->procs < 0)
		return 0;
	do
		n = write(sp->tree->procs, "0", 1);
	while (n < 0 && errno == EINTR);
	return n == 1 ? 0 : errno;
}

void
spawn_child(const struct spawn_spec *sp, int errfd, pid_t parent, const struct rlimit *nofile)
{
	int e, xfd = -1;

	if ((e = spawn_join(sp)) != 0) {
		while (write(errfd, &e, sizeof(e)) < 0 && errno == EINTR)
			;
		_exit(127);
	}
	if (sp->new_pgrp)
		setpgid(0, 0);
	/* before exec, so it never reads the terminal from the background
	 * (SIGTTOU is blocked: the loop thread's mask) */
	if (sp->new_pgrp && sp->foreground)
		tcsetpgrp(sp->tty, getpid());
	if (sp->pdeathsig && (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
	    getppid() != parent))
		_exit(127);
	spawn_child_signals();
	/* the sandbox first: its rulesets are fds the next step would close;
	 * then the directory: cwd_fd is one of the fds closed below */
	if (sp->sandbox != NULL && (e = spawn_child_sandbox(sp, errfd)) != 0)
		;
	else if (sp->cwd != NULL ? chdir(sp->cwd) != 0 : sp->cwd_by_fd && fchdir(sp->cwd_fd) != 0)
		e = errno;
	else if ((e = spawn_child_fds(sp, &errfd, &xfd)) != 0)
		e = -e;
	else {
		/* last: fds above it were moved with it raised; a failure leaves it high */
		if (nofile != NULL)
			setrlimit(RLIMIT_NOFILE, nofile);
		spawn_exec(sp, xfd);
		e = errno;
	}
	while (write(errfd, &e, sizeof(e)) < 0 && errno == EINTR)
		;
	_exit(127);
}

/*
* Parent, with a sandbox that may give a listener: the child's first
 * word, 0 with the listener (handed to take_listener) or its failure.
 * 0 and *e set, or -errno (the child is to be killed).
 */
static int
spawn_take_listener(const struct spawn_spec *sp, int rfd, pid_t pid, int *e)
{
	int fd = -1, r;
	size_t n = 1;
	ssize_t got = fdpass_recv_wait(rfd, e, sizeof(*e), &fd, &n, true);

	if (got != (ssize_t)sizeof(*e)) {
		*e = 0;		/* EOF: exec'd, no listener wanted */
		return 0;
	}
	if (n == 0 && *e > 0)
		return 0;	/* the child's failure: *e */
	r = sp->take_listener(sp->take_arg, n ? fd : -1, n ? 0 : -*e, pid);
	*e = 0;
	return r;
}

/*
 * Parent: 0 when the child exec'd, else -errno (the child is then reaped).
 * With a sandbox that may give a listener, the child's first word comes
 * with it (spawn_take_listener).  A keeper first sends the command's pid
 * (negative) into *pid; an exec failure may come before it.
 */
static int
spawn_exec_status(const struct spawn_spec *sp, int rfd, int pidfd, pid_t *pid, bool keeper)
{
	int v, e = 0, sig, r = 0;
	bool core, got_pid = !keeper;
	ssize_t n;

	if (sp->sandbox != NULL && sp->take_listener != NULL &&
	    (r = spawn_take_listener(sp, rfd, *pid, &e)) != 0)
		kill(*pid, SIGKILL);
	while (r == 0 && e == 0) {
		do
			n = read(rfd, &v, sizeof(v));
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(v))
			break;
		if (v < 0 && keeper) {
			*pid = -v;
			got_pid = true;
		} else
			e = v;
	}
	if (r != 0 || e != 0 || !got_pid) {
		spawn_reap(pidfd, &sig, &core);
		return r != 0 ? r : e != 0 ? -e : -ECHILD;
	}
	return 0;
}

int
spawn_run(const struct spawn_spec *sp, pid_t *pid, int *pidfd)
{
	pid_t parent = getpid();
	struct rlimit nofile;
	bool restore = fdlimit_for_children(&nofile), keeper = sp->tree && sp->tree->keeper;
	int pfd[2], r;

	if ((sp->sandbox && sp->take_listener ?
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pfd) : pipe2(pfd, O_CLOEXEC)) != 0)
		return -errno;
	if ((*pid = fork()) < 0) {
		r = -errno;
		close(pfd[0]);
		close(pfd[1]);
		return r;
	}
	if (*pid == 0 && keeper)
		spawn_keeper(sp, pfd[1], parent, restore ? &nofile : NULL);
	if (*pid == 0)
		spawn_child(sp, pfd[1], parent, restore ? &nofile : NULL);
	close(pfd[1]);
	if (sp->new_pgrp && !keeper)
		setpgid(*pid, *pid);	/* also here: no race with a signal to the group */
	if ((*pidfd = spawn_watch(*pid)) < 0) {
		r = *pidfd;
		kill(*pid, SIGKILL);
		waitpid(*pid, NULL, 0);
		close(pfd[0]);
		return r;
	}
	r = spawn_exec_status(sp, pfd[0], *pidfd, pid, keeper);
	close(pfd[0]);
	if (r != 0) {
		close(*pidfd);
		*pidfd = -1;
	}
	return r;
}

/* Exit status to (code, *sig), as spawn_reap returns it. */
static int
spawn_status(int code, int signo, bool exited, int *sig)
{
	*sig = exited ? 0 : signo;
	return exited ? code : -1;
}

int
spawn_reap(int pidfd, int *sig, bool *core)
{
	siginfo_t si;
	int st;

	*core = false;
	if (!spawn_have_pidfd) {
		if (spawn_read_full(pidfd, &st, sizeof(st)) != 0)
			return spawn_status(0, SIGKILL, false, sig);
		*core = WIFSIGNALED(st) && WCOREDUMP(st);
		return spawn_status(WEXITSTATUS(st), WTERMSIG(st), WIFEXITED(st), sig);
	}
	memset(&si, 0, sizeof(si));
	while (waitid(P_PIDFD, (id_t)pidfd, &si, WEXITED) != 0)
		if (errno != EINTR)
			return spawn_status(0, SIGKILL, false, sig);
	*core = si.si_code == CLD_DUMPED;
	return spawn_status(si.si_status, si.si_status, si.si_code == CLD_EXITED, sig);
}

int
spawn_stopped(pid_t pid, int pidfd)
{
	siginfo_t si;
	int r;

	memset(&si, 0, sizeof(si));
	do
		r = spawn_have_pidfd ? waitid(P_PIDFD, (id_t)pidfd, &si, WSTOPPED | WNOHANG) :
		    waitid(P_PID, (id_t)pid, &si, WSTOPPED | WNOHANG);
	while (r != 0 && errno == EINTR);
	return r == 0 && si.si_pid != 0 && si.si_code == CLD_STOPPED ? si.si_status : 0;
}

/* True when pidfd became readable (the child exited) within ms. */
static bool
spawn_wait(int pidfd, int ms)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int n;

	do
		n = poll(&p, 1, ms);
	while (n < 0 && errno == EINTR);
	return n > 0;
}

void
spawn_signal(pid_t pgrp, int pidfd, int sig)
{
	kill(-pgrp, sig);
	if (sig == SIGCONT && pidfd >= 0)	/* a keeper stopped with its command */
		syscall(SYS_pidfd_send_signal, pidfd, SIGCONT, NULL, 0);
}

void
spawn_end(pid_t pgrp, int pidfd, int grace_ms)
{
	bool core;
	int sig;

	kill(-pgrp, SIGTERM);
	spawn_signal(pgrp, pidfd, SIGCONT);	/* a stopped group cannot act on SIGTERM */
	if (!spawn_wait(pidfd, grace_ms))
		kill(-pgrp, SIGKILL);
	spawn_reap(pidfd, &sig, &core);
	kill(-pgrp, SIGKILL);		/* what the leader left behind in its group */
}
