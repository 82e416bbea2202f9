/*
 * rules-profile.c: sandbox profiles (shellesc-rules(5), PROFILES).
 *
 *   sandbox_profile(name = "npm", writable = ["~/.npm"], network = True)
 *   prefix_rule(["npm", "install"], decision = "escalate", profile = "npm")
 *
 * A profile is what an escalated command runs under instead of no sandbox
 * at all: the session's own sandbox, widened by the network and by more
 * writable directories, and by nothing else.  The rules only name and
 * describe profiles; the embedder builds the sandbox (the shellesc
 * command: cli-sandbox.c).  A profile is defined once (redefining one,
 * built-ins included, is an error: a later file must not quietly widen
 * what an earlier rule escalates into), and above the rules that name it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules-int.h"

const struct rules_profile rules_profile_unsandboxed = {
	.name = "unsandboxed", .unsandboxed = true, .network = true,
};
const struct rules_profile rules_profile_network = {
	.name = "network", .network = true,
};

static const struct rules_profile *const profile_builtins[] = {
	&rules_profile_unsandboxed, &rules_profile_network,
};
#define PROFILE_NBUILTINS (sizeof(profile_builtins) / sizeof(profile_builtins[0]))

const struct rules_profile *
rules_profile_find(const struct rules *r, const char *name)
{
	for (size_t i = 0; name != NULL && i < PROFILE_NBUILTINS; i++)
		if (strcmp(profile_builtins[i]->name, name) == 0)
			return profile_builtins[i];
	for (size_t i = 0; r != NULL && name != NULL && i < r->profiles.n; i++) {
		const struct rules_profile_def *d = r->profiles.v[i];

		if (strcmp(d->pub.name, name) == 0)
			return &d->pub;
	}
	return NULL;
}

static bool
profile_has_dir(const struct rules_profile *p, const char *dir)
{
	size_t n = strlen(dir);

	/* beneath one of p's directories counts as within it */
	for (size_t i = 0; i < p->nwritable; i++) {
		size_t k = strlen(p->writable[i]);

		if (strncmp(dir, p->writable[i], k) == 0 && (n == k ||
		    dir[k] == '/' || strcmp(p->writable[i], "/") == 0))
			return true;
	}
	return false;
}

bool
rules_profile_within(const struct rules_profile *inner,
    const struct rules_profile *outer)
{
	if (outer == NULL || outer->unsandboxed)
		return true;
	if (inner == NULL || inner->unsandboxed || (inner->network && !outer->network))
		return false;
	for (size_t i = 0; i < inner->nwritable; i++)
		if (!profile_has_dir(outer, inner->writable[i]))
			return false;
	return true;
}

/* --- sandbox_profile() ---------------------------------------------------- */

