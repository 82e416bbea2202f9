/*
 * rules-diag.c: what a load tells its reader: every error and warning
 * through the set's report function (the first error also in the load's
 * struct rules_error), each with its source line, and
 * "did you mean" for names that are one or two typos away from a known
 * one (functions, arguments, decisions, targets).
 */
#include "config.h"

#include <dirent.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "path.h"
#include "rules-int.h"

void
rules_set_report(struct rules *r, rules_report_fn *fn, void *arg)
{
	if (r == NULL)
		return;
	r->report = fn;
	r->report_arg = arg;
}

void
rules_set_codex(struct rules *r, bool codex)
{
	if (r != NULL)
		r->codex = codex;
}

void
rules_report(const struct rules *r, const struct rules_error *e)
{
	if (r != NULL && r->report != NULL)
		r->report(r->report_arg, e);
}

/* e for pos with the message fmt, ready to report. */
static void __attribute__((format(printf, 4, 0)))
lex_error_at(const struct rules_lexer *lx, const struct rules_pos *pos,
    struct rules_error *e, const char *fmt, va_list ap)
{
	memset(e, 0, sizeof(*e));
	snprintf(e->file, sizeof(e->file), "%s", lx->name);
	e->line = pos->line;
	e->column = rules_lex_column(lx, pos);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	e->example = lx->example;
	rules_diag_line(e, lx->text, lx->len, pos);
}

/*
 * The first error of a statement is reported (what follows from it in
 * the same statement would only repeat it); the first of the file is
 * also *lx->err.
 */
int
rules_vfail(struct rules_lexer *lx, const struct rules_pos *pos,
    const char *fmt, va_list ap)
{
	struct rules_error e;

	if (lx->failed)
		return -1;
	lx->failed = true;
	lex_error_at(lx, pos, &e, fmt, ap);
	if (lx->err != NULL && lx->nerrors == 0)
		*lx->err = e;
	if (lx->nerrors++ < RULES_MAX_ERRORS && lx->r != NULL)
		rules_report(lx->r, &e);
	return -1;
}

int
rules_fail(struct rules_lexer *lx, const struct rules_pos *pos,
    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rules_vfail(lx, pos, fmt, ap);
	va_end(ap);
	return -1;
}

void
rules_note(struct rules_lexer *lx, const struct rules_pos *pos,
    enum rules_severity sev, const char *fmt, ...)
{
	struct rules_error e;
	va_list ap;

	if (lx->r == NULL || lx->r->report == NULL)
		return;
	va_start(ap, fmt);
	lex_error_at(lx, pos, &e, fmt, ap);
	va_end(ap);
	e.severity = sev;
	rules_report(lx->r, &e);
}

/*
 * The line at pos, so that column - 1 blanks put a caret under the place:
 * a tab is one column (shellesc-rules(5)) and becomes a blank; control
 * bytes become '?', so a line cannot move a terminal's cursor.
 */
void
rules_diag_line(struct rules_error *e, const char *text, size_t len,
    const struct rules_pos *pos)
{
	size_t n = 0;

	for (size_t i = pos->bol; i < len && text[i] != '\n' &&
	    n + 1 < sizeof(e->text); i++) {
		unsigned char c = (unsigned char)text[i];

		e->text[n++] = c == '\t' ? ' ' : c < 0x20 || c == 0x7f ? '?' :
		    (char)c;
	}
	e->text[n] = '\0';
}

/* Optimal string alignment distance of a (la bytes) and b, capped. */
static size_t
diag_distance(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b), d[32][32];

	if (la >= 32 || lb >= 32)
		return (size_t)-1;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/*
 * A typo: at most two edits, and no more than a third of the longer of
 * the two words ("matches" is "match", "gti" is not "git" and "ls").
 */
static bool
diag_close(size_t d, size_t len, const char *cand)
{
	size_t longer = strlen(cand) > len ? strlen(cand) : len;

	return d > 0 && d <= 2 && d * 3 <= longer;
}

const char *
rules_suggest(const char *word, size_t len, const char *const *cands,
    size_t n)
{
	const char *best = NULL;
	size_t bestd = (size_t)-1, d;

	for (size_t i = 0; i < n; i++)
		if ((d = diag_distance(word, len, cands[i])) < bestd) {
			bestd = d;
			best = cands[i];
		}
	if (best == NULL || !diag_close(bestd, len, best))
		return NULL;
	return best;
}

const char *
rules_did_you_mean(char *buf, size_t size, const char *word, size_t len,
    const char *const *cands, size_t n)
{
	const char *s = rules_suggest(word, len, cands, n);

	if (s == NULL)
		return "";
	snprintf(buf, size, " (did you mean '%s'?)", s);
	return buf;
}

/* The closest name to name among the entries of dir, into best. */
static void
diag_suggest_dir(const char *dir, const char *name, char *best, size_t size,
    size_t *bestd)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t dist;

	while (d != NULL && (de = readdir(d)) != NULL)
		if (de->d_name[0] != '.' &&
		    (dist = diag_distance(name, strlen(name), de->d_name)) < *bestd &&
		    diag_close(dist, strlen(name), de->d_name)) {
			*bestd = dist;
			snprintf(best, size, "%s", de->d_name);
		}
	if (d != NULL)
		closedir(d);
}

const char *
rules_did_you_mean_program(char *buf, size_t size, const char *name,
    const char *dirs)
{
	char dir[PATH_MAX], best[NAME_MAX + 1] = "";
	size_t bestd = (size_t)-1;
	struct path_iter it;

	path_iter_init(&it, dirs, NULL, PATH_ABSOLUTE);
	while (dirs != NULL && path_next(&it, dir, sizeof(dir)))
		diag_suggest_dir(dir, name, best, sizeof(best), &bestd);
	if (best[0] == '\0')
		return "";
	snprintf(buf, size, " (did you mean '%s'?)", best);
	return buf;
}
