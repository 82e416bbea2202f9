/* util.c: timing, statistics, processes and sessions for shellesc-bench. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

int64_t
bn_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int
bn_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double
bn_pct(double *v, size_t n, double p)
{
	size_t i;

	if (n == 0)
		return BN_NAN;
	qsort(v, n, sizeof(*v), bn_cmp);
	i = (size_t)(p / 100.0 * (double)(n - 1) + 0.5);
	return v[i < n ? i : n - 1];
}

double
bn_median(double *v, size_t n)
{
	return bn_pct(v, n, 50);
}

int
bn_scaled(const struct bn_opts *o, int n, int min)
{
	int k = (int)(n * o->scale);

	return k < min ? min : k;
}

const char *
bn_path(const struct bn_opts *o, const char *rel)
{
	static char bufs[8][4096];
	static int next;
	char *b = bufs[next++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", o->builddir, rel);
	return b;
}

char *
bn_part_env(const struct bn_opts *o, int which)
{
	static char vars[2][PATH_MAX + 32];

	snprintf(vars[which != 0], sizeof(vars[0]), "%s=%s",
	    which ? "SHELLESC_PRELOAD" : "SHELLESC_WRAPPER", bn_path(o, which ? BN_PRELOAD : BN_WRAPPER));
	return vars[which != 0];
}

bool
bn_exists(const char *path)
{
	return access(path, X_OK) == 0 || access(path, R_OK) == 0;
}

static char *const bn_min_env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", NULL };

static double
bn_tv(struct timeval tv)
{
	return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static double
bn_self_cpu(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return bn_tv(ru.ru_utime) + bn_tv(ru.ru_stime);
}

int
bn_run(char *const argv[], char *const env[], int in, int out, struct bn_cost *cost)
{
	posix_spawn_file_actions_t fa;
	struct rusage ru;
	int64_t t0;
	double self;
	pid_t pid;
	int st = -1, r;

	posix_spawn_file_actions_init(&fa);
	if (in >= 0)
		posix_spawn_file_actions_adddup2(&fa, in, 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (out >= 0)
		posix_spawn_file_actions_adddup2(&fa, out, 1);
	else
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	self = bn_self_cpu();
	t0 = bn_now_ns();
	r = posix_spawn(&pid, argv[0], &fa, NULL, argv, env ? env : bn_min_env);
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0) {
		fprintf(stderr, "bench: cannot run %s: %s\n", argv[0], strerror(r));
		return -1;
	}
	while (wait4(pid, &st, 0, &ru) < 0 && errno == EINTR)
		;
	if (cost) {
		cost->wall = (double)(bn_now_ns() - t0) / 1e9;
		cost->cpu = bn_tv(ru.ru_utime) + bn_tv(ru.ru_stime) + bn_self_cpu() - self;
	}
	return st;
}

int
bn_capture(char *const argv[], char *const env[], char *buf, size_t size)
{
	int p[2], st;
	ssize_t n, got = 0;

	if (pipe2(p, O_CLOEXEC) != 0)
		return -1;
	st = bn_run(argv, env, -1, p[1], NULL);
	close(p[1]);
	while (got + 1 < (ssize_t)size && (n = read(p[0], buf + got, size - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(p[0]);
	return st;
}

void
bn_mem_kib(pid_t pid, long *rss, long *pss)
{
	char path[64], line[256];
	FILE *f;

	*rss = *pss = -1;
	snprintf(path, sizeof(path), "/proc/%d/smaps_rollup", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), f)) {
		sscanf(line, "Rss: %ld kB", rss);
		sscanf(line, "Pss: %ld kB", pss);
	}
	fclose(f);
}

/* --- sessions --- */

static void
bn_policy(void *arg, struct shellesc_request *req)
{
	struct bn_session *b = arg;
	struct shellesc_decision d = { .action = b->action };

	atomic_fetch_add(&b->asked, 1);
	if (atomic_load(&b->hold) > 0) {
		int i = atomic_fetch_add(&b->nheld, 1);

		if (i < atomic_load(&b->hold)) {
			b->held[i] = req;
			return;
		}
		atomic_fetch_sub(&b->nheld, 1);
	}
	shellesc_request_decide(req, &d);
}

