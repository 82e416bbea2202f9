/*
 * test-preload-attack.c: suite preload_attack -- a program in the session
 * trying to get past a deny rule through the preload itself: by naming the
 * program it wants as the wrapper (EXEC_WRAPPER, SHELLESC_WRAPPER, set for
 * a child or duplicated ahead of the session's entries), or by rewriting
 * what it execs from a second thread while the preload decides.  The
 * session denies every program named rm; each attack aims an rm at a file,
 * which must survive.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/preload.h"

static struct tpol tp;
static struct shellesc_session *s;

/* A directory holding F (the victim) and rm, a symlink to the real one. */
struct victim {
	char *dir, f[4200], rm[4200];
};

static void
victim_make(struct victim *v)
{
	v->dir = th_tmpdir();
	snprintf(v->f, sizeof(v->f), "%s/F", v->dir);
	snprintf(v->rm, sizeof(v->rm), "%s/rm", v->dir);
	th_put(v->dir, "F", "precious\n", 0644);
	cr_assert_eq(symlink("/bin/rm", v->rm), 0);
}

static void
victim_check(const struct victim *v, const char *what)
{
	cr_assert_eq(access(v->f, F_OK), 0, "%s: the denied rm ran (F is gone); decided:\n%s",
	    what, tp.history ? tp.history : "(nothing)\n");
}

/* --- the wrapper variables ---------------------------------------------- */

/*
 * "%s" is the symlink to rm: it is what the attack names as the wrapper and
 * then runs on F.  The carrier is env(1) (setting a variable for a child
 * through a decided exec) or exec-probe -D (a duplicate entry ahead of the
 * session's own in the envp of a decided execve).  The stock bash in the
 * middle does not read EXEC_WRAPPER; only the preload loaded into it does.
 */
#define BASH_RM "/bin/bash", "-c", "%s %F; echo rc=$?"
static const struct wvar {
	const char *name;
	unsigned intercept;
	const char *argv[12];
} wvars[] = {
	{ "preload: EXEC_WRAPPER set for a child", 0,
	  { "/usr/bin/env", "EXEC_WRAPPER=%s", BASH_RM } },
	{ "preload: SHELLESC_WRAPPER set for a child", 0,
	  { "/usr/bin/env", "SHELLESC_WRAPPER=%s", BASH_RM } },
	{ "preload: both duplicated ahead of the session's", 0,
	  { TP_T, "-D", "EXEC_WRAPPER=%s", "-D", "SHELLESC_WRAPPER=%s", "execve", "/bin/bash", BASH_RM } },
	{ "both: EXEC_WRAPPER set for a child", SHELLESC_INTERCEPT_WRAPPER,
	  { "/usr/bin/env", "EXEC_WRAPPER=%s", BASH_RM } },
	{ "both: duplicated ahead of the session's", SHELLESC_INTERCEPT_WRAPPER,
	  { TP_T, "-D", "EXEC_WRAPPER=%s", "-D", "SHELLESC_WRAPPER=%s", "execve", "/bin/bash", BASH_RM } },
};
#define NW (sizeof(wvars) / sizeof(wvars[0]))

/* arg with "%s" replaced by the rm symlink and "%F" by the victim. */
static char *
victim_arg(const struct victim *v, const char *arg)
{
	char buf[512], *o = buf;

	for (; *arg && o < buf + sizeof(buf) - 100; arg++) {
		const char *with = arg[0] == '%' && arg[1] == 's' ? v->rm :
		    arg[0] == '%' && arg[1] == 'F' ? v->f : NULL;

		if (with == NULL) {
			*o++ = *arg;
			continue;
		}
		o += snprintf(o, (size_t)(buf + sizeof(buf) - o), "%s", with);
		arg++;
	}
	*o = '\0';
	return strdup(buf);
}

ParameterizedTestParameters(preload_attack, wrapper_variables)
{
	return ts_indexes(NW);
}

/*
 * The preload once let through any exec of the path it read from these
 * variables, unasked.  The rm must be asked about, denied, and F stay.
 */
ParameterizedTest(size_t *i, preload_attack, wrapper_variables, .timeout = TS_TIMEOUT)
{
	const struct wvar *w = &wvars[*i];
	const char *argv[12] = { 0 };
	struct victim v;
	struct tp_out o;

	tp_need(w->argv[0]);
	tp_require_preload();
	victim_make(&v);
	for (size_t k = 0; w->argv[k]; k++)
		argv[k] = victim_arg(&v, w->argv[k]);
	tp.deny_name = "rm";
	s = tp_start(&tp, SHELLESC_RUN, w->intercept);
	tp_run(s, true, "run", v.dir, NULL, argv, &o);
	victim_check(&v, w->name);
	tp_check(&o, 0, 0, "rc=126\n", TP_DENIED, w->name);
	cr_assert_eq(ts_history_count(&tp, v.rm), 1, "%s: decided:\n%s", w->name, tp.history);
	for (size_t k = 0; argv[k]; k++)
		free((char *)argv[k]);
	tp_out_free(&o);
	ts_end(s, &tp);
	th_rmtree(v.dir);
}

