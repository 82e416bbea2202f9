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

#include "helpers/base.h"
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

Test(cli_exec, stdout_stderr_and_both)
{
	exec_json("echo out; sleep 0.1; echo err >&2; sleep 0.1; echo out2; exit 42", NULL, NULL);
	cr_assert_str_eq(tc_jstr(j, "stdout"), "out\nout2\n");
	cr_assert_str_eq(tc_jstr(j, "stderr"), "err\n");
	cr_assert_str_eq(tc_jstr(j, "output"), "out\nerr\nout2\n");
	cr_assert_eq(tc_jint(j, "exit_code"), 42);
	cr_assert(json_is_null(json_object_get(j, "signal")), "%s", r.out);
	cr_assert(json_is_false(json_object_get(j, "timed_out")));
	cr_assert_geq(tc_jint(j, "duration_ms"), 200);
}

/* Killed by a signal: no exit_code (null), as in the audit log. */
Test(cli_exec, signal_death)
{
	exec_json("kill -KILL $$", NULL, NULL);
	cr_assert(json_is_null(json_object_get(j, "exit_code")), "%s", r.out);
	cr_assert_eq(tc_jint(j, "signal"), 9);
}

/* --timeout takes fractions of a second. */
Test(cli_exec, timeout_fractional)
{
	int64_t t0 = clock_now_ms();

	exec_json("echo started; sleep 100", "--timeout", "0.5");
	cr_assert(json_is_true(json_object_get(j, "timed_out")), "%s", r.out);
	cr_assert_geq(tc_jint(j, "duration_ms"), 500);
	cr_assert_lt(tc_jint(j, "duration_ms"), 5000);
	cr_assert_lt(clock_now_ms() - t0, 10000);
}

/* Without --timeout: --default-timeout, 10 s (the reference's) unless
 * given; --timeout beats it, and --default-timeout 0 is none. */
Test(cli_exec, default_timeout)
{
	exec_json("echo started; sleep 100", "--default-timeout", "0.3");
	cr_assert(json_is_true(json_object_get(j, "timed_out")), "%s", r.out);
	cr_assert_lt(tc_jint(j, "duration_ms"), 5000);
	exec_json("sleep 0.5; echo done", "--default-timeout", "0");
	cr_assert(json_is_false(json_object_get(j, "timed_out")), "%s", r.out);
	exec_json("exec sleep 100", NULL, NULL);
	cr_assert(json_is_true(json_object_get(j, "timed_out")), "%s", r.out);
	cr_assert_geq(tc_jint(j, "duration_ms"), 10000);
	cr_assert_lt(tc_jint(j, "duration_ms"), 20000);
}

/* --shell is found and checked before anything runs: exit 125, why. */
Test(cli_exec, shell_checked_at_start)
{
	static char *const bad[][2] = {
		{ "no-such-shell", "--shell no-such-shell: not found in PATH" },
		{ "/nonexistent/sh", "--shell /nonexistent/sh: No such file or directory" },
		{ "/tmp", "--shell /tmp: not an executable file" },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		tc_res_free(&r);
		tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "--shell", bad[i][0],
		    "-c", "echo ran"));
		cr_expect_eq(tc_code(&r), 125, "%s: %s", bad[i][0], r.err);
		cr_expect_not_null(strstr(r.err, bad[i][1]), "%s", r.err);
		cr_expect_eq(r.outlen, 0, "%s", r.out);
	}
	tc_res_free(&r);
	exec_json("echo ${BASH_VERSION:-dash}", "--shell", "dash");
	cr_assert_str_eq(tc_jstr(j, "output"), "dash\n");
}

/* Each audit line says which command it belongs to. */
Test(cli_exec, audit_lines_name_the_command)
{
	static const char cmd[] = TC_GATE "G touch made; G true";
	char *log;
	size_t n = 0;

	exec_json(cmd, "--audit", tc_path(&t, "audit.log"));
	cr_assert_not_null(log = th_read_file(tc_path(&t, "audit.log"), NULL));
	for (char *line = strtok(log, "\n"); line; line = strtok(NULL, "\n"), n++) {
		json_t *e = tc_json(&t, line);

		cr_expect_str_eq(tc_jstr(e, "command"), cmd, "%s", line);
		cr_expect_eq(tc_jint(e, "id"), (int)n + 1, "%s", line);
	}
	cr_expect_eq(n, 2, "%s", r.out);
	free(log);
}

