/*
 * test-trust-rules.c: suite trust_rules -- the sandboxed side cannot
 * write the rules.  The unprivileged user runs shellesc itself with its
 * home as the writable root: the rules of every later session (the
 * learned file every session loads, the user's rules directory) lie
 * beneath it.  The attack plants a learned.rules escalating touch; the
 * next session, sandboxed to a narrower directory, would then run touch
 * outside its sandbox.  run refuses the first session
 * (cli-rules-guard.c); with --rules-writable the attack goes through,
 * which shows what the refusal stops.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/cli.h"
#include "helpers/session.h"
#include "helpers/user.h"

TC_SUITE(trust_rules, "prefix_rule(pattern=[\"mkdir\"], decision=\"run\")\n"
    "prefix_rule(pattern=[\"bash\"], decision=\"run\")\n");

/* What the sandboxed side writes: the learned file of its home. */
#define TR_PLANT \
	"mkdir -p \"$HOME/.config/shellesc/rules\" && " \
	"echo 'prefix_rule(pattern=[\"touch\"], decision=\"escalate\")' " \
	"> \"$HOME/.config/shellesc/rules/learned.rules\""

struct tr_world {
	struct tu_user u;
	char *home, *work, *out, *rules;
	char err[8192];			/* the last session's stderr */
};

static void
tr_need(struct tr_world *w)
{
	const char *why = NULL, *self;
	char path[4096];

	if (tc_landlock_abi() < 1)
		TC_SKIP(&t, &r, "needs Landlock");
	if (tu_user(&w->u, &why) != 0)
		TC_SKIP(&t, &r, "%s", why);
	if ((self = tu_reachable(&w->u, TEST_SHELLESC)) == NULL ||
	    strcmp(self, TEST_SHELLESC) != 0 ||
	    strcmp(tu_reachable(&w->u, TEST_WRAPPER), TEST_WRAPPER) != 0)
		TC_SKIP(&t, &r, "the build tree is closed to %s: shellesc cannot run as it",
		    w->u.name);
	w->home = th_tmpdir();
	w->out = th_tmpdir();
	cr_assert_eq(chmod(w->home, 0755), 0);
	cr_assert_eq(chmod(w->out, 01777), 0);
	if (w->u.created)
		cr_assert_eq(chown(w->home, w->u.uid, w->u.gid), 0);
	snprintf(path, sizeof(path), "%s/work", w->home);
	cr_assert_eq(mkdir(path, 0755), 0);
	if (w->u.created)
		cr_assert_eq(chown(path, w->u.uid, w->u.gid), 0);
	w->work = strdup(path);
	/* the -p file, root's, where the user can read it but not write it */
	w->rules = strdup(tc_path(&t, "t.rules"));
	cr_assert_eq(chmod(t.dir, 0755), 0);
}

/* shellesc run [extra] -s landlock -w ROOT -p RULES --default deny
 * --mode kernel -- bash -c CMD as the user, HOME its home: the status. */
static int
tr_session(struct tr_world *w, const char *root, const char *extra, const char *cmd)
{
	char home[4200], cfg[4200], *env[8] = { NULL }, *o, *err;
	char *args[24] = { "shellesc", "run", "--force", "--mode", "kernel", "-s", "landlock",
	    "-w", (char *)root, "-p", w->rules, "--default", "deny" };
	size_t n = 13;
	struct ts_proc p;
	int st;

	if (extra != NULL)
		args[n++] = (char *)extra;
	args[n++] = "--";
	args[n++] = "bash";
	args[n++] = "-c";
	args[n++] = (char *)cmd;
	snprintf(home, sizeof(home), "HOME=%s", w->home);
	snprintf(cfg, sizeof(cfg), "XDG_CONFIG_HOME=%s/.config", w->home);
	env[0] = home;
	env[1] = cfg;
	env[2] = "PATH=/usr/bin:/bin";
	env[3] = "SHELLESC_WRAPPER=" TEST_WRAPPER;
	ts_proc_start_as(&p, &w->u, w->home, env, TEST_SHELLESC, args);
	st = ts_proc_wait(&p, &o, NULL, &err);
	cr_log_info("shellesc run -w %s as %s: status %#x\nstdout:\n%sstderr:\n%s", root,
	    w->u.name, st, o, err);
	snprintf(w->err, sizeof(w->err), "%s", err);
	free(o);
	free(err);
	return st;
}

static bool
tr_exists(const char *dir, const char *name)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static void
tr_done(struct tr_world *w)
{
	th_rmtree(w->home);
	th_rmtree(w->out);
	free(w->work);
	free(w->rules);
}

/* The next session, sandboxed to HOME/work: touch OUT/pwned. */
static void
tr_next(struct tr_world *w)
{
	char cmd[4200];

	snprintf(cmd, sizeof(cmd), "touch %s/pwned", w->out);
	tr_session(w, w->work, NULL, cmd);
}

Test(trust_rules, a_root_holding_the_rules_is_refused)
{
	struct tr_world w = { 0 };
	int st;

	tr_need(&w);
	st = tr_session(&w, w.home, NULL, TR_PLANT);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 125, "status %#x: %s", st, w.err);
	cr_assert_not_null(strstr(w.err, "--rules-writable"), "%s", w.err);
	cr_assert_not(tr_exists(w.home, ".config/shellesc/rules/learned.rules"),
	    "the sandbox wrote the learned file");
	tr_next(&w);
	cr_assert_not(tr_exists(w.out, "pwned"), "touch ran outside the sandbox: %s", w.err);
	tr_done(&w);
}

/* The control: what the refusal stops is real. */
Test(trust_rules, with_rules_writable_the_plant_reaches_the_next_session)
{
	struct tr_world w = { 0 };
	int st;

	tr_need(&w);
	st = tr_session(&w, w.home, "--rules-writable", TR_PLANT);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x: %s", st, w.err);
	cr_assert(tr_exists(w.home, ".config/shellesc/rules/learned.rules"), "%s", w.err);
	tr_next(&w);
	cr_assert(tr_exists(w.out, "pwned"), "the planted rule did not escalate: %s", w.err);
	tr_done(&w);
}

/* A root beside the rules, not above them, is fine. */
Test(trust_rules, a_narrower_root_runs)
{
	struct tr_world w = { 0 };
	int st;

	tr_need(&w);
	st = tr_session(&w, w.work, NULL, "mkdir work/made");
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x: %s", st, w.err);
	cr_assert(tr_exists(w.work, "made"), "%s", w.err);
	tr_done(&w);
}
