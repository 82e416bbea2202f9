/*
 * rules-parse.c: the recursive-descent parser of the rules language.
 *
 * A file is a sequence of calls, one a line (or separated by ';'):
 *
 *	file	:= { NEWLINE | call ( NEWLINE | ';' | EOF ) }
 *	call	:= NAME '(' [ arg { ',' arg } [ ',' ] ] ')'
 *	arg	:= NAME '=' value | value
 *	value	:= STRING | '[' [ value { ',' value } [ ',' ] ] ']'
 *
 * This file knows the shapes; which values each argument of each function
 * takes, and what they mean, is rules-builtin.c's.  Arguments follow
 * Starlark's rules: positional ones first, each given once.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "rules-int.h"

/* The arguments of one call seen so far. */
struct rules_args {
	unsigned seen;		/* bit i: params[i] given */
	size_t npositional;
	bool keyword;		/* a keyword argument was given */
};

/* The next token: a variable's while one is read (rules-var.c), placed
 * where the variable is used. */
int
rules_advance(struct rules_parser *p)
{
	p->prev_end = p->tok.end;
	if (p->nreplay == 0) {
		if (rules_lex_next(&p->lx, &p->tok) != 0)
			return -1;
		if (!rules_var_expand(p))
			return 0;
	}
	p->tok = *p->replay++;
	p->nreplay--;
	p->tok.pos = p->at.pos;
	p->tok.end = p->at.end;
	return 0;
}

int
rules_expect(struct rules_parser *p, enum rules_tok_kind kind,
    const char *what)
{
	if (p->tok.kind != kind)
		return rules_fail(&p->lx, &p->tok.pos, "expected %s, got %s",
		    what, rules_tok_describe(p->tok.kind));
	return rules_advance(p);
}

static int
parse_type_error(struct rules_parser *p, const char *what, const char *want)
{
	return rules_fail(&p->lx, &p->tok.pos, "%s: expected %s, got %s", what,
	    want, rules_tok_describe(p->tok.kind));
}

int
rules_parse_string(struct rules_parser *p, const char *what,
    const char **out, size_t *len)
{
	if (p->tok.kind != RULES_TOK_STRING)
		return parse_type_error(p, what, "a string");
	if ((*out = rules_arena_strndup(p->arena, p->tok.str, p->tok.len)) == NULL)
		return rules_fail(&p->lx, &p->tok.pos, "out of memory");
	if (len != NULL)
		*len = p->tok.len;
	return rules_advance(p);
}

int
rules_parse_list(struct rules_parser *p, const char *what,
    int (*item)(struct rules_parser *, void *), void *arg, size_t *count)
{
	size_t n = 0;

	if (p->tok.kind != RULES_TOK_LBRACK)
		return parse_type_error(p, what, "a list");
	if (rules_advance(p) != 0)
		return -1;
	while (p->tok.kind != RULES_TOK_RBRACK) {
		if (p->tok.kind == RULES_TOK_COMMA)
			return rules_fail(&p->lx, &p->tok.pos, "%s: unexpected ',': "
			    "an element is missing before it", what);
		if (item(p, arg) != 0)
			return -1;
		n++;
		if (p->tok.kind == RULES_TOK_COMMA) {
			if (rules_advance(p) != 0)
				return -1;
		} else if (p->tok.kind != RULES_TOK_RBRACK)
			return rules_fail(&p->lx, &p->tok.pos, "%s: expected ',' "
			    "or ']', got %s", what, rules_tok_describe(p->tok.kind));
	}
	*count = n;
	return rules_advance(p);
}

struct parse_strings {
	const char *what;
	struct rules_vec strs, pos;
	bool want_pos;
};

static int
parse_strings_item(struct rules_parser *p, void *arg)
{
	struct parse_strings *ps = arg;
	struct rules_pos *pos = NULL;
	const char *s;

	if (ps->want_pos &&
	    ((pos = rules_arena_alloc(p->arena, sizeof(*pos))) == NULL ||
	    rules_vec_push(&ps->pos, pos) != 0))
		return rules_fail(&p->lx, &p->tok.pos, "out of memory");
	if (pos != NULL)
		*pos = p->tok.pos;
	if (rules_parse_string(p, ps->what, &s, NULL) != 0)
		return -1;
	if (rules_vec_push(&ps->strs, (void *)s) != 0)
		return rules_fail(&p->lx, &p->tok.pos, "out of memory");
	return 0;
}

