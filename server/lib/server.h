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

/* --- peer.c: the process asking, as the kernel reports it -------------- */
struct peer {
	pid_t pid;
	uid_t uid;
	gid_t gid;
	gid_t *groups;			/* supplementary (SO_PEERGROUPS) */
	size_t ngroups;
	int pidfd;			/* pins the process, or -1 (no pidfds) */
	int root, cwd;			/* its /proc/PID/root and cwd (O_PATH), or -1 */
};

/* The peer of the stream sock, with its root; 0 or -errno.  Call
 * peer_close either way. */
int peer_open(struct peer *p, int sock);
/* The process tgid, with the credentials the kernel gave for it (its
 * effective ids and groups, /proc/PID/status), and its root; 0 or
 * -errno.  Call peer_close either way (the groups are taken over). */
int peer_open_pid(struct peer *p, pid_t tgid, uid_t uid, gid_t gid, gid_t *groups,
    size_t ngroups);
/* Its working directory (opened on first use; owned by p), or -errno. */
int peer_cwd(struct peer *p);
void peer_close(struct peer *p);

/* --- walk.c ---------------------------------------------------------- */
/* path opened (O_PATH) as the peer's exec would find it; 0 or -errno. */
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
};

/* Read what fd (O_PATH) is into f; 0 or -errno.  Free f->path. */
int target_file_read(int fd, struct target_file *f);

/* --- target.c, target-loader.c: the file that will run ----------------- */
struct target {
	struct shellesc_target pub;
	int fd;				/* the opened file (O_PATH), or -1 */
	bool elf;			/* ELF: the kernel runs it from fd */
	bool loader;			/* it is the dynamic loader */
	char *path, *why;		/* pub.path, pub.writable */
	char *loader_path;		/* pub.loader */
	char **argv;			/* pub.argv when not the request's */
	bool runs_known;		/* the ELF the kernel will load: the */
	dev_t runs_dev;			/* file, its #! interpreter's, or the */
	ino_t runs_ino;			/* loader run directly */
};

/* Fill t (zeroed, fd -1) for the exec ex of peer p; failures land in
 * t->pub.error. */
void target_inspect(struct target *t, struct peer *p, const struct msg_exec *ex,
    const struct writer *wr);
/* Make fd (taken over) the target; 0 or -errno. */
int target_take(struct target *t, struct peer *p, int fd, const struct writer *wr);
/* t is the loader: make its program the target; 0 or -errno. */
int target_loader(struct target *t, struct peer *p, const struct msg_exec *ex,
    const struct writer *wr);
void target_clear(struct target *t);
void target_free(struct target *t);

/* --- request.c ------------------------------------------------------- */
struct conn;

