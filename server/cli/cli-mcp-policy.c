/*
 * cli-mcp-policy.c: what mcp decides for each exec of a call's shell, with
 * the reference's words.  The rules decide as for shellesc run (Codex's
 * allow escalates, forbidden denies: "Execution forbidden by policy"); a
 * prompt goes to the --approver when there is one, else to the client as
 * an elicitation/create worded by cli_question (cli-question.c) (accept
 * escalates; decline and cancel deny: "User declined execution", "User
 * cancelled execution"), else -- a client that cannot be asked -- it is
 * denied, saying why.
 *
 * Every decision worth telling (a rule matched, or not run in place) is
 * kept for the call's result and sent as notifications/message; each
 * answer passes through mcp_answered (cli_verdict.answered), which also
 * drops the reference the request held on its call.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-mcp.h"
#include "clock.h"

/* Keep d for the call's result; false once the result is out. */
static bool
mcp_record(struct mcp_call *call, json_t *d)
{
	bool open;
	json_t *brief;

	pthread_mutex_lock(&call->mu);
	open = !call->done;
	if (open && json_array_size(call->decisions) < MCP_DECISIONS_MAX &&
	    (brief = mcp_decision_brief(d)) != NULL)
		json_array_append_new(call->decisions, brief);
	else if (open)
		call->decisions_dropped++;
	pthread_mutex_unlock(&call->mu);
	return open;
}

/* "escalated /usr/bin/id", for progress messages. */
static char *
mcp_said(const struct shellesc_request *req, enum shellesc_action a)
{
	static const char *const done[] = { "ran", "escalated", "denied" };
	const struct shellesc_target *t = shellesc_request_target(req);
	/* what ran, or would have: the real path, as the question names it */
	char *cmd = cli_show_argv(t->path ? t->path : shellesc_request_program(req),
	    t->argv ? t->argv : shellesc_request_argv(req));
	char *s = NULL;

	if (cmd && asprintf(&s, "%s %s", done[a], cmd) < 0)
		s = NULL;
	free(cmd);
	return s;
}

/* Loop, prompt or main thread, just before the request is answered. */
static void
mcp_answered(void *arg, const struct shellesc_request *req, const struct cli_verdict *v,
    enum shellesc_action a, const char *reason)
{
	static const char *const levels[] = { "info", "notice", "warning" };
	struct mcp_call *call = arg;
	json_t *d;
	char *said;

	if ((a != SHELLESC_RUN || v->rule != RULES_NONE) && !atomic_load(&call->cancelled) &&
	    (d = cli_json_decision(req, v, a, reason)) != NULL) {
		if (mcp_record(call, d)) {
			mcp_log(call->m, levels[a], json_pack("{s:O, s:O}", "call", call->id,
			    "decision", d));
			said = mcp_said(req, a);
			mcp_call_progress(call, clock_now_ms(), said);
			free(said);
		}
		json_decref(d);
	}
	mcp_call_unref(call);
}

/* Deny with the reference's reason, or answer as decided. */
static void
mcp_answer(struct mcp_call *call, struct shellesc_request *req, struct cli_verdict *v,
    enum shellesc_action a)
{
	if (a == SHELLESC_DENY && v->reason == NULL && v->rule == RULES_NONE)
		cli_verdict_deny(v, NULL, "Execution forbidden by policy (no rule matched, and "
		    "--default is deny)");
	else if (a == SHELLESC_DENY && v->reason == NULL && v->justification)
		cli_verdict_deny(v, NULL, "Execution forbidden by policy: %s", v->justification);
	else if (a == SHELLESC_DENY && v->reason == NULL)
		cli_verdict_deny(v, NULL, "Execution forbidden by policy");
	cli_policy_answer(call->m->c, req, v, a);
}

/* The suggested rule of what the call asked, when keeping it can be
 * offered (the learned file can be written): its line, malloc'd; NULL. */
static char *
mcp_keep_offer(struct cli *c, const struct cli_verdict *v)
{
	bool ok;

	if (v->ask == NULL || v->ask->prefix_rule == NULL)
		return NULL;
	cli_rules_always_file(c, &ok);
	return ok ? cli_rules_keep_text(v->ask) : NULL;
}

