/*
 * path.c: the exec family's PATH search (common/path.c does the search):
 * glibc's execvpe() and posix_spawnp() take PATH from the caller's environ,
 * not from the envp they pass on, and PATH_DEFAULT when it is unset.
 */
#include "config.h"

#include <string.h>

#include "path.h"
#include "preload.h"

extern char **environ;

static const char *
pl_path_var(void)
{
	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, "PATH=", 5) == 0)
			return *e + 5;
	return NULL;
}

int
pl_path_search(const char *file, int (*try)(const char *, void *), void *arg)
{
	return path_search(pl_path_var(), file, try, arg);
}
