/*
 * rules-flags.c: short options however they are spelled.
 *
 * A deny rule ["rm", "-rf"] was walked around by "rm -r -f /", "rm -fr /",
 * "rm --recursive --force /" and "rm / -rf".  For prompt and deny rules
 * (only: it can only make a decision stricter), a pattern element that is
 * a word of short options -- a dash and letters or digits, "-rf", "-f" --
 * also matches where every one of its letters is set by an option word
 * from there on, up to a "--": a word "-xyz" sets x, y and z, and for a
 * few programs a long option sets its letter (rm --recursive sets r, and
 * -R does too).  The element then stands for the option words at that
 * place (none, when the options come after the operands, as GNU getopt
 * allows), and the next element is compared after them.  A word that is
 * an option's value and looks like options ("-e -rf") counts as options:
 * the rule matches more, never less.
 *
 * Such rules cannot be found by walking the index along the command's
 * words, so after each load they are listed by program head
 * (rules_flags_build) and compared one by one for that program: a cost
 * that follows how many of them a program has, usually none.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rules-int.h"

/* Comparisons one rule may take before it is taken as matching: a
 * pattern made to be slow fails closed. */
#define RULES_FLAGS_BUDGET	1024

/* A long option or another short one that sets a letter, for a program. */
static const struct {
	const char *prog, *opt;	/* opt: "recursive" (--recursive) or "R" (-R) */
	char letter;
} rules_flags_same[] = {
	{ "rm", "recursive", 'r' }, { "rm", "R", 'r' }, { "rm", "force", 'f' },
	{ "cp", "recursive", 'r' }, { "cp", "R", 'r' }, { "cp", "force", 'f' },
	{ "mv", "force", 'f' },
	{ "chmod", "recursive", 'R' }, { "chown", "recursive", 'R' },
	{ "chgrp", "recursive", 'R' },
};

#define RULES_FLAGS_NSAME (sizeof(rules_flags_same) / sizeof(rules_flags_same[0]))

/* One program head's rules with an element of short options. */
struct rules_flagged {
	struct rules_key key;
	struct rules_vec rules;
};

/* "-rf", "-f": a dash, then letters and digits only. */
static bool
rules_flags_word(const char *s)
{
	if (s[0] != '-' || s[1] == '\0' || s[1] == '-')
		return false;
	for (s++; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		    (*s >= '0' && *s <= '9')))
			return false;
	return true;
}

/* Is w an option word (a dash and more, not "--")? */
static bool
rules_flags_option(const char *w)
{
	return w[0] == '-' && w[1] != '\0' && strcmp(w, "--") != 0;
}

/* Does the option word w set letter c, for program name? */
static bool
rules_flags_sets(const char *name, const char *w, char c)
{
	const char *opt = w[1] == '-' ? w + 2 : NULL;

	if (opt == NULL && strchr(w + 1, c) != NULL)
		return true;
	for (size_t i = 0; name != NULL && i < RULES_FLAGS_NSAME; i++) {
		if (rules_flags_same[i].letter != c || strcmp(rules_flags_same[i].prog, name) != 0)
			continue;
		if (opt != NULL ? strcmp(opt, rules_flags_same[i].opt) == 0 :
		    rules_flags_same[i].opt[1] == '\0' && strchr(w + 1, rules_flags_same[i].opt[0]))
			return true;
	}
	return false;
}

/* Is every letter of flags set by an option word of args[p..) before
 * a "--"? */
static bool
rules_flags_set(const char *name, const char *flags, const char *const *args,
    size_t p, size_t nargs)
{
	for (const char *c = flags + 1; *c != '\0'; c++) {
		size_t q;

		for (q = p; q < nargs && strcmp(args[q], "--") != 0; q++)
			if (rules_flags_option(args[q]) && rules_flags_sets(name, args[q], *c))
				break;
		if (q == nargs || strcmp(args[q], "--") == 0)
			return false;
	}
	return true;
}

struct rules_flags_try {
	const struct rules_rule *rule;
	const char *name;
	const char *const *args;
	size_t nargs;
	int budget;
};

/* Do elements i... match args from p on? */
static bool
rules_flags_from(struct rules_flags_try *t, size_t i, size_t p)
{
	const struct rules_elem *e;
	size_t q;

	if (--t->budget < 0)
		return true;
	if (i == t->rule->npat)
		return !t->rule->exact || p == t->nargs;
	e = &t->rule->pat[i];
	for (size_t k = 0; k < e->nalt; k++) {
		if (p < t->nargs && strcmp(e->alt[k], t->args[p]) == 0 &&
		    rules_flags_from(t, i + 1, p + 1))
			return true;
		if (!rules_flags_word(e->alt[k]) ||
		    !rules_flags_set(t->name, e->alt[k], t->args, p, t->nargs))
			continue;
		for (q = p; q < t->nargs && rules_flags_option(t->args[q]); q++)
			;
		if (rules_flags_from(t, i + 1, q))
			return true;
	}
	return false;
}

bool
rules_flags_match(const struct rules_rule *rule, const char *name,
    const char *const *args, size_t nargs)
{
	struct rules_flags_try t = { .rule = rule, .name = name, .args = args,
	    .nargs = nargs, .budget = RULES_FLAGS_BUDGET };

	if (rule->decision < RULES_PROMPT)
		return false;
	return rules_flags_from(&t, 1, 0);
}

/* Has a prompt or deny rule an element of short options? */
static bool
rules_flags_rule(const struct rules_rule *rule)
{
	if (rule->decision < RULES_PROMPT)
		return false;
	for (size_t i = 1; i < rule->npat; i++)
		for (size_t k = 0; k < rule->pat[i].nalt; k++)
			if (rules_flags_word(rule->pat[i].alt[k]))
				return true;
	return false;
}

static int
rules_flags_add(struct rules_table *t, const char *head, const struct rules_rule *rule)
{
	struct rules_flagged *f = (struct rules_flagged *)rules_table_get(t, NULL, head);

	if (f == NULL) {
		if ((f = (struct rules_flagged *)rules_key_new(sizeof(*f), NULL, head)) == NULL)
			return -1;
		if (rules_table_add(t, &f->key) != 0) {
			free(f);
			return -1;
		}
	}
	return rules_vec_push(&f->rules, (void *)rule);
}

static void
rules_flags_free_one(struct rules_key *k)
{
	struct rules_flagged *f = (struct rules_flagged *)k;

	rules_vec_free(&f->rules);
	free(f);
}

void
rules_flags_free(struct rules_table *t)
{
	rules_table_free(t, rules_flags_free_one);
}

int
rules_flags_build(const struct rules *r, struct rules_table *t)
{
	for (size_t i = 0; i < r->index.cap; i++) {
		const struct rules_node *n = (const struct rules_node *)r->index.slot[i];

		for (size_t k = 0; n != NULL && k < n->rules.n; k++) {
			const struct rules_rule *rule = n->rules.v[k];

			if (!rules_first_filing(n, rule) || !rules_flags_rule(rule))
				continue;
			for (size_t j = 0; j < rule->pat[0].nalt; j++)
				if (rules_flags_add(t, rule->pat[0].alt[j], rule) != 0)
					return -1;
		}
	}
	return 0;
}

void
rules_flags_each(const struct rules *r, const char *head,
    void (*fn)(void *arg, const struct rules_rule *rule), void *arg)
{
	const struct rules_flagged *f;

	f = (const struct rules_flagged *)rules_table_get(&r->flagged, NULL, head);
	for (size_t i = 0; f != NULL && i < f->rules.n; i++)
		fn(arg, f->rules.v[i]);
}
