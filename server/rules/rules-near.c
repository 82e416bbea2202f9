/*
 * rules-near.c: "why did my rule not match?" -- how a file answers to
 * rules, and the rules that nearly matched a command, for explaining
 * (shellesc check --explain).  Not on the deciding path: it looks at every
 * rule of the set, so its cost follows the number of rules.
 */
#include "config.h"

#include <limits.h>
#include <string.h>

#include "path.h"
#include "rules-int.h"

/* A walk over the set for one command. */
struct rules_near {
	const struct rules *r;
	const struct rules_file *f;
	const char *const *args;
	size_t nargs;
	const char *name, *written;	/* f's file name, the name written */
	void (*fn)(void *arg, const struct rules_miss *m);
	void *arg;
};

/* Is head one of the heads f was at load (rules_ident_heads)? */
struct rules_near_alias {
	const char *head;
	bool found;
};

static void
rules_near_alias(void *arg, const char *head)
{
	struct rules_near_alias *a = arg;

	if (strcmp(a->head, head) == 0)
		a->found = true;
}

/* Does a rule naming head reach f, as rules_decide_file looks? */
static bool
rules_near_answers(const struct rules_near *n, const char *head)
{
	struct rules_near_alias a = { .head = head };

	if (rules_head_matches(n->r, head, n->f))
		return true;
	if (n->f->written != NULL && strcmp(head, n->f->written) == 0 &&
	    head[0] != '/' && strchr(head, '/') != NULL)
		return true;
	if (strchr(head, '/') == NULL && !rules_host_allows(n->r, head, n->f))
		return false;
	rules_ident_heads(n->r, n->f, rules_near_alias, &a);
	return a.found;
}

/* Is head written for the same name as f or as the command (so a rule
 * for it looks meant for this command)? */
static bool
rules_near_named(const struct rules_near *n, const char *head)
{
	const char *slash = strrchr(head, '/'), *base = slash ? slash + 1 : head;

	return strcmp(base, n->name) == 0 ||
	    (n->written != NULL && strcmp(base, n->written) == 0);
}

/* A rule that matches past options before the subcommand. */
struct rules_near_after {
	const struct rules_rule *rule;
	const struct rules_near *n;
	const char *name;		/* the program's, for its options */
	bool matched;
};

static void
rules_near_after(void *arg, size_t start)
{
	struct rules_near_after *a = arg;

	if (rules_match_args(a->rule, 1, a->n->args + start, a->n->nargs - start) ||
	    rules_flags_match(a->rule, a->name, a->n->args + start,
	    a->n->nargs - start))
		a->matched = true;
}

/* Where the arguments first differ from rule's pattern; false when they
 * do not (m->elem, m->got, m->why set). */
static bool
rules_near_args(const struct rules_near *n, const struct rules_rule *rule,
    struct rules_miss *m)
{
	for (size_t i = 1; i < rule->npat; i++) {
		m->elem = i;
		m->want = rule->pat[i].alt;
		m->nwant = rule->pat[i].nalt;
		if (i - 1 >= n->nargs) {
			m->got = NULL;
			m->why = RULES_MISS_SHORT;
			return true;
		}
		m->got = n->args[i - 1];
		for (size_t k = 0; k < rule->pat[i].nalt; k++)
			if (strcmp(rule->pat[i].alt[k], m->got) == 0)
				goto next;
		m->why = RULES_MISS_ELEM;
		return true;
next:		;
	}
	m->elem = rule->npat;
	m->want = NULL;
	m->nwant = 0;
	m->got = rule->npat - 1 < n->nargs ? n->args[rule->npat - 1] : NULL;
	if (rule->exact && rule->npat - 1 < n->nargs)
		m->why = RULES_MISS_LONGER;
	else if (rule->target != 0 && (rule->target & n->f->flags) == 0)
		m->why = RULES_MISS_TARGET;
	else
		return false;
	return true;
}

/* The pattern's program that f answers to (*reached), or else one
 * written for f's or the command's name; NULL: neither. */
static const char *
rules_near_head(const struct rules_near *n, const struct rules_rule *rule,
    bool *reached)
{
	const char *named = NULL;

	*reached = false;
	for (size_t i = 0; i < rule->pat[0].nalt; i++) {
		const char *h = rule->pat[0].alt[i];

		if (rules_near_answers(n, h)) {
			*reached = true;
			return h;
		}
		if (named == NULL && strcmp(h, RULES_WILDCARD) != 0 &&
		    rules_near_named(n, h))
			named = h;
	}
	return named;
}

