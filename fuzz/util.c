/* util.c: helpers shared by the fuzz targets. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz.h"

void
fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: check failed: %s: ", file, line, cond);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

int
fz_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	FZ_CHECK(d != NULL, "opendir /proc/self/fd");
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;
}

void
fz_list_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char path[300], target[256];
	ssize_t n;

	while (d && (e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
		n = readlink(path, target, sizeof(target) - 1);
		target[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "  fd %s -> %s\n", e->d_name, target);
	}
	if (d)
		closedir(d);
}

int
fz_fds_settle(int want, int ms)
{
	int n;

	while ((n = fz_count_fds()) > want && ms > 0) {
		poll(NULL, 0, 1);
		ms--;
	}
	return n;
}

void
fz_pair(int type, int sv[2])
{
	FZ_CHECK(socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) == 0, "socketpair: %d", errno);
}

void
fz_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t k = send(fd, c, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)	/* the peer may be gone: that is its business */
			return;
		c += k;
		n -= (size_t)k;
	}
}

void
fz_null_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		FZ_CHECK((fds[i] = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0, "open /dev/null");
}

uint8_t
fz_byte(struct fz_in *in)
{
	if (in->left == 0)
		return 0;
	in->left--;
	return *in->p++;
}

const uint8_t *
fz_take(struct fz_in *in, size_t n, size_t *got)
{
	const uint8_t *p = in->p;

	*got = n < in->left ? n : in->left;
	in->p += *got;
	in->left -= *got;
	return p;
}
