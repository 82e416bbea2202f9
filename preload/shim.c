/*
 * shim.c: the interposed exec family.  Each entry point is a thin shim
 * over gate.c: make the caller's path private, find what the kernel will
 * run, copy the exec (copy.c), decide on that copy and run it.
 * A deny returns -1 with errno EACCES, so a shell prints its usual
 * "Permission denied" and reports 126, as the wrapper's deny does.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "client.h"
#include "fmt.h"
#include "path.h"
#include "preload.h"
#include "script.h"

extern char **environ;

/*
 * glibc declares some arguments nonnull, yet programs pass NULL and the
 * kernel copes: hide the pointer from the optimizer so the test stays.
 */
static bool
pl_is_null(const void *p)
{
	__asm__("" : "+r"(p));
	return p == NULL;
}

int
pl_private(char *buf, const char *s)
{
	if (pl_is_null(s))
		return EFAULT;
	return memccpy(buf, s, '\0', PATH_MAX) == NULL ? ENAMETOOLONG : 0;
}

/* One exec attempt of the exec family, tried on each candidate. */
struct pl_try {
	char *const *argv, *const *envp;
	bool script;		/* execvp family: ENOEXEC runs /bin/sh */
	bool refused;		/* the policy refused a candidate: EACCES */
};

/* After ENOEXEC, as glibc's execvp family: /bin/sh PATH ARGS...; its errno. */
static int
pl_exec_script(const struct pl_copy *c)
{
	char *sh[script_slots(c->argv)];

	/* The script was decided on: /bin/sh running it is the same exec. */
	script_argv(sh, SCRIPT_SHELL, c->run, c->argv);
	script_execve(pl_real.execve, SCRIPT_SHELL, sh, c->env);
	return errno;
}

/*
 * Decide and exec one candidate; returns the errno it failed with, or 0
 * when the policy refused it (t->refused): a refusal ends a PATH search,
 * where a plain EACCES would go on to the next entry.
 */
static int
pl_try_exec(const char *cand, void *arg)
{
	struct pl_try *t = arg;
	enum pl_verdict v;
	struct pl_copy c;
	int stream = -1, e;

	/* Only an executable regular file is worth a decision; refusing the
	 * others here, rather than letting the real execve fail, leaves no
	 * window for a file to appear undecided.  cand is private (see
	 * pl_private): what is checked is what is copied. */
	if ((e = path_executable(cand)) != 0 ||
	    (e = pl_copy_make(&c, cand, t->argv, t->envp)) != 0)
		return e;
	v = pl_decide(&c, &stream);
	if (v == PL_PASS && pl_wrapped(&c))
		e = pl_run_wrapped(&c);
	else if ((t->refused = v == PL_DENY || v == PL_FAIL))
		e = 0;
	else if ((e = pl_exec_decided(&c, v, stream)) == ENOEXEC && t->script &&
	    v != PL_ESCALATE)
		e = pl_exec_script(&c);
	pl_copy_free(&c);
	return e;
}

/* Common body of the exec shims: -1 with errno (an exec returns only on failure). */
static int
pl_exec(const char *file, char *const argv[], char *const envp[], bool search)
{
	struct pl_try t = { argv, envp, search, false };
	char f[PATH_MAX];
	int e;

	pl_resolve();
	if (!pl.active)		/* no session: glibc's own, untouched */
		return search ? pl_real.execvpe(file, argv, envp) :
		    pl_real.execve(file, argv, envp);
	if ((e = pl_private(f, file)) == 0)
		e = search ? pl_path_search(f, pl_try_exec, &t) : pl_try_exec(f, &t);
	return pl_errno(t.refused ? EACCES : e);
}

PL_EXPORT int
execve(const char *path, char *const argv[], char *const envp[])
{
	return pl_exec(path, argv, envp, false);
}

PL_EXPORT int
execv(const char *path, char *const argv[])
{
	return pl_exec(path, argv, environ, false);
}

PL_EXPORT int
execvpe(const char *file, char *const argv[], char *const envp[])
{
	return pl_exec(file, argv, envp, true);
}

PL_EXPORT int
execvp(const char *file, char *const argv[])
{
	return pl_exec(file, argv, environ, true);
}

/*
 * execl and friends: the arguments are counted, then gathered on the stack
 * (forwarding a va_list is not portable).  ap is left just past the NULL,
 * where execle's envp is.
 */
#define PL_GATHER(arg0, argv, ap)					\
	size_t n_ = 1;							\
	va_list ap;							\
	va_start(ap, arg0);						\
	while (va_arg(ap, char *) != NULL)				\
		n_++;							\
	va_end(ap);							\
	char *argv[n_ + 1];						\
	argv[0] = (char *)(arg0);					\
	va_start(ap, arg0);						\
	for (size_t i_ = 1; i_ <= n_; i_++)				\
		argv[i_] = va_arg(ap, char *)

