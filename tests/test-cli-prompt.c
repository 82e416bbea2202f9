/*
 * test-cli-prompt.c: suite cli_prompt -- prompt decisions answered by an
 * --approver command (yes, no, crash, bad answers, timeout), by nobody
 * (no terminal), and on a real terminal (a pty): yes, no, timeout, and
 * "always", which a later session honours.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/cli.h"

static const char rules[] =
    "prefix_rule(pattern=[\"touch\"], decision=\"prompt\", justification=\"touching needs a yes\")\n";

TC_SUITE(cli_prompt, rules);

#define TOUCH TC_GATE "G touch made; echo \"touch: $?\""

static void
with_approver(const char *approver, const char *timeout, const char *script)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force",
	    "--prompt-timeout", (char *)timeout, "--approver", (char *)approver,
	    "--", "bash", "-c", (char *)script));
}

/* The approver gets the request as JSON on stdin; escalate runs it. */
Test(cli_prompt, approver_escalates)
{
	json_t *req, *argv;
	char *text;

	with_approver("cat > req.json; echo '{\"decision\": \"escalate\"}'", "30", TOUCH);
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "touch: 0\n", "%s", r.err);
	cr_assert(tc_exists(&t, "made"));
	cr_assert_not_null(text = tc_read(&t, "req.json"));
	req = tc_json(&t, text);
	free(text);
	cr_assert_str_eq(tc_jstr(req, "program"), tc_which("touch"));
	cr_assert_str_eq(tc_jstr(req, "cwd"), t.dir);
	argv = json_object_get(req, "argv");
	cr_assert_eq(json_array_size(argv), 2);
	cr_assert_str_eq(json_string_value(json_array_get(argv, 1)), "made");
	cr_assert_gt(json_integer_value(json_object_get(req, "pid")), 0);
	cr_assert_eq(json_integer_value(json_object_get(req, "timeout")), 30);
	cr_assert_str_eq(tc_jstr(json_object_get(req, "rule"), "decision"), "prompt");
	cr_assert_str_eq(tc_jstr(json_object_get(req, "rule"), "justification"),
	    "touching needs a yes");
	cr_assert_not_null(strstr(tc_jstr(json_object_get(req, "rule"), "source"), "t.rules:1"));
}

/* The suite's rules plus a prompt rule naming the script s by its path: a
 * caller that is not root could have written s, which only a rule naming
 * its exact path may escalate, so without it no one would be asked. */
static void
rules_with_script(void)
{
	char text[8192];

	snprintf(text, sizeof(text), "%sprefix_rule(pattern=[\"%s\"], decision=\"prompt\")\n",
	    rules, tc_path(&t, "s"));
	tc_file(&t, "t.rules", text);
}

/* The approver sees the caller's argv[0] when it is not the program's
 * name, and a script's #! chain, which the rules decide (touch prompts). */
Test(cli_prompt, approver_sees_argv0_and_the_shebang_chain)
{
	json_t *req, *in, *argv;
	char *text, touch[4096], script[4200];

	cr_assert_not_null(realpath(tc_which("touch"), touch));
	rules_with_script();
	snprintf(script, sizeof(script), "printf '#!%s\\n' > s && chmod +x s && "
	    "\"$EXEC_WRAPPER\" \"$PWD/s\" myname made; echo \"s: $?\"", touch);
	with_approver("cat > req.json; echo '{\"decision\": \"deny\"}'", "30", script);
	cr_assert_str_eq(r.out, "s: 126\n", "%s", r.err);
	cr_assert_not_null(text = tc_read(&t, "req.json"), "%s", r.err);
	req = tc_json(&t, text);
	free(text);
	cr_assert_str_eq(tc_jstr(req, "argv0"), "myname");
	argv = json_object_get(req, "target_argv");
	cr_assert_str_eq(json_string_value(json_array_get(argv, 0)), "s");
	in = json_array_get(json_object_get(req, "interpreters"), 0);
	cr_assert_not_null(in, "%s", r.err);
	cr_assert_str_eq(tc_jstr(in, "path"), touch);
	argv = json_object_get(in, "argv");
	cr_assert_eq(json_array_size(argv), 3);
	cr_assert_str_eq(json_string_value(json_array_get(argv, 0)), touch);
	cr_assert_str_eq(json_string_value(json_array_get(argv, 1)), tc_path(&t, "s"));
	cr_assert_str_eq(json_string_value(json_array_get(argv, 2)), "made");
	cr_assert_str_eq(tc_jstr(json_object_get(req, "rule"), "decision"), "prompt");
}

