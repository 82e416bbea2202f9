/*
 * cli-mcp-tool.c: tools/call of the shell tool.  Each call runs on a
 * thread of its own, in a session of its own, so calls run side by side
 * and a cancel (notifications/cancelled, or the client going away) ends
 * exactly one call's shell and escalated commands
 * (shellesc_session_cancel).  A cancelled call gets no response, as the
 * protocol asks.  The main thread sends progress for calls that asked for
 * it, and joins the threads of finished calls.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-mcp.h"

#define MCP_TICK_EVERY_MS	1000	/* between progress notifications */

void
mcp_call_ref(struct mcp_call *call)
{
	atomic_fetch_add(&call->refs, 1);
}

void
mcp_call_unref(struct mcp_call *call)
{
	if (call == NULL || atomic_fetch_sub(&call->refs, 1) != 1)
		return;
	json_decref(call->id);
	json_decref(call->token);
	json_decref(call->decisions);
	mcp_sbx_unref(call->sbx);
	free(call->command);
	free(call->workdir);
	pthread_mutex_destroy(&call->mu);
	free(call);
}

/*
 * notifications/progress, if the call asked for it and is not over: with
 * message, now; without, a tick saying how long it has run, once a
 * second.  The value (seconds since the call began) only ever grows.
 */
void
mcp_call_progress(struct mcp_call *call, int64_t now, const char *message)
{
	char running[64];
	double at = (double)(now - call->started) / 1000.0;

	if (call->token == NULL)
		return;
	snprintf(running, sizeof(running), "running for %lld s",
	    (long long)(now - call->started) / 1000);
	if (message == NULL)
		message = running;
	pthread_mutex_lock(&call->mu);
	if (!call->done && (message != running || now - call->ticked >= MCP_TICK_EVERY_MS)) {
		call->progress = at > call->progress ? at : call->progress + 0.001;
		call->ticked = now;
		mcp_notify(call->m, "notifications/progress", json_pack("{s:O, s:f, s:o}",
		    "progressToken", call->token, "progress", call->progress, "message",
		    cli_json_lossy(message, strlen(message))));
	}
	pthread_mutex_unlock(&call->mu);
}

/* A string argument without NUL bytes, or NULL. */
static char *
mcp_arg_str(json_t *args, const char *name)
{
	json_t *j = json_object_get(args, name);
	const char *s = json_string_value(j);

	return s && strlen(s) == json_string_length(j) ? strdup(s) : NULL;
}

/* The arguments into call; a message for -32602 on error. */
static const char *
mcp_args(struct mcp_call *call, json_t *args)
{
	json_t *t = json_object_get(args, "timeout_ms"), *l = json_object_get(args, "login");

	if (args != NULL && !json_is_object(args))
		return "arguments must be an object";
	if ((call->command = mcp_arg_str(args, "command")) == NULL)
		return "command must be a string (without NUL bytes)";
	if ((call->workdir = mcp_arg_str(args, "workdir")) == NULL || call->workdir[0] != '/')
		return "workdir must be an absolute path";
	if (t != NULL && !json_is_null(t) && (!json_is_integer(t) || json_integer_value(t) < 0))
		return "timeout_ms must be a non-negative integer or null";
	if (l != NULL && !json_is_null(l) && !json_is_boolean(l))
		return "login must be a boolean or null";
	/* 0 or none: no timeout; beyond an int of milliseconds: 24 days */
	call->timeout_ms = json_is_integer(t) ? (int)(json_integer_value(t) > INT_MAX ?
	    INT_MAX : json_integer_value(t)) : 0;
	call->login = !json_is_false(l);
	return NULL;
}

static struct mcp_call *
mcp_call_new(struct mcp *m, json_t *id, json_t *params)
{
	struct mcp_call *call = calloc(1, sizeof(*call));
	json_t *token = json_object_get(json_object_get(params, "_meta"), "progressToken");

	if (call == NULL || (call->decisions = json_array()) == NULL) {
		free(call);
		return NULL;
	}
	call->m = m;
	atomic_init(&call->refs, 1);	/* its thread's, dropped once joined */
	atomic_init(&call->cancelled, false);
	pthread_mutex_init(&call->mu, NULL);
	call->id = json_incref(id);
	if (json_is_string(token) || json_is_integer(token))
		call->token = json_incref(token);
	call->started = call->ticked = cli_now_ms();
	return call;
}

