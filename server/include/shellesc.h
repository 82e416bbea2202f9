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

/*
 * How an escalated command is to be run; passed to the prepare callback
 * with the decision.  shellesc itself runs every mode the same way (as
 * is, outside the sandbox) unless the prepare callback sets
 * shellesc_prepared.sandbox: a mode is the policy's word to its own
 * prepare callback, which builds the sandbox the mode means (the shellesc
 * command: the session's sandbox with the network, or more writable
 * directories, for a rule's profile = "NAME"; examples/profile.c).  An
 * embedder that answers SHELLESC_MODE_PROFILE must have a prepare
 * callback that honours it, or the command runs unsandboxed.
 */
enum shellesc_mode {
	SHELLESC_MODE_UNSANDBOXED,	/* as is, outside any sandbox (default) */
	SHELLESC_MODE_SESSION_DEFAULT,	/* the embedder's default profile */
	SHELLESC_MODE_PROFILE,		/* decision.profile, opaque to shellesc */
};

struct shellesc_decision {
	enum shellesc_action action;
	enum shellesc_mode mode;	/* escalate only */
	void *profile;			/* SHELLESC_MODE_PROFILE: passed through untouched
					 * to prepare (the embedder keeps it alive
					 * until then: a request may be cancelled
					 * before prepare is called) */
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
 * against shellesc_request_cwd ("." and empty components dropped, ".."
 * kept, no "~" expansion: the kernel does none).  For display; what runs is the
 * target. */
const char *shellesc_request_program(const struct shellesc_request *req);
const char *shellesc_request_file(const struct shellesc_request *req); /* as passed */
char *const *shellesc_request_argv(const struct shellesc_request *req); /* NULL-terminated */
size_t shellesc_request_argc(const struct shellesc_request *req);
/* The caller's working directory as the kernel has it (/proc/PID/cwd,
 * opened by the server when the request came: its path in the server's
 * view).  An escalated command runs in that directory, by the server's fd
 * of it, whatever is renamed meanwhile; the cwd the client sent is a hint,
 * returned only when the directory could not be opened (the request then
 * cannot be escalated). */
const char *shellesc_request_cwd(const struct shellesc_request *req);
/* Non-zero when the session's side could have changed that directory (the
 * test of SHELLESC_TARGET_WRITABLE): an escalated command would read state
 * the sandbox wrote. */
int shellesc_request_cwd_writable(const struct shellesc_request *req);
char *const *shellesc_request_env(const struct shellesc_request *req); /* NAME=value, NULL-terminated */
pid_t shellesc_request_pid(const struct shellesc_request *req);  /* SO_PEERCRED */
/* The caller's parent when the request came, from the kernel's
 * /proc/PID/stat (never from the request); 0 when it could not be read. */
pid_t shellesc_request_ppid(const struct shellesc_request *req);
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
 *
 * argv[0] is the program's own name (the name of its real path): a
 * program known to choose what it does by argv[0] (git's git-NAME, unxz,
 * zcat, bunzip2, sudoedit, systemctl's reboot, busybox's applets) has what
 * the caller's argv[0] makes it do spelled out in arguments ("git
 * archive", "xz --decompress", "busybox rm").  The caller's argv[0] is
 * shellesc_request_argv(req)[0].
 *
 * A script runs the programs of its #! chain: interp lists them, each
 * with the argv the kernel gives it (the #! name, its argument, the
 * script's name, the script's arguments); a dynamic loader in the chain
 * is followed by the program it runs.
 */
struct shellesc_interp {
	const char *path;	/* real path, or NULL */
	dev_t dev;
	ino_t ino;
	char *const *argv;
	size_t argc;
};

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
	const struct shellesc_interp *interp;	/* a script's #! chain, the script's
						 * interpreter first; or NULL */
	size_t ninterp;
};

