/*
 * cli-tty.c: asking a person on shellesc's controlling terminal, never on
 * the command's stdio (which may be a pipe, a file, or the very program
 * asking).  The question shows the command, its cwd, its pid and the rule;
 * the answer is y (escalate once), r (run it here, in the sandbox), n
 * (deny) or, for a command no rule matched, a (escalate this exact command
 * from now on) or p (escalate it and any longer command it starts), each
 * shown as the rule it adds and the file it goes to (cli-rules.c).
 * Ctrl-C and Ctrl-D deny at once: while asking, they end the line (VEOL,
 * VEOL2) instead of signalling or ending the input.
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

#define CLI_TTY_INTR	'\003'	/* Ctrl-C */
#define CLI_TTY_EOF	'\004'	/* Ctrl-D */

/* The answers, in the order the prompt offers them. */
enum cli_tty_ans {
	CLI_TTY_NONE = -1, CLI_TTY_YES, CLI_TTY_RUN, CLI_TTY_NO, CLI_TTY_ALWAYS,
	CLI_TTY_PREFIX, CLI_TTY_INTERRUPT,
};

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
	tio.c_lflag |= ICANON | ECHO | IEXTEN;
	tio.c_lflag &= ~(tcflag_t)ISIG;
	tio.c_iflag |= ICRNL;
	tio.c_cc[VEOL] = CLI_TTY_INTR;
	tio.c_cc[VEOL2] = CLI_TTY_EOF;
	tio.c_cc[VEOF] = _POSIX_VDISABLE;
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

/* "  LABEL [K] adds RULE\n", what one kind of always would add. */
static void
cli_tty_always(struct cli *c, struct cli_tty *t, struct shellesc_request *req,
    enum cli_always how)
{
	char *rule = cli_rules_always_text(c, cli_request_program(req),
	    cli_request_argv(req), how);
	char *shown = rule ? cli_vis(rule) : NULL;

	dprintf(t->fd, "  %s %s\n", how == CLI_ALWAYS_EXACT ? "always:  [a] adds" :
	    "prefix:  [p] adds", shown ? shown : "?");
	free(rule);
	free(shown);
}

/* Which rule asked, or what "always" would add when none did, and where. */
static void
cli_tty_rule(struct cli *c, struct cli_tty *t, struct shellesc_request *req,
    const struct cli_verdict *v)
{
	char *src = v->source ? cli_vis(v->source) : NULL;
	char *why = v->justification ? cli_vis(v->justification) : NULL;
	bool ok;
	char *file = cli_vis(cli_rules_always_file(c, &ok));

	if (v->rule != RULES_NONE)
		dprintf(t->fd, "  rule:    %s%s%s\n", src ? src : "?", why ? ": " : "",
		    why ? why : "");
	else
		dprintf(t->fd, "  rule:    none matched (--default prompt)\n");
	if (v->rule == RULES_NONE && ok) {
		cli_tty_always(c, t, req, CLI_ALWAYS_EXACT);
		cli_tty_always(c, t, req, CLI_ALWAYS_PREFIX);
		dprintf(t->fd, "  to:      %s (loaded by this session)\n", file ? file : "?");
	} else if (v->rule == RULES_NONE)
		dprintf(t->fd, "  always:  not offered: %s cannot be written\n", file ? file : "?");
	free(src);
	free(why);
	free(file);
}

static void
cli_tty_question(struct cli *c, struct cli_tty *t, struct shellesc_request *req,
    const struct cli_verdict *v)
{
	char *cmd = cli_show_argv(cli_request_program(req), cli_request_argv(req));
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
	dprintf(t->fd, "Allow it? [y]es escalate, [r]un here, [n]o%s (%d s): ",
	    always_ok ? ", [a]lways, [p]refix" : "", c->o.prompt_timeout);
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
		if (strpbrk(t->line, "\n\003\004") || n == sizeof(t->line) - 1)
			break;
	}
	if (strpbrk(t->line, "\003\004") != NULL)
		strlcpy(t->line, "\003", sizeof(t->line));
	t->line[strcspn(t->line, "\r\n")] = '\0';
	return CLI_WAIT_READY;
}

static enum cli_tty_ans
cli_tty_answer(const char *s, bool always_ok)
{
	static const char *const words[][2] = {
		[CLI_TTY_YES] = { "y", "yes" }, [CLI_TTY_RUN] = { "r", "run" },
		[CLI_TTY_NO] = { "n", "no" }, [CLI_TTY_ALWAYS] = { "a", "always" },
		[CLI_TTY_PREFIX] = { "p", "prefix" }, [CLI_TTY_INTERRUPT] = { "\003", "\003" },
	};

	if (*s == '\0')
		return CLI_TTY_NO;
	for (int i = CLI_TTY_YES; i <= CLI_TTY_INTERRUPT; i++)
		if ((strcasecmp(s, words[i][0]) == 0 || strcasecmp(s, words[i][1]) == 0) &&
		    (always_ok || (i != CLI_TTY_ALWAYS && i != CLI_TTY_PREFIX)))
			return i;
	return CLI_TTY_NONE;
}

/* The question's end other than an answer: -1 with the deny recorded. */
static int
cli_tty_failed(struct cli *c, struct cli_tty *t, struct cli_verdict *v, enum cli_wait w)
{
	switch (w) {
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
}

/* What was answered, into v, *a and *always; 0 or -1 (a deny). */
static int
cli_tty_apply(struct cli_tty *t, struct cli_verdict *v, enum cli_tty_ans ans,
    enum shellesc_action *a, enum cli_always *always)
{
	static const char *const names[] = { "yes", "run", "no", "always", "prefix" };

	if (ans == CLI_TTY_INTERRUPT) {
		dprintf(t->fd, "\nshellesc: interrupted, denied\n");
		return cli_verdict_deny(v, "interrupted", "interrupted");
	}
	v->answer = names[ans];
	*a = ans == CLI_TTY_NO ? SHELLESC_DENY : ans == CLI_TTY_RUN ? SHELLESC_RUN :
	    SHELLESC_ESCALATE;
	*always = ans == CLI_TTY_ALWAYS ? CLI_ALWAYS_EXACT :
	    ans == CLI_TTY_PREFIX ? CLI_ALWAYS_PREFIX : CLI_ALWAYS_NO;
	if (ans == CLI_TTY_NO)
		cli_verdict_deny(v, "no", "denied at the terminal");
	return 0;
}

static int
cli_tty_dialog(struct cli *c, struct cli_tty *t, struct shellesc_request *req,
    struct cli_verdict *v, int wake, enum shellesc_action *a, enum cli_always *always)
{
	bool always_ok = cli_prompt_always_ok(c, v);
	enum cli_tty_ans ans = CLI_TTY_NONE;
	enum cli_wait w;

	cli_tty_question(c, t, req, v);
	cli_tty_prompt(c, t, always_ok);
	while (ans == CLI_TTY_NONE) {
		if ((w = cli_tty_read(t, wake)) != CLI_WAIT_READY)
			return cli_tty_failed(c, t, v, w);
		if ((ans = cli_tty_answer(t->line, always_ok)) == CLI_TTY_NONE) {
			dprintf(t->fd, "shellesc: please answer y, r or n%s\n",
			    always_ok ? ", a or p" : "");
			cli_tty_prompt(c, t, always_ok);
		}
	}
	return cli_tty_apply(t, v, ans, a, always);
}

int
cli_tty_ask(struct cli *c, struct shellesc_request *req, struct cli_verdict *v,
    int wake, enum shellesc_action *a, enum cli_always *always)
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
