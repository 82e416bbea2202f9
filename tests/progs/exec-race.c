/*
 * exec-race MODE COUNT GOOD DENIED FILE: a program that races its own exec.
 *
 * COUNT times, a fresh child starts a second thread and calls execve from
 * its main thread while that thread rewrites what is being exec'd:
 *   path  the path buffer, between GOOD and DENIED (argv { "race", FILE });
 *   argv  argv[1], between FILE and a string 300 bytes longer (path GOOD);
 *   raw-path  as path, by syscall(SYS_execve): no preload sees it;
 *   raw-argv  argv[1], between DENIED and FILE, by syscall(SYS_execve)
 *         (argv { "rm", ... }, path GOOD: rm itself, let run with DENIED).
 * GOOD should be a program that ignores its arguments (true), DENIED one
 * that removes FILE (rm) and that the session denies.  After each child
 * FILE is checked: if it is gone, DENIED ran; it is put back and counted.
 * A child that has not ended after 5 s is stalled (the exec waited on an
 * answer): it is killed, and the run stops there.
 *
 * Prints "attempts=N ran=N denied=N failed=N rm_ran=N stalled=N
 * slowest_ms=N killed=N": ran exited 0, denied got EACCES, failed got
 * another errno (a torn path that names nothing, say), rm_ran is how often
 * FILE went, killed how often a child died of SIGKILL.
 * Exits 0 once it is done, 2 on a usage or system error.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { RACE_PATH, RACE_ARGV, RACE_RAW_PATH, RACE_RAW_ARGV };

#define RACE_STALL_MS 5000
#define RACE_LONG 300

extern char **environ;

/* What the racing thread flips buf between (each NUL-terminated). */
struct race_flip {
	char *buf;
	const char *a, *b;
	size_t na, nb;
};

static void *
race_flipper(void *arg)
{
	const struct race_flip *f = arg;

	for (;;) {
		memcpy(f->buf, f->a, f->na);
		__asm__ volatile("" ::: "memory");	/* keep every store */
		memcpy(f->buf, f->b, f->nb);
		__asm__ volatile("" ::: "memory");
	}
	return NULL;
}

/* The child: start the flipper on buf, exec, and report how the exec failed. */
static void
race_child(int mode, const char *good, const char *denied, const char *file)
{
	bool path_mode = mode == RACE_PATH || mode == RACE_RAW_PATH;
	static char pathbuf[4096], argbuf[4096 + RACE_LONG], longarg[4096 + RACE_LONG];
	char *argv[] = { (char *)"race", argbuf, NULL };
	struct race_flip f;
	pthread_t t;

	snprintf(pathbuf, sizeof(pathbuf), "%s", good);
	snprintf(argbuf, sizeof(argbuf), "%s", file);
	memset(longarg, 'x', RACE_LONG);
	snprintf(longarg + RACE_LONG, sizeof(longarg) - RACE_LONG, "%s", file);
	if (path_mode)
		f = (struct race_flip){ pathbuf, good, denied, strlen(good) + 1, strlen(denied) + 1 };
	else if (mode == RACE_RAW_ARGV)
		f = (struct race_flip){ argbuf, denied, file, strlen(denied) + 1, strlen(file) + 1 };
	else
		f = (struct race_flip){ argbuf, longarg, file, strlen(longarg) + 1, strlen(file) + 1 };
	if (mode == RACE_RAW_ARGV)
		argv[0] = (char *)"rm";
	if (pthread_create(&t, NULL, race_flipper, &f) != 0)
		_exit(2);
	if (mode == RACE_RAW_PATH || mode == RACE_RAW_ARGV)
		syscall(SYS_execve, pathbuf, argv, environ);
	else
		execve(pathbuf, argv, environ);
	_exit(errno == EACCES ? 126 : 100 + (errno < 25 ? errno : 0));
}

static long
race_ms(const struct timespec *since)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - since->tv_sec) * 1000 + (now.tv_nsec - since->tv_nsec) / 1000000;
}

/* Wait for pid up to RACE_STALL_MS; returns its status, or -1 when stalled (killed). */
static int
race_wait(pid_t pid, long *ms)
{
	struct timespec start, tick = { 0, 1000000 };
	int st;
	pid_t r;

	clock_gettime(CLOCK_MONOTONIC, &start);
	while ((r = waitpid(pid, &st, WNOHANG)) == 0 && race_ms(&start) < RACE_STALL_MS)
		nanosleep(&tick, NULL);
	*ms = race_ms(&start);
	if (r == pid)
		return st;
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

int
main(int argc, char **argv)
{
	int count = argc == 6 ? atoi(argv[2]) : 0, n = 0;
	int ran = 0, denied = 0, failed = 0, rm_ran = 0, stalled = 0, killed = 0;
	static const char *const modes[] = { "path", "argv", "raw-path", "raw-argv" };
	int mode = -1;
	long slowest = 0, ms;

	for (int i = 0; argc == 6 && i < 4; i++)
		if (strcmp(argv[1], modes[i]) == 0)
			mode = i;
	if (count <= 0 || mode < 0)
		return 2;
	for (; n < count && stalled == 0; n++) {
		pid_t pid = fork();
		int st, fd;

		if (pid < 0)
			return 2;
		if (pid == 0)
			race_child(mode, argv[3], argv[4], argv[5]);
		st = race_wait(pid, &ms);
		slowest = ms > slowest ? ms : slowest;
		stalled += st == -1;
		ran += st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
		denied += st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 126;
		failed += st != -1 && WIFEXITED(st) && WEXITSTATUS(st) > 100 && WEXITSTATUS(st) < 126;
		killed += st != -1 && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
		if (access(argv[5], F_OK) != 0) {
			rm_ran++;
			if ((fd = open(argv[5], O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
				return 2;
			close(fd);
		}
	}
	printf("attempts=%d ran=%d denied=%d failed=%d rm_ran=%d stalled=%d slowest_ms=%ld "
	    "killed=%d\n", n, ran, denied, failed, rm_ran, stalled, slowest, killed);
	return 0;
}
