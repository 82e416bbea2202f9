/*
 * bench-exec-chain FILE ARGV...: exec FILE with ARGV and nothing else, by
 * the raw system call, as the wrapper's run path does.  Linked as the
 * wrapper is, it is the floor of any design where the shell execs another
 * program first: what that exec costs before any question is asked.
 */
#include "config.h"

#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char **environ;

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: bench-exec-chain FILE ARGV0 [ARG...]\n");
		return 2;
	}
	syscall(SYS_execve, argv[1], argv + 2, environ);
	perror(argv[1]);
	return 127;
}
