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
#include <stdbool.h>

#define CLI_SECCOMP_MAX	64		/* instructions */

/* A filter built before fork, so the child only has to install it; with
 * --no-network a second program (net_len > 0) is installed after it. */
struct cli_seccomp {
	struct sock_filter code[CLI_SECCOMP_MAX];
	unsigned short len;
	bool listener;			/* the kernel layer: a listener comes with it */
	struct sock_filter net[CLI_SECCOMP_MAX];	/* --no-network's program */
	unsigned short net_len;				/* 0: none */
};

/* Build the session's filter into f: 0, or -1 if it does not fit (which
 * a static assertion rules out).  With exec_notify (the kernel layer),
 * execve and execveat of every ABI return SECCOMP_RET_USER_NOTIF, for the
 * server to decide (shellesc_session_kernel).  Prints nothing: the one
 * part of the command the tests link in (tests/test-cli-seccomp.c). */
int cli_seccomp_build(struct cli_seccomp *f, bool exec_notify);

/* Does the kernel have SECCOMP_RET_USER_NOTIF (Linux 5.0; CONTINUE, which
 * the layer needs too, came in 5.5)? */
bool cli_seccomp_notify_avail(void);

/* After cli_seccomp_build, for --no-network: add the program that refuses
 * (EACCES) sockets of the internet families but TCP's, packet sockets,
 * socketcall(2) and io_uring_setup(2) (cli-seccomp.c).  0 or -1, quietly. */
int cli_seccomp_build_net(struct cli_seccomp *f);

/*
 * In a child, before exec (async-signal-safe): install f.  Sets
 * no_new_privs only when the kernel demands it to (a caller without
 * CAP_SYS_ADMIN), so a root session keeps its set-id programs' meaning.
 * 0, the listener's fd (CLOEXEC) for a filter built with exec_notify,
 * or -1 with errno set (no message; EBUSY: a filter of the process has a
 * listener already, as inside another session with the kernel layer).
 */
int cli_seccomp_enter(const struct cli_seccomp *f);

#endif /* SHELLESC_CLI_SECCOMP_H */
