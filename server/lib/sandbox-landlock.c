/*
 * sandbox-landlock.c: the Landlock layers of the sandbox (sandbox.h;
 * shellesc.h says what a layer allows).  A ruleset is built before any
 * fork, its roots opened once, as fds; a child enters it between fork and
 * exec (sandbox_landlock_enter).  The session -- the embedder and the
 * escalated commands it starts -- is never restricted, which is what
 * gives "escalate" its meaning.
 *
 * With exec_allowed nothing beneath the writable directories may be
 * executed in place either: Landlock's execute right is handled, and
 * granted everywhere else.  Landlock only grants, never takes away, so
 * "everywhere else" is every entry of the directories that hold a
 * writable one, at the time the ruleset is built, recursively down to the
 * writable ones (sandbox_ll_exec); files made later in those directories
 * are not executable.  The exact files exec_allowed names are granted one
 * by one.
 *
 * No silent fallback: a kernel without Landlock, or without the ABI a
 * layer needs, is an error before anything runs.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sandbox.h"

/* Bookworm's kernel headers (6.1) stop at ABI 2; these are stable ABI. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE	(1ULL << 14)	/* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV	(1ULL << 15)	/* ABI 5 */
#endif
#define SANDBOX_LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define SANDBOX_LL_NET_CONNECT_TCP	(1ULL << 1)
/* ABI 6 (Linux 6.12): the scopes, kernel values from linux/landlock.h. */
#ifndef LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET
#define LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET	(1ULL << 0)
#endif
#ifndef LANDLOCK_SCOPE_SIGNAL
#define LANDLOCK_SCOPE_SIGNAL			(1ULL << 1)
#endif

/* struct landlock_ruleset_attr as of ABI 6 (6.1's has only the fs field;
 * the net field is ABI 4's, scoped ABI 6's). */
struct sandbox_ll_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
	uint64_t scoped;
};

/*
 * The scopes: a process of the sandbox cannot connect to an abstract
 * UNIX socket bound by a process outside its Landlock domain, nor signal
 * a process outside it (EPERM); the session's own processes, in the same
 * domain or one nested in it, are unaffected.  Every layer sets them, so
 * the server, the escalated commands and the user's other processes are
 * out of reach of both.  A kernel before ABI 6 has neither: the struct
 * it takes is the shorter one, and docs/security.md says what is left.
 */
static size_t
sandbox_ll_attr_size(int abi)
{
	if (abi >= 6)
		return sizeof(struct sandbox_ll_attr);
	if (abi >= 4)
		return offsetof(struct sandbox_ll_attr, scoped);
	return offsetof(struct sandbox_ll_attr, handled_access_net);
}

static int
sandbox_ll_abi(void)
{
	return (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
}

/* Every right that changes the file system, as far as abi knows them. */
static uint64_t
sandbox_ll_writes(int abi)
{
	uint64_t w = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
	    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
	    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
	    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
	    LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;

	if (abi >= 2)
		w |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		w |= LANDLOCK_ACCESS_FS_TRUNCATE;
	return w;
}

/* ioctl(2) on devices, where abi knows the right. */
static uint64_t
sandbox_ll_ioctl(int abi)
{
	return abi >= 5 ? LANDLOCK_ACCESS_FS_IOCTL_DEV : 0;
}

/* *why: step, with errno and path; returns -errno (-EIO if errno is 0). */
static int
sandbox_ll_fault(struct shellesc_sandbox_fault *why, enum shellesc_sandbox_step step,
    int err, const char *path)
{
	why->step = step;
	why->err = err;
	snprintf(why->path, sizeof(why->path), "%s", path ? path : "");
	return err > 0 ? -err : -EIO;
}

/* Allow rights beneath the file fd (closed here); 0, or -errno. */
static int
sandbox_ll_add(int ruleset, int fd, uint64_t rights, const char *path,
    struct shellesc_sandbox_fault *why)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = rights, .parent_fd = fd };
	int r = 0;

	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0)
		r = sandbox_ll_fault(why, SHELLESC_SANDBOX_ADD_RULE, errno, path);
	close(fd);
	return r;
}

/* Allow rights beneath path; 1 when it does not exist and may not
 * (a device), 0, or -errno. */
