/*
 * mcp.c: the bash loop of runpath.c through each front end an agent's
 * harness uses -- `shellesc mcp` and `shellesc exec` -- beside the shipped
 * reference, @openai/codex-shell-tool-mcp, through its own `shell` tool.
 * Each MCP row is one tools/call of a loop of n /bin/true minus one of an
 * empty command on the same server (bench/mcp-loop.mjs, the official SDK
 * client), so the server's start and its per-call work drop out; each
 * server's added time is against its own bash run plainly (the reference
 * ships a patched bash 5.3 of its own).  Variants are interleaved round by
 * round.  shellesc's rows count the decisions in their audit log and are
 * flagged when there were fewer than the execs.
 *
 * The SDK and the reference come from the npm registry, pinned by
 * tests/mcp/package-lock.json: bench/run.sh installs them into
 * BUILDDIR/tests/mcp (as the MCP tests do) with mcp-loop.mjs beside them.
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

#define MC_MAX_ROUNDS	64
#define MC_REF		"tests/mcp/node_modules/@openai/codex-shell-tool-mcp"
#define MC_REF_BASH	MC_REF "/vendor/x86_64-unknown-linux-musl/bash/debian-12/bash"

enum mc_kind { MC_PLAIN, MC_EXEC, MC_MCP };

struct mc_variant {
	const char *name;
	enum mc_kind kind;
	const char *prog;		/* plain: the bash; mcp: the server's argv[0] */
	const char *arg;		/* mcp: its first argument */
	bool ours;			/* audited: shellesc's own */
	int failed, short_asks;
	double s[MC_MAX_ROUNDS];	/* seconds for n execs, startup taken off */
	double us;			/* per exec, median */
};

static const struct bn_opts *mc_o;
static char mc_dir[PATH_MAX];		/* HOME, CODEX_HOME's parent, workdir */

/* The loop, as the MCP rows run it (the tool runs `bash -c COMMAND`). */
static void
mc_loop(char *buf, size_t size, int n)
{
	snprintf(buf, size, "i=0; while [ $i -lt %d ]; do /bin/true; i=$((i+1)); done", n);
}

/* Decisions in the session's audit log so far (its lines). */
static long
mc_audited(void)
{
	char path[PATH_MAX + 16];

	snprintf(path, sizeof(path), "%s/audit.jsonl", mc_dir);
	return bn_count_lines(path);
}

/* shellesc's environment: the parts from this build tree. */
static char **
mc_env(void)
{
	static char home[PATH_MAX + 16], codex[PATH_MAX + 24];
	static char *env[] = { "PATH=/usr/bin:/bin", "LC_ALL=C", home, codex, NULL, NULL, NULL };

	snprintf(home, sizeof(home), "HOME=%s/home", mc_dir);
	env[4] = bn_part_env(mc_o, 0);
	env[5] = bn_part_env(mc_o, 1);
	snprintf(codex, sizeof(codex), "CODEX_HOME=%s/codex", mc_dir);
	return env;
}

/* A plain bash or shellesc exec running COMMAND; its wall seconds (NAN: failed). */
static double
mc_run_one(struct mc_variant *v, const char *cmd)
{
	char audit[PATH_MAX + 16], rules[PATH_MAX + 32];
	char *plain[] = { (char *)v->prog, "-c", (char *)cmd, NULL };
	char *exec[] = { (char *)bn_path(mc_o, "server/cli/shellesc"), "exec", "-p", rules,
	    "-a", audit, "--no-login", "-c", (char *)cmd, NULL };
	struct bn_cost c;

	snprintf(audit, sizeof(audit), "%s/audit.jsonl", mc_dir);
	snprintf(rules, sizeof(rules), "%s/codex/rules/none.rules", mc_dir);
	if (bn_run(v->kind == MC_PLAIN ? plain : exec, v->kind == MC_PLAIN ? NULL : mc_env(),
	    -1, -1, &c) != 0)
		return BN_NAN;
	return c.wall;
}

/* One MCP server: a tools/call of n execs minus an empty one (NAN: failed). */
static double
mc_mcp_one(struct mc_variant *v, int n)
{
	char num[16], out[128], script[PATH_MAX + 16], audit[PATH_MAX + 16];
	char *argv[] = { "/usr/bin/node", script, num, "1", mc_dir, "--", (char *)v->prog,
	    (char *)v->arg, v->ours ? "-a" : NULL, audit, NULL };
	double loop, empty;

	snprintf(num, sizeof(num), "%d", n);
	snprintf(script, sizeof(script), "%s", bn_path(mc_o, "tests/mcp/mcp-loop.mjs"));
	snprintf(audit, sizeof(audit), "%s/audit.jsonl", mc_dir);
	if (bn_capture(argv, mc_env(), out, sizeof(out)) != 0 ||
	    sscanf(out, "%lf %lf", &loop, &empty) != 2)
		return BN_NAN;
	return loop - empty;
}

