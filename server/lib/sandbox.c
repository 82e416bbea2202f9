/*
 * sandbox.c: the one sandbox builder (shellesc_sandbox_* in shellesc.h):
 * the Landlock layers (sandbox-landlock.c), the read-only .git of their
 * writable roots (sandbox-git.c) and the seccomp filter
 * (sandbox-seccomp.c) of a program a session runs, built before fork and
 * entered in the child between fork and exec.  Every front end builds its
 * program's sandbox here: shellesc run for PROGRAM, and exec and mcp for
 * the shell, which the library's own spawn enters (spawn.c,
 * shellesc_exec_params.sandbox).  Escalated commands enter none.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sandbox.h"

/* Does a layer ask for no network (and so the socket program)? */
static bool
sandbox_no_network(const struct shellesc_sandbox_config *cfg)
{
	for (size_t i = 0; i < cfg->n_layers; i++)
		if (cfg->layers[i].no_network)
			return true;
	return false;
}

/* The filter with the notification (when asked for, or for the gate) and
 * the one without. */
static int
sandbox_filters(struct shellesc_sandbox *sb, const struct shellesc_sandbox_config *cfg)
{
	bool net = sandbox_no_network(cfg), exec = cfg->flags & SHELLESC_SANDBOX_EXEC_NOTIFY;

	if (((exec || sb->gate.on) &&
	    (sandbox_seccomp_build(&sb->notify, exec, sb->gate.on) != 0 ||
	    (net && sandbox_seccomp_build_net(&sb->notify) != 0))) ||
	    sandbox_seccomp_build(&sb->plain, false, false) != 0 ||
	    (net && sandbox_seccomp_build_net(&sb->plain) != 0))
		return -1;
	return 0;
}

int
shellesc_sandbox_new(const struct shellesc_sandbox_config *cfg,
    struct shellesc_sandbox **out, struct shellesc_sandbox_fault *why)
{
	struct shellesc_sandbox *sb;
	int fd;

	memset(why, 0, sizeof(*why));
	*out = NULL;
	if (cfg->n_layers > SHELLESC_SANDBOX_MAX_LAYERS)
		return -EINVAL;
	if ((sb = calloc(1, sizeof(*sb))) == NULL) {
		why->step = SHELLESC_SANDBOX_NO_MEMORY;
		return -ENOMEM;
	}
	sb->flags = cfg->flags;
	if (sandbox_gate_init(&sb->gate, cfg) != 0) {
		why->step = SHELLESC_SANDBOX_NO_MEMORY;
		shellesc_sandbox_free(sb);
		return -ENOMEM;
	}
	if (sandbox_filters(sb, cfg) != 0) {
		why->step = SHELLESC_SANDBOX_SECCOMP_BUILD;
		shellesc_sandbox_free(sb);
		return -E2BIG;
	}
	for (; sb->n < cfg->n_layers; sb->n++) {
		if ((fd = sandbox_landlock_ruleset(&cfg->layers[sb->n], why)) < 0) {
			shellesc_sandbox_free(sb);
			return fd;
		}
		sb->ruleset[sb->n] = fd;
	}
	if ((fd = sandbox_git_find(sb, cfg, why)) != 0) {
		shellesc_sandbox_free(sb);
		return fd;
	}
	*out = sb;
	return 0;
}

void
shellesc_sandbox_free(struct shellesc_sandbox *sb)
{
	if (sb == NULL)
		return;
	for (size_t i = 0; i < sb->n; i++)
		close(sb->ruleset[i]);
	sandbox_gate_free(&sb->gate);
	free(sb);
}

/* Fill *why for a failed step of enter: -errno (errno kept). */
static int
sandbox_enter_fault(struct shellesc_sandbox_fault *why, enum shellesc_sandbox_step step)
{
	int e = errno;

	why->step = step;
	why->err = e;
	return e > 0 ? -e : -EIO;
}

/*
 * The filter: with a listener wanted, the notifying one; where the kernel
 * gives no listener and the sandbox may fall back, the plain one (the
 * reason in *why).  The socket gate never falls back: without its
 * listener a sandboxed process would reach every socket file.
 */
static int
sandbox_enter_filter(const struct shellesc_sandbox *sb, int *listener,
    struct shellesc_sandbox_fault *why)
{
	int fd, e;

	if (listener != NULL)
		*listener = -1;
	if (listener == NULL && sb->gate.on) {
		errno = EINVAL;
		return sandbox_enter_fault(why, SHELLESC_SANDBOX_NO_GATE);
	}
	if (listener == NULL || !(sb->flags & SHELLESC_SANDBOX_EXEC_NOTIFY || sb->gate.on))
		return sandbox_seccomp_enter(&sb->plain) < 0 ?
		    sandbox_enter_fault(why, SHELLESC_SANDBOX_SECCOMP_ENTER) : 0;
	if ((fd = sandbox_seccomp_enter(&sb->notify)) >= 0) {
		*listener = fd;
		return 0;
	}
	e = errno;
	if (sb->gate.on)
		return sandbox_enter_fault(why, SHELLESC_SANDBOX_NO_GATE);
	if (!(sb->flags & SHELLESC_SANDBOX_NOTIFY_FALLBACK) ||
	    sandbox_seccomp_enter(&sb->plain) != 0)
		return sandbox_enter_fault(why, SHELLESC_SANDBOX_SECCOMP_ENTER);
	why->step = SHELLESC_SANDBOX_NO_LISTENER;
	why->err = e;
	return 0;
}

int
shellesc_sandbox_enter(const struct shellesc_sandbox *sb, int *listener,
    struct shellesc_sandbox_fault *why)
{
	why->step = SHELLESC_SANDBOX_OK;
	why->err = 0;
	why->path[0] = '\0';
	if (sandbox_git_enter(sb) != 0)
		return sandbox_enter_fault(why, SHELLESC_SANDBOX_GIT_ENTER);
	for (size_t i = 0; i < sb->n; i++)
		if (sandbox_landlock_enter(sb->ruleset[i]) != 0)
			return sandbox_enter_fault(why, SHELLESC_SANDBOX_LANDLOCK_ENTER);
	return sandbox_enter_filter(sb, listener, why);
}

/* Linux 5.5: SECCOMP_USER_NOTIF_FLAG_CONTINUE, without which a run
 * decision could not let the exec go on. */
static bool
sandbox_continue_avail(void)
{
	struct utsname u;
	unsigned maj = 0, min = 0;

	if (uname(&u) != 0 || sscanf(u.release, "%u.%u", &maj, &min) != 2)
		return false;
	return maj > 5 || (maj == 5 && min >= 5);
}

int
shellesc_sandbox_kernel_avail(void)
{
	return sandbox_seccomp_notify_avail() && sandbox_continue_avail();
}
