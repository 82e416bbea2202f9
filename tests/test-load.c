/*
 * test-load.c: suite load -- many shells, one session, mixed decisions.
 *
 * SHELLS parallel subshells each exec EXECS commands, a third each decided
 * run, escalate and deny.  Every exec must be decided as the policy says
 * (counted on both sides), every escalation must end, and the server must
 * end with the fds it started with and a bounded RSS.  make check runs
 * 8 x 50; `make bench-load` runs the full 32 x 500 (SHELLESC_LOAD_SHELLS,
 * SHELLESC_LOAD_EXECS).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/base.h"
#include "helpers/session.h"
#include "helpers/load.h"

/* Each subshell: exec i decided by i % 3 (run, esc, deny); a denial prints its status. */
static const char load_script[] =
	TL_X_FUNC
	"worker() {\n"
	"	for ((i = 0; i < N; i++)); do\n"
	"		case $((i % 3)) in 0) a=run ;; 1) a=esc ;; *) a=deny ;; esac\n"
	"		x /bin/echo $a || echo \"status $?\"\n"
	"	done\n"
	"}\n"
	"for ((s = 0; s < S; s++)); do worker & done\n"
	"wait\n";

static int
load_count_lines(const char *out, const char *line)
{
	size_t n = strlen(line);
	int count = 0;

	for (const char *p = out; (p = strstr(p, line)) != NULL; p += n)
		if ((p == out || p[-1] == '\n') && p[n] == '\n')
			count++;
	return count;
}

static void
load_run(unsigned intercept)
{
	int shells = tl_env_int("SHELLESC_LOAD_SHELLS", 8), execs = tl_env_int("SHELLESC_LOAD_EXECS", 50);
	int want[3] = { 0 }, total = shells * execs;
	struct tl_pol pol = { 0 };
	struct shellesc_session *s;
	struct shellesc_exec_result res;
	char cmd[sizeof(load_script) + 128];
	char **env;
	int fds;
	long rss;

	for (int i = 0; i < execs; i++)
		want[i % 3] += shells;
	s = tl_start(&pol, intercept, 0);
	fds = th_count_fds();
	rss = tl_rss_kib(0);
	snprintf(cmd, sizeof(cmd), "S=%d N=%d %s%s", shells, execs, TL_X_MODE(intercept), load_script);
	env = ts_env(s, NULL);
	cr_assert_eq(shellesc_session_exec(s, &(struct shellesc_exec_params){ .command = cmd,
	    .workdir = "/", .env = env, .timeout_ms = 600000,
	    .shell = "/bin/bash" }, &res), 0);
	shellesc_env_free(env);
	cr_log_info("load: %d shells x %d execs in %.2f s (%.0f execs/s)", shells, execs,
	    res.duration, total / res.duration);
	cr_assert_eq(res.exit_code, 0, "the script failed: %s", res.err);
	cr_assert_eq(tl_wait_count(&pol.ended, want[SHELLESC_ESCALATE], 10000), want[SHELLESC_ESCALATE]);
	cr_assert_eq(atomic_load(&pol.seen[SHELLESC_RUN]), want[SHELLESC_RUN]);
	cr_assert_eq(atomic_load(&pol.seen[SHELLESC_ESCALATE]), want[SHELLESC_ESCALATE]);
	cr_assert_eq(atomic_load(&pol.seen[SHELLESC_DENY]), want[SHELLESC_DENY]);
	cr_assert_eq(atomic_load(&pol.other), 0, "requests the script did not make");
	cr_assert_eq(atomic_load(&pol.ended_bad), 0, "escalated echo failed");
	cr_assert_eq(load_count_lines(res.out, "run"), want[SHELLESC_RUN], "runs in the output");
	cr_assert_eq(load_count_lines(res.out, "esc"), want[SHELLESC_ESCALATE], "escalations in the output");
	cr_assert_eq(load_count_lines(res.out, "status 126"), want[SHELLESC_DENY], "denials in the output");
	/* the server's side: the client socket was closed by the exec, nothing else is left */
	cr_assert_eq(ts_fds_settle(fds - 1, 5000), fds - 1, "the server kept fds");
	rss = tl_rss_kib(0) - rss;
	cr_log_info("load: RSS grew by %ld KiB", rss);
	if (!tl_sanitized())
		cr_assert_leq(rss, 16 * 1024, "RSS grew by %ld KiB over %d requests", rss, total);
	shellesc_exec_result_free(&res);
	shellesc_session_end(s);
}

Test(load, wrapper_mixed_decisions, .timeout = 600)
{
	load_run(SHELLESC_INTERCEPT_WRAPPER);
}

Test(load, preload_mixed_decisions, .timeout = 600)
{
	if (tl_sanitized())
		cr_skip_test("the preload library cannot be loaded into uninstrumented programs under ASan");
	load_run(SHELLESC_INTERCEPT_PRELOAD);
}
