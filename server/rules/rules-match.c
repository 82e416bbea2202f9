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
 * "/usr/bin/git".  For the same reason a prompt or deny rule is also
 * looked for where the subcommand starts past options written before it
 * ("git -C dir push", rules-global.c), and with its short options
 * spelled otherwise ("rm -r -f" for "-rf", rules-flags.c); run and
 * escalate rules stay exact.
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

bool
rules_match_args(const struct rules_rule *rule, size_t from,
    const char *const *args, size_t nargs)
{
	if (rule->npat - 1 > nargs || (rule->exact && rule->npat - 1 != nargs))
		return false;
	for (size_t i = from; i < rule->npat; i++)
		if (!rules_elem_has(&rule->pat[i], args[i - 1]))
			return false;
	return true;
}

bool
rules_host_allows(const struct rules *r, const char *name, const struct rules_file *f)
{
	const struct rules_hostent *e;

	e = (const struct rules_hostent *)rules_table_get(&r->hosts, NULL, name);
	if (e == NULL || e->def == NULL)
		return true;
	for (size_t i = 0; i < e->def->npaths; i++)
		if (rules_ident_same(r, e->def->paths[i], f))
			return true;
	return false;
}

bool
rules_host_excludes(const struct rules *r, const struct rules_file *f)
{
	const char *slash;

	if (r == NULL || f == NULL || f->path == NULL ||
	    (slash = strrchr(f->path, '/')) == NULL)
		return false;
	return !rules_host_allows(r, slash + 1, f);
}

/* A program without '/' is a bare name (an example): it matches names. */
bool
rules_head_matches(const struct rules *r, const char *head,
    const struct rules_file *f)
{
	const char *slash = strrchr(f->path, '/');

	if (strcmp(head, RULES_WILDCARD) == 0)
		return true;
	if (strchr(head, '/') != NULL || slash == NULL)
		return strcmp(head, f->path) == 0;
	return strcmp(head, slash + 1) == 0 && rules_host_allows(r, head, f);
}

const char *
rules_head_name(const char *head)
{
	const char *slash = strrchr(head, '/');

	if (strcmp(head, RULES_WILDCARD) == 0)
		return NULL;
	return slash != NULL ? slash + 1 : head;
}

/* A prompt or deny rule also matches past the options before the
 * subcommand (rules-global.c): rules_rule_matches's part of it. */
struct rules_after {
	const struct rules_rule *rule;
	const char *name;
	const char *const *args;
	size_t nargs;
	bool matched;
};

static void
rules_rule_after(void *arg, size_t start)
{
	struct rules_after *a = arg;

	if (rules_match_args(a->rule, 1, a->args + start, a->nargs - start) ||
	    rules_flags_match(a->rule, a->name, a->args + start, a->nargs - start))
		a->matched = true;
}

bool
rules_rule_matches(const struct rules *r, const struct rules_rule *rule,
    const char *program, const char *const *args, size_t nargs)
{
	struct rules_file f = { .path = program };
	const char *name = rules_head_name(program);
	struct rules_after a = { .rule = rule, .name = name, .args = args,
	    .nargs = nargs };

	for (size_t i = 0; i < rule->pat[0].nalt; i++)
		if (rules_head_matches(r, rule->pat[0].alt[i], &f)) {
			if (rules_match_args(rule, 1, args, nargs) ||
			    rules_flags_match(rule, name, args, nargs))
				return true;
			if (rule->decision >= RULES_PROMPT && name != NULL)
				rules_global_each(name, args, nargs, rules_rule_after, &a);
			return a.matched;
		}
	return false;
}

/* A decision in progress. */
struct rules_decide {
	const struct rules *r;
	const struct rules_file *f;
	const char *const *args;	/* the arguments matched now */
	size_t nargs;
	const struct rules_rule *best;
	int best_rank;
	bool best_by_path;
	/* rules_explain: every match, each rule once */
	void (*each)(void *arg, const struct rules_hit *h);
	void *arg;
	const char *head;		/* the head being walked */
	size_t argi;			/* argv index of args[0] */
	bool strict_only;		/* past global options: prompt and deny */
	bool respelled;			/* short options matched by rules-flags.c */
	struct rules_vec seen;
};

/* Tell rules_explain's caller of a match, unless told already. */
static void
rules_tell(struct rules_decide *d, const struct rules_rule *rule, bool by_path)
{
	struct rules_hit h = { .source = rule->source, .decision = rule->decision,
	    .justification = rule->justification, .profile = rule->profile,
	    .head = d->head,
	    .nprefix = d->respelled ? 1 : rule->npat, .argi = d->argi,
	    .by_path = by_path, .options = d->strict_only || d->respelled };

	for (size_t i = 0; i < d->seen.n; i++)
		if (d->seen.v[i] == rule)
			return;
	if (rules_vec_push(&d->seen, (void *)rule) == 0)
		d->each(d->arg, &h);
}

/*
 * Strictness, with one exception: a target rule that escalates outranks
 * run, because it says that such a program must not run in place (its
 * execs would not be seen, or its set-id bits not honoured).
 */
