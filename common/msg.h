/*
 * msg.h: the seven protocol messages (see docs/protocol.md).
 *
 * Every message is a MessagePack map with string keys; "type" holds a
 * SHELLESC_MSG_* number.  Encoding uses msgpack-c's packer; decoding is
 * table-driven over the allocation-free reader, yielding views into the
 * frame.  Unknown keys are skipped; missing required keys, wrong types,
 * out-of-range values, NUL bytes inside strings, duplicate keys and
 * trailing bytes are errors.  Everything here except msg_exec_take() is
 * async-signal-safe.
 */
#ifndef SHELLESC_MSG_H
#define SHELLESC_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "mpread.h"
#include "proto.h"

struct msg_bytes {
	const char *p;		/* not NUL-terminated */
	uint32_t len;
};

/* A validated array of byte strings, still in the frame. */
struct msg_list {
	struct mpr at;		/* positioned on the first element */
	uint32_t n;
};

/* Any decoded message.  Only the fields of its type are meaningful. */
struct msg {
	int64_t type;
	struct msg_bytes file, cwd;		/* exec */
	struct msg_list argv, env;		/* exec */
	int64_t pid, flags;			/* exec */
	int64_t action;				/* decision */
	struct msg_bytes reason;		/* decision (optional) */
	int dest[SHELLESC_MAX_FDS];		/* handover */
	size_t ndest;				/* handover */
	bool follow_stops;			/* handover (optional) */
	int64_t signal;				/* signal, result, stopped */
	int64_t exit_code;			/* result */
	bool core;				/* result (optional) */
	struct msg_bytes error;			/* result (optional) */
	struct msg_bytes message;		/* error */
	uint32_t present;			/* bit per field seen */
	const char *bad_field;			/* on error: which key, if known */
};

/* Decode one message filling the whole buffer.  Returns 0 or SE_ERR_*. */
int msg_decode(const void *buf, size_t len, struct msg *m);

/* True when the decoded result/decision carries the optional field. */
bool msg_has(const struct msg *m, const char *key);

/* Next element of a validated list (the list must not be exhausted). */
void msg_list_next(struct msg_list *l, const char **p, uint32_t *len);

/* An exec request as the client sends it. */
struct msg_exec_out {
	const char *file, *cwd;
	char *const *argv;		/* NULL-terminated; may be NULL (= empty) */
	char *const *env;		/* NULL-terminated; may be NULL (= empty) */
	bool (*env_keep)(const char *entry); /* NULL keeps all */
	pid_t pid;
	unsigned flags;
};

/* Send an exec request as one frame, streamed through a stack buffer. */
int msg_send_exec(int sock, const struct msg_exec_out *e);
/*
 * The same, calling then(arg) exactly once: before the first send that
 * would have to wait, or after the whole frame is queued.  The client
 * passes the stream to the server there, so a request that fits in the
 * socket buffer is complete before the server ever sees the stream.
 * then() is not called when the request is too large to send at all.
 */
int msg_send_exec_then(int sock, const struct msg_exec_out *e, int (*then)(void *), void *arg);
/* Encode an exec request into buf (at most cap bytes); *len is its size. */
int msg_pack_exec(void *buf, size_t cap, size_t *len, const struct msg_exec_out *e);

int msg_send_decision(int sock, int action, const char *reason);
int msg_send_handover(int sock, const int *dest, const int *fds, size_t n);
/* The same with "follow_stops": the client stops itself when told the
 * command stopped (msg_send_stopped). */
int msg_send_handover_follow(int sock, const int *dest, const int *fds, size_t n);
int msg_send_signal(int sock, int sig);
/* exit_code >= 0 for a normal exit, else sig is the killing signal. */
int msg_send_result(int sock, int exit_code, int sig, bool core,
    const char *error);
int msg_send_error(int sock, const char *message);
int msg_send_stopped(int sock, int sig);

/* An exec request copied out of its frame into NUL-terminated strings. */
struct msg_exec {
	char *file, *cwd;
	char **argv, **env;	/* NULL-terminated */
	size_t argc, envc;
	pid_t pid;
	unsigned flags;
	char *blob_;		/* owns the strings */
};

/* Copy a decoded exec message (allocates).  Returns 0 or SE_ERR_NOMEM. */
int msg_exec_take(const struct msg *m, struct msg_exec *e);
void msg_exec_free(struct msg_exec *e);

#endif /* SHELLESC_MSG_H */
