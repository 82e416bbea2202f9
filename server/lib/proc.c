/*
 * proc.c: the files of /proc/PID, read by the server about another
 * process (its memory, ids, working directory, the image it runs).  One
 * reader, so that every caller gets the same care: O_CLOEXEC on every
 * fd, reads and writes retried on EINTR and on short counts until the
 * file ends, every result checked, bounds said by the caller.
 *
 * A pid names whatever process holds it now: these functions only read.
 * Callers that must know the file is their process's still check that
 * (a pidfd, SECCOMP_IOCTL_NOTIF_ID_VALID) after opening it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "server.h"

#ifndef PIDFD_GET_INFO		/* Linux 6.13's <linux/pidfd.h>, newer than bookworm's */
struct pidfd_info {
	uint64_t mask;
	uint64_t cgroupid;
	uint32_t pid, tgid, ppid, ruid, rgid, euid, egid, suid, sgid, fsuid, fsgid;
	uint32_t spare0[1];
};
#define PIDFD_GET_INFO		_IOWR(0xFF, 11, struct pidfd_info)
#define PIDFD_INFO_PID		(1UL << 0)
#define PIDFD_INFO_CREDS	(1UL << 1)
#endif

#define PROC_PATH_MAX	64
#define PROC_CHUNK	4096	/* proc_read_all's first buffer */

/* "/proc/PID/what" into path (PROC_PATH_MAX bytes); 0 or -ENAMETOOLONG. */
static int
proc_path(char *path, pid_t pid, const char *what)
{
	int n = snprintf(path, PROC_PATH_MAX, "/proc/%ld/%s", (long)pid, what);

	return n < 0 || n >= PROC_PATH_MAX ? -ENAMETOOLONG : 0;
}