int
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

/* Does rule, met with by_path, beat the best so far? */
static bool
rules_better(const struct rules_decide *d, const struct rules_rule *rule,
    int rank, bool by_path)
{
	if (d->best == NULL || rank != d->best_rank)
		return d->best == NULL || rank > d->best_rank;
	if (by_path != d->best_by_path)
		return by_path;
	return rule->seq < d->best->seq;
}

static void rules_take(struct rules_decide *d, const struct rules_rule *rule,
    bool by_path);

/* A rule's argv0 = [...] lists the caller's argv[0], as written or by its
 * basename; a rule without one matches any. */
static bool
rules_argv0_ok(const struct rules_rule *rule, const struct rules_file *f)
{
	const char *base;

	if (rule->nargv0 == 0)
		return true;
	if (f->argv0 == NULL)
		return false;
	base = strrchr(f->argv0, '/') ? strrchr(f->argv0, '/') + 1 : f->argv0;
	for (size_t i = 0; i < rule->nargv0; i++)
		if (strcmp(rule->argv0[i], f->argv0) == 0 || strcmp(rule->argv0[i], base) == 0)
			return true;
	return false;
}

/* A rule met in the index: its first depth elements matched already. */
static void
rules_consider(struct rules_decide *d, const struct rules_rule *rule, bool by_path)
{

	if ((rule->target != 0 && (rule->target & d->f->flags) == 0) ||
	    !rules_argv0_ok(rule, d->f))
		return;
	if (d->strict_only && rule->decision < RULES_PROMPT)
		return;
	if (!rules_match_args(rule, rule->depth, d->args, d->nargs))
		return;
	rules_take(d, rule, by_path);
}

/* A rule with short options (rules-flags.c) of the head being walked. */
static void
rules_consider_flags(void *arg, const struct rules_rule *rule)
{
	struct rules_decide *d = arg;

	if ((rule->target != 0 && (rule->target & d->f->flags) == 0) ||
	    !rules_argv0_ok(rule, d->f))
		return;
	if (rules_flags_match(rule, rules_head_name(d->head), d->args, d->nargs)) {
		d->respelled = true;
		rules_take(d, rule, d->head[0] == '/');
		d->respelled = false;
	}
}

/* rule matches: is it the best so far? */
static void
rules_take(struct rules_decide *d, const struct rules_rule *rule, bool by_path)
{
	int rank;

	if (d->each != NULL)
		rules_tell(d, rule, by_path);
	rank = rules_rank(rule);
	if (rules_better(d, rule, rank, by_path)) {
		d->best = rule;
		d->best_rank = rank;
		d->best_by_path = by_path;
	}
}

/* Walk down from the node for head along the arguments. */
static void
rules_walk(struct rules_decide *d, const char *head)
{
	const struct rules_node *n;
	bool by_path = head[0] == '/';

	d->head = head;
	n = (const struct rules_node *)rules_table_get(&d->r->index, NULL, head);
	for (size_t i = 0; n != NULL; i++) {
		for (size_t k = 0; k < n->rules.n; k++)
			rules_consider(d, n->rules.v[k], by_path);
		n = i >= d->nargs ? NULL : (const struct rules_node *)
		    rules_table_get(&d->r->index, &n->key, d->args[i]);
	}
	rules_flags_each(d->r, head, rules_consider_flags, d);
}

/* The arguments a head's walk started from, for walking again past the
 * options before the subcommand. */
struct rules_walk_from {
	struct rules_decide *d;
	const char *head;
	const char *const *args;
	size_t nargs, argi;
};

static void
rules_walk_after(void *arg, size_t start)
{
	struct rules_walk_from *w = arg;

	w->d->args = w->args + start;
	w->d->nargs = w->nargs - start;
	w->d->argi = w->argi + start;
	rules_walk(w->d, w->head);
}

/* The head's rules; and its prompt and deny rules again from wherever
 * the subcommand may start past options written before it. */
static void
rules_consider_head(struct rules_decide *d, const char *head)
{
	struct rules_walk_from w = { .d = d, .head = head, .args = d->args,
	    .nargs = d->nargs, .argi = d->argi };
	const char *name = rules_head_name(head);

	rules_walk(d, head);
	if (name == NULL || d->nargs < 2 || !rules_global_known(name))
		return;
	d->strict_only = true;
	rules_global_each(name, w.args, w.nargs, rules_walk_after, &w);
	d->strict_only = false;
	d->args = w.args;
	d->nargs = w.nargs;
	d->argi = w.argi;
}

/* A path or name that was the file at load. */
static void
rules_consider_alias(void *arg, const char *head)
{
	struct rules_decide *d = arg;

	if (strchr(head, '/') != NULL || rules_host_allows(d->r, head, d->f))
		rules_consider_head(d, head);
}

/* Every head the file answers to: its path, its name, what it was at
 * load, the wildcard. */
