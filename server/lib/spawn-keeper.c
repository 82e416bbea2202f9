/*
 * spawn-keeper.c: the keeper, where an escalated command gets no cgroup
 * of its own (tree.c).  An intermediate process, forked by spawn_run, that
 * is the command's parent and a child subreaper (PR_SET_CHILD_SUBREAPER):
 * every orphan of the command's tree becomes its child.  It sends the
 * command's pid up the exec-status pipe, holds none of the server's fds,
 * mirrors the command's stops (so the server's waitid sees them), and once
 * the command ends kills and reaps every process left of its tree, then
 * ends as the command did.  It runs in a child of a threaded process and
 * never execs: async-signal-safe calls only.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmt.h"
#include "server.h"

/* Every catchable signal ignored but SIGCHLD and SIGCONT, none blocked:
 * only the command decides how it ends; the keeper follows. */
static void
spawn_keeper_signals(void)
{
	struct sigaction ign, dfl;
	sigset_t none;

	memset(&ign, 0, sizeof(ign));
	memset(&dfl, 0, sizeof(dfl));
	ign.sa_handler = SIG_IGN;
	dfl.sa_handler = SIG_DFL;
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, sig == SIGCHLD || sig == SIGCONT ? &dfl : &ign, NULL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* Stop as the command stopped, so the server's waitid sees it; the
 * server continues us with the command (spawn_signal).  Always with
 * SIGSTOP: the kernel discards a terminal stop (SIGTSTP, SIGTTIN, SIGTTOU)
 * sent to an orphaned process group, which ours can be (the server's, a
 * session leader's); the caller then stops with SIGSTOP too. */
static void
spawn_keeper_stop(void)
{
	raise(SIGSTOP);
}

/* The command's wait status, its stops mirrored on the way. */
static int
spawn_keeper_wait(pid_t cmd)
{
	int st;

	for (;;) {
		if (waitpid(cmd, &st, WUNTRACED) < 0) {
			if (errno == EINTR)
				continue;
			return 127 << 8;
		}
		if (!WIFSTOPPED(st))
			return st;
		spawn_keeper_stop();
	}
}

/*
 * SIGKILL each pid of the first part of our /proc children list ("PID "
 * each; a number the buffer cut is left for the next round, never taken
 * for another pid); false when the list cannot be read.
 */
static bool
spawn_keeper_kill(const char *list)
{
	char buf[4096];
	ssize_t n;
	long pid = 0;
	int fd = open(list, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] >= '0' && buf[i] <= '9')
			pid = pid * 10 + (buf[i] - '0');
		else if (pid > 0) {
			kill((pid_t)pid, SIGKILL);
			pid = 0;
		}
	return n >= 0;
}

/*
 * The command has ended: every process left of its tree is an orphan,
 * so our child (we are their subreaper).  Kill and reap until none is
 * left; a killed one's children become ours in turn.
 */
static void
spawn_keeper_sweep(void)
{
	char list[64] = "/proc/self/task/";
	size_t n = strlen(list);

	fmt_uint(list + n, (unsigned)getpid());
	memcpy(list + strlen(list), "/children", sizeof("/children"));
	for (;;) {
		/* without a children list (CONFIG_PROC_CHILDREN) it can only
		 * reap: what is left then ends on its own (docs/security.md) */
		spawn_keeper_kill(list);
		if (waitpid(-1, NULL, 0) < 0 && errno != EINTR)
			return;		/* ECHILD: the tree is gone */
	}
}

/* End as the command ended: its exit code, or its signal (no core). */
static void __attribute__((noreturn))
spawn_keeper_exit(int st)
{
	struct rlimit none = { 0, 0 };
	struct sigaction sa;

	if (WIFSIGNALED(st)) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		setrlimit(RLIMIT_CORE, &none);
		sigaction(WTERMSIG(st), &sa, NULL);
		raise(WTERMSIG(st));
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

void
spawn_keeper(const struct spawn_spec *sp, int errfd, pid_t parent, const struct rlimit *nofile)
{
	pid_t self = getpid(), cmd;
	int v;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		_exit(127);
	spawn_keeper_signals();
	if ((cmd = fork()) == 0)
		spawn_child(sp, errfd, self, nofile);
	if (cmd > 0 && sp->new_pgrp)
		setpgid(cmd, cmd);	/* before the server learns it: no race */
	v = cmd > 0 ? -cmd : errno;
	while (write(errfd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
	close_range(0, ~0U, 0);	/* none of the server's fds: pipes must see EOF */
	if (cmd < 0)
		_exit(127);
	v = spawn_keeper_wait(cmd);
	spawn_keeper_sweep();
	spawn_keeper_exit(v);
}
