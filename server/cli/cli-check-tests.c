/*
 * cli-check-tests.c: shellesc check -p FILE... without ARGV: load the
 * files in order, as a session would (a directory stands for its *.rules
 * files), and show every match/not_match example's result, a line each
 * ("pass FILE:LINE:COL: ..." or "FAIL ..."), then a summary; errors and
 * warnings go to stderr (the first CLI_MAX_WARNINGS warnings, then a
 * count).  With --json, one JSON object instead: the examples' results,
 * the diagnostics and the counts.  A file's examples are its tests; the
 * exit status is 0 when every file loads and every example holds, and
 * with --strict there is no warning.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cli-json.h"

/* check -p --json: what the load reported, collected. */
struct cli_check_json {
	json_t *examples, *diagnostics;
};

static const char *
cli_check_tests_severity(enum rules_severity s)
{
	return s == RULES_SEV_ERROR ? "error" : s == RULES_SEV_WARNING ?
	    "warning" : "pass";
}

static json_t *
cli_check_tests_place(const struct rules_error *e, const char *key,
    const char *value)
{
	return json_pack("{s:s, s:o, s:o, s:o, s:s}", key, value,
	    "file", cli_json_str(e->file),
	    "line", e->line > 0 ? json_integer(e->line) : json_null(),
	    "column", e->line > 0 ? json_integer(e->column) : json_null(),
	    "message", e->msg);
}

static void
cli_check_tests_collect(void *arg, const struct rules_error *e)
{
	struct cli_check_json *j = arg;
	json_t *o;

	if (e->example) {
		o = cli_check_tests_place(e, "result",
		    e->severity == RULES_SEV_PASS ? "pass" : "fail");
		json_array_append_new(j->examples, o);
		return;
	}
	o = cli_check_tests_place(e, "severity", cli_check_tests_severity(e->severity));
	if (o != NULL && e->text[0] != '\0')
		json_object_set_new(o, "text", json_string(e->text));
	json_array_append_new(j->diagnostics, o);
}

/* Load one file, its examples reported to t; false if it did not load. */
static bool
cli_check_tests_file(struct rules *r, const char *file,
    struct cli_rules_tally *t)
{
	struct rules_error err = { .line = 0 };

	rules_set_codex(r, cli_rules_is_codex(file));
	if (rules_load_file(r, file, &err) == 0)
		return true;
	if (err.line == 0) {
		t->errors++;
		if (t->collect != NULL)
			t->collect(t->collect_arg, &err);
		else
			cli_rules_unreadable(&err, file, errno);
	}
	return false;
}

static bool
cli_check_tests_ok(const struct cli *c, const struct cli_rules_tally *t,
    bool loaded)
{
	return loaded && t->fail == 0 && t->errors == 0 &&
	    (!c->o.strict || t->warnings == 0);
}

static void
cli_check_tests_summary(const struct cli_rules_tally *t)
{
	printf("%zu example%s held, %zu failed; %zu other error%s, %zu "
	    "warning%s%s\n", t->pass, t->pass == 1 ? "" : "s", t->fail,
	    t->errors, t->errors == 1 ? "" : "s", t->warnings,
	    t->warnings == 1 ? "" : "s", t->stopped ? " (stopped: a file had "
	    "too many errors to read on)" : "");
}

static void
cli_check_tests_json(const struct cli_check_json *j,
    const struct cli_rules_tally *t, bool ok)
{
	json_t *o = json_pack("{s:O, s:O, s:I, s:I, s:I, s:I, s:b, s:b}",
	    "examples", j->examples, "diagnostics", j->diagnostics,
	    "held", (json_int_t)t->pass, "failed", (json_int_t)t->fail,
	    "errors", (json_int_t)t->errors, "warnings", (json_int_t)t->warnings,
	    "stopped", t->stopped, "ok", ok);
	char *line = cli_json_line(o);

	if (line != NULL)
		fputs(line, stdout);
	free(line);
}

/* Every file loaded into r, as a session would load them. */
static bool
cli_check_tests_load(struct cli *c, struct rules *r, struct cli_rules_tally *t)
{
	struct cli_strv files = { 0 };
	char *path = cli_rules_trusted_path(c);
	bool ok = path != NULL && rules_set_path(r, path) == 0 &&
	    cli_rules_files(&c->o.policies, &files) == 0;

	free(path);
	rules_set_report(r, cli_rules_report, t);
	for (size_t i = 0; ok && i < files.n; i++)
		if (!cli_check_tests_file(r, files.v[i], t))
			ok = false;
	if (ok && files.n == 0 && t->collect == NULL)
		cli_warnx("check: no rules files loaded (no *.rules in the -p "
		    "directories)");
	cli_strv_free(&files);
	return ok;
}

int
cli_check_tests(struct cli *c)
{
	struct cli_check_json j = { json_array(), json_array() };
	struct cli_rules_tally t = { .examples = true };
	struct rules *r = rules_new();
	bool ok;

	if (r == NULL || j.examples == NULL || j.diagnostics == NULL) {
		rules_free(r);
		json_decref(j.examples);
		json_decref(j.diagnostics);
		cli_oom();
		return CLI_EXIT_FAIL;
	}
	if (c->o.json) {
		t.collect = cli_check_tests_collect;
		t.collect_arg = &j;
	}
	if ((ok = cli_check_tests_load(c, r, &t)))
		rules_lint(r);
	rules_free(r);
	cli_rules_tally_end(&t);
	if (c->o.json)
		cli_check_tests_json(&j, &t, cli_check_tests_ok(c, &t, ok));
	else
		cli_check_tests_summary(&t);
	json_decref(j.examples);
	json_decref(j.diagnostics);
	if (fflush(stdout) != 0)
		return CLI_EXIT_FAIL;
	return cli_check_tests_ok(c, &t, ok) ? 0 : CLI_CHECK_FAILED;
}
