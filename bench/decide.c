/*
 * decide.c: decision throughput and latency.  N client threads ask as
 * fast as they can (handshake, a ~1 KiB exec request, the decision) of a
 * session whose policy answers run at once; the same clients against the
 * bare echo server (echo.c) give the ceiling at that concurrency.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "client.h"

struct dc_client {
	int fd;
	char *const *argv, *const *env;
};

static void
dc_ask(void *arg)
{
	const struct dc_client *c = arg;
	struct msg_exec_out e = { .file = "/usr/bin/make", .cwd = "/home/user/src/project",
	    .argv = c->argv, .env = c->env, .pid = getpid() };
	struct client_req req;

	if (client_ask(c->fd, &e, &req) != 0 || req.action != SHELLESC_ACT_RUN)
		abort();
}

/* ~1 KiB: a make command line and a small environment. */
static char dc_arg[200], dc_envs[8][100];

static void
dc_request(struct dc_client *c)
{
	static char *argv[4], *env[9];

	memset(dc_arg, 'a', sizeof(dc_arg) - 1);
	argv[0] = "make";
	argv[1] = "-j8";
	argv[2] = dc_arg;
	for (int i = 0; i < 8; i++) {
		snprintf(dc_envs[i], sizeof(dc_envs[i]), "VARIABLE_%d=%0*d", i, 80, i);
		env[i] = dc_envs[i];
	}
	c->argv = argv;
	c->env = env;
}

void
bn_decide(const struct bn_opts *o)
{
	static const int conc[] = { 1, 2, 8, 64 };
	int n = bn_scaled(o, 20000, 2000), rounds = o->rounds < 8 ? o->rounds : 8;
	double *lat = calloc((size_t)n, sizeof(double));
	struct bn_session b = { 0 };
	struct dc_client c;

	if (bn_session_start(o, &b, SHELLESC_INTERCEPT_WRAPPER, SHELLESC_RUN) != 0)
		return;
	c.fd = shellesc_session_client_fd(b.s);
	dc_request(&c);
	for (size_t k = 0; k < sizeof(conc) / sizeof(conc[0]); k++) {
		double rate[8], erate[8], p50[8], p99[8], target = 0.5;

		/* interleaved: server, echo, server, echo ... */
		for (int r = 0; r < rounds; r++) {
			struct bn_echo *e = bn_echo_start();

			rate[r] = n / bn_concurrent(conc[k], n, dc_ask, &c, lat);
			p50[r] = bn_pct(lat, (size_t)n, 50);
			p99[r] = bn_pct(lat, (size_t)n, 99);
			erate[r] = n / bn_concurrent(conc[k], n, (void (*)(void *))bn_echo_once, e, lat);
			bn_echo_stop(e);
		}
		double rr = bn_median(rate, (size_t)rounds), er = bn_median(erate, (size_t)rounds);
		char name[64], tgt[48];

		snprintf(name, sizeof(name), "%d client%s: decisions/s", conc[k], conc[k] > 1 ? "s" : "");
		snprintf(tgt, sizeof(tgt), conc[k] == 8 ? ">= %.1fx bare echo" : "", target);
		bn_row("decide", name, rr, "1/s", rr / er, tgt, conc[k] == 8 ? bn_holds(rr / er >= target) : "",
		    "p50 %.0f us, p99 %.0f us; bare echo %.0f/s", bn_median(p50, (size_t)rounds),
		    bn_median(p99, (size_t)rounds), er);
	}
	free(lat);
	bn_session_end(&b);
}