static json_t *
mcp_elicit_request(struct cli *c, json_int_t id, const struct shellesc_request *req,
    const struct cli_verdict *v)
{
	char *rule = mcp_keep_offer(c, v);
	char *msg = cli_question_asked(req, v->justification, v->profile, v->ask, rule);
	json_t *j = NULL, *props;

	if (msg != NULL)
		j = json_pack("{s:s, s:I, s:s, s:{s:o, s:{s:s, s:s, s:{s:{s:s, s:s}}}}}",
		    "jsonrpc", "2.0", "id", id, "method", "elicitation/create",
		    "params", "message", cli_json_lossy(msg, strlen(msg)),
		    "requestedSchema", "type", "object", "title", "Execution Permission Request",
		    "properties", "reason", "type", "string", "description",
		    "Optional reason for allowing or denying execution");
	props = json_object_get(json_object_get(json_object_get(j, "params"),
	    "requestedSchema"), "properties");
	/* offered only with a suggested rule: accept alone runs it once */
	if (props != NULL && rule != NULL)
		json_object_set_new(props, "keep_rule", json_pack("{s:s, s:s, s:b}", "type",
		    "boolean", "description", "Keep the suggested rule: the command escalates "
		    "from now on without asking", "default", 0));
	free(rule);
	free(msg);
	return j;
}

/* Ask the client; its answer comes to mcp_elicit_answer on the main thread. */
static void
mcp_elicit(struct mcp_call *call, struct shellesc_request *req, struct cli_verdict *v)
{
	struct mcp *m = call->m;
	struct mcp_pending *p = calloc(1, sizeof(*p));
	json_t *msg;

	if (p == NULL) {
		cli_verdict_deny(v, "error", "out of memory to ask for approval");
		mcp_answer(call, req, v, SHELLESC_DENY);
		return;
	}
	p->call = call;
	p->req = req;
	p->v = *v;
	p->v.asked = "client";
	p->deadline = cli_prompt_deadline(m->c);
	pthread_mutex_lock(&m->mu);
	p->id = m->next_id++;
	msg = mcp_elicit_request(m->c, p->id, req, &p->v);
	p->next = m->pending;
	m->pending = p;
	pthread_mutex_unlock(&m->mu);
	mcp_send(m, msg);	/* if the client is gone, shutting down drops p */
}

/* A question's answer: one fewer open for its call. */
static void
mcp_question_answered(void *arg, const struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action a, const char *reason)
{
	struct mcp_call *call = arg;

	atomic_fetch_sub(&call->questions, 1);
	mcp_answered(arg, req, v, a, reason);
}

/* Room for one more question of call: at most MCP_QUESTIONS_MAX open at
 * once, so one call's background jobs cannot bury the user (or the
 * --approver's queue) in questions, nor crowd out another call's.  Past
 * that the request is denied, saying why, rather than queued: a queue
 * would only move the flood. */
static bool
mcp_question_room(struct mcp_call *call, struct cli_verdict *v)
{
	if (atomic_fetch_add(&call->questions, 1) < MCP_QUESTIONS_MAX) {
		v->answered = mcp_question_answered;
		return true;
	}
	atomic_fetch_sub(&call->questions, 1);
	cli_verdict_deny(v, "refused", "Execution needs the user's approval, but this tool "
	    "call already has %d questions open, the most it may; run it again once they "
	    "are answered", MCP_QUESTIONS_MAX);
	return false;
}

static void
mcp_ask(struct mcp_call *call, struct shellesc_request *req, struct cli_verdict *v)
{
	struct mcp *m = call->m;

	if (!mcp_question_room(call, v))
		mcp_answer(call, req, v, SHELLESC_DENY);
	else if (m->c->o.approver)
		cli_prompt_push(m->c, req, v);
	else if (atomic_load(&m->can_elicit))
		mcp_elicit(call, req, v);
	else {
		cli_verdict_deny(v, "unasked", "Execution needs the user's approval, but this MCP "
		    "client cannot ask for it (it declared no elicitation capability) and "
		    "shellesc mcp has no --approver");
		mcp_answer(call, req, v, SHELLESC_DENY);
	}
}

void
mcp_policy(void *arg, struct shellesc_request *req)
{
	struct mcp_call *call = arg;
	struct cli_verdict v = { .rule = RULES_NONE, .effective = RULES_DENY,
	    .answered = mcp_answered, .answered_arg = call, .audit = &call->audit };

	mcp_call_ref(call);
	if (atomic_load(&call->cancelled)) {
		cli_verdict_deny(&v, NULL, "The tool call was cancelled");
		mcp_answer(call, req, &v, SHELLESC_DENY);
		return;
	}
	v.ask = mcp_ask_for(call, req);	/* what the call asked for, if it applies */
	cli_policy_decide_asked(call->m->c, req, &v);
	if (v.reason != NULL)
		mcp_answer(call, req, &v, SHELLESC_DENY);
	else if (v.effective == RULES_PROMPT)
		mcp_ask(call, req, &v);
	else
		mcp_answer(call, req, &v, v.effective == RULES_ESCALATE ? SHELLESC_ESCALATE :
		    v.effective == RULES_RUN ? SHELLESC_RUN : SHELLESC_DENY);
}

