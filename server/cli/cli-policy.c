/*
 * cli-policy.c: the session's callbacks.  The policy runs on the session's
 * loop thread and must not block, so it decides from the rules at once
 * and hands a prompt to the prompt thread (cli-prompt.c), which answers
 * through cli_policy_answer() later.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static enum shellesc_action
cli_policy_action(enum rules_decision d)
{
	if (d == RULES_ESCALATE)
		return SHELLESC_ESCALATE;
	if (d == RULES_RUN)
		return SHELLESC_RUN;
	return SHELLESC_DENY;
}

void
cli_policy(void *arg, struct shellesc_request *req)
{
	struct cli *c = arg;
	struct cli_verdict v = { 0 };

	cli_rules_decide(c, shellesc_request_program(req), shellesc_request_argv(req),
	    shellesc_request_flags(req), &v);
	if (v.effective == RULES_PROMPT)
		cli_prompt_push(c, req, &v);
	else
		cli_policy_answer(c, req, &v, cli_policy_action(v.effective));
}

/* Why a command is denied, shown by the client as "execution denied: ...". */
static char *
cli_policy_reason(const struct cli *c, const struct cli_verdict *v)
{
	char *s = NULL;

	if (v->reason)
		return strdup(v->reason);
	if (v->rule == RULES_DENY && v->justification)
		return strdup(v->justification);
	if (v->rule != RULES_NONE && asprintf(&s, "denied by the rule at %s",
	    v->source ? v->source : "(unknown)") >= 0)
		return s;
	return strdup("no rule allows this command (--default deny)");
}

static void
cli_policy_report(struct cli *c, struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action a, const char *reason)
{
	char *cmd;

	if (c->o.verbose < 1)
		return;
	cmd = cli_show_argv(shellesc_request_program(req), shellesc_request_argv(req));
	cli_debug(c, 1, "%s %s: %s%s%s%s%s", cli_action_name(a), cmd ? cmd : "?",
	    v->source ? v->source : "no rule matched", v->asked ? ", asked the " : "",
	    v->asked ? v->asked : "", reason ? ": " : "", reason ? reason : "");
	free(cmd);
}

/* Answer req with a, audit it, and free v.  Any thread. */
void
cli_policy_answer(struct cli *c, struct shellesc_request *req,
    struct cli_verdict *v, enum shellesc_action a)
{
	struct shellesc_decision d = { .action = a };
	char *reason = a == SHELLESC_DENY ? cli_policy_reason(c, v) : NULL;

	d.reason = reason;
	cli_audit_decision(c, req, v, a, reason);
	cli_policy_report(c, req, v, a, reason);
	if (v->answered)
		v->answered(v->answered_arg, req, v, a, reason);
	shellesc_request_decide(req, &d);
	free(reason);
	cli_verdict_free(v);
}

void
cli_policy_ended(void *arg, const struct shellesc_request *req,
    int exit_code, int sig, double seconds)
{
	struct cli *c = arg;

	cli_audit_end(c, req, exit_code, sig, seconds);
	if (sig)
		cli_debug(c, 1, "escalated command %llu ended by signal %d after %.3f s",
		    (unsigned long long)shellesc_request_id(req), sig, seconds);
	else
		cli_debug(c, 1, "escalated command %llu exited %d after %.3f s",
		    (unsigned long long)shellesc_request_id(req), exit_code, seconds);
}

void
cli_policy_log(void *arg, enum shellesc_log_level level, const char *msg)
{
	struct cli *c = arg;

	if (level == SHELLESC_LOG_ERROR)
		cli_warnx("%s", msg);
	else
		cli_debug(c, level == SHELLESC_LOG_WARN ? 1 : 2, "%s", msg);
}
