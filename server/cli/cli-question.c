/*
 * cli-question.c: the one text that asks a person about a request, for
 * every question a client renders (mcp's elicitation/create; later the
 * agent's own justification goes through cli_question_text too).
 *
 * What it shows is what will run: the target's real path (and the name it
 * was called by, when they differ: a symlink named cat pointing at rm),
 * its argv as decided, and the cwd (the server's own fd of it, so the
 * directory shown is the one the command runs in), saying when the
 * sandbox can write it: what the command finds there may be the agent's
 * work, not the person's.  The text is plain, and safe to
 * render as Markdown: every value from the request sits in a code span
 * whose backtick fence is longer than any run of backticks inside it, so
 * no argument can end the span, and nothing inside a span is Markdown
 * (no links, no images, no HTML); free text is backslash-escaped.  Each
 * value is bounded: its head and tail are kept with a count of what was
 * cut from the middle, so the part that matters cannot hide past what a
 * window shows, and the message stays far below the 4 MiB of a request.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define QUESTION_VALUE_MAX	1024	/* bytes of one value shown: head + tail */

/* s cut to its first and last max/2 bytes around " ... "; *cut how many
 * went.  Every byte of a cli_vis string is ASCII, so any cut is valid. */
static char *
cli_question_bound(const char *s, size_t max, size_t *cut)
{
	size_t n = strlen(s), half = max / 2;
	char *out;

	*cut = n > max ? n - 2 * half : 0;
	if (*cut == 0)
		return strdup(s);
	if (asprintf(&out, "%.*s ... %s", (int)half, s, s + n - half) < 0)
		return NULL;
	return out;
}

