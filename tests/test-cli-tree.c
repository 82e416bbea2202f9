/*
 * test-cli-tree.c: suite cli_tree -- an escalated command's whole tree
 * ends with it.  The escalated command starts a child that calls setsid
 * and a grandchild that double-forks away (neither in its process group
 * any more), then sleeps; each writes its pid.  After the exec's timeout
 * (shellesc exec --timeout), the session's end (shellesc run's PROGRAM
 * exits) and a cancel (shellesc_session_cancel, as mcp's and exec's
 * cancel do), neither is left.  Each runs with the mechanism this system
 * allows (a cgroup of its own where shellesc may make one) and with the
 * subreaper fallback forced (SHELLESC_TREE=subreaper), and -v says which.
 * The session's end is tried with the sandboxed side as the suite's
 * unprivileged user (tests/helpers/user.h) under Landlock too.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"
#include "helpers/base.h"
#include "helpers/cli.h"
#include "helpers/session.h"
#include "helpers/user.h"

TC_SUITE(cli_tree, "prefix_rule(pattern=[\"sh\"], decision=\"escalate\")\n");

#define DAEMONS \
	"setsid sh -c 'echo $$ > d1.new; mv d1.new d1; exec sleep 300' &\n" \
	"(sh -c 'echo $$ > d2.new; mv d2.new d2; exec sleep 301' &)\n" \
	"sleep 300\n"

/* The caller waits for both pid files: the session's end must not come
 * before a daemon could say who it is. */
#define UNTIL_BOTH "while [ ! -e d1 ] || [ ! -e d2 ]; do sleep 0.05; done"

static const char *const mechanisms[] = { "default", "subreaper" };

ParameterizedTestParameters(cli_tree, timeout)
{
	return ts_indexes(2);
}

static void
mechanism(size_t i)
{
	if (strcmp(mechanisms[i], "subreaper") == 0) {
		tc_env_set(&t, "SHELLESC_TREE=subreaper");
		setenv("SHELLESC_TREE", "subreaper", 1);	/* the library in this process */
	}
	tc_file(&t, "daemons.sh", DAEMONS);
}

/* The pid in the test's file name, waiting for it up to 30 s (a loaded
 * machine, a sanitizer build: it is written at once when all is well). */
static pid_t
pid_of(const char *dir, const char *name)
{
	char path[4096];
	int64_t until = clock_now_ms() + 30000 * th_slowdown();
	FILE *f;
	int pid = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	while ((f = fopen(path, "r")) == NULL && clock_now_ms() < until)
		usleep(20000);
	cr_assert_not_null(f, "%s was never written", name);
	cr_assert_eq(fscanf(f, "%d", &pid), 1);
	fclose(f);
	return pid;
}

static void
assert_gone(const char *dir, const char *why)
{
	const char *const names[] = { "d1", "d2" };

	for (size_t i = 0; i < 2; i++) {
		pid_t pid = pid_of(dir, names[i]);

		cr_assert(ts_pid_gone(pid, 5000), "%s %d (%s) survived the %s", names[i], pid,
		    i == 0 ? "setsid" : "double fork", why);
	}
}

static void
assert_said(size_t i)
{
	cr_assert_not_null(strstr(r.err, i == 1 ? "escalated commands: each under a subreaper" :
	    "escalated commands: each "), "%s", r.err);
}

ParameterizedTest(size_t *i, cli_tree, timeout)
{
	mechanism(*i);
	tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "--mode", "wrapper", "--no-login", "-v",
	    "--timeout", "3", "-c", TC_GATE "G sh daemons.sh"));
	cr_assert_not_null(strstr(r.out, "\"timed_out\":true"), "%s", r.out);
	assert_said(*i);
	assert_gone(t.dir, "timeout");
}

ParameterizedTestParameters(cli_tree, session_end)
{
	return ts_indexes(2);
}