/* While the exec may be cancelled, cancel finds the session here. */
static bool
mcp_call_attach(struct mcp_call *call, struct shellesc_session *s)
{
	struct mcp *m = call->m;
	bool go;

	pthread_mutex_lock(&m->mu);
	go = s == NULL || !atomic_load(&call->cancelled);
	call->s = go ? s : NULL;
	pthread_mutex_unlock(&m->mu);
	return go;
}

static int
mcp_call_workdir(struct mcp_call *call, char **why)
{
	struct stat st;
	int r = -1;

	if (stat(call->workdir, &st) != 0)
		r = asprintf(why, "workdir %s: %s", call->workdir, strerror(errno));
	else if (!S_ISDIR(st.st_mode))
		r = asprintf(why, "workdir %s: not a directory", call->workdir);
	else
		return 0;
	if (r < 0)
		*why = NULL;
	return -1;
}

/* Every directory a layer of the call's sandbox lets the shell write: no
 * program beneath one is escalated by its name (shellesc_config.writable).
 * Layers stack, so their union is more than the shell may write: never
 * less. */
static int
mcp_call_writable(const struct mcp_call *call, struct cli_strv *all)
{
	for (size_t i = 0; call->sbx != NULL && i < call->sbx->n; i++)
		for (size_t k = 0; k < call->sbx->layer[i].writable.n; k++)
			if (cli_strv_add(all, call->sbx->layer[i].writable.v[k]) != 0)
				return cli_oom();
	return 0;
}

/* Start the call's session, run its command in it, end the session. */
static int
mcp_call_exec(struct mcp_call *call, struct shellesc_exec_params *p,
    struct shellesc_exec_result *res, char **why)
{
	struct shellesc_config cfg;
	struct shellesc_session *s;
	struct cli_strv writable = { 0 };
	int r;

	if (cli_setup_config(call->m->c, &cfg) != 0 || mcp_call_writable(call, &writable) != 0) {
		cli_strv_free(&writable);
		*why = strdup("the exec wrapper or preload library is missing "
		    "(shellesc's stderr says which)");
		return -1;
	}
	cfg.policy = mcp_policy;
	cfg.policy_arg = call;
	cfg.writable = call->sbx != NULL && call->sbx->n > 0 ? writable.v : NULL;
	r = shellesc_session_start(&cfg, &s);
	cli_strv_free(&writable);	/* the session made its own copy */
	if (r != 0) {
		if (asprintf(why, "cannot start a session: %s", strerror(-r)) < 0)
			*why = NULL;
		return -1;
	}
	r = mcp_call_attach(call, s) ? shellesc_session_exec(s, p, res) : -ECANCELED;
	mcp_call_attach(call, NULL);
	shellesc_session_end(s);
	if (r != 0 && asprintf(why, "cannot run %s: %s", call->m->c->o.shell ?
	    call->m->c->o.shell : "/bin/bash", strerror(-r)) < 0)
		*why = NULL;
	return r == 0 ? 0 : -1;
}

static int
mcp_call_run(struct mcp_call *call, struct shellesc_exec_result *res, char **why)
{
	struct shellesc_exec_params p = { .command = call->command, .workdir = call->workdir,
	    .timeout_ms = call->timeout_ms, .login = call->login,
	    .max_output = call->m->c->o.max_output };
	char self[PATH_MAX], **env = NULL, *entry = NULL;
	int r = -1;

	p.shell = call->m->c->o.shell ? call->m->c->o.shell : "/bin/bash";
	/* what the shell's spawn would have said, had it been ours */
	if (access(p.shell, X_OK) != 0) {
		if (asprintf(why, "cannot run %s: %s", p.shell, strerror(errno)) < 0)
			*why = NULL;
		return -1;
	}
	if (mcp_call_workdir(call, why) == 0 &&
	    mcp_sbx_exec(call->sbx, &p.shell, self, sizeof(self), &env, &entry, why) == 0) {
		p.env = env;
		r = mcp_call_exec(call, &p, res, why);
	}
	free(env);
	free(entry);
	return r;
}

static void
mcp_call_respond(struct mcp_call *call, int r, const struct shellesc_exec_result *res,
    const char *why)
{
	json_t *result;

	pthread_mutex_lock(&call->mu);
	call->done = true;
	pthread_mutex_unlock(&call->mu);
	if (atomic_load(&call->cancelled))
		return;
	result = r == 0 ? mcp_result(call, res) : mcp_tool_error(why ? why : "out of memory");
	cli_debug(call->m->c, 1, "mcp: call done%s%s", r ? ": " : "", r && why ? why : "");
	mcp_reply(call->m, call->id, result);
}

