/*
 * test-cli-profile.c: suite cli_profile -- escalations into a profile
 * (shellesc-rules(5), PROFILES).  In a --sandbox landlock --no-network
 * session, a rule escalating curl into "network" lets it reach a server
 * on 127.0.0.1, and the same escalated curl still cannot write outside
 * the writable directories; without the rule it cannot connect.  A
 * profile's extra writable directory is writable to the escalated command
 * and to nothing else, and nothing else outside the roots is.  Skipped,
 * with the reason, on a kernel without Landlock ABI 4.
 */
#include "config.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/cli.h"
#include "helpers/session.h"

TC_SUITE(cli_profile, NULL);

static const char *outside;	/* a directory no root covers */

static void
need_landlock(int abi)
{
	tc_need_landlock(&t, &r, abi);
	outside = tc_tmpdir(&t);
}

/* A one-page HTTP server on 127.0.0.1: answers every connection "ok". */
static void *
http_serve(void *arg)
{
	int lfd = (int)(intptr_t)arg, fd;
	static const char reply[] = "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n"
	    "Connection: close\r\n\r\nok\n";
	char buf[4096];

	while ((fd = accept(lfd, NULL, NULL)) >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n > 0 && write(fd, reply, sizeof(reply) - 1) < 0)
			n = -1;
		close(fd);
	}
	return NULL;
}

static int
http_start(pthread_t *th)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
	    listen(fd, 8) == 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	cr_assert_eq(pthread_create(th, NULL, http_serve, (void *)(intptr_t)fd), 0);
	pthread_detach(*th);
	return ntohs(a.sin_port);
}

static void
run_script(const char *rules, char *script)
{
	if (rules != NULL)
		tc_file(&t, "t.rules", rules);
	tc_run(&t, &r, NULL, rules != NULL ?
	    TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-s", "landlock",
	    "--rules-writable", "--no-network", "--", "bash", "-c", script) :
	    TS_V("run", "--mode", "wrapper", "--force", "-s", "landlock", "--rules-writable",
	    "--no-network", "--", "bash", "-c", script));
}

/* The network profile: curl connects, and still writes nothing outside. */
Test(cli_profile, network_profile_connects_but_writes_nothing_outside)
{
	char script[2048];
	pthread_t th;
	int port;

	need_landlock(4);
	port = http_start(&th);
	snprintf(script, sizeof(script), TC_GATE
	    "G curl -s -m 10 http://127.0.0.1:%d/; echo \"get: $?\";"
	    " G curl -s -m 10 -o %s/got http://127.0.0.1:%d/; echo \"outside: $?\";"
	    " G curl -s -m 10 -o got http://127.0.0.1:%d/; echo \"cwd: $?\"",
	    port, outside, port, port);
	run_script("prefix_rule([\"curl\"], decision = \"escalate\", profile = \"network\")\n",
	    script);
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_expect_str_eq(r.out, "ok\nget: 0\noutside: 23\ncwd: 0\n", "%s", r.err);
	cr_expect(!th_exists(outside, "got"));
	cr_expect(tc_exists(&t, "got"));
}

/* Without the rule, curl runs in place, in a sandbox without the network. */
Test(cli_profile, without_the_rule_no_connection)
{
	char script[512];
	pthread_t th;
	int port;

	need_landlock(4);
	port = http_start(&th);
	snprintf(script, sizeof(script), TC_GATE
	    "G curl -s -m 10 http://127.0.0.1:%d/; echo \"get: $?\"", port);
	run_script(NULL, script);
	cr_expect_str_eq(r.out, "get: 7\n", "%s", r.err);
	tc_res_free(&r);
	/* escalated into a profile without the network: no connection either */
	run_script("sandbox_profile(\"w\", writable = [\"/tmp\"])\n"
	    "prefix_rule([\"curl\"], decision = \"escalate\", profile = \"w\")\n", script);
	cr_expect_str_eq(r.out, "get: 7\n", "%s", r.err);
}

