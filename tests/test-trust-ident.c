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
 *     the exact path a rule names.
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

#include "helpers/cli.h"
#include "helpers/rules.h"
#include "helpers/user.h"

static struct tc t;
static struct tc_res r;
static struct tu_user u;
static char *sbx, *out;			/* the sandbox's writable root; outside it */
static char *wrapper, *preload, *forge;	/* reachable by u */
static char *env_wrapper, *env_preload;

static char *
reachable(const char *file)
{
	const char *p = tu_reachable(&u, file);

	cr_assert_not_null(p, "%s: %s", file, strerror(errno));
	return strdup(p);
}

/* t.env's entry NAME=... becomes NAME=value (owned by *slot). */
static void
set_env(const char *name, const char *value, char **slot)
{
	size_t n = strlen(name);

	cr_assert(asprintf(slot, "%s=%s", name, value) > 0);
	for (size_t i = 0; t.env[i] != NULL; i++)
		if (strncmp(t.env[i], name, n) == 0 && t.env[i][n] == '=')
			t.env[i] = *slot;
}

static void
setup(void)
{
	const char *why = NULL;

	tc_init(&t, NULL);
	sbx = tr_tmpdir();
	out = tr_tmpdir();
	if (tu_user(&u, &why) != 0)
		return;
	/* u writes in SBX; in OUT only Landlock can stop it */
	cr_assert_eq(chown(sbx, u.uid, u.gid), 0);
	cr_assert_eq(chmod(sbx, 0755), 0);
	cr_assert_eq(chmod(out, 01777), 0);
	wrapper = reachable(TEST_WRAPPER);
	forge = reachable(TEST_FORGE_ASK);
	if (access(TEST_PRELOAD, R_OK) == 0)
		preload = reachable(TEST_PRELOAD);
	set_env("SHELLESC_WRAPPER", wrapper, &env_wrapper);
	if (preload)
		set_env("SHELLESC_PRELOAD", preload, &env_preload);
}

static void
teardown(void)
{
	tr_rmtree(sbx);
	tr_rmtree(out);
	free(wrapper);
	free(preload);
	free(forge);
	free(env_wrapper);
	free(env_preload);
	wrapper = preload = forge = env_wrapper = env_preload = NULL;
	tc_fini(&t, &r);
}

TestSuite(trust_ident, .init = setup, .fini = teardown, .timeout = TC_TIMEOUT);

static void
skip(const char *why)
{
	teardown();
	cr_skip_test("%s", why);
}

/* The sandboxed side needs Landlock and the unprivileged user. */
static void
need_sandbox(void)
{
	const char *why = NULL;

	if (tc_landlock_abi() < 1)
		skip("needs Landlock; this kernel has none");
	if (tu_user(&u, &why) != 0)
		skip(why);
}

static bool
escaped(void)
{
	char *p = tr_path(out, "pwned");
	bool yes = access(p, F_OK) == 0;

	free(p);
	return yes;
}

/* Write SBX/name (mode 0755, u's), with @OUT@ replaced by OUT. */
static const char *
sbx_file(const char *name, const char *text)
{
	static char path[4096];
	char body[4096];
	const char *at = strstr(text, "@OUT@");

	if (at != NULL)
		snprintf(body, sizeof(body), "%.*s%s%s", (int)(at - text), text, out, at + 5);
	else
		snprintf(body, sizeof(body), "%s", text);
	snprintf(path, sizeof(path), "%s/%s", sbx, name);
	tr_write_file(path, body);
	cr_assert_eq(chmod(path, 0755), 0);
	cr_assert_eq(chown(path, u.uid, u.gid), 0);
	return path;
}

/*
 * shellesc run -p RULES --mode MODE -s landlock -w SBX [EXTRA] -- bash -c
 * SCRIPT, the bash (and all it runs) as u, in SBX.  @OUT@ in script is OUT.
 */
static void
run_sandboxed(const char *rules, const char *mode, const char *extra, const char *script)
{
	char cmd[8192], uid[32], gid[32];
	const char *at = strstr(script, "@OUT@");
	char *args[24];
	size_t n = 0;

	snprintf(cmd, sizeof(cmd), TC_GATE "cd %s || exit 99; %.*s%s%s", sbx,
	    at ? (int)(at - script) : (int)strlen(script), script, at ? out : "",
	    at ? at + 5 : "");
	snprintf(uid, sizeof(uid), "--reuid=%ld", (long)u.uid);
	snprintf(gid, sizeof(gid), "--regid=%ld", (long)u.gid);
	for (const char *a[] = { "run", "--force", "-p", rules, "--mode", mode, "-s", "landlock",
	    "-w", sbx, "-v", NULL }, **p = a; *p; p++)
		args[n++] = (char *)*p;
	if (extra)
		args[n++] = (char *)extra;
	args[n++] = "--";
	if (u.created)
		for (const char *a[] = { "/usr/bin/setpriv", uid, gid, "--clear-groups", NULL },
		    **p = a; *p; p++)
			args[n++] = (char *)*p;
	args[n++] = "/bin/bash";
	args[n++] = "-c";
	args[n++] = cmd;
	args[n] = NULL;
	tc_run(&t, &r, NULL, args);
}

