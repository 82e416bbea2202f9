/*
 * cli-landlock.c: --sandbox landlock.  The ruleset is built before any
 * fork: the sandboxed side may read and execute anywhere, and write only
 * beneath the --writable directories, /dev/null, /dev/tty and the ptys;
 * with --no-network it may neither connect nor bind TCP.  Where the kernel
 * has Landlock ABI 5, ioctls on devices it opens are limited to the
 * terminals and the harmless memory devices (descriptors it inherited,
 * such as its terminal, are not limited: Landlock decides at open).  A
 * child enters it between fork and exec (cli_landlock_enter).  The server side --
 * shellesc and the escalated commands it starts -- is never restricted,
 * which is what gives "escalate" its meaning.
 *
 * No silent fallback: a kernel without Landlock, or without the ABI an
 * option needs, is an error before anything runs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"

/* Bookworm's kernel headers (6.1) stop at ABI 2; these are stable ABI. */
#ifndef LANDLOCK_ACCESS_FS_TRUNCATE
#define LANDLOCK_ACCESS_FS_TRUNCATE	(1ULL << 14)	/* ABI 3 */
#endif
#ifndef LANDLOCK_ACCESS_FS_IOCTL_DEV
#define LANDLOCK_ACCESS_FS_IOCTL_DEV	(1ULL << 15)	/* ABI 5 */
#endif
#define CLI_LL_NET_BIND_TCP		(1ULL << 0)	/* ABI 4 */
#define CLI_LL_NET_CONNECT_TCP		(1ULL << 1)

/* struct landlock_ruleset_attr as of ABI 4 (6.1's lacks the net field). */
struct cli_ll_attr {
	uint64_t handled_access_fs;
	uint64_t handled_access_net;
};

static int
cli_ll_abi(void)
{
	return (int)syscall(SYS_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);
}

/* Every right that changes the file system, as far as abi knows them. */
static uint64_t
cli_ll_writes(int abi)
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
cli_ll_ioctl(int abi)
{
	return abi >= 5 ? LANDLOCK_ACCESS_FS_IOCTL_DEV : 0;
}

/* Allow rights beneath path; 1 when it does not exist and may not. */
static int
cli_ll_allow(int ruleset, const char *path, uint64_t rights, bool must_exist)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = rights };
	int r = 0;

	if ((pb.parent_fd = open(path, O_PATH | O_CLOEXEC)) < 0) {
		if (errno == ENOENT && !must_exist)
			return 1;
		cli_warn("%s%s", must_exist ? "--writable " : "", path);
		return -1;
	}
	if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0) != 0) {
		cli_warn("Landlock: cannot add a rule for %s", path);
		r = -1;
	}
	close(pb.parent_fd);
	return r;
}

/*
 * The devices: the terminals (the controlling one, the ptys, new ptys) and
 * /dev/null may be written and driven by ioctl (job control, editors,
 * isatty); the other memory devices only answer ioctls, harmlessly.  Any
 * other device the session opens -- a virtual console above all -- takes
 * no ioctl at all.
 */
static int
cli_ll_devs(int ruleset, int abi)
{
	static const char *const ttys[] = { "/dev/null", "/dev/tty", "/dev/ptmx", "/dev/pts" };
	static const char *const quiet[] = { "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom" };
	uint64_t file = LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? LANDLOCK_ACCESS_FS_TRUNCATE : 0);

	for (size_t i = 0; i < sizeof(ttys) / sizeof(ttys[0]); i++)
		if (cli_ll_allow(ruleset, ttys[i], file | cli_ll_ioctl(abi), false) < 0)
			return -1;
	for (size_t i = 0; abi >= 5 && i < sizeof(quiet) / sizeof(quiet[0]); i++)
		if (cli_ll_allow(ruleset, quiet[i], cli_ll_ioctl(abi), false) < 0)
			return -1;
	return 0;
}

static int
cli_ll_dirs(int ruleset, int abi, const struct cli_strv *writable)
{
	struct stat st;

	for (size_t i = 0; i < writable->n; i++) {
		if (stat(writable->v[i], &st) == 0 && !S_ISDIR(st.st_mode)) {
			cli_warnx("--writable %s: not a directory", writable->v[i]);
			return -1;
		}
		if (cli_ll_allow(ruleset, writable->v[i], cli_ll_writes(abi), true) < 0)
			return -1;
	}
	return cli_ll_devs(ruleset, abi);
}

static int
cli_ll_check(int abi, bool no_network)
{
	if (abi < 0 && (errno == ENOSYS || errno == EOPNOTSUPP)) {
		cli_warnx("--sandbox landlock: this kernel %s Landlock (Linux 5.13 or later, "
		    "with landlock in the lsm= list)", errno == ENOSYS ? "lacks" : "has disabled");
		return -1;
	}
	if (abi < 0) {
		cli_warn("--sandbox landlock: cannot query Landlock");
		return -1;
	}
	if (no_network && abi < 4) {
		cli_warnx("--no-network: this kernel's Landlock ABI is %d; TCP rules need "
		    "ABI 4 (Linux 6.7 or later)", abi);
		return -1;
	}
	return 0;
}

/* The ruleset fd (close-on-exec), or -1 after a message. */
int
cli_landlock_ruleset(const struct cli_strv *writable, bool no_network)
{
	int abi = cli_ll_abi(), fd;
	struct cli_ll_attr attr = { 0 };

	if (cli_ll_check(abi, no_network) != 0)
		return -1;
	attr.handled_access_fs = cli_ll_writes(abi) | cli_ll_ioctl(abi);
	if (no_network)
		attr.handled_access_net = CLI_LL_NET_BIND_TCP | CLI_LL_NET_CONNECT_TCP;
	/* an older kernel takes the shorter struct of its ABI */
	fd = (int)syscall(SYS_landlock_create_ruleset, &attr,
	    abi >= 4 ? sizeof(attr) : sizeof(attr.handled_access_fs), 0);
	if (fd < 0) {
		cli_warn("--sandbox landlock: cannot create a ruleset");
		return -1;
	}
	if (cli_ll_dirs(fd, abi, writable) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* In a child, before exec: async-signal-safe, so it cannot print: 0, or
 * -1 with errno for the caller to report. */
int
cli_landlock_enter(int ruleset)
{
	/* Landlock demands it of an unprivileged caller; it also keeps set-id
	 * programs from running outside what we restrict. */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
		return -1;
	return 0;
}
