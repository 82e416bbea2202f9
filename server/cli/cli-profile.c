/*
 * cli-profile.c: the profile a rule escalates into (shellesc-rules(5),
 * PROFILES), copied out of the rules set (which a reload may free) into
 * the verdict, and shown.
 *
 * A verdict's profile NULL means unsandboxed, the default and today's
 * escalation.  A copy that cannot be made is never taken for NULL: the
 * request is denied instead (cli_rules_decide), so running out of memory
 * can only narrow what runs.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli-json.h"

struct cli_profile *
cli_profile_dup(const struct rules_profile *p)
{
	struct cli_profile *c;

	if (p == NULL || p->unsandboxed)
		return NULL;
	if ((c = calloc(1, sizeof(*c))) == NULL ||
	    (c->name = strdup(p->name)) == NULL ||
	    (c->writable = calloc(p->nwritable + 1, sizeof(char *))) == NULL)
		goto fail;
	c->network = p->network;
	for (; c->nwritable < p->nwritable; c->nwritable++)
		if ((c->writable[c->nwritable] = strdup(p->writable[c->nwritable])) == NULL)
			goto fail;
	return c;
fail:
	cli_profile_free(c);
	return CLI_PROFILE_NOMEM;
}

void
cli_profile_free(struct cli_profile *p)
{
	if (p == NULL || p == CLI_PROFILE_NOMEM)
		return;
	for (size_t i = 0; p->writable != NULL && i < p->nwritable; i++)
		free(p->writable[i]);
	free(p->writable);
	free(p->name);
	free(p);
}

char *
cli_profile_dirs(const struct cli_profile *p)
{
	char *s = strdup(""), *n, *v;

	for (size_t i = 0; s != NULL && i < p->nwritable; i++, s = n) {
		v = cli_vis(p->writable[i]);
		if (v == NULL || asprintf(&n, "%s%s%s", s, i ? ", " : "", v) < 0)
			n = NULL;
		free(v);
		free(s);
	}
	return s;
}

const char *
cli_profile_name(const struct cli_profile *p)
{
	return p == NULL ? "unsandboxed" : p->name;
}

json_t *
cli_profile_json(const struct cli_profile *p, enum rules_decision d)
{
	json_t *w;

	if (d != RULES_ESCALATE && d != RULES_PROMPT)
		return json_null();
	if (p == NULL)
		return json_pack("{s:s, s:b, s:[]}", "name", "unsandboxed",
		    "network", 1, "writable");
	w = cli_json_strv(p->writable);
	return json_pack("{s:s, s:b, s:o}", "name", p->name, "network",
	    p->network, "writable", w ? w : json_array());
}

/*
 * The profiles escalations were answered with, one copy of each, kept
 * for the life of the process: a decision's profile must outlive the
 * request (which may be cancelled before prepare ever sees it), and the
 * rules set it came from may be reloaded meanwhile.  Bounded by the
 * distinct profiles the rules define.
 */
static pthread_mutex_t profile_lk = PTHREAD_MUTEX_INITIALIZER;
static struct cli_profile **profile_kept;
static size_t profile_nkept;

static bool
cli_profile_same(const struct cli_profile *a, const struct cli_profile *b)
{
	if (strcmp(a->name, b->name) != 0 || a->network != b->network ||
	    a->nwritable != b->nwritable)
		return false;
	for (size_t i = 0; i < a->nwritable; i++)
		if (strcmp(a->writable[i], b->writable[i]) != 0)
			return false;
	return true;
}

/* A copy of p; CLI_PROFILE_NOMEM when out of memory. */
static struct cli_profile *
cli_profile_copy(const struct cli_profile *p)
{
	struct rules_profile r = { .name = p->name, .network = p->network,
	    .writable = (const char *const *)p->writable, .nwritable = p->nwritable };

	return cli_profile_dup(&r);
}

const struct cli_profile *
cli_profile_keep(const struct cli_profile *p0)
{
	const struct cli_profile *k = NULL;
	struct cli_profile **v, *p = cli_profile_copy(p0);

	if (p == CLI_PROFILE_NOMEM)
		return NULL;
	pthread_mutex_lock(&profile_lk);
	for (size_t i = 0; k == NULL && i < profile_nkept; i++)
		if (cli_profile_same(profile_kept[i], p))
			k = profile_kept[i];
	if (k == NULL && (v = reallocarray(profile_kept, profile_nkept + 1,
	    sizeof(*v))) != NULL) {
		profile_kept = v;
		k = profile_kept[profile_nkept++] = p;
		p = NULL;
	}
	pthread_mutex_unlock(&profile_lk);
	cli_profile_free(p);
	return k;
}

/* The layers in (n of them) widened by p into out: the network where p
 * has it, p's directories writable in each (Landlock layers stack, so
 * every layer must allow them); everything else (--no-exec-writable, the
 * read-only .git) as it is.  out's writable lists are its own (free them
 * with cli_strv_free); the rest is borrowed from in.  0 or -1. */
