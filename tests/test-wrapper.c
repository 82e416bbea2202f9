/*
 * test-wrapper.c: suite wrapper -- shellesc-execve-wrapper as a real
 * process under a real session: run, escalate, deny, failures, and
 * arguments passed byte for byte.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/session.h"

static struct tpol tp;
static struct shellesc_session *s;

/*
 * One wrapper run.  "@" at the start of file, cwd or program stands for a
 * fresh directory holding: noshebang (a script without #!), bin/tool (one
 * with), and "\xff-dump" (a link to argv-dump with a non-UTF-8 name).
 */
struct wcase {
	const char *name;
	const char *action;	/* TEST_ACTION */
	const char *sock;	/* SHELLESC_ESCALATE_SOCKET: NULL the session's, "" unset */
	const char *cwd;
	const char *file;
	const char *argv[7];	/* NULL-terminated */
	const char *in;		/* written to stdin */
	int code;		/* exit code */
	const char *out;	/* stdout, exactly (outlen bytes) */
	size_t outlen;
	const char *err;	/* in stderr ("": stderr empty) */
	const char *program;	/* what the policy saw, when not file */
};

#define OUT(text) .out = text, .outlen = sizeof(text) - 1
#define NOT_FOUND "No such file or directory"
#define NO_SESSION "shellesc: /bin/echo: no usable shellesc session"
#define ODD_ARGS { "-zsh", "--help", "--", "-c", "\xff\xfe caf\xe9", "\x80" }
#define ODD_OUT OUT("-zsh\0--help\0--\0-c\0\xff\xfe caf\xe9\0\x80\0")

static const struct wcase wcases[] = {
	{ "run", "run", .file = "/bin/echo", .argv = { "echo", "hi" }, OUT("hi\n"), .err = "" },
	{ "escalate, stdin to stdout", "escalate", .file = "/bin/cat", .argv = { "cat" },
	  .in = "piped-in\n", OUT("piped-in\n"), .err = "" },
	{ "escalate, stderr and exit code", "escalate", .file = "/bin/sh",
	  .argv = { "sh", "-c", "echo err >&2; exit 3" }, .code = 3, OUT(""), .err = "err\n" },
	{ "deny", "deny", .file = "/bin/echo", .argv = { "echo", "ran" }, .code = 126, OUT(""),
	  .err = "shellesc: execution denied: not now\n" },
	{ "run a script without #!", "run", .file = "@/noshebang", .argv = { "noshebang", "a b" },
	  OUT("noshebang: a b\n"), .err = "" },
	{ "escalate a script without #!", "escalate", .file = "@/noshebang", .argv = { "noshebang", "a b" },
	  OUT("noshebang: a b\n"), .err = "" },
	{ "run a missing file", "run", .file = "/nonexistent/prog", .argv = { "prog" }, .code = 127,
	  OUT(""), .err = "shellesc: /nonexistent/prog: " NOT_FOUND "\n" },
	{ "escalate a missing file", "escalate", .file = "/nonexistent/prog", .argv = { "prog" },
	  .code = 127, OUT(""), .err = "/nonexistent/prog: " NOT_FOUND "\n" },
	{ "escalate a relative file in cwd", "escalate", .cwd = "@", .file = "./bin/tool",
	  .argv = { "tool" }, OUT("tool ran\n"), .err = "", .program = "@/bin/tool" },
	{ "no session variable", "run", .sock = "", .file = "/bin/echo", .argv = { "echo", "ran" },
	  .code = 126, OUT(""), .err = NO_SESSION ": SHELLESC_ESCALATE_SOCKET is not set\n" },
	{ "session variable on a pipe", "run", .sock = "0", .file = "/bin/echo", .argv = { "echo", "ran" },
	  .code = 126, OUT(""), .err = NO_SESSION ": session fd is not an AF_UNIX datagram socket\n" },
	{ "session variable on a closed fd", "run", .sock = "999", .file = "/bin/echo",
	  .argv = { "echo", "ran" }, .code = 126, OUT(""), .err = NO_SESSION },
	{ "session variable not a number", "run", .sock = "3x", .file = "/bin/echo",
	  .argv = { "echo", "ran" }, .code = 126, OUT(""), .err = NO_SESSION },
	{ "run, option-like and non-UTF-8 args", "run", .file = TEST_ARGV_DUMP, .argv = ODD_ARGS,
	  ODD_OUT, .err = "" },
	/* escalated, argv[0] is the program's own name (docs/security.md) */
	{ "escalate, option-like and non-UTF-8 args", "escalate", .file = TEST_ARGV_DUMP,
	  .argv = ODD_ARGS, OUT("argv-dump\0--help\0--\0-c\0\xff\xfe caf\xe9\0\x80\0"),
	  .err = "" },
	{ "escalate a non-UTF-8 file name", "escalate", .file = "@/\xff-dump", .argv = { "\xff" },
	  OUT("argv-dump\0"), .err = "" },
};
#define NW (sizeof(wcases) / sizeof(wcases[0]))

