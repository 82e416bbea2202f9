/*
 * tests/helpers/filtered.h: an embedder's own exec filter (tf_).  A child
 * runs raw-exec filter-threads FILE ARG0: it installs a seccomp filter of
 * its own with a listener, hands the listener over, and makes one raw
 * exec of FILE per byte written to go (on a thread of its own), writing
 * each exec's errno (a byte) to report.  The listener is given to a
 * session (shellesc_session_kernel), which then decides those execs.
 * The filter is raw-exec's, a program of its own: threads made after a
 * fork of the multithreaded test process could hang under ASan.
 */
#ifndef SHELLESC_TESTS_FILTERED_H
#define SHELLESC_TESTS_FILTERED_H

#include <sys/types.h>

#include "shellesc.h"

struct tf_child {
	pid_t pid;
	int go, report;			/* ours: write to go, read report */
};

/* Fork the child for FILE (ARG0 its argv[0]) and give its listener to s,
 * waiting up to ms for it; skips under valgrind (no seccomp there). */
void tf_start(struct tf_child *k, struct shellesc_session *s, const char *file,
    const char *arg0, int ms);
/* Kill and reap it, and close our ends. */
void tf_end(struct tf_child *k);

#endif
