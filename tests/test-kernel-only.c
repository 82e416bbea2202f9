/*
 * test-kernel-only.c: suite kernel_only -- --mode kernel, the kernel layer
 * alone: a process in the session sees nothing of shellesc (no
 * SHELLESC_* variable, no LD_PRELOAD or EXEC_WRAPPER, no fd of the
 * session, even to a Python child started with close_fds and pass_fds),
 * and every exec is decided all the same: bash's, a static program's and
 * a Go program's rm denied with the reason on stderr (exec: in its
 * result), id escalated and run outside through the wrapper as proxy.
 * And the default mode: a program only its kernel layer catches (static)
 * runs, its rm denied, where -m preload refuses it naming the modes that
 * would catch it.  An embedder's session with SHELLESC_INTERCEPT_KERNEL
 * has no overlay and no client fd.  Before, "-m kernel" alone was refused,
 * the library had no such flag, and the default mode refused a static
 * program.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/cli.h"
#include "helpers/session.h"

static const char rules[] =
    "prefix_rule(pattern=[\"rm\"], decision=\"deny\", justification=\"no removing\")\n"
    "prefix_rule(pattern=[\"id\"], decision=\"escalate\")\n";

TC_SUITE(kernel_only, rules);

/* shellesc run -p t.rules [-m MODE] --default run -a audit.log -- argv... */
static void
ko_run(const char *mode, char *const argv[])
{
	char *args[32] = { "run", "-p", "t.rules", "--default", "run", "-a", "audit.log" };
	size_t n = 7;

	if (mode) {
		args[n++] = "-m";
		args[n++] = (char *)mode;
	}
	args[n++] = "--";
	for (size_t i = 0; argv[i] && n < 31; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	tc_run(&t, &r, NULL, args);
}

/* shellesc exec -p t.rules -m kernel --default run -c cmd: its output. */
static const char *
ko_exec(const char *cmd)
{
	json_t *j;

	tc_run(&t, &r, NULL, TS_V("exec", "-p", "t.rules", "-m", "kernel", "--default", "run",
	    "-c", (char *)cmd));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	j = tc_json(&t, r.out);
	return tc_jstr(j, "output");
}

/* No line of env's output names shellesc. */
static void
ko_assert_env_clean(const char *env)
{
	static const char *const ours[] = { "SHELLESC_", "LD_PRELOAD=", "EXEC_WRAPPER=" };

	for (const char *l = env; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : "")
		for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
			cr_assert_neq(strncmp(l, ours[i], strlen(ours[i])), 0,
			    "the session shows in its environment:\n%s", env);
	cr_assert_not_null(strstr(env, "PATH="), "%s", env);
}

Test(kernel_only, run_environment_names_nothing_of_shellesc)
{
	ko_run("kernel", TS_V("/usr/bin/env"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	ko_assert_env_clean(r.out);
}

Test(kernel_only, exec_environment_names_nothing_of_shellesc)
{
	ko_assert_env_clean(ko_exec("/usr/bin/env"));
}

/* The fds a process of ours passes on to its children: "[0, 1, 2, ...]",
 * those of ours without close-on-exec (the test runner's own). */
static void
ko_inherited(char *buf, size_t size)
{
	size_t n = (size_t)snprintf(buf, size, "[0, 1, 2");

	for (int fd = 3; fd < 1024 && n < size; fd++) {
		int f = fcntl(fd, F_GETFD);

		if (f >= 0 && !(f & FD_CLOEXEC))
			n += (size_t)snprintf(buf + n, size - n, ", %d", fd);
	}
	snprintf(buf + n, size - n, "]\n");
}

/* Python: the open fds below 1024, as a list. */
#define KO_PY_FDS							\
	"import fcntl\n"						\
	"fds = []\n"							\
	"for fd in range(1024):\n"					\
	"    try:\n"							\
	"        fcntl.fcntl(fd, fcntl.F_GETFD)\n"			\
	"        fds.append(fd)\n"					\
	"    except OSError:\n"						\
	"        pass\n"						\
	"print(fds)\n"

/* What a process in the session has open is what shellesc inherited: no
 * fd of the session's. */
Test(kernel_only, run_process_has_no_fd_of_the_session)
{
	char want[512];

	ko_inherited(want, sizeof(want));
	ko_run("kernel", TS_V("python3", "-c", KO_PY_FDS));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, want, "%s", r.err);
}

/* A child started with close_fds=True and pass_fds=(w,): exactly
 * {0, 1, 2, w}.  With the preload (the control) the session's fd is
 * there too: the preload keeps it for its own questions. */
static const char py_pass_fds[] =
    "import os, subprocess, sys\n"
    "r, w = os.pipe()\n"
    "code = " "'''" KO_PY_FDS "'''\n"
    "subprocess.Popen([sys.executable, '-c', code], close_fds=True, pass_fds=(w,)).wait()\n"
    "print(w)\n";

static void
ko_pass_fds(const char *mode, bool exact)
{
	char want[64];
	const char *nl;
	int w;

	ko_run(mode, TS_V("python3", "-c", (char *)py_pass_fds));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	nl = strchr(r.out, '\n');
	cr_assert(nl != NULL && (w = atoi(nl + 1)) > 2, "%s", r.out);
	snprintf(want, sizeof(want), "[0, 1, 2, %d]\n", w);
	if (exact)
		cr_assert_eq(strncmp(r.out, want, strlen(want)), 0, "%s / %s", r.out, want);
	else	/* more than them */
		cr_assert_eq(strncmp(r.out, want, strlen(want) - 2), 0, "%s", r.out);
	if (!exact)
		cr_assert_eq(r.out[strlen(want) - 2], ',', "%s", r.out);
}

Test(kernel_only, python_close_fds_child_sees_only_what_it_passed)
{
	ko_pass_fds("kernel", true);
}

Test(kernel_only, python_close_fds_child_sees_the_preload_session)
{
	TC_NEED_PRELOAD(&t, &r);
	ko_pass_fds("preload", false);
}

/* victim made, then argv (rm'ing it) under --mode mode: denied, said. */
static void
ko_rm_denied(const char *mode, char *const argv[])
{
	tc_file(&t, "victim", "x");
	ko_run(mode, argv);
	cr_assert(tc_exists(&t, "victim"), "rm ran: %s", r.err);
	cr_assert_not_null(strstr(r.err, "execution denied: no removing"), "%s", r.err);
	cr_assert_not_null(strstr(r.err, "caught by the kernel layer"), "%s", r.err);
}

Test(kernel_only, bash_rm_denied)
{
	ko_rm_denied("kernel", TS_V("bash", "-c", "rm victim; echo rm: $?"));
	cr_assert_str_eq(r.out, "rm: 126\n", "%s", r.err);
}

Test(kernel_only, static_program_rm_denied)
{
	ko_rm_denied("kernel", TS_V(TEST_RAW_EXEC_STATIC, "syscall", (char *)tc_which("rm"), "rm",
	    "victim"));
	cr_assert_eq(tc_code(&r), 99, "%s", r.err);
	cr_assert_str_eq(r.out, "ret=-1 errno=13\n");
}

/* Go's os/exec: clone and a raw execve from a static binary. */
static const char go_rm[] =
    "package main\n"
    "import (\"fmt\"; \"os\"; \"os/exec\")\n"
    "func main() {\n"
    "\tif err := exec.Command(\"/bin/rm\", \"victim\").Run(); err != nil {\n"
    "\t\tfmt.Println(err)\n"
    "\t\tos.Exit(3)\n"
    "\t}\n"
    "}\n";

Test(kernel_only, go_program_rm_denied, .timeout = 300)
{
	th_go_build(tc_path(&t, "."), "gorm", go_rm);
	ko_rm_denied("kernel", TS_V((char *)tc_path(&t, "gorm")));
	cr_assert_eq(tc_code(&r), 3, "%s%s", r.out, r.err);
	cr_assert_not_null(strstr(r.out, "permission denied"), "%s", r.out);
}

/* exec: the denial is in its result, with its reason. */
Test(kernel_only, exec_rm_denied_in_the_result)
{
	const char *out;

	tc_file(&t, "victim", "x");
	out = ko_exec("rm victim; echo rm: $?");
	cr_assert(tc_exists(&t, "victim"), "rm ran: %s", r.err);
	cr_assert_not_null(strstr(out, "rm: 126"), "%s", out);
	cr_assert_not_null(strstr(r.out, "\"intercept\":\"kernel\""), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "\"reason\":\"no removing\""), "%s", r.out);
}

/* How many audit lines are escalated commands' ends. */
static size_t
ko_audited_ends(void)
{
	char *log = tc_read(&t, "audit.log");
	size_t n, k = 0;
	json_t **ev;

	cr_assert_not_null(log);
	ev = tc_json_lines(&t, log, &n);
	free(log);
	for (size_t i = 0; i < n; i++)
		k += strcmp(tc_jstr(ev[i], "event"), "end") == 0;
	return k;
}

/* Escalated: bash's id is run by the server, outside; the wrapper it was
 * made to exec finds its stream without any session variable. */
Test(kernel_only, escalated_id_runs_outside)
{
#if !defined(__x86_64__)
	TC_SKIP(&t, &r, "--mode kernel escalates on x86-64 only");
#endif
	ko_run("kernel", TS_V("bash", "-c", "id -u; echo id: $?"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_eq(atoi(r.out), (int)getuid(), "%s / %s", r.out, r.err);
	cr_assert_not_null(strstr(r.out, "id: 0\n"), "%s / %s", r.out, r.err);
	cr_assert_eq(ko_audited_ends(), 1, "%s", r.err);
}

/* The default mode: a static program's execs are its kernel layer's to
 * decide, so it runs (before: refused, "would gate nothing"). */
Test(kernel_only, default_mode_runs_a_static_program)
{
	ko_rm_denied(NULL, TS_V(TEST_RAW_EXEC_STATIC, "syscall", (char *)tc_which("rm"), "rm",
	    "victim"));
	cr_assert_eq(tc_code(&r), 99, "%s", r.err);
	cr_assert_str_eq(r.out, "ret=-1 errno=13\n");
}

/* -m preload still refuses it, and names the modes that catch it. */
Test(kernel_only, preload_mode_refusal_names_the_modes)
{
	ko_run("preload", TS_V(TEST_RAW_EXEC_STATIC, "syscall", "/bin/true", "true"));
	cr_assert_eq(tc_code(&r), 125, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "--mode preload cannot see the execs of this program: "
	    "use the default mode or --mode kernel"), "%s", r.err);
}

/* Where the layer cannot be had (inside a session that has it), the
 * default mode does not run the static program ungated. */
Test(kernel_only, default_mode_without_the_layer_refuses_a_static_program)
{
	char self[] = TEST_SHELLESC;

	tc_file(&t, "victim", "x");
	ko_run("wrapper,kernel", TS_V(self, "run", "-p", "t.rules", "--", TEST_RAW_EXEC_STATIC, "syscall",
	    (char *)tc_which("rm"), "rm", "victim"));
	cr_assert_neq(tc_code(&r), 0, "%s", r.err);
	cr_assert(tc_exists(&t, "victim"), "rm ran: %s", r.err);
	cr_assert_null(strstr(r.out, "ret="), "the static program ran: %s", r.out);
	cr_assert_not_null(strstr(r.err, "seccomp filter"), "%s", r.err);
}

/* An embedder: SHELLESC_INTERCEPT_KERNEL gives no overlay and no client
 * socket; its shell, in a sandbox with the exec notification, has no fd
 * but 0, 1 and 2, and its rm is denied. */
Test(kernel_only, embedder_session_shows_nothing)
{
	struct tpol tp = { .action = SHELLESC_RUN, .deny_name = "rm", .reason = "no removing" };
	struct shellesc_config cfg = { .intercept = SHELLESC_INTERCEPT_KERNEL };
	struct shellesc_sandbox_config sc = { .flags = SHELLESC_SANDBOX_EXEC_NOTIFY };
	char *env[] = { "PATH=/usr/bin:/bin", NULL };
	struct shellesc_sandbox_fault why;
	struct shellesc_sandbox *sb;
	struct shellesc_session *s;
	struct shellesc_exec_result res;

	if (th_slowdown() > 1)		/* under valgrind */
		cr_skip_test("valgrind has no seccomp(2): the session cannot take a listener");
	cr_assert_eq(shellesc_sandbox_new(&sc, &sb, &why), 0, "step %d", (int)why.step);
	s = ts_start(&tp, &cfg);
	cr_assert_null(shellesc_session_env(s)[0], "overlay: %s", shellesc_session_env(s)[0]);
	cr_assert_eq(shellesc_session_client_fd(s), -1);
	tc_file(&t, "victim", "x");
	cr_assert_eq(shellesc_session_exec(s, &(struct shellesc_exec_params){
	    .command = "env; ls /proc/self/fd; rm victim; echo rm: $?", .workdir = t.dir,
	    .env = env, .sandbox = sb }, &res), 0);
	ko_assert_env_clean(res.output);
	cr_assert_not_null(strstr(res.output, "\n0\n1\n2\n3\n"), "%s", res.output);
	cr_assert_null(strstr(res.output, "\n4\n"), "%s", res.output);
	cr_assert_not_null(strstr(res.output, "rm: 126\n"), "%s", res.output);
	cr_assert(tc_exists(&t, "victim"));
	ts_end(s, &tp);
	shellesc_sandbox_free(sb);
	shellesc_exec_result_free(&res);
}

static void
ko_policy(void *arg, struct shellesc_request *req)
{
	(void)arg;
	(void)req;
}

/* The kernel layer alone goes with neither the preload nor the wrapper. */
Test(kernel_only, embedder_kernel_with_another_layer_refused)
{
	struct shellesc_config cfg = { .policy = ko_policy,
	    .intercept = SHELLESC_INTERCEPT_KERNEL | SHELLESC_INTERCEPT_PRELOAD };
	struct shellesc_session *s = NULL;

	cr_assert_eq(shellesc_session_start(&cfg, &s), -EINVAL);
	cr_assert_null(s);
}
