/*
 * test-trust-cwd.c: suite trust_cwd -- an escalated command runs in the
 * caller's working directory as the kernel has it, never in a directory
 * the sandboxed side names:
 *
 *   - the approver is shown cwd SBX/work; while it decides, the sandboxed
 *     side moves SBX/work away and puts a symbolic link to OUT in its
 *     place; the approved touch x must run in the moved directory, never
 *     in OUT (with the wrapper, the preload, and plain bash under the
 *     kernel layer);
 *   - a client that sends OUT as its cwd while it is in SBX;
 *   - the approver's request says whether the sandbox can write the cwd
 *     (cwd_writable);
 *   - an escalated git status in a repository that is a writable root
 *     does not run a core.fsmonitor the sandbox wrote into .git/config:
 *     the root's .git is read-only to the sandbox (unless --writable-git).
 *
 * The sandboxed side runs as the suite's unprivileged user
 * (tests/helpers/user.h) under --sandbox landlock with a writable SBX;
 * the approver is a shell script of the suite's (trusted), which waits
 * for the swap before it answers.  Skipped, with the reason, on a kernel
 * without Landlock.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/cli.h"
#include "helpers/trust.h"
#include "helpers/user.h"

#define tw tt_world	/* the user u, SBX and OUT: helpers/trust.h */
#define t (tw.t)
#define r (tw.r)
#define u (tw.u)

TestSuite(trust_cwd, .init = tt_suite_init, .fini = tt_suite_fini, .timeout = TC_TIMEOUT);

/* s with each @SBX@ and @OUT@ replaced, into buf (n bytes). */
static const char *
fill(char *buf, size_t n, const char *s)
{
	size_t len = 0;

	while (*s && len + 1 < n) {
		const char *with = strncmp(s, "@SBX@", 5) == 0 ? tw.sbx :
		    strncmp(s, "@OUT@", 5) == 0 ? tw.out : NULL;

		if (with != NULL) {
			len += (size_t)snprintf(buf + len, n - len, "%s", with);
			s += 5;
		} else
			buf[len++] = *s++;
	}
	cr_assert(len + 1 < n, "script too long");
	buf[len] = '\0';
	return buf;
}

/*
 * shellesc run -p RULES --mode MODE -s landlock -w SBX --approver APPROVER
 * -- bash -c SCRIPT, the bash (and all it runs) as u, in SBX.
 */
static void
run_sandboxed_in(const char *mode, const char *approver, const char *script,
    const char *const *extra)
{
	static const char rules[] =
	    "prefix_rule(pattern=[\"touch\"], decision=\"prompt\")\n"
	    "prefix_rule(pattern=[\"uname\"], decision=\"prompt\")\n"
	    "prefix_rule(pattern=[\"git\", \"status\"], decision=\"prompt\")\n";
	char cmd[8192], app[4096];
	const char *opts[32];
	size_t n = 0;

	tc_file(&t, "t.rules", rules);
	snprintf(cmd, sizeof(cmd), TC_GATE "cd %s || exit 99; ", tw.sbx);
	fill(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), script);
	fill(app, sizeof(app), approver);
	for (const char *a[] = { "run", "--force", "-p", tc_path(&t, "t.rules"), "--mode", mode,
	    "--default", "run", "-s", "landlock", "-w", tw.sbx, "-v", "--approver", app, NULL },
	    **p = a; *p; p++)
		opts[n++] = *p;
	for (; extra != NULL && *extra != NULL && n < 31; extra++)
		opts[n++] = *extra;
	opts[n] = NULL;
	tt_run(&tw, opts, cmd);
}

static void
run_sandboxed(const char *mode, const char *approver, const char *script)
{
	run_sandboxed_in(mode, approver, script, NULL);
}

/* The approver: keeps the request, says it is asked, waits for the swap. */
#define SWAP_APPROVER							\
	"cat > @OUT@/req.json; touch @OUT@/asked; "			\
	"for i in $(seq 400); do [ -e @SBX@/swapped ] && break; sleep 0.05; done; "	\
	"echo '{\"decision\": \"escalate\"}'"

/* The sandboxed side: once the approver is asked, SBX/work becomes a link
 * to OUT; %s is the command that asks, in SBX/work. */
#define SWAP_SCRIPT							\
	"mkdir work && cd work && { "					\
	"( for i in $(seq 400); do [ -e @OUT@/asked ] && break; sleep 0.05; done; "	\
	"mv @SBX@/work @SBX@/work.old && ln -s @OUT@ @SBX@/work && : > @SBX@/swapped ) & "	\
	"%s; echo \"status $?\"; wait; }"

/* The swapped cwd is not followed: x is made in the moved directory. */
static void
swap_attack(const char *mode, const char *run)
{
	char want[4096], script[4096];
	char *req;

	tt_need_sandbox(&tw);
	snprintf(script, sizeof(script), SWAP_SCRIPT, run);
	run_sandboxed(mode, SWAP_APPROVER, script);
	cr_assert(th_exists(tw.sbx, "swapped"), "no swap: %s", r.err);
	cr_assert(!th_exists(tw.out, "x"), "the approved touch ran in OUT: %s", r.err);
	snprintf(want, sizeof(want), "%s/work.old/x", tw.sbx);
	cr_assert_eq(access(want, F_OK), 0, "x not made in the moved directory: %s\n%s",
	    r.out, r.err);
	cr_assert_str_eq(r.out, "status 0\n", "%s", r.err);
	cr_assert_not_null(req = th_read_file(fill(want, sizeof(want), "@OUT@/req.json"), NULL));
	fill(want, sizeof(want), "\"cwd\":\"@SBX@/work\"");
	cr_assert_not_null(strstr(req, want), "%s", req);
	cr_assert_not_null(strstr(req, "\"cwd_writable\":true"), "%s", req);
	free(req);
}

