/* script.c: argv for running a shebang-less script with /bin/sh. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "script.h"

bool
script_is_binary(const char *path)
{
	char buf[80];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	for (ssize_t i = 0; i < n && buf[i] != '\n'; i++)
		if (buf[i] == '\0')
			return true;
	return false;
}

static size_t
script_argc(char *const *argv)
{
	size_t n = 0;

	while (argv && argv[n])
		n++;
	return n;
}

size_t
script_slots(char *const *argv)
{
	size_t n = script_argc(argv);

	return n + 2 + (n == 0);	/* sh, file, argv[1..], NULL */
}

void
script_argv(char **out, const char *shell, const char *file, char *const *argv)
{
	size_t n = script_argc(argv), k = 2;

	out[0] = (char *)shell;
	out[1] = (char *)file;
	for (size_t i = 1; i < n; i++)
		out[k++] = argv[i];	/* argv[0] gives way to the file name */
	out[k] = NULL;
}

int
script_run(script_execve_fn ex, const char *file, char *const argv[], char *const env[],
    const char *shell, const char **why)
{
	int e;

	script_execve(ex, file, argv, env);
	if ((e = errno) == ENOEXEC && script_is_binary(file)) {
		*why = "cannot execute binary file";
		return e;
	}
	if (e == ENOEXEC) {
		char *sh[script_slots(argv)];

		script_argv(sh, shell, file, argv);
		script_execve(ex, shell, sh, env);
		e = errno;
	}
	/* strerror may allocate (its catalog): not in a vfork child */
	*why = strerrordesc_np(e) ? strerrordesc_np(e) : "cannot execute";
	return e;
}

int
script_status(int e)
{
	return e == ENOENT || e == ENOTDIR ? 127 : 126;
}

int
script_execve(script_execve_fn ex, const char *file, char *const argv[], char *const env[])
{
	int r;

	while ((r = ex(file, argv, env)) < 0 && errno == EINTR)
		;
	return r;
}
