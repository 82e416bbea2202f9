/*
 * cli-util.c: the helpers most files of the command use (cli-util.h):
 * its messages, showing untrusted strings (argv, paths) safely on a
 * terminal, string vectors, and the PATH search.  A leaf: it calls
 * nothing else of server/cli/.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vis.h>

#include "cli.h"
#include "path.h"

static void
cli_vmsg(const char *fmt, va_list ap, const char *err)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* One write per message: threads report too. */
	if (err)
		fprintf(stderr, "shellesc: %s: %s\n", buf, err);
	else
		fprintf(stderr, "shellesc: %s\n", buf);
}

void
cli_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vmsg(fmt, ap, NULL);
	va_end(ap);
}

int
cli_oom(void)
{
	cli_warnx("out of memory");
	return -1;
}

/* Like cli_warnx, with strerror(errno) appended. */
void
cli_warn(const char *fmt, ...)
{
	const char *err = strerror(errno);
	va_list ap;

	va_start(ap, fmt);
	cli_vmsg(fmt, ap, err);
	va_end(ap);
}

void
cli_debug(const struct cli *c, int level, const char *fmt, ...)
{
	va_list ap;

	if (c->o.verbose < level)
		return;
	va_start(ap, fmt);
	cli_vmsg(fmt, ap, NULL);
	va_end(ap);
}

/* Bytes a shell would take literally, so s needs no quotes. */
static bool
cli_show_plain(const char *s)
{
	return s[0] != '\0' && s[strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-")] == '\0';
}

/*
 * s for a terminal: control and non-ASCII bytes as C escapes (vis(3)), so
 * a hostile argv or rules file can neither move the cursor nor pass for
 * something else.
 */
char *
cli_vis(const char *s)
{
	char *vis;

	return stravis(&vis, s, VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL) < 0 ? NULL : vis;
}

/* cli_vis(s), single-quoted if a shell would split or expand it. */
char *
cli_show(const char *s)
{
	char *vis, *out, *q;

	if ((vis = cli_vis(s)) == NULL)
		return NULL;
	if (cli_show_plain(vis))
		return vis;
	/* worst case: every byte a quote, 4 bytes each, plus the quotes */
	if ((out = q = malloc(strlen(vis) * 4 + 3)) != NULL) {
		*q++ = '\'';
		for (const char *p = vis; *p; p++)
			if (*p == '\'')
				q = stpcpy(q, "'\\''");
			else
				*q++ = *p;
		*q++ = '\'';
		*q = '\0';
	}
	free(vis);
	return out;
}

/* "PROGRAM ARG1 ARG2...": the program that will run, then argv[1...]. */
char *
cli_show_argv(const char *program, char *const *argv)
{
	char *out = cli_show(program);

	for (size_t i = 1; out && argv[0] && argv[i]; i++) {
		char *arg = cli_show(argv[i]), *both = NULL;

		if (arg == NULL || asprintf(&both, "%s %s", out, arg) < 0)
			both = NULL;
		free(arg);
		free(out);
		out = both;
	}
	return out;
}

int
cli_strv_add(struct cli_strv *sv, const char *s)
{
	char **v = reallocarray(sv->v, sv->n + 2, sizeof(char *));

	if (v == NULL)
		return cli_oom();
	sv->v = v;
	if ((v[sv->n] = strdup(s)) == NULL)
		return cli_oom();
	v[++sv->n] = NULL;
	return 0;
}

void
cli_strv_free(struct cli_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

/* The first candidate the preload would ask about (copied into arg,
 * PATH_MAX bytes), or the errno execve would fail with. */
static int
cli_path_try(const char *candidate, void *arg)
{
	int e = path_executable(candidate);

	if (e != 0)
		return e;
	return strlcpy(arg, candidate, PATH_MAX) < PATH_MAX ? 0 : ENAMETOOLONG;
}

/* PROGRAM's path as execvp(3) would find it, by the preload's own search
 * and test (common/path.c): the same PATH, the same default, the same
 * errors. */
char *
cli_path_search(const char *name)
{
	char found[PATH_MAX];
	int e = path_search(getenv("PATH"), name, cli_path_try, found);

	if (e != 0) {
		errno = e;
		return NULL;
	}
	return strdup(found);
}
