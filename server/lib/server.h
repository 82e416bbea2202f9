/*
 * server.h: internals of the shellesc server library (not installed).
 *
 * One session = one event-loop thread (loop.c) watching, with epoll: the
 * session socket (handshakes), a hub eventfd (decisions made on other
 * threads, exec timeouts, shutdown), every request stream, and a pidfd per
 * escalated command.  Each request stream is a small state machine (conn.c).
 */
#ifndef SHELLESC_SERVER_H
#define SHELLESC_SERVER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "frame.h"
#include "msg.h"
#include "shellesc.h"

/* --- hub.c: the thread-safe mailbox between the policy and the loop --- */
struct hub {
	pthread_mutex_t mu;
	int efd;		/* eventfd: wakes the loop */
	int refs;		/* the session, plus each request the policy holds */
	bool dead;		/* session over: answers are discarded */
	bool quit;		/* loop: stop */
	bool kill_all;		/* loop: end every escalated command */
	struct shellesc_request *head, **tail; /* decided, not yet sent */
};

struct hub *hub_new(void);
void hub_unref(struct hub *h);			/* takes h->mu */
void hub_poke(struct hub *h, bool quit, bool kill_all);
/* Loop side: take the queue and the flags, clear the eventfd. */
struct shellesc_request *hub_take(struct hub *h, bool *quit, bool *kill_all);
/* Session over: no more answers will be sent; frees what is queued. */
void hub_kill(struct hub *h);
/*
 * Around the policy callback, on the loop thread: an answer given inside
 * the callback is kept on the request (decided_inline) instead of going
 * through the queue and the eventfd, so a synchronous policy costs no
 * wake-up of its own.
 */
void hub_inline_begin(struct shellesc_request *req);
void hub_inline_end(void);

/* --- proc.c: the files of /proc/PID, about another process ------------ */
/* /proc/PID/what opened with flags (O_CLOEXEC added): the fd, or -errno. */
int proc_open(pid_t pid, const char *what, int flags);
/* Up to max bytes of /proc/PID/what into buf, read until it ends: the
 * length (max: it may go on), or -errno. */
ssize_t proc_read(pid_t pid, const char *what, char *buf, size_t max);
/* The whole of /proc/PID/what, NUL-terminated, into *out (malloc'd;
 * NULL on failure): 0, or -errno (-EFBIG when it needs max bytes or more). */
int proc_read_all(pid_t pid, const char *what, size_t max, char **out);
/* The link /proc/PID/what, NUL-terminated in buf (size bytes): its length,
 * or -errno (-ENAMETOOLONG when it does not fit: never cut). */
ssize_t proc_readlink(pid_t pid, const char *what, char *buf, size_t size);
/* stat(2) of the file /proc/PID/what names: 0 or -errno. */
int proc_stat(pid_t pid, const char *what, struct stat *st);
/* PID's parent as /proc/PID/stat says now: the pid, or -errno. */
pid_t proc_ppid(pid_t pid);
/* In the text of a /proc/PID/status, the n-th number (from 0) of the line
 * "name:" into *v: 0, or -EIO when there is no such line or number. */
int proc_status_num(const char *status, const char *name, int n, unsigned long *v);
/* The rest of the line "name:" of a status text, or NULL. */
const char *proc_status_line(const char *status, const char *name);
/* All n bytes at addr of mem (a /proc/PID/mem fd), or none: 0, or -errno
 * (-EFAULT for memory not mapped). */
int proc_pread(int mem, void *buf, size_t n, uint64_t addr);
int proc_pwrite(int mem, const void *buf, size_t n, uint64_t addr);
/* The same from process pid's memory without opening a file
 * (process_vm_readv: the caller checks afterwards that pid was still its
 * process, SECCOMP_IOCTL_NOTIF_ID_VALID).  0, or -errno (-EFAULT: not
 * mapped, or not wholly). */
int proc_vm_read(pid_t pid, void *buf, size_t n, uint64_t addr);
/* Who a pidfd names, as the kernel has it now. */
struct proc_ids {
	pid_t tgid, ppid;
	uid_t euid;
	gid_t egid;
};
/* PIDFD_GET_INFO (Linux 6.13): 0, or -errno (-ENOTTY, -EINVAL: a kernel
 * without it). */
int proc_pidfd_ids(int pidfd, struct proc_ids *ids);

