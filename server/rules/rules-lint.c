/*
 * rules-lint.c: rules that can never decide (shellesc-rules(5), LINT).
 *
 * Rule S covers rule R when every command R matches, S matches too: S's
 * pattern is no longer than R's, each of S's elements holds every
 * alternative of R's element at that place (S's program may be "*"), and
 * S's target admits every program R's does.  The strictest rule decides;
 * among rules of the same rank, one naming the program's path comes
 * before one naming it by name or "*", then the first loaded.  So R never
 * decides when a covering S ranks higher, or ranks the same, was loaded
 * first and does not lose the path-before-name tie-break.  Only literal
 * equality is trusted: a rule for "git" is not taken to cover one for
 * "/usr/bin/git", though it may match the same file.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules-int.h"

static bool
lint_elem_covers(const struct rules_elem *s, const struct rules_elem *r)
{
	for (size_t i = 0; i < r->nalt; i++) {
		size_t k = 0;

		while (k < s->nalt && strcmp(s->alt[k], r->alt[i]) != 0)
			k++;
		if (k == s->nalt)
			return false;
	}
	return true;
}

/* s's argv0 = [...] (none: any) has every argv[0] r's has. */
static bool
lint_argv0_covers(const struct rules_rule *s, const struct rules_rule *r)
{
	bool found;

	if (s->nargv0 == 0)
		return true;
	if (r->nargv0 == 0)
		return false;
	for (size_t i = 0; i < r->nargv0; i++) {
		found = false;
		for (size_t k = 0; k < s->nargv0 && !found; k++)
			found = strcmp(s->argv0[k], r->argv0[i]) == 0;
		if (!found)
			return false;
	}
	return true;
}

static bool
lint_covers(const struct rules_rule *s, const struct rules_rule *r)
{
	bool star = s->pat[0].nalt == 1 &&
	    strcmp(s->pat[0].alt[0], RULES_WILDCARD) == 0;

	if (s->npat > r->npat || (!star && !lint_elem_covers(&s->pat[0], &r->pat[0])))
		return false;
	for (size_t i = 1; i < s->npat; i++)
		if (!lint_elem_covers(&s->pat[i], &r->pat[i]))
			return false;
	if (!lint_argv0_covers(s, r))
		return false;
	return s->target == 0 || (r->target != 0 && (r->target & ~s->target) == 0);
}

/* 1: every program alternative is an absolute path; -1: none is; 0: mixed. */
static int
lint_by_path(const struct rules_rule *rule)
{
	size_t n = 0;

	for (size_t i = 0; i < rule->pat[0].nalt; i++)
		n += rule->pat[0].alt[i][0] == '/';
	return n == rule->pat[0].nalt ? 1 : n == 0 ? -1 : 0;
}

/* Does s always win over r where both match? */
static bool
lint_wins(const struct rules_rule *s, const struct rules_rule *r)
{
	int rs = rules_rank(s), rr = rules_rank(r);

	if (rs != rr)
		return rs > rr;
	return s->seq < r->seq && (lint_by_path(s) == 1 || lint_by_path(r) == -1);
}

static bool
lint_same(const struct rules_rule *s, const struct rules_rule *r)
{
	return s->npat == r->npat && s->decision == r->decision &&
	    s->target == r->target && lint_covers(s, r) && lint_covers(r, s);
}

/*
 * Rules compared with each rule, at most: a set with thousands of rules
 * filed under one node (the same program, or "*") is linted in bounded
 * time, at the cost of warnings missed there.
 */
#define RULES_LINT_BUDGET	256

/* The rule s shadows r with, or NULL: met walking from head along r. */
static const struct rules_rule *
lint_shadow_from(const struct rules *r, const struct rules_rule *rule,
    const char *head)
{
	const struct rules_node *n;
	size_t budget = RULES_LINT_BUDGET;

	n = (const struct rules_node *)rules_table_get(&r->index, NULL, head);
	for (size_t i = 1; n != NULL; i++) {
		for (size_t k = 0; k < n->rules.n && budget > 0; k++, budget--) {
			const struct rules_rule *s = n->rules.v[k];

			if (s != rule && lint_covers(s, rule) && lint_wins(s, rule))
				return s;
		}
		n = i >= rule->npat ? NULL : (const struct rules_node *)
		    rules_table_get(&r->index, &n->key, rule->pat[i].alt[0]);
	}
	return NULL;
}

static void
lint_report(const struct rules *r, const struct rules_rule *rule,
    const struct rules_rule *s)
{
	struct rules_error e = { .line = 0, .severity = RULES_SEV_WARNING };
	const char *colon = strrchr(rule->source, ':');

	snprintf(e.file, sizeof(e.file), "%.*s", (int)(colon - rule->source),
	    rule->source);
	e.line = atoi(colon + 1);
	e.column = 1;
	if (lint_same(s, rule))
		snprintf(e.msg, sizeof(e.msg), "this rule repeats the rule at "
		    "%s: it never decides", s->source);
	else if (s->decision == RULES_RUN && rule->decision == RULES_ESCALATE)
		snprintf(e.msg, sizeof(e.msg), "this rule never escalates: the "
		    "rule at %s (run) matches every command it matches, and run "
		    "wins over escalate; narrow that rule (more elements, or "
		    "exact = True) so it leaves these commands out", s->source);
	else
		snprintf(e.msg, sizeof(e.msg), "this rule never decides: the "
		    "rule at %s (%s) matches every command it matches and wins "
		    "over it", s->source, rules_decision_name(s->decision));
	rules_report(r, &e);
}

struct lint_found {
	const struct rules_rule *rule, *by;
};

static int
lint_cmp(const void *a, const void *b)
{
	const struct lint_found *x = a, *y = b;

	return x->rule->seq < y->rule->seq ? -1 : x->rule->seq > y->rule->seq;
}

/* Call fn on every rule once (the index files it under several nodes). */
static void
lint_each(const struct rules *r, void (*fn)(void *, const struct rules_rule *),
    void *arg)
{
	for (size_t i = 0; r != NULL && i < r->index.cap; i++) {
		const struct rules_node *n = (const struct rules_node *)r->index.slot[i];

		for (size_t k = 0; n != NULL && k < n->rules.n; k++)
			if (rules_first_filing(n, n->rules.v[k]))
				fn(arg, n->rules.v[k]);
	}
}

struct lint {
	const struct rules *r;
	struct lint_found *v;
	size_t n, cap;
};

static void
lint_one(void *arg, const struct rules_rule *rule)
{
	struct lint *l = arg;
	const struct rules_rule *s;
	struct lint_found *nv;

	if ((s = lint_shadow_from(l->r, rule, rule->pat[0].alt[0])) == NULL &&
	    (s = lint_shadow_from(l->r, rule, RULES_WILDCARD)) == NULL)
		return;
	if (l->n == l->cap) {
		if ((nv = reallocarray(l->v, l->cap * 2 + 8, sizeof(*nv))) == NULL)
			return;	/* out of memory: fewer warnings */
		l->v = nv;
		l->cap = l->cap * 2 + 8;
	}
	l->v[l->n++] = (struct lint_found){ rule, s };
}

size_t
rules_lint(const struct rules *r)
{
	struct lint l = { .r = r };
	size_t n;

	lint_each(r, lint_one, &l);
	if (l.n > 0)
		qsort(l.v, l.n, sizeof(*l.v), lint_cmp);
	for (size_t i = 0; i < l.n; i++)
		lint_report(r, l.v[i].rule, l.v[i].by);
	n = l.n + rules_profile_lint(r);
	free(l.v);
	return n;
}