/* "@..." made absolute in dir. */
static const char *
at_dir(const char *path, const char *dir, char *buf, size_t size)
{
	if (path == NULL || path[0] != '@')
		return path;
	snprintf(buf, size, "%s%s", dir, path + 1);
	return buf;
}

/* A fresh directory with the scripts and the link the cases run. */
static char *
make_fixtures(void)
{
	char *dir = th_tmpdir();

	th_put(dir, "bin", NULL, 0755);
	th_put(dir, "noshebang", "echo \"noshebang: $*\"\n", 0755);
	th_put(dir, "bin/tool", "#!/bin/sh\necho tool ran\n", 0755);
	th_put(dir, "which-sh", "echo \"${BASH_VERSION:+bash}:${"
	    SHELLESC_ENV_SHELL "-taken out}\"\n", 0755);
	cr_assert_eq(symlink(TEST_ARGV_DUMP, th_at(dir, "\xff-dump")), 0);
	return dir;
}

/* The caller's environment: the session's overlay, or a broken/absent socket. */
static char **
case_env(const struct wcase *c, char *buf[4])
{
	static char act[64], sock[64];

	snprintf(act, sizeof(act), "TEST_ACTION=%s", c->action);
	if (c->sock == NULL)
		return ts_env(s, act, NULL);
	snprintf(sock, sizeof(sock), "SHELLESC_ESCALATE_SOCKET=%s", c->sock);
	buf[0] = (char *)"PATH=/usr/bin:/bin";
	buf[1] = act;
	buf[2] = c->sock[0] ? sock : NULL;
	buf[3] = NULL;
	return buf;
}

/* What the policy saw: the file and argv verbatim, the program resolved. */
static void
check_request(const struct wcase *c, const char *file, const char *program)
{
	size_t argc = 0;

	if (c->sock != NULL) {
		cr_assert_eq(tp.seen, 0, "a broken session cannot have asked");
		return;
	}
	cr_assert_eq(tp.seen, 1);
	cr_assert_str_eq(tp.file, file);
	cr_assert_str_eq(tp.program, program ? program : file);
	while (c->argv[argc])
		argc++;
	cr_assert_eq(tp.argc, argc);
	for (size_t i = 0; i < argc; i++)
		cr_assert_str_eq(tp.argv[i], c->argv[i], "argv[%zu]", i);
}

static void
run_case(const struct wcase *c, const char *dir)
{
	char fbuf[PATH_MAX], cbuf[PATH_MAX], pbuf[PATH_MAX], *out, *err, *envbuf[4];
	const char *file = at_dir(c->file, dir, fbuf, sizeof(fbuf));
	char **env = case_env(c, envbuf);
	struct ts_proc p;
	size_t outlen;
	int st;

	ts_wrapper_start(&p, env, at_dir(c->cwd, dir, cbuf, sizeof(cbuf)), file, (char *const *)c->argv);
	if (c->in)
		th_write(p.in, c->in, strlen(c->in));
	st = ts_proc_wait(&p, &out, &outlen, &err);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == c->code, "status %#x, stderr: %s", st, err);
	cr_assert(outlen == c->outlen && memcmp(out, c->out, outlen) == 0, "stdout: %s", out);
	if (c->err[0] == '\0')
		cr_assert_str_empty(err);
	else
		cr_assert_not_null(strstr(err, c->err), "stderr: %s", err);
	check_request(c, file, at_dir(c->program, dir, pbuf, sizeof(pbuf)));
	free(out);
	free(err);
	if (env != envbuf)
		shellesc_env_free(env);
}