/* A profile's extra directory: writable to the escalated command only. */
Test(cli_profile, extra_writable_directory_and_nowhere_else)
{
	const char *extra;
	char rules[1024], script[2048];

	need_landlock(1);
	extra = tc_tmpdir(&t);
	snprintf(rules, sizeof(rules),
	    "sandbox_profile(name = \"extra\", writable = [\"%s\"])\n"
	    "prefix_rule([\"touch\"], decision = \"escalate\", profile = \"extra\")\n", extra);
	snprintf(script, sizeof(script), TC_GATE
	    "G touch %s/escalated; echo \"extra: $?\";"
	    " G touch %s/escalated 2>/dev/null; echo \"outside: $?\";"
	    " G cp /dev/null %s/in-place 2>/dev/null; echo \"in place: $?\";"
	    " G touch made; echo \"cwd: $?\"",
	    extra, outside, extra);
	run_script(rules, script);
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_expect_str_eq(r.out, "extra: 0\noutside: 1\nin place: 1\ncwd: 0\n", "%s", r.err);
	cr_expect(th_exists(extra, "escalated"));
	cr_expect(!th_exists(outside, "escalated"));
	cr_expect(!th_exists(extra, "in-place"));
}

/* What the escalated command execs stays inside the profile. */
Test(cli_profile, what_it_execs_stays_inside)
{
	char rules[1024], script[2048];

	need_landlock(1);
	snprintf(rules, sizeof(rules),
	    "prefix_rule([\"env\"], decision = \"escalate\", profile = \"network\")\n"
	    "prefix_rule([\"touch\"], decision = \"escalate\")\n");
	snprintf(script, sizeof(script), TC_GATE
	    "G env touch %s/nested 2>/dev/null; echo \"nested: $?\"", outside);
	run_script(rules, script);
	cr_expect_str_eq(r.out, "nested: 1\n", "%s", r.err);
	cr_expect(!th_exists(outside, "nested"));
}

/* shellesc check shows the profile. */
Test(cli_profile, check_reports_the_profile)
{
	tc_file(&t, "t.rules", "sandbox_profile(\"npm\", writable = [\"/tmp/npm\"], "
	    "network = True)\n"
	    "prefix_rule([\"curl\"], decision = \"escalate\", profile = \"npm\")\n"
	    "prefix_rule([\"ls\"], decision = \"escalate\")\n");
	tc_run(&t, &r, NULL, TS_V("check", "-p", "t.rules", "--json", "curl", "x"));
	cr_expect_not_null(strstr(r.out, "\"profile\":{\"name\":\"npm\",\"network\":true,"
	    "\"writable\":[\"/tmp/npm\"]}"), "%s", r.out);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "-p", "t.rules", "--json", "ls"));
	cr_expect_not_null(strstr(r.out, "\"profile\":{\"name\":\"unsandboxed\""), "%s", r.out);
}

/* A prompt rule with a profile: the approver is shown the profile, its yes
 * escalates into it (the write outside still fails), and the audit log
 * names it. */
Test(cli_profile, approver_sees_and_audit_names_the_profile)
{
	const char *extra;
	char rules[1024], script[1024], *req, *log;
	json_t *j, *p, **ev;
	size_t nev;

	need_landlock(1);
	extra = tc_tmpdir(&t);
	snprintf(rules, sizeof(rules),
	    "sandbox_profile(name = \"extra\", writable = [\"%s\"])\n"
	    "prefix_rule([\"touch\"], decision = \"prompt\", profile = \"extra\")\n", extra);
	tc_file(&t, "t.rules", rules);
	snprintf(script, sizeof(script), TC_GATE
	    "G touch %s/yes; echo \"extra: $?\"; G touch %s/no 2>/dev/null; echo \"outside: $?\"",
	    extra, outside);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force",
	    "-s", "landlock", "--rules-writable", "-a", "audit.log", "--audit-writable", "--approver",
	    "cat > req.json; echo '{\"decision\": \"escalate\"}'", "--", "bash", "-c", script));
	cr_expect_str_eq(r.out, "extra: 0\noutside: 1\n", "%s", r.err);
	cr_assert_not_null(req = tc_read(&t, "req.json"));
	j = tc_json(&t, req);
	p = json_object_get(j, "profile");
	cr_expect_str_eq(tc_jstr(p, "name"), "extra", "%s", req);
	cr_expect_str_eq(json_string_value(json_array_get(json_object_get(p, "writable"), 0)),
	    extra, "%s", req);
	cr_expect_str_eq(tc_jstr(json_object_get(j, "rule"), "decision"), "prompt");
	free(req);
	cr_assert_not_null(log = tc_read(&t, "audit.log"));
	ev = tc_json_lines(&t, log, &nev);
	cr_assert_geq(nev, 1, "%s", log);
	cr_expect_str_eq(tc_jstr(ev[0], "decision"), "escalate", "%s", log);
	cr_expect_str_eq(tc_jstr(json_object_get(ev[0], "profile"), "name"), "extra", "%s", log);
	free(log);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("log", "audit.log"));
	cr_expect_not_null(strstr(r.out, "profile extra"), "%s%s", r.out, r.err);
}

