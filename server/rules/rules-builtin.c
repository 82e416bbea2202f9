/*
 * rules-builtin.c: the functions a rules file calls, prefix_rule() and
 * host_executable() (network_rule() is rules-network.c's), as tables of
 * parameters.
 *
 * Codex's parameters come first, in Codex's order, so positional calls
 * mean what they mean there; shellesc's own (target) is keyword-only, so a
 * parameter Codex adds later cannot shift it.  Each parameter parses its
 * own value, so a wrong type is reported where the value is.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "rules-int.h"


/* An absolute path from the file: "~/" expanded, "." and "//" dropped. */
int
rules_builtin_path(struct rules_parser *p, const char **s,
    const struct rules_pos *pos, const char *what)
{
	const char *why;
	char *x;

	if ((x = rules_path_expand(p->arena, *s, &why)) == NULL)
		return why == NULL ? rules_fail(&p->lx, pos, "out of memory") :
		    rules_fail(&p->lx, pos, "%s: %s", what, why);
	if (x[0] != '/')
		return rules_fail(&p->lx, pos, "%s: path \"%.100s\" is not "
		    "absolute", what, *s);
	path_clean(x);
	*s = x;
	return 0;
}

/* The program element: names, absolute paths, relative paths (kept as
 * written) or the wildcard. */
static int
builtin_heads(struct rules_parser *p, struct rules_elem *e,
    const struct rules_pos *pos)
{
	const char **alt = (const char **)e->alt;

	for (size_t i = 0; i < e->nalt; i++) {
		if (alt[i][0] == '\0')
			return rules_fail(&p->lx, &pos[i],
			    "pattern: the program cannot be empty");
		/* a relative path ("./gradlew") is matched as written */
		if ((alt[i][0] == '/' || strncmp(alt[i], "~/", 2) == 0) &&
		    rules_builtin_path(p, &alt[i], &pos[i], "pattern") != 0)
			return -1;
	}
	return 0;
}

/* The pattern's elements as they are parsed, and where each alternative
 * is in the text (for the lint's warnings). */
struct pattern_acc {
	struct rules_vec elems;		/* struct rules_elem */
	struct rules_vec pos;		/* struct rules_pos[nalt] */
};

/* One pattern element: a string, or a non-empty list of alternatives. */
static int
pattern_item(struct rules_parser *p, void *arg)
{
	struct pattern_acc *acc = arg;
	struct rules_pos at = p->tok.pos, *pos;
	struct rules_elem *e;
	const char **one;

	if ((e = rules_arena_alloc(p->arena, sizeof(*e))) == NULL ||
	    (pos = rules_arena_alloc(p->arena, sizeof(*pos))) == NULL ||
	    rules_vec_push(&acc->elems, e) != 0)
		return rules_fail(&p->lx, &at, "out of memory");
	*pos = at;
	if (p->tok.kind == RULES_TOK_LBRACK) {
		if (rules_parse_strings(p, "pattern", &e->alt, &e->nalt, &pos) != 0)
			return -1;
		if (e->nalt == 0)
			return rules_fail(&p->lx, &at,
			    "pattern: a list of alternatives cannot be empty");
	} else if (p->tok.kind == RULES_TOK_STRING) {
		if ((one = rules_arena_alloc(p->arena, sizeof(*one))) == NULL)
			return rules_fail(&p->lx, &at, "out of memory");
		if (rules_parse_string(p, "pattern", one, NULL) != 0)
			return -1;
		e->alt = one;
		e->nalt = 1;
	} else
		return rules_fail(&p->lx, &at, "pattern: expected a string or a "
		    "list of strings, got %s", rules_tok_describe(p->tok.kind));
	if (rules_vec_push(&acc->pos, pos) != 0)
		return rules_fail(&p->lx, &at, "out of memory");
	return acc->elems.n == 1 ? builtin_heads(p, e, pos) : 0;
}

static int
prefix_pattern(struct rules_parser *p, struct rules_call *c)
{
	struct pattern_acc acc = { { 0 }, { 0 } };
	struct rules_pos at = p->tok.pos;
	int r;

	r = rules_parse_list(p, "pattern", pattern_item, &acc, &c->npat);
	if (r == 0 && c->npat == 0)
		r = rules_fail(&p->lx, &at, "pattern cannot be empty");
	if (r == 0 && ((c->pat = rules_arena_alloc(p->arena,
	    c->npat * sizeof(*c->pat))) == NULL ||
	    (c->pat_pos = (const struct rules_pos *const *)
	    rules_vec_copy(&acc.pos, p->arena)) == NULL))
		r = rules_fail(&p->lx, &at, "out of memory");
	for (size_t i = 0; r == 0 && i < c->npat; i++)
		((struct rules_elem *)c->pat)[i] = *(struct rules_elem *)acc.elems.v[i];
	rules_vec_free(&acc.elems);
	rules_vec_free(&acc.pos);
	return r;
}

