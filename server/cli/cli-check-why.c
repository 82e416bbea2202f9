/*
 * cli-check-why.c: "why not" for shellesc check --explain -- how the
 * program was resolved (the name as written, the file, the paths and
 * names the rules reach that file by, and what a name rule's name is on
 * shellesc's PATH when that is another file), and the rules that nearly
 * matched, each with the first element that differed (rules_near).
 * Collected as JSON under the rules' lock; the text is printed from it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli-json.h"

/* A nearly matching rule's text lines, at most. */
#define CLI_WHY_SHOWN	10

static const char *const cli_why_names[] = {
	[RULES_MISS_PROGRAM] = "program", [RULES_MISS_ELEM] = "element",
	[RULES_MISS_SHORT] = "short", [RULES_MISS_LONGER] = "longer",
	[RULES_MISS_TARGET] = "target", [RULES_MISS_OPTIONS] = "options",
};

struct cli_why {
	const struct rules *r;
	const struct rules_file *f;
	char *const *argv;
	json_t *j, *names, *near;
};

static bool
cli_why_has(const json_t *a, const char *s)
{
	size_t i;
	json_t *v;

	json_array_foreach(a, i, v)
		if (strcmp(json_string_value(v), s) == 0)
			return true;
	return false;
}

static void
cli_why_name(void *arg, const char *head)
{
	struct cli_why *w = arg;

	if (!cli_why_has(w->names, head))
		json_array_append_new(w->names, cli_json_str(head));
}

static void
cli_why_miss(void *arg, const struct rules_miss *m)
{
	struct cli_why *w = arg;
	json_t *want = json_array();

	for (size_t i = 0; want != NULL && i < m->nwant; i++)
		json_array_append_new(want, cli_json_str(m->want[i]));
	json_array_append_new(w->near, json_pack("{s:o, s:s, s:o, s:I, s:o, s:o, s:s}",
	    "source", cli_json_str(m->source), "decision", rules_decision_name(m->decision),
	    "head", cli_json_str(m->head), "element", (json_int_t)m->elem,
	    "want", want ? want : json_null(), "got", cli_json_str(m->got),
	    "why", cli_why_names[m->why]));
}

/* What a name rule for name is for, when f is not that file. */
static void
cli_why_name_file(struct cli_why *w, json_t *files, const char *name)
{
	const char *file = rules_name_file(w->r, name);

	if (file != NULL && !cli_why_has(w->names, name))
		json_object_set_new(files, name, cli_json_str(file));
}

static void
cli_why_collect(void *arg, const struct rules *r)
{
	struct cli_why *w = arg;
	const char *written = w->f->written, *base = strrchr(w->f->path, '/');
	json_t *files = json_object();

	w->r = r;
	rules_file_names(r, w->f, cli_why_name, w);
	rules_near(r, w->f, w->argv, cli_why_miss, w);
	cli_why_name_file(w, files, base ? base + 1 : w->f->path);
	if (written != NULL && strrchr(written, '/') != NULL)
		written = strrchr(written, '/') + 1;
	if (written != NULL)
		cli_why_name_file(w, files, written);
	json_object_set_new(w->j, "name_files", files);
}

/* Nearest first (the later element that differed), then by place. */
static int
cli_why_cmp(const void *a, const void *b)
{
	const json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t ex = json_integer_value(json_object_get(x, "element"));
	json_int_t ey = json_integer_value(json_object_get(y, "element"));

	if (ex != ey)
		return ex > ey ? -1 : 1;
	return strcmp(json_string_value(json_object_get(x, "source")),
	    json_string_value(json_object_get(y, "source")));
}

/* The near array, sorted (a new array of the same items). */
static json_t *
cli_why_sorted(json_t *near)
{
	size_t n = json_array_size(near);
	json_t **v = calloc(n + 1, sizeof(*v)), *out = json_array();

	for (size_t i = 0; v != NULL && i < n; i++)
		v[i] = json_array_get(near, i);
	if (v != NULL)
		qsort(v, n, sizeof(*v), cli_why_cmp);
	for (size_t i = 0; v != NULL && out != NULL && i < n; i++)
		json_array_append(out, v[i]);
	free(v);
	json_decref(near);
	return out;
}

