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

#include "server.h"

/* Append the components of p to out (which has room), skipping "" and ".". */
static size_t
resolve_append(char *out, size_t n, const char *p)
{
	while (*p) {
		const char *end = strchrnul(p, '/');
		size_t len = (size_t)(end - p);

		if (len > 0 && !(len == 1 && p[0] == '.')) {
			out[n++] = '/';
			memcpy(out + n, p, len);
			n += len;
		}
		p = *end ? end + 1 : end;
	}
	return n;
}

char *
resolve_program(const char *file, const char *cwd)
{
	char *out = malloc(strlen(file) + strlen(cwd) + 3);
	size_t n = 0;

	if (out == NULL)
		return NULL;
	if (file[0] != '/')
		n = resolve_append(out, n, cwd);
	n = resolve_append(out, n, file);
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return out;
}
