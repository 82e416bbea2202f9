/*
 * cli-exec-output.c: what shellesc exec prints, one JSON object:
 *
 *   {"exit_code": N or null, "signal": N or null, "output": ..., "stdout":
 *    ..., "stderr": ..., "<name>_bytes": N, "<name>_dropped": N,
 *    "<name>_replaced": bool, "duration_ms": N, "timed_out": bool,
 *    "decisions": [...], "decisions_dropped": N}
 *
 * --output says which streams are there (interleaved: output; split:
 * stdout and stderr; both: all three); the others are null.  A stream is
 * text, each byte that is not UTF-8 replaced by U+FFFD and <name>_replaced
 * true, or with --base64 {"base64": "..."}.  Over --max-output its head
 * and tail are kept with a line between them saying how much was dropped
 * (the library keeps no more than that: memory stays bounded).  exit_code
 * is null when a signal ended the shell, signal null when none did, as in
 * the audit log.  decisions: every program a rule matched or that did not
 * run in place, as the audit log shows them, up to CLI_EXEC_DECISIONS.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli-json.h"

#define CLI_EXEC_DECISIONS	1000

struct cli_exec_out {
	pthread_mutex_t mu;
	json_t *decisions;
	size_t dropped;
};

int
cli_exec_out_start(struct cli *c)
{
	struct cli_exec_out *x = calloc(1, sizeof(*x));

	if (x == NULL || (x->decisions = json_array()) == NULL) {
		free(x);
		return cli_oom();
	}
	pthread_mutex_init(&x->mu, NULL);
	c->exec_out = x;
	return 0;
}

void
cli_exec_out_free(struct cli *c)
{
	struct cli_exec_out *x = c->exec_out;

	if (x == NULL)
		return;
	json_decref(x->decisions);
	pthread_mutex_destroy(&x->mu);
	free(x);
	c->exec_out = NULL;
}

/* Any thread, as the request is answered. */
void
cli_exec_out_decision(struct cli *c, const struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action a, const char *reason)
{
	struct cli_exec_out *x = c->exec_out;
	json_t *d;

	if (a == SHELLESC_RUN && v->rule == RULES_NONE)
		return;
	pthread_mutex_lock(&x->mu);
	if (json_array_size(x->decisions) >= CLI_EXEC_DECISIONS ||
	    (d = cli_json_decision(req, v, a, reason)) == NULL ||
	    json_array_append_new(x->decisions, d) != 0)
		x->dropped++;
	pthread_mutex_unlock(&x->mu);
}

char *
cli_output_marked(const char *p, size_t n, size_t dropped, size_t max, size_t *len)
{
	size_t head = max / 2 < n ? max / 2 : n;
	char mark[256], *buf;
	int m = snprintf(mark, sizeof(mark), "\n[... shellesc dropped %zu bytes here "
	    "(--max-output %zu): the first %zu and the last %zu kept ...]\n",
	    dropped, max, head, n - head);

	if ((buf = malloc(n + (size_t)m)) == NULL)
		return NULL;
	memcpy(buf, p, head);
	memcpy(buf + head, mark, (size_t)m);
	memcpy(buf + head + m, p + head, n - head);
	*len = n + (size_t)m;
	return buf;
}

/* One stream's fields: NAME, NAME_bytes, NAME_dropped, NAME_replaced. */
static void
cli_exec_stream(struct cli *c, json_t *j, const char *name, const char *p, size_t n,
    size_t dropped)
{
	char key[32], *buf = NULL;
	size_t len = n;
	bool replaced = false;

	if (dropped > 0 && (buf = cli_output_marked(p, n, dropped, c->o.max_output, &len)) != NULL)
		p = buf;
	json_object_set_new(j, name, c->o.base64 ? cli_json_b64_object(p, len) :
	    cli_json_text(p, len, &replaced));
	snprintf(key, sizeof(key), "%s_bytes", name);
	json_object_set_new(j, key, json_integer((json_int_t)(n + dropped)));
	snprintf(key, sizeof(key), "%s_dropped", name);
	json_object_set_new(j, key, json_integer((json_int_t)dropped));
	snprintf(key, sizeof(key), "%s_replaced", name);
	json_object_set_new(j, key, json_boolean(replaced));
	free(buf);
}

/* A stream --output did not ask for: its fields, null. */
static void
cli_exec_absent(json_t *j, const char *name)
{
	static const char *const suffixes[] = { "", "_bytes", "_dropped", "_replaced" };
	char key[32];

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(key, sizeof(key), "%s%s", name, suffixes[i]);
		json_object_set_new(j, key, json_null());
	}
}

static void
cli_exec_streams(struct cli *c, json_t *j, const struct shellesc_exec_result *res)
{
	bool split = c->o.output != CLI_OUTPUT_INTERLEAVED;
	bool both = c->o.output != CLI_OUTPUT_SPLIT;

	if (both)
		cli_exec_stream(c, j, "output", res->output, res->output_len, res->output_dropped);
	else
		cli_exec_absent(j, "output");
	if (split) {
		cli_exec_stream(c, j, "stdout", res->out, res->out_len, res->out_dropped);
		cli_exec_stream(c, j, "stderr", res->err, res->err_len, res->err_dropped);
	} else {
		cli_exec_absent(j, "stdout");
		cli_exec_absent(j, "stderr");
	}
}

/* The result on stdout; 0, or -1 after a message. */
int
cli_exec_out_print(struct cli *c, const struct shellesc_exec_result *res)
{
	struct cli_exec_out *x = c->exec_out;
	json_t *j = json_pack("{s:o, s:o}",
	    "exit_code", res->signal ? json_null() : json_integer(res->exit_code),
	    "signal", res->signal ? json_integer(res->signal) : json_null());
	char *line;

	if (j == NULL)
		return cli_oom();
	cli_exec_streams(c, j, res);
	json_object_set_new(j, "duration_ms", json_integer((json_int_t)(res->duration * 1000 + 0.5)));
	json_object_set_new(j, "timed_out", json_boolean(res->timed_out));
	pthread_mutex_lock(&x->mu);
	json_object_set(j, "decisions", x->decisions);
	json_object_set_new(j, "decisions_dropped", json_integer((json_int_t)x->dropped));
	pthread_mutex_unlock(&x->mu);
	if ((line = cli_json_line(j)) == NULL)
		return cli_oom();
	fputs(line, stdout);
	free(line);
	return 0;
}
