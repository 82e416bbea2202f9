/*
 * test-cli-check.c: suite cli_check -- shellesc check: the decision for
 * an argv and the rule that made it, as text and as --json; and the
 * program it names is the one the preload asks about for the same argv,
 * PATH and cwd.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/base.h"
#include "helpers/cli.h"
#include "helpers/preload.h"

static const char rules[] =
    "prefix_rule(pattern=[\"rm\", \"-rf\"], decision=\"forbidden\", justification=\"no rm -rf\")\n"
    "prefix_rule(pattern=[\"cp\", \"-r\"], decision=\"prompt\")\n";

TC_SUITE(cli_check, rules);

static json_t *j;	/* check --json's answer (t holds it) */

/* The exit status is the decision: 0 run, 1 escalate, 2 prompt, 3 deny. */
static void
check_json(char *const args[])
{
	tc_run(&t, &r, NULL, args);
	cr_assert_leq(tc_code(&r), 3, "%s", r.err);
	j = tc_json(&t, r.out);
}

Test(cli_check, json_deny)
{
	json_t *rule;

	check_json(TS_V("check", "-p", "t.rules", "--json", "--", "rm", "-rf", "/"));
	cr_assert_str_eq(tc_jstr(j, "program"), tc_which("rm"));
	cr_assert_eq(json_array_size(json_object_get(j, "argv")), 3);
	cr_assert_str_eq(tc_jstr(j, "decision"), "deny");
	cr_assert_str_eq(tc_jstr(j, "default"), "run");
	rule = json_object_get(j, "rule");
	cr_assert_str_eq(tc_jstr(rule, "decision"), "deny");
	cr_assert_str_eq(tc_jstr(rule, "justification"), "no rm -rf");
	cr_assert_not_null(strstr(tc_jstr(rule, "source"), "t.rules:1"));
}

Test(cli_check, json_no_match_takes_the_default)
{
	check_json(TS_V("check", "-p", "t.rules", "--json", "--default", "escalate", "rm", "x"));
	cr_assert_str_eq(tc_jstr(j, "decision"), "escalate");
	cr_assert(json_is_null(json_object_get(j, "rule")));
}

/* A relative path is made absolute as the server does. */
Test(cli_check, relative_program)
{
	char want[512];

	tc_file(&t, "tool", "");
	chmod(tc_path(&t, "tool"), 0755);
	check_json(TS_V("check", "-p", "t.rules", "--json", "./tool"));
	snprintf(want, sizeof(want), "%s/tool", t.dir);
	cr_assert_str_eq(tc_jstr(j, "program"), want);
	cr_assert_str_eq(tc_jstr(j, "decision"), "run");
}

Test(cli_check, text)
{
	char want[512];

	tc_run(&t, &r, NULL, TS_V("check", "-p", "t.rules", "cp", "-r", "a b", "c"));
	cr_assert_eq(tc_code(&r), 2, "%s", r.err);
	snprintf(want, sizeof(want), "prompt %s -r 'a b' c\n  rule ", tc_which("cp"));
	cr_assert_not_null(strstr(r.out, want), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "t.rules:2 (prompt)\n"), "%s", r.out);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "-p", "t.rules", "ls", "-l"));
	snprintf(want, sizeof(want), "run %s -l\n  no rule matched (--default run)\n",
	    tc_which("ls"));
	cr_assert_str_eq(r.out, want);
}

/* Not installed: decided by the name as written, saying so. */
Test(cli_check, not_found)
{
	tc_run(&t, &r, NULL, TS_V("check", "-p", "t.rules", "no-such-program-here"));
	cr_assert_eq(tc_code(&r), 0);
	cr_assert_not_null(strstr(r.err, "no-such-program-here: not found in PATH; "
	    "deciding by the name as written"), "%s", r.err);
}

/*
 * PATH searches, "%" standing for the test's directory (the cwd), which
 * holds prog (executable), a/prog (not executable), b/prog (executable)
 * and d/prog (a directory); path NULL: PATH unset (glibc's default is
 * /bin:/usr/bin).  program: what the preload asks about and check names.
 */
static const struct pathcase {
	const char *name, *path, *file, *program;
} pathcases[] = {
	{ "PATH unset: glibc's default", NULL, "ls", "/bin/ls" },
	{ "PATH empty: the current directory", "", "prog", "%/prog" },
	{ "a leading empty entry: the current directory", ":%/b", "prog", "%/prog" },
	{ "an empty entry in the middle", "%/a::%/b", "prog", "%/prog" },
	{ "a trailing empty entry", "%/a:", "prog", "%/prog" },
	{ "not executable: EACCES, the search goes on", "%/a:%/b", "prog", "%/b/prog" },
	{ "a directory: EACCES, the search goes on", "%/d:%/b", "prog", "%/b/prog" },
	{ "a name with '/' is not searched", "%/b", "./a/../prog", "%/a/../prog" },
};
#define NPATHCASES (sizeof(pathcases) / sizeof(pathcases[0]))

/* What the preload asked the server about for exec-probe's execvp(file). */
static char *
preload_asks(const char *path, const char *file)
{
	struct shellesc_session *s;
	struct tpol tp = { 0 };
	struct tp_out o;
	char *program;

	s = tp_start(&tp, SHELLESC_DENY, 0);
	tp_run(s, true, "deny", t.dir, NULL, (const char *const[]){ TP_T, "-p",
	    path ? path : "-", "execvp", file, "prog", NULL }, &o);
	tp_check(&o, 99, 0, "ret=-1 errno=13\n", TP_DENIED, file);
	cr_assert_eq(tp.seen, 1, "%s: %d requests", file, tp.seen);
	cr_assert_not_null(program = strdup(tp.program));
	tp_out_free(&o);
	ts_end(s, &tp);
	return program;
}

ParameterizedTestParameters(cli_check, names_what_the_preload_runs)
{
	return ts_indexes(NPATHCASES);
}

ParameterizedTest(size_t *i, cli_check, names_what_the_preload_runs)
{
	const struct pathcase *c = &pathcases[*i];
	char *path, *want, *asked;

	TC_NEED_PRELOAD(&t, &r);	/* first: a skip leaves nothing allocated */
	path = c->path ? th_subst(c->path, "%", t.dir) : NULL;
	want = th_subst(c->program, "%", t.dir);
	cr_log_info("case: %s", c->name);
	th_put(t.dir, "prog", "exit 0\n", 0755);
	th_put(t.dir, "a", NULL, 0755);
	th_put(t.dir, "a/prog", "exit 0\n", 0644);
	th_put(t.dir, "b", NULL, 0755);
	th_put(t.dir, "b/prog", "exit 0\n", 0755);
	th_put(t.dir, "d", NULL, 0755);
	th_put(t.dir, "d/prog", NULL, 0755);
	asked = preload_asks(path, c->file);
	cr_assert_str_eq(asked, want, "%s: the preload asked about %s", c->name, asked);
	tc_setpath(&t, path);
	check_json(TS_V("check", "-p", "t.rules", "--json", "--", (char *)c->file));
	cr_assert_str_eq(tc_jstr(j, "program"), want, "%s: check names %s", c->name,
	    tc_jstr(j, "program"));
	free(asked);
	free(want);
	free(path);
}
