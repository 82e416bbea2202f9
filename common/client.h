/*
 * client.h: the one client shared by shellesc-execve-wrapper and the
 * preload library.
 *
 * Async-signal-safety: every function here is async-signal-safe and
 * allocates nothing (stack buffers, direct system calls), so the preload
 * may call them in a vfork child or after fork() in a threaded program --
 * except client_escalate(), which installs signal handlers and must only
 * run in a process that is about to become the escalated command's proxy
 * (the wrapper, or a proxy the preload execs).  Stack use is about 12 KiB.
 */
#ifndef SHELLESC_CLIENT_H
#define SHELLESC_CLIENT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "msg.h"
#include "proto.h"

/*
 * Find the session socket named by SHELLESC_ESCALATE_SOCKET in envp (scanned
 * by hand: getenv is not safe everywhere the preload runs).  Returns 0 with
 * *fd set, SE_ERR_NO_SESSION when the variable is absent, SE_ERR_RANGE when
 * it is not a number, SE_ERR_BAD_SOCKET when that fd is not an AF_UNIX
 * datagram socket (an fd number can be reused by an unrelated file).
 */
int client_session_fd(char *const *envp, int *fd);

/* An fd number as the environment gives it (1-9 decimal digits, nothing
 * else), or SE_ERR_RANGE. */
int client_fd_value(const char *v);

/* Check that fd is an open AF_UNIX SOCK_DGRAM socket. */
int client_check_socket(int fd);

/* True for environment entries a request carries (not SHELLESC_*, not EXEC_WRAPPER). */
bool client_env_keep(const char *entry);

/*
 * One request in progress.  The working directory (while the request is
 * sent) and the reply (after) share one buffer: the client runs on the
 * stack of whatever process is exec'ing, often a fresh fork or vfork
 * child, where every page of stack touched is a page fault.
 */
struct client_req {
	int stream;				/* request channel, or -1 */
	int action;				/* SHELLESC_ACT_* */
	const char *reason;			/* "" when none; points into buf */
	bool refused;				/* the server sent an error message */
	union {
		char cwd[PATH_MAX];
		uint8_t reply[SHELLESC_REPLY_MAX];	/* > SHELLESC_REASON_MAX */
	} buf;
};

/*
 * Ask the server about one exec: handshake, request, decision.  e->cwd may
 * be NULL (the current directory is used); e->env_keep is set for the
 * caller.  On success req->action holds the verdict and, for escalate,
 * req->stream stays open for client_escalate(); otherwise it is closed.
 * If the server refused the request (an error message), returns
 * SE_ERR_UNEXPECTED with req->refused set and its text in req->reason.
 */
int client_ask(int session_fd, struct msg_exec_out *e, struct client_req *req);

/* How an escalated command ended. */
struct client_result {
	int exit_code;		/* >= 0, or -1 when killed by a signal */
	int signal;
	bool core;
	char error[SHELLESC_REASON_MAX + 1];	/* why it could not start, or "" */
};

/*
 * Escalate: hand the server dups of stdin, stdout and stderr (ours stay
 * open; a closed one is replaced by /dev/null), then wait for the result
 * while forwarding SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
 * SIGWINCH and SIGCONT to the command, and stopping with the command's stop
 * signal whenever the server says it stopped (the hand-over asks for that:
 * "follow_stops").  Signal dispositions and the mask are restored before it
 * returns.  Closes req->stream.
 */
int client_escalate(struct client_req *req, struct client_result *res);

/* End this process as the command ended: _exit(code), or die of its signal. */
void client_exit_like(const struct client_result *res) __attribute__((noreturn));

/* Write "shellesc: PREFIX: MSG\n" to fd 2 with one write(2); either may be NULL. */
void client_say(const char *prefix, const char *msg);

/* Text for an SE_ERR_* code, using errno for SE_ERR_SYSTEM (async-signal-safe). */
const char *client_strerror(int r);

/* Internal: read one reply frame (at most size bytes) and decode it. */
int client_recv_msg(int stream, uint8_t *buf, size_t size, struct msg *m);

#endif /* SHELLESC_CLIENT_H */
