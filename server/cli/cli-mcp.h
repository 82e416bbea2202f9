/*
 * cli-mcp.h: shellesc mcp, the gated shell as an MCP server: JSON-RPC 2.0
 * on stdin and stdout, one message a line.  Private to cli-mcp*.c.
 *
 * Threads: the main thread (cli-mcp.c) reads stdin, answers every request
 * but tools/call at once, sends progress ticks and expires elicitations.
 * Each tools/call runs on a thread of its own in a session of its own
 * (cli-mcp-tool.c); that session's loop thread runs the policy
 * (cli-mcp-policy.c), which decides from the rules and asks the client
 * (elicitation/create, answered on the main thread) or the --approver
 * (the prompt thread, cli-prompt.c).  Any thread may send: mcp_send
 * writes one whole line under out_mu.
 *
 * Locks, outermost first: mcp.mu, mcp_call.mu, mcp.out_mu.
 */
#ifndef SHELLESC_CLI_MCP_H
#define SHELLESC_CLI_MCP_H

#include <stdatomic.h>

#include "cli.h"
#include "cli-json.h"

/* JSON-RPC 2.0 error codes. */
#define MCP_PARSE_ERROR		(-32700)
#define MCP_INVALID_REQUEST	(-32600)
#define MCP_NO_METHOD		(-32601)
#define MCP_BAD_PARAMS		(-32602)
#define MCP_INTERNAL		(-32603)

#define MCP_CALLS_MAX		32	/* tool calls running at once */
#define MCP_DECISIONS_MAX	64	/* decisions a result lists */

/*
 * The sandbox for the shells of later calls: immutable once made, shared.
 * Its Landlock layers are the command line's (-s landlock), a floor no
 * update can widen, then the last sandbox-state update's; none: no sandbox.
 */
struct mcp_sbx {
	atomic_int refs;
	size_t n;
	struct cli_layer layer[2];
	const char *source[2];		/* "command line", or the policy's type */
	char *policy;			/* the last update's type, or NULL */
};

/* One tools/call. */
struct mcp_call {
	struct mcp *m;
	atomic_int refs;		/* its thread, each request being decided */
	json_t *id;			/* the request's */
	json_t *token;			/* _meta.progressToken, or NULL */
	char *command, *workdir;
	int timeout_ms;			/* 0: none */
	bool login;
	struct mcp_sbx *sbx;
	pthread_t thread;
	int64_t started;		/* ms, CLOCK_MONOTONIC */
	atomic_bool cancelled;		/* notifications/cancelled, or shutting down */
	/* under m->mu */
	struct shellesc_session *s;	/* while the exec may be cancelled */
	bool finished;			/* its thread has ended: join it */
	struct mcp_call *next;
	/* under mu */
	pthread_mutex_t mu;
	bool done;			/* the result is out: nothing more about it */
	double progress;		/* the last progress value sent */
	int64_t ticked;			/* when progress was last sent */
	json_t *decisions;
	size_t decisions_dropped;
};

/* An elicitation/create the client has not answered yet. */
struct mcp_pending {
	json_int_t id;
	struct mcp_call *call;
	struct shellesc_request *req;
	struct cli_verdict v;
	int64_t deadline;
	struct mcp_pending *next;
};

struct mcp {
	struct cli *c;
	pthread_mutex_t out_mu;
	atomic_bool out_dead;		/* stdout failed: the client is gone */
	pthread_mutex_t mu;
	pthread_cond_t cv;		/* a call's thread ended */
	struct mcp_call *calls;
	size_t running;
	struct mcp_pending *pending;
	json_int_t next_id;		/* of our own requests */
	struct mcp_sbx *sbx;
	/* set by initialize and logging/setLevel, read by every thread */
	atomic_bool structured;		/* 2025-06-18: outputSchema, structuredContent */
	atomic_bool can_elicit;		/* the client declared elicitation */
	atomic_int log_level;		/* least notifications/message level sent */
};

/* cli-mcp.c: sending; each consumes its json_t arguments. */
int mcp_send(struct mcp *m, json_t *msg);
void mcp_reply(struct mcp *m, json_t *id, json_t *result);
void mcp_error(struct mcp *m, json_t *id, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void mcp_notify(struct mcp *m, const char *method, json_t *params);
void mcp_log(struct mcp *m, const char *level, json_t *data);

/* cli-mcp-result.c */
json_t *mcp_tool_list(struct mcp *m);
json_t *mcp_result(struct mcp_call *call, const struct shellesc_exec_result *res);
json_t *mcp_tool_error(const char *why);

/* cli-mcp-tool.c */
void mcp_tool_call(struct mcp *m, json_t *id, json_t *params);
void mcp_tool_cancel(struct mcp *m, json_t *request_id);
void mcp_tool_tick(struct mcp *m, int64_t now);
void mcp_tool_end_all(struct mcp *m);
void mcp_call_ref(struct mcp_call *call);
void mcp_call_unref(struct mcp_call *call);
void mcp_call_progress(struct mcp_call *call, int64_t now, const char *message);

/* cli-mcp-policy.c */
void mcp_policy(void *arg, struct shellesc_request *req);
void mcp_elicit_answer(struct mcp *m, json_t *msg);
void mcp_elicit_expire(struct mcp *m, int64_t now);
/* Deny what waits for the client: call's requests, or all (NULL). */
void mcp_elicit_drop(struct mcp *m, struct mcp_call *call, const char *why);

/* cli-mcp-sandbox.c */
int mcp_sbx_init(struct mcp *m);
void mcp_sbx_update(struct mcp *m, json_t *id, json_t *params);
struct mcp_sbx *mcp_sbx_get(struct mcp *m);
void mcp_sbx_unref(struct mcp_sbx *x);
json_t *mcp_sbx_json(const struct mcp_sbx *x);
/* The environment and shell (this program, re-executed) for running under
 * x and the session's seccomp filter; *entry, *env to be freed.  -1 after
 * a message in *why. */
int mcp_sbx_exec(const struct mcp_sbx *x, const char **shell, char *self, size_t size,
    char ***env, char **entry, char **why);

#endif /* SHELLESC_CLI_MCP_H */
