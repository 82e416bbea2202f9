/*
 * bench-sockloop DIR N: binds DIR/s.sock, accepts on a thread, and times N
 * connects to it from the main thread: prints the median ns per connect.
 * Run inside a -s landlock session every connect passes the socket gate
 * (the socket was born in the session beneath a writable root, so it is
 * allowed); run bare, it is the kernel's own cost.
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static void *
sockloop_accept(void *arg)
{
	int l = *(int *)arg, c;

	while ((c = accept(l, NULL, NULL)) >= 0)
		close(c);
	return NULL;
}

static int
sockloop_cmp(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

int
main(int argc, char **argv)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int l, n = argc == 3 ? atoi(argv[2]) : 0;
	long *ns;
	pthread_t t;

	if (n <= 0 || snprintf(a.sun_path, sizeof(a.sun_path), "%s/s.sock", argv[1]) >=
	    (int)sizeof(a.sun_path) || (ns = calloc((size_t)n, sizeof(long))) == NULL)
		return 2;
	unlink(a.sun_path);
	if ((l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(l, 128) != 0 ||
	    pthread_create(&t, NULL, sockloop_accept, &l) != 0)
		return 1;
	for (int i = 0; i < n; i++) {
		struct timespec t0, t1;
		int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (c < 0 || connect(c, (struct sockaddr *)&a, sizeof(a)) != 0)
			return 1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		close(c);
		ns[i] = (t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec);
	}
	qsort(ns, (size_t)n, sizeof(long), sockloop_cmp);
	printf("%ld\n", ns[n / 2]);
	unlink(a.sun_path);
	return 0;
}