/* How many lines of text start with prefix; *last: the last such line. */
static int
lines_with(const char *text, const char *prefix, char *last, size_t size)
{
	int n = 0;

	for (const char *l = text; *l; l = strchrnul(l, '\n'), l += *l == '\n') {
		size_t len = strcspn(l, "\n");

		if (strncmp(l, prefix, strlen(prefix)) != 0)
			continue;
		n++;
		snprintf(last, size, "%.*s", (int)len, l);
	}
	return n;
}

ParameterizedTestParameters(preload_attack, one_copy_of_each_session_variable)
{
	return ts_indexes(2);
}

/*
 * Every envp the preload passes on carries each of the session's variables
 * exactly once, with the session's value (LD_PRELOAD: this library first),
 * and none the session did not set, whatever the caller put in front.
 */
ParameterizedTest(size_t *i, preload_attack, one_copy_of_each_session_variable,
    .timeout = TS_TIMEOUT)
{
	static const char *const names[] = { "SHELLESC_ESCALATE_SOCKET=", "EXEC_WRAPPER=",
		"SHELLESC_WRAPPER=", "LD_PRELOAD=", "SHELLESC_PROXY_FD=" };
	unsigned intercept = *i ? SHELLESC_INTERCEPT_WRAPPER : 0;
	char *const *overlay;
	char line[4096];
	struct tp_out o;

	s = tp_start(&tp, SHELLESC_RUN, intercept);
	overlay = shellesc_session_env(s);
	tp_run(s, true, "run", NULL, NULL, (const char *const[]){ TP_T,
	    "-D", "SHELLESC_ESCALATE_SOCKET=0", "-D", "EXEC_WRAPPER=/bin/rm",
	    "-D", "SHELLESC_WRAPPER=/bin/rm", "-D", "SHELLESC_PROXY_FD=0",
	    "-D", "LD_PRELOAD=libm.so.6", "execve", "/usr/bin/env", "env", NULL }, &o);
	tp_check(&o, 0, 0, NULL, "", "env");
	for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
		const char *want = NULL;

		for (size_t j = 0; overlay[j]; j++)
			if (strncmp(overlay[j], names[k], strlen(names[k])) == 0)
				want = overlay[j];
		cr_assert_eq(lines_with(o.out, names[k], line, sizeof(line)), want ? 1 : 0,
		    "%s: %s copies in:\n%s", intercept ? "both" : "preload", names[k], o.out);
		if (want && strncmp(names[k], "LD_PRELOAD=", 11) == 0)
			cr_assert_str_eq(line, "LD_PRELOAD=" TEST_PRELOAD ":libm.so.6");
		else if (want)
			cr_assert_str_eq(line, want);
	}
	tp_out_free(&o);
	ts_end(s, &tp);
}

/*
 * The session's first program (its environment made by the library,
 * shellesc_env_merge) and the programs it runs (the preload's copy) see
 * one LD_PRELOAD: this library first and once, whatever the caller's
 * held -- here this library again, after a space, which ld.so splits at
 * as at a colon.
 */
Test(preload_attack, one_preload_list_for_the_first_program_and_its_children,
    .timeout = TS_TIMEOUT)
{
#define want "LD_PRELOAD=" TEST_PRELOAD ":libm.so.6"
	char **env, line[4096];
	struct ts_proc p;
	char *out, *err;
	int st;

	s = tp_start(&tp, SHELLESC_RUN, 0);
	env = ts_env(s, "TEST_ACTION=run", "LD_PRELOAD=libm.so.6 " TEST_PRELOAD, NULL);
	ts_proc_start(&p, NULL, env, "/bin/sh", TS_V("sh", "-c",
	    "echo \"LD_PRELOAD=$LD_PRELOAD\"; exec /usr/bin/env"));
	st = ts_proc_wait(&p, &out, NULL, &err);
	cr_assert_eq(st, 0, "status %#x, stderr: %s", st, err);
	cr_assert_eq(lines_with(out, "LD_PRELOAD=", line, sizeof(line)), 2, "%s", out);
	cr_assert(strncmp(out, want "\n", strlen(want) + 1) == 0,
	    "the first program's LD_PRELOAD:\n%s", out);
	cr_assert_str_eq(line, want, "its child's LD_PRELOAD");
	free(out);
	free(err);
	shellesc_env_free(env);
	ts_end(s, &tp);
#undef want
}

