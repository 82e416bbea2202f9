/*
 * test-kernel.c: suite kernel -- shellesc run with the kernel layer
 * (--mode wrapper,kernel or preload,kernel): every execve and execveat of
 * the session is decided, also those no preload or wrapper sees.  Each
 * exec here runs rm (denied) or touch/sh (run) some other way than
 * through libc's exec functions; without the layer all of them run
 * unasked.  What the layer does not guarantee (a path rewritten by another
 * thread after the check) is in docs/security.md and not tested here.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/cli.h"

static const char rules[] =
    "prefix_rule(pattern=[\"rm\"], decision=\"deny\", justification=\"no removing\")\n"
    "prefix_rule(pattern=[\"touch\"], decision=\"run\")\n"
    "prefix_rule(pattern=[\"sh\"], decision=\"run\")\n"
    "prefix_rule(pattern=[\"true\"], decision=\"run\")\n"
    "prefix_rule(pattern=[\"id\"], decision=\"escalate\")\n";

TC_SUITE(kernel, rules);

/* shellesc run -p t.rules --mode MODE [--default D] -- argv... */
static void
krun(const char *mode, const char *dflt, char *const argv[])
{
	char *args[32] = { "run", "-p", "t.rules", "--mode", (char *)mode, "-a", "audit.log" };
	size_t n = 7;

	if (dflt) {
		args[n++] = "--default";
		args[n++] = (char *)dflt;
	}
	args[n++] = "--";
	for (size_t i = 0; argv[i] && n < 31; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	tc_run(&t, &r, NULL, args);
}

/* victim made, then PROG HOW /bin/rm rm victim under the layer: denied. */
static void
raw_rm(const char *prog, const char *how)
{
	tc_file(&t, "victim", "x");
	krun("wrapper,kernel", NULL, TS_V((char *)prog, (char *)how, (char *)tc_which("rm"), "rm",
	    (char *)tc_path(&t, "victim")));
	cr_assert(tc_exists(&t, "victim"), "rm ran: %s", r.err);
	cr_assert_not_null(strstr(r.err, "no removing"), "%s", r.err);
}

/* The exec failed as a denied one does: EACCES, and the program went on. */
static void
assert_eacces(void)
{
	cr_assert_eq(tc_code(&r), 99, "%s", r.err);
	cr_assert_str_eq(r.out, "ret=-1 errno=13\n");
}

Test(kernel, static_program_raw_execve_denied)
{
	raw_rm(TEST_RAW_EXEC_STATIC, "syscall");
	assert_eacces();
}

Test(kernel, static_program_execveat_denied)
{
	raw_rm(TEST_RAW_EXEC_STATIC, "execveat");
	assert_eacces();
}

Test(kernel, raw_syscall_from_c_denied)
{
	raw_rm(TEST_RAW_EXEC, "syscall");
	assert_eacces();
}

/* Go's way: a CLONE_VM|CLONE_VFORK child on its own stack makes the call. */
Test(kernel, clone_vfork_child_raw_execve_denied)
{
	raw_rm(TEST_RAW_EXEC_STATIC, "vfork");
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "child exit=126\n");
}

/* fexecve of a copy with no path: decided too (here by the default). */
Test(kernel, memfd_copy_decided)
{
	tc_file(&t, "victim", "x");
	krun("wrapper,kernel", "deny", TS_V(TEST_RAW_EXEC, "memfd", (char *)tc_which("rm"), "rm",
	    (char *)tc_path(&t, "victim")));
	assert_eacces();
	cr_assert(tc_exists(&t, "victim"));
}

Test(kernel, python_ctypes_raw_syscall_denied)
{
	static const char py[] =
	    "import ctypes, os, sys\n"
	    "libc = ctypes.CDLL(None, use_errno=True)\n"
	    "argv = (ctypes.c_char_p * 3)(b'rm', sys.argv[2].encode(), None)\n"
	    "libc.syscall(os.SYS_execve if hasattr(os, 'SYS_execve') else 59,\n"
	    "    sys.argv[1].encode(), argv, None)\n"
	    "print('errno=%d' % ctypes.get_errno())\n";

	if (access("/usr/bin/python3", X_OK) != 0)
		TC_SKIP(&t, &r, "no /usr/bin/python3 here");
#if !defined(__x86_64__)
	TC_SKIP(&t, &r, "the script uses x86-64's execve number");
#endif
	tc_file(&t, "victim", "x");
	tc_file(&t, "p.py", py);
	krun("wrapper,kernel", NULL, TS_V("/usr/bin/python3", (char *)tc_path(&t, "p.py"),
	    (char *)tc_which("rm"), (char *)tc_path(&t, "victim")));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "errno=13\n");
	cr_assert(tc_exists(&t, "victim"));
}