int
rules_parse_strings(struct rules_parser *p, const char *what,
    const char *const **out, size_t *n, struct rules_pos **pos)
{
	struct parse_strings ps = { .what = what, .want_pos = pos != NULL };
	struct rules_pos at = p->tok.pos;
	int r;

	r = rules_parse_list(p, what, parse_strings_item, &ps, n);
	*out = NULL;
	if (r == 0 && *n > 0 &&
	    (*out = (const char *const *)rules_vec_copy(&ps.strs, p->arena)) == NULL)
		r = rules_fail(&p->lx, &at, "out of memory");
	if (r == 0 && pos != NULL && *n > 0) {
		if ((*pos = rules_arena_alloc(p->arena, *n * sizeof(**pos))) == NULL)
			r = rules_fail(&p->lx, &at, "out of memory");
		for (size_t i = 0; r == 0 && i < *n; i++)
			(*pos)[i] = *(struct rules_pos *)ps.pos.v[i];
	}
	rules_vec_free(&ps.strs);
	rules_vec_free(&ps.pos);
	return r;
}

/* "a, b or c": the argument names of b, for an error message. */
static const char *
parse_param_names(const struct rules_builtin *b, char *buf, size_t size)
{
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < b->nparams && n < size; i++)
		n += (size_t)snprintf(buf + n, size - n, "%s%s",
		    i == 0 ? "" : i + 1 == b->nparams ? " or " : ", ",
		    b->params[i].name);
	return buf;
}

static size_t
parse_param_find(const struct rules_builtin *b, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < b->nparams; i++)
		if (strlen(b->params[i].name) == len &&
		    memcmp(b->params[i].name, name, len) == 0)
			break;
	return i;
}

static int
parse_unknown_param(struct rules_parser *p, const struct rules_builtin *b,
    const struct rules_tok *name)
{
	const char *cands[16];
	char names[160], dym[64];
	size_t n = 0;

	for (; n < b->nparams && n < 16; n++)
		cands[n] = b->params[n].name;
	return rules_fail(&p->lx, &name->pos, "%s() has no argument '%.*s'%s "
	    "(expected %s)", b->name, (int)name->len, name->str,
	    rules_did_you_mean(dym, sizeof(dym), name->str, name->len, cands, n),
	    parse_param_names(b, names, sizeof(names)));
}

/* NAME '=': which parameter it names. */
static int
parse_keyword(struct rules_parser *p, const struct rules_builtin *b,
    size_t *idx)
{
	struct rules_tok name = p->tok;
	if (rules_advance(p) != 0)
		return -1;
	*idx = parse_param_find(b, name.str, name.len);
	if (p->tok.kind != RULES_TOK_EQUALS && *idx == b->nparams)
		return rules_fail(&p->lx, &name.pos, "expected a string or a "
		    "list, got the name '%.*s'", (int)name.len, name.str);
	if (p->tok.kind != RULES_TOK_EQUALS)
		return rules_fail(&p->lx, &p->tok.pos, "expected '=' after %s, "
		    "got %s", b->params[*idx].name, rules_tok_describe(p->tok.kind));
	if (*idx == b->nparams)
		return parse_unknown_param(p, b, &name);
	return rules_advance(p);
}

static int
parse_arg(struct rules_parser *p, const struct rules_builtin *b,
    struct rules_call *c, struct rules_args *st)
{
	struct rules_pos pos = p->tok.pos;
	size_t i;

	if (p->tok.kind == RULES_TOK_COMMA)
		return rules_fail(&p->lx, &pos, "unexpected ',': an argument is "
		    "missing before it");
	if (p->tok.kind == RULES_TOK_NAME) {
		if (parse_keyword(p, b, &i) != 0)
			return -1;
		st->keyword = true;
	} else if (st->keyword)
		return rules_fail(&p->lx, &pos,
		    "positional argument after a keyword argument");
	else if ((i = st->npositional++) >= b->nparams ||
	    !b->params[i].positional)
		return rules_fail(&p->lx, &pos, "%s() takes at most %zu "
		    "positional arguments", b->name, i);
	if (st->seen & (1u << i))
		return rules_fail(&p->lx, &pos, "argument %s given more than "
		    "once", b->params[i].name);
	st->seen |= 1u << i;
	return b->params[i].parse(p, c);
}