static const char *const decisions[] = {
	"allow", "prompt", "forbidden", "run", "escalate", "deny",
};

int
rules_builtin_unknown(struct rules_parser *p, const struct rules_pos *at,
    const char *what, const char *s, const char *const *known, size_t n)
{
	char dym[64], list[128];
	size_t k = 0;

	list[0] = '\0';
	for (size_t i = 0; i < n && k < sizeof(list); i++)
		k += (size_t)snprintf(list + k, sizeof(list) - k, "%s%s",
		    i == 0 ? "" : i + 1 == n ? " or " : ", ", known[i]);
	return rules_fail(&p->lx, at, "unknown %s \"%.40s\"%s (expected %s)",
	    what, s, rules_did_you_mean(dym, sizeof(dym), s, strlen(s), known, n),
	    list);
}

static int
prefix_decision(struct rules_parser *p, struct rules_call *c)
{
	struct rules_pos at = p->tok.pos;
	const char *s;

	if (rules_parse_string(p, "decision", &s, NULL) != 0)
		return -1;
	if (rules_decision_parse(s, &c->decision) != 0)
		return rules_builtin_unknown(p, &at, "decision", s, decisions,
		    sizeof(decisions) / sizeof(decisions[0]));
	c->has_decision = true;
	c->decision_word = s;
	c->decision_pos = at;
	return 0;
}

int
rules_parse_justification(struct rules_parser *p, struct rules_call *c)
{
	struct rules_pos at = p->tok.pos;

	if (rules_parse_string(p, "justification", &c->justification, NULL) != 0)
		return -1;
	if (c->justification[strspn(c->justification, " \t\r\n\f\v")] == '\0')
		return rules_fail(&p->lx, &at, "justification cannot be empty");
	return 0;
}

/* exact=True: the pattern matches commands of its very length only. */
static int
prefix_exact(struct rules_parser *p, struct rules_call *c)
{
	if (p->tok.kind == RULES_TOK_NAME && p->tok.len == 4 &&
	    memcmp(p->tok.str, "True", 4) == 0)
		c->exact = true;
	else if (!(p->tok.kind == RULES_TOK_NAME && p->tok.len == 5 &&
	    memcmp(p->tok.str, "False", 5) == 0))
		return rules_fail(&p->lx, &p->tok.pos, "exact: expected True or False, got %s",
		    rules_tok_describe(p->tok.kind));
	return rules_advance(p);
}

/* argv0 = ["NAME", ...]: names (or paths) argv[0] may be written as. */
static int
prefix_argv0(struct rules_parser *p, struct rules_call *c)
{
	struct rules_pos at = p->tok.pos, *pos;

	if (rules_parse_strings(p, "argv0", &c->argv0, &c->nargv0, &pos) != 0)
		return -1;
	for (size_t i = 0; i < c->nargv0; i++)
		if (c->argv0[i][0] == '\0')
			return rules_fail(&p->lx, &pos[i], "argv0: a name cannot be empty");
	if (c->nargv0 == 0)
		return rules_fail(&p->lx, &at, "argv0: expected at least one name");
	return 0;
}

static int
prefix_target(struct rules_parser *p, struct rules_call *c)
{
	static const char *const names[] = { "static", "setid" };
	static const struct { const char *name; unsigned bit; } targets[] = {
		{ "static", RULES_TARGET_STATIC },
		{ "setid", RULES_TARGET_SETID },
	};
	struct rules_pos at = p->tok.pos, *pos;
	const char *const *v;
	size_t n, k;

	if (rules_parse_strings(p, "target", &v, &n, &pos) != 0)
		return -1;
	if (n == 0)
		return rules_fail(&p->lx, &at, "target cannot be empty");
	for (size_t i = 0; i < n; i++) {
		for (k = 0; k < sizeof(targets) / sizeof(targets[0]); k++)
			if (strcmp(v[i], targets[k].name) == 0)
				break;
		if (k == sizeof(targets) / sizeof(targets[0]))
			return rules_builtin_unknown(p, &pos[i], "target", v[i], names, 2);
		c->target |= targets[k].bit;
	}
	return 0;
}