/* The longest run of backticks in s. */
static size_t
cli_question_ticks(const char *s)
{
	size_t best = 0, run = 0;

	for (; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

/* s as a Markdown code span: a fence one longer than its longest run of
 * backticks, and, where s starts or ends with a backtick or a space, a
 * space inside each end (which a renderer strips), so that a backtick of
 * s cannot touch the fence. */
static char *
cli_question_span(const char *s)
{
	size_t n = cli_question_ticks(s) + 1, len = strlen(s);
	bool pad = len && (strchr("` ", s[0]) || strchr("` ", s[len - 1]));
	char fence[n + 1], *out;

	memset(fence, '`', n);
	fence[n] = '\0';
	if (asprintf(&out, "%s%s%s%s%s", fence, pad ? " " : "", s, pad ? " " : "", fence) < 0)
		return NULL;
	return out;
}

char *
cli_question_value(const char *s, size_t *cut)
{
	char *vis = cli_vis(s), *bounded, *span;

	*cut = 0;
	if (vis == NULL)
		return NULL;
	bounded = cli_question_bound(vis, QUESTION_VALUE_MAX, cut);
	free(vis);
	span = bounded ? cli_question_span(bounded) : NULL;
	free(bounded);
	return span;
}

char *
cli_question_text(const char *s, size_t max)
{
	char *vis = cli_vis(s), *bounded, *out, *o;
	size_t cut = 0;

	bounded = vis ? cli_question_bound(vis, max, &cut) : NULL;
	free(vis);
	if (bounded == NULL || (out = malloc(2 * strlen(bounded) + 64)) == NULL) {
		free(bounded);
		return NULL;
	}
	o = out;
	for (const char *p = bounded; *p; p++) {
		/* what starts inline Markdown (cli_vis left no newline, so
		 * no block can start): emphasis, code, links, images, HTML */
		if (strchr("\\`*_[]<>!&~", *p))
			*o++ = '\\';
		*o++ = *p;
	}
	if (cut)
		o += sprintf(o, " (%zu bytes cut)", cut);
	*o = '\0';
	free(bounded);
	return out;
}

/* "`/usr/bin/rm -- x`", with the count of bytes cut, if any. */
static char *
cli_question_command(const struct shellesc_request *req, size_t *cut)
{
	const struct shellesc_target *t = shellesc_request_target(req);
	char *const *argv = t->argv ? t->argv : shellesc_request_argv(req);
	const char *path = t->path ? t->path : shellesc_request_program(req);
	char *cmd = cli_show_argv(path, argv), *span;

	*cut = 0;
	if (cmd == NULL)
		return NULL;
	span = cli_question_value(cmd, cut);
	free(cmd);
	return span;
}

/* " (called as `bin/cat`)" when the name differs from the real path. */
static char *
cli_question_called(const struct shellesc_request *req)
{
	const struct shellesc_target *t = shellesc_request_target(req);
	const char *name = shellesc_request_program(req);
	char *span, *out;
	size_t cut;

	if (t->path != NULL && strcmp(t->path, name) == 0)
		return strdup("");
	if ((span = cli_question_value(name, &cut)) == NULL)
		return NULL;
	if (asprintf(&out, " (called as %s%s)", span, t->path ? "" :
	    "; its file has no path") < 0)
		out = NULL;
	free(span);
	return out;
}

/* "N bytes of the command and M of the directory cut from the middle." */
static void
cli_question_cuts(char *buf, size_t size, size_t cmd_cut, size_t cwd_cut)
{
	buf[0] = '\0';
	if (cmd_cut || cwd_cut)
		snprintf(buf, size, "\n(%zu bytes of the command and %zu of the directory "
		    "cut from the middle.)", cmd_cut, cwd_cut);
}

#define QUESTION_DIRS_MAX	8	/* a profile's directories shown */

/* "\nIt runs under the profile `NAME` (...); also writable: `DIR`, ...",
 * or "" for no profile (malloc'd; NULL: out of memory).  Names and directories come from the
 * rules, not the caller, but are shown as values all the same. */
/* *s with a and b appended (a new string; *s freed); false and *s NULL
 * when out of memory or b is NULL. */
static bool
cli_question_add(char **s, const char *a, const char *b)
{
	char *n = NULL;

	if (*s != NULL && b != NULL && asprintf(&n, "%s%s%s", *s, a, b) < 0)
		n = NULL;
	free(*s);
	*s = n;
	return n != NULL;
}

static char *
cli_question_profile(const struct cli_profile *p)
{
	size_t cut = 0, shown = p ? p->nwritable : 0;
	char *s, *v, more[64];

	if (p == NULL)		/* unsandboxed: the question as it always was */
		return strdup("");
	s = strdup("\nIt runs under the profile ");
	v = cli_question_value(cli_profile_name(p), &cut);
	cli_question_add(&s, "", v);
	free(v);
	cli_question_add(&s, "", p->network ? " (the sandbox, with the network)" :
	    " (the sandbox)");
	if (shown > QUESTION_DIRS_MAX)
		shown = QUESTION_DIRS_MAX;
	for (size_t i = 0; s != NULL && i < shown; i++) {
		v = cli_question_value(p->writable[i], &cut);
		cli_question_add(&s, i ? ", " : "; also writable: ", v);
		free(v);
	}
	snprintf(more, sizeof(more), " and %zu more", p->nwritable - shown);
	cli_question_add(&s, p->nwritable > shown ? more : "", ".");
	return s;
}

/*
 * What the caller asked, after the question: that the agent itself asks
 * for this escalation, its justification as its own words -- untrusted
 * text (the agent may have been prompt-injected), escaped and bounded as
 * any free text, so it cannot end its line nor open a link -- and the
 * rule it suggests keeping, as a value.  "" when nothing was asked.
 */
static char *
cli_question_ask(const struct cli_ask *ask, const char *rule)
{
	char *s = strdup(""), *v;
	size_t cut;

	if (ask == NULL)
		return s;
	cli_question_add(&s, "", "\nThe agent itself asks for this escalation.");
	if (ask->justification != NULL) {
		v = cli_question_text(ask->justification, QUESTION_VALUE_MAX);
		cli_question_add(&s, "\nThe agent says: ", v);
		free(v);
	}
	if (rule != NULL) {
		v = cli_question_value(rule, &cut);
		cli_question_add(&s, "\nThe agent suggests keeping the rule ", v);
		cli_question_add(&s, "", " (answer with keep_rule to add it to your "
		    "learned rules).");
		free(v);
	}
	return s;
}

char *
cli_question(const struct shellesc_request *req, const char *justification,
    const struct cli_profile *profile)
{
	return cli_question_asked(req, justification, profile, NULL, NULL);
}

char *
cli_question_asked(const struct shellesc_request *req, const char *justification,
    const struct cli_profile *profile, const struct cli_ask *ask, const char *rule)
{
	size_t cmd_cut = 0, cwd_cut = 0;
	char *cmd = cli_question_command(req, &cmd_cut), *called = cli_question_called(req);
	char *cwd = cli_question_value(shellesc_request_cwd(req), &cwd_cut);
	char *just = justification ? cli_question_text(justification, QUESTION_VALUE_MAX) :
	    NULL, *msg = NULL, cuts[128], *prof = cli_question_profile(profile);
	char *asked = cli_question_ask(ask, rule);

	cli_question_cuts(cuts, sizeof(cuts), cmd_cut, cwd_cut);
	if (cmd && called && cwd && prof && asked && (just || !justification) &&
	    asprintf(&msg, "Allow agent to run %s%s in %s%s?%s%s%s%s%s", cmd, called, cwd,
	    shellesc_request_cwd_writable(req) ? " (the sandbox can write it)" : "", cuts,
	    prof, just ? "\nThe rule says: " : "", just ? just : "", asked) < 0)
		msg = NULL;
	free(asked);
	free(prof);
	free(cmd);
	free(called);
	free(cwd);
	free(just);
	return msg;
}
