/*
 * cli-seccomp.h: the session's seccomp filter.  This is the one place that
 * builds it: every path that starts the session's program (cli-run.c, and
 * cli-exec.c's re-executed side) installs it between fork and exec, and
 * every process of the session inherits it.  Escalated commands are
 * started by the server, not by the session: they never carry it.
 *
 * What it denies (EPERM), on every architecture the kernel can run the
 * session's code in, is listed in cli-seccomp.c and docs/security.md
 * ("Prompts and the terminal"): the ioctls that put bytes into a
 * terminal's input or change what its keys produce, so that nothing in
 * the session can answer a prompt or leave input for the user's shell.
 */
#ifndef SHELLESC_CLI_SECCOMP_H
#define SHELLESC_CLI_SECCOMP_H

#include <linux/filter.h>

#define CLI_SECCOMP_MAX	64		/* instructions */

/* A filter built before fork, so the child only has to install it. */
struct cli_seccomp {
	struct sock_filter code[CLI_SECCOMP_MAX];
	unsigned short len;
};

/* Build the session's filter into f: 0, or -1 if it does not fit (which
 * a static assertion rules out).  Prints nothing: the one part of the
 * command the tests link in (tests/test-cli-seccomp.c). */
int cli_seccomp_build(struct cli_seccomp *f);

/*
 * In a child, before exec (async-signal-safe): install f.  Sets
 * no_new_privs only when the kernel demands it to (a caller without
 * CAP_SYS_ADMIN), so a root session keeps its set-id programs' meaning.
 * 0, or -1 with errno set (no message).
 */
int cli_seccomp_enter(const struct cli_seccomp *f);

#endif /* SHELLESC_CLI_SECCOMP_H */
