/*
 * test-server.c: suite server -- the session API with real shells, real
 * sockets and real escalated processes (the reference's server tests, then
 * the session's own: environment overlay, exec, scrubbing, lifetimes).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdpass.h"
#include "helpers/base.h"
#include "helpers/session.h"

static struct tpol tp;
static struct shellesc_session *s;

/* The overlay holds exactly the keys cfg.intercept asks for. */
Test(server, overlay_has_exactly_the_intercept_keys, .timeout = TS_TIMEOUT)
{
	static const struct {
		unsigned intercept;
		const char *keys[4];
	} cases[] = {
		{ SHELLESC_INTERCEPT_WRAPPER, { "EXEC_WRAPPER=/w/wrapper" } },
		{ SHELLESC_INTERCEPT_PRELOAD, { "LD_PRELOAD=/p/preload.so", SHELLESC_ENV_PROXY_PATH "=/w/wrapper" } },
		{ 0, { "EXEC_WRAPPER=/w/wrapper", "LD_PRELOAD=/p/preload.so", SHELLESC_ENV_PROXY_PATH "=/w/wrapper" } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct shellesc_config cfg = { .intercept = cases[i].intercept,
		    .wrapper_path = "/w/wrapper", .preload_path = "/p/preload.so" };
		char sock[64];
		char *const *env;
		size_t n = 0;

		s = ts_start(&tp, &cfg);
		snprintf(sock, sizeof(sock), "SHELLESC_ESCALATE_SOCKET=%d", shellesc_session_client_fd(s));
		env = shellesc_session_env(s);
		cr_assert_str_eq(env[n++], sock);
		for (size_t k = 0; k < 4 && cases[i].keys[k]; k++, n++)
			cr_assert_str_eq(env[n], cases[i].keys[k], "case %zu", i);
		cr_assert_null(env[n], "case %zu: extra key %s", i, env[n]);
		ts_end(s, &tp);
	}
}

/* The client fd is an inheritable AF_UNIX datagram socket until closed. */
Test(server, client_fd_valid_until_closed, .timeout = TS_TIMEOUT)
{
	int fd;

	s = ts_start(&tp, NULL);
	fd = shellesc_session_client_fd(s);
	cr_assert_geq(fd, 0);
	cr_assert_eq(fdpass_is_unix(fd, SOCK_DGRAM), 0);
	cr_assert_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0, "the shell must inherit it");
	ts_good_request(s);
	cr_assert_eq(shellesc_session_client_fd(s), fd);
	shellesc_session_close_client(s);
	cr_assert_eq(shellesc_session_client_fd(s), -1);
	cr_assert_not(th_fd_open(fd));
	shellesc_session_close_client(s);	/* twice is harmless */
	ts_end(s, &tp);
}

/* LD_PRELOAD goes in front of the caller's; other keys replace theirs. */
Test(server, env_merge_prepends_preload, .timeout = TS_TIMEOUT)
{
	struct shellesc_config cfg = { .intercept = 0, .preload_path = "/p.so", .wrapper_path = "/w" };
	char **env;

	s = ts_start(&tp, &cfg);
	env = shellesc_env_merge(s, TS_V("LD_PRELOAD=/a.so", "EXEC_WRAPPER=/old", "X=1"));
	cr_assert_not_null(env);
	cr_assert_str_eq(env[0], "LD_PRELOAD=/p.so:/a.so");
	cr_assert_str_eq(env[1], "EXEC_WRAPPER=/w");
	cr_assert_str_eq(env[2], "X=1");
	cr_assert(strncmp(env[3], "SHELLESC_ESCALATE_SOCKET=", 25) == 0);
	cr_assert_str_eq(env[4], SHELLESC_ENV_PROXY_PATH "=/w");
	cr_assert_null(env[5]);
	shellesc_env_free(env);
	ts_end(s, &tp);
}

/*
 * LD_PRELOAD is split as ld.so splits it, at spaces and colons: the
 * session's library comes first and once, the caller's others follow in
 * their order (as the preload sets it for every exec after: preloadenv.h).
 */
