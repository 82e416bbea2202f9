/*
 * cli-mcp-ask.c: the escalation a tools/call asks for, where shellesc
 * goes beyond the reference's tool (shellesc-mcp(1), ASKING FOR AN
 * ESCALATION): sandbox_permissions ("use_default", "require_escalated" or
 * a profile's name), justification (the question the agent puts to the
 * user) and prefix_rule (a rule it suggests the user keep).
 *
 * The agent may be prompt-injected, so all of it is untrusted: it can only
 * ask.  A request that applies to an exec turns whatever the rules do not
 * deny into a question (cli_profile_requested), whose yes escalates into
 * the profile asked for; nothing is granted by the request alone.  It
 * applies only to some execs of the call, never to the whole shell:
 *  - with prefix_rule, to every exec the rule would match: its first word
 *    is the program (a word with a '/' its path, as called or as opened;
 *    one without, the last component of either), the others the first
 *    arguments, word for word;
 *  - without, to one exec only: the first of the call whose program's
 *    name (the last component of its path, as called or as opened) is
 *    that of the command's first word -- the text before the first blank
 *    or shell metacharacter, after any leading NAME=value assignments.
 *    A command that starts otherwise (a quote, a parenthesis) names no
 *    program: the request applies to nothing, and the rules decide alone.
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-mcp.h"

#define MCP_ASK_WORDS_MAX	32	/* words of a suggested prefix_rule */
#define MCP_ASK_WORD_MAX	1024	/* bytes of each */
#define MCP_ASK_JUSTIFY_MAX	(64 * 1024) /* bytes of a justification kept */

static const char mcp_ask_schema_text[] =
    "{\"sandbox_permissions\":{\"description\":\"Beyond the reference's tool: "
    "\\\"use_default\\\" (the default) runs every program as the user's rules decide; "
    "\\\"require_escalated\\\" asks the user to run the command's program outside the "
    "sandbox; the name of a profile (\\\"network\\\", or one the user's rules define) "
    "asks to run it under that profile. The user is always asked, and the rules may "
    "still forbid it. It applies to the programs prefix_rule matches, or, without "
    "one, to the first run of the command's first program.\",\"type\":\"string\","
    "\"nullable\":true},"
    "\"justification\":{\"description\":\"With sandbox_permissions: the question shown "
    "to the user, saying why the command needs it.\",\"type\":\"string\","
    "\"nullable\":true},"
    "\"prefix_rule\":{\"description\":\"With sandbox_permissions: a rule to suggest, "
    "the program and its first arguments (e.g. [\\\"npm\\\", \\\"install\\\"]); the "
    "request applies to the programs it matches, and the user may keep it so that "
    "they escalate from now on without asking.\",\"type\":\"array\","
    "\"items\":{\"type\":\"string\"},\"nullable\":true}}";

json_t *
mcp_ask_schema(void)
{
	return json_loads(mcp_ask_schema_text, 0, NULL);
}

/* A string of no NUL bytes, at most max long; NULL else. */
static const char *
mcp_ask_str(json_t *j, size_t max)
{
	const char *s = json_string_value(j);

	return s && strlen(s) == json_string_length(j) && strlen(s) <= max ? s : NULL;
}

static const char *
mcp_ask_prefix(struct mcp_call *call, json_t *a)
{
	size_t i;
	json_t *w;

	if (a == NULL || json_is_null(a))
		return NULL;
	if (!json_is_array(a) || json_array_size(a) == 0 ||
	    json_array_size(a) > MCP_ASK_WORDS_MAX)
		return "prefix_rule must be an array of 1 to 32 strings";
	json_array_foreach(a, i, w) {
		const char *s = mcp_ask_str(w, MCP_ASK_WORD_MAX);

		if (s == NULL || s[0] == '\0')
			return "prefix_rule's words must be non-empty strings (without NUL "
			    "bytes, at most 1024 bytes each)";
		if (cli_strv_add(&call->prefix, s) != 0)
			return "out of memory";
	}
	call->ask.prefix_rule = call->prefix.v;
	call->ask.nprefix = call->prefix.n;
	return NULL;
}

/* The basename of the command's first word after NAME=value words, or
 * NULL when it names no program. */