static int
sandbox_ll_allow(int ruleset, const char *path, uint64_t rights, bool must_exist,
    struct shellesc_sandbox_fault *why)
{
	int fd = open(path, O_PATH | O_CLOEXEC);

	if (fd < 0) {
		if (errno == ENOENT && !must_exist)
			return 1;
		return sandbox_ll_fault(why, must_exist ? SHELLESC_SANDBOX_WRITABLE :
		    SHELLESC_SANDBOX_DEVICE, errno, path);
	}
	return sandbox_ll_add(ruleset, fd, rights, path, why);
}

/*
 * The devices: the terminals (the controlling one, the ptys, new ptys) and
 * /dev/null may be written and driven by ioctl (job control, editors,
 * isatty); the other memory devices only answer ioctls, harmlessly.  Any
 * other device the session opens -- a virtual console above all -- takes
 * no ioctl at all.
 */
static int
sandbox_ll_devs(int ruleset, int abi, struct shellesc_sandbox_fault *why)
{
	static const char *const ttys[] = { "/dev/null", "/dev/tty", "/dev/ptmx", "/dev/pts" };
	static const char *const quiet[] = { "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom" };
	uint64_t file = LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0);
	int r;

	for (size_t i = 0; i < sizeof(ttys) / sizeof(ttys[0]); i++)
		if ((r = sandbox_ll_allow(ruleset, ttys[i], file | sandbox_ll_ioctl(abi), false,
		    why)) < 0)
			return r;
	for (size_t i = 0; abi >= 5 && i < sizeof(quiet) / sizeof(quiet[0]); i++)
		if ((r = sandbox_ll_allow(ruleset, quiet[i], sandbox_ll_ioctl(abi), false,
		    why)) < 0)
			return r;
	return 0;
}

static int
sandbox_ll_dirs(int ruleset, int abi, char *const *writable,
    struct shellesc_sandbox_fault *why)
{
	struct stat st;
	int r;

	for (size_t i = 0; writable != NULL && writable[i] != NULL; i++) {
		if (stat(writable[i], &st) == 0 && !S_ISDIR(st.st_mode))
			return sandbox_ll_fault(why, SHELLESC_SANDBOX_NOT_DIR, ENOTDIR, writable[i]);
		if ((r = sandbox_ll_allow(ruleset, writable[i], sandbox_ll_writes(abi), true,
		    why)) < 0)
			return r;
	}
	return sandbox_ll_devs(ruleset, abi, why);
}

/* Does a root lie strictly beneath dir, or is dir one? */
static int
sandbox_ll_holds(char *const *roots, const char *dir)
{
	size_t n = strlen(dir);

	for (size_t i = 0; roots[i] != NULL; i++) {
		if (strcmp(roots[i], dir) == 0)
			return 2;
		if (strncmp(roots[i], dir, n) == 0 && (n == 1 || roots[i][n] == '/'))
			return 1;
	}
	return 0;
}

/* Execute beneath path, if it can be opened at all. */
static int
sandbox_ll_exec_leaf(int ruleset, const char *path, struct shellesc_sandbox_fault *why)
{
	int fd = open(path, O_PATH | O_CLOEXEC);

	return fd < 0 ? 0 : sandbox_ll_add(ruleset, fd, LANDLOCK_ACCESS_FS_EXECUTE, path, why);
}

/* Execute beneath dir, but not beneath the roots. */
static int
sandbox_ll_exec(int ruleset, const char *dir, char *const *roots, int depth,
    struct shellesc_sandbox_fault *why)
{
	int holds = sandbox_ll_holds(roots, dir), r = 0;
	struct dirent *e;
	struct stat st;
	char *sub;
	DIR *d;

