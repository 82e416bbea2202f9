/*
 * rules-split.c: splitting an example string into words, and expanding a
 * leading "~/" in a rules file's path (rules_path_expand).
 *
 * The splitter follows the POSIX shell's quoting for one simple command
 * (as Codex's shlex does): blanks separate words; '...' keeps everything;
 * "..." keeps everything but a backslash before \ " $ ` or newline; a
 * backslash outside quotes keeps the next character; backslash-newline
 * disappears; '#' at the start of a word comments out the rest of the
 * line.  Nothing is expanded: $x, * and ~ are just characters.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rules-int.h"

struct rules_splitter {
	const char *s;		/* what is left */
	char *out;		/* the word so far; never longer than the input */
	size_t n;
	const char *why;
};

static bool
split_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/* Inside quotes q: '...' keeps everything, "..." all but a backslash
 * before \ " $ ` or newline (backslash-newline disappears). */
static int
split_quoted(struct rules_splitter *sp, char q)
{
	while (*sp->s != '\0' && *sp->s != q) {
		if (q == '"' && sp->s[0] == '\\' && sp->s[1] != '\0' &&
		    strchr("\\\"$`\n", sp->s[1]) != NULL) {
			sp->s++;
			if (*sp->s == '\n') {
				sp->s++;
				continue;
			}
		}
		sp->out[sp->n++] = *sp->s++;
	}
	if (*sp->s == '\0') {
		sp->why = q == '"' ? "unterminated double quote" :
		    "unterminated single quote";
		return -1;
	}
	sp->s++;
	return 0;
}

static int
split_backslash(struct rules_splitter *sp)
{
	if (sp->s[1] == '\0') {
		sp->why = "backslash at the end";
		return -1;
	}
	if (sp->s[1] != '\n')
		sp->out[sp->n++] = sp->s[1];
	sp->s += 2;
	return 0;
}

static int
split_word(struct rules_splitter *sp)
{
	int r = 0;
	char c;

	sp->n = 0;
	while (r == 0 && (c = *sp->s) != '\0' && !split_blank(c)) {
		if (c == '\\')
			r = split_backslash(sp);
		else {
			sp->s++;
			if (c == '\'' || c == '"')
				r = split_quoted(sp, c);
			else
				sp->out[sp->n++] = c;
		}
	}
	return r;
}

int
rules_split(struct rules_arena *a, const char *s, struct rules_vec *words,
    const char **why)
{
	struct rules_splitter sp = { .s = s };
	char *w;
	int r = 0;

	if ((sp.out = malloc(strlen(s) + 1)) == NULL) {
		*why = "out of memory";
		return -1;
	}
	while (r == 0) {
		while (split_blank(*sp.s))
			sp.s++;
		if (*sp.s == '#')
			sp.s += strcspn(sp.s, "\n");
		else if (*sp.s == '\0')
			break;
		else if ((r = split_word(&sp)) != 0)
			*why = sp.why;
		else if ((w = rules_arena_strndup(a, sp.out, sp.n)) == NULL ||
		    rules_vec_push(words, w) != 0) {
			*why = "out of memory";
			r = -1;
		}
	}
	free(sp.out);
	return r;
}

char *
rules_path_expand(struct rules_arena *a, const char *path, const char **why)
{
	size_t hl, pl = strlen(path);
	const char *home;
	char *out;

	*why = NULL;
	if (strncmp(path, "~/", 2) != 0)
		return rules_arena_strndup(a, path, pl);
	if ((home = secure_getenv("HOME")) == NULL || home[0] != '/') {
		*why = "\"~/\" needs HOME set to an absolute path";
		return NULL;
	}
	hl = strlen(home);
	if ((out = rules_arena_alloc(a, hl + pl)) == NULL)
		return NULL;
	memcpy(out, home, hl);
	memcpy(out + hl, path + 1, pl);	/* "/..." and its NUL */
	return out;
}
