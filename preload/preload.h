/*
 * preload.h: internals of libshellesc_preload.so.
 *
 * shim.c / spawn.c / fdguard.c hold only the exported, interposed symbols:
 * thin shims over the logic here.  Everything on an exec path may run in a
 * vfork child or after fork() in a threaded program, so it allocates
 * nothing (stack buffers, mmap), takes no locks, uses no stdio, and makes
 * only async-signal-safe system calls.  errno is preserved on every path
 * that falls through to the real function.
 *
 * Errors: the functions here return 0 or a positive errno value (as
 * posix_spawn and path_search do), never -1 nor a negative errno; errno is
 * set only on the way out of an interposed function that fails (pl_errno()
 * where it returns -1) and is otherwise left as the caller had it.
 */
#ifndef SHELLESC_PRELOAD_H
#define SHELLESC_PRELOAD_H

#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#define PL_EXPORT __attribute__((visibility("default")))

/* An interposed function's failure: errno = e, and -1 to return. */
static inline int
pl_errno(int e)
{
	errno = e;
	return -1;
}

/*
 * The real functions, found with dlsym(RTLD_NEXT) on the first call of any
 * interposed function (pl_resolve), not at load: most programs started in
 * a session never call one, and should not pay for the lookups.
 */
struct pl_real {
	int (*execve)(const char *, char *const[], char *const[]);
	int (*execvpe)(const char *, char *const[], char *const[]);
	int (*fexecve)(int, char *const[], char *const[]);
	int (*execveat)(int, const char *, char *const[], char *const[], int);
	int (*posix_spawn)(pid_t *, const char *, const posix_spawn_file_actions_t *,
	    const posix_spawnattr_t *, char *const[], char *const[]);
	int (*posix_spawnp)(pid_t *, const char *, const posix_spawn_file_actions_t *,
	    const posix_spawnattr_t *, char *const[], char *const[]);
	int (*close)(int);
	int (*close_range)(unsigned, unsigned, int);
	void (*closefrom)(int);
	int (*dup2)(int, int);
	int (*dup3)(int, int, int);
	int (*fa_addclose)(posix_spawn_file_actions_t *, int);
	int (*fa_adddup2)(posix_spawn_file_actions_t *, int, int);
	int (*fa_addopen)(posix_spawn_file_actions_t *, int, const char *, int, mode_t);
	int (*fa_addclosefrom)(posix_spawn_file_actions_t *, int);
	int (*pclose)(FILE *);
	FILE *(*popen)(const char *, const char *);
	int (*system)(const char *);
};
extern struct pl_real pl_real;

/* Room for the strings captured at load (PL_STRS_MAX bytes in all). */
#define PL_STRS_MAX (PATH_MAX * 6)

/*
 * What the library captured when it was loaded (init.c).  Zero-initialised
 * (.bss) and its strings packed together, so loading the library into a
 * process touches as few pages as possible.  The strings are never NULL.
 */
struct pl_state {
	bool active;		/* a session was present at load */
	bool broken;		/* ...but its socket is unusable: fail closed */
	bool checked;		/* the socket was found to be a session socket */
	int sock;		/* the session socket */
	pid_t owner;		/* the process sock belongs to (see fdguard.c) */
	const char *preload;	/* LD_PRELOAD at load */
	const char *wrapper;	/* EXEC_WRAPPER at load, or "" */
	const char *proxy;	/* the wrapper to exec as an escalation proxy */
	/*
	 * "EXEC_WRAPPER=..." and "SHELLESC_WRAPPER=..." as they were at load,
	 * or "": what every child's environment gets, and nothing else.
	 */
	const char *keep[2];
	size_t used;		/* bytes of strs in use */
	char strs[PL_STRS_MAX];
};
extern struct pl_state pl;

void pl_resolve(void);	/* fill pl_real, once */

/* This library's path, found on first use (for LD_PRELOAD in children). */
const char *pl_self(void);

/*
 * Is the session socket usable?  Checked on first use and when asked to
 * recheck (before each exec: the number may have been reused).
 */
bool pl_sock_ok(bool recheck);

/* The session socket as this process sees it now (fdguard.c). */
int pl_sock(void);

/* --- copy.c: what one exec attempt decides on and runs --- */
/*
 * Everything in one place: in a process with threads, a private mapping
 * made read-only before anything is decided, so that other threads cannot
 * change it between the request and the exec; in one without
 * (__libc_single_threaded: no thread was ever started, the case of
 * every fork child of a shell), room, below, on the caller's stack, which
 * nothing else runs to change -- a mapping and its protection cost tens of
 * microseconds an exec on a paravirtualized machine.  argv has two free
 * slots in front of it for the proxy's command line, env one after its end
 * for the proxy's fd.
 */
