/* test-load-util.c: helpers of the load and fault suites (test-load.h). */
#include "config.h"

#include <criterion/criterion.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "helpers/session.h"
#include "helpers/load.h"

static void
tl_policy(void *arg, struct shellesc_request *req)
{
	static const char *const names[] = { "run", "esc", "deny" };
	struct tl_pol *pol = arg;
	struct shellesc_decision d = { .action = SHELLESC_RUN, .reason = "load test: deny" };
	size_t argc = shellesc_request_argc(req);
	const char *last = argc > 1 ? shellesc_request_argv(req)[argc - 1] : "";
	int a = 0;

	while (a < 3 && strcmp(last, names[a]) != 0)
		a++;
	if (a < 3) {
		d.action = (enum shellesc_action)a;
		atomic_fetch_add(&pol->seen[a], 1);
	} else
		atomic_fetch_add(&pol->other, 1);
	shellesc_request_decide(req, &d);
}

static void
tl_ended(void *arg, const struct shellesc_request *req, int code, int sig, double secs)
{
	struct tl_pol *pol = arg;

	if (code != 0)
		atomic_fetch_add(&pol->ended_bad, 1);
	atomic_fetch_add(&pol->ended, 1);
}

struct shellesc_session *
tl_start(struct tl_pol *pol, unsigned intercept, int request_timeout_ms)
{
	struct shellesc_config cfg = { .policy = tl_policy, .policy_arg = pol,
	    .ended = tl_ended, .ended_arg = pol, .intercept = intercept,
	    .wrapper_path = TEST_WRAPPER, .preload_path = TEST_PRELOAD,
	    .request_timeout_ms = request_timeout_ms, .kill_grace_ms = 500 };
	struct shellesc_session *s = NULL;
	int r = shellesc_session_start(&cfg, &s);

	cr_assert_eq(r, 0, "session: %s", strerror(-r));
	return s;
}

int
tl_wait_count(atomic_int *counter, int n, int ms)
{
	int64_t until = clock_now_ms() + ms;

	while (atomic_load(counter) < n && clock_now_ms() < until)
		poll(NULL, 0, 5);
	return atomic_load(counter);
}

long
tl_rss_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = -1;
	FILE *f;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/status");
	cr_assert_not_null(f = fopen(path, "r"));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

long
tl_raise_nofile(long want)
{
	struct rlimit rl;

	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if ((long)rl.rlim_cur < want) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || (long)rl.rlim_max > want ?
		    (rlim_t)want : rl.rlim_max;
		cr_assert_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	return (long)rl.rlim_cur;
}

bool
tl_sanitized(void)
{
#if defined(__SANITIZE_ADDRESS__)
	return true;
#else
	return false;
#endif
}

int
tl_env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && atoi(v) > 0 ? atoi(v) : def;
}

int
tl_good_requests_ms(struct shellesc_session *s, int n)
{
	int64_t worst = 0;

	for (int i = 0; i < n; i++) {
		int64_t t0 = clock_now_ms();

		ts_good_request(s);
		if (clock_now_ms() - t0 > worst)
			worst = clock_now_ms() - t0;
	}
	return (int)worst;
}