int
bn_session_start(const struct bn_opts *o, struct bn_session *b, unsigned intercept,
    enum shellesc_action action)
{
	struct shellesc_config cfg = { .policy = bn_policy, .policy_arg = b, .intercept = intercept,
	    .wrapper_path = bn_path(o, BN_WRAPPER),
	    .preload_path = bn_path(o, BN_PRELOAD) };
	int r;

	b->action = action;
	if ((r = shellesc_session_start(&cfg, &b->s)) != 0) {
		fprintf(stderr, "bench: session: %s\n", strerror(-r));
		return r;
	}
	b->env = shellesc_env_merge(b->s, bn_min_env);
	return b->env ? 0 : -ENOMEM;
}

void
bn_session_release(struct bn_session *b)
{
	struct shellesc_decision d = { .action = b->action };
	int n = atomic_load(&b->nheld);

	atomic_store(&b->hold, 0);
	for (int i = 0; i < n; i++)
		shellesc_request_decide(b->held[i], &d);
	atomic_store(&b->nheld, 0);
}

void
bn_session_end(struct bn_session *b)
{
	if (b->s == NULL)
		return;
	shellesc_env_free(b->env);
	shellesc_session_end(b->s);
	b->s = NULL;
}

/* --- concurrent clients --- */

struct bn_worker {
	pthread_t t;
	int n;
	void (*op)(void *);
	void *arg;
	double *lat;
	pthread_barrier_t *go;
};

static void *
bn_worker_main(void *p)
{
	struct bn_worker *w = p;

	pthread_barrier_wait(w->go);
	for (int i = 0; i < w->n; i++) {
		int64_t t0 = bn_now_ns();

		w->op(w->arg);
		w->lat[i] = (double)(bn_now_ns() - t0) / 1e3;
	}
	return NULL;
}

double
bn_concurrent(int nclients, int n, void (*op)(void *), void *arg, double *lat)
{
	struct bn_worker *w = calloc((size_t)nclients, sizeof(*w));
	pthread_barrier_t go;
	int64_t t0;
	int done = 0;

	pthread_barrier_init(&go, NULL, (unsigned)nclients + 1);
	for (int i = 0; i < nclients; i++) {
		w[i] = (struct bn_worker){ .n = n / nclients + (i < n % nclients), .op = op,
		    .arg = arg, .lat = lat + done, .go = &go };
		done += w[i].n;
		pthread_create(&w[i].t, NULL, bn_worker_main, &w[i]);
	}
	t0 = bn_now_ns();
	pthread_barrier_wait(&go);
	for (int i = 0; i < nclients; i++)
		pthread_join(w[i].t, NULL);
	pthread_barrier_destroy(&go);
	free(w);
	return (double)(bn_now_ns() - t0) / 1e9;
}

long
bn_count_lines(const char *path)
{
	char buf[65536];
	long lines = 0;
	ssize_t r;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	while ((r = read(fd, buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))
		for (ssize_t i = 0; i < r; i++)
			lines += buf[i] == '\n';
	close(fd);
	return lines;
}

int
bn_scratch(char *dir, size_t size, const char *name, const char *rules)
{
	char p[PATH_MAX + 64];
	const char *slash;
	int fd;

	snprintf(dir, size, "/tmp/shellesc-bench-%s.XXXXXX", name);
	if (mkdtemp(dir) == NULL)
		return -1;
	snprintf(p, sizeof(p), "%s/home", dir);
	if (mkdir(p, 0700) != 0)
		return -1;
	/* the rules file's directories, then the file */
	for (slash = strchr(rules, '/'); slash; slash = strchr(slash + 1, '/')) {
		snprintf(p, sizeof(p), "%s/%.*s", dir, (int)(slash - rules), rules);
		if (mkdir(p, 0700) != 0)
			return -1;
	}
	snprintf(p, sizeof(p), "%s/%s", dir, rules);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0)
		return -1;
	close(fd);
	return 0;
}
