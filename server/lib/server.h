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

/* --- request.c ------------------------------------------------------- */
struct conn;

struct shellesc_request {
	struct hub *hub;
	struct conn *conn;
	struct msg_exec ex;
	char *program;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	uint64_t id;
	atomic_int cancelled;
	bool decided_inline;		/* answered inside the policy callback */
	struct shellesc_decision d;	/* once decided; d.reason is ours */
	struct shellesc_request *next;	/* hub queue */
};

/* Build a request from a decoded exec message; 0 or negative errno. */
int request_new(const struct msg *m, int fd, struct shellesc_request **out);
void request_free(struct shellesc_request *req);

/* --- resolve.c ------------------------------------------------------- */
/* file made absolute against cwd, lexically; malloc'd, NULL on ENOMEM. */
char *resolve_program(const char *file, const char *cwd);

/* --- scrub.c --------------------------------------------------------- */
/* env minus the scrubbed names (a new pointer array; strings shared). */
char **scrub_env(char *const *env, const char *const *scrub);
bool scrub_match(const char *entry, const char *const *scrub);

/* --- spawn.c --------------------------------------------------------- */
struct spawn_fd { int src, dst; };

struct spawn_spec {
	const char *path;
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
 * closed), default signal dispositions, an empty mask.  Returns 0 with *pid
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
enum watch_kind { WATCH_SOCK, WATCH_HUB, WATCH_STREAM, WATCH_CHILD };

struct watch {
	enum watch_kind kind;
	void *ptr;
};

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
 * being received and requests the policy holds are counted together
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
	bool dead;			/* freed; memory kept until the batch ends */
	int64_t deadline;		/* ms, CLOCK_MONOTONIC; 0: none */
	int64_t started;
	size_t rx_charged;		/* this conn's part of loop.rx_pending */
	size_t held;			/* ...for its request, while the policy has it */
	struct watch wfd, wpid;
	struct conn *prev, *next;
};

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
	uint64_t next_id;
	struct watch wsock, whub;
};

int loop_start(struct loop *l);
/* Stop the thread, end escalated commands, free everything. */
void loop_stop(struct loop *l);
int loop_watch(struct loop *l, int fd, struct watch *w, int op);
void loop_log(const struct loop *l, enum shellesc_log_level lv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int64_t loop_now_ms(void);

struct conn *conn_new(struct loop *l, int fd);
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
	/* shellesc_session_cancel(): the flag, and an eventfd that wakes a
	 * running exec (set from a signal handler too, so no lock). */
	atomic_bool cancelled;
	int cancel_fd;
};

#endif /* SHELLESC_SERVER_H */
