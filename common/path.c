/*
 * path.c: lexical path cleaning, what execve would say of a file, and
 * glibc's PATH search, once for every part (path.h).  No allocation, no
 * locale, no stdio.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"

/* Append to out[n..] the components of p that name something ("" and "."
 * do not), each after a '/'.  Returns the new length, or size when it
 * would not fit. */
static size_t
path_append(char *out, size_t n, size_t size, const char *p)
{
	while (*p != '\0') {
		size_t len;

		p += strspn(p, "/");
		len = strcspn(p, "/");
		if (len > 0 && !(len == 1 && p[0] == '.')) {
			if (n + 1 + len >= size)
				return size;
			out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p += len;
	}
	return n;
}

void
path_clean(char *path)
{
	bool absolute = path[0] == '/';
	const char *s = path;
	size_t o = 0, len;

	/* Each component written after the first consumed a '/' of its own,
	 * so writing never overtakes reading. */
	while (*s != '\0') {
		s += strspn(s, "/");
		len = strcspn(s, "/");
		if (len > 0 && !(len == 1 && s[0] == '.')) {
			if (o > 0 || absolute)
				path[o++] = '/';
			memmove(path + o, s, len);
			o += len;
		}
		s += len;
	}
	if (o == 0)
		path[o++] = absolute ? '/' : '.';
	path[o] = '\0';
}

size_t
path_absolute(char *out, size_t size, const char *cwd, const char *file)
{
	size_t n = 0;

	if (size < 2)
		return 0;
	if (file[0] != '/')
		n = path_append(out, n, size, cwd);
	if (n < size)
		n = path_append(out, n, size, file);
	if (n >= size) {
		out[0] = '\0';
		return 0;
	}
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return n;
}

int
path_executable(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		return errno;
	if (!S_ISREG(st.st_mode))
		return EACCES;
	if (faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) != 0)
		return errno;
	return 0;
}

/* Does glibc go on to the next PATH entry after this error? */
static bool
path_goes_on(int e)
{
	return e == EACCES || e == ENOENT || e == ENOTDIR || e == ESTALE ||
	    e == ENODEV || e == ETIMEDOUT;
}

int
path_search(const char *path, const char *file,
    int (*try)(const char *, void *), void *arg)
{
	char buf[PATH_MAX];
	const char *p = path ? path : PATH_DEFAULT, *end;
	size_t flen = strlen(file);
	bool eacces = false;
	int e = ENOENT;

	if (flen == 0)
		return ENOENT;
	if (strchr(file, '/') != NULL)
		return try(file, arg);
	if (flen > NAME_MAX)
		return ENAMETOOLONG;
	for (;; p = end + 1) {
		size_t dlen;

		end = strchrnul(p, ':');
		dlen = (size_t)(end - p);
		if (dlen + 1 + flen < sizeof(buf)) {	/* glibc skips longer ones */
			memcpy(buf, p, dlen);
			buf[dlen] = '/';
			memcpy(buf + dlen + (dlen > 0), file, flen + 1);
			if ((e = try(buf, arg)) == 0 || !path_goes_on(e))
				return e;
			eacces |= e == EACCES;
		}
		if (*end == '\0')
			break;
	}
	return eacces ? EACCES : e;
}
