/*
 * rules-network.c: network_rule(host, protocol, decision, justification),
 * which Codex appends after a network approval.  It is checked as Codex
 * checks it, then ignored with a warning at its line: shellesc's sandbox
 * allows or blocks the network as a whole (--no-network), not host by
 * host, so it cannot enforce it (shellesc-rules(5)).
 */
#include "config.h"

#include <string.h>

#include "rules-int.h"

static int
net_host(struct rules_parser *p, struct rules_call *c)
{
	struct rules_pos at = p->tok.pos;

	if (rules_parse_string(p, "host", &c->name, NULL) != 0)
		return -1;
	if (c->name[strspn(c->name, " \t")] == '\0')
		return rules_fail(&p->lx, &at, "network_rule: host cannot be empty");
	if (strchr(c->name, '*') != NULL)
		return rules_fail(&p->lx, &at, "network_rule: host: wildcards "
		    "are not allowed (as in Codex)");
	return 0;
}

static int
net_protocol(struct rules_parser *p, struct rules_call *c)
{
	return rules_parse_string(p, "protocol", &c->protocol, NULL);
}

static int
net_decision(struct rules_parser *p, struct rules_call *c)
{
	static const char *const known[] = { "allow", "prompt", "forbidden", "deny" };
	struct rules_pos at = p->tok.pos;
	const char *s;

	if (rules_parse_string(p, "decision", &s, NULL) != 0)
		return -1;
	c->has_decision = true;
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (strcmp(s, known[i]) == 0)
			return 0;
	return rules_builtin_unknown(p, &at, "decision", s, known,
	    sizeof(known) / sizeof(known[0]));
}

int
rules_network_finish(struct rules_parser *p, struct rules_call *c)
{
	if (c->name == NULL || c->protocol == NULL || !c->has_decision)
		return rules_fail(&p->lx, &c->pos, "network_rule: missing "
		    "argument %s", c->name == NULL ? "host" :
		    c->protocol == NULL ? "protocol" : "decision");
	rules_note(&p->lx, &c->pos, RULES_SEV_WARNING, "network_rule(host = "
	    "\"%.60s\") ignored: shellesc allows or blocks the network as a "
	    "whole (shellesc run --no-network), not host by host", c->name);
	return 0;
}

const struct rules_param rules_network_params[RULES_NETWORK_NPARAMS] = {
	{ "host", true, net_host },
	{ "protocol", true, net_protocol },
	{ "decision", true, net_decision },
	{ "justification", true, rules_parse_justification },
};