/* One round of v: seconds for n execs, startup or the empty call taken off. */
static void
mc_once(struct mc_variant *v, int round, int n)
{
	char loop[128];
	long before = mc_audited();
	double s;

	mc_loop(loop, sizeof(loop), n);
	if (v->kind == MC_MCP)
		s = mc_mcp_one(v, n);
	else
		s = mc_run_one(v, loop) - mc_run_one(v, ":");
	if (s != s)
		v->failed++;
	if (v->ours && mc_audited() - before < n)
		v->short_asks++;
	v->s[round] = s;
}

static void
mc_measure(struct mc_variant *vs, size_t nv, int n)
{
	int rounds = mc_o->rounds < MC_MAX_ROUNDS ? mc_o->rounds : MC_MAX_ROUNDS;

	for (int r = 0; r < rounds; r++)
		for (size_t i = 0; i < nv; i++)
			mc_once(&vs[i], r, n);
	for (size_t i = 0; i < nv; i++)
		vs[i].us = vs[i].failed ? BN_NAN : bn_median(vs[i].s, (size_t)rounds) * 1e6 / n;
}

/* A row of v against its own plain bash. */
static void
mc_row(const struct mc_variant *v, const struct mc_variant *plain, int n)
{
	char note[160];

	snprintf(note, sizeof(note), "%s%s", v->failed ? "; FAILED runs" : "",
	    v->short_asks ? "; FEWER DECISIONS THAN EXECS" : "");
	if (v == plain)
		bn_row("mcp", v->name, v->us, "us/exec", BN_NAN, "", "", "baseline; %d execs a call%s",
		    n, note);
	else
		bn_row("mcp", v->name, v->us, "us/exec", v->us / plain->us, "", "", "adds %.0f us%s",
		    v->us - plain->us, note);
}

/* The target: shellesc's added time at least 5x smaller than the reference's. */
static void
mc_target(const struct mc_variant *ours, const struct mc_variant *stock,
    const struct mc_variant *ref, const struct mc_variant *refbash)
{
	double a = ours->us - stock->us, b = ref->us - refbash->us;

	bn_row("mcp", "reference adds / shellesc mcp adds", b / a, "x", BN_NAN, ">= 5x",
	    bn_holds(b / a >= 5 && !ours->short_asks && !ours->failed && !ref->failed),
	    "%.0f us vs %.0f us per exec, each over its own bash", b, a);
}

/* The scratch directory: home/, codex/rules/ with an empty rules file. */
static int
mc_setup(void)
{
	if (bn_scratch(mc_dir, sizeof(mc_dir), "mcp", "codex/rules/none.rules") != 0)
		return -1;
	return 0;
}

/* Why the MCP rows cannot run here, or NULL. */
static const char *
mc_missing(void)
{
	if (!bn_exists("/usr/bin/node"))
		return "node is not installed (./bootstrap installs it)";
	if (!bn_exists(bn_path(mc_o, "tests/mcp/mcp-loop.mjs")) ||
	    !bn_exists(bn_path(mc_o, "tests/mcp/node_modules/@modelcontextprotocol/sdk/package.json")))
		return "the MCP SDK is not installed in BUILDDIR/tests/mcp (make bench installs it)";
	if (!bn_exists(bn_path(mc_o, MC_REF_BASH)))
		return "the reference package has no x86_64 Linux bash";
	return NULL;
}

void
bn_mcp(const struct bn_opts *o)
{
	char launcher[PATH_MAX], refbash[PATH_MAX], shellesc[PATH_MAX], *rm[] = { "/bin/rm", "-rf", mc_dir, NULL };
	int n = bn_scaled(o, 500, 50);	/* runpath's bash loop count */
	const char *why;

	mc_o = o;
	if ((why = mc_missing()) != NULL || mc_setup() != 0) {
		bn_skip("mcp", "bash loop through MCP servers", "%s", why ? why : "cannot make a directory");
		return;
	}
	snprintf(launcher, sizeof(launcher), "%s", bn_path(o, MC_REF "/bin/mcp-server.js"));
	snprintf(refbash, sizeof(refbash), "%s", bn_path(o, MC_REF_BASH));
	snprintf(shellesc, sizeof(shellesc), "%s", bn_path(o, "server/cli/shellesc"));
	{
		struct mc_variant vs[] = {
			{ .name = "bash loop: stock bash, plain", .kind = MC_PLAIN, .prog = "/bin/bash" },
			{ .name = "bash loop: shellesc exec (default mode)", .kind = MC_EXEC, .ours = true },
			{ .name = "bash loop: shellesc mcp (default mode)", .kind = MC_MCP,
			    .prog = shellesc, .arg = "mcp", .ours = true },
			{ .name = "bash loop: the reference's bash 5.3, plain", .kind = MC_PLAIN,
			    .prog = refbash },
			{ .name = "bash loop: @openai/codex-shell-tool-mcp 0.97.0", .kind = MC_MCP,
			    .prog = "/usr/bin/node", .arg = launcher },
		};

		mc_measure(vs, 5, n);
		for (int i = 0; i < 3; i++)
			mc_row(&vs[i], &vs[0], n);
		mc_row(&vs[3], &vs[3], n);
		mc_row(&vs[4], &vs[3], n);
		mc_target(&vs[2], &vs[0], &vs[4], &vs[3]);
	}
	bn_run(rm, NULL, -1, -1, NULL);
}