/* interleaved is one pipe: the order of the writes, however close. */
Test(cli_exec, interleaved_in_order)
{
	char want[8192] = "";

	for (int i = 1; i <= 300; i++) {
		size_t n = strlen(want);

		snprintf(want + n, sizeof(want) - n, "o%d\ne%d\n", i, i);
	}
	for (int k = 0; k < 3; k++) {
		exec_json("for i in $(seq 300); do echo o$i; echo e$i >&2; done", "--output",
		    "interleaved");
		cr_assert_str_eq(tc_jstr(j, "output"), want);
		cr_assert(json_is_null(json_object_get(j, "stdout")), "%s", r.out);
		tc_res_free(&r);
	}
}

/* Stock bash's messages for `exec -a x ./touch F`: denied by the rules
 * (the preload, no sandbox), and refused by the kernel itself (EACCES
 * from Landlock, no preload); the deny's own line left out. */
static char *
exec_eacces_messages(bool kernel)
{
	static char script[] = "cp /bin/touch ./touch; exec -a x ./touch F";
	const char *out;
	char *nl;

	tc_res_free(&r);
	if (kernel)
		tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "--mode", "wrapper", "-s",
		    "landlock", "--rules-writable", "--no-exec-writable", "--no-login", "-c", script));
	else
		tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "--mode", "preload",
		    "--no-login", "-c", script));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	out = tc_jstr(tc_json(&t, r.out), "output");
	if (!kernel && strncmp(out, "shellesc: execution denied", 26) == 0 &&
	    (nl = strchr(out, '\n')) != NULL)
		out = nl + 1;
	return strdup(out);
}

/*
 * A deny looks to bash as the kernel's own EACCES does: the same
 * messages.  (Both are "Permission denied" then "Success": bash's exec
 * builtin resets errno itself, in adjust_shell_level, before its second
 * message, whenever access(2) says the file is executable; the preload
 * preserves errno, see docs/preload.md.)
 */
Test(cli_exec, denied_exec_reads_as_eacces_in_bash)
{
	char *denied, *kernel;

	TC_NEED_PRELOAD(&t, &r);
	if (tc_landlock_abi() < 1)
		TC_SKIP(&t, &r, "needs Landlock (a real EACCES to compare with)");
	denied = exec_eacces_messages(false);
	kernel = exec_eacces_messages(true);
	cr_expect_str_eq(denied, kernel);
	cr_expect_not_null(strstr(denied, "Permission denied"), "%s", denied);
	free(denied);
	free(kernel);
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
	cr_assert_eq(tc_jint(j, "output_bytes"), 588895);
	cr_assert_eq(tc_jint(j, "output_dropped"), 588895 - 1024);
	cr_assert_eq(tc_jint(j, "stdout_dropped"), 588895 - 1024);
	cr_assert_eq(tc_jint(j, "stderr_dropped"), 0);
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
	cr_assert_eq(tc_jint(j, "decisions_dropped"), 0);
}

Test(cli_exec, timeout_ends_it)
{
	int64_t t0 = clock_now_ms();

	exec_json("echo started; sleep 100", "--timeout", "1");
	cr_assert(json_is_true(json_object_get(j, "timed_out")), "%s", r.out);
	cr_assert_str_eq(tc_jstr(j, "stdout"), "started\n");
	cr_assert_geq(tc_jint(j, "duration_ms"), 1000);
	cr_assert_lt(clock_now_ms() - t0, 10000);
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
	cr_assert_eq(tc_jint(j, "exit_code"), 126);
	cr_assert_str_eq(tc_jstr(j, "stderr"), "shellesc: execution denied: not here\n");
	cr_assert(!tc_exists(&t, "made"));
}
