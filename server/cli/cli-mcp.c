/*
 * cli-mcp.c: shellesc mcp's main thread: reading JSON-RPC from stdin, one
 * message a line, and answering it; sending, for every thread.
 *
 * What the client sends is untrusted input: a line that is not JSON gets
 * -32700, one that is not a request -32600, an unknown method -32601,
 * bad parameters -32602, and the next line is read all the same.  A line
 * over MCP_LINE_MAX is dropped whole.  The client going away (EOF on
 * stdin, a failed write to stdout) or SIGTERM, SIGINT or SIGHUP ends
 * every command of every call before shellesc exits.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "cli-mcp.h"
#include "clock.h"

#define MCP_LINE_MAX	(4u << 20)	/* bytes of one message */
#define MCP_TICK_MS	250		/* progress and elicitation deadlines */

static const char *const mcp_versions[] = { "2025-06-18", "2025-03-26", "2024-11-05", NULL };
static const char *const mcp_levels[] = { "debug", "info", "notice", "warning", "error",
    "critical", "alert", "emergency", NULL };

/* One line, whole, under out_mu: threads send too. */
int
mcp_send(struct mcp *m, json_t *msg)
{
	char *line = cli_json_line(msg);
	size_t len = line ? strlen(line) : 0, off = 0;

	if (line == NULL) {
		cli_warnx("mcp: cannot encode a message: out of memory");
		return -1;
	}
	pthread_mutex_lock(&m->out_mu);
	while (!atomic_load(&m->out_dead) && off < len) {
		ssize_t k = write(STDOUT_FILENO, line + off, len - off);

		if (k < 0 && errno != EINTR) {
			if (errno != EPIPE)
				cli_warn("mcp: writing to the client");
			atomic_store(&m->out_dead, true);
		}
		off += k > 0 ? (size_t)k : 0;
	}
	pthread_mutex_unlock(&m->out_mu);
	free(line);
	return off == len ? 0 : -1;
}

void
mcp_reply(struct mcp *m, json_t *id, json_t *result)
{
	mcp_send(m, json_pack("{s:s, s:O, s:o}", "jsonrpc", "2.0", "id", id, "result", result));
}

/* id NULL: null, for a message whose id could not be read. */
void
mcp_error(struct mcp *m, json_t *id, int code, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	cli_debug(m->c, 1, "mcp: error %d: %s", code, msg);
	mcp_send(m, json_pack("{s:s, s:O, s:{s:i, s:o}}", "jsonrpc", "2.0",
	    "id", id ? id : json_null(), "error", "code", code, "message", cli_json_lossy(msg,
	    strlen(msg))));
}

void
mcp_notify(struct mcp *m, const char *method, json_t *params)
{
	mcp_send(m, json_pack("{s:s, s:s, s:o}", "jsonrpc", "2.0", "method", method, "params",
	    params));
}

static int
mcp_level(const char *name)
{
	for (int i = 0; name && mcp_levels[i]; i++)
		if (strcmp(name, mcp_levels[i]) == 0)
			return i;
	return -1;
}

/* notifications/message, if the client wants this level. */
void
mcp_log(struct mcp *m, const char *level, json_t *data)
{
	if (mcp_level(level) < atomic_load(&m->log_level)) {
		json_decref(data);
		return;
	}
	mcp_notify(m, "notifications/message", json_pack("{s:s, s:s, s:o}", "level", level,
	    "logger", "shellesc", "data", data));
}

/* The client's name and version, for the audit log. */
static void
mcp_client_info(struct mcp *m, json_t *info)
{
	const char *name = json_string_value(json_object_get(info, "name"));
	const char *ver = json_string_value(json_object_get(info, "version"));

	pthread_mutex_lock(&m->mu);
	free(m->client);
	free(m->client_version);
	m->client = name ? strdup(name) : NULL;
	m->client_version = ver ? strdup(ver) : NULL;
	pthread_mutex_unlock(&m->mu);
}

