/*
 * rules-match.c: deciding a command.
 *
 * Rules are filed in a tree of tokens whose top level is the program: a
 * name, an absolute path or the wildcard "*" (see rules-int.h).  A decision
 * walks down from the path, the basename and the wildcard along the
 * command's arguments, one hash lookup a step, until a token has no node;
 * the rules met on the way are the only candidates, and only elements past
 * their filing depth are compared.  So the cost follows the command, not
 * the number of rules.
 *
 * Unlike Codex, which looks at name rules only when no exact-path rule
 * matched, every matching rule counts and the strictest wins: a deny
 * written for "git" cannot be stepped around by an allow written for
 * "/usr/bin/git".
 */
#include "config.h"

#include <string.h>

#include "rules-int.h"

static const struct {
	const char *name;
	enum rules_decision d;
} rules_decisions[] = {
	{ "escalate", RULES_ESCALATE },
	{ "run", RULES_RUN },
	{ "prompt", RULES_PROMPT },
	{ "deny", RULES_DENY },
	{ "allow", RULES_ESCALATE },	/* Codex's names */
	{ "forbidden", RULES_DENY },
};

#define RULES_NDECISIONS (sizeof(rules_decisions) / sizeof(rules_decisions[0]))

const char *
rules_decision_name(enum rules_decision d)
{
	for (size_t i = 0; i < RULES_NDECISIONS; i++)
		if (rules_decisions[i].d == d)
			return rules_decisions[i].name;
	return "none";
}

int
rules_decision_parse(const char *name, enum rules_decision *d)
{
	for (size_t i = 0; name != NULL && i < RULES_NDECISIONS; i++)
		if (strcmp(rules_decisions[i].name, name) == 0) {
			*d = rules_decisions[i].d;
			return 0;
		}
	return -1;
}

static bool
rules_elem_has(const struct rules_elem *e, const char *s)
{
	for (size_t i = 0; i < e->nalt; i++)
		if (strcmp(e->alt[i], s) == 0)
			return true;
	return false;
}

/* Do pattern elements from on match args (argv[1..]) from from - 1 on? */
static bool
rules_match_args(const struct rules_rule *rule, size_t from,
    const char *const *args, size_t nargs)
{
	if (rule->npat - 1 > nargs)
		return false;
	for (size_t i = from; i < rule->npat; i++)
		if (!rules_elem_has(&rule->pat[i], args[i - 1]))
			return false;
	return true;
}

/* May rules written for name match program?  Not when a host_executable
 * for name lists paths and program is not one of them. */
static bool
rules_host_allows(const struct rules *r, const char *name, const char *program)
{
	const struct rules_hostent *e;

	e = (const struct rules_hostent *)rules_table_get(&r->hosts, NULL, name);
	if (e == NULL || e->def == NULL)
		return true;
	for (size_t i = 0; i < e->def->npaths; i++)
		if (strcmp(e->def->paths[i], program) == 0)
			return true;
	return false;
}

/* A program without '/' is a bare name (an example): it matches names. */
static bool
rules_head_matches(const struct rules *r, const char *head,
    const char *program)
{
	const char *slash = strrchr(program, '/');

	if (strcmp(head, RULES_WILDCARD) == 0)
		return true;
	if (strchr(head, '/') != NULL || slash == NULL)
		return strcmp(head, program) == 0;
	return strcmp(head, slash + 1) == 0 &&
	    rules_host_allows(r, head, program);
}

bool
rules_rule_matches(const struct rules *r, const struct rules_rule *rule,
    const char *program, const char *const *args, size_t nargs)
{
	for (size_t i = 0; i < rule->pat[0].nalt; i++)
		if (rules_head_matches(r, rule->pat[0].alt[i], program))
			return rules_match_args(rule, 1, args, nargs);
	return false;
}

/* A decision in progress. */
struct rules_decide {
	const struct rules *r;
	const char *const *args;	/* argv[1..] */
	size_t nargs;
	unsigned flags;
	const struct rules_rule *best;
	int best_rank;
};

/*
 * Strictness, with one exception: a target rule that escalates outranks
 * run, because it says that such a program must not run in place (its
 * execs would not be seen, or its set-id bits not honoured).
 */
static int
rules_rank(const struct rules_rule *rule)
{
	static const int rank[] = {
		[RULES_ESCALATE] = 0, [RULES_RUN] = 1,
		[RULES_PROMPT] = 3, [RULES_DENY] = 4,
	};

	if (rule->decision == RULES_ESCALATE && rule->target != 0)
		return 2;
	return rank[rule->decision];
}

/* A rule met in the index: its first depth elements matched already. */
static void
rules_consider(struct rules_decide *d, const struct rules_rule *rule)
{
	int rank;

	if (rule->target != 0 && (rule->target & d->flags) == 0)
		return;
	if (!rules_match_args(rule, rule->depth, d->args, d->nargs))
		return;
	rank = rules_rank(rule);
	if (d->best == NULL || rank > d->best_rank ||
	    (rank == d->best_rank && rule->seq < d->best->seq)) {
		d->best = rule;
		d->best_rank = rank;
	}
}

/* Walk down from the node for head along the arguments. */
static void
rules_consider_head(struct rules_decide *d, const char *head)
{
	const struct rules_node *n;

	n = (const struct rules_node *)rules_table_get(&d->r->index, NULL, head);
	for (size_t i = 0; n != NULL; i++) {
		for (size_t k = 0; k < n->rules.n; k++)
			rules_consider(d, n->rules.v[k]);
		n = i >= d->nargs ? NULL : (const struct rules_node *)
		    rules_table_get(&d->r->index, &n->key, d->args[i]);
	}
}

/* Every head the program answers to: its path, its name, the wildcard. */
static void
rules_consider_program(struct rules_decide *d, const char *program)
{
	const char *slash = strrchr(program, '/');
	const char *name = slash ? slash + 1 : program;

	if (slash != NULL)
		rules_consider_head(d, program);
	if (slash == NULL || rules_host_allows(d->r, name, program))
		rules_consider_head(d, name);
	if (strcmp(name, RULES_WILDCARD) != 0)
		rules_consider_head(d, RULES_WILDCARD);
}

enum rules_decision
rules_decide(const struct rules *r, const char *program, char *const *argv,
    unsigned flags, struct rules_match *m)
{
	struct rules_decide d = { .r = r, .flags = flags };

	if (r != NULL && program != NULL && program[0] != '\0') {
		if (argv != NULL && argv[0] != NULL)
			d.args = (const char *const *)argv + 1;
		while (d.args != NULL && d.args[d.nargs] != NULL)
			d.nargs++;
		rules_consider_program(&d, program);
	}
	if (m != NULL) {
		m->decision = d.best ? d.best->decision : RULES_NONE;
		m->justification = d.best ? d.best->justification : NULL;
		m->source = d.best ? d.best->source : NULL;
	}
	return d.best ? d.best->decision : RULES_NONE;
}
