/*
 * cli-approver.c: --approver CMD, a program that answers prompts.
 *
 * Per prompt, /bin/sh -c CMD runs in its own process group with the
 * request as one JSON object on stdin, and answers one JSON object on
 * stdout: {"decision": "run"|"escalate"|"deny", "reason": "..."}.  Anything
 * else -- a crash, a non-zero exit, bad JSON, no answer in time -- is a
 * deny whose reason says which.  Its whole process group is killed once
 * it has answered or failed, so nothing it started outlives the question;
 * PR_SET_PDEATHSIG covers our own death.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli-json.h"

#define CLI_APPROVER_MAX 65536	/* bytes of answer */

struct cli_ap {
	pid_t pid;
	int pidfd, in, out;
	char *req;			/* the request, as sent */
	size_t reqlen, sent;
	char ans[CLI_APPROVER_MAX];
	size_t anslen;
	int64_t deadline;
	bool reaped;
	int status;
};

static void __attribute__((noreturn))
cli_ap_child(const char *cmd, int in, int out)
{
	sigset_t none;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (dup2(in, 0) < 0 || dup2(out, 1) < 0)
		_exit(126);
	close_range(3, ~0U, 0);
	execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
	_exit(127);
}

static int
cli_ap_spawn(struct cli *c, struct cli_ap *ap)
{
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(out, O_CLOEXEC) != 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	if ((ap->pid = fork()) == 0)
		cli_ap_child(c->o.approver, in[0], out[1]);
	close(in[0]);
	close(out[1]);
	ap->in = in[1];
	ap->out = out[0];
	if (ap->pid < 0)
		return -1;
	setpgid(ap->pid, ap->pid);	/* here too: no race with our kill */
	fcntl(ap->in, F_SETFL, O_NONBLOCK);
	return (ap->pidfd = pidfd_open(ap->pid, 0)) < 0 ? -1 : 0;
}

static int
cli_ap_send(struct cli_ap *ap)
{
	ssize_t k = write(ap->in, ap->req + ap->sent, ap->reqlen - ap->sent);

	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return 0;
	/* EPIPE: it answers without reading the request, which is its right */
	if (k < 0 && errno != EPIPE)
		return -1;
	if (k > 0)
		ap->sent += (size_t)k;
	if (k < 0 || ap->sent == ap->reqlen) {
		close(ap->in);
		ap->in = -1;
	}
	return 0;
}

