/*
 * jobs.c: job control for escalated commands on the server's terminal.
 *
 * An escalated command runs in a process group of its own, in the server's
 * session.  When its stdio includes the server's controlling terminal, it
 * takes part in that terminal's job control as a plain child of the caller
 * would:
 *
 * - if the caller's process group is the terminal's foreground when the
 *   command starts, or when the caller is continued (a shell's fg), the
 *   command's group becomes the foreground, so it can read the terminal
 *   and gets the terminal's ^C and ^Z;
 * - when it stops, the caller is told (a "stopped" message) and stops with
 *   the same signal, so its shell sees the job stop; the shell's SIGCONT
 *   reaches the caller, which forwards it;
 * - when it ends, the terminal goes back to the caller's group if the
 *   command's group still holds it.
 *
 * Every fact comes from the kernel: tcgetpgrp() succeeds only on our own
 * controlling terminal, and the caller's group is that of the process the
 * kernel names as the stream's peer (SO_PEERCRED), never what a client
 * says.  The loop thread blocks every signal, so tcsetpgrp() from a
 * background server is never stopped by SIGTTOU.
 *
 * The kernel has no file descriptor that reports a child's stop (a pidfd
 * reports its exit), and a library may not take SIGCHLD from its
 * embedder: stops are polled with waitid(WNOHANG), every JOBS_POLL_MS,
 * and only for commands on the terminal.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server.h"

void
jobs_init(struct jobs *j)
{
	j->tty = -1;
	j->caller_pgrp = -1;
	j->follow = false;
}

/* The caller's process group, from the stream's peer as the kernel saw it. */
static pid_t
jobs_peer_pgrp(int stream)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (stream < 0 || getsockopt(stream, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    cred.pid <= 0)
		return -1;
	return getpgid(cred.pid);
}

void
jobs_probe(struct jobs *j, int stream, const struct spawn_fd *fds, size_t n, bool follow)
{
	for (size_t i = 0; i < n && j->tty < 0; i++)
		if (fds[i].dst <= 2 && tcgetpgrp(fds[i].src) > 0)
			j->tty = fcntl(fds[i].src, F_DUPFD_CLOEXEC, 3);
	if (j->tty < 0)
		return;
	j->caller_pgrp = jobs_peer_pgrp(stream);
	j->follow = follow;
}

bool
jobs_foreground(const struct jobs *j)
{
	return j->tty >= 0 && j->caller_pgrp > 0 && tcgetpgrp(j->tty) == j->caller_pgrp;
}

void
jobs_continued(struct jobs *j, pid_t pgrp)
{
	if (jobs_foreground(j))
		tcsetpgrp(j->tty, pgrp);
}

int
jobs_stopped(struct jobs *j, pid_t pid, int pidfd)
{
	return j->tty >= 0 ? spawn_stopped(pid, pidfd) : 0;
}

void
jobs_end(struct jobs *j, pid_t pgrp)
{
	if (j->tty < 0)
		return;
	if (j->caller_pgrp > 0 && tcgetpgrp(j->tty) == pgrp)
		tcsetpgrp(j->tty, j->caller_pgrp);
	close(j->tty);
	j->tty = -1;
}