/* The version the client asked for if we know it, else our newest. */
static void
mcp_initialize(struct mcp *m, json_t *id, json_t *params)
{
	const char *want = json_string_value(json_object_get(params, "protocolVersion"));
	const char *ver = mcp_versions[0];
	json_t *caps = json_object_get(params, "capabilities");

	if (want == NULL) {
		mcp_error(m, id, MCP_BAD_PARAMS, "initialize: protocolVersion must be a string");
		return;
	}
	for (int i = 0; mcp_versions[i]; i++)
		if (strcmp(want, mcp_versions[i]) == 0)
			ver = mcp_versions[i];
	atomic_store(&m->structured, strcmp(ver, "2025-06-18") >= 0);
	atomic_store(&m->can_elicit, json_is_object(json_object_get(caps, "elicitation")));
	atomic_store(&m->can_roots, json_is_object(json_object_get(caps, "roots")));
	mcp_client_info(m, json_object_get(params, "clientInfo"));
	cli_debug(m->c, 1, "mcp: protocol %s, elicitation %s", ver,
	    atomic_load(&m->can_elicit) ? "yes" : "no");
	mcp_reply(m, id, json_pack("{s:s, s:{s:{s:b}, s:{}, s:{s:{s:s}}}, s:{s:s, s:s}, s:s}",
	    "protocolVersion", ver,
	    "capabilities", "tools", "listChanged", 0, "logging",
	    "experimental", "codex/sandbox-state", "version", "1.0.0",
	    "serverInfo", "name", "shellesc", "version", PACKAGE_VERSION,
	    "instructions", "This server provides a tool to execute shell commands and return "
	    "their output. Every program a command starts is first checked against the "
	    "user's rules: run, escalated out of the sandbox, asked about, or denied."));
}

static void
mcp_set_level(struct mcp *m, json_t *id, json_t *params)
{
	const char *name = json_string_value(json_object_get(params, "level"));
	int lv = mcp_level(name);

	if (lv < 0) {
		mcp_error(m, id, MCP_BAD_PARAMS, "logging/setLevel: level must be one of debug, "
		    "info, notice, warning, error, critical, alert, emergency");
		return;
	}
	atomic_store(&m->log_level, lv);
	mcp_reply(m, id, json_object());
}

static void
mcp_request(struct mcp *m, const char *method, json_t *id, json_t *params)
{
	if (strcmp(method, "initialize") == 0)
		mcp_initialize(m, id, params);
	else if (strcmp(method, "ping") == 0)
		mcp_reply(m, id, json_object());
	else if (strcmp(method, "tools/list") == 0)
		mcp_reply(m, id, mcp_tool_list(m));
	else if (strcmp(method, "tools/call") == 0)
		mcp_tool_call(m, id, params);
	else if (strcmp(method, "logging/setLevel") == 0)
		mcp_set_level(m, id, params);
	else if (strcmp(method, "codex/sandbox-state/update") == 0)
		mcp_sbx_update(m, id, params);
	else
		mcp_error(m, id, MCP_NO_METHOD, "Method not found: %.200s", method);
}

/* Notifications get no answer, whatever they say. */
static void
mcp_notification(struct mcp *m, const char *method, json_t *params)
{
	if (strcmp(method, "notifications/cancelled") == 0)
		mcp_tool_cancel(m, json_object_get(params, "requestId"));
	else if (strcmp(method, "notifications/initialized") == 0 ||
	    strcmp(method, "notifications/roots/list_changed") == 0)
		mcp_sbx_ask_roots(m);
	else
		cli_debug(m->c, 2, "mcp: notification %.200s", method);
}

/* The client's answer to roots/list or to an elicitation. */
static void
mcp_answer_of_ours(struct mcp *m, json_t *id, json_t *msg)
{
	bool roots;

	pthread_mutex_lock(&m->mu);
	roots = json_is_integer(id) && m->roots_id != 0 &&
	    json_integer_value(id) == m->roots_id;
	pthread_mutex_unlock(&m->mu);
	if (roots)
		mcp_sbx_roots(m, msg);
	else
		mcp_elicit_answer(m, msg);
}

