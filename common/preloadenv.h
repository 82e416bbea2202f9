/*
 * preloadenv.h: the LD_PRELOAD value of a session's process -- shellesc's
 * preload library first, exactly once, then the caller's others in their
 * order.  The library builds it for the session's first program
 * (shellesc_env_merge), the preload for every exec after (copy.c): one
 * rule, so both give the same value.  ld.so splits LD_PRELOAD at spaces
 * and colons alike and skips empty entries (rtld.c); so does this.
 * Malloc-free and async-signal-safe: the preload runs it in vfork children.
 */
#ifndef SHELLESC_PRELOADENV_H
#define SHELLESC_PRELOADENV_H

#include <stddef.h>

#define PRELOADENV_SEPS	": "	/* what ld.so splits LD_PRELOAD at */

/*
 * The value (without "LD_PRELOAD=") that loads lib first, then each entry
 * of list (an LD_PRELOAD value; NULL or "" for none) that is not lib, in
 * order, joined by ':', into out[size].  Returns its length, as snprintf
 * does: it was written, NUL included, only when that is less than size
 * (out may be NULL when size is 0).  The length is at most strlen(lib) +
 * strlen(list) + 1.
 */
size_t preloadenv_first(char *out, size_t size, const char *lib, const char *list);

#endif /* SHELLESC_PRELOADENV_H */
