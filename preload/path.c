/*
 * path.c: PATH search exactly as glibc's execvpe() and posix_spawnp() do
 * it: PATH from the caller's environ (not envp), "/bin:/usr/bin" when it
 * is unset (confstr(_CS_PATH)), an empty entry meaning the current
 * directory, EACCES remembered while the search goes on past ENOENT,
 * ENOTDIR, ESTALE, ENODEV and ETIMEDOUT, any other error ending it.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "preload.h"

extern char **environ;

static const char *
pl_path_var(void)
{
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			return *e + 5;
	return "/bin:/usr/bin";
}

/* Does glibc go on to the next entry after this error? */
static bool
pl_path_goes_on(int e)
{
	return e == EACCES || e == ENOENT || e == ENOTDIR || e == ESTALE ||
	    e == ENODEV || e == ETIMEDOUT;
}

int
pl_path_search(const char *file, int (*try)(const char *, void *), void *arg)
{
	char buf[PATH_MAX];
	const char *p = pl_path_var(), *end;
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
			if ((e = try(buf, arg)) == 0 || !pl_path_goes_on(e))
				return e;
			eacces |= e == EACCES;
		}
		if (*end == '\0')
			break;
	}
	return eacces ? EACCES : e;
}