/* --- peer.c: the process asking, as the kernel reports it -------------- */
struct peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t *groups;			/* supplementary (SO_PEERGROUPS) */
	size_t ngroups;
	int pidfd;			/* pins the process, or -1 (no pidfds) */
	int root, cwd;			/* its /proc/PID/root and cwd (O_PATH), or -1 */
	pid_t ppid;			/* its parent when already read (the kernel
					 * layer's /proc/TID/status), else 0 */
	/* A file walk_open opened for kept_name and kept for the next
	 * walk_open of that same name (the kernel layer looks an exec's file
	 * up before it builds the request that would look it up again), or
	 * -1; kept_name is borrowed, valid while kept is. */
	int kept;
	const char *kept_name;
};

/* The peer of the stream sock, with its root; 0 or -errno.  Call
 * peer_close either way. */
int peer_open(struct peer *p, int sock);
/* The process tgid, with the credentials the kernel gave for it (its
 * effective ids and groups, /proc/PID/status), and its root; 0 or
 * -errno.  pidfd: tgid's, taken over, or -1 to open one.  Call peer_close
 * either way (the groups are taken over). */
int peer_open_pid(struct peer *p, pid_t tgid, uid_t uid, gid_t gid, gid_t *groups,
    size_t ngroups, int pidfd);
/* Its working directory (opened on first use; owned by p), or -errno. */
int peer_cwd(struct peer *p);
void peer_close(struct peer *p);

/* --- walk.c ---------------------------------------------------------- */
/* path opened (O_PATH) as the peer's exec would find it; 0 or -errno.
 * p->kept is taken instead when kept for this path. */
int walk_open(struct peer *p, const char *path, int *out);

/* --- writable.c ------------------------------------------------------ */
/* Whose writes count: a uid and its groups, and the sandbox's roots. */
struct writer {
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	size_t ngroups;
	const char *const *roots;	/* canonical; NULL: no sandbox */
};

/* Could wr have changed the file at path (absolute, no symlinks)?  1 with
 * *why malloc'd (if why), 0, or -errno. */
int writable_check(const struct writer *wr, const char *path, char **why);
/* roots as real paths (cleaned where they do not exist); 0 or -ENOMEM. */
int writable_roots(char *const *roots, char ***out);
void writable_roots_free(char **roots);

/* --- target-file.c: what one opened file is ------------------------------ */
struct target_file {
	struct stat st;
	char *path;			/* its real path (malloc'd), or NULL */
	bool setid;			/* as the kernel would honour it */
	bool elf, interp, dyn;		/* ELF; with PT_INTERP; ET_DYN */
	bool script;			/* #! ... */
	char shebang[256];		/* ... the interpreter it names */
	bool has_arg;			/* ... and one argument after it */
	char arg[256];
};

/* Read what fd (O_PATH) is into f; 0 or -errno.  Free f->path. */
int target_file_read(int fd, struct target_file *f);

/* --- target.c, target-loader.c: the file that will run ----------------- */
#define TARGET_CHAIN	6	/* #! interpreters (target.c: 5), then a loader's program */

/* One program of a script's #! chain, owned by the target. */
struct target_link {
	char *path, *name, *arg;	/* real path; as the #! line names it; its argument */
	bool has_arg, loader;		/* loader: it is the dynamic loader */
	char **argv;
};

struct target {
	struct shellesc_target pub;
	const char *named;		/* the file as the exec names it */
	struct target_link link[TARGET_CHAIN];
	struct shellesc_interp interp[TARGET_CHAIN];	/* pub.interp */
	int fd;				/* the opened file (O_PATH), or -1 */
	bool elf;			/* ELF: the kernel runs it from fd */
	bool loader;			/* it is the dynamic loader */
	char *path, *why;		/* pub.path, pub.writable */
	char *loader_path;		/* pub.loader */
	char **argv;			/* pub.argv when not the request's */
	bool runs_known;		/* the ELF the kernel will load: the */
	dev_t runs_dev;			/* file, its #! interpreter's, or the */
	ino_t runs_ino;			/* loader run directly */
	char *shebangs;			/* a script's: the words its #! lines put */
	size_t shebangs_len;		/* before its name in the argv the kernel
					 * makes, each with its NUL (malloc'd) */
};

/* Fill t (zeroed, fd -1) for the exec ex of peer p; failures land in
 * t->pub.error. */