static void
rules_consider_program(struct rules_decide *d)
{
	const char *program = d->f->path, *slash = strrchr(program, '/');
	const char *name = slash ? slash + 1 : program;

	if (slash != NULL)
		rules_consider_head(d, program);
	if (d->f->written != NULL && d->f->written[0] != '/' &&
	    strchr(d->f->written, '/') != NULL)
		rules_consider_head(d, d->f->written);	/* "./gradlew", as Codex */
	if (slash == NULL || rules_host_allows(d->r, name, d->f))
		rules_consider_head(d, name);
	rules_ident_heads(d->r, d->f, rules_consider_alias, d);
	if (strcmp(name, RULES_WILDCARD) != 0)
		rules_consider_head(d, RULES_WILDCARD);
}

/* The arguments of argv from index i on. */
static void
rules_args(struct rules_decide *d, char *const *argv, size_t i)
{
	d->args = NULL;
	d->nargs = 0;
	d->argi = i;
	for (size_t k = 0; argv != NULL && k < i; k++)
		if (argv[k] == NULL)
			return;
	if (argv == NULL)
		return;
	d->args = (const char *const *)argv + i;
	while (d->args[d->nargs] != NULL)
		d->nargs++;
}

/* The programs of a script's #! chain, each as itself with its argv. */
static void
rules_consider_chain(struct rules_decide *d)
{
	const struct rules_file *f = d->f;

	for (size_t i = 0; i < f->nchain && i < RULES_CHAIN_MAX; i++) {
		const struct rules_link *l = &f->chain[i];
		struct rules_file lf = { .path = l->path, .known = l->known, .dev = l->dev,
		    .ino = l->ino };

		if (l->path == NULL || l->path[0] != '/' || l->argv == NULL)
			continue;
		d->f = &lf;
		rules_args(d, l->argv, 1);
		rules_consider_program(d);
		d->f = f;
	}
}

static void
rules_decide_walk(struct rules_decide *d, const struct rules *r,
    const struct rules_file *f, char *const *argv)
{
	if (r != NULL && f != NULL && f->path != NULL && f->path[0] != '\0') {
		rules_args(d, argv, 1);
		rules_consider_program(d);
		if (f->applet != NULL && f->applet[0] != '\0' && f->applet_argi > 0 &&
		    rules_host_allows(r, f->applet, f)) {
			rules_args(d, argv, f->applet_argi);
			if (d->args != NULL)
				rules_consider_head(d, f->applet);
		}
		rules_consider_chain(d);
	}
}

enum rules_decision
rules_decide_file(const struct rules *r, const struct rules_file *f,
    char *const *argv, struct rules_match *m)
{
	struct rules_decide d = { .r = r, .f = f };

	rules_decide_walk(&d, r, f, argv);
	if (m != NULL) {
		m->decision = d.best ? d.best->decision : RULES_NONE;
		m->justification = d.best ? d.best->justification : NULL;
		m->source = d.best ? d.best->source : NULL;
		m->by_path = d.best != NULL && d.best_by_path;
		m->argv0 = d.best != NULL && d.best->nargv0 > 0;
		m->profile = d.best ? d.best->profile : NULL;
	}
	return d.best ? d.best->decision : RULES_NONE;
}

enum rules_decision
rules_explain(const struct rules *r, const struct rules_file *f,
    char *const *argv, void (*fn)(void *arg, const struct rules_hit *h),
    void *arg)
{
	struct rules_decide d = { .r = r, .f = f, .each = fn, .arg = arg };

	rules_decide_walk(&d, r, f, argv);
	rules_vec_free(&d.seen);
	return d.best ? d.best->decision : RULES_NONE;
}

enum rules_decision
rules_decide(const struct rules *r, const char *program, char *const *argv,
    unsigned flags, struct rules_match *m)
{
	struct rules_file f = { .path = program, .flags = flags };

	return rules_decide_file(r, &f, argv, m);
}

/* A rule is filed under every path its alternatives spell: is n the one
 * of its first alternatives (so each rule is seen once)? */
bool
rules_first_filing(const struct rules_node *n, const struct rules_rule *rule)
{
	const struct rules_key *k = &n->key;

	for (size_t i = rule->depth; i-- > 0; k = k->parent)
		if (k == NULL || strcmp(k->a, rule->pat[i].alt[0]) != 0)
			return false;
	return k == NULL;
}

void
rules_each_path(const struct rules *r,
    void (*fn)(void *arg, const char *path, enum rules_decision d), void *arg)
{
	for (size_t i = 0; r != NULL && i < r->index.cap; i++) {
		const struct rules_node *n = (const struct rules_node *)r->index.slot[i];

		for (size_t k = 0; n != NULL && k < n->rules.n; k++) {
			const struct rules_rule *rule = n->rules.v[k];

			if (!rules_first_filing(n, rule))
				continue;
			for (size_t j = 0; j < rule->pat[0].nalt; j++)
				if (rule->pat[0].alt[j][0] == '/')
					fn(arg, rule->pat[0].alt[j], rule->decision);
		}
	}
}
