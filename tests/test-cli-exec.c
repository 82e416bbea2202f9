/*
 * test-cli-exec.c: suite cli_exec -- shellesc exec -c COMMAND: the JSON
 * result (--output's streams, exit code or signal, null for the other,
 * timeout, fractions of a second), output bytes that are not UTF-8
 * (replaced, or base64 on request), --max-output's head and tail, the
 * decisions, --cwd, --login, and the rules applied inside.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/cli.h"

TC_SUITE(cli_exec, "prefix_rule(pattern=[\"touch\"], decision=\"deny\", justification=\"not here\")\n");

static json_t *j;	/* exec's result (t holds it) */

/* exec --no-login ... -c command (plus up to two more options). */
static void
exec_json(const char *command, const char *opt, const char *arg)
{
	char *args[16] = { "exec", "-p", "t.rules", "--mode", "wrapper" };
	size_t n = 5;

	if (opt)
		args[n++] = (char *)opt;
	if (arg)
		args[n++] = (char *)arg;
	if (opt == NULL || strstr(opt, "login") == NULL)
		args[n++] = "--no-login";
	if (opt == NULL || strcmp(opt, "--output") != 0) {
		args[n++] = "--output";
		args[n++] = "both";
	}
	args[n++] = "-c";
	args[n++] = (char *)command;
	tc_run(&t, &r, NULL, args);
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	j = tc_json(&t, r.out);
	cr_assert(r.outlen > 0 && r.out[r.outlen - 1] == '\n', "one line: %s", r.out);
}

static json_int_t
jint(const char *key)
{
	cr_assert(json_is_integer(json_object_get(j, key)), "no integer %s: %s", key, r.out);
	return json_integer_value(json_object_get(j, key));
}

Test(cli_exec, stdout_stderr_and_both)
{
	exec_json("echo out; sleep 0.1; echo err >&2; sleep 0.1; echo out2; exit 42", NULL, NULL);
	cr_assert_str_eq(tc_jstr(j, "stdout"), "out\nout2\n");
	cr_assert_str_eq(tc_jstr(j, "stderr"), "err\n");
	cr_assert_str_eq(tc_jstr(j, "output"), "out\nerr\nout2\n");
	cr_assert_eq(jint("exit_code"), 42);
	cr_assert(json_is_null(json_object_get(j, "signal")), "%s", r.out);
	cr_assert(json_is_false(json_object_get(j, "timed_out")));
	cr_assert_geq(jint("duration_ms"), 200);
}

/* Killed by a signal: no exit_code (null), as in the audit log. */
Test(cli_exec, signal_death)
{
	exec_json("kill -KILL $$", NULL, NULL);
	cr_assert(json_is_null(json_object_get(j, "exit_code")), "%s", r.out);
	cr_assert_eq(jint("signal"), 9);
}

/* --timeout takes fractions of a second. */
Test(cli_exec, timeout_fractional)
{
	int64_t t0 = ts_now_ms();

	exec_json("echo started; sleep 100", "--timeout", "0.5");
	cr_assert(json_is_true(json_object_get(j, "timed_out")), "%s", r.out);
	cr_assert_geq(jint("duration_ms"), 500);
	cr_assert_lt(jint("duration_ms"), 5000);
	cr_assert_lt(ts_now_ms() - t0, 10000);
}

/* Only the streams --output asks for; the others are null. */
Test(cli_exec, output_modes)
{
	exec_json("echo out; echo err >&2", "--output", "interleaved");
	cr_assert_str_eq(tc_jstr(j, "output"), "out\nerr\n");
	cr_assert(json_is_null(json_object_get(j, "stdout")), "%s", r.out);
	cr_assert(json_is_null(json_object_get(j, "stderr")), "%s", r.out);
	tc_res_free(&r);
	exec_json("echo out; echo err >&2", "--output", "split");
	cr_assert(json_is_null(json_object_get(j, "output")), "%s", r.out);
	cr_assert_str_eq(tc_jstr(j, "stdout"), "out\n");
	cr_assert_str_eq(tc_jstr(j, "stderr"), "err\n");
}

/* The default is interleaved only: no stream is there twice. */
Test(cli_exec, no_duplicates_by_default)
{
	/* wrapper mode: a sanitizer build's preload cannot load into bash */
	tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "--mode", "wrapper", "--no-login", "-c",
	    "echo out"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	j = tc_json(&t, r.out);
	cr_assert_str_eq(tc_jstr(j, "output"), "out\n");
	cr_assert(json_is_null(json_object_get(j, "stdout")), "%s", r.out);
}

