/*
 * test-cli-operate.c: suite cli_operate -- what an operator meets: -v
 * shows only what did not run in place (-vv everything), the audit log
 * names rules by absolute path, an audit log that cannot be written
 * (--audit-fail warn or stop; either way no escalation runs unlogged), an
 * audit file the sandbox could fill refused (--audit-writable), --default
 * allow refused, shellesc help,
 * shellesc audit FILE's table and filters.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/cli.h"

TC_SUITE(cli_operate, "prefix_rule(pattern=[\"touch\"], decision=\"deny\")\n"
    "prefix_rule(pattern=[\"id\"], decision=\"escalate\")\n");

#define TRUES TC_GATE "G true; G true; G true; G touch made; echo \"touch: $?\""

static size_t
count(const char *s, const char *what)
{
	size_t n = 0;

	for (const char *p = s; (p = strstr(p, what)) != NULL; p++)
		n++;
	return n;
}

/* -v: the deny, not the programs that ran in place; -vv: those too. */
Test(cli_operate, verbose_levels)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-v", "--",
	    "bash", "-c", TRUES));
	cr_assert_eq(count(r.err, "shellesc: deny "), 1, "%s", r.err);
	cr_assert_eq(count(r.err, "shellesc: run "), 0, "%s", r.err);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-vv", "--",
	    "bash", "-c", TRUES));
	cr_assert_eq(count(r.err, "shellesc: deny "), 1, "%s", r.err);
	cr_assert_geq(count(r.err, "shellesc: run "), 3, "%s", r.err);
}

/* A rule given as -p t.rules is named by its absolute path. */
Test(cli_operate, audit_names_rules_absolutely)
{
	char *log, want[1024];

	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-a", "audit.log",
	    "--", "bash", "-c", TRUES));
	cr_assert_not_null(log = tc_read(&t, "audit.log"));
	snprintf(want, sizeof(want), "\"source\":\"%s:1\"", tc_path(&t, "t.rules"));
	cr_assert_not_null(strstr(log, want), "no %s in: %s", want, log);
	free(log);
}

/* warn (the default): one message, not one per event; the commands go on. */
Test(cli_operate, audit_fail_warns_once)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-a", "/dev/full",
	    "--", "bash", "-c", TRUES "; echo end"));
	cr_assert_str_eq(r.out, "touch: 126\nend\n", "%s", r.err);
	cr_assert_eq(count(r.err, "cannot write"), 1, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "events could not be written"), "%s", r.err);
}

/*
 * warn: an escalation whose decision cannot be written is denied, saying
 * why (a full disk, as /dev/full); what runs in place goes on.
 */
Test(cli_operate, audit_fail_denies_escalations)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-a", "/dev/full",
	    "--", "bash", "-c", TC_GATE "G id -u; echo \"id: $?\"; G true; echo \"true: $?\""));
	cr_assert_str_eq(r.out, "id: 126\ntrue: 0\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, "nothing is escalated that it cannot show"), "%s", r.err);
	cr_assert_eq(count(r.err, "cannot write"), 1, "%s", r.err);
}

/*
 * An audit file beneath a writable directory of a Landlock sandbox: the
 * sandboxed side could fill its file system.  Refused, unless
 * --audit-writable.
 */
Test(cli_operate, audit_beneath_writable_refused)
{
	tc_need_landlock(&t, &r, 1);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-s",
	    "landlock", "-w", ".", "--rules-writable", "-a", "audit.log", "--", "true"));
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "--audit-writable"), "%s", r.err);
	cr_assert(!tc_exists(&t, "audit.log"));
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-s",
	    "landlock", "-w", ".", "--rules-writable", "-a", "audit.log", "--audit-writable", "--", "true"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert(tc_exists(&t, "audit.log"));
}

/* stop: the request is denied and the session ends. */
Test(cli_operate, audit_fail_stops)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-a", "/dev/full",
	    "--audit-fail", "stop", "--", "bash", "-c",
	    TC_GATE "G touch first; echo \"first: $?\"; sleep 30; echo end"));
	cr_assert_null(strstr(r.out, "end"), "%s", r.out);
	cr_assert(!tc_exists(&t, "first"));
	cr_assert_not_null(strstr(r.err, "--audit-fail stop"), "%s", r.err);
	cr_assert_neq(tc_code(&r), 0);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "--mode", "wrapper", "--no-login",
	    "-a", "/dev/full", "--audit-fail", "stop", "-c",
	    TC_GATE "G true; sleep 30; echo end"));
	cr_assert_null(strstr(r.out, "end\\n"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "\"signal\":"), "%s", r.out);
}

/* --default allow is Codex's escalate; here it would read as run: refused. */
Test(cli_operate, default_allow_refused)
{
	tc_run(&t, &r, NULL, TS_V("run", "--default", "allow", "true"));
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "'allow' is Codex's name for escalate"), "%s", r.err);
}

/* shellesc help, and help COMMAND for that command's part. */
Test(cli_operate, help_command)
{
	tc_run(&t, &r, NULL, TS_V("help"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "usage: shellesc run"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "usage: shellesc exec"), "%s", r.out);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("help", "exec"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "--output MODE"), "%s", r.out);
	cr_assert_null(strstr(r.out, "usage: shellesc run"), "%s", r.out);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("help", "bogus"));
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
}

/* audit FILE: the decisions as a table, filtered; other lines counted. */
Test(cli_operate, audit_table)
{
	char *log, *line;

	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-a", "audit.log",
	    "--", "bash", "-c", TRUES));
	tc_res_free(&r);
	cr_assert_not_null(log = tc_read(&t, "audit.log"));
	cr_assert_not_null(line = malloc(strlen(log) + 16));
	sprintf(line, "%snot json\n", log);
	tc_file(&t, "mixed.log", line);
	free(line);
	free(log);
	tc_run(&t, &r, NULL, TS_V("audit", "mixed.log"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_eq(count(r.out, "  run  "), 3, "%s", r.out);
	cr_assert_eq(count(r.out, "  deny  "), 1, "%s", r.out);
	cr_assert_not_null(strstr(r.err, "1 lines are not audit events"), "%s", r.err);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("log", "--decision", "deny", "--program", "touch", "mixed.log"));
	cr_assert_eq(count(r.out, "\n"), 2, "%s", r.out);
	cr_assert_not_null(strstr(r.out, "touch made"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "t.rules:1"), "%s", r.out);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("audit", "--until", "2000", "mixed.log"));
	cr_assert_eq(count(r.out, "\n"), 1, "only the header: %s", r.out);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("audit", "--since", "2000", "--program", "true", "mixed.log"));
	cr_assert_eq(count(r.out, "\n"), 4, "%s", r.out);
}