static void *
mcp_call_main(void *arg)
{
	struct mcp_call *call = arg;
	struct mcp *m = call->m;
	struct shellesc_exec_result res = { 0 };
	char *why = NULL;
	int r = mcp_call_run(call, &res, &why);

	/* the session is over: what still waits for the client is moot */
	mcp_elicit_drop(m, call, "The tool call ended before the user answered");
	mcp_call_respond(call, r, &res, why);
	if (r == 0)
		shellesc_exec_result_free(&res);
	free(why);
	pthread_mutex_lock(&m->mu);
	call->finished = true;
	m->running--;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
	return NULL;
}

/* Start call's thread, if there is room; false: nothing started. */
static bool
mcp_call_start(struct mcp *m, struct mcp_call *call)
{
	int e = EAGAIN;

	pthread_mutex_lock(&m->mu);
	if (m->running < MCP_CALLS_MAX &&
	    (e = pthread_create(&call->thread, NULL, mcp_call_main, call)) == 0) {
		call->next = m->calls;
		m->calls = call;
		m->running++;
	}
	pthread_mutex_unlock(&m->mu);
	if (e != 0)
		cli_debug(m->c, 1, "mcp: no thread for a call: %s", strerror(e));
	return e == 0;
}

void
mcp_tool_call(struct mcp *m, json_t *id, json_t *params)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	struct mcp_call *call;
	const char *bad;
	char why[128];

	if (name == NULL || strcmp(name, "shell") != 0) {
		mcp_error(m, id, MCP_BAD_PARAMS, "Unknown tool: %.200s (this server has one "
		    "tool, shell)", name ? name : "(no name)");
		return;
	}
	if ((call = mcp_call_new(m, id, params)) == NULL) {
		mcp_error(m, id, MCP_INTERNAL, "out of memory");
		return;
	}
	if ((bad = mcp_args(call, json_object_get(params, "arguments"))) != NULL) {
		mcp_error(m, id, MCP_BAD_PARAMS, "Invalid arguments for tool shell: %s", bad);
		mcp_call_unref(call);
		return;
	}
	call->sbx = mcp_sbx_get(m);	/* the sandbox as of now, for the whole call */
	if (!mcp_call_start(m, call)) {
		snprintf(why, sizeof(why), "too many shell commands are running (%d); "
		    "try again when one has finished", MCP_CALLS_MAX);
		mcp_reply(m, id, mcp_tool_error(why));
		mcp_call_unref(call);
	}
}

void
mcp_tool_cancel(struct mcp *m, json_t *request_id)
{
	pthread_mutex_lock(&m->mu);
	for (struct mcp_call *call = m->calls; request_id && call; call = call->next)
		if (!call->finished && json_equal(call->id, request_id)) {
			cli_debug(m->c, 1, "mcp: call cancelled by the client");
			atomic_store(&call->cancelled, true);
			if (call->s)
				shellesc_session_cancel(call->s);
		}
	pthread_mutex_unlock(&m->mu);
}

/* Join the threads of finished calls and let them go. */
static void
mcp_tool_reap(struct mcp *m)
{
	struct mcp_call **pp = &m->calls, *done = NULL, *call;

	pthread_mutex_lock(&m->mu);
	while ((call = *pp) != NULL) {
		if (call->finished) {
			*pp = call->next;
			call->next = done;
			done = call;
		} else
			pp = &call->next;
	}
	pthread_mutex_unlock(&m->mu);
	while ((call = done) != NULL) {
		done = call->next;
		pthread_join(call->thread, NULL);
		mcp_call_unref(call);
	}
}

void
mcp_tool_tick(struct mcp *m, int64_t now)
{
	pthread_mutex_lock(&m->mu);
	for (struct mcp_call *call = m->calls; call; call = call->next)
		if (!call->finished)
			mcp_call_progress(call, now, NULL);
	pthread_mutex_unlock(&m->mu);
	mcp_tool_reap(m);
}

/* The client is gone: end every call's commands, wait for their threads. */
void
mcp_tool_end_all(struct mcp *m)
{
	pthread_mutex_lock(&m->mu);
	for (struct mcp_call *call = m->calls; call; call = call->next) {
		atomic_store(&call->cancelled, true);
		if (call->s)
			shellesc_session_cancel(call->s);
	}
	while (m->running > 0)
		pthread_cond_wait(&m->cv, &m->mu);
	pthread_mutex_unlock(&m->mu);
	mcp_tool_reap(m);
}
