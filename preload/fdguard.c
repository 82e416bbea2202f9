/*
 * fdguard.c: keeping the session socket alive in programs that close every
 * fd before exec (Python's close_fds, closefrom(3), daemons) or dup2 over
 * its number.  close() of the socket pretends to succeed; ranges are closed
 * around it; dup2/dup3 onto its number first move the socket away.
 *
 * A vfork child shares our memory but not our fd table, so a move made
 * there is recorded apart, tagged with its pid, and never seen by the
 * parent (whose socket did not move).  fork children reset the owner in an
 * atfork handler, so "pid differs from owner" means "vfork child".
 *
 * posix_spawn's file actions run in its child through glibc's internal
 * calls, which no interposer sees: they are guarded when they are added.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include "preload.h"

static struct {
	pid_t pid;
	int fd;
} pl_moved = { -1, -1 };

int
pl_sock(void)
{
	if (pl_moved.pid != -1 && pl_moved.pid == getpid())	/* rare: spare the getpid */
		return pl_moved.fd;
	return pl.sock;
}

static bool
pl_guarded(int fd)
{
	return pl.active && !pl.broken && fd >= 0 && fd == pl_sock() && pl_sock_ok(false);
}

/* The program wants the socket's number: move the socket out of the way.
 * 0 or an errno. */
static int
pl_move_sock(void)
{
	int fd = fcntl(pl_sock(), F_DUPFD, pl_sock() + 1);

	if (fd < 0)
		return errno;
	if (getpid() == pl.owner)
		pl.sock = fd;
	else
		pl_moved.pid = getpid(), pl_moved.fd = fd;
	return 0;
}

PL_EXPORT int
close(int fd)
{
	pl_resolve();
	if (pl_guarded(fd))
		return 0;
	return pl_real.close(fd);
}

/* Close [lo, hi] except the socket. */
static int
pl_close_around(unsigned lo, unsigned hi, int flags)
{
	unsigned s = (unsigned)pl_sock();
	int r = 0;

	if (!pl_guarded((int)s) || s < lo || s > hi)
		return pl_real.close_range(lo, hi, flags);
	if (s > lo)
		r = pl_real.close_range(lo, s - 1, flags);
	if (r == 0 && s < hi)
		r = pl_real.close_range(s + 1, hi, flags);
	return r;
}

PL_EXPORT int
close_range(unsigned lo, unsigned hi, int flags)
{
	pl_resolve();
	return pl_close_around(lo, hi, flags);
}

PL_EXPORT void
closefrom(int lo)
{
	int saved = errno;

	pl_resolve();
	if (!pl_guarded(pl_sock()) || pl_sock() < lo) {
		pl_real.closefrom(lo);
		return;
	}
	pl_close_around((unsigned)lo, ~0U, 0);
	errno = saved;
}

PL_EXPORT int
dup2(int old, int new)
{
	int e;

	pl_resolve();
	if (pl_guarded(new) && old != new && (e = pl_move_sock()) != 0)
		return pl_errno(e);
	return pl_real.dup2(old, new);
}

PL_EXPORT int
dup3(int old, int new, int flags)
{
	int e;

	pl_resolve();
	if (pl_guarded(new) && old != new && (e = pl_move_sock()) != 0)
		return pl_errno(e);
	return pl_real.dup3(old, new, flags);
}

/* --- posix_spawn file actions ------------------------------------------ */

PL_EXPORT int
posix_spawn_file_actions_addclose(posix_spawn_file_actions_t *fa, int fd)
{
	pl_resolve();
	if (pl_guarded(fd))
		return 0;	/* as close(): the socket stays */
	return pl_real.fa_addclose(fa, fd);
}

/*
 * The child will put something on the socket's number: move the socket now,
 * in the parent, and free the number there too, as a dup2 would have
 * (children get the new number in their environment).  Returns an errno.
 */
static int
pl_free_sock_number(void)
{
	int old = pl_sock(), e;

	if ((e = pl_move_sock()) != 0)
		return e;
	pl_real.close(old);
	return 0;
}

PL_EXPORT int
posix_spawn_file_actions_adddup2(posix_spawn_file_actions_t *fa, int old, int new)
{
	int r;

	pl_resolve();
	if (pl_guarded(new) && old != new && (r = pl_free_sock_number()) != 0)
		return r;
	return pl_real.fa_adddup2(fa, old, new);
}

PL_EXPORT int
posix_spawn_file_actions_addopen(posix_spawn_file_actions_t *fa, int fd,
    const char *path, int oflag, mode_t mode)
{
	int r;

	pl_resolve();
	if (pl_guarded(fd) && (r = pl_free_sock_number()) != 0)
		return r;
	return pl_real.fa_addopen(fa, fd, path, oflag, mode);
}

/* There is no "close a range" action: close each fd below the socket, then the rest. */
PL_EXPORT int
posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *fa, int lo)
{
	int s, r = 0;

	pl_resolve();
	s = pl_sock();
	if (!pl_guarded(s) || s < lo)
		return pl_real.fa_addclosefrom(fa, lo);
	for (int fd = lo; fd < s && r == 0; fd++)
		r = pl_real.fa_addclose(fa, fd);
	return r != 0 ? r : pl_real.fa_addclosefrom(fa, s + 1);
}