static int
profile_name(struct rules_parser *p, struct rules_call *c)
{
	c->name_pos = p->tok.pos;
	if (rules_parse_string(p, "name", &c->name, NULL) != 0)
		return -1;
	if (c->name[0] == '\0' || c->name[strspn(c->name, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")] != '\0')
		return rules_fail(&p->lx, &c->name_pos, "sandbox_profile: name "
		    "must be letters, digits, '_', '.' or '-'");
	return 0;
}

static int
profile_writable(struct rules_parser *p, struct rules_call *c)
{
	const char **v;

	if (rules_parse_strings(p, "writable", &c->writable, &c->nwritable,
	    &c->writable_pos) != 0)
		return -1;
	v = (const char **)c->writable;
	for (size_t i = 0; i < c->nwritable; i++)
		if (rules_builtin_path(p, &v[i], &c->writable_pos[i],
		    "sandbox_profile: writable") != 0)
			return -1;
	return 0;
}

static int
profile_network(struct rules_parser *p, struct rules_call *c)
{
	bool t = p->tok.kind == RULES_TOK_NAME && p->tok.len == 4 &&
	    memcmp(p->tok.str, "True", 4) == 0;

	if (!t && !(p->tok.kind == RULES_TOK_NAME && p->tok.len == 5 &&
	    memcmp(p->tok.str, "False", 5) == 0))
		return rules_fail(&p->lx, &p->tok.pos, "network: expected True "
		    "or False, got %s", rules_tok_describe(p->tok.kind));
	c->network = t;
	c->has_network = true;
	return rules_advance(p);
}

static int
profile_sockets(struct rules_parser *p, struct rules_call *c)
{
	struct rules_pos at = p->tok.pos;

	if (rules_parse_strings(p, "allow_sockets", &c->sockets, &c->nsockets,
	    NULL) != 0)
		return -1;
	/* kept for embedders; the shellesc command's sandbox (Landlock)
	 * cannot open one socket and not another */
	if (c->nsockets > 0)
		rules_note(&p->lx, &at, RULES_SEV_WARNING, "allow_sockets is kept "
		    "but not enforced: the profile's sandbox allows or blocks "
		    "sockets as a whole");
	return 0;
}

static int
profile_define(struct rules_parser *p, const struct rules_call *c)
{
	struct rules_profile_def *d = rules_arena_alloc(p->arena, sizeof(*d));

	if (d == NULL || rules_vec_push(&p->ld->r->profiles, d) != 0)
		return rules_fail(&p->lx, &c->pos, "out of memory");
	memset(d, 0, sizeof(*d));
	d->pub = (struct rules_profile){ .name = c->name, .network = c->network,
	    .writable = c->writable, .nwritable = c->nwritable,
	    .allow_sockets = c->sockets, .nsockets = c->nsockets };
	snprintf(d->file, sizeof(d->file), "%s", p->lx.name);
	d->line = c->pos.line;
	d->column = (int)(c->pos.off - c->pos.bol) + 1;
	if ((d->pub.source = rules_arena_alloc(p->arena, strlen(d->file) + 16)) != NULL)
		sprintf((char *)d->pub.source, "%s:%d", d->file, d->line);
	return d->pub.source == NULL ? rules_fail(&p->lx, &c->pos, "out of memory") : 0;
}

int
rules_profile_finish(struct rules_parser *p, struct rules_call *c)
{
	const struct rules_profile *old;

	if (c->name == NULL)
		return rules_fail(&p->lx, &c->pos, "sandbox_profile: missing "
		    "argument name");
	if ((old = rules_profile_find(p->ld->r, c->name)) != NULL)
		return old->source == NULL ? rules_fail(&p->lx, &c->name_pos,
		    "sandbox_profile: \"%s\" is a built-in profile", c->name) :
		    rules_fail(&p->lx, &c->name_pos, "sandbox_profile: \"%s\" is "
		    "already defined at %s", c->name, old->source);
	if (!c->has_network && c->nwritable == 0)
		rules_note(&p->lx, &c->pos, RULES_SEV_WARNING, "sandbox_profile "
		    "\"%s\" adds nothing to the session's sandbox", c->name);
	return profile_define(p, c);
}

const struct rules_param rules_profile_params[RULES_PROFILE_NPARAMS] = {
	{ "name", true, profile_name },
	{ "writable", false, profile_writable },
	{ "network", false, profile_network },
	{ "allow_sockets", false, profile_sockets },
};

/* --- prefix_rule(..., profile = "NAME") ------------------------------------ */

static int
profile_unknown(struct rules_parser *p, const struct rules_pos *at, const char *s)
{
	const char *names[PROFILE_NBUILTINS + 32];
	size_t n = 0;
	char dym[64];

	for (size_t i = 0; i < PROFILE_NBUILTINS; i++)
		names[n++] = profile_builtins[i]->name;
	for (size_t i = 0; i < p->ld->r->profiles.n && n < sizeof(names) / sizeof(names[0]); i++)
		names[n++] = ((const struct rules_profile_def *)p->ld->r->profiles.v[i])->pub.name;
	return rules_fail(&p->lx, at, "unknown profile \"%.40s\"%s "
	    "(a built-in: network, unsandboxed; or one a sandbox_profile() "
	    "above defines)", s, rules_did_you_mean(dym, sizeof(dym), s,
	    strlen(s), names, n));
}

int
rules_parse_profile(struct rules_parser *p, struct rules_call *c)
{
	struct rules_pos at = p->tok.pos;
	const char *s;

	if (rules_parse_string(p, "profile", &s, NULL) != 0)
		return -1;
	if ((c->profile = rules_profile_find(p->ld->r, s)) == NULL)
		return profile_unknown(p, &at, s);
	c->profile_pos = at;
	return 0;
}

int
rules_profile_check_rule(struct rules_parser *p, const struct rules_call *c)
{
	if (c->profile == NULL || c->decision == RULES_ESCALATE ||
	    c->decision == RULES_PROMPT)
		return 0;
	return rules_fail(&p->lx, &c->profile_pos, "profile: a %s rule runs "
	    "nothing under a profile (only escalate, allow and prompt do)",
	    rules_decision_name(c->decision));
}

/* --- the lint -------------------------------------------------------------- */

static bool
profile_used(const struct rules *r, const struct rules_profile *pr)
{
	for (size_t i = 0; i < r->index.cap; i++) {
		const struct rules_node *n = (const struct rules_node *)r->index.slot[i];

		for (size_t k = 0; n != NULL && k < n->rules.n; k++)
			if (((const struct rules_rule *)n->rules.v[k])->profile == pr)
				return true;
	}
	return false;
}

size_t
rules_profile_lint(const struct rules *r)
{
	size_t found = 0;

	for (size_t i = 0; r != NULL && i < r->profiles.n; i++) {
		const struct rules_profile_def *d = r->profiles.v[i];
		struct rules_error e = { .line = d->line, .column = d->column,
		    .severity = RULES_SEV_WARNING };

		if (profile_used(r, &d->pub))
			continue;
		snprintf(e.file, sizeof(e.file), "%s", d->file);
		snprintf(e.msg, sizeof(e.msg), "sandbox_profile \"%.60s\" is not "
		    "used: no rule names it (profile = \"%.60s\")", d->pub.name,
		    d->pub.name);
		rules_report(r, &e);
		found++;
	}
	return found;
}
