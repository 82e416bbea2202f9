/*
 * test-cli-answer.c: suite cli_answer -- the answers a prompt takes: on a
 * terminal (Ctrl-C and Ctrl-D deny at once, run here, always exactly or
 * generalised, always run here, into the learned file the session loads,
 * never a -p file) and from an approver (Codex's decision names, "always"
 * with escalate or run, a missing approver found at start).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "helpers/cli.h"

static const char rules[] =
    "prefix_rule(pattern=[\"touch\"], decision=\"prompt\")\n";

TC_SUITE(cli_answer, rules);

#define TOUCH TC_GATE "G touch made; echo \"touch: $?\""
/* uname -s, then uname -s -r: an exact rule for the first is not the second's */
#define UNAMES TC_GATE "G uname -s >/dev/null; echo \"one: $?\"; " \
    "G uname -s -r >/dev/null; echo \"two: $?\""
#define ONE TC_GATE "G uname -s >/dev/null; echo \"one: $?\""

static int
on_pty(const char *const answers[], char *const args[])
{
	return tc_run_pty(&t, &r, answers, args);
}

static void
interrupted_at_once(const char *key)
{
	int64_t t0 = clock_now_ms();

	cr_assert_eq(on_pty((const char *[]){ key, NULL }, TS_V("run", "-p", "t.rules",
	    "--mode", "wrapper", "--force", "--prompt-timeout", "30", "--", "bash", "-c", TOUCH)), 1);
	cr_assert_lt(clock_now_ms() - t0, 15000, "the deny waited for the timeout");
	cr_assert_not_null(strstr(r.out, "touch: 126\r\n"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "execution denied: interrupted"), "%s", r.out);
	cr_assert(!tc_exists(&t, "made"));
}

/* Ctrl-C at the prompt denies at once, with the reason "interrupted". */
Test(cli_answer, ctrl_c_denies_at_once)
{
	interrupted_at_once(TC_RAW "\003");
}

Test(cli_answer, ctrl_d_denies_at_once)
{
	interrupted_at_once(TC_RAW "\004");
}

/* r runs it in place, as a rule saying run would: the audit says so. */
Test(cli_answer, run_here)
{
	char *log;

	cr_assert_eq(on_pty((const char *[]){ "r", NULL }, TS_V("run", "-p", "t.rules",
	    "--mode", "wrapper", "--force", "-a", "audit.log", "--", "bash", "-c", TOUCH)), 1);
	cr_assert_not_null(strstr(r.out, "touch: 0\r\n"), "%s", r.out);
	cr_assert(tc_exists(&t, "made"));
	cr_assert_not_null(log = tc_read(&t, "audit.log"));
	cr_assert_not_null(strstr(log, "\"decision\":\"run\""), "%s", log);
	cr_assert_not_null(strstr(log, "\"answer\":\"run\""), "%s", log);
	free(log);
}

/* a: exactly this argv from now on -- a longer command is asked about
 * again -- and the prompt shows the rule and the file beforehand. */
Test(cli_answer, always_is_exact)
{
	char *saved, rule[512];

	snprintf(rule, sizeof(rule), "prefix_rule(pattern=[\"%s\", \"-s\"], "
	    "decision=\"escalate\", exact=True)", tc_which("uname"));
	cr_assert_eq(on_pty((const char *[]){ "a", "n", NULL }, TS_V("run", "--mode", "wrapper", "--force",
	    "--default", "prompt", "--", "bash", "-c", UNAMES)), 2, "%s", r.out);
	cr_assert_not_null(strstr(r.out, "one: 0\r\n"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "two: 126\r\n"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, rule), "the prompt did not show %s: %s", rule, r.out);
	cr_assert_not_null(strstr(r.out, "xdg/shellesc/rules/learned.rules (loaded by this"),
	    "%s", r.out);
	saved = tc_read(&t, "xdg/shellesc/rules/learned.rules");
	cr_assert_not_null(saved);
	cr_assert_not_null(strstr(saved, rule), "%s", saved);
	free(saved);
}

/* p: generalised as --learn does (uname has no subcommands: the program
 * by name), so uname -s -r is escalated too, unasked. */
Test(cli_answer, always_as_prefix)
{
	char *saved;

	cr_assert_eq(on_pty((const char *[]){ "p", NULL }, TS_V("run", "--mode", "wrapper", "--force",
	    "--default", "prompt", "--", "bash", "-c", UNAMES)), 1, "%s", r.out);
	cr_assert_not_null(strstr(r.out, "one: 0\r\ntwo: 0\r\n"), "%s", r.out);
	saved = tc_read(&t, "xdg/shellesc/rules/learned.rules");
	cr_assert_not_null(saved);
	cr_assert_str_eq(saved, "prefix_rule(pattern=[\"uname\"], decision=\"escalate\")\n");
	free(saved);
}

/* ar: runs in place from now on; the rule says run, in the learned file. */
Test(cli_answer, always_run_here)
{
	char *saved, *log;

	cr_assert_eq(on_pty((const char *[]){ "ar", NULL }, TS_V("run", "--mode", "wrapper",
	    "--force", "--default", "prompt", "-a", "audit.log", "--", "bash", "-c", UNAMES)), 1,
	    "%s", r.out);
	cr_assert_not_null(strstr(r.out, "[ar] always run here"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "one: 0\r\ntwo: 0\r\n"), "%s", r.out);
	saved = tc_read(&t, "xdg/shellesc/rules/learned.rules");
	cr_assert_not_null(saved);
	cr_assert_str_eq(saved, "prefix_rule(pattern=[\"uname\"], decision=\"run\")\n");
	free(saved);
	cr_assert_not_null(log = tc_read(&t, "audit.log"));
	cr_assert_null(strstr(log, "\"decision\":\"escalate\""), "%s", log);
	free(log);
}

