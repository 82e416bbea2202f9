/*
 * cli-policy.c: the session's callbacks.  The policy runs on the session's
 * loop thread and must not block, so it decides from the rules at once
 * and hands a prompt to the prompt thread (cli-prompt.c), which answers
 * through cli_policy_answer() later.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

/* A target the server could not open, for a reason other than its absence
 * (which the exec reports as the shell would). */
static bool
cli_policy_unopened(const struct shellesc_target *t)
{
	return t->error != 0 && (t->loader != NULL ||
	    (t->error != ENOENT && t->error != ENOTDIR));
}

/*
 * Why req must not run outside the sandbox, or NULL.  Only a file the
 * server opened and can name may: not one the sandboxed side could have
 * written (unless the deciding rule names that very file by its path), and
 * not through the dynamic loader's options.
 */
static char *
cli_policy_confined(const struct shellesc_request *req, const struct cli_verdict *v)
{
	const struct shellesc_target *t = shellesc_request_target(req);
	const char *prog = cli_request_program(req);
	char *s = NULL;
	int r = 0;

	if (cli_policy_unopened(t) && t->loader)
		r = asprintf(&s, "the dynamic loader %s is run directly, and shellesc cannot "
		    "tell which program it would load (%s)", t->loader, strerror(t->error));
	else if (cli_policy_unopened(t))
		r = asprintf(&s, "shellesc cannot open %s (%s)", prog, strerror(t->error));
	else if (t->error == 0 && t->path == NULL)
		r = asprintf(&s, "%s has no path shellesc can check (deleted, or out of its "
		    "view)", prog);
	else if (t->facts & SHELLESC_TARGET_LOADER_OPTIONS)
		r = asprintf(&s, "the dynamic loader %s is given options that would load code "
		    "of the caller's choosing outside the sandbox", t->loader);
	else if ((t->facts & SHELLESC_TARGET_WRITABLE) && !v->by_path)
		r = asprintf(&s, "%s could have been written by the sandboxed side (%s); only a "
		    "rule naming this exact path may escalate it", prog, t->writable);
	return r < 0 ? strdup("out of memory") : s;
}

static void
cli_policy_decide_as(struct cli *c, struct shellesc_request *req, struct cli_verdict *v,
    const struct cli_ask *ask)
{
	const struct shellesc_target *t = shellesc_request_target(req);

	cli_rules_decide_request(c, req, v);
	/* the caller's own request only ever asks (denied: v->reason set) */
	if (ask != NULL && cli_profile_requested(c, v, ask->profile) != 0)
		return;
	/* The loader's program, which shellesc cannot tell, was decided by no
	 * rule; and nobody is asked a question whose yes would be overruled. */
	if ((t->loader != NULL && t->error != 0) || v->effective == RULES_PROMPT)
		v->reason = cli_policy_confined(req, v);
}

void
cli_policy_decide(struct cli *c, struct shellesc_request *req, struct cli_verdict *v)
{
	cli_policy_decide_as(c, req, v, NULL);
}

void
cli_policy_decide_asked(struct cli *c, struct shellesc_request *req, struct cli_verdict *v)
{
	cli_policy_decide_as(c, req, v, v->ask);
}

void
cli_policy(void *arg, struct shellesc_request *req)
{
	struct cli *c = arg;
	struct cli_verdict v = { 0 };

	cli_policy_decide(c, req, &v);
	if (v.reason != NULL)
		cli_policy_answer(c, req, &v, SHELLESC_DENY);
	else if (v.effective == RULES_PROMPT)
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
	int level = a == SHELLESC_RUN ? 2 : 1;	/* -v: what did not run in place */
	char *cmd;

	if (c->o.verbose < level)
		return;
	cmd = cli_show_argv(cli_request_program(req), cli_request_argv(req));
	cli_debug(c, level, "%s %s: %s%s%s%s%s", cli_action_name(a), cmd ? cmd : "?",
	    v->source ? v->source : "no rule matched", v->asked ? ", asked the " : "",
	    v->asked ? v->asked : "", reason ? ": " : "", reason ? reason : "");
	free(cmd);
}

/*
 * An exec the kernel layer caught has no client to print why it was
 * denied: a deny is reported here, on shellesc's stderr.  Escalate is
 * done by making the caller exec the wrapper (the library's
 * kernel-escalate.c) where the library knows how: on x86-64; elsewhere it
 * becomes a deny that says why.
 */
static enum shellesc_action
cli_policy_kernel(const struct shellesc_request *req, struct cli_verdict *v,
    enum shellesc_action a)
{
#if defined(__x86_64__) && !defined(__ILP32__)
	(void)req;
	(void)v;
	return a;
#else
	if (a != SHELLESC_ESCALATE || !(shellesc_request_flags(req) & SHELLESC_ASKED_BY_KERNEL))
		return a;
	free(v->reason);
	v->reason = strdup("escalation refused: the exec came from a raw system call, which "
	    "shellesc cannot hand to the wrapper on this machine");
	return SHELLESC_DENY;
#endif
}