/* An example's tokens: a list of strings, or one string split into words. */
static int
example_tokens(struct rules_parser *p, struct rules_example *ex,
    const char *what)
{
	struct rules_vec words = { 0 };
	const char *why = NULL;
	int r;

	if (p->tok.kind != RULES_TOK_STRING)
		return rules_parse_strings(p, what, &ex->tok, &ex->ntok, NULL);
	r = rules_split(p->arena, p->tok.str, &words, &why);
	if (r != 0)
		r = rules_fail(&p->lx, &ex->pos, "%s: %s", what, why);
	ex->ntok = words.n;
	if (r == 0 && words.n > 0 && (ex->tok =
	    (const char *const *)rules_vec_copy(&words, p->arena)) == NULL)
		r = rules_fail(&p->lx, &ex->pos, "out of memory");
	rules_vec_free(&words);
	return r == 0 ? rules_advance(p) : -1;
}

/* An example's program is read as a pattern's is ("~/", "//", "."), so
 * it names what the rule names; a relative one stays as written. */
static int
example_program(struct rules_parser *p, struct rules_example *ex,
    const char *what)
{
	const char **tok = (const char **)ex->tok;
	const char *why;
	char *x;

	if (strchr(tok[0], '/') == NULL)
		return 0;
	if ((x = rules_path_expand(p->arena, tok[0], &why)) == NULL)
		return why == NULL ? rules_fail(&p->lx, &ex->pos, "out of memory") :
		    rules_fail(&p->lx, &ex->pos, "%s: %s", what, why);
	if (x[0] == '/')
		path_clean(x);
	tok[0] = x;
	return 0;
}

struct example_list {
	struct rules_call *c;
	bool match;
};

static int
example_item(struct rules_parser *p, void *arg)
{
	struct example_list *el = arg;
	const char *what = el->match ? "match example" : "not_match example";
	struct rules_example *ex;

	if ((ex = rules_arena_alloc(p->arena, sizeof(*ex))) == NULL ||
	    rules_vec_push(&el->c->examples, ex) != 0)
		return rules_fail(&p->lx, &p->tok.pos, "out of memory");
	memset(ex, 0, sizeof(*ex));
	ex->match = el->match;
	ex->pos = p->tok.pos;
	if (p->tok.kind != RULES_TOK_STRING && p->tok.kind != RULES_TOK_LBRACK)
		return rules_fail(&p->lx, &ex->pos, "%s: expected a string or a "
		    "list of strings, got %s", what, rules_tok_describe(p->tok.kind));
	if (example_tokens(p, ex, what) != 0)
		return -1;
	ex->end = p->prev_end;
	if (ex->ntok == 0)
		return rules_fail(&p->lx, &ex->pos, "%s cannot be empty", what);
	return example_program(p, ex, what);
}

static int
prefix_examples(struct rules_parser *p, struct rules_call *c, bool match)
{
	struct example_list el = { c, match };
	size_t n;

	return rules_parse_list(p, match ? "match" : "not_match", example_item,
	    &el, &n);
}

static int
prefix_match(struct rules_parser *p, struct rules_call *c)
{
	return prefix_examples(p, c, true);
}

static int
prefix_not_match(struct rules_parser *p, struct rules_call *c)
{
	return prefix_examples(p, c, false);
}

static int
prefix_finish(struct rules_parser *p, struct rules_call *c)
{
	struct rules_rule *rule;
	size_t len = strlen(p->lx.name) + 16;
	char *source;

	if (c->pat == NULL)
		return rules_fail(&p->lx, &c->pos,
		    "prefix_rule: missing argument pattern");
	/* no decision: Codex's default (allow) in Codex's files, else prompt */
	if (!c->has_decision)
		c->decision = p->ld->r->codex ? RULES_ESCALATE : RULES_PROMPT;
	if (rules_profile_check_rule(p, c) != 0)
		return -1;
	rules_lint_call(p, c);
	if ((rule = rules_arena_alloc(p->arena, sizeof(*rule))) == NULL ||
	    (source = rules_arena_alloc(p->arena, len)) == NULL)
		return rules_fail(&p->lx, &c->pos, "out of memory");
	snprintf(source, len, "%s:%d", p->lx.name, c->pos.line);
	*rule = (struct rules_rule){ .pat = c->pat, .npat = c->npat,
	    .decision = c->decision, .target = c->target, .exact = c->exact,
	    .justification = c->justification, .argv0 = c->argv0, .nargv0 = c->nargv0,
	    .profile = c->profile, .source = source };
	if (rules_load_add_rule(p->ld, rule) != 0)
		return rules_fail(&p->lx, &c->pos, "out of memory");
	for (size_t i = 0; i < c->examples.n; i++) {
		struct rules_example *ex = c->examples.v[i];

		ex->rule = rule;
		if (rules_vec_push(&p->ld->examples, ex) != 0)
			return rules_fail(&p->lx, &c->pos, "out of memory");
	}
	return 0;
}