/* The terminal prompt shows the same: argv[0] and what the script runs. */
Test(cli_prompt, tty_shows_argv0_and_the_shebang_chain)
{
	char touch[4096], script[4200], want[8400];

	cr_assert_not_null(realpath(tc_which("touch"), touch));
	rules_with_script();
	snprintf(script, sizeof(script), "printf '#!%s\\n' > s && chmod +x s && "
	    "\"$EXEC_WRAPPER\" \"$PWD/s\" myname made; echo \"s: $?\"", touch);
	tc_run_pty(&t, &r, (const char *[]){ "n", NULL }, TS_V("run", "-p", "t.rules",
	    "--mode", "wrapper", "--force", "--prompt-timeout", "30", "--", "bash", "-c", script));
	cr_assert_not_null(strstr(r.out, "s: 126\r\n"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "  argv[0]: myname"), "%s", r.out);
	snprintf(want, sizeof(want), "  runs:    %s %s made\r\n", touch, tc_path(&t, "s"));
	cr_assert_not_null(strstr(r.out, want), "%s", r.out);
}

Test(cli_prompt, approver_runs_in_place)
{
	with_approver("echo '{\"decision\": \"run\"}'", "30", TOUCH);
	cr_assert_str_eq(r.out, "touch: 0\n", "%s", r.err);
	cr_assert(tc_exists(&t, "made"));
}

Test(cli_prompt, approver_denies_with_its_reason)
{
	with_approver("echo '{\"decision\": \"deny\", \"reason\": \"not today\"}'", "30", TOUCH);
	cr_assert_str_eq(r.out, "touch: 126\n");
	cr_assert_not_null(strstr(r.err, "shellesc: execution denied: not today\n"), "%s", r.err);
	cr_assert(!tc_exists(&t, "made"));
}

struct broken {
	const char *approver;
	const char *says;
};

static const struct broken brokens[] = {
	{ "kill -SEGV $$", "the approver was killed by signal 11 (SIGSEGV)" },
	{ "echo '{\"decision\": \"escalate\"}'; exit 3", "the approver exited with status 3" },
	{ "echo yes", "the approver's answer is not JSON" },
	{ "true", "the approver's answer is not JSON" },
	{ "echo '{\"verdict\": \"escalate\"}'", "the approver's answer has no \"decision\" string" },
	{ "echo '{\"decision\": \"maybe\"}'", "the approver answered an unknown decision 'maybe'" },
	{ "exec /nonexistent/approver", "the approver exited with status 127" },
};

ParameterizedTestParameters(cli_prompt, approver_broken)
{
	return ts_indexes(sizeof(brokens) / sizeof(brokens[0]));
}

/* Anything but a good answer is a deny that says what went wrong. */
ParameterizedTest(size_t *i, cli_prompt, approver_broken)
{
	with_approver(brokens[*i].approver, "30", TOUCH);
	cr_assert_str_eq(r.out, "touch: 126\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, brokens[*i].says), "expected \"%s\" in: %s",
	    brokens[*i].says, r.err);
	cr_assert(!tc_exists(&t, "made"));
}

static pid_t
pid_in(const char *name)
{
	char *s = tc_read(&t, name);
	pid_t pid;

	cr_assert_not_null(s, "%s was not written", name);
	pid = (pid_t)atoi(s);
	free(s);
	return pid;
}

/* No answer in time is a deny; the approver and what it started are
 * killed, not left behind. */
Test(cli_prompt, approver_timeout_kills_it)
{
	int64_t t0 = clock_now_ms();

	with_approver("echo $$ > ap.pid; sleep 60 & echo $! > bg.pid; wait", "1", TOUCH);
	cr_assert_str_eq(r.out, "touch: 126\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, "the approver did not answer in time (--prompt-timeout 1)"),
	    "%s", r.err);
	cr_assert_lt(clock_now_ms() - t0, 10000);
	cr_assert(ts_pid_gone(pid_in("ap.pid"), 5000), "the approver outlived its prompt");
	cr_assert(ts_pid_gone(pid_in("bg.pid"), 5000), "the approver's child outlived the prompt");
}

/* One question at a time, and unprompted commands are decided meanwhile. */
Test(cli_prompt, one_prompt_at_a_time_others_go_on)
{
	char *log;

	with_approver("echo start >> ask.log; sleep 0.4; echo end >> ask.log;"
	    " echo '{\"decision\": \"escalate\"}'", "30",
	    TC_GATE "G touch a & G touch b & sleep 0.1; G echo fast; wait; echo all done");
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "fast\nall done\n", "%s", r.err);
	cr_assert(tc_exists(&t, "a") && tc_exists(&t, "b"));
	log = tc_read(&t, "ask.log");
	cr_assert_str_eq(log, "start\nend\nstart\nend\n");
	free(log);
}

