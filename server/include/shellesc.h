/*
 * shellesc.h: embed a shellesc escalation server.
 *
 * A *session* is one approval gate.  Start it, merge its environment overlay
 * into a shell's environment, start the shell (or let shellesc_session_exec()
 * do it), and every exec in that shell's process tree is first sent to your
 * *policy*, which answers run (exec in place, inside the shell's sandbox),
 * escalate (the session runs it outside the sandbox on the caller's stdio)
 * or deny.
 *
 * Threads: a session runs its own event-loop thread (epoll).  The policy is
 * called on that thread and must not block: answer at once with
 * shellesc_request_decide(), or keep the request and answer later from any
 * thread -- a slow answer (a human prompt) never holds up other requests.
 * Everything else may be called from any thread.
 *
 * Children: escalated commands are started with fork+exec from the loop
 * thread, each in its own process group, and are reaped through pidfds.
 * The embedding process must not set SIGCHLD to SIG_IGN nor reap with
 * waitpid(-1, ...), or their exit status is lost.  Escalated commands get
 * PR_SET_PDEATHSIG(SIGKILL): if the embedding process dies, they die too.
 *
 * Errors: functions returning int give 0 on success or a negative errno
 * value (strerror(-r) describes it).  Nothing here exits or prints; the
 * optional log callback receives diagnostics.
 */
#ifndef SHELLESC_H
#define SHELLESC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shellesc-version.h"	/* SHELLESC_VERSION */

