/*
 * sandbox-git.c: the top-level .git of each writable root, read-only.
 *
 * A repository's .git holds what git runs: hooks, and configuration that
 * names programs (core.fsmonitor, core.pager, diff and filter drivers).
 * A git escalated in a repository the sandbox could write would run the
 * sandbox's choice outside it.  So, as Codex does, the sandboxed side gets
 * each writable root's .git read-only.  Landlock only grants, it cannot
 * take a subtree back out of a writable root; a read-only bind mount can,
 * in a mount namespace of the sandbox's own (unshare(CLONE_NEWNS) with
 * CAP_SYS_ADMIN, else together with a user namespace that maps the uid and
 * gid to themselves).  Landlock then keeps the sandboxed side from
 * unmounting it.
 *
 * The directories are found when the sandbox is built (by name: root/.git,
 * a directory, no symbolic link last) and remembered by identity; in the
 * child each is opened again after the unshare, checked to be the same
 * directory, and covered with a read-only clone of itself through the
 * mount API's fds (open_tree, mount_setattr, move_mount: Linux 5.12), so
 * no name is followed twice.  Where no namespace can be had (checked when
 * the sandbox is built, by a child that tries), they stay writable and
 * the builder says so (SHELLESC_SANDBOX_GIT_WRITABLE).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/mount.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fmt.h"
#include "sandbox.h"

/* root/.git, a directory: remembered (0), absent (1), or -errno. */
static int
sandbox_git_add(struct shellesc_sandbox *sb, const char *root)
{
	struct sandbox_git *g = &sb->git[sb->ngit];
	struct stat st;
	int n;

	if ((n = snprintf(g->path, sizeof(g->path), "%s/.git", root)) < 0 ||
	    (size_t)n >= sizeof(g->path))
		return -ENAMETOOLONG;
	if (lstat(g->path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 1;	/* none, or a link or a file: see docs/security.md */
	for (size_t i = 0; i < sb->ngit; i++)
		if (sb->git[i].dev == st.st_dev && sb->git[i].ino == st.st_ino)
			return 1;
	if (sb->ngit == SANDBOX_GIT_MAX)
		return -E2BIG;
	g->dev = st.st_dev;
	g->ino = st.st_ino;
	sb->ngit++;
	return 0;
}

/* Can this process make a mount namespace (with a user namespace if it
 * must)?  A child tries; 0, or the errno of its failure. */
static int
sandbox_git_probe(bool userns)
{
	int flags = CLONE_NEWNS | (userns ? CLONE_NEWUSER : 0), st;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0)
		_exit(unshare(flags) == 0 ? 0 : errno & 0xff);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return errno;
	return WIFEXITED(st) ? WEXITSTATUS(st) : EIO;
}

int
sandbox_git_find(struct shellesc_sandbox *sb, const struct shellesc_sandbox_config *cfg,
    struct shellesc_sandbox_fault *why)
{
	int r;

	for (size_t i = 0; i < cfg->n_layers; i++)
		for (char *const *w = cfg->layers[i].writable;
		    !cfg->layers[i].writable_git && w != NULL && *w != NULL; w++)
			if ((r = sandbox_git_add(sb, *w)) < 0) {
				why->step = SHELLESC_SANDBOX_GIT_WRITABLE;
				why->err = -r;
				snprintf(why->path, sizeof(why->path), "%s/.git", *w);
				return r;
			}
	if (sb->ngit == 0)
		return 0;
	sb->git_userns = geteuid() != 0;
	if ((r = sandbox_git_probe(sb->git_userns)) != 0) {
		/* no namespace: they stay writable, and the embedder is told */
		why->step = SHELLESC_SANDBOX_GIT_WRITABLE;
		why->err = r;
		snprintf(why->path, sizeof(why->path), "%s", sb->git[0].path);
		sb->ngit = 0;
	}
	return 0;
}

/* "ID ID 1" into /proc/self/FILE (async-signal-safe); 0 or -1. */
static int
sandbox_git_map(const char *file, unsigned long id)
{
	char line[64];
	size_t n = fmt_uint(line, id);
	int fd, ok;

	line[n++] = ' ';
	n += fmt_uint(line + n, id);
	memcpy(line + n, " 1\n", 3);
	n += 3;
	if ((fd = open(file, O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	ok = write(fd, line, n) == (ssize_t)n;
	close(fd);
	return ok ? 0 : -1;
}

/* A user namespace whose root is our uid and gid; 0 or -1. */
static int
sandbox_git_userns(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	int fd, ok;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
		return -1;
	if ((fd = open("/proc/self/setgroups", O_WRONLY | O_CLOEXEC)) < 0)
		return -1;
	ok = write(fd, "deny\n", 5) == 5;
	close(fd);
	if (!ok || sandbox_git_map("/proc/self/uid_map", uid) != 0 ||
	    sandbox_git_map("/proc/self/gid_map", gid) != 0)
		return -1;
	return 0;
}

/* Cover g with a read-only clone of itself; 0 or -1 with errno. */
static int
sandbox_git_cover(const struct sandbox_git *g)
{
	struct mount_attr ro = { .attr_set = MOUNT_ATTR_RDONLY };
	struct stat st;
	int dir, tree = -1, r = -1;

	if ((dir = open(g->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
		return -1;
	if (fstat(dir, &st) != 0)
		goto out;
	if (st.st_dev != g->dev || st.st_ino != g->ino) {
		errno = ESTALE;		/* replaced since the sandbox was built */
		goto out;
	}
	if ((tree = (int)syscall(SYS_open_tree, dir, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	    AT_EMPTY_PATH)) < 0 ||
	    syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &ro, sizeof(ro)) != 0 ||
	    syscall(SYS_move_mount, tree, "", dir, "",
	    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
		goto out;
	r = 0;
out:
	if (tree >= 0)
		close(tree);
	close(dir);
	return r;
}

int
sandbox_git_enter(const struct shellesc_sandbox *sb)
{
	if (sb->ngit == 0)
		return 0;
	if (sb->git_userns ? sandbox_git_userns() != 0 : unshare(CLONE_NEWNS) != 0)
		return -1;
	/* our mounts stay ours; the system's still reach us */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) != 0)
		return -1;
	for (size_t i = 0; i < sb->ngit; i++)
		if (sandbox_git_cover(&sb->git[i]) != 0)
			return -1;
	return 0;
}
