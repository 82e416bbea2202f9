/*
 * tree.c: an escalated command's whole process tree ends with it.
 *
 * Signalling the command's process group misses what left the group: a
 * child that called setsid(2), a daemon that double-forked.  So each
 * escalated command runs
 *
 *   - in a cgroup of its own, where this process may make one: a child
 *     of its own cgroup v2 (root, or a subtree delegated to the user) whose
 *     cgroup.kill (Linux 5.14) ends every process in it at once, whatever
 *     its session or parent; the child joins it before exec (spawn.c);
 *   - else under a keeper (spawn.c): an intermediate process that is the
 *     command's parent and a child subreaper (PR_SET_CHILD_SUBREAPER,
 *     Linux 3.4), so every orphan of the tree becomes its child; when the
 *     command ends it kills them all, reaps them, and ends as the command
 *     did.
 *
 * Either way the tree ends when the command does (its exit, cancel,
 * timeout, the session's end): daemons it started included.
 * SHELLESC_TREE=subreaper in the environment forces the keeper (so the
 * tests cover both).
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "server.h"

#define TREE_EMPTY_MS	1000	/* how long a killed cgroup may take to empty */

static pthread_once_t tree_once = PTHREAD_ONCE_INIT;
static atomic_ulong tree_next;		/* cgroup names: sessions share the process */

/* Cgroups that were not empty in time: removed at a later tree_end. */
#define TREE_LATER	16
static pthread_mutex_t tree_later_mu = PTHREAD_MUTEX_INITIALIZER;
static char *tree_later[TREE_LATER];
static char tree_base[PATH_MAX];	/* our cgroup v2 directory, "" if unusable */
static const char *tree_why = "";	/* why the keeper, if it is */

/* The mount point of cgroup v2 (its root "/") from mountinfo, into out. */
static bool
tree_mount(char *out, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], root[PATH_MAX], mnt[PATH_MAX];
	bool found = false;

	while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL)
		found = strstr(line, " - cgroup2 ") != NULL &&
		    sscanf(line, "%*s %*s %*s %4095s %4095s", root, mnt) == 2 &&
		    strcmp(root, "/") == 0 && snprintf(out, size, "%s", mnt) < (int)size;
	if (f != NULL)
		fclose(f);
	return found;
}

/* Our own cgroup v2 path ("0::PATH" in /proc/self/cgroup), into out. */
static bool
tree_own(char *out, size_t size)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[4096];
	bool found = false;

	while (f != NULL && !found && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "0::/", 4) == 0) {
			line[strcspn(line, "\n")] = '\0';
			found = snprintf(out, size, "%s", line + 3) < (int)size;
		}
	if (f != NULL)
		fclose(f);
	return found;
}

/* May we make a child cgroup with cgroup.kill beneath base? */
static bool
tree_usable(const char *base)
{
	char dir[PATH_MAX + 64], kill[PATH_MAX + 80];
	bool ok;

	snprintf(dir, sizeof(dir), "%s/shellesc-%ld-probe", base, (long)getpid());
	if (mkdir(dir, 0700) != 0) {
		tree_why = "no cgroup of our own can be made beneath ours";
		return false;
	}
	snprintf(kill, sizeof(kill), "%s/cgroup.kill", dir);
	if (!(ok = access(kill, W_OK) == 0))
		tree_why = "the kernel has no cgroup.kill (Linux 5.14)";
	rmdir(dir);
	return ok;
}

/*
 * The cgroups of servers that are gone (killed before they could remove
 * them: "shellesc-PID-N" with no process PID): removed, if empty.  A pid
 * reused since only keeps its old cgroup a while longer.
 */
static void
tree_sweep_stale(const char *base)
{
	DIR *d = opendir(base);
	struct dirent *e;
	char path[PATH_MAX + 300];
	long pid;

	while (d != NULL && (e = readdir(d)) != NULL)
		if (sscanf(e->d_name, "shellesc-%ld-", &pid) == 1 && pid > 0 &&
		    kill((pid_t)pid, 0) != 0 && errno == ESRCH) {
			snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
			rmdir(path);
		}
	if (d != NULL)
		closedir(d);
}

