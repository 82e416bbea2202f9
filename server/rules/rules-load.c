/*
 * rules-load.c: rule sets, loading a file into one, and the index.
 *
 * A load adds its rules to the index as it parses them, so a file's rules
 * are found by later files' examples; on any error it takes them out again
 * (they are the newest entries of their index nodes), restores the
 * host_executable definitions it replaced and rewinds the arena, so the
 * set is as it was.  Examples are checked last, once the file's
 * host_executable calls are all known, as Codex does.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules-int.h"

#define RULES_EXAMPLE_SHOWN	80	/* bytes of an example quoted in errors */

struct rules *
rules_new(void)
{
	return calloc(1, sizeof(struct rules));
}

static void
rules_free_node(struct rules_key *k)
{
	struct rules_node *n = (struct rules_node *)k;

	rules_vec_free(&n->rules);
	free(n);
}

static void
rules_free_hostent(struct rules_key *k)
{
	free(k);
}

void
rules_free(struct rules *r)
{
	if (r == NULL)
		return;
	rules_table_free(&r->index, rules_free_node);
	rules_table_free(&r->hosts, rules_free_hostent);
	rules_ident_free(r);
	rules_vec_free(&r->profiles);
	free(r->path);
	rules_arena_free(&r->arena);
	free(r);
}

size_t
rules_count(const struct rules *r)
{
	return r == NULL ? 0 : r->nrules;
}

/* The node for token under parent, made if needed. */
static struct rules_node *
index_node(struct rules *r, const struct rules_node *parent, const char *token)
{
	const struct rules_key *pk = parent ? &parent->key : NULL;
	struct rules_key *k = rules_table_get(&r->index, pk, token);

	if (k != NULL)
		return (struct rules_node *)k;
	if ((k = rules_key_new(sizeof(struct rules_node), pk, token)) == NULL)
		return NULL;
	if (rules_table_add(&r->index, k) != 0) {
		free(k);
		return NULL;
	}
	return (struct rules_node *)k;
}

static int
index_push(struct rules_node *n, struct rules_rule *rule)
{
	return rules_vec_push(&n->rules, rule);
}

/*
 * Take the failed load's rules out of a node: they are its newest entries.
 * Every node holding one of them is visited for each; the visit for the
 * earliest pops them all, since this load's rules have seq >= its seq and
 * older loads' rules have less.
 */
static int
index_pop(struct rules_node *n, struct rules_rule *rule)
{
	struct rules_vec *v = &n->rules;

	while (v->n > 0 && ((struct rules_rule *)v->v[v->n - 1])->seq >= rule->seq)
		v->n--;
	return 0;
}

/*
 * How many leading elements to file rule by: as many as the index allows
 * while the paths they spell (the product of their alternatives, after the
 * program's) stay few.  The program element is always filed by.
 */
static size_t
index_depth(const struct rules_rule *rule)
{
	size_t k = 1, paths = 1;

	while (k < rule->npat && k < RULES_INDEX_DEPTH &&
	    rule->pat[k].nalt <= RULES_INDEX_PATHS / paths)
		paths *= rule->pat[k++].nalt;
	return k;
}

/* Call fn on each node rule is filed in, below parent from element i on;
 * with make, nodes are made as needed (only then can it fail). */
static int
index_walk(struct rules *r, struct rules_rule *rule, struct rules_node *parent,
    size_t i, bool make, int (*fn)(struct rules_node *, struct rules_rule *))
{
	const struct rules_elem *e = &rule->pat[i];
	struct rules_node *n;

	for (size_t j = 0; j < e->nalt; j++) {
		n = make ? index_node(r, parent, e->alt[j]) :
		    (struct rules_node *)rules_table_get(&r->index,
		    parent ? &parent->key : NULL, e->alt[j]);
		if (n == NULL && make)
			return -1;
		if (n == NULL)
			continue;
		if ((i + 1 == rule->depth ? fn(n, rule) :
		    index_walk(r, rule, n, i + 1, make, fn)) != 0)
			return -1;
	}
	return 0;
}

int
rules_load_add_rule(struct rules_load *ld, struct rules_rule *rule)
{
	rule->seq = ld->first_seq + ld->rules.n;
	rule->depth = index_depth(rule);
	if (rules_vec_push(&ld->rules, rule) != 0)
		return -1;
	return index_walk(ld->r, rule, NULL, 0, true, index_push);
}

int
rules_load_add_host(struct rules_load *ld, const char *name,
    struct rules_host *def)
{
	struct rules_hostent *e;

	e = (struct rules_hostent *)rules_table_get(&ld->r->hosts, NULL, name);
	if (e == NULL) {
		e = (struct rules_hostent *)rules_key_new(sizeof(*e), NULL, name);
		if (e == NULL)
			return -1;
		if (rules_table_add(&ld->r->hosts, &e->key) != 0) {
			free(e);
			return -1;
		}
	}
	if (rules_vec_push(&ld->hosts, def) != 0)
		return -1;
	def->prev = e->def;
	def->ent = e;
	e->def = def;
	return 0;
}

