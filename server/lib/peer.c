/*
 * peer.c: the process at the other end of a request stream, as the kernel
 * reports it -- never as the request claims.  Its credentials and groups
 * come with the socket (SO_PEERCRED, SO_PEERGROUPS: what they were when
 * the client made its stream), and its root and working directory from
 * /proc/PID.  A pid can be reused once its process is gone, so the process
 * is pinned first with a pidfd (SO_PEERPIDFD, else pidfd_open at once) and
 * the directories count only if that pidfd still names a live process
 * after they were opened: then the pid was still its own.  A client is
 * blocked waiting for its answer, so an honest peer is always alive here.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server.h"

#ifndef SO_PEERPIDFD
#define SO_PEERPIDFD	77	/* Linux 6.5; the same on every architecture */
#endif
#define PEER_MAX_GROUPS	65536	/* NGROUPS_MAX */

static int
peer_groups(struct peer *p, int sock)
{
	socklen_t len = 32 * sizeof(gid_t);

	for (;;) {
		gid_t *g = realloc(p->groups, len);

		if (g == NULL)
			return -ENOMEM;
		p->groups = g;
		if (getsockopt(sock, SOL_SOCKET, SO_PEERGROUPS, g, &len) == 0) {
			p->ngroups = len / sizeof(gid_t);
			return 0;
		}
		if (errno != ERANGE || len > PEER_MAX_GROUPS * sizeof(gid_t))
			return -errno;
	}
}

/* A pidfd for the peer (-1 where the kernel has none: its check is skipped). */
static int
peer_pidfd(const struct peer *p, int sock)
{
	socklen_t len = sizeof(int);
	int fd = -1;

	if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &fd, &len) == 0 && fd >= 0) {
		fcntl(fd, F_SETFD, FD_CLOEXEC);	/* already so; never leak it */
		return fd;
	}
	if (errno != ENOPROTOOPT && errno != EOPNOTSUPP)
		return -errno;
	if ((fd = pidfd_open(p->pid, 0)) >= 0)
		return fd;
	return errno == ENOSYS ? -1 : -errno;
}

/* /proc/PID/what, if PID is still the peer once it is open. */
static int
peer_dir(const struct peer *p, const char *what)
{
	int fd, r;

	if ((fd = proc_open(p->pid, what, O_PATH | O_DIRECTORY)) < 0)
		return fd;
	if (p->pidfd >= 0 && syscall(SYS_pidfd_send_signal, p->pidfd, 0, NULL, 0) != 0) {
		r = errno == EPERM ? -EPERM : -ESRCH;
		close(fd);
		return r;
	}
	return fd;
}

int
peer_open(struct peer *p, int sock)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);
	int r;

	*p = (struct peer){ .uid = (uid_t)-1, .gid = (gid_t)-1, .root = -1, .cwd = -1,
	    .pidfd = -1, .kept = -1 };
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return -errno;
	p->pid = cred.pid;
	p->uid = cred.uid;
	p->gid = cred.gid;
	if (p->pid <= 0)
		return -ESRCH;
	/* root passes every permission check: its groups tell nothing */
	if (p->uid != 0 && (r = peer_groups(p, sock)) != 0)
		return r;
	if ((p->pidfd = peer_pidfd(p, sock)) < -1)
		return p->pidfd;
	if ((p->root = peer_dir(p, "root")) < 0)
		return p->root;
	return 0;
}

int
peer_open_pid(struct peer *p, pid_t tgid, uid_t uid, gid_t gid, gid_t *groups,
    size_t ngroups, int pidfd)
{
	*p = (struct peer){ .pid = tgid, .uid = uid, .gid = gid, .groups = groups,
	    .ngroups = ngroups, .root = -1, .cwd = -1, .pidfd = pidfd, .kept = -1 };
	if (p->pidfd < 0 && (p->pidfd = pidfd_open(tgid, 0)) < 0 && errno != ENOSYS)
		return -errno;
	if ((p->root = peer_dir(p, "root")) < 0)
		return p->root;
	return 0;
}

int
peer_cwd(struct peer *p)
{
	if (p->cwd < 0 && (p->cwd = peer_dir(p, "cwd")) < 0) {
		int r = p->cwd;

		p->cwd = -1;
		return r;
	}
	return p->cwd;
}

void
peer_close(struct peer *p)
{
	if (p->root >= 0)
		close(p->root);
	if (p->cwd >= 0)
		close(p->cwd);
	if (p->pidfd >= 0)
		close(p->pidfd);
	if (p->kept >= 0)
		close(p->kept);
	free(p->groups);
	p->root = p->cwd = p->pidfd = p->kept = -1;
	p->groups = NULL;
	p->ngroups = 0;
}
