/*
 * vfork-stress COUNT PROGRAM: COUNT times, alternately vfork+execv and
 * fork+execv PROGRAM (which must exit 0), while 8 threads malloc and free
 * without pause.  An interposed exec that allocated, locked or used stdio
 * in the child would sooner or later deadlock or corrupt the heap here.
 * Prints "done COUNT" and exits 0 when every child ran; exits 1 otherwise.
 */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define STRESS_THREADS 8

static atomic_bool stress_stop;

/*
 * The churning threads run at the lowest priority: on a small machine eight
 * busy threads would otherwise starve the exec loop, yet they still hold
 * the allocator's locks on every other core while it runs.
 */
static void *
stress_churn(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;

	setpriority(PRIO_PROCESS, (id_t)gettid(), 19);

	while (!atomic_load(&stress_stop)) {
		size_t n = (size_t)(rand_r(&seed) % 4096) + 1;
		char *p = malloc(n);

		if (p == NULL)
			abort();
		memset(p, 0x5a, n);
		free(p);
	}
	return NULL;
}

/* One child: vfork or fork, then execv; returns its wait status. */
static int
stress_one(bool use_vfork, const char *prog)
{
	char *argv[] = { (char *)prog, NULL };
	pid_t pid = use_vfork ? vfork() : fork();
	int st;

	if (pid == 0) {
		execv(prog, argv);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return st;
}

int
main(int argc, char **argv)
{
	pthread_t t[STRESS_THREADS];
	int count = argc == 3 ? atoi(argv[1]) : 0, st = 0, i;

	if (count <= 0)
		return 2;
	for (i = 0; i < STRESS_THREADS; i++)
		if (pthread_create(&t[i], NULL, stress_churn, (void *)(uintptr_t)(i + 1)) != 0)
			return 1;
	for (i = 0; i < count && st == 0; i++)
		st = stress_one(i % 2 == 0, argv[2]);
	atomic_store(&stress_stop, true);
	for (int k = 0; k < STRESS_THREADS; k++)
		pthread_join(t[k], NULL);
	if (st != 0) {
		fprintf(stderr, "vfork-stress: child %d ended with status %#x\n", i, st);
		return 1;
	}
	printf("done %d\n", count);
	return 0;
}