Test(server, env_merge_preload_first_and_once, .timeout = TS_TIMEOUT)
{
	static const struct {
		char *caller;
		const char *merged;
	} cases[] = {
		{ "LD_PRELOAD=/a.so /p.so:/b.so", "LD_PRELOAD=/p.so:/a.so:/b.so" },
		{ "LD_PRELOAD=/a.so /p.so", "LD_PRELOAD=/p.so:/a.so" },
		{ "LD_PRELOAD= /p.so::", "LD_PRELOAD=/p.so" },
		{ "LD_PRELOAD=", "LD_PRELOAD=/p.so" },
		{ "LD_PRELOAD=/p.so.1 /a.so", "LD_PRELOAD=/p.so:/p.so.1:/a.so" },
	};
	struct shellesc_config cfg = { .intercept = SHELLESC_INTERCEPT_PRELOAD,
	    .preload_path = "/p.so", .wrapper_path = "/w" };

	s = ts_start(&tp, &cfg);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char **env = shellesc_env_merge(s, TS_V(cases[i].caller));

		cr_assert_not_null(env);
		cr_assert_str_eq(env[0], cases[i].merged, "from %s", cases[i].caller);
		shellesc_env_free(env);
	}
	ts_end(s, &tp);
}

/* Run cmd in a bash of the session (caller env: ts_env + extra). */
static void
run_shell(const char *cmd, int timeout_ms, struct shellesc_exec_result *res)
{
	char **env = ts_env(s, "TEST_ACTION=escalate", "KEY=VALUE", NULL);
	struct shellesc_exec_params pa = { .command = cmd, .workdir = "/",
	    .env = env, .timeout_ms = timeout_ms };
	int r = shellesc_session_exec(s, &pa, res);

	shellesc_env_free(env);
	cr_assert_eq(r, 0, "exec: %s", strerror(-r));
}

/* exec closes our copy of the client socket; the shell's copy still works. */
Test(server, exec_closes_parent_socket_after_spawn, .timeout = TS_TIMEOUT)
{
	struct shellesc_exec_result res;
	int fd;

	tp.action = SHELLESC_RUN;
	s = ts_start(&tp, NULL);
	fd = shellesc_session_client_fd(s);
	run_shell("TEST_ACTION=run \"$EXEC_WRAPPER\" /bin/echo echo hi", 0, &res);
	cr_assert_eq(shellesc_session_client_fd(s), -1);
	cr_assert_not(th_fd_open(fd));
	cr_assert_eq(res.exit_code, 0, "err: %s", res.err);
	cr_assert_str_eq(res.out, "hi\n");
	cr_assert_eq(tp.seen, 1);
	cr_assert_str_eq(tp.program, "/bin/echo");
	shellesc_exec_result_free(&res);
	ts_end(s, &tp);
}

/*
 * How an escalated command ends is how its caller ends, as the shell sees
 * it: `sh -c 'exit 42'` (which checks it got the caller's KEY, passed by
 * name) gives 42; one killed by SIGTERM makes the caller die of SIGTERM,
 * which bash reports as 143.
 */
Test(server, escalated_end_reaches_the_shell, .timeout = TS_TIMEOUT)
{
	static const struct {
		const char *cmd, *out;
		int code, ended_code, ended_sig;
	} cases[] = {
		{ "\"$EXEC_WRAPPER\" /bin/sh sh -c '[ \"$KEY\" = VALUE ] && exit 42'", "", 42, 42, 0 },
		{ "\"$EXEC_WRAPPER\" /bin/sh sh -c 'kill -TERM $$'; echo rc=$?", "rc=143\n", 0, -1, SIGTERM },
	};
	static const char *const pass[] = { "KEY", NULL };
	struct shellesc_config cfg = { .intercept = SHELLESC_INTERCEPT_WRAPPER, .pass_env = pass };
	struct shellesc_exec_result res;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = ts_start(&tp, &cfg);
		run_shell(cases[i].cmd, 0, &res);
		cr_assert_eq(res.exit_code, cases[i].code, "case %zu: err: %s", i, res.err);
		cr_assert_str_eq(res.out, cases[i].out);
		ts_wait(&tp, &tp.ended, 1, 5000);
		cr_assert_eq(tp.ended_code, cases[i].ended_code);
		cr_assert_eq(tp.ended_sig, cases[i].ended_sig);
		shellesc_exec_result_free(&res);
		ts_end(s, &tp);
		tp = (struct tpol){ 0 };
	}
}

