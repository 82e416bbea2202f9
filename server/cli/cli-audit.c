/*
 * cli-audit.c: --audit DEST, one JSON object per line per event: a
 * "decision" for every request, an "end" for every escalated command (the
 * same "id" ties them).  Lines are written whole under a mutex: decisions
 * come from the loop and prompt threads, ends from the loop thread.
 * Every line says what it belongs to: exec's command string; mcp's call
 * (its id, its command string, the client's name and version), with ids
 * the log numbers itself across calls, each call's session numbering its
 * own requests from 1.
 *
 * Each decision carries the caller's parent pid (the server's look at
 * the kernel) and, where known, "parent_id": the id of the decision that
 * let the parent run in place -- the last one this session answered run
 * for that pid, so "/bin/sh -c git-receive-pack" leads back to the
 * command that started it.  An escalated command runs under a pid of the
 * library's making, which is not known here: its children have none.
 *
 * A line that cannot be written (--audit-fail): warn says so once and goes
 * on, counting the lines lost (reported at the end), but denies every
 * escalation it was for (cli-policy.c): what runs outside is only what the
 * log shows; stop denies the request it was for and ends the session --
 * run's PROGRAM gets SIGTERM as if shellesc had, exec's shell is cancelled.
 *
 * A sandboxed side that can write the audit file's file system can fill
 * it: an audit file beneath a writable directory is refused unless
 * --audit-writable says so.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli-json.h"

/* The last this many pids answered run, with their decisions' ids. */
#define CLI_AUDIT_PARENTS	1024

struct cli_audit {
	pthread_mutex_t mu;
	int fd;				/* -1: syslog */
	bool close;
	size_t lost;			/* lines that could not be written */
	struct { pid_t pid; uint64_t id; } ran[CLI_AUDIT_PARENTS];
	size_t next;			/* the ring's next slot */
	uint64_t next_id;		/* under mu: mcp's last decision id */
};

/*
 * Is DEST's directory beneath a writable directory of the sandbox?  The
 * roots only (uid 0: no permission walk); a directory that cannot be
 * resolved is left to open(2) to report.
 */
static bool
cli_audit_in_sandbox(const struct cli *c, const char *dest, char **why)
{
	const char *slash = strrchr(dest, '/');
	char *dir = slash == NULL ? strdup(".") :
	    strndup(dest, slash == dest ? 1 : (size_t)(slash - dest));
	int r;

	*why = NULL;
	if (dir == NULL)
		return false;
	r = shellesc_path_writable(dir, 0, NULL, 0, c->o.writable.v, why);
	free(dir);
	return r > 0;
}

/* --audit FILE beneath a writable directory: refused, unless --audit-writable. */
static int
cli_audit_check(const struct cli *c, const char *dest)
{
	char *why = NULL;

	if (c->o.sandbox != CLI_SANDBOX_LANDLOCK || c->o.audit_writable ||
	    strcmp(dest, "syslog") == 0 || strcmp(dest, "-") == 0 ||
	    !cli_audit_in_sandbox(c, dest, &why))
		return 0;
	cli_warnx("--audit %s: %s, so the sandboxed side could fill its file system and "
	    "suppress the log; put it elsewhere, or give --audit-writable", dest,
	    why ? why : "it lies beneath a writable directory");
	free(why);
	return -1;
}

int
cli_audit_open(struct cli *c)
{
	struct cli_audit *a;
	const char *dest = c->o.audit;

	if (dest == NULL)
		return 0;
	if (cli_audit_check(c, dest) != 0)
		return -1;
	if ((a = calloc(1, sizeof(*a))) == NULL)
		return cli_oom();
	pthread_mutex_init(&a->mu, NULL);
	c->audit = a;
	a->fd = -1;
	if (strcmp(dest, "syslog") == 0)
		openlog("shellesc", LOG_PID, LOG_AUTHPRIV);
	else if (strcmp(dest, "-") == 0)
		a->fd = STDERR_FILENO;
	else if ((a->fd = open(dest, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY,
	    0600)) < 0) {
		cli_warn("--audit %s", dest);
		return -1;
	} else
		a->close = true;
	return 0;
}