/* Up to max bytes from fd, until its end: the length, or -errno. */
static ssize_t
proc_fill(int fd, char *buf, size_t max)
{
	size_t len = 0;

	while (len < max) {
		ssize_t n = read(fd, buf + len, max - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	return (ssize_t)len;
}

int
proc_open(pid_t pid, const char *what, int flags)
{
	char path[PROC_PATH_MAX];
	int fd, r;

	if ((r = proc_path(path, pid, what)) != 0)
		return r;
	while ((fd = open(path, flags | O_CLOEXEC)) < 0)
		if (errno != EINTR)
			return -errno;
	return fd;
}

ssize_t
proc_read(pid_t pid, const char *what, char *buf, size_t max)
{
	int fd = proc_open(pid, what, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = proc_fill(fd, buf, max);
	close(fd);
	return n;
}

/* Read fd to its end into *b (grown, NUL-terminated, at most max bytes
 * with the NUL): its length, or -errno. */
static ssize_t
proc_fill_all(int fd, char **b, size_t max)
{
	size_t len = 0, cap = PROC_CHUNK < max ? PROC_CHUNK : max;
	ssize_t n;
	char *nb;

	for (;; cap = cap * 2 < max ? cap * 2 : max) {
		if ((nb = realloc(*b, cap)) == NULL)
			return -ENOMEM;
		*b = nb;
		if ((n = proc_fill(fd, nb + len, cap - 1 - len)) < 0)
			return n;
		len += (size_t)n;
		if (len + 1 < cap) {	/* it ended before filling the room */
			nb[len] = '\0';
			return (ssize_t)len;
		}
		if (cap == max)
			return -EFBIG;
	}
}

int
proc_read_all(pid_t pid, const char *what, size_t max, char **out)
{
	int fd = proc_open(pid, what, O_RDONLY);
	ssize_t n;

	*out = NULL;
	if (fd < 0)
		return fd;
	if (max < 2)
		n = -EFBIG;
	else if ((n = proc_fill_all(fd, out, max)) < 0) {
		free(*out);
		*out = NULL;
	}
	close(fd);
	return n < 0 ? (int)n : 0;
}

ssize_t
proc_readlink(pid_t pid, const char *what, char *buf, size_t size)
{
	char path[PROC_PATH_MAX];
	ssize_t n;
	int r;

	if ((r = proc_path(path, pid, what)) != 0)
		return r;
	if ((n = readlink(path, buf, size)) < 0)
		return -errno;
	if ((size_t)n >= size)
		return -ENAMETOOLONG;	/* cut: it may say another name */
	buf[n] = '\0';
	return n;
}

int
proc_stat(pid_t pid, const char *what, struct stat *st)
{
	char path[PROC_PATH_MAX];
	int r;

	if ((r = proc_path(path, pid, what)) != 0)
		return r;
	return stat(path, st) == 0 ? 0 : -errno;
}

int
proc_pread(int mem, void *buf, size_t n, uint64_t addr)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(mem, (char *)buf + got, n - got, (off_t)(addr + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 && errno != EIO ? -errno : -EFAULT;
		got += (size_t)r;
	}
	return 0;
}

int
proc_vm_read(pid_t pid, void *buf, size_t n, uint64_t addr)
{
	struct iovec local = { .iov_base = buf, .iov_len = n };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = n };
	ssize_t r;

	if (addr > UINTPTR_MAX - n)
		return -EFAULT;
	/* one range, read whole or not at all: a short count is a fault */
	while ((r = process_vm_readv(pid, &local, 1, &remote, 1, 0)) < 0 && errno == EINTR)
		continue;
	if (r < 0)
		return -errno;
	return (size_t)r == n ? 0 : -EFAULT;
}

int
proc_pidfd_ids(int pidfd, struct proc_ids *ids)
{
	struct pidfd_info in = { .mask = PIDFD_INFO_PID | PIDFD_INFO_CREDS };

	if (ioctl(pidfd, PIDFD_GET_INFO, &in) != 0)
		return -errno;
	if (!(in.mask & PIDFD_INFO_CREDS) || in.tgid == 0 || in.tgid > INT32_MAX ||
	    in.ppid > INT32_MAX)
		return -EIO;
	ids->tgid = (pid_t)in.tgid;
	ids->ppid = (pid_t)in.ppid;
	ids->euid = (uid_t)in.euid;
	ids->egid = (gid_t)in.egid;
	return 0;
}

int
proc_pwrite(int mem, const void *buf, size_t n, uint64_t addr)
{
	size_t put = 0;

	while (put < n) {
		ssize_t r = pwrite(mem, (const char *)buf + put, n - put, (off_t)(addr + put));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 && errno != EIO ? -errno : -EFAULT;
		put += (size_t)r;
	}
	return 0;
}

/* The fourth field of /proc/PID/stat, after the command's name in
 * parentheses (which may hold anything, ')' too: the last one ends it). */
pid_t
proc_ppid(pid_t pid)
{
	char buf[512], *end;
	ssize_t n = proc_read(pid, "stat", buf, sizeof(buf) - 1);
	long v;

	if (n < 0)
		return (pid_t)n;
	buf[n] = '\0';
	if ((end = strrchr(buf, ')')) == NULL || end[1] != ' ' || end[2] == '\0' ||
	    end[3] != ' ')
		return -EINVAL;
	errno = 0;
	v = strtol(end + 4, &end, 10);
	if (errno != 0 || *end != ' ' || v < 0 || v > INT32_MAX)
		return -EINVAL;
	return (pid_t)v;
}

/* One lookup per field: a status text has some 55 lines, and a scan of
 * each line for each field (sscanf) costs more than the read itself. */
const char *
proc_status_line(const char *status, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = status; p != NULL; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, name, n) == 0 && p[n] == ':')
			return p + n + 1;
	return NULL;
}

int
proc_status_num(const char *status, const char *name, int n, unsigned long *v)
{
	const char *p = proc_status_line(status, name);
	char *end;

	for (int i = 0; p != NULL && i <= n; i++, p = end) {
		errno = 0;
		*v = strtoul(p, &end, 10);
		if (end == p || errno != 0 || (*end != '\t' && *end != ' ' && *end != '\n' &&
		    *end != '\0'))
			return -EIO;
	}
	return p != NULL ? 0 : -EIO;
}