/* Never NULL; valid as long as req. */
const struct shellesc_target *shellesc_request_target(const struct shellesc_request *req);
uint64_t shellesc_request_id(const struct shellesc_request *req); /* unique in the session */
/* Before deciding to escalate: the command runs with the caller's argv as
 * written, argv[0] included, instead of the target's argv (whose argv[0]
 * is the program's own name and says what another one would make it do);
 * not for the dynamic loader's program, which runs with the target's. */
void shellesc_request_keep_argv0(struct shellesc_request *req);
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
 * target's path (the file it opened), its argv, the request's cwd (left
 * as it is: the caller's directory itself, by the server's fd), and an
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
	/* NULL (the default): the command runs outside any sandbox.  Set by
	 * prepare (built with shellesc_sandbox_new, stays the embedder's
	 * until release): the command enters it between fork and exec, as a
	 * session's shell does, still on the caller's stdio, in its own
	 * process group, ended with the session.  Whatever the command
	 * execs stays inside it (Landlock and seccomp are inherited and
	 * only narrow): nothing it runs can widen it.  Its execs are not
	 * asked: the notification of a sandbox built with
	 * SHELLESC_SANDBOX_EXEC_NOTIFY is not installed here (the session
	 * takes one kernel listener, its shell's). */
	const struct shellesc_sandbox *sandbox;
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
/*
 * The kernel layer alone (alone: with neither flag above).  The overlay is
 * empty and the client socket is closed at start
 * (shellesc_session_client_fd is -1): a process in the session sees
 * nothing of shellesc, and only the kernel layer (shellesc_session_kernel,
 * or a sandbox with SHELLESC_SANDBOX_EXEC_NOTIFY) catches its execs.
 * Escalations still run outside, through the wrapper as proxy, which needs
 * x86-64: elsewhere the session does not start (-ENOTSUP, logged).
 */
#define SHELLESC_INTERCEPT_KERNEL 0x4

enum shellesc_log_level { SHELLESC_LOG_ERROR, SHELLESC_LOG_WARN, SHELLESC_LOG_DEBUG };

struct shellesc_config {
	shellesc_policy_fn policy;	/* required */
	void *policy_arg;
	shellesc_prepare_fn prepare;	/* optional */
	shellesc_release_fn release;	/* optional, after prepare's command started */
	void *prepare_arg;
	shellesc_ended_fn ended;	/* optional */
	void *ended_arg;
	unsigned intercept;		/* SHELLESC_INTERCEPT_*; 0 means the first two */
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

/*
 * The environment an escalated command of a session started with cfg
 * gets when caller (NULL: environ) is the caller's, as described above:
 * for the embedder's own children that must not inherit its whole
 * environment (shellesc mcp's shells: no secret of the server's reaches
 * them unless pass_env names it).  Names pass_env should not name are
 * not checked here (shellesc_session_start refuses them).  Free with
 * shellesc_env_free(); NULL with errno ENOMEM.
 */
char **shellesc_env_build(const struct shellesc_config *cfg, char *const *caller);

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
 * escalated commands).  Empty (its first entry NULL) for the kernel layer
 * alone (SHELLESC_INTERCEPT_KERNEL).
 */
char *const *shellesc_session_env(const struct shellesc_session *s);

/* A new environment: base (NULL: environ) with the overlay laid on top;
 * LD_PRELOAD holds the session's library first and once, then base's other
 * libraries (split at ':' and ' ', as ld.so does), as the preload passes it
 * on to every exec after.  Free with shellesc_env_free(). */
char **shellesc_env_merge(const struct shellesc_session *s, char *const *base);
void shellesc_env_free(char **env);