void target_inspect(struct target *t, struct peer *p, const struct msg_exec *ex,
    const struct writer *wr);
/* Make fd (taken over) the target; 0 or -errno. */
int target_take(struct target *t, struct peer *p, int fd, const struct writer *wr);
/* Index in argv of the program the loader runs, or 0 when none; *argv0:
 * its --argv0, *opts: other options given. */
size_t target_loader_program(char *const *argv, size_t argc, char **argv0, bool *opts);
/* t is the loader: make its program the target; 0 or -errno. */
int target_loader(struct target *t, struct peer *p, const struct msg_exec *ex,
    const struct writer *wr);
/* target-chain.c: a script's #! chain (pub.interp).  Add the interpreter
 * named name (arg: its #! argument, or NULL), the file f: 0 or
 * -ENOMEM; past TARGET_CHAIN links, nothing is added. */
int target_chain_add(struct target *t, const char *name, const char *arg,
    const struct target_file *f, bool loader);
/* Give each link its argv, for the script t->named with t->pub.argv, and
 * follow a loader to its program; 0 or -errno. */
int target_chain(struct target *t, struct peer *p);
void target_chain_clear(struct target *t);
/* target-argv0.c: make argv[0] the program's own name, spelling out in
 * arguments what another argv[0] makes a known program do; 0 or -errno. */
int target_argv0(struct target *t);
void target_clear(struct target *t);
void target_free(struct target *t);

/* --- request.c ------------------------------------------------------- */
struct conn;

/*
 * Where a request came from, and so where its decision goes: each kind of
 * event the loop gates is one of these, handed to the policy by loop_ask
 * and its answer dispatched by loop_decided (loop.c), the one place a new
 * kind plugs in.
 */
enum request_origin {
	REQUEST_STREAM,			/* a client's stream (conn.c) */
	REQUEST_KERNEL,			/* a seccomp notification (kernel.c), no conn */
};

struct shellesc_request {
	struct hub *hub;
	struct conn *conn;
	struct msg_exec ex;
	char *program;
	struct target target;
	pid_t pid;
	pid_t ppid;			/* the kernel's, when the request came; 0: unknown */
	uid_t uid;
	gid_t gid;
	int cwd_fd;			/* the caller's cwd (O_PATH), or -1: unknown */
	char *cwd;			/* ...its path in our view, or NULL */
	bool cwd_writable;		/* ...the session's side could change it */
	uint64_t id;
	atomic_int cancelled;
	bool decided_inline;		/* answered inside the policy callback */
	bool keep_argv0;		/* shellesc_request_keep_argv0() */
	struct shellesc_decision d;	/* once decided; d.reason is ours */
	enum request_origin origin;	/* where its decision goes (loop_decided) */
	uint64_t notif_id;		/* REQUEST_KERNEL: the notification's id */
	struct kernel_verify_job *vjob;	/* ...how a run answer is verified */
	struct inflight *inflight;	/* ...its process's count (loop thread) */
	size_t held;			/* ...its part of loop.rx_pending */
	struct shellesc_request *next;	/* hub queue */
};

/* Build a request from a decoded exec message that came on stream fd, the
 * target looked up with the sandbox's canonical roots; 0 or -errno. */
int request_new(const struct msg *m, int fd, const char *const *roots,
    struct shellesc_request **out);
/* The same from an exec the server read itself (kernel.c): ex is taken
 * over whatever happens; the caller is p.  0 or -errno. */
int request_from(struct msg_exec *ex, struct peer *p, const char *const *roots,
    struct shellesc_request **out);
void request_free(struct shellesc_request *req);

/* --- resolve.c ------------------------------------------------------- */
/* file made absolute against cwd, lexically; malloc'd, NULL on ENOMEM. */
char *resolve_program(const char *file, const char *cwd);

/* --- scrub.c --------------------------------------------------------- */
/* Does "NAME=value" match a scrub pattern (an exact NAME, or a prefix ending in '*')? */
bool scrub_match(const char *entry, const char *const *scrub);

/* --- escenv.c: an escalated command's environment --------------------- */
struct loop;
/* The session's own values of the variables escalated commands take from
 * the session, copied from src ("NAME=value" array; shellesc_env_free
 * frees it); NULL on ENOMEM. */
