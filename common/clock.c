/*
 * clock.c: the monotonic clock in milliseconds, once for every part
 * (clock.h).
 */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "clock.h"

int64_t
clock_now_ms(void)
{
	struct timespec ts;
	int e = errno;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0) {
		errno = e;	/* the preload leaves errno as its caller had it */
		return 0;
	}
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