void
cli_audit_close(struct cli *c)
{
	struct cli_audit *a = c->audit;

	if (a == NULL)
		return;
	if (a->lost > 0)
		cli_warnx("--audit %s: %zu events could not be written", c->o.audit, a->lost);
	if (a->close)
		close(a->fd);
	else if (a->fd < 0)
		closelog();
	pthread_mutex_destroy(&a->mu);
	free(a);
	c->audit = NULL;
}

/* {"time": RFC 3339 UTC with milliseconds, "event": event} */
static json_t *
cli_audit_head(const char *event)
{
	struct timespec ts;
	struct tm tm;
	char when[64];
	size_t n;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(when + n, sizeof(when) - n, ".%03ldZ", ts.tv_nsec / 1000000);
	return json_pack("{s:s, s:s}", "time", when, "event", event);
}

/* A line lost: said once; with stop, the session is ended. */
static void
cli_audit_failed(struct cli *c, int err)
{
	struct cli_audit *a = c->audit;

	if (a->lost++ == 0)
		cli_warnx("--audit %s: cannot write: %s; %s", c->o.audit, strerror(err),
		    c->o.audit_stop ? "ending the session (--audit-fail stop)" :
		    "going on without it, escalations denied (--audit-fail warn)");
	if (!c->o.audit_stop)
		return;
	if (c->o.cmd == CLI_EXEC && c->s != NULL)
		shellesc_session_cancel(c->s);
	else if (c->o.cmd == CLI_RUN)
		kill(getpid(), SIGTERM);	/* passed on to PROGRAM (cli-run.c) */
}

/* 0, or -1 when the line was lost (a message said so). */
static int
cli_audit_write(struct cli *c, json_t *j, int prio)
{
	struct cli_audit *a = c->audit;
	char *line = cli_json_line(j);
	size_t len = line ? strlen(line) : 0, off = 0;
	int r = 0;

	pthread_mutex_lock(&a->mu);
	if (line == NULL)
		cli_audit_failed(c, ENOMEM);
	else if (a->fd < 0)
		syslog(prio, "%.*s", (int)len - 1, line);
	while (line && a->fd >= 0 && off < len && r == 0) {
		ssize_t k = write(a->fd, line + off, len - off);

		if (k < 0 && errno != EINTR)
			r = -1;
		off += k > 0 ? (size_t)k : 0;
	}
	if (r != 0)
		cli_audit_failed(c, errno);
	pthread_mutex_unlock(&a->mu);
	free(line);
	return line == NULL ? -1 : r;
}

/* The id of the decision that let ppid run, newest first, as JSON (null:
 * not known); and req's own, if it runs in place, for its children. */
static json_t *
cli_audit_parent(struct cli_audit *a, const struct shellesc_request *req,
    enum shellesc_action act)
{
	pid_t ppid = shellesc_request_ppid(req);
	json_t *id = json_null();

	pthread_mutex_lock(&a->mu);
	for (size_t k = 1; ppid > 0 && k <= CLI_AUDIT_PARENTS; k++) {
		size_t i = (a->next + CLI_AUDIT_PARENTS - k) % CLI_AUDIT_PARENTS;

		if (a->ran[i].pid == ppid) {
			json_decref(id);
			id = json_integer((json_int_t)a->ran[i].id);
			break;
		}
	}
	if (act == SHELLESC_RUN) {
		a->ran[a->next].pid = shellesc_request_pid(req);
		a->ran[a->next].id = shellesc_request_id(req);
		a->next = (a->next + 1) % CLI_AUDIT_PARENTS;
	}
	pthread_mutex_unlock(&a->mu);
	return id;
}

void
cli_audit_call_init(struct cli_audit_call *call)
{
	*call = (struct cli_audit_call){ 0 };
	pthread_mutex_init(&call->mu, NULL);
}

void
cli_audit_call_free(struct cli_audit_call *call)
{
	json_decref(call->call);
	free(call->command);
	free(call->client);
	free(call->client_version);
	free(call->ids);
	pthread_mutex_destroy(&call->mu);
}