static char *
mcp_ask_first(const char *cmd)
{
	static const char stop[] = " \t\n;&|<>()`$\"'\\";
	size_t n, k;
	const char *slash;
	char *w;

	for (;;) {
		cmd += strspn(cmd, " \t\n");
		n = strcspn(cmd, stop);
		for (k = 0; k < n && (isalnum((unsigned char)cmd[k]) || cmd[k] == '_'); k++)
			;
		if (k == 0 || k >= n || cmd[k] != '=' || isdigit((unsigned char)cmd[0]))
			break;
		cmd += n;	/* an assignment: the program comes after it */
	}
	if (n == 0 || (w = strndup(cmd, n)) == NULL)
		return NULL;
	if ((slash = strrchr(w, '/')) != NULL)
		memmove(w, slash + 1, strlen(slash));
	if (w[0] == '\0') {
		free(w);
		return NULL;
	}
	return w;
}

const char *
mcp_ask_args(struct mcp_call *call, json_t *args)
{
	json_t *sp = json_object_get(args, "sandbox_permissions");
	json_t *j = json_object_get(args, "justification");
	const char *p = json_string_value(sp), *bad;

	if (sp != NULL && !json_is_null(sp) && (p == NULL || mcp_ask_str(sp, 256) == NULL))
		return "sandbox_permissions must be \"use_default\", \"require_escalated\" or "
		    "a profile's name";
	if (j != NULL && !json_is_null(j) && mcp_ask_str(j, MCP_ASK_JUSTIFY_MAX) == NULL)
		return "justification must be a string (without NUL bytes, at most 64 KiB)";
	if ((bad = mcp_ask_prefix(call, json_object_get(args, "prefix_rule"))) != NULL)
		return bad;
	if (p == NULL || strcmp(p, "use_default") == 0)
		return NULL;	/* justification and prefix_rule alone ask nothing */
	call->ask.profile = strdup(strcmp(p, "require_escalated") == 0 ? "unsandboxed" : p);
	if (json_is_string(j))
		call->ask.justification = strdup(json_string_value(j));
	if (call->ask.profile == NULL || (json_is_string(j) && !call->ask.justification))
		return "out of memory";
	if (call->ask.prefix_rule == NULL)
		call->first = mcp_ask_first(call->command);
	return NULL;
}

char *
mcp_ask_unknown(struct mcp_call *call)
{
	char *why = NULL;

	if (call->ask.profile == NULL || cli_profile_known(call->m->c, call->ask.profile))
		return NULL;
	if (asprintf(&why, "sandbox_permissions asks for the profile \"%.60s\", which the "
	    "user's rules do not define (use \"use_default\", \"require_escalated\", "
	    "\"network\" or a profile of the rules)", call->ask.profile) < 0)
		why = NULL;
	return why ? why : strdup("out of memory");
}

static const char *
mcp_ask_base(const char *p)
{
	const char *slash = p ? strrchr(p, '/') : NULL;

	return slash ? slash + 1 : p;
}

/* Is w the program of req: a path as called or opened, or their name? */
static bool
mcp_ask_program(const char *w, const struct shellesc_request *req)
{
	const char *called = shellesc_request_program(req);
	const char *opened = shellesc_request_target(req)->path;

	if (strchr(w, '/') != NULL)
		return (called && strcmp(w, called) == 0) || (opened && strcmp(w, opened) == 0);
	return (called && strcmp(w, mcp_ask_base(called)) == 0) ||
	    (opened && strcmp(w, mcp_ask_base(opened)) == 0);
}

static bool
mcp_ask_matches(const struct cli_ask *ask, const struct shellesc_request *req)
{
	char *const *argv = shellesc_request_argv(req);
	size_t i;

	if (!mcp_ask_program(ask->prefix_rule[0], req) || argv == NULL || argv[0] == NULL)
		return false;
	for (i = 1; i < ask->nprefix && argv[i] != NULL; i++)
		if (strcmp(argv[i], ask->prefix_rule[i]) != 0)
			return false;
	return i == ask->nprefix;
}

const struct cli_ask *
mcp_ask_for(struct mcp_call *call, const struct shellesc_request *req)
{
	if (call->ask.profile == NULL)
		return NULL;
	if (call->ask.prefix_rule != NULL)
		return mcp_ask_matches(&call->ask, req) ? &call->ask : NULL;
	/* the first exec of the first program, once */
	if (call->first == NULL || !mcp_ask_program(call->first, req) ||
	    atomic_exchange(&call->first_asked, true))
		return NULL;
	return &call->ask;
}

void
mcp_ask_free(struct mcp_call *call)
{
	free((char *)call->ask.profile);
	free((char *)call->ask.justification);
	cli_strv_free(&call->prefix);
	free(call->first);
	memset(&call->ask, 0, sizeof(call->ask));
}