/* PROGRAM leaves while the escalated command runs: the session ends. */
ParameterizedTest(size_t *i, cli_tree, session_end)
{
	mechanism(*i);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-v", "--",
	    "bash", "-c", TC_GATE "G sh daemons.sh & " UNTIL_BOTH));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	assert_said(*i);
	assert_gone(t.dir, "session's end");
}

ParameterizedTestParameters(cli_tree, session_end_from_the_sandbox)
{
	return ts_indexes(2);
}

/* The same, the session's side the unprivileged user under Landlock. */
ParameterizedTest(size_t *i, cli_tree, session_end_from_the_sandbox)
{
	static struct tu_user u;
	static char wrapper[4200];
	const char *why = NULL, *sbx = tc_path(&t, "sbx"), *w;
	char uid[32], gid[32];
	char *args[24] = { "run", "-p", "t.rules", "--mode", "wrapper", "--force", "-v", "-s",
	    "landlock", "-w", (char *)sbx, "--" };
	size_t n = 12;

	tc_need_landlock(&t, &r, 1);
	if (tu_user(&u, &why) != 0)
		TC_SKIP(&t, &r, "%s", why);
	mechanism(*i);
	cr_assert_eq(chmod(t.dir, 0755), 0);
	cr_assert_eq(mkdir(sbx, 0755), 0);
	cr_assert_eq(chown(sbx, u.uid, u.gid), 0);
	cr_assert_not_null(w = tu_reachable(&u, TEST_WRAPPER));
	snprintf(wrapper, sizeof(wrapper), "SHELLESC_WRAPPER=%s", w);
	tc_env_set(&t, wrapper);
	tc_file(&t, "sbx/daemons.sh", DAEMONS);
	snprintf(uid, sizeof(uid), "--reuid=%ld", (long)u.uid);
	snprintf(gid, sizeof(gid), "--regid=%ld", (long)u.gid);
	if (u.created)
		for (const char *a[] = { "/usr/bin/setpriv", uid, gid, "--clear-groups", NULL },
		    **p = a; *p; p++)
			args[n++] = (char *)*p;
	args[n++] = "/bin/bash";
	args[n++] = "-c";
	args[n++] = TC_GATE "cd sbx && { G sh daemons.sh & " UNTIL_BOTH "; }";
	args[n] = NULL;
	tc_run(&t, &r, NULL, args);
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	assert_said(*i);
	assert_gone(sbx, "session's end");
}

/* --- cancel, through the library ------------------------------------- */

struct canceller {
	struct shellesc_session *s;
	const char *dir;
	struct shellesc_exec_result res;
};

static void *
cancel_exec(void *arg)
{
	struct canceller *c = arg;
	char **env = ts_env(c->s, "TEST_ACTION=escalate", NULL);
	struct shellesc_exec_params pa = { .command = "\"$EXEC_WRAPPER\" /bin/sh sh daemons.sh",
	    .workdir = c->dir, .env = env };

	cr_assert_eq(shellesc_session_exec(c->s, &pa, &c->res), 0);
	shellesc_env_free(env);
	return NULL;
}

ParameterizedTestParameters(cli_tree, cancel)
{
	return ts_indexes(2);
}

ParameterizedTest(size_t *i, cli_tree, cancel)
{
	static struct tpol tp;
	struct canceller c = { .dir = t.dir };
	pthread_t th;

	mechanism(*i);
	c.s = ts_start(&tp, NULL);
	cr_assert_eq(pthread_create(&th, NULL, cancel_exec, &c), 0);
	pid_of(t.dir, "d1");	/* both said who they are (UNTIL_BOTH) */
	pid_of(t.dir, "d2");
	shellesc_session_cancel(c.s);
	cr_assert_eq(pthread_join(th, NULL), 0);
	cr_assert(c.res.cancelled);
	assert_gone(t.dir, "cancel");
	shellesc_exec_result_free(&c.res);
	ts_end(c.s, &tp);
}