/*
 * The client socket, inherited by the shell (not close-on-exec), or -1 once
 * closed.  Close it right after the shell is spawned, so it does not leak
 * into unrelated children; execs can no longer reach the session afterwards
 * except from the shell's tree.  -1 from the start for the kernel layer
 * alone (SHELLESC_INTERCEPT_KERNEL).
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
 * The socket gate of sb (a sandbox with Landlock layers: see
 * shellesc_sandbox_new), served by the session: call it before
 * shellesc_session_kernel, whose listener then also carries the
 * sandbox's connect(2) and addressed sendto(2) calls.  The server makes
 * each itself on the caller's socket and never lets the call through: a
 * socket file is reached only if allowed (the config's allow_sockets, the
 * default list, or bound beneath a writable root after sb was built),
 * abstract sockets only if their listener is a process of the session,
 * TCP not at all under no_network.  A sandbox without layers has no gate:
 * 0 and nothing done.  0, or -errno.  docs/security.md, "Pathname UNIX
 * sockets".
 */
struct shellesc_sandbox;
int shellesc_session_sandbox(struct shellesc_session *s, const struct shellesc_sandbox *sb);

/*
 * End the session: stop serving, cancel requests in flight, end every
 * escalated command still running (its whole process group: SIGTERM, then
 * SIGKILL after the grace period), reap them, close every fd, free s.
 */
void shellesc_session_end(struct shellesc_session *s);

/* --- The sandbox of a program the session runs ---------------------------- */

/*
 * One sandbox builder for every program a session runs (the embedder's
 * own child, or a shell): Landlock layers, and the session's seccomp
 * filter.  Build it before fork (shellesc_sandbox_new: it opens every
 * root once, as an fd, and assembles the filter), enter it in the child
 * between fork and exec (shellesc_sandbox_enter: async-signal-safe), free
 * it in the parent.  Escalated commands are started by the session and
 * enter none, unless a prepare callback gives them one
 * (shellesc_prepared.sandbox: an escalation into a profile wider than
 * the shell's sandbox, and no wider).
 *
 * A Landlock layer: the program may read and execute anywhere, and write
 * only beneath writable, /dev/null, /dev/tty and the ptys (where the
 * kernel has Landlock ABI 5, ioctls on devices it opens are limited to
 * the terminals and the harmless memory devices); with no_network it may
 * neither connect nor bind TCP (ABI 4).  Where the kernel has ABI 6, it
 * may signal, and connect to abstract UNIX sockets of, only processes in
 * its own Landlock domain (Landlock's scopes).  With exec_allowed (not NULL,
 * maybe empty), nothing beneath writable may be executed in place but the
 * files it names: execute is granted everywhere else, entry by entry, as
 * the file system is when the layer is built.  Layers stack, each
 * narrowing the others.  A kernel without Landlock, or without the ABI a
 * layer needs, is an error: there is no silent fallback.
 *
 * The .git directory at the top of each writable directory (unless the
 * layer sets writable_git) is read-only to the program: git runs what its
 * hooks and configuration name, and an escalated git must not run what
 * the sandbox wrote.  Landlock cannot take a subtree back, so this is a
 * read-only bind mount in a mount namespace of the program's own
 * (unshare(2): as root, or else with a user namespace mapping its uid and
 * gid to themselves; Linux 5.12 for the mount API used).  Where the
 * system allows no such namespace, shellesc_sandbox_new succeeds with
 * why->step SHELLESC_SANDBOX_GIT_WRITABLE: they stay writable (then
 * shellesc_request_cwd_writable() is what is left to go on).  The user
 * namespace is mapped through the child's /proc/self, so a child that
 * changed its uid before shellesc_sandbox_enter must be dumpable again
 * (prctl PR_SET_DUMPABLE), or enter fails (SHELLESC_SANDBOX_GIT_ENTER).
 *
 * The seccomp filter, always installed: on every ABI the kernel can run
 * the program's code in, it refuses (EPERM) the ioctls that put bytes
 * into a terminal's input or change what its keys produce (TIOCSTI,
 * TIOCLINUX, TIOCSETD, KDSKB*, KDSETKEYCODE), a system call of an ABI it
 * does not know and x32's; when a layer has no_network, a second program
 * refuses (EACCES) sockets of the internet families but TCP's, packet
 * sockets, socketcall(2) and io_uring_setup(2).  docs/security.md says
 * why each.  With SHELLESC_SANDBOX_EXEC_NOTIFY the filter also returns
 * SECCOMP_RET_USER_NOTIF for execve(2) and execveat(2) of every ABI: its
 * listener is for shellesc_session_kernel().  With Landlock layers it is
 * also the socket gate (shellesc_session_sandbox): connect(2) and a
 * sendto(2) with an address return SECCOMP_RET_USER_NOTIF, socketcall(2)
 * and io_uring_setup(2) fail with ENOSYS; such a sandbox needs the
 * listener, with or without SHELLESC_SANDBOX_EXEC_NOTIFY, and never falls
 * back to a filter without it (SHELLESC_SANDBOX_NO_GATE).
 */
