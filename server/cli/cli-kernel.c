/*
 * cli-kernel.c: the kernel layer of shellesc run (docs/security.md, "The
 * kernel layer").  PROGRAM's child installs the session's seccomp filter
 * (the library's sandbox builder, built with SHELLESC_SANDBOX_EXEC_NOTIFY:
 * execve and execveat routed to a listener), sends the listener to us
 * on a socketpair and execs; we hand it to the session
 * (shellesc_session_kernel), whose loop then decides every exec of the
 * tree.  The child's own exec of PROGRAM is the one it continues unasked:
 * until then the child runs our code.
 *
 * exec and mcp get the same layer from the library, which enters the
 * shell's sandbox and hands its listener to the session the same way
 * (spawn.c); cli_kernel_plan says at their start what run says at its.
 *
 * Where the kernel cannot give a listener (no SECCOMP_RET_USER_NOTIF, or
 * the process is already under a filter with one, as inside another such
 * session), "both" falls back to the filter without it and says so at
 * start -- unless only the layer would catch PROGRAM's execs (a static
 * program: cli-probe.c), where it is required as "--mode ...,kernel"
 * requires it: PROGRAM is not started.  Under --sandbox landlock the
 * listener is always wanted, whatever --mode says: it carries the socket
 * gate (shellesc_session_sandbox), which never falls back, so PROGRAM is
 * not started without it (exit 125).  "--mode kernel" alone is the layer without
 * the preload and the wrapper: the library then puts nothing of the
 * session into PROGRAM's environment or fds (SHELLESC_INTERCEPT_KERNEL).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cli.h"
#include "err.h"
#include "fdpass.h"

int
cli_kernel_plan(struct cli *c, bool *listen)
{
	bool gate = c->o.sandbox == CLI_SANDBOX_LANDLOCK;

	*listen = c->o.kernel != CLI_KERNEL_OFF || gate;
	if (gate && !shellesc_sandbox_kernel_avail()) {
		cli_warnx("--sandbox landlock: this kernel lacks seccomp user notification "
		    "(Linux 5.5), which the socket gate needs");
		return -1;
	}
	if (c->o.kernel != CLI_KERNEL_OFF && !shellesc_sandbox_kernel_avail()) {
		if (c->o.kernel == CLI_KERNEL_ON) {
			cli_warnx("--mode kernel: this kernel lacks seccomp user notification "
			    "with CONTINUE (Linux 5.5)");
			return -1;
		}
		cli_warnx("the kernel layer is missing (seccomp user notification needs Linux "
		    "5.5): execs are caught by the preload and the wrapper only");
		*listen = false;
	}
	return 0;
}

int
cli_kernel_enter(const struct cli *c, bool listen, int sock,
    struct shellesc_sandbox_fault *why)
{
	int fd = -1, e, r = shellesc_sandbox_enter(c->sandbox, listen ? &fd : NULL, why);
	struct iovec iov = { &e, sizeof(e) };

	if (r != 0 || !listen)
		return r;
	e = fd >= 0 ? 0 : why->err;	/* SHELLESC_SANDBOX_NO_LISTENER: why not */
	/* without the listener on its way, the exec below would wait forever */
	if (fdpass_send_all(sock, &iov, 1, &fd, fd >= 0 ? 1 : 0) != 0) {
		why->step = SHELLESC_SANDBOX_SECCOMP_ENTER;
		why->err = EPIPE;
		return -EPIPE;
	}
	if (fd >= 0)
		close(fd);
	return 0;
}

int
cli_kernel_take(struct cli *c, int sock, pid_t pid)
{
	int e = 0, fd = -1, r;
	size_t n = 1;
	ssize_t got = fdpass_recv_wait(sock, &e, sizeof(e), &fd, &n, true);

	if (got != (ssize_t)sizeof(e))
		return 0;		/* no filter: the child reports why */
	if (n == 0) {
		cli_warnx("the kernel layer is missing (%s): execs are caught by the preload "
		    "and the wrapper only", e == EBUSY ? "this session runs inside another "
		    "with the kernel layer" : strerror(e));
		return 0;
	}
	if ((r = shellesc_session_kernel(c->s, fd, pid)) != 0) {
		cli_warnx("cannot start the kernel layer: %s", strerror(-r));
		return -1;
	}
	cli_debug(c, 1, "kernel layer: every execve in the session is decided");
	return 0;
}
