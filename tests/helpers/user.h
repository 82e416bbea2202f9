/*
 * user.h: an unprivileged user for the tests that must attack as one (the
 * sandboxed side of a Landlock session).
 *
 * Run as root, the test binary creates a system account before its first
 * test (useradd: no home, no login shell) and removes it after its last
 * (userdel); the tests drop to it in the process they run as the sandboxed
 * side.  Run as anyone else, the caller already is unprivileged: the user
 * is the caller itself and nothing is created.
 */
#ifndef SHELLESC_TEST_USER_H
#define SHELLESC_TEST_USER_H

#include <sys/types.h>

struct tu_user {
	uid_t uid;
	gid_t gid;
	char name[64];
	int created;	/* 1: an account this run made (as root) */
};

/* The run's unprivileged user: 0, or -1 with why (for cr_skip) set to a
 * static reason (no useradd, the account could not be made). */
int tu_user(struct tu_user *u, const char **why);

/* In a child about to become the sandboxed side: drop every group and id
 * to u (nothing to do when u is the caller).  0, or -1 with errno set. */
int tu_become(const struct tu_user *u);

/*
 * A path to file that u can read and execute: file itself when u can
 * reach it, else a copy in a directory of the run's that everyone can read
 * (a checkout made with mktemp -d is closed to other users).  Returns a
 * static path (valid until the run ends), or NULL with errno set.
 */
const char *tu_reachable(const struct tu_user *u, const char *file);

#endif /* SHELLESC_TEST_USER_H */