#define SHELLESC_SANDBOX_MAX_LAYERS	8
#define SHELLESC_SANDBOX_PATH_MAX	4096

struct shellesc_sandbox;

struct shellesc_sandbox_layer {
	char *const *writable;		/* directories, NULL-terminated; NULL: none */
	int no_network;			/* non-zero: no TCP, and the socket filter */
	char *const *exec_allowed;	/* NULL, or: nothing beneath writable runs
					 * in place but these files (NULL-terminated) */
	int writable_git;		/* non-zero: the .git of each writable
					 * directory stays writable (below) */
};

/* Bits of shellesc_sandbox_config.flags */
#define SHELLESC_SANDBOX_EXEC_NOTIFY	0x1 /* the kernel layer: execs to a listener */
#define SHELLESC_SANDBOX_NOTIFY_FALLBACK 0x2 /* where no listener can be had, the
					      * filter without it, and say why */
#define SHELLESC_SANDBOX_NO_SOCKET_GATE	0x4 /* Landlock without the socket gate:
					      * every socket file the user can
					      * reach stays reachable (for an
					      * embedder that serves no listener) */

/* Both may grow new fields at their end: initialize them whole, so that
 * every field not set is 0, its default. */
struct shellesc_sandbox_config {
	const struct shellesc_sandbox_layer *layers; /* Landlock, entered in order */
	size_t n_layers;		/* 0: no Landlock; at most
					 * SHELLESC_SANDBOX_MAX_LAYERS */
	unsigned flags;			/* SHELLESC_SANDBOX_* */
	/* Socket files the sandbox may connect or send to, besides the
	 * default list (shellesc_sandbox_default_sockets) and those bound in
	 * the session: paths, or fnmatch(3) patterns (FNM_PATHNAME), resolved
	 * when the sandbox is built, and "@NAME" (a pattern too) for abstract
	 * sockets; NULL-terminated, or NULL. */
	const char *const *allow_sockets;
};

/* The socket files every Landlock sandbox may reach (its logging and the
 * name service): a NULL-terminated list. */
extern const char *const shellesc_sandbox_default_sockets[];

/* What failed, for the embedder's message (the library prints nothing). */
enum shellesc_sandbox_step {
	SHELLESC_SANDBOX_OK,
	SHELLESC_SANDBOX_LANDLOCK_MISSING, /* err: ENOSYS the kernel lacks it,
					    * EOPNOTSUPP: disabled */
	SHELLESC_SANDBOX_LANDLOCK_QUERY,   /* its ABI could not be queried (err) */
	SHELLESC_SANDBOX_LANDLOCK_ABI,	   /* no_network needs ABI 4; abi is the kernel's */
	SHELLESC_SANDBOX_LANDLOCK_CREATE,  /* no ruleset (err) */
	SHELLESC_SANDBOX_NOT_DIR,	   /* path, one of writable, is not a directory */
	SHELLESC_SANDBOX_WRITABLE,	   /* path, one of writable, cannot be opened (err) */
	SHELLESC_SANDBOX_DEVICE,	   /* path, a device, cannot be opened (err) */
	SHELLESC_SANDBOX_ADD_RULE,	   /* the rule for path was refused (err) */
	SHELLESC_SANDBOX_NO_MEMORY,
	SHELLESC_SANDBOX_SECCOMP_BUILD,	   /* the filter does not fit (a bug) */
	SHELLESC_SANDBOX_LANDLOCK_ENTER,   /* enter: a layer (err) */
	SHELLESC_SANDBOX_SECCOMP_ENTER,	   /* enter: the filter (err) */
	SHELLESC_SANDBOX_NO_LISTENER,	   /* enter, fell back: why no listener (err; EBUSY:
					    * a filter of the process has one already) */
	SHELLESC_SANDBOX_GIT_WRITABLE,	   /* new: .git directories stay writable: no
					    * mount namespace (err), path the first;
					    * failed: path cannot be checked (err) */
	SHELLESC_SANDBOX_GIT_ENTER,	   /* enter: a .git could not be made read-only (err) */
	SHELLESC_SANDBOX_NO_GATE,	   /* enter: no listener for the socket gate (err;
					    * EBUSY: an outer filter has one) */
};