/* A request, a notification, or an answer to one of ours.  What is not
 * even a request gets an error with a null id; a notification, nothing. */
static void
mcp_message(struct mcp *m, json_t *msg)
{
	json_t *id = json_object_get(msg, "id"), *params = json_object_get(msg, "params");
	const char *method = json_string_value(json_object_get(msg, "method"));
	const char *rpc = json_string_value(json_object_get(msg, "jsonrpc"));

	if (id != NULL && !json_is_string(id) && !json_is_integer(id))
		mcp_error(m, NULL, MCP_INVALID_REQUEST, "id must be a string or an integer");
	else if (rpc == NULL || strcmp(rpc, "2.0") != 0)
		mcp_error(m, id, MCP_INVALID_REQUEST, "jsonrpc must be \"2.0\"");
	else if (method == NULL && id != NULL && (json_object_get(msg, "result") ||
	    json_object_get(msg, "error")))
		mcp_answer_of_ours(m, id, msg);
	else if (method == NULL)
		mcp_error(m, id, MCP_INVALID_REQUEST, "method must be a string");
	else if (id == NULL) {
		if (params == NULL || json_is_object(params))
			mcp_notification(m, method, params);
	} else if (params != NULL && !json_is_object(params))
		mcp_error(m, id, MCP_BAD_PARAMS, "params must be an object");
	else
		mcp_request(m, method, id, params);
}

static void
mcp_line(struct mcp *m, const char *line, size_t len)
{
	json_error_t err;
	json_t *msg;

	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	if (len == 0)
		return;
	if ((msg = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &err)) == NULL)
		mcp_error(m, NULL, MCP_PARSE_ERROR, "Parse error: %s (line %d, column %d)",
		    err.text, err.line, err.column);
	else if (json_is_array(msg))
		mcp_error(m, NULL, MCP_INVALID_REQUEST, "batches are not supported: send one "
		    "message a line");
	else if (!json_is_object(msg))
		mcp_error(m, NULL, MCP_INVALID_REQUEST, "a message must be a JSON object");
	else
		mcp_message(m, msg);
	json_decref(msg);
}

struct mcp_in {
	char *buf;
	size_t len, cap;
	bool skipping;			/* inside a line over MCP_LINE_MAX */
};

/* Hand every whole line of in to mcp_line; keep the rest. */
static void
mcp_lines(struct mcp *m, struct mcp_in *in)
{
	char *start = in->buf, *nl;

	while ((nl = memchr(start, '\n', in->len - (size_t)(start - in->buf))) != NULL) {
		if (!in->skipping)
			mcp_line(m, start, (size_t)(nl - start));
		in->skipping = false;
		start = nl + 1;
	}
	in->len -= (size_t)(start - in->buf);
	memmove(in->buf, start, in->len);
	if (in->len > MCP_LINE_MAX) {
		if (!in->skipping)
			mcp_error(m, NULL, MCP_PARSE_ERROR, "a message over %u bytes", MCP_LINE_MAX);
		in->skipping = true;
		in->len = 0;
	}
}