/* A profile whose sandbox cannot be built does not run: never
 * unsandboxed instead. */
Test(cli_profile, unbuildable_profile_does_not_run)
{
	char script[1024];

	need_landlock(1);
	snprintf(script, sizeof(script), TC_GATE
	    "G touch %s/escaped 2>/dev/null; echo \"touch: $?\"", outside);
	run_script("sandbox_profile(\"gone\", writable = [\"/nonexistent/shellesc-test\"])\n"
	    "prefix_rule([\"touch\"], decision = \"escalate\", profile = \"gone\")\n", script);
	cr_expect_neq(strcmp(r.out, "touch: 0\n"), 0, "%s", r.err);
	cr_expect(!th_exists(outside, "escaped"));
	cr_expect_not_null(strstr(r.err, "profile gone not started"), "%s", r.err);
}

/* The terminal's question says which profile a yes escalates into. */
Test(cli_profile, terminal_prompt_shows_the_profile)
{
	const char *extra;
	char rules[1024], script[1024];

	need_landlock(1);
	extra = tc_tmpdir(&t);
	snprintf(rules, sizeof(rules),
	    "sandbox_profile(name = \"npmish\", writable = [\"%s\"], network = True)\n"
	    "prefix_rule([\"touch\"], decision = \"prompt\", profile = \"npmish\")\n", extra);
	tc_file(&t, "t.rules", rules);
	snprintf(script, sizeof(script), TC_GATE "G touch %s/yes; echo \"touch: $?\"", extra);
	cr_assert_eq(tc_run_pty(&t, &r, (const char *[]){ "y", NULL }, TS_V("run", "-p", "t.rules",
	    "--mode", "wrapper", "--force", "-s", "landlock", "--rules-writable", "--", "bash", "-c",
	    script)), 1,
	    "%s", r.out);
	cr_expect_not_null(strstr(r.out, "profile: npmish (the sandbox, with the network); also "
	    "writable: "), "%s", r.out);
	cr_expect_not_null(strstr(r.out, "touch: 0"), "%s", r.out);
	cr_expect(th_exists(extra, "yes"));
}

/* The embedder's example (examples/profile.c): its profile lets the
 * escalated touch write in DIR and nowhere else. */
Test(cli_profile, the_embedders_example_runs)
{
	char *env[] = { "PATH=/usr/bin:/bin", NULL }, *out, *err;
	struct ts_proc p;
	int st;

	tc_need_landlock(&t, &r, 1);
	ts_proc_start(&p, t.dir, env, TEST_PROFILE_DEMO, TS_V("shellesc-profile-demo", "-w",
	    TEST_WRAPPER, (char *)tc_tmpdir(&t)));
	st = ts_proc_wait(&p, &out, NULL, &err);
	cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x: %s", st, err);
	cr_expect_not_null(strstr(out, "touch DIR: exit 0\n"), "%s%s", out, err);
	cr_expect_not_null(strstr(out, "touch /tmp: exit 1\n"), "%s%s", out, err);
	free(out);
	free(err);
}