struct shellesc_sandbox_fault {
	enum shellesc_sandbox_step step;
	int err;			/* errno, where the step says */
	int abi;			/* Landlock's ABI, where known */
	char path[SHELLESC_SANDBOX_PATH_MAX];	/* the file it concerns, or "" */
};

/*
 * Build the sandbox cfg describes into *out (free with
 * shellesc_sandbox_free).  0 (*why SHELLESC_SANDBOX_OK, or
 * SHELLESC_SANDBOX_GIT_WRITABLE: see above), or -errno with *why saying
 * which step failed (-EINVAL: more layers than SHELLESC_SANDBOX_MAX_LAYERS).
 */
int shellesc_sandbox_new(const struct shellesc_sandbox_config *cfg,
    struct shellesc_sandbox **out, struct shellesc_sandbox_fault *why);

/*
 * In the child, between fork and exec (async-signal-safe, prints nothing,
 * allocates nothing): enter the layers, then install the filter.  With
 * listener not NULL and a sandbox built with SHELLESC_SANDBOX_EXEC_NOTIFY,
 * the filter with the exec notification, its listener (close-on-exec) in
 * *listener; if the kernel gives none and the sandbox was built with
 * SHELLESC_SANDBOX_NOTIFY_FALLBACK, the filter without it, *listener -1
 * and why->step SHELLESC_SANDBOX_NO_LISTENER.  With listener NULL (or a
 * sandbox built without the notification: *listener -1), the filter
 * without the notification.  Sets no_new_privs when Landlock or
 * the kernel demands it (a filter installed without CAP_SYS_ADMIN), so a
 * root session without Landlock keeps its set-id programs' meaning.
 * 0, or -errno with *why saying which step failed.
 */
int shellesc_sandbox_enter(const struct shellesc_sandbox *sb, int *listener,
    struct shellesc_sandbox_fault *why);
void shellesc_sandbox_free(struct shellesc_sandbox *sb);

/* Does the kernel have what SHELLESC_SANDBOX_EXEC_NOTIFY and the kernel
 * layer need: SECCOMP_RET_USER_NOTIF, and its CONTINUE (Linux 5.5)? */
int shellesc_sandbox_kernel_avail(void);

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
	/* The shell's sandbox (NULL: none), entered between fork and exec.
	 * Built with SHELLESC_SANDBOX_EXEC_NOTIFY it is the kernel layer too:
	 * the session takes its listener (shellesc_session_kernel, the shell
	 * being the first exec) and its loop decides every exec of the
	 * shell's tree, static programs and raw system calls included.  With
	 * SHELLESC_SANDBOX_NOTIFY_FALLBACK and no listener to be had, the
	 * shell runs under the filter without it.  Stays the caller's. */
	const struct shellesc_sandbox *sandbox;
	int one_pipe;		/* non-zero: stdout and stderr are one pipe, so output
				 * is in the order written; out and err stay empty */
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