struct shellesc_request {
	struct hub *hub;
	struct conn *conn;
	struct msg_exec ex;
	char *program;
	struct target target;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	uint64_t id;
	atomic_int cancelled;
	bool decided_inline;		/* answered inside the policy callback */
	struct shellesc_decision d;	/* once decided; d.reason is ours */
	bool kernel;			/* a seccomp notification (kernel.c), no conn */
	uint64_t notif_id;		/* ...its id */
	struct kverify_job *vjob;	/* ...how a run answer is verified */
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

struct spawn_spec {
	const char *path;
	bool by_fd;			/* execute the file fd, not path */
	int fd;
	bool fd_script;			/* ...a script, read as /dev/fd/N */
	char *const *argv, *const *env;
	const char *cwd;
	const struct spawn_fd *fds;	/* installed on their destinations */
	size_t nfds;
	bool new_pgrp;			/* own process group */
	bool foreground;		/* ...made the foreground of tty (jobs.c) */
	int tty;			/* our controlling terminal, with foreground */
	bool pdeathsig;			/* die with the server */
};

/*
 * fork+exec: the child gets exactly fds[] on their destinations (others
 * closed), default signal dispositions, an empty mask, and the fd limit
 * the process had before a session raised it (fdlimit.c).  Returns 0 with *pid
 * and *pidfd (CLOEXEC) set, or -errno; an exec failure is reported as
 * -errno after the child was reaped.
 */
int spawn_run(const struct spawn_spec *sp, pid_t *pid, int *pidfd);
/* Wait (blocking) on a pidfd; exit code, or -1 with *sig (and *core) set. */
int spawn_reap(int pidfd, int *sig, bool *core);
/* SIGTERM the group, wait up to grace_ms for the pidfd, then SIGKILL; reaps. */
void spawn_end(pid_t pgrp, int pidfd, int grace_ms);
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

struct kticket {
	pid_t pid;			/* 0: free */
	dev_t dev;
	ino_t ino;
	char *argv;			/* the strings, each with its NUL */
	size_t len;
	bool elf, runs_known;		/* what the decided target runs: */
	dev_t runs_dev;			/* the verifier checks the exec */
	ino_t runs_ino;			/* against it (target.runs_*) */
};

/* --- kernel-verify.c: what the kernel runs is what was decided -------- */
/*
 * A run answer to a notification is the verifier thread's: it traces the
 * calling thread, continues the call and, at the exec event, before the
 * new image runs, compares it with the job, killing it when it differs.
 */
struct kverify_job {
	struct kverify_job *next;
	uint64_t id;			/* the notification it answers */
	pid_t tid, tgid, ppid;		/* the calling thread, its process, parent */
	bool known;			/* the ELF to be loaded is known: */
	dev_t dev;
	ino_t ino;
	bool whole;			/* argv is want (ELF), or ends with it (#!) */
	char *want;			/* strings, each with its NUL */
	size_t len;
	bool escalate;			/* kernel-escalate.c: make it exec the */
	char *wrapper, *file;		/* wrapper as the proxy of FILE, with */
	int fd;				/* this stream (-1: none) */
};

/* A stop of a job's thread, taken. */
struct kverify_stop {
	pid_t pid;			/* as it is known now */
	int event;			/* PTRACE_EVENT_*, or 0 */
	int sig;			/* a signal-delivery stop's signal, or 0 */
};

struct loop;
struct kverify {
	struct loop *l;
	pthread_t thread;
	bool started, stop;
	pthread_mutex_t mu;		/* the queue, stop, busy */
	pthread_cond_t cv;
	struct kverify_job *head, **tail;
	pid_t busy;			/* the process being verified, or 0 */
};

int kverify_start(struct kverify *v, struct loop *l);
/* Answer and verify j (taken over) on the verifier thread. */
void kverify_submit(struct kverify *v, struct kverify_job *j);
/* Stop the thread; an exec it still follows after a grace period is killed. */
void kverify_stop(struct kverify *v);
void kverify_job_free(struct kverify_job *j);
/* The next stop of j's traced thread (kernel-verify.c): true; false once it
 * is gone (its end taken, unless it is the embedder's child). */
bool kverify_next(const struct kverify_job *j, struct kverify_stop *st);
/* On the verifier thread: the escalation of j (kernel-escalate.c). */
void kescalate_one(struct kverify *v, const struct kverify_job *j);
/* Can a raw exec be made to land in the wrapper on this machine? */
bool kescalate_possible(void);

struct kernel {
	atomic_int fd;			/* the listener, or -1: no kernel layer */
	pid_t first;			/* its first exec continues unasked; 0: used */
	bool wrapper;			/* the session's wrapper is known by... */
	dev_t wdev;			/* ...its identity: it passes unasked */
	ino_t wino;
	struct kticket t[KERNEL_TICKETS];
	unsigned next;
	uint32_t events;		/* what epoll reported, set before dispatch */
	struct watch w;
	struct kverify v;		/* answers every exec let through */
};

/* An exec's arguments read from the caller's memory (kernel-mem.c). */
struct kmem_exec {
	char *path;			/* as passed (malloc'd) */
	char *argv, *env;		/* each string with its NUL (malloc'd) */
	size_t argv_len, env_len, argc, envc;
};

/* Read path, argv and envp of an exec from the memory of tid (mem: its
 * /proc/TID/mem), with ptr_size-byte pointers; bounded by
 * SHELLESC_FRAME_MAX in all.  0 or -errno (-E2BIG past the bound). */
int kmem_read(int mem, size_t ptr_size, uint64_t path, uint64_t argv, uint64_t envp,
    struct kmem_exec *out);
void kmem_free(struct kmem_exec *e);

struct loop;
void kernel_init(struct kernel *k);
/* Answer notification id: continue it (err 0) or fail it with -err. */
void kernel_answer(struct kernel *k, uint64_t id, int err);
void kernel_on_ready(struct loop *l);
void kernel_on_decided(struct loop *l, struct shellesc_request *req);
/* A run decision for a client's request: issue its ticket. */
void kernel_ticket(struct loop *l, const struct shellesc_request *req);
void kernel_stop(struct loop *l);

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
 * limit: each stream can hold LOOP_CONN_FDS fds (itself, then a pidfd or
 * the fds of its hand-over), and LOOP_FD_RESERVE are left to the
 * embedding process.
 */
#define LOOP_PEER_HANDSHAKES	16
#define LOOP_PEER_STREAMS	256
#define LOOP_CONNS_MAX		4096
#define LOOP_CONNS_MIN		16
#define LOOP_CONN_FDS		(1 + SHELLESC_MAX_FDS)
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
int64_t loop_now_ms(void);

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
