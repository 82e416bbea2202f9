/*
 * raw-exec: execs FILE without libc's exec functions, as Go programs,
 * static binaries and hostile code do, so no preload sees it.
 *
 *   raw-exec HOW FILE ARG0 [ARG...]
 *
 * HOW is syscall (syscall(SYS_execve)), execveat (SYS_execveat, AT_FDCWD),
 * vfork (a clone(CLONE_VM|CLONE_VFORK) child on its own stack makes the
 * raw execve, as Go's os/exec does; the parent reports the child's end),
 * or memfd (FILE copied into a memfd, run by SYS_execveat with
 * AT_EMPTY_PATH, as fexecve does).  When the exec fails: "ret=-1 errno=E"
 * on stdout, exit 99.  vfork: "child exit=N" or "child signal=N".
 * Built twice: dynamically, and statically (raw-exec-static).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *file, **args;

static int
raw_execve(void *arg)
{
	(void)arg;
	syscall(SYS_execve, file, args, environ);
	_exit(errno == ENOENT ? 127 : 126);
}

static int
raw_vfork(void)
{
	static char stack[256 * 1024];
	int st;
	pid_t pid = clone(raw_execve, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);

	if (pid < 0 || waitpid(pid, &st, 0) != pid) {
		printf("ret=-1 errno=%d\n", errno);
		return 99;
	}
	if (WIFSIGNALED(st))
		printf("child signal=%d\n", WTERMSIG(st));
	else
		printf("child exit=%d\n", WEXITSTATUS(st));
	return 0;
}

static int
raw_memfd(void)
{
	int in = open(file, O_RDONLY | O_CLOEXEC), fd = (int)syscall(SYS_memfd_create, "copy", 0);
	struct stat st;

	if (in < 0 || fd < 0 || fstat(in, &st) != 0 ||
	    sendfile(fd, in, NULL, (size_t)st.st_size) != st.st_size)
		return -1;
	return (int)syscall(SYS_execveat, fd, "", args, environ, AT_EMPTY_PATH);
}

int
main(int argc, char **argv)
{
	const char *how;

	if (argc < 4) {
		fputs("usage: raw-exec syscall|execveat|vfork|memfd FILE ARG0 [ARG...]\n", stderr);
		return 2;
	}
	how = argv[1];
	file = argv[2];
	args = argv + 3;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(how, "vfork") == 0)
		return raw_vfork();
	if (strcmp(how, "memfd") == 0)
		raw_memfd();
	else if (strcmp(how, "execveat") == 0)
		syscall(SYS_execveat, AT_FDCWD, file, args, environ, 0);
	else
		syscall(SYS_execve, file, args, environ);
	printf("ret=-1 errno=%d\n", errno);
	return 99;
}
