/*
 * test-cli-exec.c: suite cli_exec -- shellesc exec -c COMMAND: the JSON
 * result (stdout, stderr and both, exit code, signal, timeout), output
 * bytes that are not UTF-8, --cwd, --login, and the rules applied inside.
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
	cr_assert_eq(jint("signal"), 0);
	cr_assert(json_is_false(json_object_get(j, "timed_out")));
	cr_assert_geq(jint("duration_ms"), 200);
}

/* Killed by a signal: exit_code -1 and the signal, as the library has it. */
Test(cli_exec, signal_death)
{
	exec_json("kill -KILL $$", NULL, NULL);
	cr_assert_eq(jint("exit_code"), -1);
	cr_assert_eq(jint("signal"), 9);
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

Test(cli_exec, bytes_that_are_not_utf8)
{
	exec_json("printf '\\377\\376'; printf 'caf\\303\\251' >&2", NULL, NULL);
	cr_assert_str_eq(tc_jstr(json_object_get(j, "stdout"), "base64"), "//4=");
	cr_assert_str_eq(tc_jstr(j, "stderr"), "café");
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
