/*
 * test-kernel-exact.c: suite kernel_exact -- what the kernel layer lets
 * run is exactly what was decided, whatever way the exec names it.
 *
 * An exec through int $0x80 from a 64-bit program is an i386 system call:
 * the kernel uses the low 32 bits of each register and 32-bit pointers,
 * while seccomp reports the registers whole; the server reads the exec as
 * the kernel will (int80-exec).  A script's interpreter runs with the
 * words of its #! lines, the script's name and its argv, and nothing
 * else.  #! chains are followed as deep as the kernel follows them.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/cli.h"

static const char rules[] =
    "prefix_rule(pattern=[\"ok\"], decision=\"run\")\n"
    "prefix_rule(pattern=[\"top\"], decision=\"run\")\n"
    "prefix_rule(pattern=[\"touch\"], decision=\"run\")\n"
    "prefix_rule(pattern=[\"sh\", \"-c\"], decision=\"deny\", justification=\"no sh -c\")\n";

TC_SUITE(kernel_exact, rules);

/* shellesc run -p t.rules --mode MODE --default deny -- argv... */
static void
xrun(const char *mode, char *const argv[])
{
	char *args[32] = { "run", "-p", "t.rules", "--mode", (char *)mode, "--default", "deny",
	    "--" };
	size_t n = 8;

	for (size_t i = 0; argv[i] && n < 31; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	tc_run(&t, &r, NULL, args);
}

/* An executable file name in the test's directory, holding text. */
static const char *
xscript(const char *name, const char *text)
{
	const char *path = tc_file(&t, name, text);

	cr_assert_eq(chmod(path, 0755), 0);
	return path;
}

static void
need_int80(void)
{
#if !defined(__x86_64__) || defined(__ILP32__)
	TC_SKIP(&t, &r, "int $0x80 from a 64-bit program is x86-64's");
#endif
}

/* Control: the same exec, its registers' upper halves clear, runs. */
Test(kernel_exact, int80_exec_runs)
{
	const char *ok = xscript("ok", "#!/bin/sh\n: > \"$1\"\n");

	need_int80();
	xrun("preload,kernel", TS_V(TEST_INT80_EXEC, (char *)ok, "ok", (char *)tc_path(&t, "made")));
	if (tc_code(&r) == 77)
		TC_SKIP(&t, &r, "no ia32 emulation or no memory below 4 GiB here");
	cr_assert_eq(tc_code(&r), 0, "%s%s", r.out, r.err);
	cr_assert(tc_exists(&t, "made"), "%s", r.err);
}

/*
 * The registers name the allowed script "ok" 4 GiB higher and, in their
 * low halves, sh -c CODE ok made: the interpreter ok names, ending with
 * ok's name and argv.  Read whole, the exec is "ok made" and runs, and
 * the kernel runs sh -c, which the rules deny.
 */
Test(kernel_exact, int80_upper_halves_cannot_hide_the_exec)
{
	const char *ok = xscript("ok", "#!/bin/sh\nexit 0\n");
	char code[512];

	need_int80();
	snprintf(code, sizeof(code), ": > %s", tc_path(&t, "pwned"));
	xrun("preload,kernel", TS_V(TEST_INT80_EXEC, "/bin/sh", "sh", "-c", code, (char *)ok,
	    "made", "--", (char *)ok, "ok", "made"));
	if (tc_code(&r) == 77)
		TC_SKIP(&t, &r, "no ia32 emulation or no memory below 4 GiB here");
	cr_assert_not(tc_exists(&t, "pwned"), "sh -c ran: %s%s", r.out, r.err);
	cr_assert_eq(tc_code(&r), 99, "%s%s", r.out, r.err);
	cr_assert_str_eq(r.out, "ret=-1 errno=13\n", "%s", r.err);
	cr_assert_not_null(strstr(r.err, "no sh -c"), "%s", r.err);
}

/* Whether this kernel runs a 32-bit x86 program at all: where i386
 * emulation is off (ia32_emulation=0), exec32 fails with ENOEXEC. */
static bool
runs32(void)
{
	pid_t pid = fork();
	int status;

	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl(TEST_EXEC32, "exec32", (char *)NULL);
		_exit(errno == ENOEXEC ? 77 : 127);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return !(WIFEXITED(status) && WEXITSTATUS(status) == 77);
}

/* A real 32-bit program's own execs (exec32): decided as a 64-bit one's. */
static void
run32(const char *prog, const char *name)
{
	if (!runs32())
		TC_SKIP(&t, &r, "this kernel runs no 32-bit x86 program (ia32 emulation is off)");
	xrun("wrapper,kernel", TS_V(TEST_EXEC32, (char *)tc_which(prog), (char *)prog,
	    (char *)tc_path(&t, name)));
	if (tc_code(&r) == 77)
		TC_SKIP(&t, &r, "no 32-bit x86 program can be built or run here");
}

Test(kernel_exact, real_32bit_program_exec_runs)
{
	run32("touch", "made");
	cr_assert_eq(tc_code(&r), 0, "%s%s", r.out, r.err);
	cr_assert(tc_exists(&t, "made"), "%s", r.err);
}

Test(kernel_exact, real_32bit_program_exec_denied)
{
	tc_file(&t, "victim", "x");
	run32("rm", "victim");
	cr_assert_eq(tc_code(&r), 99, "%s%s", r.out, r.err);
	cr_assert(tc_exists(&t, "victim"), "rm ran: %s", r.err);
}

/* --- #! chains ---------------------------------------------------------- */

/*
 * A chain of n scripts, top -> c<n-2> -> ... -> c0 -> /bin/sh, c0 touching
 * its last argument; run by raw-exec (no preload), so the layer decides it.
 */
static void
chain_run(int n)
{
	char name[16], line[512];

	xscript("c0", "#!/bin/sh\nfor a; do :; done; : > \"$a\"\n");
	for (int i = 1; i < n; i++) {
		snprintf(name, sizeof(name), "c%d", i - 1);
		snprintf(line, sizeof(line), "#!%s\n", tc_path(&t, name));
		snprintf(name, sizeof(name), "c%d", i);
		xscript(i == n - 1 ? "top" : name, line);
	}
	xrun("wrapper,kernel", TS_V(TEST_RAW_EXEC_STATIC, "syscall", (char *)tc_path(&t, "top"),
	    "top", (char *)tc_path(&t, "made")));
}

/* Three scripts: the kernel runs them; the layer once killed it. */
Test(kernel_exact, script_chain_of_three_runs)
{
	chain_run(3);
	cr_assert_eq(tc_code(&r), 0, "%s%s", r.out, r.err);
	cr_assert(tc_exists(&t, "made"), "%s", r.err);
}

/* Five: the deepest the kernel runs (exec_binprm, fs/exec.c). */
Test(kernel_exact, script_chain_as_deep_as_the_kernel_runs)
{
	chain_run(5);
	cr_assert_eq(tc_code(&r), 0, "%s%s", r.out, r.err);
	cr_assert(tc_exists(&t, "made"), "%s", r.err);
}

/* Six: the kernel's exec fails (ELOOP), as it does without the layer. */
Test(kernel_exact, script_chain_past_the_kernel_fails_as_without)
{
	chain_run(6);
	cr_assert_eq(tc_code(&r), 99, "%s%s", r.out, r.err);
	cr_assert_str_eq(r.out, "ret=-1 errno=40\n", "%s", r.err);
	cr_assert_not(tc_exists(&t, "made"));
}