/* With -p, always goes to the learned file, never into the curated -p
 * file; the next session started the same way loads it too. */
Test(cli_answer, always_never_goes_to_the_p_file)
{
	char *saved;

	cr_assert_eq(on_pty((const char *[]){ "a", NULL }, TS_V("run", "-p", "t.rules",
	    "--mode", "wrapper", "--force", "--default", "prompt", "--", "bash", "-c", ONE)), 1, "%s", r.out);
	cr_assert_not_null(strstr(r.out, "one: 0\r\n"), "%s", r.out);
	cr_assert_not_null(saved = tc_read(&t, "t.rules"));
	cr_assert_str_eq(saved, rules);
	free(saved);
	cr_assert_not_null(saved = tc_read(&t, "xdg/shellesc/rules/learned.rules"));
	cr_assert_not_null(strstr(saved, "exact=True"), "%s", saved);
	free(saved);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "--default",
	    "deny", "--", "bash", "-c", ONE));
	cr_assert_str_eq(r.out, "one: 0\n", "%s", r.err);
}

static void
with_approver(const char *approver, const char *dflt, const char *script)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "--default",
	    (char *)dflt, "--approver", (char *)approver, "--", "bash", "-c", (char *)script));
}

/* Codex's names: allow escalates, forbidden denies. */
Test(cli_answer, approver_codex_names)
{
	with_approver("echo '{\"decision\": \"allow\"}'", "run", TOUCH);
	cr_assert_str_eq(r.out, "touch: 0\n", "%s", r.err);
	cr_assert(tc_exists(&t, "made"));
	tc_res_free(&r);
	with_approver("echo '{\"decision\": \"forbidden\", \"reason\": \"no\"}'", "run",
	    TC_GATE "G touch other; echo \"touch: $?\"");
	cr_assert_str_eq(r.out, "touch: 126\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, "execution denied: no\n"), "%s", r.err);
}

/* An approver's always is remembered: it is asked once, and told it may. */
Test(cli_answer, approver_always)
{
	char *saved;

	with_approver("cat > req.json; echo x >> asked; "
	    "echo '{\"decision\": \"escalate\", \"always\": \"prefix\"}'", "prompt", UNAMES);
	cr_assert_str_eq(r.out, "one: 0\ntwo: 0\n", "%s", r.err);
	cr_assert_not_null(saved = tc_read(&t, "asked"));
	cr_assert_str_eq(saved, "x\n");
	free(saved);
	cr_assert_not_null(saved = tc_read(&t, "req.json"));
	cr_assert_not_null(strstr(saved, "\"always_offered\":true"), "%s", saved);
	free(saved);
	cr_assert_not_null(saved = tc_read(&t, "xdg/shellesc/rules/learned.rules"));
	cr_assert_str_eq(saved, "prefix_rule(pattern=[\"uname\"], decision=\"escalate\")\n");
	free(saved);
	cr_assert_not_null(saved = tc_read(&t, "t.rules"));
	cr_assert_str_eq(saved, rules);
	free(saved);
}

/* An approver may answer "always" with run: the command runs in place,
 * now and unasked from then on. */
Test(cli_answer, approver_always_run)
{
	char *saved;

	with_approver("echo x >> asked; echo '{\"decision\": \"run\", \"always\": \"prefix\"}'",
	    "prompt", UNAMES);
	cr_assert_str_eq(r.out, "one: 0\ntwo: 0\n", "%s", r.err);
	cr_assert_not_null(saved = tc_read(&t, "asked"));
	cr_assert_str_eq(saved, "x\n");
	free(saved);
	cr_assert_not_null(saved = tc_read(&t, "xdg/shellesc/rules/learned.rules"));
	cr_assert_str_eq(saved, "prefix_rule(pattern=[\"uname\"], decision=\"run\")\n");
	free(saved);
}

/* always where a rule matched cannot outweigh it: an error, a deny. */
Test(cli_answer, approver_always_not_offered)
{
	with_approver("echo '{\"decision\": \"escalate\", \"always\": \"exact\"}'", "run", TOUCH);
	cr_assert_str_eq(r.out, "touch: 126\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, "where it is not offered"), "%s", r.err);
}

/* A missing or non-executable approver stops shellesc before anything runs. */
Test(cli_answer, approver_missing_at_start)
{
	with_approver("nosuchapprover --flag", "run", "touch ran");
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "--approver: nosuchapprover: not found in PATH"),
	    "%s", r.err);
	cr_assert(!tc_exists(&t, "ran"));
	tc_res_free(&r);
	tc_file(&t, "ap.sh", "#!/bin/sh\necho '{\"decision\": \"run\"}'\n");
	with_approver(tc_path(&t, "ap.sh"), "run", "touch ran");
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "ap.sh: Permission denied"), "%s", r.err);
	cr_assert(!tc_exists(&t, "ran"));
}