static void
tree_probe(void)
{
	const char *force = getenv("SHELLESC_TREE");
	char mnt[PATH_MAX], own[PATH_MAX];

	tree_base[0] = '\0';
	if (force != NULL && strcmp(force, "subreaper") == 0)
		tree_why = "SHELLESC_TREE=subreaper";
	else if (!tree_mount(mnt, sizeof(mnt)) || !tree_own(own, sizeof(own)))
		tree_why = "no cgroup v2 hierarchy of ours";
	else if (snprintf(tree_base, sizeof(tree_base), "%s%s", mnt,
	    strcmp(own, "/") == 0 ? "" : own) >= (int)sizeof(tree_base) ||
	    !tree_usable(tree_base))
		tree_base[0] = '\0';
	else
		tree_sweep_stale(tree_base);
}

const char *
tree_mechanism(char *buf, size_t size)
{
	pthread_once(&tree_once, tree_probe);
	if (tree_base[0] != '\0')
		snprintf(buf, size, "each in a cgroup of its own beneath %s (cgroup.kill)",
		    tree_base);
	else
		snprintf(buf, size, "each under a subreaper that ends its tree (%s)", tree_why);
	return buf;
}

void
tree_init(struct tree *t)
{
	t->procs = -1;
	t->keeper = false;
	t->path = NULL;
}

int
tree_start(struct tree *t)
{
	char procs[PATH_MAX + 128];

	tree_init(t);
	pthread_once(&tree_once, tree_probe);
	if (tree_base[0] != '\0' && asprintf(&t->path, "%s/shellesc-%ld-%lu", tree_base,
	    (long)getpid(), atomic_fetch_add(&tree_next, 1) + 1) < 0)
		return -ENOMEM;
	if (t->path != NULL && mkdir(t->path, 0700) == 0) {
		snprintf(procs, sizeof(procs), "%s/cgroup.procs", t->path);
		if ((t->procs = open(procs, O_WRONLY | O_CLOEXEC)) >= 0)
			return 0;
		rmdir(t->path);
	}
	free(t->path);		/* the cgroup failed this once: the keeper */
	t->path = NULL;
	t->keeper = true;
	return 0;
}

/* Write s to the cgroup's file name. */
static void
tree_write(const struct tree *t, const char *name, const char *s)
{
	char path[PATH_MAX + 128];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", t->path, name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) < 0)
		return;
	while (write(fd, s, strlen(s)) < 0 && errno == EINTR)
		;
	close(fd);
}

void
tree_kill(const struct tree *t)
{
	if (t->path != NULL)
		tree_write(t, "cgroup.kill", "1");
}

/* Until the cgroup has no process (cgroup.events: "populated 0"), or ms. */
static void
tree_wait_empty(const struct tree *t, int ms)
{
	char path[PATH_MAX + 128], buf[256];
	int64_t until = clock_now_ms() + ms;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/cgroup.events", t->path);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	while ((n = pread(fd, buf, sizeof(buf) - 1, 0)) > 0) {
		struct pollfd p = { .fd = fd, .events = POLLPRI };
		int64_t left = until - clock_now_ms();

		buf[n] = '\0';
		if (strstr(buf, "populated 0") != NULL || left <= 0)
			break;
		poll(&p, 1, (int)left);		/* a change wakes it (POLLPRI) */
	}
	close(fd);
}

/* Try the cgroups left before again; keep path (taken over) for later if
 * it is still busy (with no room, it is left to the system). */
static void
tree_remove_later(char *path)
{
	pthread_mutex_lock(&tree_later_mu);
	for (size_t i = 0; i < TREE_LATER; i++)
		if (tree_later[i] != NULL && rmdir(tree_later[i]) == 0) {
			free(tree_later[i]);
			tree_later[i] = NULL;
		}
	for (size_t i = 0; path != NULL && i < TREE_LATER; i++)
		if (tree_later[i] == NULL) {
			tree_later[i] = path;
			path = NULL;
		}
	pthread_mutex_unlock(&tree_later_mu);
	free(path);
}

void
tree_end(struct tree *t)
{
	if (t->path != NULL) {
		tree_kill(t);
		tree_wait_empty(t, TREE_EMPTY_MS);
		if (rmdir(t->path) == 0) {
			free(t->path);
			t->path = NULL;
		}
		tree_remove_later(t->path);	/* EBUSY: try again later */
	}
	if (t->procs >= 0)
		close(t->procs);
	tree_init(t);
}
