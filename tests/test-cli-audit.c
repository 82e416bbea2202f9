/*
 * test-cli-audit.c: suite cli_audit -- --audit: one JSON object per line,
 * a decision per request and an end per escalated command, matching what
 * happened; argv bytes that are not UTF-8 encoded losslessly; lines whole
 * when many requests are decided at once.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/cli.h"

static const char rules[] =
    "prefix_rule(pattern=[\"touch\"], decision=\"deny\", justification=\"no touching\")\n"
    "prefix_rule(pattern=[\"sh\", \"-c\"], decision=\"escalate\")\n"
    "prefix_rule(pattern=[\"cat\"], decision=\"prompt\")\n";

TC_SUITE(cli_audit, rules);

static json_t **ev;	/* the events of the last audited run (t holds them) */
static size_t nev;

/* Run script with --audit audit.log (and --approver, if not NULL); parse the log. */
static void
audited_in(const char *mode, const char *script, const char *approver)
{
	char *args[16] = { "run", "--force", "-p", "t.rules", "--mode", (char *)mode, "-a", "audit.log" };
	size_t n = 8;
	char *log;

	if (approver) {
		args[n++] = "--approver";
		args[n++] = (char *)approver;
	}
	args[n++] = "--";
	args[n++] = "bash";
	args[n++] = "-c";
	args[n++] = (char *)script;
	tc_run(&t, &r, NULL, args);
	tc_code(&r);
	cr_assert_not_null(log = tc_read(&t, "audit.log"));
	ev = tc_json_lines(&t, log, &nev);
	free(log);
}

static void
audited(const char *script, const char *approver)
{
	audited_in("wrapper", script, approver);
}

static json_int_t
jint(json_t *j, const char *key)
{
	cr_assert(json_is_integer(json_object_get(j, key)), "no integer \"%s\"", key);
	return json_integer_value(json_object_get(j, key));
}

static void
check_head(json_t *e, const char *event)
{
	const char *when = tc_jstr(e, "time");

	cr_assert_str_eq(tc_jstr(e, "event"), event);
	/* 2026-11-30T05:51:17.340Z */
	cr_assert(strlen(when) == 24 && when[10] == 'T' && when[23] == 'Z', "time %s", when);
}

Test(cli_audit, events_match_what_happened)
{
	json_t *deny, *esc, *end, *run, *rule;
	json_int_t id;

	audited(TC_GATE "G touch made; G sh -c 'exit 3'; G echo hi", NULL);
	cr_assert_eq(nev, 4, "%s", tc_read(&t, "audit.log"));
	deny = ev[0], esc = ev[1], end = ev[2], run = ev[3];
	check_head(deny, "decision");
	cr_assert_str_eq(tc_jstr(deny, "decision"), "deny");
	cr_assert_str_eq(tc_jstr(deny, "program"), tc_which("touch"));
	cr_assert_str_eq(json_string_value(json_array_get(json_object_get(deny, "argv"), 1)), "made");
	cr_assert_str_eq(tc_jstr(deny, "cwd"), t.dir);
	cr_assert_str_eq(tc_jstr(deny, "reason"), "no touching");
	cr_assert_str_eq(tc_jstr(deny, "intercept"), "wrapper");
	cr_assert_eq(jint(deny, "uid"), (json_int_t)getuid());
	cr_assert_gt(jint(deny, "pid"), 0);
	cr_assert_eq(json_array_size(json_object_get(deny, "flags")), 0);
	rule = json_object_get(deny, "rule");
	cr_assert_str_eq(tc_jstr(rule, "decision"), "deny");
	cr_assert_not_null(strstr(tc_jstr(rule, "source"), "t.rules:1"));
	cr_assert(json_is_null(json_object_get(deny, "asked")));

	check_head(esc, "decision");
	cr_assert_str_eq(tc_jstr(esc, "decision"), "escalate");
	cr_assert(json_is_null(json_object_get(esc, "reason")));
	id = jint(esc, "id");
	check_head(end, "end");
	cr_assert_eq(jint(end, "id"), id);
	cr_assert_eq(jint(end, "exit_code"), 3);
	cr_assert(json_is_null(json_object_get(end, "signal")));
	cr_assert_geq(jint(end, "duration_ms"), 0);
	cr_assert_not_null(strstr(tc_jstr(end, "program"), "/sh"));

	cr_assert_str_eq(tc_jstr(run, "decision"), "run");
	cr_assert(json_is_null(json_object_get(run, "rule")));
}

/* Each event says which client caught the exec. */
Test(cli_audit, intercept_names_the_client)
{
	TC_NEED_PRELOAD(&t, &r);
	audited_in("preload", "touch made", NULL);
	cr_assert_eq(nev, 1, "%s", tc_read(&t, "audit.log"));
	cr_assert_str_eq(tc_jstr(ev[0], "decision"), "deny");
	cr_assert_str_eq(tc_jstr(ev[0], "intercept"), "preload");
}

