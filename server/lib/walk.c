/*
 * walk.c: a path resolved the way the peer's execve(2) would resolve it,
 * but by the server.  Letting the kernel resolve it for us would be wrong
 * wherever a path means something different to each process: /proc/self
 * (and /dev/fd/N, /dev/stdin..., which lead there) would name the
 * server's fds, a relative path the server's cwd.  So the walk starts at
 * the peer's root or working directory (/proc/PID/root, /proc/PID/cwd),
 * takes one component at a time with O_PATH|O_NOFOLLOW, and follows
 * symbolic links itself, as the kernel does (at most WALK_MAX_LINKS, ".."
 * never above the root), with "self" and "thread-self" at the top of a
 * procfs meaning the peer.  The links below /proc/PID (fd/N, exe, cwd,
 * root) are "magic": they name an object, not a path, and mean the same
 * to whoever follows them, so the kernel follows those.  Most paths meet
 * neither, and are resolved by the kernel in one call (walk_fast).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "server.h"

#define WALK_MAX_LINKS	40		/* the kernel's MAXSYMLINKS */
#define WALK_MAX_LEN	(16 * PATH_MAX)	/* the path left to walk, links expanded */
#define WALK_PROC_MAGIC	0x9fa0		/* PROC_SUPER_MAGIC */
#define WALK_PROC_ROOT	1		/* the inode of a procfs's top */

struct walk {
	struct peer *p;
	int cur;		/* the directory reached so far */
	char *path;		/* links expanded (malloc'd) ... */
	size_t at;		/* ... and how far it was walked */
	int links;
};

/* 1: dir is in a procfs (2: at its top), 0: not, or -errno. */
static int
walk_procfs(int dir)
{
	struct statfs sf;
	struct stat st;

	if (fstatfs(dir, &sf) != 0 || fstat(dir, &st) != 0)
		return -errno;
	if (sf.f_type != WALK_PROC_MAGIC)
		return 0;
	return st.st_ino == WALK_PROC_ROOT ? 2 : 1;
}

