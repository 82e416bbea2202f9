/*
 * resolve.c: the program a request names, made absolute.
 *
 * Lexical only, as the reference does, but never rewriting "..": with
 * symlinks, "a/../b" is not "b", and the path decided on must be the path
 * the kernel would execute.  Empty and "." components are dropped, which
 * cannot change what a path names.  No "~": the kernel expands none.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "server.h"

char *
resolve_program(const char *file, const char *cwd)
{
	size_t size = strlen(file) + strlen(cwd) + 3;
	char *out = malloc(size);

	if (out != NULL)
		path_absolute(out, size, cwd, file);
	return out;
}
