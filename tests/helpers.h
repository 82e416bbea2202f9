/* helpers.h: small utilities shared by the test suites. */
#ifndef SHELLESC_TEST_HELPERS_H
#define SHELLESC_TEST_HELPERS_H

#include <stddef.h>

/* Number of open fds in this process (counts /proc/self/fd entries). */
int th_count_fds(void);

/* A SOCK_STREAM or SOCK_DGRAM AF_UNIX socketpair (CLOEXEC); asserts success. */
void th_pair(int type, int sv[2]);

/* True when fd is open. */
int th_fd_open(int fd);

#endif