PL_EXPORT int
execl(const char *path, const char *arg0, ...)
{
	PL_GATHER(arg0, argv, ap);
	va_end(ap);
	return pl_exec(path, argv, environ, false);
}

PL_EXPORT int
execlp(const char *file, const char *arg0, ...)
{
	PL_GATHER(arg0, argv, ap);
	va_end(ap);
	return pl_exec(file, argv, environ, true);
}

PL_EXPORT int
execle(const char *path, const char *arg0, ...)
{
	char **envp;

	PL_GATHER(arg0, argv, ap);
	envp = va_arg(ap, char **);
	va_end(ap);
	return pl_exec(path, argv, envp, false);
}

/*
 * fexecve/execveat: the server needs a path it can run, so the fd is named
 * through /proc.  A program with no path (memfd, deleted file) can run in
 * place but cannot be escalated.
 */
static int
pl_fd_path(int dirfd, const char *rel, char *out, size_t size)
{
	char link[sizeof("/proc/self/fd/") + FMT_UINT_SIZE] = "/proc/self/fd/";
	size_t n;
	ssize_t len;

	fmt_uint(link + sizeof("/proc/self/fd/") - 1, (unsigned)dirfd);
	if ((len = readlink(link, out, size - 1)) < 0)
		return errno;
	out[len] = '\0';
	if (out[0] != '/' || strstr(out, " (deleted)") != NULL)
		return ENOENT;
	if (rel && *rel) {
		if ((n = strlen(rel)) + (size_t)len + 2 > size)
			return ENAMETOOLONG;
		out[len] = '/';
		memcpy(out + len + 1, rel, n + 1);
	}
	return 0;
}

/*
 * Decide by path; run with the real call (fd-based), escalate by path, and
 * run the wrapper by the session's path of it.  rel is private.  Returns
 * only on failure: its errno.
 */
static int
pl_exec_fd(const char *path, bool named, int dirfd, const char *rel,
    char *const argv[], char *const envp[], int flags)
{
	int stream = -1, e;
	struct pl_copy c;
	enum pl_verdict v;

	if ((named && (e = path_executable(path)) != 0) ||
	    (e = pl_copy_make(&c, path, argv, envp)) != 0)
		return e;
	v = pl_decide(&c, &stream);
	if (v == PL_ESCALATE && !named) {
		/* The server would run its own /proc/self/fd/N: never. */
		close(stream);
		client_say(path, "cannot escalate a program that has no path");
		e = EACCES;
	} else if (v != PL_RUN)
		e = pl_exec_decided(&c, v, stream);	/* PL_PASS: the wrapper, by path */
	else {
		pl_sock_inherit();
		do	/* EINTR: as script_execve, for the kernel layer's wait */
			if (rel)
				pl_real.execveat(dirfd, rel, c.argv, c.env, flags);
			else
				pl_real.fexecve(dirfd, c.argv, c.env);
		while ((e = errno) == EINTR);
	}
	pl_copy_free(&c);
	return e;
}

PL_EXPORT int
fexecve(int fd, char *const argv[], char *const envp[])
{
	char path[PATH_MAX];
	int e;

	pl_resolve();
	if (!pl.active)
		return pl_real.fexecve(fd, argv, envp);
	if (fd < 0 || pl_is_null(argv) || pl_is_null(envp))
		return pl_errno(EINVAL);	/* glibc refuses these before any exec */
	e = pl_fd_path(fd, NULL, path, sizeof(path));
	return pl_errno(pl_exec_fd(e == 0 ? path : "/proc/self/fd", e == 0, fd, NULL,
	    argv, envp, 0));
}

PL_EXPORT int
execveat(int dirfd, const char *rel, char *const argv[], char *const envp[], int flags)
{
	char path[PATH_MAX], r[PATH_MAX];
	const char *name = r;
	int e;

	pl_resolve();
	if (!pl.active)
		return pl_real.execveat(dirfd, rel, argv, envp, flags);
	if ((e = pl_private(r, rel)) != 0)
		return pl_errno(e);
	if (r[0] == '\0' && !(flags & AT_EMPTY_PATH))
		return pl_errno(ENOENT);	/* as the kernel says, without asking */
	if (dirfd == AT_FDCWD && r[0] == '\0')
		name = ".";	/* the kernel execs the cwd itself: a directory */
	if (name[0] == '/' || dirfd == AT_FDCWD)
		memcpy(path, name, strlen(name) + 1);
	else if ((e = pl_fd_path(dirfd, r, path, sizeof(path))) != 0)
		return pl_errno(e);
	return pl_errno(pl_exec_fd(path, true, dirfd, r, argv, envp, flags));
}
