/*
 * bench.h: shellesc-bench, the benchmarks of docs/performance.md.
 *
 * Every measurement is a row of one table, printed at the end and written
 * as JSON.  The machine is shared, so variants are interleaved round by
 * round and the medians are reported; the load average goes with the
 * results.
 */
#ifndef SHELLESC_BENCH_H
#define SHELLESC_BENCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "shellesc.h"

/* What the sections are given (command line of shellesc-bench). */
struct bn_opts {
	const char *builddir;	/* the build tree: wrapper, preload, helpers */
	const char *zsh;	/* a patched zsh, or NULL */
	const char *bash;	/* a patched bash, or NULL */
	bool sudo;		/* sudo's intercept mode is configured */
	int rounds;		/* interleaved repetitions */
	double scale;		/* < 1: fewer iterations (a quick run) */
	const char *only;	/* run only the section of that name */
	const char *work_src;	/* an unpacked zsh 5.9 source tree, or NULL */
};

/* --- results (main.c) --- */
#define BN_NAN (0.0 / 0.0)

/* A row: value in unit; ratio to its baseline (NAN: none); the target and
 * whether it holds ("yes", "no", "" when the row has none). */
void bn_row(const char *section, const char *name, double value, const char *unit,
    double ratio, const char *target, const char *holds, const char *note, ...)
    __attribute__((format(printf, 8, 9)));
/* A row that could not be measured, and why. */
void bn_skip(const char *section, const char *name, const char *why, ...)
    __attribute__((format(printf, 3, 4)));
const char *bn_holds(bool ok);

/* --- small tools (util.c) --- */
int64_t bn_now_ns(void);
double bn_median(double *v, size_t n);		/* sorts v */
double bn_pct(double *v, size_t n, double p);	/* sorts v; p in 0..100 */
/* "path" under the build tree, in a static rotating buffer. */
const char *bn_path(const struct bn_opts *o, const char *rel);
/* "SHELLESC_WRAPPER=..." (which 0) and "SHELLESC_PRELOAD=..." (which 1)
 * naming the build tree's parts, for a shellesc command run by the bench
 * on a machine with none installed (static, the same for every call). */
char *bn_part_env(const struct bn_opts *o, int which);
/* The parts measured, under the build tree. */
#define BN_WRAPPER	"wrapper/shellesc-execve-wrapper"
#define BN_PRELOAD	"preload/.libs/libshellesc_preload.so"
bool bn_exists(const char *path);
/* What a run cost: wall time from spawn to exit, and CPU time (user +
 * system) of the whole process tree plus this process (the session's loop
 * thread serves the requests).  CPU time hardly moves with other load on
 * the machine; wall time does. */
struct bn_cost {
	double wall, cpu;	/* seconds */
};
/* Run argv with env (NULL: a minimal one), stdio on /dev/null unless the
 * fd is >= 0; returns the wait status.  *cost may be NULL. */
int bn_run(char *const argv[], char *const env[], int in, int out, struct bn_cost *cost);
/* A line of output of argv (at most size bytes); returns the wait status. */
int bn_capture(char *const argv[], char *const env[], char *buf, size_t size);
/* VmRSS and Pss (smaps_rollup) of pid in KiB. */
void bn_mem_kib(pid_t pid, long *rss, long *pss);
/* A scratch directory /tmp/shellesc-bench-NAME.XXXXXX (into dir) holding
 * home/ and an empty rules file at the relative path rules; 0 or -1. */
int bn_scratch(char *dir, size_t size, const char *name, const char *rules);
/* Lines in the file at path (0 when it is missing). */
long bn_count_lines(const char *path);
/* Iterations scaled by o->scale, at least min. */
int bn_scaled(const struct bn_opts *o, int n, int min);

/* A session whose policy answers one action and counts. */
struct bn_session {
	struct shellesc_session *s;
	enum shellesc_action action;
	atomic_int asked;
	atomic_int hold;		/* > 0: keep requests (decided by bn_release) */
	struct shellesc_request **held;
	atomic_int nheld;
	char **env;			/* a minimal environment with the overlay */
};
int bn_session_start(const struct bn_opts *o, struct bn_session *b, unsigned intercept,
    enum shellesc_action action);
void bn_session_release(struct bn_session *b);	/* decide the held requests */
void bn_session_end(struct bn_session *b);

/* The bare protocol floor (echo.c): a one-thread server doing only what
 * the protocol must, and clients doing handshake + 1 KiB + 1-byte reply. */
struct bn_echo;
struct bn_echo *bn_echo_start(void);
void bn_echo_stop(struct bn_echo *e);
/* One round trip as a client of e. */
void bn_echo_once(struct bn_echo *e);

/* nclients threads do n operations in all through op(arg); lat[] gets
 * each operation's latency in us; returns the wall time in s. */
double bn_concurrent(int nclients, int n, void (*op)(void *), void *arg, double *lat);

/* --- sections --- */
void bn_runpath(const struct bn_opts *o);
void bn_decide(const struct bn_opts *o);
void bn_rules(const struct bn_opts *o);
void bn_sockgate(const struct bn_opts *o);
void bn_io(const struct bn_opts *o);
void bn_memory(const struct bn_opts *o);
void bn_load(const struct bn_opts *o);
void bn_mcp(const struct bn_opts *o);
void bn_work(const struct bn_opts *o);

#endif
