/*
 * bench-rules N...: for each N, load N prefix rules (ten subcommands each
 * of N/10 programs, named by bare name) and time rules_decide on commands
 * that hit and miss.  Prints "N load_ms median_us p99_us" a line.  Built by
 * `make bench`.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rules.h"

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

#define BATCH 1000
#define BATCHES 200

static int
bench(long n)
{
	size_t cap = (size_t)n * 80 + 64, len = 0;
	char *text = malloc(cap), prog[64], a0[32], a1[32];
	char *argv[] = { a0, a1, "--flag", NULL };
	struct rules *r = rules_new();
	struct rules_error err;
	double t0, load, times[BATCHES];
	long programs = n >= 10 ? n / 10 : 1;
	unsigned seed = 1;
	int hits = 0;

	for (long i = 0; i < n; i++)
		len += (size_t)snprintf(text + len, cap - len,
		    "prefix_rule(pattern = [\"tool%ld\", \"sub%ld\"], decision = \"run\")\n",
		    i % programs, i / programs);
	t0 = now_us();
	if (rules_load_text(r, "bench.rules", text, len, &err) != 0) {
		fprintf(stderr, "bench-rules: %s:%d:%d: %s\n", err.file, err.line, err.column, err.msg);
		return 1;
	}
	load = (now_us() - t0) / 1e3;
	for (int b = 0; b < BATCHES; b++) {
		t0 = now_us();
		for (int i = 0; i < BATCH; i++) {
			long k = (long)(rand_r(&seed) % (unsigned)(programs + programs / 4 + 1));

			/* a quarter of the programs have no rule: misses */
			snprintf(prog, sizeof(prog), "/usr/bin/tool%ld", k);
			snprintf(a0, sizeof(a0), "tool%ld", k);
			snprintf(a1, sizeof(a1), "sub%d", rand_r(&seed) % 12);
			hits += rules_decide(r, prog, argv, 0, NULL) != RULES_NONE;
		}
		times[b] = (now_us() - t0) / BATCH;
	}
	qsort(times, BATCHES, sizeof(double), cmp);
	printf("%ld %.1f %.3f %.3f %d\n", n, load, times[BATCHES / 2], times[BATCHES * 99 / 100], hits);
	rules_free(r);
	free(text);
	return 0;
}

int
main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
		if (bench(atol(argv[i])) != 0)
			return 1;
	return 0;
}
