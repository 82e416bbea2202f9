/*
 * sandbox.h: the sandbox builder's parts (private to the library; its
 * face is shellesc_sandbox_* in shellesc.h).  sandbox.c holds the object
 * and its life, sandbox-landlock.c the Landlock layers, sandbox-seccomp.c
 * the seccomp filter, which the cli_seccomp suite also runs through a BPF
 * interpreter on every ABI (tests/test-cli-seccomp.c links this file and
 * sandbox-seccomp.c in).
 */
#ifndef SHELLESC_SANDBOX_H
#define SHELLESC_SANDBOX_H

#include <linux/filter.h>
#include <stdbool.h>
#include <sys/types.h>
#include <time.h>

#include "shellesc.h"

#define SANDBOX_FILTER_MAX	64		/* instructions */

/* A filter built before fork, so the child only has to install it; with
 * no_network a second program (net_len > 0) is installed after it. */
struct sandbox_filter {
	struct sock_filter code[SANDBOX_FILTER_MAX];
	unsigned short len;
	bool listener;			/* the exec notification: a listener comes with it */
	struct sock_filter net[SANDBOX_FILTER_MAX];	/* no_network's program */
	unsigned short net_len;				/* 0: none */
};

#define SANDBOX_GIT_MAX		16		/* .git directories made read-only */

/* A writable root's .git, found when the sandbox is built. */
struct sandbox_git {
	char path[SHELLESC_SANDBOX_PATH_MAX];
	dev_t dev;
	ino_t ino;
};

/* The socket gate's facts (kernel-socket.c decides with them): on with
 * Landlock layers.  Paths canonical (realpath) where they exist. */
struct sandbox_gate {
	bool on;
	bool no_network;		/* a layer's: TCP refused */
	char **allow;			/* patterns, NULL-terminated */
	char **roots;			/* every layer's writable roots... */
	size_t *root_layer;		/* ...each one's layer */
	size_t nroots, nlayers;
	struct timespec start;		/* built: a socket file born since is the session's */
};

/* sandbox.c: fill g from cfg (0 or -ENOMEM); copy one (0 or -ENOMEM);
 * free one's contents. */
int sandbox_gate_init(struct sandbox_gate *g, const struct shellesc_sandbox_config *cfg);
int sandbox_gate_copy(struct sandbox_gate *to, const struct sandbox_gate *from);
void sandbox_gate_free(struct sandbox_gate *g);

struct shellesc_sandbox {
	struct sandbox_gate gate;
	int ruleset[SHELLESC_SANDBOX_MAX_LAYERS];	/* Landlock's, close-on-exec */
	size_t n;
	unsigned flags;			/* the config's */
	struct sandbox_git git[SANDBOX_GIT_MAX];
	size_t ngit;			/* 0: none, or no mount namespace */
	bool git_userns;		/* ...made with a user namespace */
	struct sandbox_filter notify;	/* with SHELLESC_SANDBOX_EXEC_NOTIFY */
	struct sandbox_filter plain;	/* without the notification */
};

/* sandbox-landlock.c: layer l's ruleset fd (close-on-exec), or -errno
 * with *why filled in.  sandbox_landlock_enter: in a child (async-signal-
 * safe): 0, or -1 with errno. */
int sandbox_landlock_ruleset(const struct shellesc_sandbox_layer *l,
    struct shellesc_sandbox_fault *why);
int sandbox_landlock_enter(int ruleset);

/* sandbox-git.c: find each writable root's .git (where a layer does not
 * keep it writable), and whether a mount namespace can be had: 0 (without
 * one, ngit 0 and *why SHELLESC_SANDBOX_GIT_WRITABLE), or -errno with *why
 * filled in.  sandbox_git_enter: in a child (async-signal-safe), before
 * Landlock: each read-only in a mount namespace of its own; 0, or -1 with
 * errno. */
int sandbox_git_find(struct shellesc_sandbox *sb, const struct shellesc_sandbox_config *cfg,
    struct shellesc_sandbox_fault *why);
int sandbox_git_enter(const struct shellesc_sandbox *sb);

/* sandbox-seccomp.c.  Build the filter into f: 0, or -1 if it does not fit
 * (which a static assertion rules out); with exec_notify, execve and
 * execveat of every ABI return SECCOMP_RET_USER_NOTIF; with gate, connect
 * and a sendto with an address do, socketcall and io_uring_setup fail
 * (ENOSYS). */
int sandbox_seccomp_build(struct sandbox_filter *f, bool exec_notify, bool gate);
/* After sandbox_seccomp_build, for no_network: the socket program. */
int sandbox_seccomp_build_net(struct sandbox_filter *f);
/* In a child (async-signal-safe): install f.  0, the listener's fd
 * (close-on-exec) for a filter built with exec_notify, or -1 with errno
 * (EBUSY: a filter of the process has a listener already). */
int sandbox_seccomp_enter(const struct sandbox_filter *f);
bool sandbox_seccomp_notify_avail(void);

#endif /* SHELLESC_SANDBOX_H */
