/*
 * test-trust-ident.c: suite trust_ident -- the program that is decided is
 * the file that will run, as the server found it, never what the
 * sandboxed side says or names it.  Each test is an attack, run through
 * the real shellesc command:
 *
 *   - a client claiming set-id flags, and a set-gid copy of dash made in
 *     the sandbox, under the "*" setid escalate rule (escape by flags);
 *   - a script called id in the sandbox under a rule escalating id, and a
 *     link called id to a shell (escape by name);
 *   - a symbolic link, a hard link, /dev/fd/3, /proc/self/fd/3, the
 *     dynamic loader run directly, busybox and /bin/rm against deny rules
 *     for rm and /usr/bin/rm (aliases);
 *   - --no-exec-writable: nothing the sandbox wrote runs in place, but
 *     the exact path a rule names; nor a memfd copy of a program, which
 *     is in no directory Landlock sees.
 *
 * The escapes run the sandboxed side as the suite's unprivileged user
 * (tests/helpers/user.h) under --sandbox landlock with a writable SBX,
 * and count as escaped when a file appears in OUT, which Landlock keeps
 * them from writing in place.  Skipped, with the reason, on a kernel
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

TestSuite(trust_ident, .init = tt_suite_init, .fini = tt_suite_fini, .timeout = TC_TIMEOUT);

static bool
escaped(void)
{
	return th_exists(tw.out, "pwned");
}

/* Write SBX/name (mode 0755, u's), with @OUT@ replaced by OUT. */
static const char *
sbx_file(const char *name, const char *text)
{
	return tt_sbx_file(&tw, name, text);
}

/*
 * shellesc run -p RULES --mode MODE -s landlock -w SBX [EXTRA] -- bash -c
 * SCRIPT, the bash (and all it runs) as u, in SBX.  @OUT@ in script is OUT.
 */
static void
run_sandboxed(const char *rules, const char *mode, const char *extra, const char *script)
{
	char cmd[8192];
	const char *at = strstr(script, "@OUT@");

	snprintf(cmd, sizeof(cmd), TC_GATE "cd %s || exit 99; %.*s%s%s", tw.sbx,
	    at ? (int)(at - script) : (int)strlen(script), script, at ? tw.out : "",
	    at ? at + 5 : "");
	tt_run(&tw, (const char *[]){ "run", "--force", "-p", rules, "--mode", mode, "-s",
	    "landlock", "-w", tw.sbx, "-v", extra, NULL }, cmd);
}

#define SETID_RULES "prefix_rule(pattern = [\"*\"], target = [\"setid\"], decision = \"escalate\")\n"
#define PWN_SCRIPT "#!/bin/sh\ntouch @OUT@/pwned\n"

/* The man page's own rule, and a client that claims set-id for a script. */
Test(trust_ident, forged_setid_flag_is_not_believed)
{
	char script[1024];

	tt_need_sandbox(&tw);
	tc_file(&t, "t.rules", SETID_RULES);
	sbx_file("x", PWN_SCRIPT);
	snprintf(script, sizeof(script), "%s 2 ./x x; echo \"status $?\"", tw.forge);
	run_sandboxed(tc_path(&t, "t.rules"), "wrapper", NULL, script);
	cr_assert(!escaped(), "a forged flag escalated the script: %s", r.err);
	cr_assert_str_eq(r.out, "run\nstatus 0\n", "%s", r.err);
}

/* A set-gid copy of dash, made in the sandbox: set-id it is, but the
 * sandbox's own; the preload reports it set-id, rightly. */
Test(trust_ident, setid_copy_in_the_sandbox_is_not_escalated)
{
	tt_need_sandbox(&tw);
	if (tw.preload == NULL)
		tt_skip(&tw, "the preload library is not built");
	TC_NEED_PRELOAD(&t, &r);
	tc_file(&t, "t.rules", SETID_RULES);
	run_sandboxed(tc_path(&t, "t.rules"), "preload", NULL,
	    "cp /bin/dash x && chmod 2755 x && ./x -c 'touch @OUT@/pwned'; echo \"status $?\"");
	cr_assert(!escaped(), "the set-gid copy ran outside: %s", r.err);
	cr_assert_str_eq(r.out, "status 126\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, "could have been written by the sandboxed side"),
	    "%s", r.err);
}

static const char *
demo_rules(void)
{
	return TEST_DEMO_RULES;
}

