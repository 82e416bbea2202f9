/*
 * test-cli-sandbox.c: suite cli_sandbox -- --sandbox landlock: what runs
 * in place cannot write outside the writable directories (or connect,
 * with --no-network), and the same write succeeds when a rule escalates
 * it, because escalated commands run outside the sandbox.  Skipped, with
 * the reason, on a kernel without Landlock.
 */
#include "config.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/cli.h"

TC_SUITE(cli_sandbox, NULL);

static const char *outside;	/* a directory no default covers */

/* Skip without Landlock ABI abi; else make outside. */
static void
need_landlock(int abi)
{
	tc_need_landlock(&t, &r, abi);
	outside = tc_tmpdir(&t);
}

/* The same write: escalated it happens, in place the sandbox stops it. */
Test(cli_sandbox, escalate_escapes_the_sandbox)
{
	char rules[1024], script[2048];

	need_landlock(1);
	snprintf(rules, sizeof(rules),
	    "prefix_rule(pattern=[\"touch\", \"%s/escalated\"], decision=\"escalate\")\n", outside);
	tc_file(&t, "t.rules", rules);
	snprintf(script, sizeof(script), TC_GATE
	    "G touch %s/escalated; echo \"escalated: $?\";"
	    " G touch %s/in-place 2>/dev/null; echo \"in place: $?\";"
	    " (echo x > %s/redirected) 2>/dev/null; echo \"redirected: $?\";"
	    " G touch made; echo \"cwd: $?\";"
	    " G touch \"$TMPDIR/tmp\"; echo \"TMPDIR: $?\";"
	    " echo x > /dev/null; echo \"null: $?\"",
	    outside, outside, outside);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force",
	    "--sandbox", "landlock", "--rules-writable", "--", "bash", "-c", script));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "escalated: 0\nin place: 1\nredirected: 1\ncwd: 0\n"
	    "TMPDIR: 0\nnull: 0\n", "%s", r.err);
	cr_assert(th_exists(outside, "escalated"));
	cr_assert(!th_exists(outside, "in-place") && !th_exists(outside, "redirected"));
	cr_assert(tc_exists(&t, "made"));
}

/* --writable replaces the default of the cwd (the private TMPDIR stays). */
Test(cli_sandbox, writable_replaces_the_defaults)
{
	char script[1024];

	need_landlock(1);
	snprintf(script, sizeof(script), TC_GATE "G touch %s/ok; echo \"outside: $?\";"
	    " G touch made 2>/dev/null; echo \"cwd: $?\"", outside);
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "-s", "landlock", "-w", (char *)outside,
	    "--", "bash", "-c", script));
	cr_assert_str_eq(r.out, "outside: 0\ncwd: 1\n", "%s", r.err);
	cr_assert(th_exists(outside, "ok"));
	cr_assert(!tc_exists(&t, "made"));
}

/* With -w, the private TMPDIR is still set and writable. */
Test(cli_sandbox, writable_keeps_the_private_tmpdir)
{
	need_landlock(1);
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "-s", "landlock", "-w", (char *)outside,
	    "--", "bash", "-c", "case $TMPDIR in */shellesc.*) echo private;; esac; "
	    "f=$(mktemp) && echo made"));
	cr_assert_str_eq(r.out, "private\nmade\n", "%s", r.err);
}

Test(cli_sandbox, writable_must_exist)
{
	need_landlock(1);
	tc_run(&t, &r, NULL, TS_V("run", "-s", "landlock", "-w", "/nonexistent/dir", "true"));
	cr_assert_eq(tc_code(&r), 125);
	cr_assert_not_null(strstr(r.err, "--writable /nonexistent/dir"), "%s", r.err);
}

/* A listening TCP port on 127.0.0.1; returns the socket. */
static int
listener(int *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && listen(fd, 8) == 0);
	cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

Test(cli_sandbox, no_network)
{
	char script[256];
	int port, fd;

	need_landlock(4);
	fd = listener(&port);
	snprintf(script, sizeof(script), "exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port);
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "-s", "landlock", "--rules-writable", "--", "bash",
	    "-c", script));
	cr_assert_str_eq(r.out, "connected\n", "%s", r.err);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "-s", "landlock", "--no-network",
	    "--rules-writable", "--", "bash", "-c", script));
	cr_assert_str_eq(r.out, "");
	cr_assert_not_null(strstr(r.err, "Permission denied"), "%s", r.err);
	close(fd);
}

/* --no-network refuses UDP too (the seccomp filter: Landlock has no UDP
 * rules); local sockets still work. */
Test(cli_sandbox, no_network_blocks_udp)
{
	const char *script = "exec 3<>/dev/udp/127.0.0.1/9 && echo udp; "
	    "exec 4<>/dev/udp6/::1/9 2>/dev/null && echo udp6; "
	    "python3 -c 'import socket; socket.socket(socket.AF_UNIX); print(\"unix\")'";

	need_landlock(4);
	if (access("/usr/bin/python3", X_OK) != 0)
		cr_skip_test("needs /usr/bin/python3 for an AF_UNIX socket");
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "-s", "landlock", "--rules-writable", "--", "bash",
	    "-c", (char *)script));
	cr_assert_not_null(strstr(r.out, "udp\n"), "%s", r.err);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "-s", "landlock", "--no-network",
	    "--rules-writable", "--", "bash", "-c", (char *)script));
	cr_assert_str_eq(r.out, "unix\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, "socket: Permission denied"), "%s", r.err);
}

/* exec confines its shell the same way (it runs through shellesc). */
Test(cli_sandbox, exec_is_sandboxed_too)
{
	char rules[1024], cmd[1024];
	json_t *j;

	need_landlock(1);
	snprintf(rules, sizeof(rules),
	    "prefix_rule(pattern=[\"touch\", \"%s/escalated\"], decision=\"escalate\")\n", outside);
	tc_file(&t, "t.rules", rules);
	snprintf(cmd, sizeof(cmd), TC_GATE "G touch %s/escalated && G touch %s/in-place",
	    outside, outside);
	tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "--mode", "wrapper", "--no-login",
	    "--output", "split", "-s", "landlock", "--rules-writable", "-c", cmd));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	j = tc_json(&t, r.out);
	cr_assert_eq(json_integer_value(json_object_get(j, "exit_code")), 1, "%s", r.out);
	cr_assert_not_null(strstr(tc_jstr(j, "stderr"), "Permission denied"), "%s", r.out);
	cr_assert(th_exists(outside, "escalated"));
	cr_assert(!th_exists(outside, "in-place"));
}