	if (holds == 2)
		return 0;
	if (holds == 0)
		return sandbox_ll_exec_leaf(ruleset, dir, why);
	if (depth > 64 || (d = opendir(dir)) == NULL)
		return 0;	/* nothing to execute in what cannot be listed */
	while (r == 0 && (e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (asprintf(&sub, "%s%s%s", dir, strcmp(dir, "/") ? "/" : "", e->d_name) < 0) {
			sub = NULL;	/* asprintf leaves it undefined */
			r = sandbox_ll_fault(why, SHELLESC_SANDBOX_NO_MEMORY, ENOMEM, NULL);
		}
		/* a link is granted where it leads: it may lead beneath a root */
		else if (lstat(sub, &st) == 0 && !S_ISLNK(st.st_mode))
			r = sandbox_ll_exec(ruleset, sub, roots, depth + 1, why);
		free(sub);
	}
	closedir(d);
	return r;
}
/* The real paths of writable (NULL-terminated; free with sandbox_ll_free),
 * those that have one: sandbox_ll_dirs has said why of the others. */
static char **
sandbox_ll_roots(char *const *writable)
{
	size_t n = 0, k = 0;
	char **roots;

	while (writable != NULL && writable[n] != NULL)
		n++;
	if ((roots = calloc(n + 1, sizeof(char *))) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((roots[k] = realpath(writable[i], NULL)) != NULL)
			k++;
	return roots;
}

static void
sandbox_ll_free(char **v)
{
	for (size_t i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Execute for the files in allow, and everywhere but beneath writable. */
static int
sandbox_ll_no_exec(int ruleset, char *const *writable, char *const *allow,
    struct shellesc_sandbox_fault *why)
{
	char **roots = sandbox_ll_roots(writable);
	int r = 0;

	if (roots == NULL)
		return sandbox_ll_fault(why, SHELLESC_SANDBOX_NO_MEMORY, ENOMEM, NULL);
	if (roots[0] != NULL)
		r = sandbox_ll_exec(ruleset, "/", roots, 0, why);
	for (size_t i = 0; r == 0 && allow[i] != NULL; i++)
		r = sandbox_ll_exec_leaf(ruleset, allow[i], why);
	sandbox_ll_free(roots);
	return r;
}

static int
sandbox_ll_check(int abi, bool no_network, struct shellesc_sandbox_fault *why)
{
	why->abi = abi;
	if (abi < 0 && (errno == ENOSYS || errno == EOPNOTSUPP))
		return sandbox_ll_fault(why, SHELLESC_SANDBOX_LANDLOCK_MISSING, errno, NULL);
	if (abi < 0)
		return sandbox_ll_fault(why, SHELLESC_SANDBOX_LANDLOCK_QUERY, errno, NULL);
	if (no_network && abi < 4)
		return sandbox_ll_fault(why, SHELLESC_SANDBOX_LANDLOCK_ABI, EOPNOTSUPP, NULL);
	return 0;
}

int
sandbox_landlock_ruleset(const struct shellesc_sandbox_layer *l,
    struct shellesc_sandbox_fault *why)
{
	int abi = sandbox_ll_abi(), fd, r;
	struct sandbox_ll_attr attr = { 0 };

	if ((r = sandbox_ll_check(abi, l->no_network, why)) != 0)
		return r;
	attr.handled_access_fs = sandbox_ll_writes(abi) | sandbox_ll_ioctl(abi) |
	    (l->exec_allowed ? LANDLOCK_ACCESS_FS_EXECUTE : 0);
	if (l->no_network)
		attr.handled_access_net = SANDBOX_LL_NET_BIND_TCP | SANDBOX_LL_NET_CONNECT_TCP;
	if (abi >= 6)
		attr.scoped = LANDLOCK_SCOPE_ABSTRACT_UNIX_SOCKET | LANDLOCK_SCOPE_SIGNAL;
	/* an older kernel takes the shorter struct of its ABI */
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sandbox_ll_attr_size(abi), 0);
	if (fd < 0)
		return sandbox_ll_fault(why, SHELLESC_SANDBOX_LANDLOCK_CREATE, errno, NULL);
	if ((r = sandbox_ll_dirs(fd, abi, l->writable, why)) != 0 || (l->exec_allowed &&
	    (r = sandbox_ll_no_exec(fd, l->writable, l->exec_allowed, why)) != 0)) {
		close(fd);
		return r;
	}
	return fd;
}

/* In a child, before exec: async-signal-safe, so it cannot print: 0, or
 * -1 with errno for the caller to report. */
int
sandbox_landlock_enter(int ruleset)
{
	/* Landlock demands it of an unprivileged caller; it also keeps set-id
	 * programs from running outside what we restrict. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
		return -1;
	return 0;
}