char **escenv_capture(char *const *src);
bool escenv_is_session_name(const char *name);
/* 0, or -EINVAL (logged) when names holds one pass_env may not pass. */
int escenv_check_pass(const struct loop *l, const char *const *names);
/* The environment of an escalated command: session (escenv_capture's),
 * then what may come from the caller.  A new pointer array; the strings
 * are session's and caller's.  NULL on ENOMEM. */
char **escenv_build(const struct shellesc_config *cfg, char *const *session,
    char *const *caller);

/* --- fdlimit.c: RLIMIT_NOFILE ------------------------------------------ */
/* Raise the soft limit to the hard one; 0 or -errno. */
int fdlimit_raise(void);
/* The soft limit now (capped at 2^30). */
long fdlimit_current(void);
/* The limit children get back: false when it was never raised. */
bool fdlimit_for_children(struct rlimit *out);

/* --- inflight.c: requests in flight per client process ----------------- */
#define INFLIGHT_BUCKETS 256

struct inflight {
	uid_t uid;
	pid_t pid;
	size_t streams;		/* its streams and kernel-layer requests in flight */
	size_t handshakes;	/* ...of which still waiting for their request */
	bool warned;		/* a refusal of it was logged */
	struct inflight *next;
};

struct inflight_table {
	struct inflight *bucket[INFLIGHT_BUCKETS];
};

struct inflight *inflight_find(struct inflight_table *t, uid_t uid, pid_t pid);
/* Find or add; NULL on ENOMEM.  The caller counts in streams. */
struct inflight *inflight_get(struct inflight_table *t, uid_t uid, pid_t pid);
/* Free p once it has no stream left. */
void inflight_put(struct inflight_table *t, struct inflight *p);
/* Free every entry (the loop has stopped: nothing counts any more). */
void inflight_clear(struct inflight_table *t);

/* --- spawn.c --------------------------------------------------------- */
struct spawn_fd { int src, dst; };

/* --- tree.c: an escalated command's tree ends with it --------------- */
struct tree {
	char *path;			/* its cgroup, or NULL */
	int procs;			/* ...its cgroup.procs, for the child to join */
	bool keeper;			/* no cgroup: under a subreaper (spawn.c) */
};

/* Which way this process ends trees, for a log line (into buf). */
const char *tree_mechanism(char *buf, size_t size);
void tree_init(struct tree *t);
/* A cgroup for a command where one can be made, else the keeper; 0 or
 * -ENOMEM. */
int tree_start(struct tree *t);
/* Kill every process of the cgroup (the keeper ends its tree itself). */
void tree_kill(const struct tree *t);
/* Kill, wait for the cgroup to empty (bounded), remove it; t is reset. */
void tree_end(struct tree *t);

struct spawn_spec {
	const char *path;
	bool by_fd;			/* execute the file fd, not path */
	int fd;
	bool fd_script;			/* ...a script, read as /dev/fd/N */
	char *const *argv, *const *env;
	const char *cwd;		/* chdir there, if not NULL */
	bool cwd_by_fd;			/* ...else fchdir to cwd_fd */
	int cwd_fd;
	const struct spawn_fd *fds;	/* installed on their destinations */
	size_t nfds;
	bool new_pgrp;			/* own process group */
	bool foreground;		/* ...made the foreground of tty (jobs.c) */
	int tty;			/* our controlling terminal, with foreground */
	bool pdeathsig;			/* die with the server */
	/* Entered in the child before its fds are set up (NULL: none).  One
	 * built with SHELLESC_SANDBOX_EXEC_NOTIFY gives a listener, handed to
	 * take_listener (which owns it) while the child waits to exec, or -1
	 * with err, why none could be had (the fallback): 0, or -errno to
	 * kill the child and fail the spawn. */
	const struct shellesc_sandbox *sandbox;
	int (*take_listener)(void *arg, int listener, int err, pid_t pid);
	void *take_arg;
	const struct tree *tree;	/* escalated: the child joins its cgroup, or
					 * runs under a keeper; NULL: neither */
};

/*
 * fork+exec: the child runs in cwd (or cwd_fd, first thing, before the
 * fds move), gets exactly fds[] on their destinations (others
 * closed), default signal dispositions, an empty mask, and the fd limit
 * the process had before a session raised it (fdlimit.c).  Returns 0 with *pid
 * and *pidfd (CLOEXEC) set, or -errno; an exec failure is reported as
 * -errno after the child was reaped.
 */
