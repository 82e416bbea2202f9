/*
 * test-cli-env.c: suite cli_env -- what shellesc run gives escalated
 * commands and PROGRAM: variables by --pass-env only, the TMPDIR it was
 * started with (not the sandbox's private one), the fd limit it was
 * started with; and the environment attacks end to end, from inside a
 * Landlock sandbox run by the unprivileged user.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/cli.h"
#include "helpers/user.h"

static const char rules[] =
    "prefix_rule(pattern=[\"env\"], decision=\"escalate\")\n"
    "prefix_rule(pattern=[\"sh\", \"-c\"], decision=\"escalate\")\n";

static struct tc t;
static struct tc_res r;

static void
setup(void)
{
	tc_init(&t, rules);
}

static void
teardown(void)
{
	tc_fini(&t, &r);
}

TestSuite(cli_env, .init = setup, .fini = teardown, .timeout = TC_TIMEOUT);

Test(cli_env, pass_env_passes_by_name_only)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force",
	    "--pass-env", "ORDINARY", "--", "bash", "-c",
	    TC_GATE "ORDINARY=x OTHER=y G env; echo \"env: $?\""));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert(th_has_line(r.out, "env: 0"), "%s", r.out);
	cr_assert(th_has_line(r.out, "ORDINARY=x"), "%s", r.out);
	cr_assert(th_has_line(r.out, "PATH=/usr/bin:/bin"), "%s", r.out);
	cr_assert_null(strstr(r.out, "OTHER="), "%s", r.out);
}

ParameterizedTestParameters(cli_env, pass_env_refused)
{
	return ts_indexes(3);
}

ParameterizedTest(size_t *i, cli_env, pass_env_refused)
{
	static const struct { const char *name, *why; } cases[] = {
		{ "LD_PRELOAD", "shellesc: cannot pass LD_PRELOAD to escalated commands: it can make "
		    "a program run code of the caller's choosing\n" },
		{ "HOME", "shellesc: cannot pass HOME to escalated commands: theirs is the "
		    "session's own\n" },
		{ "A=B", "shellesc: run: --pass-env 'A=B': expected a variable's name\n" },
	};

	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "--pass-env",
	    (char *)cases[*i].name, "--", "true"));
	cr_assert_eq(tc_code(&r), 125);
	cr_assert_not_null(strstr(r.err, cases[*i].why), "%s", r.err);
	cr_assert_str_eq(r.out, "");
}

/* The sandboxed side writes in a private TMPDIR; escalated commands get ours. */
Test(cli_env, escalated_commands_get_the_outer_tmpdir)
{
	size_t n = 0;

	if (tc_landlock_abi() < 1)
		TC_SKIP(&t, &r, "needs Landlock (to get a private TMPDIR)");
	while (t.env[n])
		n++;
	t.env[n] = "TMPDIR=/tmp";
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-s", "landlock",
	    "--rules-writable", "--", "bash", "-c", TC_GATE "echo \"in: $TMPDIR\"; G env"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_not_null(strstr(r.out, "in: /tmp/shellesc."), "%s", r.out);
	cr_assert(th_has_line(r.out, "TMPDIR=/tmp"), "%s", r.out);
}

/* shellesc raises its own fd limit; PROGRAM and escalated commands get ours back. */
Test(cli_env, the_fd_limit_is_raised_for_the_server_only)
{
	struct rlimit rl;
	char want[64];

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if (rl.rlim_max <= 512)
		TC_SKIP(&t, &r, "the hard fd limit is only %lu", (unsigned long)rl.rlim_max);
	rl.rlim_cur = 512;
	cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "--", "bash", "-c",
	    TC_GATE "echo \"in: $(ulimit -Sn)\"; G sh -c 'echo \"escalated: $(ulimit -Sn)\"';"
	    " grep '^Max open files' /proc/$PPID/limits | tr -s ' ' | cut -d' ' -f4,5"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	snprintf(want, sizeof(want), "%lu %lu", (unsigned long)rl.rlim_max, (unsigned long)rl.rlim_max);
	cr_assert(th_has_line(r.out, "in: 512"), "%s", r.out);
	cr_assert(th_has_line(r.out, "escalated: 512"), "%s", r.out);
	cr_assert(th_has_line(r.out, want), "shellesc's own limit is not %s:\n%s", want, r.out);
}

/* --- the attacks, end to end ------------------------------------------------ */

/* "hello\n", gzip -n */
static const char hello_gz[] =
    "\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\xcb\x48\xcd\xc9\xc9\xe7\x02\x00\x20\x30\x3a\x36"
    "\x06\x00\x00\x00";

/* A directory of the unprivileged user's, outside the test's closed one. */
static char *
user_dir(const struct tu_user *u)
{
	char *d = th_tmpdir();

	cr_assert_eq(chmod(d, 0755), 0);
	if (u->created)
		cr_assert_eq(chown(d, u->uid, u->gid), 0);
	return d;
}

/*
 * The sandboxed side, the unprivileged user under shellesc run -s landlock
 * -w SBX, with rules escalating /usr/bin/git and /usr/bin/zcat only:
 * HOME (and XDG_CONFIG_HOME) whose git configuration sets core.fsmonitor
 * to a command, GIT_TRACE naming a file outside, and PATH=SBX:$PATH with
 * an SBX/gzip under zcat.  None of the caller's code may run outside.
 */