#define PL_ROOM 16384
struct pl_copy {
	const char *path;	/* the target, as decided on */
	const char *run;	/* what is exec'd: path, or the session's wrapper */
	char **argv;		/* argv[-2]: the proxy, argv[-1]: path */
	char **env;		/* the child's environment (see pl_copy_make) */
	size_t envc;
	const char *wrapper;	/* the session's EXEC_WRAPPER path, or "" */
	const char *proxy;	/* the session's proxy path */
	const char *shell;	/* SHELLESC_WRAPPER_SHELL's value, or NULL */
	bool ask;		/* SHELLESC_WRAPPER_ASK is set: the wrapper only asks */
	char *proxy_room;
	void *base;
	size_t size;
	bool mapped;		/* base is a mapping (else it is room) */
	char room[PL_ROOM] __attribute__((aligned(16)));
};

/*
 * Copy path (a private string: see pl_private), argv and envp, and build
 * the child's environment: the caller's entries, with each of shellesc's
 * variables exactly once and with the session's value (LD_PRELOAD: this
 * library first, the other libraries of the caller's first entry kept;
 * SHELLESC_PROXY_FD never).  Returns 0, or E2BIG for what the kernel would
 * refuse as too large (or what kept changing while it was copied), or
 * mmap's errno.  errno is kept.
 */
int pl_copy_make(struct pl_copy *c, const char *path, char *const argv[], char *const envp[]);

/* Put SHELLESC_PROXY_FD=fd at the end of c->env.  0 or an errno. */
int pl_copy_proxy(struct pl_copy *c, int fd);

/* Unmap c (errno kept). */
void pl_copy_free(struct pl_copy *c);

/*
 * Copy s into buf[PATH_MAX] once, so that what is checked, decided and run
 * is one string.  0, or ENAMETOOLONG as the kernel would say (EFAULT for
 * NULL).
 */
int pl_private(char *buf, const char *s);

/* --- gate.c: deciding one exec attempt --- */
enum pl_verdict { PL_RUN, PL_ESCALATE, PL_DENY, PL_FAIL, PL_PASS };

/*
 * Ask the server about executing c->path.  PL_PASS: no session, or the
 * file c->path names is the session's wrapper (the device and inode of the
 * wrapper the session named when the library was loaded): its own exec is
 * not a decision, and c->run is set to the session's path of it.
 * PL_ESCALATE leaves *stream open.  PL_DENY and PL_FAIL have printed their
 * message; the exec fails with EACCES.  A repeat of this process image's
 * last deny (same file by device and inode, same argv and environment,
 * moments later: a PATH walk of the program's own) is PL_DENY unasked and
 * unsaid (gate.c).  errno is kept.
 */
enum pl_verdict pl_decide(struct pl_copy *c, int *stream);

/*
 * After PL_PASS for the session's EXEC_WRAPPER (both mode: a patched
 * shell's exec of it): is there a command behind it (FILE ARGV0 ...), and
 * is the wrapper to run it (not only to ask, SHELLESC_WRAPPER_ASK)?
 * Then c becomes that command and true is returned, for pl_run_wrapped.
 */
bool pl_wrapped(struct pl_copy *c);

/*
 * Do here what the wrapper would: decide c, then exec it in place (a file
 * without #! under the shell the patched shell named, or /bin/sh), become
 * the escalation proxy, or exit 126 after saying why, as the wrapper exits
 * after replacing the shell.  Returns only when the proxy could not be
 * exec'd: its errno.
 */
int pl_run_wrapped(struct pl_copy *c);

/* Look up the session's wrappers' identities, if not done yet (see pl_decide). */
void pl_wrappers_lookup(void);

/*
 * exec path after a decision: run c->run, or become the escalation proxy.
 * Returns only on failure: the errno the exec failed with (EACCES for
 * PL_DENY and PL_FAIL).
 */
int pl_exec_decided(struct pl_copy *c, enum pl_verdict v, int stream);

/* Clear the session socket's close-on-exec flag: the child must inherit it. */
void pl_sock_inherit(void);

/* --- path.c: PATH search exactly as glibc's execvpe/posix_spawnp --- */
/* path_search (common/path.h) over the PATH of the caller's environ. */
int pl_path_search(const char *file, int (*try)(const char *, void *), void *arg);

/* --- spawn.c --- */
/* posix_spawn, decided: 0 or an error number (EACCES when refused). */
int pl_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);

#endif /* SHELLESC_PRELOAD_H */
