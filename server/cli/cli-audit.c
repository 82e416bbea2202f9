/*
 * cli-audit.c: --audit DEST, one JSON object per line per event: a
 * "decision" for every request, an "end" for every escalated command (the
 * same "id" ties them).  Lines are written whole under a mutex: decisions
 * come from the loop and prompt threads, ends from the loop thread.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
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

static void
cli_audit_write(struct cli *c, json_t *j, int prio)
{
	struct cli_audit *a = c->audit;
	char *line = cli_json_line(j);
	size_t len = line ? strlen(line) : 0, off = 0;

	if (line == NULL) {
		cli_warnx("cannot write an audit event: out of memory");
		return;
	}
	pthread_mutex_lock(&a->mu);
	if (a->fd < 0)
		syslog(prio, "%.*s", (int)len - 1, line);
	while (a->fd >= 0 && off < len) {
		ssize_t k = write(a->fd, line + off, len - off);

		if (k < 0 && errno != EINTR) {
			cli_warn("audit write");
			break;
		}
		off += k > 0 ? (size_t)k : 0;
	}
	pthread_mutex_unlock(&a->mu);
	free(line);
}

void
cli_audit_decision(struct cli *c, const struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action act, const char *reason)
{
	json_t *j;

	if (c->audit == NULL || (j = cli_audit_head("decision")) == NULL)
		return;
	json_object_update_new(j, cli_json_request(req, v));
	json_object_set_new(j, "decision", json_string(cli_action_name(act)));
	json_object_set_new(j, "reason", cli_json_str(reason));
	json_object_set_new(j, "asked", cli_json_str(v->asked));
	json_object_set_new(j, "answer", cli_json_str(v->answer));
	cli_audit_write(c, j, act == SHELLESC_DENY ? LOG_NOTICE : LOG_INFO);
}

void
cli_audit_end(struct cli *c, const struct shellesc_request *req,
    int exit_code, int sig, double seconds)
{
	json_t *j;

	if (c->audit == NULL || (j = cli_audit_head("end")) == NULL)
		return;
	json_object_set_new(j, "id", json_integer((json_int_t)shellesc_request_id(req)));
	json_object_set_new(j, "pid", json_integer(shellesc_request_pid(req)));
	json_object_set_new(j, "program", cli_json_str(shellesc_request_program(req)));
	json_object_set_new(j, "exit_code", sig ? json_null() : json_integer(exit_code));
	json_object_set_new(j, "signal", sig ? json_integer(sig) : json_null());
	json_object_set_new(j, "duration_ms", json_integer((json_int_t)(seconds * 1000 + 0.5)));
	cli_audit_write(c, j, LOG_INFO);
}
