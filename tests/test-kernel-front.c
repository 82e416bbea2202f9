/*
 * test-kernel-front.c: suite kernel_front -- the kernel layer beyond run:
 * shellesc exec in its default mode, and an embedder whose
 * shellesc_session_exec is given a sandbox built with
 * SHELLESC_SANDBOX_EXEC_NOTIFY, decide the execs no preload or wrapper
 * sees: a static program's, a raw syscall(SYS_execve) and a Go program's
 * os/exec.  Each runs uname, which a deny rule refuses; without the layer
 * all three run it unasked.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/cli.h"
#include "helpers/session.h"

static const char rules[] =
    "prefix_rule(pattern=[\"uname\"], decision=\"deny\", justification=\"no uname here\")\n";

TC_SUITE(kernel_front, rules);

/* The raw-exec programs, each denied its uname: "ret=-1 errno=13" twice. */
#define KF_RAW_UNAME							\
	TEST_RAW_EXEC_STATIC " syscall /bin/uname uname; "		\
	TEST_RAW_EXEC " syscall /bin/uname uname"
#define KF_DENIED "ret=-1 errno=13\nret=-1 errno=13\n"

/* A Go program: os/exec runs uname; its error printed, exit 3. */
static const char go_uname[] =
    "package main\n"
    "\n"
    "import (\n"
    "\t\"fmt\"\n"
    "\t\"os\"\n"
    "\t\"os/exec\"\n"
    ")\n"
    "\n"
    "func main() {\n"
    "\tif err := exec.Command(\"/bin/uname\").Run(); err != nil {\n"
    "\t\tfmt.Println(err)\n"
    "\t\tos.Exit(3)\n"
    "\t}\n"
    "}\n";

/* shellesc exec -p t.rules [-m mode] -c cmd: its JSON's output. */
static const char *
kf_exec_mode(const char *mode, const char *cmd)
{
	json_t *j;

	if (mode)
		tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "-m", (char *)mode, "-c", (char *)cmd));
	else
		tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "-c", (char *)cmd));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	j = tc_json(&t, r.out);
	return tc_jstr(j, "output");
}

/* The same in exec's default mode, the layer's decisions checked. */
static const char *
kf_exec(const char *cmd)
{
	const char *out = kf_exec_mode(NULL, cmd);

	cr_assert_not_null(strstr(r.out, "\"intercept\":\"kernel\""), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "\"reason\":\"no uname here\""), "%s", r.out);
	return out;
}

Test(kernel_front, exec_static_and_raw_syscall_denied)
{
	TC_NEED_PRELOAD(&t, &r);	/* the default mode loads it into bash */
	cr_assert_str_eq(kf_exec(KF_RAW_UNAME), KF_DENIED, "%s", r.out);
}

/* exec takes every mode run takes: with the layer asked for, the static
 * program is decided; with the preload alone (the control) it is not. */
Test(kernel_front, exec_takes_the_modes_of_run)
{
	TC_NEED_PRELOAD(&t, &r);	/* the control is the preload alone */
	cr_assert_str_eq(kf_exec_mode("wrapper,kernel", KF_RAW_UNAME), KF_DENIED, "%s", r.out);
	cr_assert_str_eq(kf_exec_mode("preload", KF_RAW_UNAME), "Linux\nLinux\n", "%s", r.out);
}

Test(kernel_front, exec_go_program_denied, .timeout = 300)
{
	const char *out;

	TC_NEED_PRELOAD(&t, &r);	/* the default mode loads it into bash */
	th_go_build(tc_path(&t, "."), "gouname", go_uname);
	out = kf_exec(tc_path(&t, "gouname"));
	cr_assert_not_null(strstr(out, "permission denied"), "%s", out);
}

/* An embedder: cmd in a session whose shell's sandbox is the kernel layer
 * alone, uname denied; the output of the command. */
static char *
kf_embed(const char *cmd)
{
	struct tpol tp = { .action = SHELLESC_RUN, .deny_name = "uname",
	    .reason = "no uname here" };
	struct shellesc_sandbox_config sc = { .flags = SHELLESC_SANDBOX_EXEC_NOTIFY };
	struct shellesc_sandbox_fault why;
	struct shellesc_sandbox *sb;
	struct shellesc_session *s;
	struct shellesc_exec_result res;
	char *out;

	if (th_slowdown() > 1)		/* under valgrind */
		cr_skip_test("valgrind has no seccomp(2): the session cannot take a listener");
	cr_assert_eq(shellesc_sandbox_new(&sc, &sb, &why), 0, "step %d", (int)why.step);
	s = ts_start(&tp, NULL);
	cr_assert_eq(shellesc_session_exec(s, &(struct shellesc_exec_params){ .command = cmd,
	    .workdir = "/", .sandbox = sb }, &res), 0);
	cr_assert(tp.flags & SHELLESC_ASKED_BY_KERNEL, "the last exec was not the layer's");
	out = strdup(res.output);
	shellesc_exec_result_free(&res);
	ts_end(s, &tp);
	shellesc_sandbox_free(sb);
	return out;
}

Test(kernel_front, embedder_static_and_raw_syscall_denied)
{
	char *out = kf_embed(KF_RAW_UNAME);

	cr_assert_str_eq(out, KF_DENIED);
	free(out);
}

Test(kernel_front, embedder_go_program_denied, .timeout = 300)
{
	char *out;

	th_go_build(tc_path(&t, "."), "gouname", go_uname);
	out = kf_embed(tc_path(&t, "gouname"));
	cr_assert_not_null(strstr(out, "permission denied"), "%s", out);
	free(out);
}