/* A new log id for req of call, remembered for its end (0: out of memory,
 * the session's id is used). */
static uint64_t
cli_audit_id_new(struct cli *c, struct cli_audit_call *call, const struct shellesc_request *req)
{
	struct cli_audit_id *ids;
	uint64_t id;

	pthread_mutex_lock(&c->audit->mu);
	id = ++c->audit->next_id;
	pthread_mutex_unlock(&c->audit->mu);
	pthread_mutex_lock(&call->mu);
	if (call->n == call->cap && (ids = reallocarray(call->ids, call->cap * 2 + 8,
	    sizeof(*ids))) != NULL) {
		call->ids = ids;
		call->cap = call->cap * 2 + 8;
	}
	if (call->n < call->cap)
		call->ids[call->n++] = (struct cli_audit_id){ shellesc_request_id(req), id };
	else
		id = 0;
	pthread_mutex_unlock(&call->mu);
	return id;
}

/* The log id of req: exec's session's own, mcp's from its decision. */
static uint64_t
cli_audit_id(struct cli_audit_call *call, const struct shellesc_request *req)
{
	uint64_t id = shellesc_request_id(req);

	if (call == NULL)
		return id;
	pthread_mutex_lock(&call->mu);
	for (size_t i = 0; i < call->n; i++)
		if (call->ids[i].req == shellesc_request_id(req))
			id = call->ids[i].id;
	pthread_mutex_unlock(&call->mu);
	return id;
}

/* What the line belongs to: the id, and the command (and the call). */
static void
cli_audit_whose(struct cli *c, json_t *j, struct cli_audit_call *call, uint64_t id)
{
	json_object_set_new(j, "id", json_integer((json_int_t)id));
	if (call == NULL) {
		json_object_set_new(j, "command", cli_json_str(c->o.command));
		return;
	}
	json_object_set(j, "call", call->call ? call->call : json_null());
	json_object_set_new(j, "command", cli_json_str(call->command));
	json_object_set_new(j, "client", json_pack("{s:o, s:o}", "name",
	    cli_json_str(call->client), "version", cli_json_str(call->client_version)));
}

int
cli_audit_decision(struct cli *c, const struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action act, const char *reason)
{
	uint64_t id;
	json_t *j;

	if (c->audit == NULL)
		return 0;
	id = v->audit ? cli_audit_id_new(c, v->audit, req) : 0;
	if ((j = cli_audit_head("decision")) != NULL) {
		json_object_update_new(j, cli_json_decision(req, v, act, reason));
		cli_audit_whose(c, j, v->audit, id ? id : shellesc_request_id(req));
		json_object_set_new(j, "parent_id", cli_audit_parent(c->audit, req, act));
	}
	return cli_audit_write(c, j, act == SHELLESC_DENY ? LOG_NOTICE : LOG_INFO);
}

void
cli_audit_end(struct cli *c, struct cli_audit_call *call, const struct shellesc_request *req,
    int exit_code, int sig, double seconds)
{
	json_t *j;

	if (c->audit == NULL)
		return;
	if ((j = cli_audit_head("end")) == NULL) {
		cli_audit_write(c, NULL, LOG_INFO);	/* counted as lost */
		return;
	}
	cli_audit_whose(c, j, call, cli_audit_id(call, req));
	json_object_set_new(j, "pid", json_integer(shellesc_request_pid(req)));
	json_object_set_new(j, "ppid", shellesc_request_ppid(req) > 0 ?
	    json_integer(shellesc_request_ppid(req)) : json_null());
	json_object_set_new(j, "program", cli_json_str(shellesc_request_program(req)));
	json_object_set_new(j, "exit_code", sig ? json_null() : json_integer(exit_code));
	json_object_set_new(j, "signal", sig ? json_integer(sig) : json_null());
	json_object_set_new(j, "duration_ms", json_integer((json_int_t)(seconds * 1000 + 0.5)));
	cli_audit_write(c, j, LOG_INFO);
}
