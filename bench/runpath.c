/*
 * runpath.c: what one exec costs on the run path.  A bash loop of /bin/true
 * and a C driver doing fork + execve of /bin/true, each plainly, under the
 * preload with a run-everything session, under sudo's intercept mode (the
 * nearest production peer), and a patched zsh with the wrapper; and both
 * loops under the shellesc command itself (shellesc run, rules that run
 * everything), with the preload alone and with the kernel layer added, for
 * what the layer adds per exec.  The time
 * of a run with 0 iterations (startup) is subtracted; variants are
 * interleaved round by round and medians taken.
 */
#include "config.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define RP_MAX_ROUNDS 64

enum rp_kind { RP_BASH, RP_ZSH, RP_DRIVER };

struct rp_variant {
	const char *name;
	enum rp_kind kind;
	bool sudo;
	struct bn_session *sess;	/* NULL: plain */
	char **env;			/* without a session: this environment, if set */
	const char *via;		/* driver: exec this first, as VIA VIA /bin/true true */
	const char *cli;		/* under shellesc run --mode CLI (env: rp_cli_env) */
	int n;				/* iterations */
	int failed;			/* runs that did not exit 0 */
	int short_asks;			/* runs whose session saw fewer than n requests */
	struct bn_cost tn[RP_MAX_ROUNDS], t0[RP_MAX_ROUNDS];
	double us, cpu;			/* wall and CPU us per exec, after the runs */
};

/* A variant; more designated initializers (.env, .via) may follow. */
#define RPV(nm, k, su, se, nn, ...) { .name = nm, .kind = k, .sudo = su, .sess = se, .n = nn, __VA_ARGS__ }

static const struct bn_opts *rp_o;
static char *rp_cli_env[5];		/* PATH, LC_ALL, SHELLESC_WRAPPER, SHELLESC_PRELOAD */
static char rp_rules[] = "/tmp/shellesc-bench-XXXXXX";	/* empty: everything runs */

/* shellesc run -p RULES -m MODE -- (no rule matches: everything runs in place) */
static int
rp_cli(const struct rp_variant *v, char **argv)
{
	int k = 0;

	if (v->cli == NULL)
		return 0;
	argv[k++] = (char *)bn_path(rp_o, "server/cli/shellesc");
	argv[k++] = "run";
	argv[k++] = "-p";
	argv[k++] = rp_rules;
	argv[k++] = "-m";
	argv[k++] = (char *)v->cli;
	argv[k++] = "--";
	return k;
}

/* One run with n iterations; returns its cost (NAN on failure). */
static struct bn_cost
rp_once(struct rp_variant *v, int n)
{
	char num[16], loop[96], *argv[20];
	int k = rp_cli(v, argv), asked = v->sess ? atomic_load(&v->sess->asked) : 0, st;
	struct bn_cost c;

	snprintf(num, sizeof(num), "%d", n);
	snprintf(loop, sizeof(loop), "for ((i = 0; i < %d; i++)); do /bin/true; done", n);
	if (v->sudo) {
		argv[k++] = "/usr/bin/sudo";
		argv[k++] = "--";
	}
	switch (v->kind) {
	case RP_BASH:
		argv[k++] = "/bin/bash";
		argv[k++] = "-c";
		argv[k++] = loop;
		break;
	case RP_ZSH:
		argv[k++] = (char *)rp_o->zsh;
		argv[k++] = "-f";
		argv[k++] = "-c";
		argv[k++] = loop;
		break;
	case RP_DRIVER:
		argv[k++] = (char *)bn_path(rp_o, "bench/bench-execloop");
		argv[k++] = num;
		if (v->via) {	/* WRAPPER FILE ARGV0: as a patched shell execs */
			argv[k++] = (char *)bn_path(rp_o, v->via);
			argv[k++] = (char *)v->via;
		}

		argv[k++] = "/bin/true";
		argv[k++] = "true";
		break;
	}
	argv[k] = NULL;
	st = bn_run(argv, v->sess ? v->sess->env : v->cli ? rp_cli_env : v->env, -1, -1, &c);
	if (st != 0) {
		v->failed++;
		c.wall = c.cpu = BN_NAN;
	}
	if (v->sess && atomic_load(&v->sess->asked) - asked < n)
		v->short_asks++;
	return c;
}

/* Median of (runs of n) minus median of (runs of 0), per exec, in us. */
static double
rp_per_exec(const struct bn_cost *tn, const struct bn_cost *t0, int rounds, int n, bool cpu)
{
	double a[RP_MAX_ROUNDS], b[RP_MAX_ROUNDS];

	for (int r = 0; r < rounds; r++) {
		a[r] = cpu ? tn[r].cpu : tn[r].wall;
		b[r] = cpu ? t0[r].cpu : t0[r].wall;
	}
	return (bn_median(a, (size_t)rounds) - bn_median(b, (size_t)rounds)) * 1e6 / n;
}

