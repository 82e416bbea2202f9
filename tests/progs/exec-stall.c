/*
 * exec-stall: pins one exec of the session mid-way, then times others.
 *
 *   exec-stall FILE ARG0
 *
 * Each attempt is a child that makes a raw execve of FILE, its argv[0]
 * alone on a page registered with userfaultfd (missing pages), after
 * 512 KiB of environment (the kernel copies the environment first, argv
 * last).  A thread of the child waits until the thread making the call
 * is traced -- the server has read the exec and decided it, and is about
 * to continue it -- and then drops that page: if the kernel has not read
 * argv[0] yet, its read waits on a fault no one will resolve, and the
 * thread stays in its exec.  Once one child is pinned so (alive after
 * a second), five more children exec FILE plainly, each timed; then the
 * pinned child is killed.
 *
 * Prints "pinned=0|1 attempts=N slowest_ms=MS" (MS: the slowest of the
 * five, 5000 for one not done in 5 s, after which no more are timed);
 * exit 0.  Exit 77 with a reason
 * on stderr when userfaultfd is not there for this process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ES_ATTEMPTS	300
#define ES_ENV		512
#define ES_OTHERS	5
#define ES_LATE_MS	5000	/* an exec not done by then: given up on */

static char *file, *arg0;
static char *page;
static pid_t tid;

/* The pinning thread: drop the page once the exec's thread is traced. */
static void *
es_watch(void *arg)
{
	char path[64], buf[2048];
	ssize_t n;
	int fd;

	(void)arg;
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return NULL;
	for (;;) {
		char *p;

		if ((n = pread(fd, buf, sizeof(buf) - 1, 0)) <= 0)
			break;
		buf[n] = '\0';
		if ((p = strstr(buf, "TracerPid:")) != NULL && atoi(p + 10) != 0) {
			madvise(page, 4096, MADV_DONTNEED);
			break;
		}
	}
	close(fd);
	return NULL;
}

/* A child: argv[0] on a page of a userfaultfd, then the exec. */
static void __attribute__((noreturn))
es_attempt(void)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	static char envs[ES_ENV][1024];
	char *envp[ES_ENV + 1], *argv[2];
	pthread_t w;
	int uffd;

	if ((uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC)) < 0 ||
	    ioctl(uffd, UFFDIO_API, &api) != 0)
		_exit(77);
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (page == MAP_FAILED)
		_exit(3);
	reg = (struct uffdio_register){ .range = { (unsigned long)page, 4096 },
	    .mode = UFFDIO_REGISTER_MODE_MISSING };
	strcpy(page, arg0);		/* present now: the server reads it */
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) != 0)
		_exit(77);
	for (int i = 0; i < ES_ENV; i++) {
		memset(envs[i], 'x', sizeof(envs[i]) - 1);
		memcpy(envs[i], "E=", 2);
		envp[i] = envs[i];
	}
	envp[ES_ENV] = NULL;
	argv[0] = page;
	argv[1] = NULL;
	tid = (pid_t)syscall(SYS_gettid);
	if (pthread_create(&w, NULL, es_watch, NULL) != 0)
		_exit(3);
	syscall(SYS_execve, file, argv, envp);
	_exit(99);
}

static long
es_ms(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a->tv_sec) * 1000 + (b.tv_nsec - a->tv_nsec) / 1000000;
}

/* Wait up to ms for pid's end; its status, or -1: still there. */
static int
es_wait(pid_t pid, long ms)
{
	struct timespec t0;
	int st;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		pid_t r = waitpid(pid, &st, WNOHANG);

		if (r == pid)
			return st;
		if (r < 0)
			return 0;
		usleep(1000);
	} while (es_ms(&t0) < ms);
	return -1;
}

/* One plain exec of FILE in a child, timed (ms; ES_LATE_MS: not done). */
static long
es_other(void)
{
	struct timespec t0;
	char *argv[] = { arg0, NULL }, *envp[] = { NULL };
	pid_t pid;
	long ms;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if ((pid = fork()) == 0) {
		syscall(SYS_execve, file, argv, envp);
		_exit(99);
	}
	if (pid < 0)
		return ES_LATE_MS;
	ms = es_wait(pid, ES_LATE_MS) < 0 ? ES_LATE_MS : es_ms(&t0);
	return ms;
}

int
main(int argc, char **argv)
{
	pid_t pinned = 0, pid;
	int n, st;
	long slowest = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: exec-stall FILE ARG0\n");
		return 2;
	}
	file = argv[1];
	arg0 = argv[2];
	for (n = 1; n <= ES_ATTEMPTS && pinned == 0; n++) {
		if ((pid = fork()) == 0)
			es_attempt();
		if (pid < 0)
			return 3;
		if ((st = es_wait(pid, 1000)) < 0)
			pinned = pid;
		else if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
			fprintf(stderr, "exec-stall: no userfaultfd here\n");
			return 77;
		}
	}
	for (int i = 0; pinned && i < ES_OTHERS && slowest < ES_LATE_MS; i++) {
		long ms = es_other();

		slowest = ms > slowest ? ms : slowest;
	}
	if (pinned) {
		kill(pinned, SIGKILL);
		es_wait(pinned, 10000);
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
	}
	printf("pinned=%d attempts=%d slowest_ms=%ld\n", pinned != 0, n - 1, slowest);
	return 0;
}
