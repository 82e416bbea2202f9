/*
 * cli-approver.c: --approver CMD, a program that answers prompts.
 *
 * Per prompt, /bin/sh -c CMD runs in its own process group with the
 * request as one JSON object on stdin, and answers one JSON object on
 * stdout: {"decision": "run"|"escalate"|"deny", "reason": "...", "always":
 * "exact"|"prefix"}, with Codex's "allow" for escalate and "forbidden" for
 * deny; "always" (optional, with run or escalate, and only when the request
 * says "always_offered": true) adds the rule a person's a, p or ar would,
 * deciding as answered, to the learned file.  Anything
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
#include <limits.h>
#include <sys/pidfd.h>
#include <sys/stat.h>
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

/* "exact" or "prefix" (or absent) into *always; 0, or -1 after the deny. */
static int
cli_ap_always(struct cli *c, json_t *j, enum shellesc_action a, struct cli_verdict *v,
    enum cli_always *always)
{
	json_t *w = json_object_get(j, "always");
	const char *s = json_string_value(w);

	if (w == NULL)
		return 0;
	if (s == NULL || (strcmp(s, "exact") != 0 && strcmp(s, "prefix") != 0))
		return cli_verdict_deny(v, "error", "the approver's \"always\" is not "
		    "\"exact\" or \"prefix\"");
	if (a == SHELLESC_DENY || !cli_prompt_always_ok(c, v))
		return cli_verdict_deny(v, "error", "the approver answered \"always\" where it "
		    "is not offered (run or escalate only, and \"always_offered\")");
	*always = strcmp(s, "exact") == 0 ? CLI_ALWAYS_EXACT : CLI_ALWAYS_PREFIX;
	return 0;
}

/* A decision's name, ours or Codex's, as an action; -1: none. */
static int
cli_ap_decision(const char *d, const char **name)
{
	static const struct { const char *name; enum shellesc_action a; } names[] = {
		{ "run", SHELLESC_RUN }, { "escalate", SHELLESC_ESCALATE },
		{ "deny", SHELLESC_DENY }, { "allow", SHELLESC_ESCALATE },
		{ "forbidden", SHELLESC_DENY },
	};

	for (size_t i = 0; d && i < sizeof(names) / sizeof(names[0]); i++)
		if (strcmp(d, names[i].name) == 0) {
			*name = names[i].name;
			return (int)names[i].a;
		}
	return -1;
}

/* The answer, as the comment at the top says. */
static int
cli_ap_parse(struct cli *c, struct cli_ap *ap, struct cli_verdict *v,
    enum shellesc_action *a, enum cli_always *always)
{
	json_error_t err;
	json_t *j = json_loadb(ap->ans, ap->anslen, 0, &err);
	const char *d = json_string_value(json_object_get(j, "decision"));
	const char *why = json_string_value(json_object_get(j, "reason")), *name = NULL;
	int k = cli_ap_decision(d, &name), r = -1;

	if (j == NULL)
		cli_verdict_deny(v, "error", "the approver's answer is not JSON: %s", err.text);
	else if (d == NULL)
		cli_verdict_deny(v, "error", "the approver's answer has no \"decision\" string");
	else if (k < 0)
		cli_verdict_deny(v, "error", "the approver answered an unknown decision '%.64s' "
		    "(expected run, escalate or allow, deny or forbidden)", d);
	else if ((r = cli_ap_always(c, j, (enum shellesc_action)k, v, always)) == 0) {
		*a = (enum shellesc_action)k;
		v->answer = name;
		if (*a == SHELLESC_DENY)
			cli_verdict_deny(v, name, "%s", why && *why ? why : "denied by the approver");
	}
	json_decref(j);
	return r;
}

static int
cli_ap_result(struct cli *c, struct cli_ap *ap, enum cli_wait got,
    struct cli_verdict *v, enum shellesc_action *a, enum cli_always *always)
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
	return cli_ap_parse(c, ap, v, a, always);
}

int
cli_approver_ask(struct cli *c, struct shellesc_request *req,
    struct cli_verdict *v, int wake, enum shellesc_action *a, enum cli_always *always)
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
	json_object_set_new(j, "always_offered", json_boolean(cli_prompt_always_ok(c, v)));
	ap->req = cli_json_line(j);
	ap->reqlen = ap->req ? strlen(ap->req) : 0;
	ap->deadline = cli_prompt_deadline(c);
	if (ap->req == NULL || cli_ap_spawn(c, ap) != 0)
		r = cli_verdict_deny(v, "error", "cannot start the approver: %s", strerror(errno));
	else
		r = cli_ap_result(c, ap, cli_ap_io(ap, wake), v, a, always);
	cli_ap_end(ap);
	free(ap);
	return r;
}

/* Words /bin/sh runs without a file: the approver's first word may be one. */
static bool
cli_ap_builtin(const char *w)
{
	static const char *const builtins[] = { ":", ".", "cd", "command", "echo", "eval",
	    "exec", "exit", "export", "false", "printf", "read", "set", "test", "[",
	    "true", "type", "ulimit", "umask", "unset", "wait", "if", "for", "while",
	    "case", "until", "{", "!", "kill", "trap", "pwd", "readonly", "times",
	    "getopts", "hash", "alias", "local", "return", "shift", "break", "continue",
	    NULL };

	for (size_t i = 0; builtins[i]; i++)
		if (strcmp(w, builtins[i]) == 0)
			return true;
	return false;
}

/*
 * At start: the program of --approver CMD (its first word) exists and can
 * be executed, so a typo is found now, not at the first prompt.  A first
 * word the shell would expand or assign (quotes, $, =, ...) or a builtin
 * is left to the shell.
 */
int
cli_approver_check(const char *cmd)
{
	size_t at = strspn(cmd, " \t\n"), len = strcspn(cmd + at, " \t\n;&|<>()");
	char word[PATH_MAX], *found = NULL;
	struct stat st;

	if (len == 0 || len >= sizeof(word)) {
		cli_warnx("--approver '%s': no program to run", cmd);
		return -1;
	}
	memcpy(word, cmd + at, len);
	word[len] = '\0';
	if (strpbrk(word, "'\"\\$`=*?[~#{}") != NULL || cli_ap_builtin(word))
		return 0;
	if (strchr(word, '/') == NULL && (found = cli_path_search(word)) == NULL) {
		cli_warnx("--approver: %s: not found in PATH", word);
		return -1;
	}
	errno = 0;
	if (found == NULL && (stat(word, &st) != 0 || !S_ISREG(st.st_mode) ||
	    access(word, X_OK) != 0)) {
		cli_warnx("--approver: %s: %s", word, errno ? strerror(errno) : "not executable");
		return -1;
	}
	free(found);
	return 0;
}
