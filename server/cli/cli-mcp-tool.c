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
#include <time.h>
#include <unistd.h>

#include "cli-mcp.h"
#include "clock.h"

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
	cli_audit_call_free(&call->audit);
	mcp_ask_free(call);
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
	if (json_object_get(args, "workdir") == NULL)
		return "workdir is required: the absolute path the command starts in";
	if ((call->workdir = mcp_arg_str(args, "workdir")) == NULL || call->workdir[0] != '/')
		return "workdir must be an absolute path";
	if (t != NULL && !json_is_null(t) && (!json_is_integer(t) || json_integer_value(t) < 0))
		return "timeout_ms must be a non-negative integer or null";
	if (l != NULL && !json_is_null(l) && !json_is_boolean(l))
		return "login must be a boolean or null";
	/* none: --default-timeout; 0: no timeout (the reference: at once);
	 * beyond an int of milliseconds: 24 days */
	call->timeout_ms = json_is_integer(t) ? (int)(json_integer_value(t) > INT_MAX ?
	    INT_MAX : json_integer_value(t)) : call->m->c->o.default_timeout_ms;
	call->login = !json_is_false(l);
	return mcp_ask_args(call, args);	/* beyond the reference's */
}

/* An escalated command of call's ended: the audit's end line is the call's. */
static void
mcp_ended(void *arg, const struct shellesc_request *req, int exit_code, int sig,
    double seconds)
{
	struct mcp_call *call = arg;

	cli_audit_end(call->m->c, &call->audit, req, exit_code, sig, seconds);
	cli_debug(call->m->c, 1, "escalated command %llu ended (status %d, signal %d)",
	    (unsigned long long)shellesc_request_id(req), exit_code, sig);
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
	cli_audit_call_init(&call->audit);
	call->audit.call = json_incref(id);
	pthread_mutex_lock(&m->mu);
	call->audit.client = m->client ? strdup(m->client) : NULL;
	call->audit.client_version = m->client_version ? strdup(m->client_version) : NULL;
	pthread_mutex_unlock(&m->mu);
	atomic_init(&call->refs, 1);	/* its thread's, dropped once joined */
	atomic_init(&call->cancelled, false);
	pthread_mutex_init(&call->mu, NULL);
	call->id = json_incref(id);
	if (json_is_string(token) || json_is_integer(token))
		call->token = json_incref(token);
	call->started = call->ticked = clock_now_ms();
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

/* What an errno of fork(2), clone(2) or pthread_create(3) means here. */
static const char *
mcp_errno_hint(int e)
{
	return e == EAGAIN ? " (no new process or thread: the user's process limit, "
	    "RLIMIT_NPROC, or the system's is reached)" : "";
}

/* Start the call's session, run its command in it, end the session. */
/* An escalation into a profile: the call's sandbox widened by it. */
static int
mcp_profile_prepare(void *arg, const struct shellesc_request *req,
    const struct shellesc_decision *d, struct shellesc_prepared *p)
{
	struct mcp_call *call = arg;

	(void)req;
	if (d->action != SHELLESC_ESCALATE || d->mode != SHELLESC_MODE_PROFILE)
		return 0;
	if (d->profile == NULL)
		return -EPERM;		/* never unsandboxed instead */
	p->sandbox = mcp_sbx_build_profile(call->sbx, d->profile);
	return p->sandbox == NULL ? -EPERM : 0;
}

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
	cfg.ended = mcp_ended;
	cfg.ended_arg = call;
	cfg.prepare = mcp_profile_prepare;	/* the call's own sandbox, widened */
	cfg.prepare_arg = call;
	cfg.writable = call->sbx != NULL && call->sbx->n > 0 ? writable.v : NULL;
	r = shellesc_session_start(&cfg, &s);
	cli_strv_free(&writable);	/* the session made its own copy */
	if (r != 0) {
		if (asprintf(why, "cannot start a session: %s%s", strerror(-r),
		    mcp_errno_hint(-r)) < 0)
			*why = NULL;
		return -1;
	}
	r = mcp_call_attach(call, s) ? shellesc_session_exec(s, p, res) : -ECANCELED;
	mcp_call_attach(call, NULL);
	shellesc_session_end(s);
	if (r != 0 && asprintf(why, "cannot run %s: %s%s", call->m->c->o.shell ?
	    call->m->c->o.shell : "/bin/bash", strerror(-r), mcp_errno_hint(-r)) < 0)
		*why = NULL;
	return r == 0 ? 0 : -1;
}

/*
 * The environment of the call's shell, built as an escalated command's
 * (shellesc_env_build): the server's own PATH, HOME, TMPDIR..., the
 * plain locale and terminal variables, and what --pass-env names; never
 * the rest of the server's, where an agent's harness keeps its API keys.
 * Only the command line chooses: no tool argument adds to it.
 */
static char **
mcp_call_env(struct mcp_call *call, char **why)
{
	struct shellesc_config cfg;
	char **env = NULL;

	if (cli_setup_config(call->m->c, &cfg) == 0) {
		cfg.session_env = NULL;	/* ours as it is now: the sandbox's TMPDIR */
		env = shellesc_env_build(&cfg, NULL);
	}
	if (env == NULL)
		*why = strdup("cannot build the shell's environment (shellesc's stderr says why)");
	return env;
}

