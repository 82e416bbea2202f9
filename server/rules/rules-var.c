/*
 * rules-var.c: top-level assignments, as Codex's files use them:
 *
 *	GIT = "git"
 *	READ = ["status", "log"]
 *	prefix_rule(pattern = [GIT, READ])
 *
 * A variable is the tokens of its value (a string or a list of values,
 * other variables already replaced), read again in the place of each use
 * as if written there; errors in them are reported where it is used.
 * Assignments are the file's own (a module's globals in Starlark).  A use
 * is a name in a value's place: inside a call or a list, not followed by
 * '=' (which would make it an argument's name).
 */
#include "config.h"

#include <string.h>

#include "rules-int.h"

#define RULES_VAR_TOKENS	4096	/* tokens of one value, at most */

struct rules_var {
	const char *name;
	size_t len;
	const struct rules_tok *tok;
	size_t ntok;
};

static const struct rules_var *
var_find(const struct rules_parser *p, const char *name, size_t len)
{
	for (size_t i = p->vars.n; i-- > 0;) {
		const struct rules_var *v = p->vars.v[i];

		if (v->len == len && memcmp(v->name, name, len) == 0)
			return v;
	}
	return NULL;
}

/* Append t (its string copied into the arena) to out. */
static int
var_push(struct rules_parser *p, struct rules_vec *out, const struct rules_tok *t)
{
	struct rules_tok *c = rules_arena_alloc(p->arena, sizeof(*c));

	if (c == NULL)
		return rules_fail(&p->lx, &t->pos, "out of memory");
	*c = *t;
	if (t->kind == RULES_TOK_STRING &&
	    (c->str = rules_arena_strndup(p->arena, t->str, t->len)) == NULL)
		return rules_fail(&p->lx, &t->pos, "out of memory");
	if (out->n >= RULES_VAR_TOKENS)
		return rules_fail(&p->lx, &t->pos, "value too long");
	return rules_vec_push(out, c) == 0 ? 0 :
	    rules_fail(&p->lx, &t->pos, "out of memory");
}

static int var_value(struct rules_parser *p, struct rules_vec *out);

/* '[' [ value { ',' value } [ ',' ] ] ']' */
static int
var_list(struct rules_parser *p, struct rules_vec *out)
{
	if (var_push(p, out, &p->tok) != 0 || rules_advance(p) != 0)
		return -1;
	while (p->tok.kind != RULES_TOK_RBRACK) {
		if (var_value(p, out) != 0)
			return -1;
		if (p->tok.kind == RULES_TOK_COMMA) {
			if (var_push(p, out, &p->tok) != 0 || rules_advance(p) != 0)
				return -1;
		} else if (p->tok.kind != RULES_TOK_RBRACK)
			return rules_fail(&p->lx, &p->tok.pos, "expected ',' or "
			    "']', got %s", rules_tok_describe(p->tok.kind));
	}
	return var_push(p, out, &p->tok) == 0 ? rules_advance(p) : -1;
}

static int
var_value(struct rules_parser *p, struct rules_vec *out)
{
	const struct rules_var *v;

	if (p->tok.kind == RULES_TOK_STRING)
		return var_push(p, out, &p->tok) == 0 ? rules_advance(p) : -1;
	if (p->tok.kind == RULES_TOK_LBRACK)
		return var_list(p, out);
	if (p->tok.kind != RULES_TOK_NAME)
		return rules_fail(&p->lx, &p->tok.pos, "expected a string or a "
		    "list, got %s", rules_tok_describe(p->tok.kind));
	if ((v = var_find(p, p->tok.str, p->tok.len)) == NULL)
		return rules_fail(&p->lx, &p->tok.pos, "'%.*s' is not defined",
		    (int)p->tok.len, p->tok.str);
	for (size_t i = 0; i < v->ntok; i++)
		if (var_push(p, out, &v->tok[i]) != 0)
			return -1;
	return rules_advance(p);
}

int
rules_var_assign(struct rules_parser *p)
{
	struct rules_vec toks = { 0 };
	struct rules_var *v;
	int r = -1;

	if ((v = rules_arena_alloc(p->arena, sizeof(*v))) == NULL)
		return rules_fail(&p->lx, &p->tok.pos, "out of memory");
	v->name = p->tok.str;
	v->len = p->tok.len;
	if (rules_advance(p) != 0 || rules_advance(p) != 0)	/* NAME '=' */
		return -1;
	if (var_value(p, &toks) == 0 && toks.n > 0) {
		v->ntok = toks.n;
		v->tok = rules_arena_alloc(p->arena, toks.n * sizeof(*v->tok));
		for (size_t i = 0; v->tok != NULL && i < toks.n; i++)
			((struct rules_tok *)v->tok)[i] = *(struct rules_tok *)toks.v[i];
		r = v->tok != NULL && rules_vec_push(&p->vars, v) == 0 ? 0 :
		    rules_fail(&p->lx, &p->tok.pos, "out of memory");
	}
	rules_vec_free(&toks);
	return r;
}

bool
rules_var_expand(struct rules_parser *p)
{
	const struct rules_var *v;

	if (p->tok.kind != RULES_TOK_NAME || p->lx.depth == 0 ||
	    rules_lex_peek_char(&p->lx) == '=' ||
	    (v = var_find(p, p->tok.str, p->tok.len)) == NULL)
		return false;
	p->at = p->tok;
	p->replay = v->tok;
	p->nreplay = v->ntok;
	return true;
}