static int
cli_ap_recv(struct cli_ap *ap)
{
	ssize_t k = read(ap->out, ap->ans + ap->anslen, sizeof(ap->ans) - ap->anslen);

	if (k < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -1;
	if (k == 0) {
		close(ap->out);
		ap->out = -1;
	}
	ap->anslen += (size_t)k;
	return ap->anslen == sizeof(ap->ans) ? -1 : 0;
}

/* Feed the request and collect the answer to EOF, then wait for the exit.
 * An answer too large is CLI_WAIT_ERROR with anslen at the maximum. */
static enum cli_wait
cli_ap_io(struct cli_ap *ap, int wake)
{
	while (!ap->reaped) {
		struct pollfd p[3] = { { ap->in, POLLOUT, 0 }, { ap->out, POLLIN, 0 },
		    { ap->out < 0 ? ap->pidfd : -1, POLLIN, 0 } };
		enum cli_wait w = cli_prompt_poll(p, 3, wake, ap->deadline);

		if (w != CLI_WAIT_READY)
			return w;
		if ((p[0].revents && cli_ap_send(ap) != 0) ||
		    (p[1].revents && cli_ap_recv(ap) != 0))
			return CLI_WAIT_ERROR;
		if (p[2].revents && waitpid(ap->pid, &ap->status, 0) == ap->pid)
			ap->reaped = true;
	}
	return CLI_WAIT_READY;
}

/* Its whole group goes, answered or not; then every fd. */
static void
cli_ap_end(struct cli_ap *ap)
{
	int fds[] = { ap->in, ap->out, ap->pidfd };

	if (ap->pid > 0) {
		kill(-ap->pid, SIGKILL);
		if (!ap->reaped)
			waitpid(ap->pid, &ap->status, 0);
	}
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(ap->req);
}

/* The answer: {"decision": "run"|"escalate"|"deny", "reason": "..."}. */
static int
cli_ap_parse(struct cli_ap *ap, struct cli_verdict *v, enum shellesc_action *a)
{
	static const char *const names[] = { "run", "escalate", "deny" };
	json_error_t err;
	json_t *j = json_loadb(ap->ans, ap->anslen, 0, &err);
	const char *d = json_string_value(json_object_get(j, "decision"));
	const char *why = json_string_value(json_object_get(j, "reason"));
	int r = -1;

	if (j == NULL)
		cli_verdict_deny(v, "error", "the approver's answer is not JSON: %s", err.text);
	else if (d == NULL)
		cli_verdict_deny(v, "error", "the approver's answer has no \"decision\" string");
	for (int i = 0; d && r < 0 && i < 3; i++)
		if (strcmp(d, names[i]) == 0) {
			*a = (enum shellesc_action)i;	/* SHELLESC_RUN, _ESCALATE, _DENY */
			v->answer = names[i];
			r = 0;
		}
	if (d && r < 0)
		cli_verdict_deny(v, "error", "the approver answered an unknown decision '%.64s'", d);
	else if (r == 0 && *a == SHELLESC_DENY)
		cli_verdict_deny(v, "deny", "%s", why && *why ? why : "denied by the approver");
	json_decref(j);
	return r;
}

static int
cli_ap_result(struct cli *c, struct cli_ap *ap, enum cli_wait got,
    struct cli_verdict *v, enum shellesc_action *a)
{
	switch (got) {
	case CLI_WAIT_TIMEOUT:
		return cli_verdict_deny(v, "timeout", "the approver did not answer in time "
		    "(--prompt-timeout %d)", c->o.prompt_timeout);
	case CLI_WAIT_WOKEN:
		return cli_verdict_deny(v, "abandoned", "the session ended before the approver answered");
	case CLI_WAIT_ERROR:
		if (ap->anslen == sizeof(ap->ans))
			return cli_verdict_deny(v, "error", "the approver's answer is over %d bytes",
			    CLI_APPROVER_MAX - 1);
		return cli_verdict_deny(v, "error", "talking to the approver: %s", strerror(errno));
	case CLI_WAIT_READY:
		break;
	}
	if (WIFSIGNALED(ap->status))
		return cli_verdict_deny(v, "crash", "the approver was killed by signal %d (SIG%s)",
		    WTERMSIG(ap->status), sigabbrev_np(WTERMSIG(ap->status)));
	if (WEXITSTATUS(ap->status) != 0)
		return cli_verdict_deny(v, "crash", "the approver exited with status %d",
		    WEXITSTATUS(ap->status));
	return cli_ap_parse(ap, v, a);
}

int
cli_approver_ask(struct cli *c, struct shellesc_request *req,
    struct cli_verdict *v, int wake, enum shellesc_action *a)
{
	struct cli_ap *ap = calloc(1, sizeof(*ap));
	json_t *j = cli_json_request(req, v);
	int r;

	v->asked = "approver";
	if (ap == NULL || j == NULL) {
		json_decref(j);
		free(ap);
		return cli_verdict_deny(v, "error", "out of memory to ask the approver");
	}
	ap->in = ap->out = ap->pidfd = -1;
	json_object_set_new(j, "timeout", json_integer(c->o.prompt_timeout));
	ap->req = cli_json_line(j);
	ap->reqlen = ap->req ? strlen(ap->req) : 0;
	ap->deadline = cli_prompt_deadline(c);
	if (ap->req == NULL || cli_ap_spawn(c, ap) != 0)
		r = cli_verdict_deny(v, "error", "cannot start the approver: %s", strerror(errno));
	else
		r = cli_ap_result(c, ap, cli_ap_io(ap, wake), v, a);
	cli_ap_end(ap);
	free(ap);
	return r;
}
