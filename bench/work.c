/*
 * work.c: real work -- `./configure` and `make -j2 -C Src` of zsh 5.9 from
 * Debian's source (patches/build-shell.sh --source unpacks it; bench/run.sh
 * passes it as --work-src) -- plainly, under `shellesc run -m preload`,
 * `-m kernel` and the default mode, with a rules file that matches
 * nothing (so every exec is decided and runs).  Each run builds a fresh
 * copy of the tree; variants are interleaved round by round and medians
 * taken.  shellesc's rows count their decisions from the audit log.
 */
#include "config.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"

#define WK_MAX_ROUNDS	8
#define WK_CONFIGURE	"./configure -q --with-tcsetpgrp --disable-gdbm --disable-pcre --disable-cap"
#define WK_MAKE		"make -j2 -C Src"

struct wk_variant {
	const char *name;
	const char *mode;		/* NULL: plain; else shellesc run's --mode */
	double conf[WK_MAX_ROUNDS], make[WK_MAX_ROUNDS];
	long decisions;			/* in the last round */
	int failed;
};

static const struct bn_opts *wk_o;
static char wk_dir[PATH_MAX];		/* scratch: tree/, home/, none.rules, audit */

static char **
wk_env(void)
{
	static char home[PATH_MAX + 16];
	static char *env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", home, NULL, NULL, NULL };

	snprintf(home, sizeof(home), "HOME=%s/home", wk_dir);
	env[3] = bn_part_env(wk_o, 0);
	env[4] = bn_part_env(wk_o, 1);
	return env;
}

/* Decisions so far (the audit log's lines); the log starts again. */
static long
wk_decisions(void)
{
	char path[PATH_MAX + 16];
	long n;

	snprintf(path, sizeof(path), "%s/audit.jsonl", wk_dir);
	n = bn_count_lines(path);
	unlink(path);
	return n;
}

/* `cd tree && step` as v runs it; wall seconds, NAN on failure. */
static double
wk_step(struct wk_variant *v, const char *step)
{
	char cmd[PATH_MAX + 256], rules[PATH_MAX + 16], audit[PATH_MAX + 16];
	char *plain[] = { "/bin/sh", "-c", cmd, NULL };
	char *gated[] = { (char *)bn_path(wk_o, "server/cli/shellesc"), "run", "-m", (char *)v->mode,
	    "-p", rules, "-a", audit, "--", "/bin/sh", "-c", cmd, NULL };
	struct bn_cost c;

	snprintf(cmd, sizeof(cmd), "cd '%s/tree' && %s >/dev/null 2>&1", wk_dir, step);
	snprintf(rules, sizeof(rules), "%s/none.rules", wk_dir);
	snprintf(audit, sizeof(audit), "%s/audit.jsonl", wk_dir);
	if (bn_run(v->mode ? gated : plain, wk_env(), -1, -1, &c) != 0) {
		v->failed++;
		return BN_NAN;
	}
	return c.wall;
}

/* One round of v in a fresh copy of the source. */
static void
wk_once(struct wk_variant *v, int round)
{
	char tree[PATH_MAX + 8];
	char *rm[] = { "/bin/rm", "-rf", tree, NULL };
	char *cp[] = { "/bin/cp", "-a", (char *)wk_o->work_src, tree, NULL };

	snprintf(tree, sizeof(tree), "%s/tree", wk_dir);
	if (bn_run(rm, NULL, -1, -1, NULL) != 0 || bn_run(cp, NULL, -1, -1, NULL) != 0) {
		v->failed++;
		return;
	}
	v->conf[round] = wk_step(v, WK_CONFIGURE);
	v->make[round] = wk_step(v, WK_MAKE);
	v->decisions = wk_decisions();
}

/* Rows of one step for every variant, against the plain one. */
static void
wk_report(struct wk_variant *vs, size_t nv, int rounds, bool conf, double target)
{
	double t[WK_MAX_ROUNDS], plain = BN_NAN;
	char name[96], tg[32];

	for (size_t i = 0; i < nv; i++) {
		const struct wk_variant *v = &vs[i];
		double m;

		for (int r = 0; r < rounds; r++)
			t[r] = conf ? v->conf[r] : v->make[r];
		m = v->failed ? BN_NAN : bn_median(t, (size_t)rounds);
		snprintf(name, sizeof(name), "zsh 5.9 %s: %s", conf ? "./configure" : "make -j2", v->name);
		if (i == 0) {
			plain = m;
			bn_row("work", name, m, "s", BN_NAN, "", "", "baseline; median of %d", rounds);
			continue;
		}
		snprintf(tg, sizeof(tg), "<= %.2fx plain", target);
		bn_row("work", name, m, "s", m / plain, strcmp(v->mode, "both") == 0 ? tg : "",
		    strcmp(v->mode, "both") == 0 ? bn_holds(m / plain <= target && !v->failed) : "",
		    "%ld decisions (configure and make)%s", v->decisions, v->failed ? "; FAILED runs" : "");
	}
}

void
bn_work(const struct bn_opts *o)
{
	struct wk_variant vs[] = {
		{ .name = "plain" },
		{ .name = "shellesc run -m preload", .mode = "preload" },
		{ .name = "shellesc run (default mode)", .mode = "both" },
		{ .name = "shellesc run -m kernel", .mode = "kernel" },
	};
	const size_t nv = sizeof(vs) / sizeof(vs[0]);
	char *rm[] = { "/bin/rm", "-rf", wk_dir, NULL };
	int rounds = o->scale < 1 ? 1 : o->rounds < 3 ? o->rounds : 3;

	wk_o = o;
	if (o->work_src == NULL || !bn_exists(o->work_src)) {
		bn_skip("work", "zsh 5.9 ./configure and make -j2", "no source tree (make bench unpacks "
		    "it with patches/build-shell.sh --source zsh; or --work-src DIR)");
		return;
	}
	if (bn_scratch(wk_dir, sizeof(wk_dir), "work", "none.rules") != 0) {
		bn_skip("work", "zsh 5.9 ./configure and make -j2", "cannot make a scratch directory");
		return;
	}
	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < nv; i++)
			wk_once(&vs[i], r);
	wk_report(vs, nv, rounds, true, 1.05);
	wk_report(vs, nv, rounds, false, 1.02);
	bn_run(rm, NULL, -1, -1, NULL);
}