/* Does a rule f reaches, whose words differ as m says, match all the same
 * with options placed or spelled otherwise (rules-flags.c,
 * rules-global.c)?  A run or escalate rule that would is marked so. */
static bool
rules_near_options(const struct rules_near *n, const struct rules_rule *rule,
    struct rules_miss *m)
{
	struct rules_near_after a = { .rule = rule, .n = n,
	    .name = rules_head_name(m->head) };

	if (m->why == RULES_MISS_TARGET)
		return false;
	if (rules_flags_match(rule, a.name, n->args, n->nargs))
		return true;
	if (m->why == RULES_MISS_ELEM && a.name != NULL)
		rules_global_each(a.name, n->args, n->nargs, rules_near_after, &a);
	if (a.matched && rule->decision < RULES_PROMPT)
		m->why = RULES_MISS_OPTIONS;
	return a.matched && rule->decision >= RULES_PROMPT;
}

static void
rules_near_rule(const struct rules_near *n, const struct rules_rule *rule)
{
	struct rules_miss m = { .source = rule->source, .decision = rule->decision,
	    .want = rule->pat[0].alt, .nwant = rule->pat[0].nalt,
	    .got = n->f->path, .why = RULES_MISS_PROGRAM };
	bool reached;

	if ((m.head = rules_near_head(n, rule, &reached)) == NULL)
		return;
	if (reached && (!rules_near_args(n, rule, &m) ||
	    (strcmp(m.head, RULES_WILDCARD) == 0 && m.elem < 2) ||
	    rules_near_options(n, rule, &m)))
		return;		/* it matches, or only a wildcard did */
	n->fn(n->arg, &m);
}

void
rules_near(const struct rules *r, const struct rules_file *f,
    char *const *argv, void (*fn)(void *arg, const struct rules_miss *m),
    void *arg)
{
	const char *slash, *w;
	struct rules_near n = { .r = r, .f = f, .fn = fn, .arg = arg };

	if (r == NULL || f == NULL || f->path == NULL || f->path[0] == '\0')
		return;
	slash = strrchr(f->path, '/');
	n.name = slash ? slash + 1 : f->path;
	if ((w = f->written) != NULL)
		n.written = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
	if (argv != NULL && argv[0] != NULL) {
		n.args = (const char *const *)argv + 1;
		while (n.args[n.nargs] != NULL)
			n.nargs++;
	}
	for (size_t i = 0; i < r->index.cap; i++) {
		const struct rules_node *node = (const struct rules_node *)r->index.slot[i];

		for (size_t k = 0; node != NULL && k < node->rules.n; k++)
			if (rules_first_filing(node, node->rules.v[k]))
				rules_near_rule(&n, node->rules.v[k]);
	}
}

const char *
rules_name_file(const struct rules *r, const char *name)
{
	char file[PATH_MAX];
	struct path_iter it;
	const char *found;

	if (r == NULL || name == NULL || strchr(name, '/') != NULL)
		return NULL;
	path_iter_init(&it, r->path, name, PATH_ABSOLUTE);
	while (path_next(&it, file, sizeof(file)))
		if ((found = rules_ident_known(r, file)) != NULL)
			return found;
	return NULL;
}

/* rules_file_names: a head f was at load, unless a host_executable keeps
 * that name's rules from f (as rules_decide_file). */
struct rules_names {
	const struct rules *r;
	const struct rules_file *f;
	void (*fn)(void *arg, const char *head);
	void *arg;
};

static void
rules_names_alias(void *arg, const char *head)
{
	struct rules_names *a = arg;

	if (strchr(head, '/') != NULL || rules_host_allows(a->r, head, a->f))
		a->fn(a->arg, head);
}

void
rules_file_names(const struct rules *r, const struct rules_file *f,
    void (*fn)(void *arg, const char *head), void *arg)
{
	struct rules_names a = { .r = r, .f = f, .fn = fn, .arg = arg };
	const char *slash;

	if (r == NULL || f == NULL || f->path == NULL || f->path[0] == '\0')
		return;
	slash = strrchr(f->path, '/');
	if (slash != NULL)
		fn(arg, f->path);
	if (slash == NULL || rules_host_allows(r, slash + 1, f))
		fn(arg, slash ? slash + 1 : f->path);
	rules_ident_heads(r, f, rules_names_alias, &a);
}
