/*
 * test-preload-programs.c: suite preload_programs -- real programs in a
 * session with the preload: shells, make, python3, perl and the usual exec
 * wrappers (env, xargs, find, nohup, timeout, setsid) have their execs
 * decided, and run, deny and escalate behave as the program expects; with
 * the wrapper and the preload both active each exec is decided once; and
 * the ways a program can scrub its environment or close its fds do not let
 * its children slip past.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "helpers/preload.h"

static struct tpol tp;
static struct shellesc_session *s;

/* The target: "exec-probe marker 42" prints "marker" and exits 42. */
#define SH_CMD "\"$TP_TARGET\" marker 42; echo rc=$?"
#define MAKEFILE "all:\n\t@$(TP_TARGET) marker 0 make\n"
/*
 * subprocess.call by the mode in argv[1]: "default" (close_fds=True: CPython
 * >= 3.10 vforks, closes fds with close_range, then execve), "nofds"
 * (close_fds=False: posix_spawn) or "fork" (a preexec_fn forces fork).
 */
#define PY_CALL "import subprocess, sys\n" \
	"kw = {'default': {}, 'nofds': {'close_fds': False},\n" \
	"      'fork': {'preexec_fn': lambda: None}}\n" \
	"try:\n" \
	"    sys.exit(subprocess.call(sys.argv[2:], **kw[sys.argv[1]]))\n" \
	"except OSError as e:\n" \
	"    print('errno', e.errno)\n" \
	"    sys.exit(126)\n"
#define PL_SYSTEM "my $r = system(@ARGV); " \
	"print $r == -1 ? 'err=' . ($! + 0) : 'rc=' . ($? >> 8), qq{\\n}"
#define PL_EXEC "exec(@ARGV) or print 'err=', $! + 0, qq{\\n}; exit 126"
#define PL_QX "my $o = qx{$ENV{TP_TARGET} marker 42}; " \
	"print defined $o ? $o . 'rc=' . ($? >> 8) : 'err=' . ($! + 0), qq{\\n}"
#define PY(mode) { "/usr/bin/python3", "-c", PY_CALL, mode, TP_T, "marker", "42" }
#define SH_OUT "marker\nrc=42\n"
#define SH_DENIED "rc=126\n"
#define PY_DENIED "errno 13\n"

/* Each runs the target once; escalate shows what run shows. */
static const struct prog {
	const char *name;
	const char *argv[10];
	const char *in;
	int code, deny_code;
	const char *out, *deny_out;
} progs[] = {
	{ "bash", { "/bin/bash", "-c", SH_CMD }, NULL, 0, 0, SH_OUT, SH_DENIED },
	{ "dash", { "/bin/dash", "-c", SH_CMD }, NULL, 0, 0, SH_OUT, SH_DENIED },
	{ "busybox sh", { "/bin/busybox", "sh", "-c", SH_CMD }, NULL, 0, 0, SH_OUT, SH_DENIED },
	{ "make (posix_spawn)", { "/usr/bin/make", "-s", "-f", "-" }, MAKEFILE, 0, 2,
	  "marker make\n", "" },
	{ "python3 subprocess, close_fds=True (vfork)", PY("default"), NULL, 42, 126,
	  "marker\n", PY_DENIED },
	{ "python3 subprocess, close_fds=False (posix_spawn)", PY("nofds"), NULL, 42, 126,
	  "marker\n", PY_DENIED },
	{ "python3 subprocess, preexec_fn (fork)", PY("fork"), NULL, 42, 126, "marker\n", PY_DENIED },
	{ "perl system", { "/usr/bin/perl", "-e", PL_SYSTEM, TP_T, "marker", "42" }, NULL, 0, 0,
	  SH_OUT, "err=13\n" },
	{ "perl exec", { "/usr/bin/perl", "-e", PL_EXEC, TP_T, "marker", "42" }, NULL, 42, 126,
	  "marker\n", "err=13\n" },
	{ "perl backticks", { "/usr/bin/perl", "-e", PL_QX }, NULL, 0, 0, SH_OUT, "err=13\n" },
	{ "env -i", { "/usr/bin/env", "-i", TP_T, "marker", "42" }, NULL, 42, 126, "marker\n", "" },
	/* xargs: 123 when the command exits 1-125, 126 when it cannot run */
	{ "xargs", { "/usr/bin/xargs", TP_T, "marker" }, "42\n", 123, 126, "marker\n", "" },
	{ "find -exec", { "/usr/bin/find", "/dev/null", "-exec", TP_T, "marker", "0", "{}", ";" },
	  NULL, 0, 0, "marker /dev/null\n", "" },
	{ "nohup", { "/usr/bin/nohup", TP_T, "marker", "42" }, NULL, 42, 126, "marker\n", "" },
	{ "timeout", { "/usr/bin/timeout", "20", TP_T, "marker", "42" }, NULL, 42, 126, "marker\n", "" },
	{ "setsid", { "/usr/bin/setsid", "-w", TP_T, "marker", "42" }, NULL, 42, 126, "marker\n", "" },
};
#define NP (sizeof(progs) / sizeof(progs[0]))

