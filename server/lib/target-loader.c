/*
 * target-loader.c: the dynamic loader run directly.  "ld.so [OPTIONS]
 * PROGRAM ARGS..." runs PROGRAM, so PROGRAM is what the policy decides on
 * -- a deny rule for rm must hold for "ld.so /bin/rm" too -- and what an
 * escalation runs, directly, with ARGS.  The loader's options are not
 * honoured by an escalation (SHELLESC_TARGET_LOADER_OPTIONS says there
 * were some): --preload, --audit or --library-path would load code of the
 * caller's choosing outside the sandbox.  Options are parsed as glibc's
 * ld.so (2.36) and musl's parse them: any other "--" word, or none left
 * for PROGRAM, makes the loader run nothing but itself.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

static const char *const loader_with_arg[] = {
	"--library-path", "--inhibit-rpath", "--audit", "--preload", "--argv0",
	"--glibc-hwcaps-prepend", "--glibc-hwcaps-mask", NULL
};
static const char *const loader_flags[] = { "--list", "--verify", "--inhibit-cache", NULL };

static bool
loader_in(const char *const *set, const char *s)
{
	for (size_t i = 0; set[i] != NULL; i++)
		if (strcmp(set[i], s) == 0)
			return true;
	return false;
}

/* Index of PROGRAM in argv, or 0 when the loader runs no program. */
size_t
target_loader_program(char *const *argv, size_t argc, char **argv0, bool *opts)
{
	size_t i = 1;

	while (i < argc && strncmp(argv[i], "--", 2) == 0) {
		if (loader_in(loader_with_arg, argv[i]) && i + 1 < argc) {
			if (strcmp(argv[i], "--argv0") == 0)
				*argv0 = argv[i + 1];
			else
				*opts = true;
			i += 2;
		} else if (loader_in(loader_flags, argv[i])) {
			*opts = true;
			i++;
		} else
			return 0;	/* --help, --version, ... or a usage error */
	}
	return i < argc ? i : 0;
}

/* PROGRAM's argv, as the loader gives it: argv[0] is --argv0's value, or
 * PROGRAM as named. */
static int
loader_argv(struct target *t, const struct msg_exec *ex, size_t i, char *argv0)
{
	size_t n = ex->argc - i;

	if ((t->argv = calloc(n + 1, sizeof(char *))) == NULL)
		return -ENOMEM;
	t->argv[0] = argv0 ? argv0 : ex->argv[i];
	for (size_t k = 1; k < n; k++)
		t->argv[k] = ex->argv[i + k];
	t->pub.argv = t->argv;
	t->pub.argc = n;
	return 0;
}

int
target_loader(struct target *t, struct peer *p, const struct msg_exec *ex,
    const struct writer *wr)
{
	char *argv0 = NULL;
	bool opts = false;
	size_t i = target_loader_program(ex->argv, ex->argc, &argv0, &opts);
	dev_t dev = t->runs_dev;	/* the loader is what the kernel loads */
	ino_t ino = t->runs_ino;
	int fd, r;

	if (i == 0) {
		t->loader = false;	/* it runs nothing else: it is the target */
		return 0;
	}
	if ((t->loader_path = strdup(t->path)) == NULL)
		return -ENOMEM;
	t->pub.loader = t->loader_path;
	/* no '/': the loader looks it up in the library directories */
	if (strchr(ex->argv[i], '/') == NULL)
		return -ENOEXEC;
	if ((r = loader_argv(t, ex, i, argv0)) != 0 || (r = walk_open(p, ex->argv[i], &fd)) != 0 ||
	    (r = target_take(t, p, fd, wr)) != 0)
		return r;
	t->named = ex->argv[i];
	t->runs_known = true;
	t->runs_dev = dev;
	t->runs_ino = ino;
	if (t->loader)
		return -ENOEXEC;	/* a loader loading a loader */
	if (opts)
		t->pub.facts |= SHELLESC_TARGET_LOADER_OPTIONS;
	return 0;
}