json_t *
cli_check_why(struct cli *c, const struct rules_file *f, char *const *argv)
{
	struct cli_why w = { .f = f, .argv = argv };

	w.j = json_pack("{s:o, s:o}", "written", cli_json_str(argv[0]),
	    "file", cli_json_str(f->path));
	w.names = json_array();
	w.near = json_array();
	if (w.j == NULL || w.names == NULL || w.near == NULL) {
		json_decref(w.j);
		json_decref(w.names);
		json_decref(w.near);
		return NULL;
	}
	cli_rules_with(c, cli_why_collect, &w);
	json_object_set_new(w.j, "names", w.names);
	json_object_set_new(w.j, "near", cli_why_sorted(w.near));
	return w.j;
}

/* "push", "[-r, -rf]": an element's alternatives, shown. */
static char *
cli_why_want(const json_t *want)
{
	size_t i, n = json_array_size(want);
	json_t *v;
	char *out = NULL, *shown, *more;

	json_array_foreach(want, i, v) {
		if ((shown = cli_show(json_string_value(v))) == NULL)
			break;
		if (asprintf(&more, "%s%s%s", out ? out : (n > 1 ? "[" : ""),
		    out ? ", " : "", shown) < 0)
			more = NULL;
		free(shown);
		free(out);
		if ((out = more) == NULL)
			break;
	}
	if (out != NULL && n > 1 && asprintf(&more, "%s]", out) >= 0) {
		free(out);
		out = more;
	}
	return out;
}

/* Why one rule did not match, in words. */
static void
cli_why_text_miss(const json_t *m, const json_t *files)
{
	const char *why = json_string_value(json_object_get(m, "why"));
	const char *head = json_string_value(json_object_get(m, "head"));
	const char *got = json_string_value(json_object_get(m, "got"));
	const char *file = json_string_value(json_object_get(files, head));
	char *want = cli_why_want(json_object_get(m, "want"));
	char *g = got ? cli_show(got) : NULL, *h = cli_show(head), *fs = file ? cli_show(file) : NULL;

	printf("    %s (%s): ", json_string_value(json_object_get(m, "source")),
	    json_string_value(json_object_get(m, "decision")));
	if (strcmp(why, "program") == 0)
		printf("program %s: this file is not %s's%s%s%s\n", h ? h : "?",
		    h ? h : "?", fs ? " (" : "", fs ? fs : "", fs ? ")" : "");
	else if (strcmp(why, "element") == 0 || strcmp(why, "short") == 0)
		printf("element %lld: %s wanted, %s%s\n",
		    (long long)json_integer_value(json_object_get(m, "element")),
		    want ? want : "?", g ? g : "the command ends there",
		    g ? " given" : "");
	else if (strcmp(why, "options") == 0)
		printf("element %lld: %s given; past the options before the "
		    "subcommand it would match, but %s rules match exactly\n",
		    (long long)json_integer_value(json_object_get(m, "element")),
		    g ? g : "?", json_string_value(json_object_get(m, "decision")));
	else if (strcmp(why, "longer") == 0)
		printf("exact = True, and the command goes on: %s\n", g ? g : "?");
	else
		printf("target = [...] names none of this file's facts\n");
	free(want);
	free(g);
	free(h);
	free(fs);
}

void
cli_check_why_text(const json_t *j)
{
	const json_t *names = json_object_get(j, "names"), *near = json_object_get(j, "near");
	const json_t *files = json_object_get(j, "name_files"), *v;
	const char *key;
	char *s, *w;
	size_t i;

	s = cli_show(json_string_value(json_object_get(j, "written")));
	w = cli_show(json_string_value(json_object_get(j, "file")));
	printf("  program: %s, the file %s\n  rules reach it by:", s ? s : "?",
	    w ? w : "?");
	free(s);
	free(w);
	json_array_foreach(names, i, v) {
		s = cli_show(json_string_value(v));
		printf("%s %s", i ? "," : "", s ? s : "?");
		free(s);
	}
	printf("\n");
	json_object_foreach((json_t *)files, key, v) {
		s = cli_show(json_string_value(v));
		w = cli_show(key);
		printf("  name rules for %s are for %s (shellesc's PATH), not this file\n",
		    w ? w : "?", s ? s : "?");
		free(s);
		free(w);
	}
	printf("  nearly matching rules: %zu\n", json_array_size(near));
	json_array_foreach(near, i, v)
		if (i < CLI_WHY_SHOWN)
			cli_why_text_miss(v, files);
	if (json_array_size(near) > CLI_WHY_SHOWN)
		printf("    ... and %zu more (--json shows them all)\n",
		    json_array_size(near) - CLI_WHY_SHOWN);
}