static const enum shellesc_action actions[] = { SHELLESC_RUN, SHELLESC_DENY, SHELLESC_ESCALATE };
#define NA (sizeof(actions) / sizeof(actions[0]))

ParameterizedTestParameters(preload_programs, each)
{
	return ts_indexes(NP * NA);
}

ParameterizedTest(size_t *i, preload_programs, each, .timeout = TS_TIMEOUT)
{
	const struct prog *p = &progs[*i / NA];
	enum shellesc_action a = actions[*i % NA];
	bool deny = a == SHELLESC_DENY;
	char what[128];
	struct tp_out o;

	tp_need(p->argv[0]);
	snprintf(what, sizeof(what), "%s, %s", p->name, tp_action_name(a));
	s = tp_start(&tp, a, 0);	/* env -i drops TEST_ACTION: the default answers */
	tp_run(s, true, tp_action_name(a), NULL, p->in, p->argv, &o);
	tp_check(&o, deny ? p->deny_code : p->code, 0, deny ? p->deny_out : p->out,
	    deny ? TP_DENIED : "", what);
	cr_assert_eq(tp.seen, 1, "%s: %d decisions:\n%s", what, tp.seen, tp.history);
	cr_assert_str_eq(tp.program, TEST_EXEC_PROBE);
	if (a == SHELLESC_ESCALATE)
		ts_wait(&tp, &tp.ended, 1, 5000);
	else
		cr_assert_eq(tp.ended, 0);
	tp_out_free(&o);
	ts_end(s, &tp);
}

/*
 * Wrapper and preload together: a patched shell runs "$EXEC_WRAPPER" FILE
 * ARGV0; the wrapper's own exec is not a decision and the wrapper's exec of
 * FILE is not asked again, so the policy sees FILE exactly once.
 */
ParameterizedTestParameters(preload_programs, one_decision_with_wrapper_and_preload)
{
	return ts_indexes(NA);
}

ParameterizedTest(size_t *i, preload_programs, one_decision_with_wrapper_and_preload,
    .timeout = TS_TIMEOUT)
{
	static const char *const outs[] = { [SHELLESC_RUN] = "rc=0\n",
		[SHELLESC_DENY] = "rc=126\n", [SHELLESC_ESCALATE] = "rc=0\n" };
	enum shellesc_action a = actions[*i];
	struct tp_out o;

	s = tp_start(&tp, a, SHELLESC_INTERCEPT_WRAPPER);
	tp_run(s, true, tp_action_name(a), NULL, NULL, (const char *const[]){ "/bin/bash", "-c",
	    "\"$EXEC_WRAPPER\" /usr/bin/true true; echo rc=$?", NULL }, &o);
	tp_check(&o, 0, 0, outs[a], a == SHELLESC_DENY ? TP_DENIED : "", tp_action_name(a));
	cr_assert_str_eq(tp.history, "/usr/bin/true\n", "decided:\n%s", tp.history);
	tp_out_free(&o);
	ts_end(s, &tp);
}

/* --- children that must not slip past ----------------------------------- */

/* The grandchild: sh -c GC runs the target, which must be decided too. */
#define GC TP_T " marker 0 gc"
#define SH_GC "sh", "-c", GC
#define FDIS_GC "\"$TP_TARGET\" fdis $TP_SOCK /dev/null; " GC
#define SPAWNED "marker gc\nret=0 errno=1234 exit=0\n"
/* ours goes first again, the program's own library stays */
#define KEEPS_LIBM "case $LD_PRELOAD in */libshellesc_preload.so:libm.so.6) ;; " \
	"*) echo \"LD_PRELOAD=$LD_PRELOAD\"; exit 9;; esac; "