/* Valid UTF-8 stays a string; other bytes become {"base64": ...}. */
Test(cli_audit, non_utf8_is_base64)
{
	json_t *argv;

	audited(TC_GATE "G echo $'caf\\xe9' $'\\xff' café ok >/dev/null", NULL);
	cr_assert_eq(nev, 1);
	argv = json_object_get(ev[0], "argv");
	cr_assert_str_eq(tc_jstr(json_array_get(argv, 1), "base64"), "Y2Fm6Q==");
	cr_assert_str_eq(tc_jstr(json_array_get(argv, 2), "base64"), "/w==");
	cr_assert_str_eq(json_string_value(json_array_get(argv, 3)), "café");
	cr_assert_str_eq(json_string_value(json_array_get(argv, 4)), "ok");
}

/* An escalated command killed by a signal: signal set, exit_code null. */
Test(cli_audit, end_of_a_signalled_command)
{
	audited(TC_GATE "G sh -c 'kill -KILL $$'", NULL);
	cr_assert_eq(nev, 2);
	cr_assert_eq(jint(ev[1], "signal"), 9);
	cr_assert(json_is_null(json_object_get(ev[1], "exit_code")));
}

/* A prompt's answer is recorded with who gave it. */
Test(cli_audit, prompt_answer_recorded)
{
	audited(TC_GATE "G cat </dev/null",
	    "echo '{\"decision\": \"deny\", \"reason\": \"no cats\"}'");
	cr_assert_eq(nev, 1);
	cr_assert_str_eq(tc_jstr(ev[0], "decision"), "deny");
	cr_assert_str_eq(tc_jstr(ev[0], "asked"), "approver");
	cr_assert_str_eq(tc_jstr(ev[0], "answer"), "deny");
	cr_assert_str_eq(tc_jstr(ev[0], "reason"), "no cats");
}

/* Many requests decided at once, long lines: every line whole. */
Test(cli_audit, lines_never_interleave)
{
	audited(TC_GATE "long=$(printf 'x%.0s' {1..6000});"
	    " for i in $(seq 40); do G true $i $long & done; wait", NULL);
	cr_assert_eq(nev, 40);
	for (size_t i = 0; i < nev; i++)
		cr_assert_eq(strlen(json_string_value(json_array_get(json_object_get(ev[i], "argv"),
		    2))), 6000);
}

/* '-': the same objects on stderr. */
Test(cli_audit, to_stderr)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-a", "-",
	    "--", "bash", "-c", TC_GATE "G touch made"));
	cr_assert_eq(tc_code(&r), 126);
	ev = tc_json_lines(&t, r.err, &nev);
	cr_assert_eq(nev, 1, "%s", r.err);
	cr_assert_str_eq(tc_jstr(ev[0], "decision"), "deny");
}

/* syslog: accepted, and the session runs (the log itself is the system's). */
Test(cli_audit, to_syslog)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-a", "syslog",
	    "--", "bash", "-c", TC_GATE "G echo hi"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "hi\n");
}

/*
 * CPython's subprocess walks PATH itself: /usr/bin/rm is denied, then it
 * tries /bin/rm, the same file under usrmerge.  One command, one decision:
 * asked, said and audited once; the program still gets EACCES.
 */
Test(cli_audit, path_walk_repeat_decided_once)
{
	struct stat a, b;
	char *log;

	if (stat("/usr/bin/rm", &a) != 0 || stat("/bin/rm", &b) != 0 ||
	    a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		TC_SKIP(&t, &r, "/usr/bin/rm and /bin/rm are not one file (no usrmerge)");
	TC_NEED_PRELOAD(&t, &r);
	tc_file(&t, "t.rules", "prefix_rule(pattern=[\"rm\"], decision=\"deny\")\n");
	tc_setpath(&t, "/usr/bin:/bin");
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "-a", "audit.log", "--",
	    "/usr/bin/python3", "-c", "import subprocess\n"
	    "try: subprocess.run(['rm', 'x'])\n"
	    "except PermissionError as e: print('errno', e.errno)\n"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "errno 13\n", "%s", r.err);
	cr_assert_not_null(log = tc_read(&t, "audit.log"));
	ev = tc_json_lines(&t, log, &nev);
	free(log);
	cr_assert_eq(nev, 1, "%zu audit events for one command", nev);
	cr_assert_str_eq(tc_jstr(ev[0], "decision"), "deny");
	cr_assert_not_null(strstr(r.err, "execution denied"), "%s", r.err);
	cr_assert_null(strstr(strstr(r.err, "execution denied") + 1, "execution denied"),
	    "said twice:\n%s", r.err);
}
