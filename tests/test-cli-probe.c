/*
 * test-cli-probe.c: suite cli_probe -- shellesc run refuses (125) a
 * session whose mode cannot catch PROGRAM's execs, says what to do, and
 * runs it anyway with --force: Debian's stock bash in wrapper mode, a
 * preload that is not a loadable library for PROGRAM (not ELF, another
 * machine), a statically linked PROGRAM in preload mode.  The default
 * mode (both) keeps working with stock bash: the preload catches it.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/cli.h"

static const char rules[] =
    "prefix_rule(pattern=[\"touch\"], decision=\"deny\")\n";

TC_SUITE(cli_probe, rules);

#define MADE "touch made; echo \"touch: $?\""

static void
expect_err(const char *text)
{
	cr_assert_not_null(strstr(r.err, text), "stderr lacks \"%s\":\n%s", text, r.err);
}

/* The acceptance case: stock bash in wrapper mode gates nothing. */
Test(cli_probe, wrapper_mode_refuses_stock_bash)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "-m", "wrapper", "--",
	    "/bin/bash", "-c", MADE));
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
	expect_err("/bin/bash does not honour EXEC_WRAPPER");
	expect_err("--force");
	expect_err("--mode preload or both");
	cr_assert_str_eq(r.out, "");
	cr_assert_not(tc_exists(&t, "made"), "PROGRAM ran although the session was refused");
}

/* --force: it runs (ungated, as wrapper mode is for it); -v says so. */
Test(cli_probe, force_runs_it)
{
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "-m", "wrapper", "--force", "--",
	    "/bin/bash", "-c", "echo ran"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "ran\n");
	cr_assert_str_eq(r.err, "");
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("run", "-v", "-m", "wrapper", "--force", "--",
	    "/bin/bash", "-c", "true"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	expect_err("--force: /bin/bash may not be gated in this mode");
}

/* The default mode with stock bash: the preload catches it; nothing is said. */
Test(cli_probe, both_mode_stock_bash_is_caught)
{
	TC_NEED_PRELOAD(&t, &r);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "--", "/bin/bash", "-c", MADE));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, "touch: 126\n");
	cr_assert_null(strstr(r.err, "EXEC_WRAPPER"), "%s", r.err);
	cr_assert_not(tc_exists(&t, "made"));
}

/* A preload that is not ELF only makes ld.so print a warning: refused. */
Test(cli_probe, preload_not_elf_refused)
{
	tc_env_set(&t, "SHELLESC_PRELOAD=/etc/passwd");
	for (int both = 0; both < 2; both++) {
		tc_res_free(&r);
		tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "-m", both ? "both" : "preload",
		    "--", "/bin/bash", "-c", MADE));
		cr_assert_eq(tc_code(&r), 125, "%s", r.err);
		expect_err("/etc/passwd: not an ELF file");
		expect_err("--force");
		cr_assert_null(strstr(r.err, "invalid ELF header"), "PROGRAM was started:\n%s", r.err);
		cr_assert_not(tc_exists(&t, "made"));
	}
}

/* The preload built for another machine (its e_machine rewritten). */
Test(cli_probe, preload_other_machine_refused)
{
	const char *copy = tc_path(&t, "other.so");
	char buf[65536];
	int in = open(TEST_PRELOAD, O_RDONLY), out = open(copy, O_WRONLY | O_CREAT, 0644);
	ssize_t n;
	char var[512];

	cr_assert(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	cr_assert_eq(pwrite(out, "\xb7\x00", 2, 18), 2);	/* EM_AARCH64, little-endian */
	close(in);
	close(out);
	snprintf(var, sizeof(var), "SHELLESC_PRELOAD=%s", copy);
	tc_env_set(&t, var);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "-m", "preload", "--",
	    "/bin/bash", "-c", MADE));
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
	expect_err("is built for another architecture");
	cr_assert_not(tc_exists(&t, "made"));
}

/* A script PROGRAM is probed through its #! interpreter. */
Test(cli_probe, script_checked_through_its_interpreter)
{
	const char *script = tc_file(&t, "s.sh", "#!/bin/bash\n" MADE "\n");

	chmod(script, 0755);
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "-m", "wrapper", "--", (char *)script));
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
	expect_err("the interpreter /bin/bash does not honour EXEC_WRAPPER");
	tc_res_free(&r);
	tc_env_set(&t, "SHELLESC_PRELOAD=/etc/passwd");
	tc_run(&t, &r, NULL, TS_V("run", "-p", "t.rules", "-m", "preload", "--", (char *)script));
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
	cr_assert_not(tc_exists(&t, "made"));
}

/* No dynamic loader reads LD_PRELOAD for a static program. */
Test(cli_probe, static_program_refused_in_preload_mode)
{
	tc_run(&t, &r, NULL, TS_V("run", "-m", "preload", "--", TEST_STATIC_PROBE));
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
	expect_err("statically linked");
}

/* A missing preload: said plainly, without steering to wrapper mode. */
Test(cli_probe, missing_preload_message)
{
	tc_env_set(&t, "SHELLESC_PRELOAD=/nonexistent/libshellesc_preload.so");
	tc_run(&t, &r, NULL, TS_V("run", "-m", "preload", "--force", "--", "/bin/bash", "-c", "true"));
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
	expect_err("preload library /nonexistent/libshellesc_preload.so");
	cr_assert_null(strstr(r.err, "--mode wrapper"), "%s", r.err);
}
