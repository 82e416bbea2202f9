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
	/* "NAME=value" entries put back into every child's environment. */
	const char *keep[2];
	int nkeep;
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

/* --- gate.c: deciding one exec attempt --- */
enum pl_verdict { PL_RUN, PL_ESCALATE, PL_DENY, PL_FAIL, PL_PASS };

/*
 * Ask the server about executing path (as the kernel will resolve it).
 * PL_PASS: no session, or path is the wrapper (its own exec is not a
 * decision).  PL_ESCALATE leaves *stream open.  PL_DENY and PL_FAIL have
 * printed their message; the exec fails with EACCES.  errno is kept.
 */
enum pl_verdict pl_decide(const char *path, char *const argv[],
    char *const envp[], int *stream);

/*
 * The environment a child gets: envp with shellesc's variables put back
 * (LD_PRELOAD with this library first, the socket, EXEC_WRAPPER) and,
 * when proxy_fd >= 0, SHELLESC_PROXY_FD.  Returns envp itself when nothing
 * needs changing, else an mmap'd copy to pass to pl_env_free().
 */
char **pl_env(char *const envp[], int proxy_fd);
void pl_env_free(char **env, char *const envp[]);

/* exec path after a decision: run, or become the escalation proxy.
 * Returns only on failure: the errno the exec failed with (EACCES for
 * PL_DENY and PL_FAIL). */
int pl_exec_decided(const char *path, char *const argv[], char *const envp[],
    enum pl_verdict v, int stream);

/* --- path.c: PATH search exactly as glibc's execvpe/posix_spawnp --- */
/* path_search (common/path.h) over the PATH of the caller's environ. */
int pl_path_search(const char *file, int (*try)(const char *, void *), void *arg);

/* --- target.c --- */
/* SHELLESC_FLAG_* bits for the file that will run. */
unsigned pl_target_flags(const char *path);

/* --- spawn.c --- */
/* posix_spawn, decided: 0 or an error number (EACCES when refused). */
int pl_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[]);

#endif /* SHELLESC_PRELOAD_H */