#define SETID_RULES "prefix_rule(pattern = [\"*\"], target = [\"setid\"], decision = \"escalate\")\n"
#define PWN_SCRIPT "#!/bin/sh\ntouch @OUT@/pwned\n"

/* The man page's own rule, and a client that claims set-id for a script. */
Test(trust_ident, forged_setid_flag_is_not_believed)
{
	char script[1024];

	need_sandbox();
	tc_file(&t, "t.rules", SETID_RULES);
	sbx_file("x", PWN_SCRIPT);
	snprintf(script, sizeof(script), "%s 2 ./x x; echo \"status $?\"", forge);
	run_sandboxed(tc_path(&t, "t.rules"), "wrapper", NULL, script);
	cr_assert(!escaped(), "a forged flag escalated the script: %s", r.err);
	cr_assert_str_eq(r.out, "run\nstatus 0\n", "%s", r.err);
}

/* A set-gid copy of dash, made in the sandbox: set-id it is, but the
 * sandbox's own; the preload reports it set-id, rightly. */
Test(trust_ident, setid_copy_in_the_sandbox_is_not_escalated)
{
	need_sandbox();
	if (preload == NULL)
		skip("the preload library is not built");
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
	need_sandbox();
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
	need_sandbox();
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

	need_sandbox();
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

	need_sandbox();
	sbx_file("job", "#!/bin/sh\necho \"$0\" >&2; touch @OUT@/pwned\n");
	snprintf(rules, sizeof(rules), "prefix_rule(pattern = [\"%s/job\"], decision = \"escalate\")\n",
	    sbx);
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

/* cp from to, mode 0755. */
static void
copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = tr_read_file(from, &len);
	FILE *f = fopen(to, "w");

	cr_assert_not_null(f, "%s: %s", to, strerror(errno));
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(to, 0755), 0);
	free(data);
}

/*
 * A hard link to the file a rule names.  Linking /usr/bin/rm itself needs
 * root (protected_hardlinks) and /tmp on the same file system; a copy of
 * rm in the test's directory, named by the rule, shows the same anywhere.
 */
Test(trust_ident, hard_link_to_rm)
{
	char rules[1024], *copy = tr_path(t.dir, "rm"), *hl = tr_path(t.dir, "hl");
	struct stat a, b;

	copy_file("/usr/bin/rm", copy);
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

/* The dynamic loader of this machine, from /bin/sh's PT_INTERP-ish
 * candidates; NULL when none is there. */
static const char *
loader(void)
{
	static const char *const cands[] = {
		"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1",
		"/lib/ld-linux-armhf.so.3", "/lib/ld-linux.so.2", "/lib64/ld64.so.2",
		"/lib/ld-linux-riscv64-lp64d.so.1",
	};

	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (access(cands[i], X_OK) == 0)
			return cands[i];
	return NULL;
}

Test(trust_ident, loader_runs_rm)
{
	char script[512];

	if (loader() == NULL)
		skip("no dynamic loader found where glibc puts it");
	snprintf(script, sizeof(script), "G %s /bin/rm F", loader());
	alias_denied(RM_RULES, script);
	tc_res_free(&r);
	/* the program is found after the loader's options */
	snprintf(script, sizeof(script), "G %s --argv0 ls --library-path /nonexistent /bin/rm F",
	    loader());
	alias_denied(USR_RM_RULES, script);
	tc_res_free(&r);
	/* a name the loader would look up in library directories: which file
	 * that is, only the loader knows */
	snprintf(script, sizeof(script), "G %s rm F", loader());
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
		skip("busybox is not installed");
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

	need_sandbox();
	snprintf(rules, sizeof(rules), "prefix_rule(pattern = [\"%s/allowed\"], decision = \"run\")\n",
	    sbx);
	tc_file(&t, "t.rules", rules);
	sbx_file("allowed", "#!/bin/sh\necho allowed\n");
	sbx_file("other", "#!/bin/sh\necho other\n");
	run_sandboxed(tc_path(&t, "t.rules"), "wrapper", "--no-exec-writable",
	    "cp /usr/bin/rm myrm; G ./myrm -f x; echo \"copy $?\"; G ./allowed; G ./other;"
	    " echo \"other $?\"; G /usr/bin/true; echo \"true $?\"");
	cr_assert_str_eq(r.out, "copy 126\nallowed\nother 126\ntrue 0\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, "Permission denied"), "%s", r.err);
}

/* Without it, what the sandbox wrote runs in place (inside the sandbox). */
Test(trust_ident, exec_writable_by_default)
{
	need_sandbox();
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
		skip("needs Landlock; this kernel has none");
	tc_file(&t, "t.rules", "");
	tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "--mode", "wrapper", "--no-login",
	    "--output", "split", "-s", "landlock", "--no-exec-writable", "-c",
	    TC_GATE "cp /usr/bin/true t && G ./t; echo \"copy $?\"; G /usr/bin/true; echo \"true $?\""));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	j = tc_json(&t, r.out);
	cr_assert_str_eq(tc_jstr(j, "stdout"), "copy 126\ntrue 0\n", "%s", r.out);
}