/* Big requests stream through: 10 KiB and 1 MiB variables reach the policy whole. */
Test(server, big_request_env, .timeout = TS_TIMEOUT)
{
	static const size_t sizes[] = { 10 * 1024, 1024 * 1024 };
	struct client_req req;
	char *big;

	s = ts_start(&tp, NULL);
	for (size_t i = 0; i < 2; i++) {
		cr_assert_not_null(big = malloc(sizes[i] + 5));
		memcpy(big, "BIG=", 4);
		memset(big + 4, 'x', sizes[i]);
		big[sizes[i] + 4] = '\0';
		cr_assert_eq(ts_ask(shellesc_session_client_fd(s), "/bin/true", TS_V("true"),
		    TS_V("A=1", big, "Z=2"), &req), 0);
		cr_assert_eq(req.action, SHELLESC_ACT_RUN);
		cr_assert(ts_req_env_has(&tp, big), "%zu bytes did not arrive whole", sizes[i]);
		cr_assert(ts_req_env_has(&tp, "Z=2"));
		free(big);
	}
	ts_end(s, &tp);
}

/* A relative file is resolved against the caller's cwd as the kernel has
 * it; the cwd the request names is not believed. */
Test(server, relative_file_resolved_against_the_callers_cwd, .timeout = TS_TIMEOUT)
{
	struct msg_exec_out e = { .file = "./bin/tool", .cwd = "/some/work//dir",
	    .argv = TS_V("tool"), .pid = getpid() };
	struct client_req req;
	char here[4096], want[4200];

	cr_assert_not_null(getcwd(here, sizeof(here)));
	snprintf(want, sizeof(want), "%s/bin/tool", strcmp(here, "/") ? here : "");
	tp.action = SHELLESC_DENY;
	s = ts_start(&tp, NULL);
	cr_assert_eq(client_ask(shellesc_session_client_fd(s), &e, &req), 0);
	cr_assert_eq(req.action, SHELLESC_ACT_DENY);
	cr_assert_str_eq(tp.program, want);
	cr_assert_str_eq(tp.file, "./bin/tool");
	cr_assert_str_eq(tp.cwd, here);
	ts_end(s, &tp);
}

/* Escalate from this process, stdio shared; returns the command's result. */
static struct client_result
escalate_here(const char *file, char *const argv[])
{
	struct client_result res;
	struct client_req req;
	int r = ts_ask(shellesc_session_client_fd(s), file, argv, TS_V("TEST_ACTION=escalate"), &req);

	cr_assert_eq(r, 0, "%s", client_strerror(r));
	cr_assert_eq(req.action, SHELLESC_ACT_ESCALATE);
	cr_assert_eq(r = client_escalate(&req, &res), 0, "%s", client_strerror(r));
	return res;
}

/* An opaque profile reaches prepare untouched; prepare may redirect the command. */
Test(server, profile_reaches_prepare, .timeout = TS_TIMEOUT)
{
	static int profile;
	struct client_result res;

	tp.mode = SHELLESC_MODE_PROFILE;
	tp.profile = &profile;
	tp.redirect = TS_V("/bin/sh", "-c", "exit 5");
	s = ts_start(&tp, NULL);
	res = escalate_here("/bin/true", TS_V("true"));
	cr_assert_eq(tp.prepared, 1);
	cr_assert_eq(tp.prep_mode, SHELLESC_MODE_PROFILE);
	cr_assert_eq(tp.prep_profile, &profile);
	cr_assert_eq(res.exit_code, 5, "the prepared command ran");
	cr_assert_eq(tp.released, 1);
	ts_end(s, &tp);
}

/* client_escalate hands over dups: our stdio stays open, on the same files. */
Test(server, dup_stdio_keeps_the_original, .timeout = TS_TIMEOUT)
{
	struct stat before[3], after[3];
	struct client_result res;

	s = ts_start(&tp, NULL);
	for (int i = 0; i < 3; i++)
		cr_assert_eq(fstat(i, &before[i]), 0);
	res = escalate_here("/bin/true", TS_V("true"));
	cr_assert_eq(res.exit_code, 0);
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(fstat(i, &after[i]), 0, "fd %d was closed", i);
		cr_assert(before[i].st_ino == after[i].st_ino && before[i].st_dev == after[i].st_dev);
	}
	ts_end(s, &tp);
}