/* Put the set back as it was before the load. */
static void
load_undo(struct rules_load *ld)
{
	for (size_t i = ld->hosts.n; i-- > 0;) {
		struct rules_host *def = ld->hosts.v[i];

		def->ent->def = def->prev;
	}
	ld->r->profiles.n = ld->nprofiles;
	for (size_t i = 0; i < ld->rules.n; i++)
		index_walk(ld->r, ld->rules.v[i], NULL, 0, false, index_pop);
	rules_arena_rewind(&ld->r->arena, &ld->mark);
}

/* Each example is checked, and reported when it holds (RULES_SEV_PASS)
 * or fails (an error), so a file's examples run as its tests. */
static int
load_check_example(struct rules_parser *p, const struct rules_example *ex)
{
	size_t len = ex->end - ex->pos.off;
	bool ok = rules_rule_matches(p->ld->r, ex->rule, ex->tok[0],
	    ex->tok + 1, ex->ntok - 1) == ex->match;
	char msg[200];

	snprintf(msg, sizeof(msg), "%s example %.*s%s %s the rule",
	    ex->match ? "match" : "not_match",
	    (int)(len > RULES_EXAMPLE_SHOWN ? RULES_EXAMPLE_SHOWN : len),
	    p->lx.text + ex->pos.off, len > RULES_EXAMPLE_SHOWN ? "..." : "",
	    ok == ex->match ? "matches" : "does not match");
	p->lx.failed = false;
	p->lx.example = true;
	if (ok)
		rules_note(&p->lx, &ex->pos, RULES_SEV_PASS, "%s", msg);
	else
		rules_fail(&p->lx, &ex->pos, "%s", msg);
	p->lx.example = false;
	return ok ? 0 : -1;
}

/* All examples, after errors too, up to the limit of errors. */
static int
load_check_examples(struct rules_parser *p)
{
	int ret = 0;

	for (size_t i = 0; i < p->ld->examples.n &&
	    p->lx.nerrors < RULES_MAX_ERRORS; i++)
		if (load_check_example(p, p->ld->examples.v[i]) != 0)
			ret = -1;
	return ret;
}

int
rules_fail_plain(struct rules_error *err, const char *name, int e,
    const char *msg)
{
	char buf[128];

	memset(err, 0, sizeof(*err));
	snprintf(err->file, sizeof(err->file), "%s", name ? name : "(null)");
	snprintf(err->msg, sizeof(err->msg), "%s", msg ? msg :
	    e == EINVAL ? "not a regular file" : e == EFBIG ? "file too large" :
	    strerror_r(e, buf, sizeof(buf)));
	errno = e;
	return -1;
}

int
rules_load_text(struct rules *r, const char *name, const char *text,
    size_t len, struct rules_error *err)
{
	struct rules_error scratch;
	struct rules_load ld = { .r = r };
	struct rules_parser p = { .ld = &ld };
	int ret;

	err = err ? err : &scratch;
	if (r == NULL || name == NULL || (text == NULL && len > 0))
		return rules_fail_plain(err, name, EINVAL, "invalid argument");
	memset(err, 0, sizeof(*err));
	ld.first_seq = r->nrules;
	ld.nprofiles = r->profiles.n;
	p.arena = &r->arena;
	rules_arena_mark(&r->arena, &ld.mark);
	rules_lex_init(&p.lx, name, text ? text : "", len, err);
	p.lx.r = r;
	ret = rules_parse(&p);
	if (load_check_examples(&p) != 0)
		ret = -1;
	/* the set's paths and names are looked up with this file's in */
	if (ret == 0 && rules_ident_rebuild(r) != 0)
		ret = rules_fail_plain(err, name, ENOMEM, "out of memory");
	for (size_t i = 0; ret == 0 && i < ld.examples.n; i++)
		rules_lint_example(&p, ld.examples.v[i]);
	if (ret == 0)
		r->nrules += ld.rules.n;
	else
		load_undo(&ld);
	rules_lex_free(&p.lx);
	rules_vec_free(&ld.rules);
	rules_vec_free(&ld.hosts);
	rules_vec_free(&ld.examples);
	rules_vec_free(&p.vars);
	return ret;
}

int
rules_load_file(struct rules *r, const char *path, struct rules_error *err)
{
	struct rules_error scratch;
	struct stat st;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	err = err ? err : &scratch;
	if (r == NULL || path == NULL)
		return rules_fail_plain(err, path, EINVAL, "invalid argument");
	if (rules_read_file(path, &buf, &len, &st) != 0)
		return rules_fail_plain(err, path, errno, NULL);
	ret = rules_load_text(r, path, buf, len, err);
	free(buf);
	return ret;
}
