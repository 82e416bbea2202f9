/*
 * test-load.h: what the load and fault suites share (test-load*.c,
 * test-fault*.c): a policy that decides by the command's first argument
 * and counts, the process's RSS, the fd limit, and the build's sanitizers.
 */
#ifndef SHELLESC_TEST_LOAD_H
#define SHELLESC_TEST_LOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "shellesc.h"

/*
 * Requests are decided by their last argument: "run", "esc" (escalate) or
 * "deny"; anything else runs.
 */
struct tl_pol {
	atomic_int seen[3];	/* by enum shellesc_action */
	atomic_int other;	/* none of the three */
	atomic_int ended, ended_bad;	/* escalations ended; of them, not with exit 0 */
};

/*
 * A bash prelude for scripts that run both ways: "x /bin/cmd ARG..." execs
 * the command through the wrapper (as a patched shell does) when $W is set,
 * else plainly (the preload, when loaded, catches the exec).
 */
#define TL_X_FUNC "x() { if [ -n \"$W\" ]; then \"$W\" \"$1\" \"${1##*/}\" \"${@:2}\"; else \"$@\"; fi; }\n"

/* "W=\"$EXEC_WRAPPER\"" for the wrapper, "W=" for the preload. */
#define TL_X_MODE(intercept) ((intercept) == SHELLESC_INTERCEPT_WRAPPER ? "W=\"$EXEC_WRAPPER\"\n" : "W=\n")

/* A session for pol with the build tree's wrapper (and preload, for SHELLESC_INTERCEPT_PRELOAD). */
struct shellesc_session *tl_start(struct tl_pol *pol, unsigned intercept, int request_timeout_ms);

/* Wait up to ms for *counter to reach n; returns its value. */
int tl_wait_count(atomic_int *counter, int n, int ms);

/* VmRSS of pid (0: this process) in KiB. */
long tl_rss_kib(pid_t pid);

/* Raise the soft fd limit to at least want (as far as the hard limit allows); returns it. */
long tl_raise_nofile(long want);

/* True when built with AddressSanitizer: the preload cannot be used, RSS is not meaningful. */
bool tl_sanitized(void);

/* Integer from the environment variable name, or def. */
int tl_env_int(const char *name, int def);

/* The slowest of n good requests, in ms (each must succeed). */
int tl_good_requests_ms(struct shellesc_session *s, int n);

#endif
