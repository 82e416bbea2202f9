/*
 * test-trust-exec.c: suite trust_exec -- what is decided is what the
 * kernel and the program will do, not what the exec's file and argv[1..]
 * look like.  Each test is an attack, run through the real shellesc
 * command with the sandboxed side as the suite's unprivileged user
 * (tests/helpers/user.h) under --sandbox landlock with a writable SBX:
 *
 *   - argv[0]: git called "git-archive" with "status" as its first
 *     argument, under a rule escalating "git status", runs "git archive
 *     --exec=SBX/evil.sh" if escalated as called;
 *   - #!: a script whose #! line names /bin/rm (or the dynamic loader
 *     with /bin/rm as its argument), under a rule forbidding rm, runs rm
 *     on its arguments unless the chain is decided.
 *
 * Skipped, with the reason, on a kernel without Landlock.
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

TestSuite(trust_exec, .init = tt_suite_init, .fini = tt_suite_fini, .timeout = TC_TIMEOUT);

/* Write SBX/name (mode 0755, u's), with @OUT@ replaced by OUT. */
static const char *
sbx_file(const char *name, const char *text)
{
	return tt_sbx_file(&tw, name, text);
}

/* shellesc run -p RULES --mode MODE -s landlock -w SBX -- bash -c SCRIPT,
 * the bash (and all it runs) as u, in SBX.  @SBX@ in script is SBX. */
static void
run_sandboxed(const char *rules, const char *mode, const char *script)
{
	char cmd[8192];
	const char *at = strstr(script, "@SBX@");

	snprintf(cmd, sizeof(cmd), TC_GATE "cd %s || exit 99; %.*s%s%s", tw.sbx,
	    at ? (int)(at - script) : (int)strlen(script), script, at ? tw.sbx : "",
	    at ? at + 5 : "");
	tt_run(&tw, (const char *[]){ "run", "--force", "-p", rules, "--mode", mode, "-s",
	    "landlock", "-w", tw.sbx, "-v", NULL }, cmd);
}

#define GIT_RULES \
	"host_executable(name = \"git\", paths = [\"/usr/bin/git\"])\n" \
	"prefix_rule(pattern = [\"git\", \"status\"], decision = \"escalate\")\n"

/* Issue 24, item 1: argv[0] picks what git does. */
Test(trust_exec, git_called_git_archive_is_not_a_git_status)
{
	tt_need_sandbox(&tw);
	if (access("/usr/bin/git", X_OK) != 0)
		tt_skip(&tw, "git is not installed");
	sbx_file("evil.sh", "#!/bin/sh\ntouch @OUT@/pwned\n");
	tc_file(&t, "t.rules", GIT_RULES);
	run_sandboxed(tc_path(&t, "t.rules"), "wrapper",
	    "\"$EXEC_WRAPPER\" /usr/bin/git git-archive status --remote=x --exec=@SBX@/evil.sh"
	    " >/dev/null 2>&1; echo \"status $?\"");
	cr_assert(!th_exists(tw.out, "pwned"), "git-archive ran outside: %s", r.err);
	cr_assert_null(strstr(r.err, "escalate /usr/bin/git"), "%s", r.err);
}

/* The rule still escalates git status, however argv[0] spells git. */
Test(trust_exec, git_status_is_still_escalated)
{
	tt_need_sandbox(&tw);
	if (access("/usr/bin/git", X_OK) != 0)
		tt_skip(&tw, "git is not installed");
	tc_file(&t, "t.rules", GIT_RULES);
	run_sandboxed(tc_path(&t, "t.rules"), "wrapper",
	    "\"$EXEC_WRAPPER\" /usr/bin/git /x/git status --porcelain=v9 2>/dev/null;"
	    " echo \"status $?\"");
	cr_assert_not_null(strstr(r.err, "escalate /usr/bin/git status"), "%s", r.err);
}

#define RM_RULES "prefix_rule(pattern = [\"rm\"], decision = \"forbidden\")\n"

/* SBX/s with the #! line shebang, run on SBX/F in mode by how: F must
 * survive, the exec denied (want: what the script prints). */
static void
shebang_denied(const char *mode, const char *shebang, const char *how, const char *want)
{
	char text[512];

	snprintf(text, sizeof(text), "%s\n", shebang);
	sbx_file("s", text);
	sbx_file("F", "keep me\n");
	tc_file(&t, "t.rules", RM_RULES);
	run_sandboxed(tc_path(&t, "t.rules"), mode, how);
	cr_assert(th_exists(tw.sbx, "F"), "%s ran rm in %s mode: %s", shebang, mode, r.err);
	cr_assert_str_eq(r.out, want, "%s: %s", mode, r.err);
	tc_res_free(&r);
}

/* Issue 24, item 10: a #! line names a denied program. */
static void
shebang_modes(const char *shebang)
{
	char how[4200];

	shebang_denied("wrapper", shebang, "G ./s F; echo \"status $?\"", "status 126\n");
	if (tw.preload == NULL)
		return;
	shebang_denied("preload", shebang, "./s F; echo \"status $?\"", "status 126\n");
	/* a raw execve, which only the kernel layer sees */
	snprintf(how, sizeof(how), "%s syscall ./s s F; echo \"status $?\"", tw.raw);
	if (tw.raw != NULL)
		shebang_denied("preload,kernel", shebang, how, "ret=-1 errno=13\nstatus 99\n");
}

Test(trust_exec, shebang_naming_rm)
{
	tt_need_sandbox(&tw);
	TC_NEED_PRELOAD(&t, &r);
	shebang_modes("#!/bin/rm -f");
}

Test(trust_exec, shebang_naming_the_loader_with_rm)
{
	char line[256];

	tt_need_sandbox(&tw);
	TC_NEED_PRELOAD(&t, &r);
	if (tt_loader() == NULL)
		tt_skip(&tw, "no dynamic loader found where glibc puts it");
	snprintf(line, sizeof(line), "#!%s /bin/rm", tt_loader());
	shebang_modes(line);
}

/* An escalated command gets the program's own name as argv[0], unless
 * the rule that escalates it lists the caller's (argv0 = [...]). */
Test(trust_exec, escalated_argv0)
{
	char rules[1024], cmd[1024];

	snprintf(rules, sizeof(rules),
	    "prefix_rule(pattern = [\"%s\", \"a\"], decision = \"escalate\")\n"
	    "prefix_rule(pattern = [\"%s\", \"b\"], decision = \"escalate\", argv0 = [\"kept\"])\n",
	    TEST_ARGV_DUMP, TEST_ARGV_DUMP);
	tc_file(&t, "t.rules", rules);
	snprintf(cmd, sizeof(cmd), "for w in a b; do \"$EXEC_WRAPPER\" %s kept $w | tr '\\0' ' ';"
	    " echo; done", TEST_ARGV_DUMP);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-v",
	    "--", "/bin/bash", "-c", cmd));
	cr_assert_str_eq(r.out, "argv-dump a \nkept b \n", "%s", r.err);
}