ParameterizedTestParameters(wrapper, each)
{
	return ts_indexes(NW);
}

ParameterizedTest(size_t *i, wrapper, each, .timeout = TS_TIMEOUT)
{
	char *dir;

	cr_log_info("case: %s", wcases[*i].name);
	tp.reason = "not now";
	s = ts_start(&tp, NULL);
	dir = make_fixtures();
	run_case(&wcases[*i], dir);
	th_rmtree(dir);
	ts_end(s, &tp);
}

/* Run execs in place (same pid); escalate runs elsewhere (the server's child). */
Test(wrapper, run_in_place_escalate_elsewhere, .timeout = TS_TIMEOUT)
{
	static const char *const actions[] = { "TEST_ACTION=run", "TEST_ACTION=escalate" };
	struct ts_proc p;
	char *out;
	char **env;

	s = ts_start(&tp, NULL);
	for (int i = 0; i < 2; i++) {
		env = ts_env(s, actions[i], NULL);
		ts_wrapper_start(&p, env, NULL, "/bin/sh", TS_V("sh", "-c", "echo $$"));
		cr_assert_eq(ts_proc_wait(&p, &out, NULL, NULL), 0);
		cr_assert_eq(atoi(out) == p.pid, i == 0, "%s: pid %s, wrapper %d", actions[i], out, p.pid);
		cr_assert_eq(tp.pid, p.pid, "SO_PEERCRED names the wrapper");
		free(out);
		shellesc_env_free(env);
	}
	ts_end(s, &tp);
}

/* No FILE: a usage message, and nothing is run. */
Test(wrapper, usage, .timeout = TS_TIMEOUT)
{
	struct ts_proc p;
	char *err;
	int st;

	ts_proc_start(&p, NULL, TS_V("PATH=/bin"), TEST_WRAPPER, TS_V("shellesc-execve-wrapper"));
	st = ts_proc_wait(&p, NULL, NULL, &err);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 126);
	cr_assert_not_null(strstr(err, "usage:"), "%s", err);
	free(err);
}

/* SHELLESC_PROXY_FD (proxy mode) must be the decimal number of an open
 * stream socket; anything else is refused and nothing runs. */
Test(wrapper, proxy_fd_must_name_a_stream, .timeout = TS_TIMEOUT)
{
	static const char *const bad[] = { "", "x", "3x", "-1", "+0", " 0", "0", "999",
		"1234567890" };
	char var[64], *out, *err;
	struct ts_proc p;
	int st;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(var, sizeof(var), SHELLESC_ENV_PROXY "=%s", bad[i]);
		ts_proc_start(&p, NULL, TS_V("PATH=/bin", var), TEST_WRAPPER,
		    TS_V("shellesc-execve-wrapper", "/bin/echo", "echo", "ran"));
		st = ts_proc_wait(&p, &out, NULL, &err);
		cr_expect(WIFEXITED(st) && WEXITSTATUS(st) == 126, "'%s': status %#x", bad[i], st);
		cr_expect_str_eq(out, "", "'%s'", bad[i]);
		cr_expect_not_null(strstr(err, "SHELLESC_PROXY_FD is not an escalation stream"),
		    "'%s': %s", bad[i], err);
		free(out);
		free(err);
	}
}

/*
 * A patched shell's exec -c: the session's socket added back for the
 * wrapper and named in SHELLESC_WRAPPER_ADDED.  The session is found, and
 * the command (run or escalated) gets the environment without both.
 */
