/*
 * session-helpers.h: a scriptable policy, real sessions, and real wrapper
 * processes for the server and wrapper suites.
 */
#ifndef SHELLESC_TEST_SESSION_HELPERS_H
#define SHELLESC_TEST_SESSION_HELPERS_H

#include <criterion/parameterized.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "client.h"
#include "clock.h"		/* clock_now_ms(), for deadlines */
#include "msg.h"
#include "shellesc.h"

/* Every test that starts processes is bounded in time. */
#define TS_TIMEOUT 30

/*
 * The test policy.  The action is deny for a program whose base name is
 * tp->deny_name, else the request's TEST_ACTION variable (run, escalate or
 * deny), else tp->action.  With delay_ms > 0 the answer comes
 * from a detached thread after that delay.  The last request is copied.
 */
struct tpol {
	enum shellesc_action action;
	const char *reason;
	/* a deny rule: a program with this base name is denied, whatever else */
	const char *deny_name;
	enum shellesc_mode mode;
	void *profile;
	int delay_ms;
	/* prepare: point the command at redirect (argv), if set */
	char *const *redirect;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int seen, ended, prepared, released;
	int decided;		/* late answers given */
	int cancelled;		/* the last late answer found the request cancelled */
	/* the last request */
	char *program, *file, *cwd;
	char **argv, **env;
	size_t argc;
	pid_t pid;
	/* the last prepare and ended callbacks */
	enum shellesc_mode prep_mode;
	void *prep_profile;
	int ended_code, ended_sig;
	/* every request's program, one a line (freed by ts_end), and the last one's flags */
	char *history;
	size_t history_len, history_cap;
	unsigned flags;
	unsigned facts;		/* the last one's target facts, as the server found them */
};

/* Start a session for tp with the build-tree wrapper.  cfg (NULL: wrapper
 * interception only) supplies the other settings. */
struct shellesc_session *ts_start(struct tpol *tp, const struct shellesc_config *cfg);
/* End the session and free what tp copied. */
void ts_end(struct shellesc_session *s, struct tpol *tp);

/* Wait until the counter of tp (e.g. &tp->ended) reaches n; asserts it does within ms. */
void ts_wait(struct tpol *tp, const int *counter, int n, int ms);

/* Whether tp's last request env holds exactly entry ("NAME=value") or NAME= at all. */
bool ts_req_env_has(struct tpol *tp, const char *entry);

/* How many requests so far were for program. */
int ts_history_count(struct tpol *tp, const char *program);

/*
 * An environment for a caller of the session: the overlay of s, PATH, and
 * the extra "NAME=value" entries (NULL-terminated).  Nothing else of the
 * test process leaks in.  Free with shellesc_env_free().
 */
char **ts_env(struct shellesc_session *s, ...) __attribute__((sentinel));

/* --- proc-helpers.c --- */

/* A child process with its stdio on pipes (our ends; -1 when not piped). */
struct ts_proc {
	pid_t pid;
	int in, out, err;
};

/* Run path with argv and env in cwd (NULL: ours), stdio on pipes. */
void ts_proc_start(struct ts_proc *p, const char *cwd, char *const env[],
    const char *path, char *const argv[]);
/* The same as the unprivileged user u (tests/helpers/user.h; NULL: as we are). */
struct tu_user;
void ts_proc_start_as(struct ts_proc *p, const struct tu_user *u, const char *cwd,
    char *const env[], const char *path, char *const argv[]);
/* shellesc-execve-wrapper FILE ARGV... (argv NULL-terminated) under env. */
void ts_wrapper_start(struct ts_proc *p, char *const env[], const char *cwd,
    const char *file, char *const argv[]);
/* In a child about to exec: every signal at its default and none blocked,
 * as a login on a terminal has them, whatever this run inherited (`make
 * check &` from a shell without job control ignores SIGINT and SIGQUIT,
 * and an ignored SIGINT outlives exec: ^C would then end no job). */
void ts_child_signals(void);
/* Read a line of at most size-1 bytes from fd within ms; asserts it came. */
void ts_read_line(int fd, char *buf, size_t size, int ms);
/* Close stdin, collect stdout and stderr to EOF, reap; returns the wait status. */
int ts_proc_wait(struct ts_proc *p, char **out, size_t *outlen, char **err);
/* The same, asserting the output ends within ms (ts_proc_wait: 20 s). */
int ts_proc_wait_ms(struct ts_proc *p, int ms, char **out, size_t *outlen, char **err);

/* True when pid has ended (exited, a zombie, or reaped) within ms; without
 * pidfd_open (valgrind 3.19) it polls /proc/PID/stat. */
bool ts_pid_gone(pid_t pid, int ms);

/* Number of fds; waits up to ms for it to come back down to want. */
int ts_fds_settle(int want, int ms);

/* Ask the session about file/argv from this process; returns client_ask's result. */
int ts_ask(int session_fd, const char *file, char *const argv[], char *const env[],
    struct client_req *req);
/* A plain run request that must succeed (the session still serves). */
void ts_good_request(struct shellesc_session *s);

/* Raw protocol: a new stream carrying an exec request (TEST_ACTION=action). */
int ts_raw_exec(int session_fd, const char *action, const char *file, char *const argv[],
    const char *cwd);
/* Receive one message of the given type into m (numbers only stay valid). */
void ts_raw_expect(int stream, int type, struct msg *m);
/* The server refused: an error frame saying why (NULL: none expected), then
 * EOF (or ECONNRESET).  Closes stream. */
void ts_raw_refused(int stream, const char *why);

/*
 * Criterion parameters 0..n-1 (n <= 256).  Each parameterized test runs in a
 * fresh process of a position-independent binary, where pointers into a
 * table would not survive: cases are passed by index.
 */
struct criterion_test_params ts_indexes(size_t n);

/* A NULL-terminated vector of the arguments (a static-lifetime compound). */
#define TS_V(...) ((char *const[]){ __VA_ARGS__, NULL })

/*
 * A policy that holds requests, as a prompt does, until ts_hold_decide
 * answers them: every one, or when only is set those whose argv[0] is
 * only (the others run at once).  Past TS_HOLD_MAX held, it denies.
 */
#define TS_HOLD_MAX 64
struct ts_hold {
	pthread_mutex_t mu;
	const char *only;
	struct shellesc_request *held[TS_HOLD_MAX];
	atomic_int n;		/* held now */
};
void ts_hold_policy(void *arg, struct shellesc_request *req);
/* Answer every held request with action. */
void ts_hold_decide(struct ts_hold *h, enum shellesc_action action);

#endif
