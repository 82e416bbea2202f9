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

#define MCP_WAITING_MAX		256	/* calls waiting for a slot (--max-calls) */
#define MCP_WAIT_MS		(120 * 1000) /* at most, for one */
/* A result lists at most this many decisions, each in brief (the model
 * reads all of it: Codex hands structuredContent to the model); the audit
 * log and notifications/message carry every one whole. */
#define MCP_DECISIONS_MAX	16
#define MCP_BRIEF_ARGV		8	/* argv words a brief decision keeps */
#define MCP_BRIEF_WORD		256	/* bytes of each */
#define MCP_QUESTIONS_MAX	4	/* questions one call may have open */

/*
 * The sandbox for the shells of later calls: immutable once made, shared.
 * Its Landlock layers are the command line's (-s landlock), a floor no
 * update can widen, then the last sandbox-state update's; none: no sandbox.
 * Each writable root is pinned when the sandbox is made (an O_PATH fd,
 * cli-mcp-sandbox.c): layer[].writable names it as it was then, pinned[]
 * holds the fds and their /proc/PID/fd/N paths, what Landlock is given.
 */
struct mcp_pinned {
	struct cli_strv path;		/* "/proc/PID/fd/N" of each writable */
	int *fd;			/* O_PATH, close-on-exec */
};

struct mcp_sbx {
	atomic_int refs;
	size_t n;
	struct cli_layer layer[2];
	struct mcp_pinned pinned[2];
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
	/* sandbox_permissions, justification, prefix_rule (cli-mcp-ask.c):
	 * ask.profile NULL when the call asks for nothing */
	struct cli_ask ask;
	struct cli_strv prefix;		/* ask.prefix_rule's words */
	char *first;			/* no prefix_rule: the command's first word */
	atomic_bool first_asked;	/* ... which one exec was asked about */
	struct cli_audit_call audit;	/* what its audit lines say */
	pthread_t thread;
	int64_t started;		/* ms, CLOCK_MONOTONIC */
	atomic_bool cancelled;		/* notifications/cancelled, or shutting down */
	atomic_int questions;		/* open: asked and not yet answered */
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
	size_t running;			/* calls' threads, waiting or running */
	size_t active;			/* calls running, at most --max-calls */
	struct mcp_pending *pending;
	json_int_t next_id;		/* of our own requests */
	struct mcp_sbx *sbx;
	char *client, *client_version;	/* under mu: initialize's clientInfo */
	/* set by initialize and logging/setLevel, read by every thread */
	atomic_bool structured;		/* 2025-06-18: outputSchema, structuredContent */
	atomic_bool can_elicit;		/* the client declared elicitation */
	atomic_bool can_roots;		/* the client declared roots */
	json_int_t roots_id;		/* under mu: our last roots/list, or 0 */
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
/* A decision as cli_json_decision made it, in brief for a result: id,
 * decision, program, argv (its first MCP_BRIEF_ARGV words, each cut to
 * MCP_BRIEF_WORD bytes), argc, the rule's "FILE:LINE" (or null),
 * intercept, and reason, asked and answer where they are not null.  A new
 * reference; NULL when out of memory. */
json_t *mcp_decision_brief(json_t *d);

/* cli-mcp-tool.c */
void mcp_tool_call(struct mcp *m, json_t *id, json_t *params);
void mcp_tool_cancel(struct mcp *m, json_t *request_id);
void mcp_tool_tick(struct mcp *m, int64_t now);
void mcp_tool_end_all(struct mcp *m);
void mcp_call_ref(struct mcp_call *call);
void mcp_call_unref(struct mcp_call *call);
void mcp_call_progress(struct mcp_call *call, int64_t now, const char *message);

/* cli-mcp-ask.c: the escalation a call asks for.  mcp_ask_args: the
 * arguments into call, or a message for -32602; mcp_ask_unknown: a
 * message naming a profile the rules do not define (malloc'd), or NULL;
 * mcp_ask_for: call's ask when it applies to req (its suggested
 * prefix_rule matches, or, without one, req is the first exec of the
 * command's first program), else NULL; mcp_ask_free: call's. */
const char *mcp_ask_args(struct mcp_call *call, json_t *args);
char *mcp_ask_unknown(struct mcp_call *call);
const struct cli_ask *mcp_ask_for(struct mcp_call *call, const struct shellesc_request *req);
void mcp_ask_free(struct mcp_call *call);
json_t *mcp_ask_schema(void);

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
/* The library's sandbox for a call's shell: x's layers, the session's
 * seccomp filter and flags (the kernel layer's: cli_setup_sandbox_flags);
 * free it with shellesc_sandbox_free.  NULL after a message in *why. */
struct shellesc_sandbox *mcp_sbx_build(const struct mcp_sbx *x, unsigned flags,
    const struct cli_strv *allow, char **why);
/* x's layers widened by p, for an escalation into p (cli_profile_sandbox). */
struct shellesc_sandbox *mcp_sbx_build_profile(const struct mcp_sbx *x,
    const struct cli_profile *p);
void mcp_sbx_ask_roots(struct mcp *m);
void mcp_sbx_roots(struct mcp *m, json_t *answer);
void mcp_sbx_announce(struct mcp *m);

#endif /* SHELLESC_CLI_MCP_H */