Test(wrapper, added_session_variables_taken_out, .timeout = TS_TIMEOUT)
{
	static const char *const actions[] = { "TEST_ACTION=run", "TEST_ACTION=escalate" };
	struct ts_proc p;
	char *out, *err;
	char **env;

	s = ts_start(&tp, NULL);
	for (int i = 0; i < 2; i++) {
		env = ts_env(s, actions[i], SHELLESC_ENV_ADDED "=" SHELLESC_ENV_SOCKET, NULL);
		ts_wrapper_start(&p, env, NULL, "/usr/bin/env", TS_V("env"));
		cr_assert_eq(ts_proc_wait(&p, &out, NULL, &err), 0, "%s", err);
		cr_assert_eq(tp.seen, i + 1, "%s: not asked", actions[i]);
		/* (an escalated command's environment is the server's to make) */
		cr_assert(i == 1 || strstr(out, actions[i]) != NULL, "%s", out);
		cr_assert_null(strstr(out, SHELLESC_ENV_SOCKET "="), "%s: %s", actions[i], out);
		cr_assert_null(strstr(out, SHELLESC_ENV_ADDED), "%s: %s", actions[i], out);
		free(out);
		free(err);
		shellesc_env_free(env);
	}
	ts_end(s, &tp);
}

/*
 * A patched bash names itself in SHELLESC_WRAPPER_SHELL: a file without #!
 * runs under it, as bash runs such a file itself, and not under /bin/sh;
 * the variable is taken out.  A name that is not absolute is not used.
 */
Test(wrapper, script_without_shebang_runs_under_the_named_shell, .timeout = TS_TIMEOUT)
{
	static const struct { const char *var, *out; } cases[] = {
		{ SHELLESC_ENV_SHELL "=/bin/bash", "bash:taken out\n" },
		{ NULL, ":taken out\n" },
		{ SHELLESC_ENV_SHELL "=bash", ":taken out\n" },
	};
	char *dir, file[PATH_MAX], *out, *err;
	struct ts_proc p;
	char **env;

	s = ts_start(&tp, NULL);
	dir = make_fixtures();
	snprintf(file, sizeof(file), "%s/which-sh", dir);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		env = ts_env(s, "TEST_ACTION=run", cases[i].var, NULL);
		ts_wrapper_start(&p, env, NULL, file, TS_V("which-sh"));
		cr_assert_eq(ts_proc_wait(&p, &out, NULL, &err), 0, "%s", err);
		cr_assert_str_eq(out, cases[i].out, "%s", cases[i].var ? cases[i].var : "unset");
		free(out);
		free(err);
		shellesc_env_free(env);
	}
	th_rmtree(dir);
	ts_end(s, &tp);
}

/*
 * Ask mode: the patched bash runs a file without #! itself and only wants
 * the verdict.  run: one byte on the pipe named by SHELLESC_WRAPPER_ASK,
 * exit 0, nothing run; deny and escalate: done as always, no byte.
 */
Test(wrapper, ask_mode_tells_run_and_does_the_rest, .timeout = TS_TIMEOUT)
{
	static const struct { const char *action, *out; int code; ssize_t told; } cases[] = {
		{ "TEST_ACTION=run", "", 0, 1 },
		{ "TEST_ACTION=deny", "", 126, 0 },
		{ "TEST_ACTION=escalate", "ran\n", 0, 0 },
	};
	char var[64], byte, *out, *err;
	struct ts_proc p;
	char **env;
	int fds[2], st;

	tp.reason = "not now";
	s = ts_start(&tp, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_assert_eq(pipe(fds), 0);
		snprintf(var, sizeof(var), SHELLESC_ENV_ASK "=%d", fds[1]);
		env = ts_env(s, cases[i].action, var, NULL);
		ts_wrapper_start(&p, env, NULL, "/bin/echo", TS_V("echo", "ran"));
		close(fds[1]);
		st = ts_proc_wait(&p, &out, NULL, &err);
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == cases[i].code, "%s: status %#x, %s",
		    cases[i].action, st, err);
		cr_assert_str_eq(out, cases[i].out, "%s", cases[i].action);
		cr_assert_eq(read(fds[0], &byte, 1), cases[i].told, "%s", cases[i].action);
		cr_assert_eq(tp.seen, (int)i + 1, "%s: not asked", cases[i].action);
		close(fds[0]);
		free(out);
		free(err);
		shellesc_env_free(env);
	}
	ts_end(s, &tp);
}
