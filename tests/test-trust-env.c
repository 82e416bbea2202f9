/*
 * test-trust-env.c: suite trust_env -- an escalated command's environment
 * is the session's, not the sandboxed caller's.  The caller is the run's
 * unprivileged user (tests/helpers/user.h) in a directory of its own
 * (SBX), asking through the real wrapper; what it tries is what got code
 * of its choosing run outside: a HOME (and XDG_CONFIG_HOME) whose git
 * configuration runs a command, a GIT_TRACE file to write outside, and a
 * PATH whose first gzip is its own under an escalated zcat.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/session.h"
#include "helpers/user.h"

static struct tpol tp;
static struct shellesc_session *s;
static struct tu_user u;
static char *sbx;		/* the caller's: it owns it */
static char *out;		/* outside: markers of code that ran there */
static char *home;		/* the session's own HOME */
static char *work;		/* a directory of the server's user: a repository, a .gz */

static void
teardown(void)
{
	char **dirs[] = { &sbx, &out, &home, &work };

	if (s)
		ts_end(s, &tp);
	s = NULL;
	for (size_t i = 0; i < 4; i++)
		if (*dirs[i])
			th_rmtree(*dirs[i]);
}

TestSuite(trust_env, .fini = teardown, .timeout = TS_TIMEOUT);

/* Give path to the unprivileged user, as if it had made it. */
static void
te_give(const char *path)
{
	if (u.created)
		cr_assert_eq(chown(path, u.uid, u.gid), 0, "chown %s", path);
}

/* The unprivileged user, and the directories (skipped, saying why, without one). */
static void
need_user(void)
{
	const char *why = NULL;

	tp = (struct tpol){ .action = SHELLESC_ESCALATE };
	if (tu_user(&u, &why) != 0)
		cr_skip_test("%s", why);
	sbx = th_tmpdir();
	out = th_tmpdir();
	home = th_tmpdir();
	work = th_tmpdir();
	cr_assert_eq(chmod(sbx, 0755), 0);
	cr_assert_eq(chmod(work, 0755), 0);
	te_give(sbx);
}

/* A session whose own variables are session_env (NULL: the test's environ). */
static void
te_start(char *const *session_env, const char *const *pass_env)
{
	struct shellesc_config cfg = { .intercept = SHELLESC_INTERCEPT_WRAPPER,
	    .session_env = session_env, .pass_env = pass_env };

	s = ts_start(&tp, &cfg);
}

/* The session's own environment of most tests: HOME is home. */
static char **
te_session_env(void)
{
	static char h[4200];
	static char *env[] = { h, "PATH=/usr/bin:/bin", "USER=owner", "LOGNAME=owner",
		"TMPDIR=/tmp", "SERVER_ONLY=1", NULL };

	snprintf(h, sizeof(h), "HOME=%s", home);
	return env;
}

/* The caller's environment: base (NULL-terminated) with the session's overlay. */
static char **
te_caller_env(char *const *base)
{
	char **env = shellesc_env_merge(s, base);

	cr_assert_not_null(env);
	return env;
}

/*
 * The attack: shellesc-execve-wrapper FILE ARGV... run by the unprivileged
 * user in cwd under env, asking the session (which escalates); its output.
 */
static int
te_attack(const char *cwd, char *const env[], const char *file, char *const argv[],
    char **output)
{
	const char *wrapper = tu_reachable(&u, TEST_WRAPPER);
	size_t n = 0;
	struct ts_proc p;
	char *err;
	int st;

	cr_assert_not_null(wrapper, "the wrapper cannot be made reachable: %s", strerror(errno));
	while (argv[n])
		n++;
	char *wargv[n + 3];

	wargv[0] = "shellesc-execve-wrapper";
	wargv[1] = (char *)file;
	memcpy(wargv + 2, argv, (n + 1) * sizeof(char *));
	ts_proc_start_as(&p, &u, cwd, env, wrapper, wargv);
	st = ts_proc_wait(&p, output, NULL, &err);
	cr_log_info("%s: status %#x, stderr: %s", file, st, err);
	free(err);
	return st;
}

/* --- what an escalated env(1) sees ------------------------------------------ */