/*
 * The wrapper is recognized by what it is, not by how it is named: through
 * a symlink of another name, its exec is still not a decision of its own
 * (the wrapper asks about its FILE, once).
 */
Test(preload_attack, wrapper_known_by_identity, .timeout = TS_TIMEOUT)
{
	char *dir = th_tmpdir(), w[4200], cmd[4400];
	struct tp_out o;

	snprintf(w, sizeof(w), "%s/w", dir);
	cr_assert_eq(symlink(TEST_WRAPPER, w), 0);
	snprintf(cmd, sizeof(cmd), "%s /usr/bin/true true; echo rc=$?", w);
	s = tp_start(&tp, SHELLESC_RUN, SHELLESC_INTERCEPT_WRAPPER);
	tp_run(s, true, "run", NULL, NULL, (const char *const[]){ "/bin/bash", "-c", cmd, NULL }, &o);
	tp_check(&o, 0, 0, "rc=0\n", "", "wrapper through a symlink");
	cr_assert_str_eq(tp.history, "/usr/bin/true\n", "decided:\n%s", tp.history);
	tp_out_free(&o);
	ts_end(s, &tp);
	th_rmtree(dir);
}

/* --- racing the exec ---------------------------------------------------- */

/* Attempts per run: each is a fork, a thread and one decided exec (~2 ms). */
#define RACE_ATTEMPTS 300

struct race_res {
	int attempts, ran, denied, failed, rm_ran, stalled;
	long slowest_ms;
};

static void
race_parse(const char *out, struct race_res *r)
{
	cr_assert_eq(sscanf(out, "attempts=%d ran=%d denied=%d failed=%d rm_ran=%d stalled=%d "
	    "slowest_ms=%ld", &r->attempts, &r->ran, &r->denied, &r->failed, &r->rm_ran,
	    &r->stalled, &r->slowest_ms), 7, "exec-race said: %s", out);
}

ParameterizedTestParameters(preload_attack, racing_thread)
{
	return ts_indexes(2);
}

/*
 * A second thread rewrites the path between a good program and rm (path),
 * or argv[1] between two lengths (argv), while the main thread execs.  The
 * preload decides and execs one private copy, so rm never runs, and every
 * request is whole: none stalls, none is refused as malformed.
 */
ParameterizedTest(size_t *i, preload_attack, racing_thread, .timeout = 120)
{
	const char *mode = *i ? "argv" : "path";
	int attempts = RACE_ATTEMPTS / th_slowdown();
	char **env, *out, *err, count[16], ok[96];
	struct victim v;
	struct race_res r;
	struct ts_proc p;
	int st;

	tp_require_preload();
	victim_make(&v);
	snprintf(ok, sizeof(ok), "%s/ok", v.dir);
	cr_assert_eq(symlink("/bin/true", ok), 0);	/* same length as rm: no torn name runs */
	snprintf(count, sizeof(count), "%d", attempts);
	tp.deny_name = "rm";
	s = tp_start(&tp, SHELLESC_RUN, 0);
	env = tp_env(s, true, "run");
	ts_proc_start(&p, v.dir, env, TEST_EXEC_RACE,
	    TS_V(TEST_EXEC_RACE, (char *)mode, count, ok, v.rm, v.f));
	st = ts_proc_wait_ms(&p, 110000, &out, NULL, &err);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s: status %#x; stderr: %s", mode, st, err);
	race_parse(out, &r);
	cr_log_info("%s: %s", mode, out);
	cr_assert_eq(r.rm_ran, 0, "%s: the preload decided one program and the kernel ran rm: %s",
	    mode, out);
	cr_assert_eq(r.stalled, 0, "%s: an exec waited for its answer (an inconsistent request): %s",
	    mode, out);
	cr_assert_null(strstr(err, "cannot ask"), "%s: a request failed:\n%.2000s", mode, err);
	cr_assert_eq(r.attempts, attempts, "%s", out);
	cr_assert_gt(r.ran, 0, "%s: the good program never ran: %s", mode, out);
	if (*i == 0)
		cr_assert_gt(r.denied, 0, "%s: rm was never tried: %s", mode, out);
	else
		cr_assert_eq(r.denied, 0, "%s: %s", mode, out);
	victim_check(&v, mode);
	free(out);
	free(err);
	shellesc_env_free(env);
	ts_end(s, &tp);
	th_rmtree(v.dir);
}
