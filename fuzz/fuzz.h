/*
 * fuzz.h: what the libFuzzer targets share.  Each target is built by
 * `make fuzz` with clang -fsanitize=fuzzer,address,undefined straight from
 * the sources under test (see fuzz/Makefile.inc and docs/fuzzing.md).
 * A broken invariant aborts, which libFuzzer reports as a crash with the
 * input that caused it.
 */
#ifndef SHELLESC_FUZZ_H
#define SHELLESC_FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Abort with a message when cond is false (active in every build). */
#define FZ_CHECK(cond, ...) \
	((cond) ? (void)0 : fz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))
void fz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

/* Open fds of this process. */
int fz_count_fds(void);

/* List the open fds and what they are on stderr (to diagnose a leak). */
void fz_list_fds(void);

/* Wait up to ms for the fd count to come back down to want; returns the count. */
int fz_fds_settle(int want, int ms);

/* An AF_UNIX socketpair of the given type (CLOEXEC); aborts on failure. */
void fz_pair(int type, int sv[2]);

/* Write all of p (blocking). */
void fz_write_all(int fd, const void *p, size_t n);

/* n fds open on /dev/null. */
void fz_null_fds(int *fds, size_t n);

/* A cursor over the fuzz input. */
struct fz_in {
	const uint8_t *p;
	size_t left;
};

/* The next byte, or 0 once the input is used up. */
uint8_t fz_byte(struct fz_in *in);
/* Up to n bytes; *got is how many there were. */
const uint8_t *fz_take(struct fz_in *in, size_t n, size_t *got);

#endif