static int
cli_profile_widen(const struct cli_layer *in, size_t n, const struct cli_profile *p,
    struct cli_layer *out)
{
	int r = 0;

	for (size_t k = 0; k < n; k++) {
		out[k] = in[k];
		out[k].writable = (struct cli_strv){ 0 };
		out[k].no_network = in[k].no_network && !p->network;
		for (size_t i = 0; r == 0 && in[k].writable.v && in[k].writable.v[i]; i++)
			r = cli_strv_add(&out[k].writable, in[k].writable.v[i]);
		for (size_t i = 0; r == 0 && i < p->nwritable; i++)
			r = cli_strv_add(&out[k].writable, p->writable[i]);
	}
	return r;
}

struct shellesc_sandbox *
cli_profile_sandbox(const struct cli_layer *in, size_t n, const struct cli_profile *p)
{
	struct cli_layer out[SHELLESC_SANDBOX_MAX_LAYERS] = { 0 };
	struct shellesc_sandbox *sb = NULL;

	/* The server starts the escalated command: no listener of a session
	 * is there for it, so its socket connects are not gated (security.md) */
	if (n <= SHELLESC_SANDBOX_MAX_LAYERS && cli_profile_widen(in, n, p, out) == 0)
		sb = cli_sandbox_new(out, n, SHELLESC_SANDBOX_NO_SOCKET_GATE, NULL, 0);
	for (size_t k = 0; k < n && k < SHELLESC_SANDBOX_MAX_LAYERS; k++)
		cli_strv_free(&out[k].writable);
	if (sb == NULL)
		cli_warnx("escalation into profile %s not started: its sandbox cannot be "
		    "built", p->name);
	return sb;
}

/*
 * The prepare callback (run, exec): an escalation answered with
 * SHELLESC_MODE_PROFILE runs under the session's sandbox widened by the
 * profile, Landlock and the seccomp filter, built now; one that cannot be
 * built does not run (never unsandboxed instead).
 */
int
cli_profile_prepare(void *arg, const struct shellesc_request *req,
    const struct shellesc_decision *d, struct shellesc_prepared *p)
{
	const struct cli *c = arg;
	const struct cli_layer one = { .writable = c->o.writable,
	    .no_network = c->o.no_network, .no_exec = c->o.no_exec_writable,
	    .exec_allowed = c->exec_allowed, .writable_git = c->o.writable_git };

	(void)req;
	if (d->action != SHELLESC_ESCALATE || d->mode != SHELLESC_MODE_PROFILE)
		return 0;
	if (d->profile == NULL)
		return -EPERM;		/* never unsandboxed instead */
	p->sandbox = cli_profile_sandbox(&one, c->o.sandbox == CLI_SANDBOX_LANDLOCK ?
	    1 : 0, d->profile);
	return p->sandbox == NULL ? -EPERM : 0;
}

void
cli_profile_release(void *arg, struct shellesc_prepared *p)
{
	(void)arg;
	shellesc_sandbox_free((struct shellesc_sandbox *)p->sandbox);
	p->sandbox = NULL;
}

/* --- A profile a request asks for (the hook for mcp's sandbox_permissions) --- */

struct cli_profile_ask {
	const char *name;
	struct cli_profile *found;	/* CLI_PROFILE_NOMEM, or NULL: unknown */
	bool known;
};

static void
cli_profile_lookup(void *arg, const struct rules *r)
{
	struct cli_profile_ask *a = arg;
	const struct rules_profile *p = rules_profile_find(r, a->name);

	a->known = p != NULL;
	a->found = p ? cli_profile_dup(p) : NULL;
}

/*
 * A profile the request itself asks for (name: "unsandboxed", "network",
 * or one the rules define) only ever asks: whatever the rules decided
 * but deny becomes a prompt whose yes escalates into that profile.  The
 * rules can still forbid it (a deny stays a deny), and nothing is
 * granted without the question.  A rule that already escalates into
 * that very profile stands: the request adds nothing to what the rules
 * give (so a rule the person kept applies without asking again).  0, or
 * -1 (an unknown name, out of memory) with v denied saying why.
 */
int
cli_profile_requested(struct cli *c, struct cli_verdict *v, const char *name)
{
	struct cli_profile_ask a = { .name = name };

	if (v->effective == RULES_DENY || (v->effective == RULES_ESCALATE &&
	    strcmp(cli_profile_name(v->profile), name) == 0))
		return 0;
	cli_rules_with(c, cli_profile_lookup, &a);
	if (!a.known || a.found == CLI_PROFILE_NOMEM)
		return cli_verdict_deny(v, "error", a.known ? "out of memory" :
		    "the request asks for profile \"%.60s\", which the rules do not "
		    "define", name);
	cli_profile_free(v->profile);
	v->profile = a.found;		/* NULL: unsandboxed */
	v->effective = RULES_PROMPT;
	return 0;
}

bool
cli_profile_known(struct cli *c, const char *name)
{
	struct cli_profile_ask a = { .name = name };

	cli_rules_with(c, cli_profile_lookup, &a);
	cli_profile_free(a.found);
	return a.known;
}