/* Over --max-output: the head and the tail, a line between saying what
 * was dropped, and the counts. */
Test(cli_exec, max_output_keeps_head_and_tail)
{
	const char *out;

	exec_json("seq 1 100000", "--max-output", "1k");
	out = tc_jstr(j, "output");
	cr_assert_eq(strncmp(out, "1\n2\n3\n", 6), 0, "%.40s", out);
	cr_assert_not_null(strstr(out, "\n99999\n100000\n"), "%s", out);
	cr_assert_not_null(strstr(out, "[... shellesc dropped "), "%s", out);
	cr_assert_lt(strlen(out), 1024 + 200);
	cr_assert_eq(jint("output_bytes"), 588895);
	cr_assert_eq(jint("output_dropped"), 588895 - 1024);
	cr_assert_eq(jint("stdout_dropped"), 588895 - 1024);
	cr_assert_eq(jint("stderr_dropped"), 0);
}

/* What the rules decided, as a list, besides the stderr text. */
Test(cli_exec, decisions)
{
	json_t *d;

	exec_json(TC_GATE "G true; G touch made", NULL, NULL);
	cr_assert_eq(json_array_size(json_object_get(j, "decisions")), 1, "%s", r.out);
	d = json_array_get(json_object_get(j, "decisions"), 0);
	cr_assert_str_eq(tc_jstr(d, "program"), tc_which("touch"));
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(d, "argv"), 1)), "made");
	cr_assert_str_eq(tc_jstr(d, "decision"), "deny");
	cr_assert_str_eq(tc_jstr(d, "reason"), "not here");
	cr_assert_not_null(strstr(tc_jstr(json_object_get(d, "rule"), "source"), "/t.rules:1"),
	    "%s", r.out);
	cr_assert_eq(jint("decisions_dropped"), 0);
}

Test(cli_exec, timeout_ends_it)
{
	int64_t t0 = ts_now_ms();

	exec_json("echo started; sleep 100", "--timeout", "1");
	cr_assert(json_is_true(json_object_get(j, "timed_out")), "%s", r.out);
	cr_assert_str_eq(tc_jstr(j, "stdout"), "started\n");
	cr_assert_geq(jint("duration_ms"), 1000);
	cr_assert_lt(ts_now_ms() - t0, 10000);
}

/* A byte that is not UTF-8 is replaced, and the field says so; the rest
 * stays text.  --base64: every stream as base64. */
Test(cli_exec, bytes_that_are_not_utf8)
{
	exec_json("printf 'a\\377\\376b'; printf 'caf\\303\\251' >&2", NULL, NULL);
	cr_assert_str_eq(tc_jstr(j, "stdout"), "a\xef\xbf\xbd\xef\xbf\xbd" "b");
	cr_assert(json_is_true(json_object_get(j, "stdout_replaced")), "%s", r.out);
	cr_assert_str_eq(tc_jstr(j, "stderr"), "café");
	cr_assert(json_is_false(json_object_get(j, "stderr_replaced")), "%s", r.out);
	tc_res_free(&r);
	exec_json("printf '\\377\\376'", "--base64", NULL);
	cr_assert_str_eq(tc_jstr(json_object_get(j, "stdout"), "base64"), "//4=");
}

Test(cli_exec, cwd)
{
	exec_json("pwd", "--cwd", "/usr");
	cr_assert_str_eq(tc_jstr(j, "stdout"), "/usr\n");
}

Test(cli_exec, login_or_not)
{
	exec_json("shopt -q login_shell && echo login || echo plain", "--login", NULL);
	cr_assert_str_eq(tc_jstr(j, "stdout"), "login\n");
	tc_res_free(&r);
	exec_json("shopt -q login_shell && echo login || echo plain", "--no-login", NULL);
	cr_assert_str_eq(tc_jstr(j, "stdout"), "plain\n");
}

/* The session's rules apply to what the command string runs. */
Test(cli_exec, rules_apply)
{
	exec_json(TC_GATE "G touch made", NULL, NULL);
	cr_assert_eq(jint("exit_code"), 126);
	cr_assert_str_eq(tc_jstr(j, "stderr"), "shellesc: execution denied: not here\n");
	cr_assert(!tc_exists(&t, "made"));
}