/* The arguments, up to (not past) the closing ')'. */
static int
parse_args(struct rules_parser *p, const struct rules_builtin *b,
    struct rules_call *c)
{
	struct rules_args st = { 0 };

	while (p->tok.kind != RULES_TOK_RPAREN) {
		if (parse_arg(p, b, c, &st) != 0)
			return -1;
		if (p->tok.kind == RULES_TOK_COMMA) {
			if (rules_advance(p) != 0)
				return -1;
		} else if (p->tok.kind != RULES_TOK_RPAREN)
			return rules_fail(&p->lx, &p->tok.pos, "expected ',' or "
			    "')', got %s", rules_tok_describe(p->tok.kind));
	}
	return 0;
}

static int
parse_unknown_function(struct rules_parser *p, const struct rules_pos *pos)
{
	static const char *const names[] = {
		"prefix_rule", "host_executable", "network_rule",
		"sandbox_profile",
	};
	char dym[64];

	return rules_fail(&p->lx, pos, "unknown function '%.*s'%s (expected "
	    "prefix_rule, host_executable, network_rule or sandbox_profile)", (int)p->tok.len,
	    p->tok.str, rules_did_you_mean(dym, sizeof(dym), p->tok.str,
	    p->tok.len, names, sizeof(names) / sizeof(names[0])));
}

static int
parse_call(struct rules_parser *p)
{
	const struct rules_builtin *b;
	struct rules_pos pos = p->tok.pos;
	struct rules_call *c;
	int r;

	if (p->tok.kind != RULES_TOK_NAME)
		return rules_fail(&p->lx, &pos, "expected prefix_rule(...) or "
		    "host_executable(...), got %s", rules_tok_describe(p->tok.kind));
	if ((b = rules_builtin_find(p->tok.str, p->tok.len)) == NULL)
		return parse_unknown_function(p, &pos);
	if (rules_advance(p) != 0 || rules_expect(p, RULES_TOK_LPAREN, "'('") != 0)
		return -1;
	if ((c = rules_call_new(b, &pos)) == NULL)
		return rules_fail(&p->lx, &pos, "out of memory");
	r = parse_args(p, b, c);
	if (r == 0)
		r = b->finish(p, c);
	rules_call_free(c);
	return r == 0 ? rules_advance(p) : -1;
}

/* A call or an assignment, and what ends it. */
static int
parse_statement(struct rules_parser *p)
{
	bool assign = p->tok.kind == RULES_TOK_NAME &&
	    rules_lex_peek_char(&p->lx) == '=';

	if ((assign ? rules_var_assign(p) : parse_call(p)) != 0)
		return -1;
	if (p->tok.kind == RULES_TOK_SEMI)
		return rules_advance(p);
	if (p->tok.kind != RULES_TOK_NEWLINE && p->tok.kind != RULES_TOK_EOF)
		return rules_fail(&p->lx, &p->tok.pos, "expected end of line "
		    "after %s, got %s", assign ? "the value" : "')'",
		    rules_tok_describe(p->tok.kind));
	return 0;
}

/* After an error: on at the next statement, if there is one and the
 * errors are not too many. */
static bool
parse_recover(struct rules_parser *p)
{
	p->nreplay = 0;
	while (p->lx.nerrors < RULES_MAX_ERRORS && rules_lex_recover(&p->lx))
		if (rules_advance(p) == 0)
			return true;
	return false;
}

int
rules_parse(struct rules_parser *p)
{
	int r = 0;

	if (rules_advance(p) != 0 && !parse_recover(p))
		return -1;
	for (;;) {
		while (p->tok.kind == RULES_TOK_NEWLINE)
			if (rules_advance(p) != 0 && !parse_recover(p))
				return -1;
		if (p->tok.kind == RULES_TOK_EOF)
			return r;
		if (parse_statement(p) != 0) {
			r = -1;
			if (!parse_recover(p))
				return -1;
		}
	}
}