/* A wrapper escalating `sh -c SCRIPT` with stdio on pipes; returns the first line. */
static void
start_escalated_sh(struct ts_proc *p, char **env, const char *script, char *line, size_t size)
{
	ts_wrapper_start(p, env, NULL, "/bin/sh", TS_V("sh", "-c", (char *)script));
	ts_read_line(p->out, line, size, 10000);
}

/* Ending the session ends an escalated `sleep 100`: SIGTERM first, within seconds. */
Test(server, session_end_kills_escalated, .timeout = TS_TIMEOUT)
{
	char **env, line[32], *out;
	struct ts_proc p;
	pid_t pid;
	int st;

	s = ts_start(&tp, NULL);
	env = ts_env(s, "TEST_ACTION=escalate", NULL);
	start_escalated_sh(&p, env, "trap 'echo got-TERM; exit 7' TERM; echo $$; sleep 100 & wait", line, sizeof(line));
	pid = atoi(line);
	cr_assert_gt(pid, 0);
	ts_end(s, &tp);
	cr_assert(ts_pid_gone(pid, 5000), "escalated %d outlived the session", pid);
	st = ts_proc_wait(&p, &out, NULL, NULL);
	cr_assert_str_eq(out, "got-TERM\n", "SIGTERM came first, with its grace period: %s", out);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) != 0, "status %#x", st);
	free(out);
	shellesc_env_free(env);
}

/* A shell command that starts an escalated and an in-place `sleep 100`,
 * writing their pids to esc.pid and sh.pid in dir. */
static void
two_sleeps(char *cmd, size_t size, const char *dir)
{
	snprintf(cmd, size, "cd %s && \"$EXEC_WRAPPER\" /bin/sh sh -c 'echo $$ > esc.pid.new;"
	    " mv esc.pid.new esc.pid; exec sleep 100' & cd %s && sleep 100 & echo $! > %s/sh.pid.new;"
	    " mv %s/sh.pid.new %s/sh.pid; wait", dir, dir, dir, dir, dir);
}

/* The pid in dir/name, waiting up to ms for the file to appear; 0 if it did not. */
static pid_t
read_pid(const char *dir, const char *name, int ms)
{
	char path[1100];
	int64_t end = clock_now_ms() + ms;
	pid_t pid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while ((f = fopen(path, "r")) == NULL && clock_now_ms() < end)
		usleep(20000);
	if (f == NULL)
		return 0;
	if (fscanf(f, "%d", &pid) != 1)
		pid = 0;
	fclose(f);
	unlink(path);
	return pid;
}

/* Both sleeps of two_sleeps were started, and are gone within 5 s. */
static void
assert_sleeps_gone(const char *dir, const char *why)
{
	static const char *const names[] = { "esc.pid", "sh.pid" };

	for (int i = 0; i < 2; i++) {
		pid_t pid = read_pid(dir, names[i], 5000);

		cr_assert_gt(pid, 0, "%s was not written", names[i]);
		cr_assert(ts_pid_gone(pid, 5000), "%s %d survived the %s", names[i], pid, why);
	}
}

/* The exec timeout ends the shell's tree and its escalated commands. */
Test(server, exec_timeout_ends_shell_and_escalated, .timeout = TS_TIMEOUT)
{
	char *dir = th_tmpdir(), cmd[1024];
	struct shellesc_exec_result res;

	two_sleeps(cmd, sizeof(cmd), dir);
	s = ts_start(&tp, NULL);
	run_shell(cmd, 1500, &res);
	cr_assert(res.timed_out);
	cr_assert_not(res.cancelled);
	cr_assert_lt(res.duration, 10.0);
	assert_sleeps_gone(dir, "timeout");
	th_rmtree(dir);
	shellesc_exec_result_free(&res);
	ts_end(s, &tp);
}

struct exec_thread {
	const char *cmd;
	struct shellesc_exec_result res;
};

static void *
exec_thread_main(void *arg)
{
	struct exec_thread *t = arg;

	run_shell(t->cmd, 0, &t->res);
	return NULL;
}

/*
 * shellesc_session_cancel from another thread ends a running exec the way
 * a timeout does: the shell's tree and its escalated commands; the exec
 * returns with cancelled set and what was printed before.
 */