Test(trust_env, the_session_not_the_caller_sets_the_environment)
{
	char hostile_home[4200], hostile_path[4200], trace[4200], tmp[4200], xdg[4200];
	char *caller[] = { "TEST_ACTION=escalate", hostile_home, hostile_path, trace, tmp, xdg,
		"USER=mallory", "SHELL=/tmp/evil-shell", "LD_PRELOAD=/nonexistent/evil.so",
		"BASH_ENV=/nonexistent/evil.sh", "ORDINARY=plain", "LANG=C.UTF-8",
		"LANG=de_DE.UTF-8", "LC_MESSAGES=../../../tmp/evil", "LC_TIME=C",
		"TERM=xterm-256color", "COLORTERM=../evil", "TZ=Europe/Paris", "COLUMNS=80",
		"LINES=4x", "NO_COLOR=1", NULL };
	char **env, *o;
	int st;

	need_user();
	snprintf(hostile_home, sizeof(hostile_home), "HOME=%s/h", sbx);
	snprintf(hostile_path, sizeof(hostile_path), "PATH=%s:/usr/bin:/bin", sbx);
	snprintf(trace, sizeof(trace), "GIT_TRACE=%s/trace", out);
	snprintf(tmp, sizeof(tmp), "TMPDIR=%s", sbx);
	snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s/x", sbx);
	te_start(te_session_env(), NULL);
	env = te_caller_env(caller);
	st = te_attack(sbx, env, "/usr/bin/env", TS_V("env"), &o);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	cr_log_info("the escalated env:\n%s", o);
	/* the session's own */
	cr_assert(th_has_line(o, te_session_env()[0]), "not the session's HOME:\n%s", o);
	cr_assert(th_has_line(o, "PATH=/usr/bin:/bin"), "not the session's PATH:\n%s", o);
	cr_assert(th_has_line(o, "USER=owner") && th_has_line(o, "TMPDIR=/tmp"), "%s", o);
	cr_assert_not(th_line_starts(o, "SHELL="), "SHELL is the session's (unset):\n%s", o);
	cr_assert_not(th_line_starts(o, "XDG_CONFIG_HOME="), "XDG_CONFIG_HOME is the session's:\n%s", o);
	cr_assert_not(th_line_starts(o, "SERVER_ONLY="), "only named variables come from the session");
	/* nothing else of the caller's but plain locale, terminal and sizes */
	static const char *const absent[] = { "GIT_TRACE=", "LD_PRELOAD=", "BASH_ENV=", "ORDINARY=",
		"LC_MESSAGES=", "COLORTERM=", "LINES=", "TEST_ACTION=", "SHELLESC_ESCALATE_SOCKET=",
		"EXEC_WRAPPER=" };
	for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
		cr_assert_not(th_line_starts(o, absent[i]), "%s came from the caller:\n%s", absent[i], o);
	static const char *const kept[] = { "LANG=C.UTF-8", "LC_TIME=C", "TERM=xterm-256color",
		"TZ=Europe/Paris", "COLUMNS=80", "NO_COLOR=1" };
	for (size_t i = 0; i < sizeof(kept) / sizeof(kept[0]); i++)
		cr_assert(th_has_line(o, kept[i]), "%s did not pass:\n%s", kept[i], o);
	cr_assert_not(th_has_line(o, "LANG=de_DE.UTF-8"), "a second LANG passed:\n%s", o);
	/* the policy still sees all of the caller's */
	cr_assert(ts_req_env_has(&tp, "LD_PRELOAD=/nonexistent/evil.so"));
	cr_assert(ts_req_env_has(&tp, hostile_home));
	free(o);
	shellesc_env_free(env);
}

/* --- the reproductions ------------------------------------------------------ */

/* dir/name, made by the unprivileged user: a file with text, or a directory (text NULL). */
static void
te_make(const char *dir, const char *name, const char *text, mode_t mode)
{
	char *p = th_path(dir, name);

	if (text)
		th_write_file(p, text);
	else
		cr_assert_eq(mkdir(p, mode), 0);
	cr_assert_eq(chmod(p, mode), 0);
	te_give(p);
	free(p);
}