Test(trust_cwd, swapped_cwd_wrapper)
{
	swap_attack("wrapper", "G touch x");
}

Test(trust_cwd, swapped_cwd_preload)
{
	tt_need_sandbox(&tw);
	if (tw.preload == NULL)
		tt_skip(&tw, "the preload library is not built");
	TC_NEED_PRELOAD(&t, &r);
	swap_attack("preload", "touch x");
}

/* Plain bash: only the kernel layer sees its execs. */
Test(trust_cwd, swapped_cwd_kernel)
{
	if (th_slowdown() > 1)
		tt_skip(&tw, "valgrind has no seccomp(2)");
	swap_attack("wrapper,kernel", "touch x");
}

/* A client in SBX that sends OUT as its cwd: the command runs in SBX. */
Test(trust_cwd, forged_cwd_is_not_used)
{
	char script[4096];

	tt_need_sandbox(&tw);
	snprintf(script, sizeof(script), "FORGE_CWD=@OUT@ %s 0 %s touch x; echo \"status $?\"",
	    tw.forge, tc_which("touch"));
	run_sandboxed("wrapper", "cat > @OUT@/req.json; echo '{\"decision\": \"escalate\"}'",
	    script);
	cr_assert(!th_exists(tw.out, "x"), "the forged cwd was used: %s", r.err);
	cr_assert(th_exists(tw.sbx, "x"), "x not made in the caller's cwd: %s\n%s", r.out, r.err);
	cr_assert_str_eq(r.out, "status 0\n", "%s", r.err);
}

/* A cwd the sandbox cannot write is said to be so. */
Test(trust_cwd, cwd_not_writable)
{
	char *req, path[4096];

	tt_need_sandbox(&tw);
	run_sandboxed("wrapper", "cat > @OUT@/req.json; echo '{\"decision\": \"escalate\"}'",
	    "cd / && G uname > /dev/null; echo \"status $?\"");
	cr_assert_str_eq(r.out, "status 0\n", "%s", r.err);
	cr_assert_not_null(req = th_read_file(fill(path, sizeof(path), "@OUT@/req.json"), NULL));
	cr_assert_not_null(strstr(req, "\"cwd\":\"/\""), "%s", req);
	cr_assert_not_null(strstr(req, "\"cwd_writable\":false"), "%s", req);
	free(req);
}

/*
 * A repository that is a writable root: REPO, the suite's own (git runs
 * nothing in a repository another uid owns), open to u, with a
 * .git/config u may write: only the read-only .git stops it.
 */
static char *
git_repo(void)
{
	char cmd[4200], path[4200];
	char *repo = th_tmpdir();

	snprintf(cmd, sizeof(cmd), "git init -q %s", repo);
	if (access("/usr/bin/git", X_OK) != 0 || system(cmd) != 0) {
		th_rmtree(repo);
		tt_skip(&tw, "needs git");
	}
	cr_assert_eq(chmod(repo, 0777), 0);
	snprintf(path, sizeof(path), "%s/.git/config", repo);
	cr_assert_eq(chmod(path, 0666), 0);
	return repo;
}

#define FSMONITOR_SCRIPT						\
	"cd %s && printf '[core]\\n\\tfsmonitor = \"touch @OUT@/pwned; false\"\\n' "	\
	">> .git/config; echo \"write $?\"; G git status > /dev/null 2>&1; echo \"status $?\""

Test(trust_cwd, git_fsmonitor_is_not_run_outside)
{
	char script[4096], w[4200];
	char *repo, *req;

	tt_need_sandbox(&tw);
	repo = git_repo();
	snprintf(script, sizeof(script), FSMONITOR_SCRIPT, repo);
	snprintf(w, sizeof(w), "--writable=%s", repo);
	run_sandboxed_in("wrapper", "cat > @OUT@/req.json; echo '{\"decision\": \"escalate\"}'",
	    script, (const char *const[]){ w, NULL });
	th_rmtree(repo);
	cr_assert(!th_exists(tw.out, "pwned"), "the sandbox's fsmonitor ran outside: %s", r.err);
	cr_assert_str_eq(r.out, "write 1\nstatus 0\n", "%s", r.err);
	cr_assert_not_null(req = th_read_file(fill(w, sizeof(w), "@OUT@/req.json"), NULL));
	cr_assert_not_null(strstr(req, "\"cwd_writable\":true"), "%s", req);
	free(req);
}

/* --writable-git: the user's choice, the .git is the sandbox's to write. */
Test(trust_cwd, writable_git_opts_out)
{
	char script[4096], w[4200];
	char *repo;

	tt_need_sandbox(&tw);
	repo = git_repo();
	snprintf(script, sizeof(script), "cd %s && echo x >> .git/config; echo \"write $?\"",
	    repo);
	snprintf(w, sizeof(w), "--writable=%s", repo);
	run_sandboxed_in("wrapper", "echo '{\"decision\": \"deny\"}'", script,
	    (const char *const[]){ w, "--writable-git", NULL });
	th_rmtree(repo);
	cr_assert_str_eq(r.out, "write 0\n", "%s", r.err);
}