/* 1: more to come; 0: EOF; -1: error. */
static int
mcp_read(struct mcp *m, struct mcp_in *in)
{
	ssize_t k;

	if (in->cap - in->len < 65536) {
		char *p = realloc(in->buf, in->cap + 65536);

		if (p == NULL)
			return -1;
		in->buf = p;
		in->cap += 65536;
	}
	if ((k = read(STDIN_FILENO, in->buf + in->len, in->cap - in->len)) < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -1;
	in->len += (size_t)k;
	if (k == 0 && in->len > 0 && !in->skipping)	/* a last line without '\n' */
		mcp_line(m, in->buf, in->len);
	if (k > 0)
		mcp_lines(m, in);
	return k > 0;
}

/* Ticks only while calls run: elicitations and progress belong to them. */
static int
mcp_tick_ms(struct mcp *m)
{
	bool calls;

	pthread_mutex_lock(&m->mu);
	calls = m->calls != NULL;
	pthread_mutex_unlock(&m->mu);
	return calls ? MCP_TICK_MS : -1;
}

/* Until EOF, a signal or the client gone: 0, or 128+N for signal N. */
static int
mcp_serve(struct mcp *m, int sigfd)
{
	struct mcp_in in = { 0 };
	int r = 0;

	while (!atomic_load(&m->out_dead)) {
		struct pollfd p[2] = { { STDIN_FILENO, POLLIN, 0 }, { sigfd, POLLIN, 0 } };
		struct signalfd_siginfo si;
		int n = poll(p, 2, mcp_tick_ms(m)), k = 1;

		if (n < 0 && errno != EINTR) {
			cli_warn("mcp: poll");
			break;
		}
		if (n > 0 && p[1].revents && read(sigfd, &si, sizeof(si)) == sizeof(si)) {
			cli_debug(m->c, 1, "mcp: signal %u: ending", si.ssi_signo);
			r = 128 + (int)si.ssi_signo;
			break;
		}
		if (n > 0 && p[0].revents && (k = mcp_read(m, &in)) <= 0) {
			if (k < 0)
				cli_warn("mcp: reading from the client");
			break;
		}
		mcp_elicit_expire(m, clock_now_ms());
		mcp_tool_tick(m, clock_now_ms());
	}
	free(in.buf);
	return r;
}

static int
mcp_init(struct mcp *m, struct cli *c)
{
	m->c = c;
	/* from 1: the SDK's client ignores a notifications/cancelled for id 0 */
	m->next_id = 1;
	atomic_init(&m->log_level, mcp_level("info"));
	atomic_init(&m->structured, false);
	atomic_init(&m->can_elicit, false);
	atomic_init(&m->can_roots, false);
	pthread_mutex_init(&m->out_mu, NULL);
	pthread_mutex_init(&m->mu, NULL);
	pthread_cond_init(&m->cv, NULL);
	atomic_init(&m->out_dead, false);
	return mcp_sbx_init(m);
}

static void
mcp_free(struct mcp *m)
{
	mcp_sbx_unref(m->sbx);
	free(m->client);
	free(m->client_version);
	pthread_cond_destroy(&m->cv);
	pthread_mutex_destroy(&m->mu);
	pthread_mutex_destroy(&m->out_mu);
}

/* SIGTERM, SIGINT and SIGHUP as a signalfd: blocked before any thread
 * starts, so every thread leaves them to it (children get an empty mask). */
static int
mcp_signals(void)
{
	sigset_t set;
	int fd;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if ((errno = pthread_sigmask(SIG_BLOCK, &set, NULL)) != 0 ||
	    (fd = signalfd(-1, &set, SFD_CLOEXEC)) < 0) {
		cli_warn("mcp: signals");
		return -1;
	}
	return fd;
}

int
cli_mcp(struct cli *c)
{
	struct mcp m = { 0 };
	struct shellesc_config cfg;
	int sigfd = mcp_signals(), r = CLI_EXIT_FAIL;

	if (sigfd >= 0 && cli_setup_shell(c) == 0 && cli_setup(c) == 0 && cli_setup_config(c, &cfg) == 0 &&
	    mcp_init(&m, c) == 0) {
		mcp_sbx_announce(&m);
		cli_debug(c, 1, "mcp: serving on stdin and stdout");
		r = mcp_serve(&m, sigfd);
		mcp_tool_end_all(&m);
		mcp_elicit_drop(&m, NULL, "The MCP client went away before answering");
	}
	cli_teardown(c);
	if (m.c)
		mcp_free(&m);
	if (sigfd >= 0)
		close(sigfd);
	return r;
}
