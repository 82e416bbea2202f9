/*
 * path.c: lexical path cleaning, what execve would say of a file, the
 * splitting of PATH and glibc's PATH search, once for every part
 * (path.h).  No allocation, no locale, no stdio.
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

void
path_iter_init(struct path_iter *it, const char *path, const char *file,
    unsigned flags)
{
	it->rest = path;
	it->file = file;
	it->flen = file ? strlen(file) : 0;
	it->flags = flags;
}

/* Is the entry p[0..len) one to give out, into size bytes? */
static bool
path_takes(const struct path_iter *it, const char *p, size_t len, size_t size)
{
	if ((it->flags & PATH_ABSOLUTE) && (len == 0 || p[0] != '/'))
		return false;
	return len + (it->file ? 1 + it->flen : 0) < size;
}

bool
path_next(struct path_iter *it, char *buf, size_t size)
{
	while (it->rest != NULL) {
		const char *p = it->rest, *end = strchrnul(p, ':');
		size_t len = (size_t)(end - p);

		it->rest = *end == ':' ? end + 1 : NULL;
		if (!path_takes(it, p, len, size))
			continue;
		memcpy(buf, p, len);
		if (it->file != NULL && len > 0)
			buf[len++] = '/';
		memcpy(buf + len, it->file ? it->file : "", it->flen + 1);
		return true;
	}
	return false;
}

int
path_search(const char *path, const char *file,
    int (*try)(const char *, void *), void *arg)
{
	char buf[PATH_MAX];
	struct path_iter it;
	size_t flen = strlen(file);
	bool eacces = false;
	int e = ENOENT;

	if (flen == 0)
		return ENOENT;
	if (strchr(file, '/') != NULL)
		return try(file, arg);
	if (flen > NAME_MAX)
		return ENAMETOOLONG;
	path_iter_init(&it, path ? path : PATH_DEFAULT, file, 0);
	while (path_next(&it, buf, sizeof(buf))) {
		if ((e = try(buf, arg)) == 0 || !path_goes_on(e))
			return e;
		eacces |= e == EACCES;
	}
	return eacces ? EACCES : e;
}
