/*
 * fmt.h: numbers as text where stdio cannot be used -- in the preload (a
 * vfork child, a signal handler) and in the library's children between
 * fork and exec (a threaded parent's locks).  Async-signal-safe: no
 * locale, no allocation, no errno.
 */
#ifndef SHELLESC_FMT_H
#define SHELLESC_FMT_H

#include <stddef.h>

#define FMT_UINT_SIZE	21	/* the digits of any unsigned long long, and a NUL */

/* The decimal digits of v, then a NUL, into out[FMT_UINT_SIZE]; returns
 * how many digits. */
size_t fmt_uint(char *out, unsigned long long v);

#endif /* SHELLESC_FMT_H */
