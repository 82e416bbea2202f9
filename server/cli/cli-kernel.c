/*
 * cli-kernel.c: the kernel layer of shellesc run (docs/security.md, "The
 * kernel layer").  PROGRAM's child installs the session's seccomp filter
 * with execve and execveat routed to a listener, sends the listener to us
 * on a socketpair and execs; we hand it to the session
 * (shellesc_session_kernel), whose loop then decides every exec of the
 * tree.  The child's own exec of PROGRAM is the one it continues unasked:
 * until then the child runs our code.
 *
 * Where the kernel cannot give a listener (no SECCOMP_RET_USER_NOTIF, or
 * the process is already under a filter with one, as inside another such
 * session), "both" falls back to the filter without it and says so at
 * start; "--mode ...,kernel" refuses to start PROGRAM.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cli.h"
#include "cli-seccomp.h"
#include "err.h"
#include "fdpass.h"

/* Linux 5.5: SECCOMP_USER_NOTIF_FLAG_CONTINUE, without which a run
 * decision could not let the exec go on. */
static bool
cli_kernel_continue_avail(void)
{
	struct utsname u;
	unsigned maj = 0, min = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return false;
	return maj > 5 || (maj == 5 && min >= 5);
}

int
cli_kernel_plan(struct cli *c, struct cli_seccomp *f, struct cli_seccomp *fb)
{
	bool want = c->o.kernel != CLI_KERNEL_OFF;

	if (want && !(cli_seccomp_notify_avail() && cli_kernel_continue_avail())) {
		if (c->o.kernel == CLI_KERNEL_ON) {
			cli_warnx("--mode kernel: this kernel lacks seccomp user notification "
			    "with CONTINUE (Linux 5.5)");
			return -1;
		}
		cli_warnx("the kernel layer is missing (seccomp user notification needs Linux "
		    "5.5): execs are caught by the preload and the wrapper only");
		want = false;
	}
	if (cli_seccomp_build(f, want) != 0 || cli_seccomp_build(fb, false) != 0 ||
	    (c->o.no_network && (cli_seccomp_build_net(f) != 0 || cli_seccomp_build_net(fb) != 0))) {
		cli_warnx("cannot build the session's seccomp filter");
		return -1;
	}
	return 0;
}

int
cli_kernel_enter(const struct cli *c, const struct cli_seccomp *f,
    const struct cli_seccomp *fb, int sock)
{
	int fd = cli_seccomp_enter(f), e = errno;
	struct iovec iov = { &e, sizeof(e) };

	if (!f->listener)
		return fd < 0 ? -1 : 0;
	if (fd < 0 && (c->o.kernel == CLI_KERNEL_ON || cli_seccomp_enter(fb) != 0))
		return -1;
	if (fd >= 0)
		e = 0;
	/* without the listener on its way, the exec below would wait forever */
	if (fdpass_send_all(sock, &iov, 1, &fd, fd >= 0 ? 1 : 0) != 0) {
		errno = EPIPE;
		return -1;
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