static void
rp_measure(struct rp_variant *vs, size_t nv)
{
	int rounds = rp_o->rounds < RP_MAX_ROUNDS ? rp_o->rounds : RP_MAX_ROUNDS;

	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < nv; i++) {
			vs[i].tn[r] = rp_once(&vs[i], vs[i].n);
			vs[i].t0[r] = rp_once(&vs[i], 0);
		}
	for (size_t i = 0; i < nv; i++) {
		vs[i].us = vs[i].failed ? BN_NAN : rp_per_exec(vs[i].tn, vs[i].t0, rounds, vs[i].n, false);
		vs[i].cpu = vs[i].failed ? BN_NAN : rp_per_exec(vs[i].tn, vs[i].t0, rounds, vs[i].n, true);
	}
}

/* The bare protocol round trip, in us (mean over many, one client). */
static double
rp_floor(void)
{
	struct bn_echo *e = bn_echo_start();
	int n = bn_scaled(rp_o, 20000, 1000);
	double *lat = calloc((size_t)n, sizeof(double)), wall, med;

	wall = bn_concurrent(1, n, (void (*)(void *))bn_echo_once, e, lat);
	med = bn_median(lat, (size_t)n);
	bn_echo_stop(e);
	free(lat);
	bn_row("runpath", "bare protocol round trip (floor)", wall * 1e6 / n, "us", BN_NAN, "", "",
	    "socketpair + fd over dgram + 1 KiB + 1-byte reply; median %.1f us", med);
	return wall * 1e6 / n;
}

/* CPU per exec (and its ratio), and whether every run went as it should. */
static const char *
rp_notes(const struct rp_variant *v, const struct rp_variant *plain)
{
	static char buf[160];
	int n = snprintf(buf, sizeof(buf), "CPU %.0f us/exec", v->cpu);

	if (v != plain)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, " (%.2fx, adds %.0f us)",
		    v->cpu / plain->cpu, v->cpu - plain->cpu);
	if (v->failed)
		snprintf(buf + n, sizeof(buf) - (size_t)n, "; %d runs FAILED", v->failed);
	else if (v->short_asks)
		snprintf(buf + n, sizeof(buf) - (size_t)n, "; %d runs asked fewer than %d times",
		    v->short_asks, v->n);
	else
		snprintf(buf + n, sizeof(buf) - (size_t)n, "; %d execs a run", v->n);
	return buf;
}

/* Rows for a group: the plain baseline first, then each variant against it. */
static void
rp_report(struct rp_variant *vs, size_t nv, double floor_us)
{
	const struct rp_variant *plain = &vs[0], *preload = NULL;
	char name[96], target[48];

	for (size_t i = 0; i < nv; i++)
		if (vs[i].sess && !vs[i].via && vs[i].kind != RP_ZSH)
			preload = &vs[i];
	/* Without a target of its own, a row is context: where the added time goes. */
	for (size_t i = 0; i < nv; i++) {
		const struct rp_variant *v = &vs[i];
		double added = v->us - plain->us, ratio = v->us / plain->us;
		const char *holds = "";

		snprintf(name, sizeof(name), "%s", v->name);
		target[0] = '\0';
		if (v->cli && strstr(v->cli, "kernel") && i > 0 && vs[i - 1].cli) {
			double over = v->us - vs[i - 1].us;

			bn_row("runpath", name, v->us, "us/exec", ratio, "adds <= 30 us over preload",
			    bn_holds(over <= 30), "adds %.1f us over shellesc run -m preload; %s", over,
			    rp_notes(v, plain));
			continue;
		}
		if (v == preload) {
			snprintf(target, sizeof(target), "<= 1.05x; added <= %.0f us", 2 * floor_us);
			holds = bn_holds(ratio <= 1.05 && added <= 2 * floor_us);
		} else if (v->sudo && preload) {
			double less = added / (preload->us - plain->us);

			snprintf(target, sizeof(target), "preload adds >= 20x less");
			holds = bn_holds(less >= 20);
			bn_row("runpath", name, v->us, "us/exec", ratio, target, holds,
			    "adds %.0f us; preload adds %.1fx less; %s", added, less, rp_notes(v, plain));
			continue;
		} else if (v->kind == RP_ZSH && v->sess) {
			snprintf(target, sizeof(target), "<= 1.30x plain zsh");
			holds = bn_holds(ratio <= 1.30);
		}
		if (v == plain)
			bn_row("runpath", name, v->us, "us/exec", BN_NAN, "", "", "baseline; %s", rp_notes(v, plain));
		else
			bn_row("runpath", name, v->us, "us/exec", ratio, target, holds, "adds %.1f us; %s",
			    added, rp_notes(v, plain));
	}
}

