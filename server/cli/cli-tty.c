/*
 * cli-tty.c: asking a person on shellesc's controlling terminal, never on
 * the command's stdio (which may be a pipe, a file, or the very program
 * asking).  The question shows the command, its cwd, its pid and the rule;
 * the answer is yes (escalate once), no (deny) or, for a command no rule
 * matched, always (escalate and remember it in the user's rules file).
 *
 * Always is offered only there: rules combine by strictness, so an added
 * escalate rule could never outweigh a prompt rule that matches too.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"


struct cli_tty {
	int fd;
	pid_t fg;			/* the foreground group we took over, or -1 */
	bool restore;
	struct termios saved;
	int64_t deadline;		/* ms, CLOCK_MONOTONIC */
	char line[256];
};

/*
 * Become the terminal's foreground group (a job-control shell may hold
 * it: reading would then fail) and make sure the answer is echoed and
 * line-buffered, whatever mode the command left the terminal in.  The
 * input queued so far is discarded (TCSAFLUSH, as sudo does when it asks
 * for a password): an answer is only what is typed after the question.
 */
static void
cli_tty_take(struct cli_tty *t)
{
	struct termios tio;

	t->fg = tcgetpgrp(t->fd);
	if (t->fg <= 0 || t->fg == getpgrp() || tcsetpgrp(t->fd, getpgrp()) != 0)
		t->fg = -1;
	if (tcgetattr(t->fd, &t->saved) != 0)
		return;
	tio = t->saved;
	tio.c_lflag |= ICANON | ECHO;
	tio.c_iflag |= ICRNL;
	t->restore = tcsetattr(t->fd, TCSAFLUSH, &tio) == 0;
}

static void
cli_tty_give(struct cli_tty *t)
{
	if (t->restore)
		tcsetattr(t->fd, TCSADRAIN, &t->saved);
	if (t->fg > 0)
		tcsetpgrp(t->fd, t->fg);
}

/* Which rule asked, or what "always" would add when none did. */
static void
cli_tty_rule(struct cli *c, struct cli_tty *t, struct shellesc_request *req,
    const struct cli_verdict *v)
{
	char *src = v->source ? cli_vis(v->source) : NULL, *always = NULL, *shown = NULL;
	char *why = v->justification ? cli_vis(v->justification) : NULL;

	if (v->rule != RULES_NONE)
		dprintf(t->fd, "  rule:    %s%s%s\n", src ? src : "?", why ? ": " : "",
		    why ? why : "");
	else if ((always = cli_rules_always_text(c, shellesc_request_program(req),
	    shellesc_request_argv(req))) != NULL && (shown = cli_vis(always)) != NULL)
		dprintf(t->fd, "  rule:    none matched (--default prompt)\n"
		    "  always:  adds %s\n", shown);
	else
		dprintf(t->fd, "  rule:    none matched (--default prompt)\n");
	free(src);
	free(why);
	free(always);
	free(shown);
}

static void
cli_tty_question(struct cli *c, struct cli_tty *t, struct shellesc_request *req,
    const struct cli_verdict *v)
{
	char *cmd = cli_show_argv(shellesc_request_program(req), shellesc_request_argv(req));
	char *cwd = cli_show(shellesc_request_cwd(req));

	dprintf(t->fd, "\nshellesc: a command asks to be run (escalated)\n"
	    "  command: %s\n  cwd:     %s\n  pid:     %ld\n",
	    cmd ? cmd : "?", cwd ? cwd : "?", (long)shellesc_request_pid(req));
	cli_tty_rule(c, t, req, v);
	free(cmd);
	free(cwd);
}

static void
cli_tty_prompt(struct cli *c, struct cli_tty *t, bool always_ok)
{
	dprintf(t->fd, "Allow it? [y]es, [n]o%s (%d s): ", always_ok ? ", [a]lways" : "",
	    c->o.prompt_timeout);
}

/* One line into t->line (without its newline), within the deadline;
 * CLI_WAIT_ERROR also for the end of input. */
static enum cli_wait
cli_tty_read(struct cli_tty *t, int wake)
{
	size_t n = 0;

	for (;;) {
		struct pollfd p = { .fd = t->fd, .events = POLLIN };
		enum cli_wait w = cli_prompt_poll(&p, 1, wake, t->deadline);
		ssize_t k;

		if (w != CLI_WAIT_READY)
			return w;
		if (!p.revents)
			continue;
		if ((k = read(t->fd, t->line + n, sizeof(t->line) - 1 - n)) < 0 &&
		    (errno == EINTR || errno == EAGAIN))
			continue;
		if (k <= 0)
			return CLI_WAIT_ERROR;
		n += (size_t)k;
		t->line[n] = '\0';
		if (memchr(t->line, '\n', n) || n == sizeof(t->line) - 1)
			break;
	}
	t->line[strcspn(t->line, "\r\n")] = '\0';
	return CLI_WAIT_READY;
}

/* 1: y, 0: n (or nothing), 2: always; -1: none of those. */
static int
cli_tty_answer(const char *s, bool always_ok)
{
	if (strcasecmp(s, "y") == 0 || strcasecmp(s, "yes") == 0)
		return 1;
	if (*s == '\0' || strcasecmp(s, "n") == 0 || strcasecmp(s, "no") == 0)
		return 0;
	if (always_ok && (strcasecmp(s, "a") == 0 || strcasecmp(s, "always") == 0))
		return 2;
	return -1;
}

static int
cli_tty_dialog(struct cli *c, struct cli_tty *t, struct shellesc_request *req,
    struct cli_verdict *v, int wake, enum shellesc_action *a, bool *always)
{
	bool always_ok = v->rule == RULES_NONE;
	int ans = -1;

	cli_tty_question(c, t, req, v);
	cli_tty_prompt(c, t, always_ok);
	while (ans < 0) {
		switch (cli_tty_read(t, wake)) {
		case CLI_WAIT_READY:
			break;
		case CLI_WAIT_TIMEOUT:
			dprintf(t->fd, "\nshellesc: no answer, denied\n");
			return cli_verdict_deny(v, "timeout", "no answer in time (--prompt-timeout %d)",
			    c->o.prompt_timeout);
		case CLI_WAIT_WOKEN:
			dprintf(t->fd, "\nshellesc: the session ended, denied\n");
			return cli_verdict_deny(v, "abandoned", "the session ended before an answer");
		default:
			return cli_verdict_deny(v, "error", "the terminal closed before an answer");
		}
		if ((ans = cli_tty_answer(t->line, always_ok)) < 0) {
			dprintf(t->fd, "shellesc: please answer y or n%s\n", always_ok ? " or a" : "");
			cli_tty_prompt(c, t, always_ok);
		}
	}
	v->answer = ans == 0 ? "no" : ans == 1 ? "yes" : "always";
	*a = ans == 0 ? SHELLESC_DENY : SHELLESC_ESCALATE;
	*always = ans == 2;
	if (ans == 0)
		cli_verdict_deny(v, "no", "denied at the terminal");
	return 0;
}

int
cli_tty_ask(struct cli *c, struct shellesc_request *req, struct cli_verdict *v,
    int wake, enum shellesc_action *a, bool *always)
{
	struct cli_tty t = { .fd = -1 };
	int r;

	v->asked = "tty";
	if ((t.fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)) < 0)
		return cli_verdict_deny(v, "no-terminal", "no terminal to ask for approval");
	t.deadline = cli_prompt_deadline(c);
	cli_tty_take(&t);
	r = cli_tty_dialog(c, &t, req, v, wake, a, always);
	cli_tty_give(&t);
	close(t.fd);
	return r;
}