/* setsid: no controlling terminal, nobody to ask. */
Test(cli_prompt, no_terminal_denies)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "--",
	    "bash", "-c", TOUCH));
	cr_assert_str_eq(r.out, "touch: 126\n");
	cr_assert_not_null(strstr(r.err, "execution denied: no terminal to ask for approval"),
	    "%s", r.err);
	cr_assert(!tc_exists(&t, "made"));
}

static int
on_pty(const char *const answers[], const char *timeout, const char *script)
{
	return tc_run_pty(&t, &r, answers, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force",
	    "--prompt-timeout", (char *)timeout, "--", "bash", "-c", (char *)script));
}

/* The question shows the command, its cwd, its pid and the rule. */
Test(cli_prompt, tty_yes)
{
	char cwd[512], cmd[512];

	cr_assert_eq(on_pty((const char *[]){ "y", NULL }, "30", TOUCH), 1);
	cr_assert_eq(tc_code(&r), 0);
	cr_assert_not_null(strstr(r.out, "touch: 0\r\n"), "%s", r.out);
	snprintf(cmd, sizeof(cmd), "  command: %s made\r\n", tc_which("touch"));
	cr_assert_not_null(strstr(r.out, cmd), "%s", r.out);
	snprintf(cwd, sizeof(cwd), "  cwd:     %s\r\n", t.dir);
	cr_assert_not_null(strstr(r.out, cwd), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "  pid:     "), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "t.rules:1: touching needs a yes\r\n"), "%s", r.out);
	/* a prompt rule would outweigh an added escalate rule: no always */
	cr_assert_not_null(strstr(r.out, "Allow it? [y]es escalate, [r]un here, [n]o (30 s): "),
	    "%s", r.out);
	cr_assert(tc_exists(&t, "made"));
}

Test(cli_prompt, tty_no)
{
	cr_assert_eq(on_pty((const char *[]){ "no", NULL }, "30", TOUCH), 1);
	cr_assert_not_null(strstr(r.out, "touch: 126\r\n"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "execution denied: denied at the terminal"), "%s", r.out);
	cr_assert(!tc_exists(&t, "made"));
}

/* A wrong answer is asked again. */
Test(cli_prompt, tty_asks_again)
{
	cr_assert_eq(on_pty((const char *[]){ "perhaps", "yes", NULL }, "30", TOUCH), 2);
	cr_assert_not_null(strstr(r.out, "shellesc: please answer y, r or n\r\n  program: "), "%s",
	    r.out);
	cr_assert_not_null(strstr(r.out, "touch: 0\r\n"), "%s", r.out);
}

Test(cli_prompt, tty_timeout)
{
	cr_assert_eq(on_pty((const char *[]){ TC_SILENT, NULL }, "1", TOUCH), 1);
	cr_assert_not_null(strstr(r.out, "touch: 126\r\n"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "no answer in time (--prompt-timeout 1)"), "%s", r.out);
}

/* always: escalated, remembered for the rest of the session and in the
 * user's learned file, which the next session (with no one to ask) honours. */
Test(cli_prompt, tty_always_is_remembered)
{
	const char *script = TC_GATE "G touch made; echo \"touch: $?\"; G touch made; echo \"again: $?\"";
	char *saved, rule[512];

	cr_assert_eq(tc_run_pty(&t, &r, (const char *[]){ "always", NULL }, TS_V("run",
	    "--mode", "wrapper", "--force", "--default", "prompt", "--", "bash", "-c", (char *)script)), 1);
	cr_assert_not_null(strstr(r.out, "[a]lways"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "touch: 0\r\nagain: 0\r\n"), "%s", r.out);
	saved = tc_read(&t, "xdg/shellesc/rules/learned.rules");
	cr_assert_not_null(saved, "always wrote no rules file");
	snprintf(rule, sizeof(rule), "\"%s\", \"made\"", tc_which("touch"));
	cr_assert_not_null(strstr(saved, rule), "%s", saved);
	cr_assert_not_null(strstr(saved, "decision=\"escalate\""), "%s", saved);
	free(saved);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "--default", "prompt", "--",
	    "bash", "-c", TOUCH));
	cr_assert_str_eq(r.out, "touch: 0\n", "%s", r.err);
	cr_assert_str_eq(r.err, "");
}