/*
 * --no-exec-writable: Landlock keeps what lies beneath the writable roots
 * from running in place, but a file with no path (a memfd the sandbox
 * filled, fexecve'd) is in no directory Landlock sees: it is refused here.
 * The preload names such a file "/proc/self/fd", a directory: no regular
 * file is refused the same way (an exec of anything else fails anyway).
 */
static enum shellesc_action
cli_policy_in_place(const struct cli *c, const struct shellesc_request *req,
    struct cli_verdict *v, enum shellesc_action a)
{
	const struct shellesc_target *t = shellesc_request_target(req);

	if (a != SHELLESC_RUN || !c->o.no_exec_writable || t->error != 0 ||
	    (t->path != NULL && S_ISREG(t->mode)))
		return a;
	free(v->reason);
	if (asprintf(&v->reason, "%s has no path shellesc can check (a memfd or another "
	    "anonymous or deleted file, which the sandboxed side could have written), and "
	    "--no-exec-writable runs nothing it may have written", cli_request_program(req)) < 0)
		v->reason = NULL;
	return SHELLESC_DENY;
}

static void
cli_policy_kernel_say(const struct shellesc_request *req, const char *reason)
{
	char *cmd;

	if (!(shellesc_request_flags(req) & SHELLESC_ASKED_BY_KERNEL))
		return;
	cmd = cli_show_argv(cli_request_program(req), cli_request_argv(req));
	cli_warnx("execution denied: %s (%s, caught by the kernel layer)",
	    reason ? reason : "out of memory", cmd ? cmd : "?");
	free(cmd);
}

/*
 * An escalation into v's profile is answered SHELLESC_MODE_PROFILE with
 * the profile kept for cli_profile_prepare (which builds its sandbox);
 * one that cannot be kept is denied, never run unsandboxed instead.
 */
static enum shellesc_action
cli_policy_profile(struct cli_verdict *v, enum shellesc_action a,
    const struct cli_profile **kept)
{
	*kept = NULL;
	if (a != SHELLESC_ESCALATE || v->profile == NULL)
		return a;
	if ((*kept = cli_profile_keep(v->profile)) != NULL)
		return a;
	free(v->reason);
	v->reason = strdup("out of memory");
	return SHELLESC_DENY;
}

/* Answer req with a, audit it, and free v.  Any thread. */
void
cli_policy_answer(struct cli *c, struct shellesc_request *req,
    struct cli_verdict *v, enum shellesc_action a)
{
	struct shellesc_decision d = { .action = SHELLESC_DENY };
	const struct cli_profile *profile;
	char *reason, *why;

	/* whoever answered: a rule, the terminal, the approver */
	if (a == SHELLESC_ESCALATE && (why = cli_policy_confined(req, v)) != NULL) {
		free(v->reason);
		v->reason = why;
		a = SHELLESC_DENY;
	}
	a = cli_policy_kernel(req, v, a);
	a = cli_policy_in_place(c, req, v, a);
	a = cli_policy_profile(v, a, &profile);
	reason = a == SHELLESC_DENY ? cli_policy_reason(c, v) : NULL;
	/* nothing runs outside that the log cannot show; with stop, nothing */
	if (cli_audit_decision(c, req, v, a, reason) != 0 && a != SHELLESC_DENY &&
	    (c->o.audit_stop || a == SHELLESC_ESCALATE)) {
		a = SHELLESC_DENY;
		reason = strdup(c->o.audit_stop ? "the audit log cannot be written "
		    "(--audit-fail stop)" : "the audit log cannot be written: nothing is "
		    "escalated that it cannot show");
	}
	if (a == SHELLESC_DENY)
		cli_policy_kernel_say(req, reason);
	d.action = a;
	d.reason = reason;
	if (a == SHELLESC_ESCALATE && profile != NULL) {
		d.mode = SHELLESC_MODE_PROFILE;
		d.profile = (void *)profile;
	}
	/* only the rule that decided lists argv[0]: not a prompt's answer */
	if (a == SHELLESC_ESCALATE && v->keep_argv0 && v->asked == NULL)
		shellesc_request_keep_argv0(req);
	cli_policy_report(c, req, v, a, reason);
	if (v->answered)
		v->answered(v->answered_arg, req, v, a, reason);
	if (c->exec_out)
		cli_exec_out_decision(c, req, v, a, reason);
	cli_learn_request(c, req, v, a);
	shellesc_request_decide(req, &d);
	free(reason);
	cli_verdict_free(v);
}

void
cli_policy_ended(void *arg, const struct shellesc_request *req,
    int exit_code, int sig, double seconds)
{
	struct cli *c = arg;

	cli_audit_end(c, NULL, req, exit_code, sig, seconds);
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