Test(cli_env, environment_attacks_from_the_sandbox)
{
	static const char script[] = TC_GATE
	    "set -u; cd \"$SBX\" && mkdir -p h x/git || exit 9\n"
	    "printf '[core]\\n\\tfsmonitor = \"touch %s/fsmonitor-ran; false\"\\n' \"$OUT\" > h/.gitconfig\n"
	    "cp h/.gitconfig x/git/config\n"
	    "printf '#!/bin/sh\\ntouch %s/gzip-ran\\nexec /bin/gzip \"$@\"\\n' \"$OUT\" > gzip\n"
	    "chmod +x gzip; touch \"$OUT/sandboxed\" 2>/dev/null && echo 'not sandboxed'\n"
	    "cd \"$REPO\" || exit 9\n"
	    "HOME=$SBX/h XDG_CONFIG_HOME=$SBX/x GIT_TRACE=$OUT/trace G git status --short;"
	    " echo \"git: $?\"\n"
	    "PATH=$SBX:$PATH G zcat hello.gz; echo \"zcat: $?\"\n";
	static const char attack_rules[] =
	    "host_executable(name=\"git\", paths=[\"/usr/bin/git\"])\n"
	    "host_executable(name=\"zcat\", paths=[\"/usr/bin/zcat\"])\n"
	    "prefix_rule(pattern=[\"git\"], decision=\"escalate\")\n"
	    "prefix_rule(pattern=[\"zcat\"], decision=\"escalate\")\n";
	const char *why = NULL, *self;
	char *sbx, *out, *repo, *home, *vars[4], *rulesf, *gz, *env[16] = { NULL }, *o, *err;
	struct tu_user u;
	struct ts_proc p;
	bool fsm, trace, gzip;
	size_t n = 0;
	FILE *f;
	int st;

	if (tc_landlock_abi() < 1)
		TC_SKIP(&t, &r, "needs Landlock");
	if (access("/usr/bin/git", X_OK) != 0)
		TC_SKIP(&t, &r, "git is not installed (./bootstrap installs it)");
	if (tu_user(&u, &why) != 0)
		TC_SKIP(&t, &r, "%s", why);
	if ((self = tu_reachable(&u, TEST_SHELLESC)) == NULL || strcmp(self, TEST_SHELLESC) != 0 ||
	    strcmp(tu_reachable(&u, TEST_WRAPPER), TEST_WRAPPER) != 0)
		TC_SKIP(&t, &r, "the build tree is closed to %s: shellesc cannot run as it", u.name);
	sbx = user_dir(&u);
	out = user_dir(&u);
	repo = user_dir(&u);
	home = user_dir(&u);
	rulesf = th_path(home, "t.rules");
	th_write_file(rulesf, attack_rules);
	gz = th_path(repo, "hello.gz");
	cr_assert_not_null(f = fopen(gz, "w"));
	cr_assert_eq(fwrite(hello_gz, 1, sizeof(hello_gz) - 1, f), sizeof(hello_gz) - 1);
	cr_assert_eq(fclose(f), 0);
	if (u.created)
		cr_assert_eq(chown(gz, u.uid, u.gid), 0);
	free(gz);
	cr_assert(asprintf(&vars[0], "SBX=%s", sbx) > 0 && asprintf(&vars[1], "OUT=%s", out) > 0 &&
	    asprintf(&vars[2], "REPO=%s", repo) > 0 && asprintf(&vars[3], "HOME=%s", home) > 0);
	for (size_t i = 0; i < 4; i++)
		env[n++] = vars[i];
	env[n++] = "PATH=/usr/bin:/bin";
	env[n++] = "SHELLESC_WRAPPER=" TEST_WRAPPER;
	/* the repository: the user's own, made as the user */
	ts_proc_start_as(&p, &u, repo, env, "/bin/sh", TS_V("sh", "-c",
	    "git init -q && echo tracked > f && git add f && chmod -R a+rX ."));
	st = ts_proc_wait(&p, NULL, NULL, &err);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "git init: %s", err);
	free(err);

	ts_proc_start_as(&p, &u, sbx, env, TEST_SHELLESC, TS_V("shellesc", "run", "-p", rulesf,
	    "--mode", "wrapper", "--force", "-s", "landlock", "-w", sbx, "--", "bash", "-c", (char *)script));
	st = ts_proc_wait(&p, &o, NULL, &err);
	cr_log_info("shellesc run as %s: status %#x\nstdout:\n%sstderr:\n%s", u.name, st, o, err);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x: %s", st, err);
	cr_assert_null(strstr(o, "not sandboxed"), "the sandboxed side could write outside");
	fsm = th_exists(out, "fsmonitor-ran");
	trace = th_exists(out, "trace");
	gzip = th_exists(out, "gzip-ran");
	cr_assert(!fsm && !trace && !gzip, "the caller's choice ran outside:%s%s%s",
	    fsm ? " its core.fsmonitor;" : "", trace ? " git wrote its GIT_TRACE file;" : "",
	    gzip ? " its SBX/gzip under zcat" : "");
	cr_assert(th_has_line(o, "git: 0"), "%s", o);
	cr_assert(th_has_line(o, "hello") && th_has_line(o, "zcat: 0"), "%s", o);
	free(o);
	free(err);
	for (size_t i = 0; i < 4; i++)
		free(vars[i]);
	free(rulesf);
	th_rmtree(sbx);
	th_rmtree(out);
	th_rmtree(repo);
	th_rmtree(home);
}