int spawn_run(const struct spawn_spec *sp, pid_t *pid, int *pidfd);
/* In the forked child: become sp's command (errfd: the exec-status pipe's
 * write end; parent: whose death kills it); never returns. */
void spawn_child(const struct spawn_spec *sp, int errfd, pid_t parent,
    const struct rlimit *nofile) __attribute__((noreturn));
/* spawn-keeper.c: in the forked child, the keeper of sp's command. */
void spawn_keeper(const struct spawn_spec *sp, int errfd, pid_t parent,
    const struct rlimit *nofile) __attribute__((noreturn));
/* Wait (blocking) on a pidfd; exit code, or -1 with *sig (and *core) set. */
int spawn_reap(int pidfd, int *sig, bool *core);
/* SIGTERM the group, wait up to grace_ms for the pidfd, then SIGKILL; reaps. */
void spawn_end(pid_t pgrp, int pidfd, int grace_ms);
/* sig to the group; a SIGCONT to the pidfd's process too (a stopped keeper). */
void spawn_signal(pid_t pgrp, int pidfd, int sig);
/* The child's stop since the last call (its stop signal), else 0; never waits. */
int spawn_stopped(pid_t pid, int pidfd);

/* --- jobs.c: escalated commands on our controlling terminal ---------- */
#define JOBS_POLL_MS	50	/* how often such a command is checked for a stop */

struct jobs {
	int tty;			/* our dup of its fd on our terminal, or -1 */
	pid_t caller_pgrp;		/* the caller's group (SO_PEERCRED), or -1 */
	bool follow;			/* the client stops when told ("follow_stops") */
};

void jobs_init(struct jobs *j);
/* At the hand-over: note whether one of the received stdio fds is our
 * controlling terminal (then j->tty >= 0), and the caller's group. */
void jobs_probe(struct jobs *j, int stream, const struct spawn_fd *fds, size_t n,
    bool follow);
/* The caller's group is the terminal's foreground: the command takes it. */
bool jobs_foreground(const struct jobs *j);
/* The caller was continued: if its group is the foreground, pgrp takes it. */
void jobs_continued(struct jobs *j, pid_t pgrp);
/* spawn_stopped, for a command on our terminal; 0 for any other. */
int jobs_stopped(struct jobs *j, pid_t pid, int pidfd);
/* The command ended: the terminal back to the caller's group if pgrp holds it. */
void jobs_end(struct jobs *j, pid_t pgrp);

/* --- loop.c / conn.c ------------------------------------------------- */
enum watch_kind { WATCH_SOCK, WATCH_HUB, WATCH_STREAM, WATCH_CHILD, WATCH_KERNEL };

struct watch {
	enum watch_kind kind;
	void *ptr;
};

/* --- kernel.c, kernel-mem.c: the seccomp listener (execve, execveat) --- */
/*
 * An exec the preload or the wrapper has had decided comes to the
 * listener too, right after its answer: a ticket, issued with the answer
 * and taken by the first exec that matches it, lets it continue unasked.
 * It binds the file (device and inode of what the server opened), argv,
 * and the process: the one that asked, or a child of it (posix_spawn
 * execs in a child).  Bounded: the oldest ticket gives way to a new one
 * (its exec is then asked about again, never let through).
 */
#define KERNEL_TICKETS		64
#define KERNEL_TICKET_ARGV	(64u << 10)	/* larger argv: no ticket */

struct kernel_ticket {
	pid_t pid;			/* 0: free */
	dev_t dev;
	ino_t ino;
	char *argv;			/* the strings, each with its NUL */
	size_t len;
	bool elf, runs_known;		/* what the decided target runs: */
	dev_t runs_dev;			/* the verifier checks the exec */
	ino_t runs_ino;			/* against it (target.runs_*, */
	char *shebangs;			/* target.shebangs) */
	size_t shebangs_len;
};

/* --- kernel-verify.c: what the kernel runs is what was decided -------- */
/*
 * A run answer to a notification is the verifier thread's: it traces the
 * calling thread, continues the call and, at the exec event, before the
 * new image runs, compares it with the job, killing it when it differs.
 */