/* How many audit lines name this program with this intercept. */
static size_t
audited(const char *name, const char *intercept)
{
	char *log = tc_read(&t, "audit.log");
	json_t **ev;
	size_t n, k = 0;

	cr_assert_not_null(log);
	ev = tc_json_lines(&t, log, &n);
	free(log);
	for (size_t i = 0; i < n; i++) {
		json_t *argv = json_object_get(ev[i], "argv");
		const char *a0 = json_string_value(json_array_get(argv, 0));

		if (a0 && strcmp(a0, name) == 0 &&
		    (intercept == NULL || strcmp(tc_jstr(ev[i], "intercept"), intercept) == 0))
			k++;
	}
	return k;
}

/* Run: the exec goes on, and its status is the caller's. */
Test(kernel, run_keeps_exit_status)
{
	krun("wrapper,kernel", NULL, TS_V(TEST_RAW_EXEC_STATIC, "syscall", "/bin/sh", "sh", "-c",
	    "touch made; exit 7"));
	cr_assert_eq(tc_code(&r), 7, "%s", r.err);
	cr_assert(tc_exists(&t, "made"));
	cr_assert_eq(audited("sh", "kernel"), 1, "%s", r.err);
}

Test(kernel, run_keeps_death_by_signal)
{
	krun("wrapper,kernel", NULL, TS_V(TEST_RAW_EXEC_STATIC, "vfork", "/bin/sh", "sh", "-c",
	    "kill -TERM $$"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "child signal=15\n");
	cr_assert_eq(audited("sh", "kernel"), 1, "%s", r.err);
}

/* Escalate has no client to run it through: refused, saying why. */
Test(kernel, escalate_is_refused_with_reason)
{
	krun("wrapper,kernel", NULL, TS_V(TEST_RAW_EXEC_STATIC, "syscall", (char *)tc_which("id"),
	    "id"));
	assert_eacces();
	cr_assert_not_null(strstr(r.err, "escalation refused: the exec came from a raw system call"),
	    "%s", r.err);
}

/* Execs the preload decided are not asked again (one decision per exec),
 * whether bash execs them itself or through a forked child. */
Test(kernel, preload_decisions_not_asked_twice)
{
	TC_NEED_PRELOAD(&t, &r);
	krun("preload,kernel", NULL, TS_V("bash", "-c", "touch a; touch b & wait; rm a; "
	    "exec true"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert(tc_exists(&t, "a") && tc_exists(&t, "b"));
	cr_assert_eq(audited("touch", NULL), 2, "%s", r.err);
	cr_assert_eq(audited("touch", "kernel"), 0, "%s", r.err);
	cr_assert_eq(audited("rm", "kernel"), 0, "%s", r.err);
	cr_assert_eq(audited("true", "preload"), 1, "%s", r.err);
}

/* The wrapper's execs likewise (a patched shell's way). */
Test(kernel, wrapper_decisions_not_asked_twice)
{
	krun("wrapper,kernel", NULL, TS_V("bash", "-c", TC_GATE "G touch a; G true"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert(tc_exists(&t, "a"));
	cr_assert_eq(audited("touch", "kernel"), 0, "%s", r.err);
	cr_assert_eq(audited("touch", "wrapper"), 1, "%s", r.err);
}

/* Asked for and not to be had (inside a session with the layer already):
 * no session. */
Test(kernel, nested_refused_when_asked)
{
	char self[] = TEST_SHELLESC;

	krun("wrapper,kernel", NULL, TS_V(self, "run", "-m", "wrapper,kernel", "--", "/bin/true"));
	cr_assert_neq(tc_code(&r), 0, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "seccomp filter"), "%s", r.err);
}

/* With "both" the session goes without it, saying which layer is missing. */
Test(kernel, nested_both_falls_back)
{
	char self[] = TEST_SHELLESC;

	TC_NEED_PRELOAD(&t, &r);
	krun("wrapper,kernel", NULL, TS_V(self, "run", "-m", "both", "--", "/bin/true"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "the kernel layer is missing (this session runs inside "
	    "another"), "%s", r.err);
}
