/*
 * test-cli-audit.c: suite cli_audit -- --audit: one JSON object per line,
 * a decision per request and an end per escalated command, matching what
 * happened; argv bytes that are not UTF-8 encoded losslessly; lines whole
 * when many requests are decided at once; the caller's parent pid and the
 * decision that started it; and audit FILE's filters (--decision prompt,
 * --no-rule) and aligned table.
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
	cr_assert_eq(tc_jint(deny, "uid"), (json_int_t)getuid());
	cr_assert_gt(tc_jint(deny, "pid"), 0);
	cr_assert_eq(json_array_size(json_object_get(deny, "flags")), 0);
	rule = json_object_get(deny, "rule");
	cr_assert_str_eq(tc_jstr(rule, "decision"), "deny");
	cr_assert_not_null(strstr(tc_jstr(rule, "source"), "t.rules:1"));
	cr_assert(json_is_null(json_object_get(deny, "asked")));

	check_head(esc, "decision");
	cr_assert_str_eq(tc_jstr(esc, "decision"), "escalate");
	cr_assert(json_is_null(json_object_get(esc, "reason")));
	id = tc_jint(esc, "id");
	check_head(end, "end");
	cr_assert_eq(tc_jint(end, "id"), id);
	cr_assert_eq(tc_jint(end, "ppid"), tc_jint(esc, "ppid"));
	cr_assert_eq(tc_jint(end, "exit_code"), 3);
	cr_assert(json_is_null(json_object_get(end, "signal")));
	cr_assert_geq(tc_jint(end, "duration_ms"), 0);
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
	cr_assert_eq(tc_jint(ev[1], "signal"), 9);
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

/* Each decision names the caller's parent pid, and the decision that let
 * that parent run where this session made it: a command started by a
 * command leads back to it. */
Test(cli_audit, parent_pid_and_decision)
{
	json_int_t outer;

	TC_NEED_PRELOAD(&t, &r);
	/* bash -c 'X; true' forks for X, so X's parent is that bash */
	audited_in("preload", "bash -c '/usr/bin/true; true'", NULL);
	cr_assert_eq(nev, 2, "%s", tc_read(&t, "audit.log"));
	cr_assert_str_eq(tc_jstr(ev[0], "decision"), "run");
	outer = tc_jint(ev[0], "id");
	cr_assert_eq(tc_jint(ev[1], "ppid"), tc_jint(ev[0], "pid"));
	cr_assert_eq(tc_jint(ev[1], "parent_id"), outer);
	/* the script's own bash was not a decision: its children have none */
	cr_assert(json_is_null(json_object_get(ev[0], "parent_id")));
	cr_assert_gt(tc_jint(ev[0], "ppid"), 1);
}

static size_t
lines_of(const char *s)
{
	size_t n = 0;

	for (; (s = strchr(s, '\n')) != NULL; s++)
		n++;
	return n;
}

/* audit --decision prompt: what was asked about; --no-rule: what no rule
 * matched. */
Test(cli_audit, filters_prompt_and_no_rule)
{
	audited(TC_GATE "G cat /dev/null; G true; G touch made", "echo '{\"decision\": \"run\"}'");
	cr_assert_eq(nev, 3, "%s", tc_read(&t, "audit.log"));
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("audit", "--decision", "prompt", "audit.log"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_eq(lines_of(r.out), 2, "%s", r.out);
	cr_assert_not_null(strstr(r.out, "/cat /dev/null"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "answered run"), "%s", r.out);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("audit", "--no-rule", "audit.log"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_eq(lines_of(r.out), 2, "%s", r.out);
	cr_assert_not_null(strstr(r.out, "/true"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "no rule matched"), "%s", r.out);
}

/* The table's columns line up whatever the entries' lengths, and
 * untrusted strings are shown escaped. */
Test(cli_audit, table_columns_align)
{
	static const char log[] =
	    "{\"time\":\"2026-12-01T10:00:00.000Z\",\"event\":\"decision\",\"id\":7,\"pid\":12,"
	    "\"ppid\":1,\"parent_id\":null,\"program\":\"/bin/true\",\"argv\":[\"true\"],"
	    "\"rule\":null,\"decision\":\"run\"}\n"
	    "{\"time\":\"2026-12-01T10:00:01.000Z\",\"event\":\"decision\",\"id\":12345,"
	    "\"pid\":1234567,\"ppid\":12,\"parent_id\":7,\"program\":\"/bin/e\\u001bvil\","
	    "\"argv\":[\"e\\u001bvil\",\"x\"],\"rule\":{\"source\":\"/a/long/rules/file.rules:42\","
	    "\"decision\":\"escalate\"},\"decision\":\"escalate\"}\n";
	const char *cols[] = { "DECISION", "ID", "PID", "PPID", "PARENT", "RULE", "COMMAND" };
	const char *row1[] = { "run", "7", "12", "1", "-", "no rule matched", "/bin/true" };
	const char *row2[] = { "escalate", "12345", "1234567", "12", "7",
	    "/a/long/rules/file.rules:42", "'/bin/e\\033vil' x" };
	char *lines[3], *save = NULL;

	tc_file(&t, "hand.log", log);
	tc_run(&t, &r, NULL, TS_V("audit", "hand.log"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_null(strchr(r.out, '\033'), "an escape reached the terminal");
	lines[0] = strtok_r(r.out, "\n", &save);
	lines[1] = strtok_r(NULL, "\n", &save);
	lines[2] = strtok_r(NULL, "\n", &save);
	cr_assert_not_null(lines[2]);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		const char *h = strstr(lines[0], cols[i]);
		size_t at = h ? (size_t)(h - lines[0]) : 0;

		cr_assert(h != NULL && strlen(lines[1]) > at && strlen(lines[2]) > at, "%s: %s",
		    cols[i], r.out);
		cr_assert(strncmp(lines[1] + at, row1[i], strlen(row1[i])) == 0 &&
		    strncmp(lines[2] + at, row2[i], strlen(row2[i])) == 0,
		    "not under %s:\n%s\n%s\n%s", cols[i], lines[0], lines[1], lines[2]);
	}
}
