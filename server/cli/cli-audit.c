/*
 * cli-audit.c: --audit DEST, one JSON object per line per event: a
 * "decision" for every request, an "end" for every escalated command (the
 * same "id" ties them).  Lines are written whole under a mutex: decisions
 * come from the loop and prompt threads, ends from the loop thread.
 *
 * A line that cannot be written (--audit-fail): warn says so once and goes
 * on, counting the lines lost (reported at the end); stop denies the
 * request it was for and ends the session -- run's PROGRAM gets SIGTERM
 * as if shellesc had, exec's shell is cancelled.
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

struct cli_audit {
	pthread_mutex_t mu;
	int fd;				/* -1: syslog */
	bool close;
	size_t lost;			/* lines that could not be written */
};

int
cli_audit_open(struct cli *c)
{
	struct cli_audit *a;
	const char *dest = c->o.audit;

	if (dest == NULL)
		return 0;
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
		    "going on without it (--audit-fail warn)");
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

int
cli_audit_decision(struct cli *c, const struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action act, const char *reason)
{
	json_t *j;

	if (c->audit == NULL)
		return 0;
	if ((j = cli_audit_head("decision")) != NULL)
		json_object_update_new(j, cli_json_decision(req, v, act, reason));
	return cli_audit_write(c, j, act == SHELLESC_DENY ? LOG_NOTICE : LOG_INFO);
}

void
cli_audit_end(struct cli *c, const struct shellesc_request *req,
    int exit_code, int sig, double seconds)
{
	json_t *j;

	if (c->audit == NULL)
		return;
	if ((j = cli_audit_head("end")) == NULL) {
		cli_audit_write(c, NULL, LOG_INFO);	/* counted as lost */
		return;
	}
	json_object_set_new(j, "id", json_integer((json_int_t)shellesc_request_id(req)));
	json_object_set_new(j, "pid", json_integer(shellesc_request_pid(req)));
	json_object_set_new(j, "program", cli_json_str(shellesc_request_program(req)));
	json_object_set_new(j, "exit_code", sig ? json_null() : json_integer(exit_code));
	json_object_set_new(j, "signal", sig ? json_integer(sig) : json_null());
	json_object_set_new(j, "duration_ms", json_integer((json_int_t)(seconds * 1000 + 0.5)));
	cli_audit_write(c, j, LOG_INFO);
}