static const struct slip {
	const char *name;
	const char *argv[12];
	const char *out;
	const char *first;	/* decided before the target; NULL: /bin/sh */
	int decisions;		/* 0: 2 (first, then the target) */
} slips[] = {
	{ "env -i", { "/usr/bin/env", "-i", "/bin/sh", "-c", GC }, .out = "marker gc\n" },
	{ "execle with a fresh envp", { TP_T, "-e", "execle", "/bin/sh", SH_GC }, .out = "marker gc\n" },
	{ "execve with a NULL envp", { TP_T, "-E", "execve", "/bin/sh", SH_GC }, .out = "marker gc\n" },
	{ "posix_spawn with a fresh envp", { TP_T, "-e", "posix_spawn", "/bin/sh", SH_GC },
	  .out = SPAWNED },
	{ "unsetenv, then execv", { TP_T, "-u", "execv", "/bin/sh", SH_GC }, .out = "marker gc\n" },
	{ "LD_PRELOAD replaced, then execv", { TP_T, "-L", "libm.so.6", "execv", "/bin/sh", "sh", "-c",
	  KEEPS_LIBM GC }, .out = "marker gc\n" },
	{ "unsetenv, then system", { TP_T, "-u", "system", "/bin/sh", SH_GC },
	  .out = "marker gc\nexit=0\n" },
	{ "unsetenv, then popen", { TP_T, "-u", "popen", "/bin/sh", SH_GC },
	  .out = "marker gc\nexit=0\n" },
	{ "bash exec -c", { "/bin/bash", "-c", "exec -c /bin/sh -c '" GC "'" }, .out = "marker gc\n" },
	{ "python3 close_fds=True", { "/usr/bin/python3", "-c",
	  "import subprocess, sys; sys.exit(subprocess.call(sys.argv[1:]))", "/bin/sh", "-c", GC },
	  .out = "marker gc\n" },
	{ "closefrom(3) first", { TP_T, "-c", "closefrom", "execv", "/bin/sh", SH_GC },
	  .out = "closefrom: closed\nmarker gc\n" },
	{ "close_range(3, ~0U, 0) first", { TP_T, "-c", "close_range", "execv", "/bin/sh", SH_GC },
	  .out = "close_range: closed\nmarker gc\n" },
	{ "dup2 onto the socket's number first", { TP_T, "-d", "execv", "/bin/sh", SH_GC },
	  .out = "dup2: ok\nmarker gc\n" },
	/* posix_spawn's file actions run in the child, out of the interposer's sight */
	{ "posix_spawn closing fds >= 3", { TP_T, "-a", "closefrom", "posix_spawn", "/bin/sh", SH_GC },
	  .out = SPAWNED },
	{ "posix_spawn closing the socket's number", { TP_T, "-a", "close", "posix_spawn", "/bin/sh",
	  SH_GC }, .out = SPAWNED },
	{ "posix_spawn dup2 onto the socket's number", { TP_T, "-a", "dup2", "posix_spawn", "/bin/sh",
	  "sh", "-c", FDIS_GC }, .out = "fd is /dev/null\n" SPAWNED, .decisions = 3 },
	{ "posix_spawn open onto the socket's number", { TP_T, "-a", "open", "posix_spawnp", "sh",
	  "sh", "-c", FDIS_GC }, .out = "fd is /dev/null\n" SPAWNED, .first = "/usr/bin/sh", .decisions = 3 },
};
#define NSL (sizeof(slips) / sizeof(slips[0]))

ParameterizedTestParameters(preload_programs, no_slipping_past)
{
	return ts_indexes(NSL);
}

ParameterizedTest(size_t *i, preload_programs, no_slipping_past, .timeout = TS_TIMEOUT)
{
	const struct slip *sl = &slips[*i];
	const char *first = sl->first ? sl->first : "/bin/sh";
	int decisions = sl->decisions ? sl->decisions : 2;
	struct tp_out o;

	tp_need(sl->argv[0]);
	s = tp_start(&tp, SHELLESC_RUN, 0);
	tp_run(s, true, "run", NULL, NULL, sl->argv, &o);
	tp_check(&o, 0, 0, sl->out, "", sl->name);
	cr_assert_eq(tp.seen, decisions, "%s: decided:\n%s", sl->name, tp.history);
	cr_assert_eq(ts_history_count(&tp, first), 1, "%s: decided:\n%s", sl->name, tp.history);
	cr_assert_eq(ts_history_count(&tp, TEST_EXEC_PROBE), decisions - 1,
	    "%s: the grandchild was not decided:\n%s", sl->name, tp.history);
	tp_out_free(&o);
	ts_end(s, &tp);
}