static int
mcp_call_run(struct mcp_call *call, struct shellesc_exec_result *res, char **why)
{
	struct shellesc_exec_params p = { .command = call->command, .workdir = call->workdir,
	    .timeout_ms = call->timeout_ms, .login = call->login,
	    .max_output = call->m->c->o.max_output, .one_pipe = 1 };	/* output only */
	struct shellesc_sandbox *sb = NULL;
	char **env = NULL;
	int r = -1;

	p.shell = call->m->c->o.shell ? call->m->c->o.shell : "/bin/bash";
	/* what the shell's spawn would have said, had it been ours */
	if (access(p.shell, X_OK) != 0) {
		if (asprintf(why, "cannot run %s: %s", p.shell, strerror(errno)) < 0)
			*why = NULL;
		return -1;
	}
	if (mcp_call_workdir(call, why) == 0 && (env = mcp_call_env(call, why)) != NULL &&
	    (sb = mcp_sbx_build(call->sbx, cli_setup_sandbox_flags(call->m->c),
	    &call->m->c->o.allow_socket, why)) != NULL) {
		p.sandbox = sb;
		p.env = env;
		r = mcp_call_exec(call, &p, res, why);
	}
	shellesc_sandbox_free(sb);
	shellesc_env_free(env);
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

/*
 * A slot among --max-calls: wait for one (the reference runs every call
 * at once), but not forever, and not once the call is cancelled.  true:
 * call runs, and gives the slot back with mcp_call_slot_free.
 */
static bool
mcp_call_slot(struct mcp_call *call)
{
	struct mcp *m = call->m;
	int64_t deadline = clock_now_ms() + MCP_WAIT_MS;
	bool got;

	pthread_mutex_lock(&m->mu);
	while (m->active >= (size_t)m->c->o.max_calls && !atomic_load(&call->cancelled) &&
	    clock_now_ms() < deadline) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);	/* the condition's clock */
		ts.tv_nsec += 250 * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_cond_timedwait(&m->cv, &m->mu, &ts);
	}
	got = m->active < (size_t)m->c->o.max_calls && !atomic_load(&call->cancelled);
	m->active += got;
	pthread_mutex_unlock(&m->mu);
	return got;
}

static void
mcp_call_slot_free(struct mcp *m)
{
	pthread_mutex_lock(&m->mu);
	m->active--;
	pthread_cond_broadcast(&m->cv);
	pthread_mutex_unlock(&m->mu);
}

static void *
mcp_call_main(void *arg)
{
	struct mcp_call *call = arg;
	struct mcp *m = call->m;
	struct shellesc_exec_result res = { 0 };
	char *why = NULL;
	int r = -1;

	if (mcp_call_slot(call)) {
		r = mcp_call_run(call, &res, &why);
		mcp_call_slot_free(m);
	} else if (asprintf(&why, "too many shell commands are running (--max-calls %d): "
	    "none finished within %d s", m->c->o.max_calls, MCP_WAIT_MS / 1000) < 0)
		why = NULL;

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

/* Start call's thread, if there is room (it may wait for a slot to run
 * in): 0; -1 when max_calls run and MCP_WAITING_MAX wait; else
 * pthread_create's error (EAGAIN: the process limit). */
static int
mcp_call_start(struct mcp *m, struct mcp_call *call)
{
	int e = -1;

	pthread_mutex_lock(&m->mu);
	if (m->running < (size_t)m->c->o.max_calls + MCP_WAITING_MAX &&
	    (e = pthread_create(&call->thread, NULL, mcp_call_main, call)) == 0) {
		call->next = m->calls;
		m->calls = call;
		m->running++;
	}
	pthread_mutex_unlock(&m->mu);
	if (e > 0)
		cli_debug(m->c, 1, "mcp: no thread for a call: %s", strerror(e));
	return e;
}

/* Why a call could not start, from mcp_call_start's e. */
static void
mcp_call_unstarted(const struct mcp *m, char *why, size_t n, int e)
{
	if (e < 0)
		snprintf(why, n, "too many shell commands are running or waiting (%d); "
		    "try again when one has finished", m->c->o.max_calls + MCP_WAITING_MAX);
	else
		snprintf(why, n, "cannot start a thread for the call: %s%s", strerror(e),
		    mcp_errno_hint(e));
}

void
mcp_tool_call(struct mcp *m, json_t *id, json_t *params)
{
	const char *name = json_string_value(json_object_get(params, "name"));
	struct mcp_call *call;
	const char *bad;
	char why[256], *unknown;
	int e;

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
	call->audit.command = strdup(call->command);	/* NULL: null in the log */
	if ((unknown = mcp_ask_unknown(call)) != NULL) {
		/* nothing runs: the agent learns at once that its name is wrong */
		mcp_reply(m, id, mcp_tool_error(unknown));
		free(unknown);
		mcp_call_unref(call);
		return;
	}
	call->sbx = mcp_sbx_get(m);	/* the sandbox as of now, for the whole call */
	if ((e = mcp_call_start(m, call)) != 0) {
		mcp_call_unstarted(m, why, sizeof(why), e);
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
	pthread_cond_broadcast(&m->cv);	/* a call waiting for a slot stops waiting */
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
	pthread_cond_broadcast(&m->cv);
	while (m->running > 0)
		pthread_cond_wait(&m->cv, &m->mu);
	pthread_mutex_unlock(&m->mu);
	mcp_tool_reap(m);
}
