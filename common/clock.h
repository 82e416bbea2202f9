/*
 * clock.h: the one monotonic clock every part measures timeouts and
 * durations with.  Malloc-free and async-signal-safe (clock_gettime(2)
 * is): the preload calls it in vfork children.
 */
#ifndef SHELLESC_CLOCK_H
#define SHELLESC_CLOCK_H

#include <stdint.h>

/*
 * Milliseconds of CLOCK_MONOTONIC: since an arbitrary point, never going
 * back, not moved by setting the time.  It cannot fail (the clock always
 * exists, the buffer is our own); if it ever did, 0 with errno as it was:
 * time stands still, so a timeout never fires -- a wait, never an answer
 * or a kill before its time.
 */
int64_t clock_now_ms(void);

#endif /* SHELLESC_CLOCK_H */