/* Run argv in work as the server's user, with a clean environment; asserts success. */
static void
te_setup_run(char *const argv[])
{
	char h[4200];
	char *env[] = { h, "PATH=/usr/bin:/bin", NULL };
	struct ts_proc p;
	char *err;
	int st;

	snprintf(h, sizeof(h), "HOME=%s", home);
	ts_proc_start(&p, work, env, argv[0], argv);
	st = ts_proc_wait(&p, NULL, NULL, &err);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %#x: %s", argv[0], st, err);
	free(err);
}

/*
 * HOME=SBX/h git status, with SBX/h/.gitconfig setting core.fsmonitor to a
 * command, and GIT_TRACE naming a file outside: escalated, git ran the
 * caller's command and wrote its trace outside.
 */
Test(trust_env, git_takes_no_config_or_trace_from_the_caller)
{
	char hostile_home[4200], trace[4200], gitconfig[4200], xdg[4200];
	char *caller[] = { "TEST_ACTION=escalate", hostile_home, trace, xdg,
		"PATH=/usr/bin:/bin", NULL };
	char **env, *o;
	bool fsm, trace_made;
	int st;

	if (access("/usr/bin/git", X_OK) != 0)
		cr_skip_test("git is not installed (./bootstrap installs it)");
	need_user();
	te_setup_run(TS_V("/usr/bin/git", "init", "-q"));
	te_setup_run(TS_V("/bin/sh", "-c", "echo tracked > f && /usr/bin/git add f"));
	snprintf(gitconfig, sizeof(gitconfig), "[core]\n\tfsmonitor = \"touch %s/fsmonitor-ran; false\"\n", out);
	te_make(sbx, "h", NULL, 0755);
	te_make(sbx, "x", NULL, 0755);
	te_make(sbx, "x/git", NULL, 0755);
	te_make(sbx, "h/.gitconfig", gitconfig, 0644);
	te_make(sbx, "x/git/config", gitconfig, 0644);
	snprintf(hostile_home, sizeof(hostile_home), "HOME=%s/h", sbx);
	snprintf(xdg, sizeof(xdg), "XDG_CONFIG_HOME=%s/x", sbx);
	snprintf(trace, sizeof(trace), "GIT_TRACE=%s/trace", out);
	te_start(te_session_env(), NULL);
	env = te_caller_env(caller);
	st = te_attack(work, env, "/usr/bin/git", TS_V("git", "status", "--short"), &o);
	cr_assert_eq(tp.seen, 1, "the exec was not decided");
	cr_assert_str_eq(tp.program, "/usr/bin/git");
	cr_assert(WIFEXITED(st), "status %#x", st);
	fsm = th_exists(out, "fsmonitor-ran");
	trace_made = th_exists(out, "trace");
	cr_assert(!fsm && !trace_made, "the caller's choice ran outside:%s%s",
	    fsm ? " its core.fsmonitor;" : "", trace_made ? " git wrote its GIT_TRACE file" : "");
	cr_assert(WEXITSTATUS(st) == 0, "git status failed: %#x", st);
	free(o);
	shellesc_env_free(env);
}

/* "hello\n", gzip -n */
static const unsigned char te_hello_gz[] = {
	0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48,
	0xcd, 0xc9, 0xc9, 0xe7, 0x02, 0x00, 0x20, 0x30, 0x3a, 0x36, 0x06, 0x00,
	0x00, 0x00
};

/*
 * PATH=SBX:$PATH zcat hello.gz, with an SBX/gzip of the caller's: zcat
 * (a script: exec gzip -cd) escalated by a rule for /usr/bin/zcat ran it.
 */