struct kernel_verify_job {
	struct kernel_verify_job *next;
	uint64_t id;			/* the notification it answers */
	pid_t tid, tgid, ppid;		/* the calling thread, its process, parent */
	bool known;			/* the ELF to be loaded is known: */
	dev_t dev;
	ino_t ino;
	char *want;			/* the whole argv it must load with: each
					 * string with its NUL */
	size_t len;
	bool escalate;			/* kernel-escalate.c: make it exec the */
	char *wrapper, *file;		/* wrapper as the proxy of FILE, with */
	int fd;				/* this stream (-1: none) */
};

/* A stop of a job's thread, taken. */
struct kernel_verify_trap {
	pid_t pid;			/* as it is known now */
	int event;			/* PTRACE_EVENT_*, or 0 */
	int sig;			/* a signal-delivery stop's signal, or 0 */
};

/* Verifier threads at most: execs stalled in the kernel at once that
 * hold up no other (kernel-verify.c). */
#define KERNEL_VERIFY_THREADS	64

struct loop;
struct kernel_verify;
struct kernel_verify_thread {
	struct kernel_verify *v;
	pthread_t thread;
	pid_t busy;			/* the process it verifies, or 0 */
};

struct kernel_verify {
	struct loop *l;
	bool started, stop;
	pthread_mutex_t mu;		/* all below, and each thread's busy */
	pthread_cond_t cv;
	struct kernel_verify_job *head, **tail;
	size_t queued;			/* jobs in the queue */
	size_t idle;			/* threads waiting for one */
	size_t nthreads;
	struct kernel_verify_thread th[KERNEL_VERIFY_THREADS];
	/* The stop is asked for after the answer, not before: the listener's
	 * waits are not killable (a filter without
	 * SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, before Linux 5.19), so a stop
	 * asked for first ends the wait and the exec is made again, unanswered.
	 * Found out at the first such exec (kernel-verify.c). */
	atomic_bool late_stop;
};

int kernel_verify_start(struct kernel_verify *v, struct loop *l);
/* Answer and verify j (taken over) on a verifier thread. */
void kernel_verify_submit(struct kernel_verify *v, struct kernel_verify_job *j);
/* Stop the threads; an exec one still follows after a grace period is
 * killed. */
void kernel_verify_stop(struct kernel_verify *v);
void kernel_verify_job_free(struct kernel_verify_job *j);
/* The next stop of j's traced thread (kernel-verify.c): true; false once it
 * is gone (its end taken, unless it is the embedder's child). */
bool kernel_verify_next(const struct kernel_verify_job *j, struct kernel_verify_trap *st);
/* Why an exec is refused, for the log: msg into why (n bytes), and err
 * (a -errno) returned.  The verifier's and the escalation's checks return
 * 0 or -errno, as the library does, and say why in a caller's buffer. */
int kernel_verify_reason(char *why, size_t n, int err, const char *msg);
/* On a verifier thread: the escalation of j (kernel-escalate.c). */
void kernel_escalate_one(struct kernel_verify *v, const struct kernel_verify_job *j);
/* Can a raw exec be made to land in the wrapper on this machine? */
bool kernel_escalate_possible(void);

/* The socket gate (kernel-socket.c): its facts, the top of the session's
 * tree, and its threads, one per held call. */
struct sandbox_gate;
struct kernel_gate {
	struct sandbox_gate *g;		/* NULL: no gate */
	pid_t top;			/* the embedder's child: the session's tree */
	atomic_int held;		/* threads making a call */
	atomic_bool stop;		/* the session ends: give up */
};

struct kernel {
	atomic_int fd;			/* the listener, or -1: no kernel layer */
	struct kernel_gate gate;
	pid_t first;			/* its first exec continues unasked; 0: used */
	bool wrapper;			/* the session's wrapper is known by... */
	dev_t wdev;			/* ...its identity: it passes unasked */
	ino_t wino;
	struct kernel_ticket t[KERNEL_TICKETS];
	unsigned next;
	uint32_t events;		/* what epoll reported, set before dispatch */
	struct watch w;
	struct kernel_verify v;		/* answers every exec let through */
};

/* An exec's arguments read from the caller's memory (kernel-mem.c). */
struct kernel_mem_exec {
	char *path;			/* as passed (malloc'd) */
	char *argv, *env;		/* each string with its NUL (malloc'd) */
	size_t argv_len, env_len, argc, envc;
};