static int
host_name(struct rules_parser *p, struct rules_call *c)
{
	c->name_pos = p->tok.pos;
	if (rules_parse_string(p, "name", &c->name, NULL) != 0)
		return -1;
	if (c->name[0] == '\0' || strchr(c->name, '/') != NULL ||
	    strcmp(c->name, RULES_WILDCARD) == 0)
		return rules_fail(&p->lx, &c->name_pos, "host_executable: name "
		    "must be a program name, without '/'");
	return 0;
}

static int
host_paths(struct rules_parser *p, struct rules_call *c)
{
	const char **v;

	if (rules_parse_strings(p, "paths", &c->paths, &c->npaths,
	    &c->path_pos) != 0)
		return -1;
	c->has_paths = true;
	v = (const char **)c->paths;
	for (size_t i = 0; i < c->npaths; i++)
		if (rules_builtin_path(p, &v[i], &c->path_pos[i],
		    "host_executable") != 0)
			return -1;
	return 0;
}

static int
host_finish(struct rules_parser *p, struct rules_call *c)
{
	struct rules_host *def;

	if (c->name == NULL || !c->has_paths)
		return rules_fail(&p->lx, &c->pos, "host_executable: missing "
		    "argument %s", c->name == NULL ? "name" : "paths");
	for (size_t i = 0; i < c->npaths; i++)
		if (strcmp(strrchr(c->paths[i], '/') + 1, c->name) != 0)
			return rules_fail(&p->lx, &c->path_pos[i], "host_executable: "
			    "path \"%.100s\" does not name %s", c->paths[i], c->name);
	if ((def = rules_arena_alloc(p->arena, sizeof(*def))) == NULL)
		return rules_fail(&p->lx, &c->pos, "out of memory");
	*def = (struct rules_host){ .paths = c->paths, .npaths = c->npaths };
	if (rules_load_add_host(p->ld, c->name, def) != 0)
		return rules_fail(&p->lx, &c->pos, "out of memory");
	return 0;
}

static const struct rules_param prefix_params[] = {
	{ "pattern", true, prefix_pattern },
	{ "decision", true, prefix_decision },
	{ "match", true, prefix_match },
	{ "not_match", true, prefix_not_match },
	{ "justification", true, rules_parse_justification },
	{ "target", false, prefix_target },
	{ "exact", false, prefix_exact },
	{ "argv0", false, prefix_argv0 },
	{ "profile", false, rules_parse_profile },
};

static const struct rules_param host_params[] = {
	{ "name", true, host_name },
	{ "paths", true, host_paths },
};

static const struct rules_builtin builtins[] = {
	{ "prefix_rule", prefix_params,
	    sizeof(prefix_params) / sizeof(prefix_params[0]), prefix_finish },
	{ "host_executable", host_params,
	    sizeof(host_params) / sizeof(host_params[0]), host_finish },
	{ "network_rule", rules_network_params, RULES_NETWORK_NPARAMS,
	    rules_network_finish },
	{ "sandbox_profile", rules_profile_params, RULES_PROFILE_NPARAMS,
	    rules_profile_finish },
};

const struct rules_builtin *
rules_builtin_find(const char *name, size_t len)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (strlen(builtins[i].name) == len &&
		    memcmp(builtins[i].name, name, len) == 0)
			return &builtins[i];
	return NULL;
}

struct rules_call *
rules_call_new(const struct rules_builtin *b, const struct rules_pos *pos)
{
	struct rules_call *c = calloc(1, sizeof(*c));

	if (c != NULL) {
		c->pos = *pos;
		c->decision = RULES_PROMPT;	/* prefix_finish decides */
	}
	return c;
}

void
rules_call_free(struct rules_call *c)
{
	if (c != NULL)
		rules_vec_free(&c->examples);
	free(c);
}