void
bn_runpath(const struct bn_opts *o)
{
	struct bn_session pre = { 0 }, wrap = { 0 };
	char ld[PATH_MAX + 16], *loaded[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", ld, NULL };
	char noop[PATH_MAX + 16], *empty[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", noop, NULL };
	int nbash = bn_scaled(o, 1000, 50), ndrv = bn_scaled(o, 2000, 100);
	double floor_us;

	char cw[PATH_MAX + 24], cp[PATH_MAX + 24];
	int k;

	rp_o = o;
	snprintf(cw, sizeof(cw), "SHELLESC_WRAPPER=%s", bn_path(o, BN_WRAPPER));
	snprintf(cp, sizeof(cp), "SHELLESC_PRELOAD=%s", bn_path(o, BN_PRELOAD));
	rp_cli_env[0] = "PATH=/usr/bin:/bin";
	rp_cli_env[1] = "LC_ALL=C";
	rp_cli_env[2] = cw;
	rp_cli_env[3] = cp;
	if ((k = mkstemp(rp_rules)) < 0) {
		bn_skip("runpath", "shellesc run rows", "cannot make a rules file in /tmp");
		return;
	}
	close(k);
	snprintf(ld, sizeof(ld), "LD_PRELOAD=%s", bn_path(o, BN_PRELOAD));
	snprintf(noop, sizeof(noop), "LD_PRELOAD=%s", bn_path(o, "bench/.libs/libnoop_preload.so"));
	floor_us = rp_floor();
	if (bn_session_start(o, &pre, SHELLESC_INTERCEPT_PRELOAD, SHELLESC_RUN) != 0 ||
	    bn_session_start(o, &wrap, SHELLESC_INTERCEPT_WRAPPER, SHELLESC_RUN) != 0)
		return;
	{
		struct rp_variant bash[] = {
			RPV("bash loop: plain", RP_BASH, false, NULL, nbash),
			RPV("bash loop: preload (run everything)", RP_BASH, false, &pre, nbash),
			RPV("bash loop: sudo intercept (dso)", RP_BASH, true, NULL, nbash),
		};
		struct rp_variant kbash[] = {
			RPV("bash loop: plain (for the shellesc run rows)", RP_BASH, false, NULL, nbash),
			RPV("bash loop: shellesc run -m preload", RP_BASH, false, NULL, nbash,
			    .cli = "preload"),
			RPV("bash loop: shellesc run -m preload,kernel", RP_BASH, false, NULL, nbash,
			    .cli = "preload,kernel"),
		};
		struct rp_variant kdrv[] = {
			RPV("C fork+execve: plain (for the shellesc run rows)", RP_DRIVER, false, NULL, ndrv),
			RPV("C fork+execve: shellesc run -m preload", RP_DRIVER, false, NULL, ndrv,
			    .cli = "preload"),
			RPV("C fork+execve: shellesc run -m preload,kernel", RP_DRIVER, false, NULL, ndrv,
			    .cli = "preload,kernel"),
		};
		struct rp_variant drv[] = {
			RPV("C fork+execve: plain", RP_DRIVER, false, NULL, ndrv),
			RPV("C fork+execve: preload (run everything)", RP_DRIVER, false, &pre, ndrv),
			RPV("C fork+execve: via the wrapper", RP_DRIVER, false, &wrap, ndrv,
			    .via = BN_WRAPPER),
			/*
			 * Context: what no design of each kind can avoid (any LD_PRELOAD
			 * library; any program exec'd before the target), and ours
			 * loaded but asking nothing.
			 */
			RPV("C fork+execve: an empty LD_PRELOAD library", RP_DRIVER, false, NULL, ndrv,
			    .env = empty),
			RPV("C fork+execve: preload loaded, no session", RP_DRIVER, false, NULL, ndrv,
			    .env = loaded),
			RPV("C fork+execve: through a static no-op exec first", RP_DRIVER, false, NULL, ndrv,
			    .via = "bench/bench-exec-chain"),
			RPV("C fork+execve: sudo intercept (dso)", RP_DRIVER, true, NULL, ndrv),
		};
		struct rp_variant zsh[] = {
			RPV("patched zsh loop: plain", RP_ZSH, false, NULL, nbash),
			RPV("patched zsh loop: with the wrapper", RP_ZSH, false, &wrap, nbash),
		};
		size_t nb = o->sudo ? 3 : 2, nd = o->sudo ? 7 : 6;

		rp_measure(bash, nb);
		rp_report(bash, nb, floor_us);
		rp_measure(drv, nd);
		rp_report(drv, nd, floor_us);
		rp_measure(kbash, 3);
		rp_report(kbash, 3, floor_us);
		rp_measure(kdrv, 3);
		rp_report(kdrv, 3, floor_us);
		if (!o->sudo) {
			bn_skip("runpath", "bash loop: sudo intercept (dso)", "sudo's intercept mode not configured (run make bench as root)");
			bn_skip("runpath", "C fork+execve: sudo intercept (dso)", "as above");
		}
		if (o->zsh) {
			rp_measure(zsh, 2);
			rp_report(zsh, 2, floor_us);
		} else {
			bn_skip("runpath", "patched zsh loop: plain", "patched zsh not built (make shells, or make bench ZSH=PATH)");
			bn_skip("runpath", "patched zsh loop: with the wrapper", "patched zsh not built");
		}
	}
	bn_session_end(&pre);
	bn_session_end(&wrap);
	unlink(rp_rules);
}