/* Read path, argv and envp of an exec from the memory of thread tid,
 * with ptr_size-byte pointers; bounded by SHELLESC_FRAME_MAX in all.  0 or
 * -errno (-E2BIG past the bound). */
int kernel_mem_read(pid_t tid, size_t ptr_size, uint64_t path, uint64_t argv, uint64_t envp,
    struct kernel_mem_exec *out);
void kernel_mem_free(struct kernel_mem_exec *e);

struct loop;
void kernel_init(struct kernel *k);
/* Answer notification id: continue it (err 0) or fail it (err -errno).
 * 0, or -ENOENT: the caller no longer waits for it (killed, or its wait
 * ended: see kernel_verify.late_stop). */
int kernel_answer(struct kernel *k, uint64_t id, int err);
void kernel_on_ready(struct loop *l);
void kernel_on_decided(struct loop *l, struct shellesc_request *req);
/* A run decision for a client's request: issue its ticket. */
void kernel_ticket_issue(struct loop *l, const struct shellesc_request *req);
void kernel_stop(struct loop *l);

/* kernel-socket.c: is d a call of the socket gate's?  Then take it: the
 * server makes it on a thread of its own and answers.  kernel_sock_stop:
 * wait for those threads (the session ends), free the gate. */
struct seccomp_data;
struct seccomp_notif;
bool kernel_sock_ours(const struct kernel *k, const struct seccomp_data *d);
void kernel_sock_take(struct loop *l, const struct seccomp_notif *n);
void kernel_sock_stop(struct kernel *k);

enum conn_state {
	CONN_READ_EXEC,		/* waiting for the exec request */
	CONN_DECIDING,		/* the policy has the request */
	CONN_READ_HANDOVER,	/* escalate: waiting for the fds */
	CONN_RUNNING,		/* escalated command running */
};

struct loop;

/*
 * Request memory is bounded in all, not only frame by frame: any process
 * of the session could otherwise open stream after stream, each with a
 * partly sent 8 MiB frame, or with whole requests that a slow policy (a
 * prompt) holds, until the embedding process runs out of memory.  Frames
 * being received and requests the policy holds (the kernel layer's too,
 * read from the caller's memory) are counted together
 * (loop.rx_pending); past CONN_RX_BUDGET only frames up to CONN_RX_SMALL
 * are taken, from a reserve of CONN_RX_RESERVE, so everyday requests
 * still pass; anything else is refused as busy.
 */
#define CONN_RX_BUDGET	(8 * (size_t)SHELLESC_FRAME_MAX)	/* 64 MiB */
#define CONN_RX_RESERVE	(16u << 20)
#define CONN_RX_SMALL	(64u << 10)

struct conn {
	struct loop *loop;
	int fd;				/* -1 once the client is gone */
	enum conn_state state;
	struct frame_rx rx;
	struct shellesc_request *req;
	pid_t pid;			/* escalated command (and its group) */
	int pidfd;
	struct jobs jobs;		/* its part in our terminal's job control */
	struct tree tree;		/* its whole tree (tree.c) */
	bool killing;
	bool policy_holds;		/* the request is with the policy */
	bool watched;			/* fd is in the epoll set */
	bool handshaking;		/* admitted, its request not yet taken */
	bool dead;			/* freed; memory kept until the batch ends */
	int64_t deadline;		/* ms, CLOCK_MONOTONIC; 0: none */
	int64_t started;
	size_t rx_charged;		/* this conn's part of loop.rx_pending */
	size_t held;			/* ...for its request, while the policy has it */
	struct watch wfd, wpid;
	struct inflight *inflight;	/* the client process's count */
	struct conn *prev, *next;
};

/*
 * Bounds on the streams in flight, so that no process of the session can
 * fill the server's fd table or keep other processes' requests out: a
 * stream, or an exec the kernel layer holds for the policy (each holds a
 * pidfd and a request), is admitted (loop_room) only while its process has fewer
 * than LOOP_PEER_HANDSHAKES streams still waiting for their request (a
 * real client writes its request before the hand-over, so it has none for
 * long) and fewer than max_per_peer in all, and the session fewer than
 * max_conns (half of them at most waiting for their request).  Anything
 * past a bound is refused at once as busy.  max_conns comes from the fd
 * limit: each stream can hold LOOP_CONN_FDS fds (itself, its request's
 * target and cwd, then a pidfd or the fds of its hand-over), and
 * LOOP_FD_RESERVE are left to the embedding process.
 */
