/*
 * bench-execloop N FILE [ARGV...]: N times fork + execve(FILE, ARGV) and
 * wait, as a program that runs commands does (ARGV defaults to FILE).
 * Exits 1 if any run failed.  The shellesc-bench run-path driver: run it
 * plainly, under the preload, under sudo's intercept mode, or with FILE
 * the wrapper (what a patched shell execs).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int
main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[1]) : -1, failed = 0, st;
	char **args = argc > 3 ? argv + 3 : argv + 2;

	if (n < 0) {
		fprintf(stderr, "usage: bench-execloop N FILE [ARGV...]\n");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			execve(argv[2], args, environ);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
			failed++;
	}
	if (failed)
		fprintf(stderr, "bench-execloop: %d of %d runs failed\n", failed, n);
	return failed != 0;
}
