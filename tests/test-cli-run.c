/*
 * test-cli-run.c: suite cli_run -- shellesc run with rules files: deny,
 * escalate and run in place, exit statuses passed through, signals sent
 * to shellesc passed on, and the preload catching a plain bash's execs.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/cli.h"

static const char rules[] =
    "prefix_rule(pattern=[\"touch\"], decision=\"deny\", justification=\"no touching in tests\")\n"
    "prefix_rule(pattern=[\"sh\", \"-c\"], decision=\"escalate\")\n"
    "prefix_rule(pattern=[\"mkdir\"], decision=\"deny\")\n";

TC_SUITE(cli_run, rules);

static void
run_script(const char *mode, const char *script)
{
	tc_run(&t, &r, NULL, TS_V("run", "--force", "-p", "t.rules", "--mode", (char *)mode, "--",
	    "bash", "-c", (char *)script));
}

/* Denied: 126, the rule's justification, and nothing happened. */
Test(cli_run, deny_says_why_and_nothing_happens)
{
	run_script("wrapper", TC_GATE "G touch made; echo \"touch: $?\"");
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "touch: 126\n");
	cr_assert_not_null(strstr(r.err, "shellesc: execution denied: no touching in tests\n"),
	    "%s", r.err);
	cr_assert(!tc_exists(&t, "made"));
}

/* A rule without a justification: the reason names the rule. */
Test(cli_run, deny_without_justification_names_the_rule)
{
	run_script("wrapper", TC_GATE "G mkdir made");
	cr_assert_eq(tc_code(&r), 126);
	cr_assert_not_null(strstr(r.err, "execution denied: denied by the rule at "), "%s", r.err);
	cr_assert_not_null(strstr(r.err, "t.rules:3"), "%s", r.err);
	cr_assert(!tc_exists(&t, "made"));
}

/* --default deny: what no rule matches is refused, saying so. */
Test(cli_run, default_deny)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "--default", "deny",
	    "--", "bash", "-c", TC_GATE "G true; echo $?"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "126\n");
	cr_assert_not_null(strstr(r.err, "no rule allows this command (--default deny)"), "%s", r.err);
}

/* Escalated commands run (by shellesc) on the caller's stdio; their
 * status comes back; unmatched commands run in place. */
Test(cli_run, escalate_and_run)
{
	run_script("wrapper", TC_GATE "G sh -c 'echo escalated; exit 3'; echo \"sh: $?\";"
	    " G echo in place; echo \"echo: $?\"");
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "escalated\nsh: 3\nin place\necho: 0\n");
	/* the only message: escalating a shell is warned of (issue item 9) */
	cr_assert_not_null(strstr(r.err, "t.rules:2:22: warning: escalating \"sh\" "
	    "runs code the sandbox may have written"), "%s", r.err);
	cr_assert_eq(strstr(r.err, "shellesc: ") , r.err, "%s", r.err);
	cr_assert_null(strstr(r.err + 1, "shellesc: "), "%s", r.err);
}

/* Without rules files (none in ~/.config or the test's XDG_CONFIG_HOME)
 * every command runs in place. */
Test(cli_run, no_rules_runs_everything)
{
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "--", "bash", "-c",
	    TC_GATE "G touch made; echo $?"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "0\n");
	cr_assert(tc_exists(&t, "made"));
}

/* The rules under $XDG_CONFIG_HOME/shellesc/rules load without -p. */
Test(cli_run, user_rules_directory)
{
	cr_assert_eq(mkdir(tc_path(&t, "xdg"), 0700), 0);
	cr_assert_eq(mkdir(tc_path(&t, "xdg/shellesc"), 0700), 0);
	cr_assert_eq(mkdir(tc_path(&t, "xdg/shellesc/rules"), 0700), 0);
	tc_file(&t, "xdg/shellesc/rules/a.rules", rules);
	tc_file(&t, "xdg/shellesc/rules/ignored.txt", "this is not a rules file (");
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "--", "bash", "-c",
	    TC_GATE "G touch made; echo $?"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "126\n");
	cr_assert(!tc_exists(&t, "made"));
}

Test(cli_run, exit_code_passes_through)
{
	run_script("wrapper", "exit 7");
	cr_assert_eq(tc_code(&r), 7);
}

/* A PROGRAM killed by signal N: 128+N, as shells report it. */
Test(cli_run, signal_death_is_128_plus_n)
{
	run_script("wrapper", "kill -TERM $$");
	cr_assert_eq(tc_code(&r), 128 + SIGTERM);
	tc_res_free(&r);
	run_script("wrapper", "kill -SEGV $$");
	cr_assert_eq(tc_code(&r), 128 + SIGSEGV);
}

/* A file without #! runs with /bin/sh, as execvp(3) does. */
Test(cli_run, script_without_shebang)
{
	const char *script = tc_file(&t, "noshebang", "echo \"script: $1\"\n");

	chmod(script, 0755);
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", (char *)script, "arg"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "script: arg\n");
}

/* SIGTERM sent to shellesc (not from a terminal) reaches PROGRAM. */
Test(cli_run, signals_to_shellesc_reach_program)
{
	struct ts_proc p;
	char line[64];

	tc_start(&t, &p, TS_V("run", "--mode", "wrapper", "--force", "--", "bash", "-c",
	    "trap 'echo got TERM; kill $!; exit 9' TERM; echo ready; sleep 100 & wait"));
	ts_read_line(p.out, line, sizeof(line), 10000);
	cr_assert_str_eq(line, "ready\n");
	cr_assert_eq(kill(p.pid, SIGTERM), 0);
	r.status = ts_proc_wait(&p, &r.out, &r.outlen, &r.err);
	cr_assert_eq(tc_code(&r), 9, "%s", r.err);
	cr_assert_str_eq(r.out, "got TERM\n");
}

/* --mode both: the preload library catches a stock bash's own execs. */
Test(cli_run, preload_catches_plain_bash)
{
	TC_NEED_PRELOAD(&t, &r);
	run_script("both", "touch made; echo \"touch: $?\"; sh -c 'echo escalated'");
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "touch: 126\nescalated\n");
	cr_assert_not_null(strstr(r.err, "no touching in tests"), "%s", r.err);
	cr_assert(!tc_exists(&t, "made"));
}

/* A whole session around `true`, for the report: how long it takes. */
Test(cli_run, session_cost)
{
	int64_t t0 = clock_now_ms();

	for (int i = 0; i < 10; i++) {
		tc_res_free(&r);
		tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "true"));
		cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	}
	cr_log_info("shellesc run true: %.1f ms per session", (double)(clock_now_ms() - t0) / 10);
}