#ifdef __cplusplus
extern "C" {
#endif

struct shellesc_session;
struct shellesc_request;

enum shellesc_action {
	SHELLESC_RUN,		/* exec in place, unchanged */
	SHELLESC_ESCALATE,	/* the session runs it, outside the sandbox */
	SHELLESC_DENY,		/* refused; the caller sees EACCES / exit 126 */
};

/* How an escalated command is to be run; passed to the prepare callback. */
enum shellesc_mode {
	SHELLESC_MODE_UNSANDBOXED,	/* as is, outside any sandbox (default) */
	SHELLESC_MODE_SESSION_DEFAULT,	/* the embedder's default profile */
	SHELLESC_MODE_PROFILE,		/* decision.profile, opaque to shellesc */
};

struct shellesc_decision {
	enum shellesc_action action;
	enum shellesc_mode mode;	/* escalate only */
	void *profile;			/* SHELLESC_MODE_PROFILE: passed through untouched */
	const char *reason;		/* shown to the caller on deny; may be NULL; copied */
};

/*
 * Facts about the file that will run (shellesc_target.facts), found by the
 * server on the file it opened.  The first two are also the bits of
 * shellesc_request_flags(), where they are only the client's claims.
 */
#define SHELLESC_TARGET_STATIC	0x1	/* ELF without PT_INTERP: the preload cannot follow it */
#define SHELLESC_TARGET_SETID	0x2	/* set-uid, set-gid (with group execute) or file capabilities */
#define SHELLESC_TARGET_SCRIPT	0x4	/* starts with "#!" */
#define SHELLESC_TARGET_WRITABLE 0x8	/* the session's side could have changed it (see .writable) */
#define SHELLESC_TARGET_LOADER_OPTIONS 0x10 /* .loader was given options an escalation drops */
/* Bits of shellesc_request_flags(): which client caught the exec (neither:
 * a client of its own).  For audit logs; the client could lie. */
#define SHELLESC_ASKED_BY_PRELOAD	0x100	/* libshellesc_preload.so */
#define SHELLESC_ASKED_BY_WRAPPER	0x200	/* shellesc-execve-wrapper (patched shells) */
/* The kernel layer caught it (shellesc_session_kernel): no client asked;
 * the server read it from the caller's memory.  The one bit no client can
 * set. */
#define SHELLESC_ASKED_BY_KERNEL	0x400

/* --- The request, as the policy sees it (valid until decided) ---------- */

/*
 * Everything a client sends is a claim: the caller is the session's
 * untrusted side.  The facts a policy should decide on are the server's:
 * the peer's credentials (SO_PEERCRED) and the target below.
 */

/* The program as the caller named it: its file made absolute lexically
 * against the cwd it sent ("." and empty components dropped, ".." kept,
 * no "~" expansion: the kernel does none).  For display; what runs is the
 * target. */
const char *shellesc_request_program(const struct shellesc_request *req);
const char *shellesc_request_file(const struct shellesc_request *req); /* as passed */
char *const *shellesc_request_argv(const struct shellesc_request *req); /* NULL-terminated */
size_t shellesc_request_argc(const struct shellesc_request *req);
const char *shellesc_request_cwd(const struct shellesc_request *req);  /* absolute, as sent */
char *const *shellesc_request_env(const struct shellesc_request *req); /* NAME=value, NULL-terminated */
pid_t shellesc_request_pid(const struct shellesc_request *req);  /* SO_PEERCRED */
uid_t shellesc_request_uid(const struct shellesc_request *req);
gid_t shellesc_request_gid(const struct shellesc_request *req);
/* The client's flags: SHELLESC_ASKED_BY_* and its claims of
 * SHELLESC_TARGET_STATIC and _SETID (hints only: use the target's facts). */
unsigned shellesc_request_flags(const struct shellesc_request *req);

/*
 * The file that will run, as the server found it.  The server opens the
 * program itself when the request arrives, from the caller's point of
 * view: a relative path from the caller's working directory
 * (/proc/PID/cwd, not the cwd it sent), symbolic links followed, and
 * /proc/self, /dev/fd/N and /dev/stdin read through the caller's own fd
 * table.  Every field is about that open file, and an escalated command
 * executes exactly it (execveat(2)), so it cannot be swapped between the
 * decision and the exec.
 *
 * The dynamic loader run directly ("ld.so [OPTIONS] PROGRAM ARGS") stands
 * for PROGRAM: the target is PROGRAM, argv its argv, loader the loader's
 * path; an escalation runs PROGRAM itself, without the loader's options
 * (SHELLESC_TARGET_LOADER_OPTIONS when there were any).  A multi-call
 * binary (busybox, toybox: by the name of its real path) runs the applet
 * its argv names: applet and applet_argi say which, with which arguments.
 */
struct shellesc_target {
	int error;		/* 0; or why it could not be opened (errno value,
				 * ENOEXEC: the loader's program cannot be told).
				 * Then only argv and loader are set, and the
				 * request cannot be escalated. */
	const char *path;	/* its real path (no symlinks) in the server's
				 * view; NULL when it has none (deleted, a memfd,
				 * another mount namespace) */
	char *const *argv;	/* what it runs with (NULL-terminated) */
	size_t argc;
	dev_t dev;		/* identity of the opened file */
	ino_t ino;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	unsigned facts;		/* SHELLESC_TARGET_* */
	const char *writable;	/* with SHELLESC_TARGET_WRITABLE: why, e.g. "it lies
				 * beneath the writable directory /src" */
	const char *loader;	/* the dynamic loader run directly, or NULL */
	const char *applet;	/* a multi-call binary's applet, or NULL */
	size_t applet_argi;	/* index in argv of the applet's first argument */
};

/* Never NULL; valid as long as req. */
const struct shellesc_target *shellesc_request_target(const struct shellesc_request *req);
uint64_t shellesc_request_id(const struct shellesc_request *req); /* unique in the session */
/* Non-zero once the caller went away or the session ended: the answer will be discarded. */
int shellesc_request_cancelled(const struct shellesc_request *req);

/*
 * Answer a request, exactly once, from any thread; afterwards req must not
 * be used.  Answering after the session ended is allowed and does nothing.
 */
void shellesc_request_decide(struct shellesc_request *req,
    const struct shellesc_decision *d);

typedef void (*shellesc_policy_fn)(void *arg, struct shellesc_request *req);

/* --- Preparing an escalated command ----------------------------------- */

/*
 * What an escalated command runs.  The session fills in the defaults: the
 * target's path (the file it opened), its argv, the request's cwd, and an
 * environment built by the session, not the caller's (see "Escalated
 * commands' environment" below).  A prepare callback may point any field
 * elsewhere (e.g. to wrap the command in another sandbox); that memory must
 * stay valid until
 * release is called.
 */
struct shellesc_prepared {
	/* Left as it is: the opened target itself runs (execveat(2)); a
	 * script whose file the session's side could have changed is given to
	 * its interpreter as /dev/fd/N.  Pointed elsewhere: that path is
	 * executed with execve(2), no PATH search. */
	const char *path;
	char *const *argv;
	const char *cwd;
	char *const *env;
};

typedef int (*shellesc_prepare_fn)(void *arg, const struct shellesc_request *req,
    const struct shellesc_decision *d, struct shellesc_prepared *p);
typedef void (*shellesc_release_fn)(void *arg, struct shellesc_prepared *p);

/* Called on the loop thread when an escalated command has ended. */
typedef void (*shellesc_ended_fn)(void *arg, const struct shellesc_request *req,
    int exit_code, int signal, double seconds);

/* --- Sessions --------------------------------------------------------- */

#define SHELLESC_INTERCEPT_WRAPPER 0x1	/* set EXEC_WRAPPER (patched shells) */
#define SHELLESC_INTERCEPT_PRELOAD 0x2	/* set LD_PRELOAD (any dynamic program) */

enum shellesc_log_level { SHELLESC_LOG_ERROR, SHELLESC_LOG_WARN, SHELLESC_LOG_DEBUG };

struct shellesc_config {
	shellesc_policy_fn policy;	/* required */
	void *policy_arg;
	shellesc_prepare_fn prepare;	/* optional */
	shellesc_release_fn release;	/* optional, after prepare's command started */
	void *prepare_arg;
	shellesc_ended_fn ended;	/* optional */
	void *ended_arg;
	unsigned intercept;		/* SHELLESC_INTERCEPT_*; 0 means both */
	const char *wrapper_path;	/* NULL: the installed wrapper */
	const char *preload_path;	/* NULL: the installed preload library */
	/* Variables never taken from the caller, even when pass_env names
	 * them: exact names, or prefixes ending in '*'.  NULL:
	 * shellesc_default_scrub. */
	const char *const *scrub;
	/* Where the session's side may write, if it is sandboxed: directories
	 * (NULL-terminated; NULL: no sandbox bounds it).  A program beneath
	 * one is SHELLESC_TARGET_WRITABLE.  Copied at start. */
	char *const *writable;
	int kill_grace_ms;		/* SIGTERM to SIGKILL; 0: 2000 */
	int request_timeout_ms;		/* to deliver a request or hand-over; 0: 10000 */
	void (*log)(void *arg, enum shellesc_log_level level, const char *msg);
	void *log_arg;
	/* Escalated commands' environment (below).  Both are copied at start. */
	const char *const *pass_env;	/* more names taken from the caller; NULL: none */
	char *const *session_env;	/* the session's own variables; NULL: environ */
	/* Requests in flight (below); 0: the defaults. */
	int max_requests;		/* in the session; default from the fd limit */
	int max_requests_per_process;	/* of one client process; default 256 */
	int keep_fd_limit;		/* non-zero: leave RLIMIT_NOFILE as it is */
};

/*
 * Escalated commands' environment.  An escalated command runs outside the
 * sandbox, so its environment is built by the session, never taken whole
 * from the caller (whose variables could choose the code it runs):
 *   - PATH, HOME, USER, LOGNAME, SHELL, TMPDIR, MAIL, DISPLAY,
 *     WAYLAND_DISPLAY, XAUTHORITY, DBUS_SESSION_BUS_ADDRESS, SSH_AUTH_SOCK
 *     and the XDG base directories (XDG_RUNTIME_DIR, XDG_CONFIG_HOME,
 *     XDG_CACHE_HOME, XDG_DATA_HOME, XDG_STATE_HOME, XDG_CONFIG_DIRS,
 *     XDG_DATA_DIRS) have the session's own values, taken from
 *     session_env when the session starts; PATH keeps only its absolute
 *     directories.  The caller's values of these are never used, and a
 *     program the command looks up (zcat running gzip) is found in that
 *     PATH;
 *   - LANG, LANGUAGE, LC_ALL and the other LC_ categories, TERM,
 *     COLORTERM, TZ, COLUMNS, LINES and NO_COLOR come from the caller
 *     when their values are plain: a locale or terminal name without '/',
 *     a time zone under /usr/share/zoneinfo without "..", digits;
 *   - the names in pass_env come from the caller as they are.  Starting
 *     a session fails with -EINVAL (and a log message) when pass_env
 *     names one of the session's own variables or one that scrub matches.
 * Nothing else of the caller's environment reaches the command; its cwd
 * and argv are the caller's.  The policy still sees the caller's whole
 * environment (shellesc_request_env).
 *
 * Requests in flight.  Every request stream is an fd of the embedding
 * process, so a session raises the soft RLIMIT_NOFILE to the hard limit
 * when it starts (unless keep_fd_limit is set; commands the library
 * starts get the soft limit from before the first raise back), and
 * bounds the streams in flight: max_requests in the session (default:
 * what the fd limit leaves room for, up to 4096), max_requests_per_process
 * for each client process (known by the kernel's SO_PEERCRED, never by
 * what it sends), of which at most 16 may still wait for their request.
 * A stream past a bound is refused at once with an error "server busy";
 * no process can keep the others' requests waiting.  An exec the kernel
 * layer holds for the policy counts as a stream of its process; past a
 * bound it fails at once with EACCES, and the log says which bound.
 */

/* Variables never taken from the caller: they can make a program load or
 * run code, or write where the caller says (NULL-terminated). */
extern const char *const shellesc_default_scrub[];

/*
 * Could a process with uid and groups (and bounded by the writable roots,
 * when not NULL) have written or replaced the file at path?  Yes when the
 * file's real path lies beneath a root, or -- for a uid other than 0,
 * which passes every permission check -- when the uid may write the file
 * or a directory on its path (and rename entries in it: not in a sticky
 * one it owns no part of), or owns either.  Returns 1 (*why, when why is
 * not NULL, says why: malloc'd), 0, or a negative errno (no such path).
 * What SHELLESC_TARGET_WRITABLE means, for files of the embedder's own.
 */
int shellesc_path_writable(const char *path, uid_t uid, const gid_t *groups,
    size_t ngroups, char *const *roots, char **why);

/* Start a session. *out is set only on success. */
int shellesc_session_start(const struct shellesc_config *cfg,
    struct shellesc_session **out);

/*
 * The environment overlay: "NAME=value" strings, NULL-terminated, owned by
 * the session: SHELLESC_ESCALATE_SOCKET (the client socket's fd number),
 * EXEC_WRAPPER (wrapper mode) and/or LD_PRELOAD (just the preload library;
 * see shellesc_env_merge() to put it in front of an existing LD_PRELOAD)
 * with SHELLESC_WRAPPER (preload mode: the wrapper it uses as the proxy of
 * escalated commands).
 */
char *const *shellesc_session_env(const struct shellesc_session *s);

/* A new environment: base (NULL: environ) with the overlay laid on top and
 * LD_PRELOAD prepended to any existing one.  Free with shellesc_env_free(). */
char **shellesc_env_merge(const struct shellesc_session *s, char *const *base);
void shellesc_env_free(char **env);

/*
 * The client socket, inherited by the shell (not close-on-exec), or -1 once
 * closed.  Close it right after the shell is spawned, so it does not leak
 * into unrelated children; execs can no longer reach the session afterwards
 * except from the shell's tree.
 */
int shellesc_session_client_fd(const struct shellesc_session *s);
void shellesc_session_close_client(struct shellesc_session *s);

/*
 * The kernel layer: listener is the listener fd of a seccomp filter
 * (SECCOMP_FILTER_FLAG_NEW_LISTENER) that the embedder installed on the
 * session's tree and that returns SECCOMP_RET_USER_NOTIF for execve(2)
 * and execveat(2) (and nothing else).  The session takes it over (closed
 * at its end, or here on failure) and decides every exec it reports with
 * the policy, as SHELLESC_ASKED_BY_KERNEL requests: run continues the
 * exec, checked at its exec event (a process whose exec is not what was
 * decided is killed there); deny fails it with EACCES; escalate makes the
 * caller exec the session's wrapper as the proxy of the command the server
 * runs outside (x86-64; elsewhere it fails with EACCES and the reason is
 * logged).  An exec the preload or the wrapper already had decided, and
 * the exec of the session's wrapper, continue unasked (and are checked).  first is the pid of the embedder's own child that
 * installed the filter: its first exec continues unasked (0: none).
 * 0, or -errno (-ENOSYS: the kernel or the architecture lacks it, -EBUSY:
 * there is one already).  docs/security.md says what it guarantees.
 */
int shellesc_session_kernel(struct shellesc_session *s, int listener, pid_t first);

/*
 * End the session: stop serving, cancel requests in flight, end every
 * escalated command still running (its whole process group: SIGTERM, then
 * SIGKILL after the grace period), reap them, close every fd, free s.
 */
void shellesc_session_end(struct shellesc_session *s);

/* --- Running one command string in a session ----------------------------- */

struct shellesc_exec_params {
	const char *command;	/* the script: shell -c COMMAND (or -lc) */
	const char *workdir;	/* absolute; required */
	const char *shell;	/* NULL: /bin/bash */
	char *const *env;	/* NULL: environ; the overlay is merged in */
	int timeout_ms;		/* <= 0: none */
	int login;		/* non-zero: -lc (the default of the reference); 0: -c */
	size_t max_output;	/* > 0: each of out, err and output keeps at most this
				 * many bytes, its first half and its last; 0: all */
};

struct shellesc_exec_result {
	int exit_code;		/* -1 when killed by a signal */
	int signal;
	char *out, *err, *output; /* stdout, stderr, both interleaved; NUL-terminated */
	size_t out_len, err_len, output_len;
	double duration;	/* seconds */
	int timed_out;		/* the timeout ended the shell and its escalations */
	int cancelled;		/* shellesc_session_cancel() ended them */
	/* Bytes left out of out, err and output by max_output: the kept bytes
	 * are the first max_output/2 and the rest the last ones, so a reader
	 * marks the cut at max_output/2 when one of these is not 0. */
	size_t out_dropped, err_dropped, output_dropped;
};

/*
 * Run params->command with params->shell in the session, capturing output,
 * and close the session's client socket right after the shell is spawned.
 * The shell gets its own process group and /dev/null as stdin.  On timeout
 * the shell's process group and every escalated command are ended.  Call it
 * at most once per session.  Free the result with shellesc_exec_result_free.
 */
int shellesc_session_exec(struct shellesc_session *s,
    const struct shellesc_exec_params *params, struct shellesc_exec_result *res);
void shellesc_exec_result_free(struct shellesc_exec_result *res);

/*
 * Cancel shellesc_session_exec() in s, from any thread or a signal handler
 * (async-signal-safe; errno is preserved).  A running exec ends its shell's
 * process group and every escalated command of the session, as a timeout
 * does (SIGTERM, SIGKILL after kill_grace_ms), and returns 0 with
 * res->cancelled set and the output collected so far.  An exec not yet
 * started returns -ECANCELED at once and runs nothing: the cancel stays in
 * effect, and calling it again does nothing more.
 *
 * Ownership: s stays the caller's.  Cancelling neither ends nor frees the
 * session; shellesc_session_end() is still called, once the exec has
 * returned.  s must be valid for the whole call: never call it concurrently
 * with, or after, shellesc_session_end(s).
 */
void shellesc_session_cancel(struct shellesc_session *s);

#ifdef __cplusplus
}
#endif
#endif /* SHELLESC_H */