/* examples/demo.rules escalates id: not any file called id. */
Test(trust_ident, script_named_like_a_rule_is_not_escalated)
{
	tt_need_sandbox(&tw);
	sbx_file("id", PWN_SCRIPT);
	run_sandboxed(demo_rules(), "wrapper", NULL, "G ./id; echo \"status $?\"");
	cr_assert(!escaped(), "SBX/id ran outside: %s", r.err);
	cr_assert_str_eq(r.out, "status 126\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, "beneath the writable directory"), "%s", r.err);
	cr_assert_not_null(strstr(r.err, "only a rule naming this exact path"), "%s", r.err);
}

/* A link called id to a shell does not lend the shell id's rule. */
Test(trust_ident, link_named_like_a_rule_is_not_escalated)
{
	tt_need_sandbox(&tw);
	run_sandboxed(demo_rules(), "wrapper", NULL,
	    "ln -s /bin/sh id && G ./id -c 'touch @OUT@/pwned'; echo \"status $?\"");
	cr_assert(!escaped(), "a link named id escalated sh: %s", r.err);
	/* run in place: Landlock stops the write */
	cr_assert_str_neq(r.out, "status 0\n", "%s", r.err);
}

/* The real id is still escalated, however it is reached. */
Test(trust_ident, the_real_program_is_escalated_through_a_link)
{
	char want[64];

	tt_need_sandbox(&tw);
	run_sandboxed(demo_rules(), "wrapper", NULL,
	    "ln -s /usr/bin/id myid && G ./myid -u; echo \"status $?\"");
	/* shellesc's uid, not the sandboxed side's: it ran outside */
	snprintf(want, sizeof(want), "%ld\nstatus 0\n", (long)geteuid());
	cr_assert_str_eq(r.out, want, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "escalate /usr/bin/id -u"), "%s", r.err);
}

/* A rule naming the exact path in the sandbox escalates that script, and
 * it runs from the very file decided on (/dev/fd/N: it can be changed). */
Test(trust_ident, exact_path_rule_escalates_a_sandbox_script)
{
	char rules[1024];

	tt_need_sandbox(&tw);
	sbx_file("job", "#!/bin/sh\necho \"$0\" >&2; touch @OUT@/pwned\n");
	snprintf(rules, sizeof(rules), "prefix_rule(pattern = [\"%s/job\"], decision = \"escalate\")\n",
	    tw.sbx);
	tc_file(&t, "t.rules", rules);
	run_sandboxed(tc_path(&t, "t.rules"), "wrapper", NULL, "G ./job; echo \"status $?\"");
	cr_assert_str_eq(r.out, "status 0\n", "%s", r.err);
	cr_assert(escaped(), "the rule's own script did not run outside: %s", r.err);
	cr_assert_not_null(strstr(r.err, "/dev/fd/"), "%s", r.err);
}

/* --- aliases against deny rules: as the test's user, no sandbox --------- */

#define RM_RULES "prefix_rule(pattern = [\"rm\"], decision = \"deny\")\n"
#define USR_RM_RULES "prefix_rule(pattern = [\"/usr/bin/rm\"], decision = \"deny\")\n"

/* bash -c "setup; G ALIAS F": F must survive, the exec denied. */
static void
alias_denied(const char *rules, const char *script)
{
	char cmd[4096];

	tc_file(&t, "t.rules", rules);
	tc_file(&t, "F", "keep me\n");
	snprintf(cmd, sizeof(cmd), TC_GATE "%s; echo \"status $?\"", script);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--mode", "wrapper", "--force", "-v", "--",
	    "/bin/bash", "-c", cmd));
	cr_assert(tc_exists(&t, "F"), "rm ran: %s", r.err);
	cr_assert_str_eq(r.out, "status 126\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, "execution denied"), "%s", r.err);
}

Test(trust_ident, symlink_to_rm)
{
	alias_denied(RM_RULES, "ln -s /bin/rm ls && G ./ls F");
}

/*
 * A hard link to the file a rule names.  Linking /usr/bin/rm itself needs
 * root (protected_hardlinks) and /tmp on the same file system; a copy of
 * rm in the test's directory, named by the rule, shows the same anywhere.
 */