static bool
walk_same(int a, int b)
{
	struct stat sa, sb;

	return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 &&
	    sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Continue from fd (taken over) instead of the current directory. */
static void
walk_move(struct walk *w, int fd)
{
	close(w->cur);
	w->cur = fd;
}

/* What is left to walk becomes head + the rest after w->at. */
static int
walk_prepend(struct walk *w, const char *head)
{
	const char *tail = w->path + w->at;
	size_t hl = strlen(head), tl = strlen(tail);
	char *n;

	if (hl + tl >= WALK_MAX_LEN)
		return -ENAMETOOLONG;
	if ((n = malloc(hl + tl + 1)) == NULL)
		return -ENOMEM;
	memcpy(n, head, hl);
	memcpy(n + hl, tail, tl + 1);
	free(w->path);
	w->path = n;
	w->at = 0;
	return 0;
}

/* A symbolic link (lfd) met in the current directory: walk its target in
 * its place. */
static int
walk_link(struct walk *w, int lfd)
{
	char target[PATH_MAX + 1];
	ssize_t n = readlinkat(lfd, "", target, sizeof(target));
	int fd;

	if (n < 0)
		return -errno;
	if (n == 0 || n > PATH_MAX)
		return n == 0 ? -ENOENT : -ENAMETOOLONG;
	target[n] = '\0';
	if (++w->links > WALK_MAX_LINKS)
		return -ELOOP;
	if (target[0] == '/') {
		if ((fd = fcntl(w->p->root, F_DUPFD_CLOEXEC, 0)) < 0)
			return -errno;
		walk_move(w, fd);
	}
	return walk_prepend(w, target);
}

/* "self" and "thread-self" at the top of a procfs: the peer's.  The thread
 * asking is not known: its process's first thread shares its fds in all
 * but the rarest programs. */
static int
walk_self(struct walk *w, char *name, size_t size)
{
	char more[64];
	int r;

	if (strcmp(name, "self") != 0 && strcmp(name, "thread-self") != 0)
		return 0;
	if ((r = walk_procfs(w->cur)) <= 1)
		return r;
	if (strcmp(name, "thread-self") == 0) {
		snprintf(more, sizeof(more), "task/%ld", (long)w->p->pid);
		if ((r = walk_prepend(w, more)) != 0)
			return r;
	}
	snprintf(name, size, "%ld", (long)w->p->pid);
	return 0;
}

/* Step into name, a component of the current directory. */
static int
walk_step(struct walk *w, char *name, size_t size)
{
	int fd, r, proc;
	struct stat st;

	if ((r = walk_self(w, name, size)) != 0)
		return r;
	if ((fd = openat(w->cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -errno;
	if (fstat(fd, &st) != 0) {
		r = -errno;
		close(fd);
		return r;
	}
	if (!S_ISLNK(st.st_mode)) {
		walk_move(w, fd);
		return 0;
	}
	if ((proc = walk_procfs(w->cur)) == 1) {	/* below the top: magic */
		close(fd);
		if ((fd = openat(w->cur, name, O_PATH | O_CLOEXEC)) < 0)
			return -errno;
		walk_move(w, fd);
		return 0;
	}
	r = proc < 0 ? proc : walk_link(w, fd);
	close(fd);
	return r;
}

/* "..": up, but never above the peer's root. */
static int
walk_up(struct walk *w)
{
	int fd;

	if (walk_same(w->cur, w->p->root))
		return 0;
	if ((fd = openat(w->cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return -errno;
	walk_move(w, fd);
	return 0;
}

/* Walk the next component: 1, 0 at the end, or -errno. */
static int
walk_next(struct walk *w)
{
	char name[NAME_MAX + 32];
	const char *s = w->path + w->at + strspn(w->path + w->at, "/");
	size_t len = strcspn(s, "/");
	int r;

	if (len == 0)
		return 0;
	if (len > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, s, len);
	name[len] = '\0';
	w->at = (size_t)(s - w->path) + len;
	if (strcmp(name, ".") == 0)
		r = 0;
	else if (strcmp(name, "..") == 0)
		r = walk_up(w);
	else
		r = walk_step(w, name, sizeof(name));
	return r != 0 ? r : 1;
}

/* Is the peer's root ours (so absolute links mean the same to both)? */
static bool
walk_same_root(const struct peer *p)
{
	struct stat a, b;

	return fstat(p->root, &a) == 0 && stat("/", &b) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * The common case in one system call: openat2(2) resolves the whole path
 * from the peer's root (RESOLVE_IN_ROOT) or working directory, and refuses
 * magic links.  It cannot tell the peer's "self" from ours, so a result
 * inside a procfs, and any failure, are taken the slow way.  Returns 0, or
 * 1 for the slow way.
 */
static atomic_bool walk_no_openat2;

static int
walk_fast(struct peer *p, const char *path, int *out)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_NO_MAGICLINKS };
	int dir = p->root, fd;
	struct statfs sf;

	if (walk_no_openat2)
		return 1;
	if (path[0] == '/')
		how.resolve |= RESOLVE_IN_ROOT;
	else if ((dir = peer_cwd(p)) < 0 || !walk_same_root(p))
		return 1;
	if ((fd = (int)syscall(SYS_openat2, dir, path, &how, sizeof(how))) < 0) {
		walk_no_openat2 = errno == ENOSYS;
		return 1;
	}
	if (fstatfs(fd, &sf) != 0 || sf.f_type == WALK_PROC_MAGIC) {
		close(fd);
		return 1;
	}
	*out = fd;
	return 0;
}

/* The slow way: a component at a time. */
static int
walk_slow(struct peer *p, const char *path, int *out)
{
	struct walk w = { .p = p };
	int r, start = path[0] == '/' ? p->root : peer_cwd(p);

	if (start < 0)
		return start;
	if ((w.cur = fcntl(start, F_DUPFD_CLOEXEC, 0)) < 0)
		return -errno;
	if ((w.path = strdup(path)) == NULL)
		r = -ENOMEM;
	else
		while ((r = walk_next(&w)) > 0)
			;
	free(w.path);
	if (r != 0) {
		close(w.cur);
		return r;
	}
	*out = w.cur;
	return 0;
}

int
walk_open(struct peer *p, const char *path, int *out)
{
	struct stat st;
	int r;

	if (path[0] == '\0')
		return -ENOENT;
	if (p->kept >= 0 && strcmp(path, p->kept_name) == 0) {
		*out = p->kept;		/* opened by this very walk a moment ago */
		p->kept = -1;
		return 0;
	}
	if (walk_fast(p, path, out) != 0 && (r = walk_slow(p, path, out)) != 0)
		return r;
	/* a trailing '/' asks for a directory, as it does of the kernel */
	if (path[strlen(path) - 1] == '/' && (fstat(*out, &st) != 0 || !S_ISDIR(st.st_mode))) {
		close(*out);
		return -ENOTDIR;
	}
	return 0;
}