Test(server, exec_cancel_ends_shell_and_escalated, .timeout = TS_TIMEOUT)
{
	char *dir = th_tmpdir(), cmd[1100];
	struct exec_thread t = { .cmd = cmd };
	pthread_t th;
	char esc[1100], sh[1100];

	two_sleeps(cmd + 11, sizeof(cmd) - 11, dir);
	memcpy(cmd, "echo early;", 11);
	s = ts_start(&tp, NULL);
	cr_assert_eq(pthread_create(&th, NULL, exec_thread_main, &t), 0);
	snprintf(esc, sizeof(esc), "%s/esc.pid", dir);
	snprintf(sh, sizeof(sh), "%s/sh.pid", dir);
	for (int i = 0; i < 1000 && (access(esc, F_OK) != 0 || access(sh, F_OK) != 0); i++)
		usleep(20000);	/* both sleeps started (20 s at most) */
	shellesc_session_cancel(s);
	shellesc_session_cancel(s);	/* a second call does nothing more */
	cr_assert_eq(pthread_join(th, NULL), 0);
	cr_assert(t.res.cancelled);
	cr_assert_not(t.res.timed_out);
	cr_assert_str_eq(t.res.out, "early\n");
	cr_assert_lt(t.res.duration, 10.0);
	assert_sleeps_gone(dir, "cancel");
	th_rmtree(dir);
	shellesc_exec_result_free(&t.res);
	ts_end(s, &tp);
}

/* A cancel before the exec: it runs nothing and says so; errno is kept. */
Test(server, exec_cancelled_before_start_runs_nothing, .timeout = TS_TIMEOUT)
{
	char *dir = th_tmpdir(), cmd[1100];
	struct shellesc_exec_params pa = { .command = cmd, .workdir = "/" };
	struct shellesc_exec_result res;

	snprintf(cmd, sizeof(cmd), "touch %s/ran", dir);
	s = ts_start(&tp, NULL);
	errno = EBADMSG;
	shellesc_session_cancel(s);
	cr_assert_eq(errno, EBADMSG);
	cr_assert_eq(shellesc_session_exec(s, &pa, &res), -ECANCELED);
	cr_assert_not(th_exists(dir, "ran"), "the shell ran");
	cr_assert_eq(tp.seen, 0);
	th_rmtree(dir);
	ts_end(s, &tp);
}

/* Escalated commands get the caller's variables only by name (pass_env),
 * never one on the scrub list; the request carries the caller's env, never
 * the server's.  (test-trust-env.c has the rest of the environment.) */
Test(server, escalated_env_is_scrubbed, .timeout = TS_TIMEOUT)
{
	static const char *const absent[] = { "LD_PRELOAD=", "BASH_ENV=", "PYTHONPATH=",
		"SERVER_ONLY=", "SHELLESC_", "EXEC_WRAPPER=", "UNNAMED=" };
	static const char *const pass[] = { "ORDINARY", NULL };
	struct shellesc_config cfg = { .intercept = SHELLESC_INTERCEPT_WRAPPER, .pass_env = pass };
	char **env, *out;
	struct ts_proc p;
	int st;

	setenv("SERVER_ONLY", "1", 1);
	s = ts_start(&tp, &cfg);
	env = ts_env(s, "TEST_ACTION=escalate", "LD_PRELOAD=/nonexistent/x.so",
	    "BASH_ENV=/nonexistent/bashenv", "PYTHONPATH=/nonexistent/py", "ORDINARY=plain",
	    "UNNAMED=x", NULL);
	ts_wrapper_start(&p, env, NULL, "/usr/bin/env", TS_V("env"));
	st = ts_proc_wait(&p, &out, NULL, NULL);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	cr_assert(th_line_starts(out, "ORDINARY=plain\n"), "%s", out);
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		cr_assert_not(th_line_starts(out, absent[i]), "%s in:\n%s", absent[i], out);
	cr_assert(ts_req_env_has(&tp, "LD_PRELOAD=/nonexistent/x.so"), "the request is the caller's env");
	cr_assert(ts_req_env_has(&tp, "ORDINARY=plain"));
	cr_assert_not(ts_req_env_has(&tp, "SERVER_ONLY="));
	cr_assert_not(ts_req_env_has(&tp, "SHELLESC_ESCALATE_SOCKET="));
	free(out);
	shellesc_env_free(env);
	ts_end(s, &tp);
}