Test(trust_ident, hard_link_to_rm)
{
	char rules[1024], *copy = th_path(t.dir, "rm"), *hl = th_path(t.dir, "hl");
	struct stat a, b;

	th_copy_file("/usr/bin/rm", copy, 0755);
	snprintf(rules, sizeof(rules), "prefix_rule(pattern = [\"%s\"], decision = \"deny\")\n",
	    copy);
	alias_denied(rules, "ln rm hl2 && G ./hl2 F");
	tc_res_free(&r);
	if (link("/usr/bin/rm", hl) == 0 && stat("/usr/bin/rm", &a) == 0 && stat(hl, &b) == 0 &&
	    a.st_ino == b.st_ino) {
		alias_denied(RM_RULES, "G ./hl F");
		tc_res_free(&r);
		alias_denied(USR_RM_RULES, "G ./hl F");
	} else
		cr_log_info("/usr/bin/rm itself cannot be linked here (%s)", strerror(errno));
	free(copy);
	free(hl);
}

Test(trust_ident, dev_fd_of_rm)
{
	alias_denied(RM_RULES, "exec 3</bin/rm && G /dev/fd/3 F");
}

Test(trust_ident, proc_self_fd_of_rm)
{
	alias_denied(RM_RULES, "exec 3</bin/rm && G /proc/self/fd/3 F");
}

Test(trust_ident, loader_runs_rm)
{
	char script[512];

	if (tt_loader() == NULL)
		tt_skip(&tw, "no dynamic loader found where glibc puts it");
	snprintf(script, sizeof(script), "G %s /bin/rm F", tt_loader());
	alias_denied(RM_RULES, script);
	tc_res_free(&r);
	/* the program is found after the loader's options */
	snprintf(script, sizeof(script), "G %s --argv0 ls --library-path /nonexistent /bin/rm F",
	    tt_loader());
	alias_denied(USR_RM_RULES, script);
	tc_res_free(&r);
	/* a name the loader would look up in library directories: which file
	 * that is, only the loader knows */
	snprintf(script, sizeof(script), "G %s rm F", tt_loader());
	alias_denied(RM_RULES, script);
	cr_assert_not_null(strstr(r.err, "cannot tell which program it would load"), "%s", r.err);
}

static const char *
busybox(void)
{
	return access("/usr/bin/busybox", X_OK) == 0 ? "/usr/bin/busybox" :
	    access("/bin/busybox", X_OK) == 0 ? "/bin/busybox" : NULL;
}

Test(trust_ident, busybox_rm)
{
	char script[512];

	if (busybox() == NULL)
		tt_skip(&tw, "busybox is not installed");
	snprintf(script, sizeof(script), "G %s rm F", busybox());
	alias_denied(RM_RULES, script);
	tc_res_free(&r);
	snprintf(script, sizeof(script), "ln -s %s rm && G ./rm F", busybox());
	alias_denied(RM_RULES, script);
}

/*
 * A rule pinned to /usr/bin/rm holds for /bin/rm where /bin is a link to
 * usr/bin (merged /usr); elsewhere the same is made with a link of ours.
 */
Test(trust_ident, bin_rm_against_a_usr_bin_rule)
{
	char target[16];
	ssize_t n = readlink("/bin", target, sizeof(target) - 1);

	if (n > 0 && (target[n] = '\0', strcmp(target, "usr/bin") == 0 ||
	    strcmp(target, "/usr/bin") == 0)) {
		cr_log_info("/bin is a link to %s: /bin/rm itself", target);
		alias_denied(USR_RM_RULES, "G /bin/rm F");
	} else {
		cr_log_info("/bin is no link to usr/bin here: a link of the test's");
		alias_denied(USR_RM_RULES, "ln -s /usr/bin bin && G ./bin/rm F");
	}
}

/* --- --no-exec-writable ------------------------------------------------ */