#define LOOP_PEER_HANDSHAKES	16
#define LOOP_PEER_STREAMS	256
#define LOOP_CONNS_MAX		4096
#define LOOP_CONNS_MIN		16
#define LOOP_CONN_FDS		(3 + SHELLESC_MAX_FDS)
#define LOOP_FD_RESERVE		256

struct loop {
	struct shellesc_session *s;
	const struct shellesc_config *cfg;
	int epfd, sock;
	struct hub *hub;
	pthread_t thread;
	struct conn *conns;
	struct conn *dead;		/* conn_free'd during this batch */
	bool stopping;			/* loop_stop: conn_free frees everything */
	size_t rx_pending;		/* bytes of frames being received and of requests held */
	struct inflight_table inflight;
	size_t nconns;			/* streams and held kernel-layer execs in flight */
	size_t handshakes;		/* streams waiting for their request */
	size_t max_conns, max_per_peer;	/* see LOOP_PEER_STREAMS */
	bool busy_warned;		/* a refusal for the session's bound was logged */
	uint64_t next_id;
	struct watch wsock, whub;
	struct kernel kernel;		/* the seccomp listener (kernel.c) */
};

int loop_start(struct loop *l);
/* Stop the thread, end escalated commands, free everything. */
void loop_stop(struct loop *l);
int loop_watch(struct loop *l, int fd, struct watch *w, int op);
void loop_log(const struct loop *l, enum shellesc_log_level lv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Size the bounds from the configuration and the fd limit. */
void loop_bounds(struct loop *l);
/* The largest frame or held request the loop may take now (see CONN_RX_BUDGET). */
size_t loop_rx_room(const struct loop *l);
/* Process pid of uid's count, if it has room for one more request (a
 * stream still waiting for its request when handshake; a request of bytes
 * already read, which the caller then adds to rx_pending): loop_hold
 * counts it in.  Else NULL, with why (n bytes) saying which bound is
 * full, and logged (once a crowd). */
struct inflight *loop_room(struct loop *l, uid_t uid, pid_t pid, bool handshake,
    size_t bytes, char *why, size_t n);
void loop_hold(struct loop *l, struct inflight *p);
/*
 * The one hand-off of a request to the policy, whatever its origin: its
 * id, the policy's reference on the hub, the callback.  true when the
 * policy answered inside the callback (req->decided_inline): the caller
 * takes that answer up once it is ready to (its origin's handler, as
 * loop_decided would); a later answer comes through the hub.
 */
bool loop_ask(struct loop *l, struct shellesc_request *req);
/* A decision to the handler of the request's origin. */
void loop_decided(struct loop *l, struct shellesc_request *req);
/* Count one request of p out again (p freed when it was the last). */
void loop_release(struct loop *l, struct inflight *p);

/* A new stream of the client process p (counted in until freed). */
struct conn *conn_new(struct loop *l, int fd, struct inflight *p);
/* The request has come: the stream no longer counts as a handshake. */
void conn_handshake_done(struct conn *c);
/* A stream for an escalation the kernel layer decided: the caller sends
 * the hand-over on the other end.  req, its count (req->inflight) and fd
 * taken over; 0 or -errno. */
int conn_adopt(struct loop *l, int fd, struct shellesc_request *req);
void conn_free(struct conn *c);
void conn_reap_dead(struct loop *l);
void conn_on_stream(struct conn *c);
void conn_on_child(struct conn *c);
void conn_on_decided(struct conn *c);
void conn_on_deadline(struct conn *c);
void conn_kill(struct conn *c);		/* start ending the escalated command */

/* --- session.c ------------------------------------------------------- */
struct shellesc_session {
	struct shellesc_config cfg;
	struct loop loop;
	int client_fd;
	pthread_mutex_t mu;		/* client_fd */
	char *env[5];			/* the overlay */
	char **roots;			/* cfg.writable, canonical */
	/* shellesc_session_cancel(): the flag, and an eventfd that wakes a
	 * running exec (set from a signal handler too, so no lock). */
	atomic_bool cancelled;
	int cancel_fd;
	char **own_env;			/* escenv_capture: the session's own variables */
	char **pass_env;		/* cfg.pass_env, copied */
};

#endif /* SHELLESC_SERVER_H */