/* Take the pending elicitation with this id out of the list. */
static struct mcp_pending *
mcp_pending_take(struct mcp *m, json_int_t id)
{
	struct mcp_pending **pp, *p = NULL;

	pthread_mutex_lock(&m->mu);
	for (pp = &m->pending; *pp && (*pp)->id != id; pp = &(*pp)->next)
		;
	if ((p = *pp) != NULL)
		*pp = p->next;
	pthread_mutex_unlock(&m->mu);
	return p;
}

/* Accepted with keep_rule true: the suggested rule goes to the learned
 * file (a rule that cannot be written still lets this command run). */
static void
mcp_elicit_keep(struct mcp_pending *p, json_t *content)
{
	char *offered;

	if (!json_is_true(json_object_get(content, "keep_rule")))
		return;
	/* only what was offered: a rule, and a file to write it to */
	if ((offered = mcp_keep_offer(p->call->m->c, &p->v)) != NULL &&
	    cli_rules_keep(p->call->m->c, p->v.ask) == 0)
		p->v.answer = "accept, rule kept";
	free(offered);
}

/* The client's answer: accept escalates, anything else denies. */
static enum shellesc_action
mcp_elicit_result(struct mcp_pending *p, json_t *msg)
{
	json_t *res = json_object_get(msg, "result");
	const char *action = json_string_value(json_object_get(res, "action"));
	const char *why = json_string_value(json_object_get(json_object_get(res, "content"),
	    "reason"));
	const char *err = json_string_value(json_object_get(json_object_get(msg, "error"),
	    "message"));

	if (action && strcmp(action, "accept") == 0) {
		p->v.answer = "accept";
		mcp_elicit_keep(p, json_object_get(res, "content"));
		return SHELLESC_ESCALATE;
	}
	if (action && (strcmp(action, "decline") == 0 || strcmp(action, "cancel") == 0))
		cli_verdict_deny(&p->v, action[0] == 'd' ? "decline" : "cancel", "User %s "
		    "execution%s%.500s", action[0] == 'd' ? "declined" : "cancelled",
		    why && *why ? ": " : "", why ? why : "");
	else if (res == NULL)
		cli_verdict_deny(&p->v, "error", "The MCP client could not ask the user: %.500s",
		    err ? err : "an error without a message");
	else
		cli_verdict_deny(&p->v, "error", "The MCP client answered the approval request "
		    "with no known action (accept, decline or cancel)");
	return SHELLESC_DENY;
}

void
mcp_elicit_answer(struct mcp *m, json_t *msg)
{
	json_t *id = json_object_get(msg, "id");
	struct mcp_pending *p = json_is_integer(id) ?
	    mcp_pending_take(m, json_integer_value(id)) : NULL;
	enum shellesc_action a;

	if (p == NULL) {
		cli_debug(m->c, 1, "mcp: an answer to no request of ours; ignored");
		return;
	}
	a = mcp_elicit_result(p, msg);
	mcp_answer(p->call, p->req, &p->v, a);
	free(p);
}

/* Deny p, and tell the client to stop asking. */
static void
mcp_pending_deny(struct mcp *m, struct mcp_pending *p, const char *answer, const char *why)
{
	mcp_notify(m, "notifications/cancelled", json_pack("{s:I, s:s}", "requestId", p->id,
	    "reason", why));
	cli_verdict_deny(&p->v, answer, "%s", why);
	mcp_answer(p->call, p->req, &p->v, SHELLESC_DENY);
	free(p);
}

/* Take the pending elicitations that match out of the list. */
static struct mcp_pending *
mcp_pending_filter(struct mcp *m, struct mcp_call *call, int64_t now)
{
	struct mcp_pending **pp = &m->pending, *out = NULL, *p;

	pthread_mutex_lock(&m->mu);
	while ((p = *pp) != NULL) {
		if ((now && p->deadline <= now) || (!now && (call == NULL || p->call == call))) {
			*pp = p->next;
			p->next = out;
			out = p;
		} else
			pp = &p->next;
	}
	pthread_mutex_unlock(&m->mu);
	return out;
}

void
mcp_elicit_expire(struct mcp *m, int64_t now)
{
	struct mcp_pending *p = mcp_pending_filter(m, NULL, now), *next;
	char why[128];

	snprintf(why, sizeof(why), "No answer from the user in time (--prompt-timeout %d)",
	    m->c->o.prompt_timeout);
	for (; p; p = next) {
		next = p->next;
		mcp_pending_deny(m, p, "timeout", why);
	}
}

void
mcp_elicit_drop(struct mcp *m, struct mcp_call *call, const char *why)
{
	struct mcp_pending *p = mcp_pending_filter(m, call, 0), *next;

	for (; p; p = next) {
		next = p->next;
		mcp_pending_deny(m, p, "abandoned", why);
	}
}