Test(trust_ident, no_exec_writable)
{
	char rules[1024];

	tt_need_sandbox(&tw);
	snprintf(rules, sizeof(rules), "prefix_rule(pattern = [\"%s/allowed\"], decision = \"run\")\n",
	    tw.sbx);
	tc_file(&t, "t.rules", rules);
	sbx_file("allowed", "#!/bin/sh\necho allowed\n");
	sbx_file("other", "#!/bin/sh\necho other\n");
	run_sandboxed(tc_path(&t, "t.rules"), "wrapper", "--no-exec-writable",
	    "cp /usr/bin/rm myrm; G ./myrm -f x; echo \"copy $?\"; G ./allowed; G ./other;"
	    " echo \"other $?\"; G /usr/bin/true; echo \"true $?\"");
	cr_assert_str_eq(r.out, "copy 126\nallowed\nother 126\ntrue 0\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, "Permission denied"), "%s", r.err);
}

/*
 * A memfd is a program the sandbox wrote, though in no directory Landlock
 * sees: a copy of touch fexecve'd from one does not run in place.
 */
static void
memfd_touch(const char *mode, const char *extra)
{
	char script[1024], *probe;

	tt_need_sandbox(&tw);
	if (strcmp(mode, "preload") == 0) {
		if (tw.preload == NULL)
			tt_skip(&tw, "the preload library is not built");
		TC_NEED_PRELOAD(&t, &r);
	}
	probe = tt_reachable(&tw, TEST_EXEC_PROBE);
	tc_file(&t, "t.rules", "");
	snprintf(script, sizeof(script), "%s fexecve-memfd /usr/bin/touch touch made; "
	    "echo \"status $?\"", probe);
	run_sandboxed(tc_path(&t, "t.rules"), mode, extra, script);
	free(probe);
}

static void
memfd_refused(void)
{
	cr_assert_str_eq(r.out, "ret=-1 errno=13\nstatus 99\n", "%s%s", r.out, r.err);
	cr_assert(!th_exists(tw.sbx, "made"), "the memfd ran in place: %s", r.err);
	cr_assert_not_null(strstr(r.err, "no-exec-writable runs nothing"), "%s", r.err);
}

/* The preload names the file "/proc/self/fd"; the kernel layer, the memfd. */
Test(trust_ident, no_exec_writable_memfd)
{
	memfd_touch("preload", "--no-exec-writable");
	memfd_refused();
}

Test(trust_ident, no_exec_writable_memfd_kernel)
{
	memfd_touch("wrapper,kernel", "--no-exec-writable");
	memfd_refused();
}

Test(trust_ident, memfd_by_default)
{
	memfd_touch("preload", NULL);
	cr_assert_str_eq(r.out, "status 0\n", "%s", r.err);
	cr_assert(th_exists(tw.sbx, "made"), "%s", r.err);
}

/* Without it, what the sandbox wrote runs in place (inside the sandbox). */
Test(trust_ident, exec_writable_by_default)
{
	tt_need_sandbox(&tw);
	tc_file(&t, "t.rules", "");
	sbx_file("other", "#!/bin/sh\necho other\n");
	run_sandboxed(tc_path(&t, "t.rules"), "wrapper", NULL, "G ./other");
	cr_assert_str_eq(r.out, "other\n", "%s", r.err);
}

/* exec confines its shell the same way, through its re-execution. */
Test(trust_ident, no_exec_writable_in_exec)
{
	json_t *j;

	if (tc_landlock_abi() < 1)
		tt_skip(&tw, "needs Landlock; this kernel has none");
	tc_file(&t, "t.rules", "");
	tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "--mode", "wrapper", "--no-login",
	    "--output", "split", "-s", "landlock", "--rules-writable", "--no-exec-writable",
	    "-c",
	    TC_GATE "cp /usr/bin/true t && G ./t; echo \"copy $?\"; G /usr/bin/true; echo \"true $?\""));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	j = tc_json(&t, r.out);
	cr_assert_str_eq(tc_jstr(j, "stdout"), "copy 126\ntrue 0\n", "%s", r.out);
}

/*
 * A request that asks for a profile -- "profile": "unsandboxed", a mode,
 * "sandbox_permissions", "writable": ["/"], "network" -- gets what the
 * rules say and no more: no field of a request is read as a profile.
 * Escalated into "network" by the rule, the forged touch still cannot
 * write OUT; decided run by the rule, it is told run.
 */
Test(trust_ident, forged_profile_fields_are_ignored)
{
	char script[1024], *forge;

	tt_need_sandbox(&tw);
	forge = tt_reachable(&tw, TEST_FORGE_PROFILE);
	tc_file(&t, "t.rules", "prefix_rule([\"touch\"], decision = \"escalate\", "
	    "profile = \"network\")\nprefix_rule([\"true\"], decision = \"run\")\n");
	snprintf(script, sizeof(script), "%s \"$(type -P touch)\" touch @OUT@/pwned 2>/dev/null;"
	    " echo \"touch $?\"; %s \"$(type -P true)\" true; echo \"true $?\"", forge, forge);
	run_sandboxed(tc_path(&t, "t.rules"), "wrapper", NULL, script);
	free(forge);
	cr_assert(!escaped(), "a forged profile escaped the sandbox: %s", r.err);
	cr_assert_str_eq(r.out, "touch 1\nrun\ntrue 0\n", "%s", r.err);
}