Test(trust_env, an_escalated_script_finds_programs_in_the_sessions_path)
{
	char path[4200], gzip[4200];
	char *caller[] = { "TEST_ACTION=escalate", path, NULL };
	char **env, *o, *gz;
	int st, fd;

	need_user();
	gz = th_path(work, "hello.gz");
	cr_assert_geq(fd = open(gz, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), 0);
	th_write(fd, te_hello_gz, sizeof(te_hello_gz));
	close(fd);
	snprintf(gzip, sizeof(gzip), "#!/bin/sh\ntouch %s/gzip-ran\nexec /bin/gzip \"$@\"\n", out);
	te_make(sbx, "gzip", gzip, 0755);
	snprintf(path, sizeof(path), "PATH=%s:/usr/bin:/bin", sbx);
	te_start(te_session_env(), NULL);
	env = te_caller_env(caller);
	st = te_attack(work, env, "/usr/bin/zcat", TS_V("zcat", "hello.gz"), &o);
	cr_assert_str_eq(tp.program, "/usr/bin/zcat");
	cr_assert_not(th_exists(out, "gzip-ran"), "the caller's gzip ran outside");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	cr_assert_str_eq(o, "hello\n");
	free(o);
	free(gz);
	shellesc_env_free(env);
}

/* --- what the embedder passes, and what it may not ------------------------- */

Test(trust_env, pass_env_takes_named_variables_from_the_caller)
{
	static const char *const pass[] = { "ORDINARY", "GIT_AUTHOR_NAME", "LC_MESSAGES", NULL };
	char *caller[] = { "TEST_ACTION=escalate", "ORDINARY=plain", "GIT_AUTHOR_NAME=A U Thor",
		"LC_MESSAGES=../as/is", "OTHER=x", NULL };
	char **env, *o;
	int st;

	need_user();
	te_start(te_session_env(), pass);
	env = te_caller_env(caller);
	st = te_attack(sbx, env, "/usr/bin/env", TS_V("env"), &o);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	cr_assert(th_has_line(o, "ORDINARY=plain"), "%s", o);
	cr_assert(th_has_line(o, "GIT_AUTHOR_NAME=A U Thor"), "%s", o);
	cr_assert(th_has_line(o, "LC_MESSAGES=../as/is"), "passed by name: as it is\n%s", o);
	cr_assert_not(th_line_starts(o, "OTHER="), "%s", o);
	free(o);
	shellesc_env_free(env);
}

ParameterizedTestParameters(trust_env, pass_env_refuses_what_it_may_not_pass)
{
	return ts_indexes(6);
}

static void
te_deny(void *arg, struct shellesc_request *req)
{
	shellesc_request_decide(req, &(struct shellesc_decision){ .action = SHELLESC_DENY });
}

ParameterizedTest(size_t *i, trust_env, pass_env_refuses_what_it_may_not_pass)
{
	static const char *const names[] = { "PATH", "HOME", "LD_PRELOAD", "GIT_CONFIG_GLOBAL",
		"A=B", "" };
	const char *const pass[] = { "ORDINARY", names[*i], NULL };
	struct shellesc_config cfg = { .policy = te_deny,
	    .intercept = SHELLESC_INTERCEPT_WRAPPER, .wrapper_path = TEST_WRAPPER, .pass_env = pass };
	struct shellesc_session *bad = NULL;

	cr_assert_eq(shellesc_session_start(&cfg, &bad), -EINVAL, "pass_env '%s' was taken", names[*i]);
	cr_assert_null(bad);
}

/* The session's own variables are taken when it starts; PATH keeps its
 * absolute directories, and of those only what an exec could search: an
 * entry of PATH_MAX bytes or more names no file (ENAMETOOLONG). */
Test(trust_env, the_sessions_own_variables_are_taken_at_start)
{
	char *caller[] = { "TEST_ACTION=escalate", "HOME=/caller", NULL };
	char **env, *o, path[PATH_MAX + 64];
	int st;

	need_user();
	setenv("HOME", home, 1);
	snprintf(path, sizeof(path), ".:/usr/bin::bin:/%0*d:/bin:", PATH_MAX, 0);
	setenv("PATH", path, 1);
	unsetenv("TMPDIR");
	te_start(NULL, NULL);
	setenv("HOME", "/changed/later", 1);
	env = te_caller_env(caller);
	st = te_attack(sbx, env, "/usr/bin/env", TS_V("env"), &o);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
	cr_assert(th_has_line(o, te_session_env()[0]), "HOME as the session started:\n%s", o);
	cr_assert(th_has_line(o, "PATH=/usr/bin:/bin"), "relative or overlong PATH entries:\n%s", o);
	cr_assert_not(th_line_starts(o, "TMPDIR="), "%s", o);
	free(o);
	shellesc_env_free(env);
}
