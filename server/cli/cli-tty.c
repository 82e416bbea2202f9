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
 *
 * The question fits the terminal (TIOCGWINSZ; 80x24 if it does not say):
 * every field is one row, the command as many as are left, each cut in
 * the middle with a count of what was left out, and the program that
 * will run and the question's answer line come last.  So no argv, however
 * padded, scrolls the real program off the screen or shows a line of its
 * own making below it.  What is shown is cli_vis'd: one byte, one column.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

#define CLI_TTY_INTR	'\003'	/* Ctrl-C */
#define CLI_TTY_EOF	'\004'	/* Ctrl-D */

/* The answers, in the order the prompt offers them. */
enum cli_tty_ans {
	CLI_TTY_NONE = -1, CLI_TTY_YES, CLI_TTY_RUN, CLI_TTY_NO, CLI_TTY_ALWAYS,
	CLI_TTY_PREFIX, CLI_TTY_ALWAYS_RUN, CLI_TTY_INTERRUPT,
};

struct cli_tty {
	int fd;
	pid_t fg;			/* the foreground group we took over, or -1 */
	bool restore;
	struct termios saved;
	int64_t deadline;		/* ms, CLOCK_MONOTONIC */
	size_t cols, rows;		/* the terminal's size */
	char line[256];
};

#define CLI_TTY_MIN_COLS	40	/* below, a terminal is taken as this wide */

static void
cli_tty_size(struct cli_tty *t)
{
	struct winsize ws;

	t->cols = 80;
	t->rows = 24;
	if (ioctl(t->fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 && ws.ws_row > 0) {
		t->cols = ws.ws_col < CLI_TTY_MIN_COLS ? CLI_TTY_MIN_COLS : ws.ws_col;
		t->rows = ws.ws_row;
	}
}

/* Rows text takes on the terminal (one at least). */
static size_t
cli_tty_rows(const struct cli_tty *t, size_t len)
{
	return len == 0 ? 1 : (len + t->cols - 1) / t->cols;
}

/*
 * "  LABEL TEXT\n" in at most rows rows: a TEXT too long keeps its start
 * and its end, and says how much of its middle was left out.  The last
 * column of the last row stays free, so no terminal wraps early.
 */
static void
cli_tty_field(struct cli_tty *t, const char *label, const char *text, size_t rows)
{
	size_t room = rows * t->cols - 1, head, tail, len;
	char mark[64];

	text = text ? text : "?";
	len = strlen(text);
	if (2 + strlen(label) + 1 + len <= room) {
		dprintf(t->fd, "  %s %s\n", label, text);
		return;
	}
	room -= room < 2 + strlen(label) + 1 ? room : 2 + strlen(label) + 1;
	/* the mark's length depends on the count: take the widest */
	snprintf(mark, sizeof(mark), " [... %zu characters left out ...] ", len);
	head = room > strlen(mark) ? (room - strlen(mark)) / 2 : 0;
	tail = room > strlen(mark) ? room - strlen(mark) - head : 0;
	snprintf(mark, sizeof(mark), " [... %zu characters left out ...] ", len - head - tail);
	dprintf(t->fd, "  %s %.*s%s%s\n", label, (int)head, text, mark, text + len - tail);
}

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

/*
 * The question's fields above the command: label and text (malloc'd; NULL
 * shows as "?").  Each takes the rows it needs, up to CLI_TTY_FIELD_ROWS.
 */
#define CLI_TTY_FIELDS		16
#define CLI_TTY_FIELD_ROWS	3

struct cli_tty_fields {
	const char *label[CLI_TTY_FIELDS];
	char *text[CLI_TTY_FIELDS];
	size_t n;
};

static void
cli_tty_add(struct cli_tty_fields *f, const char *label, char *text)
{
	f->label[f->n] = label;
	f->text[f->n++] = text;
}

/* "%s%s%s" of three strings, malloc'd (NULL: out of memory). */
static char *
cli_tty_cat(const char *a, const char *b, const char *c)
{
	char *s;

	return asprintf(&s, "%s%s%s", a ? a : "?", b, c) < 0 ? NULL : s;
}

/* What one kind of always would add. */
static void
cli_tty_always(struct cli *c, struct cli_tty_fields *f, struct shellesc_request *req,
    enum cli_always how, enum rules_decision d, const struct cli_profile *profile)
{
	char *rule = cli_rules_always_text(c, req, how, d, profile);

	cli_tty_add(f, d == RULES_RUN ? "run:     [ar] adds" : how == CLI_ALWAYS_EXACT ?
	    "always:  [a] adds" : "prefix:  [p] adds", rule ? cli_vis(rule) : NULL);
	free(rule);
}

/* What yes escalates into: the profile, and the directories it adds. */
static void
cli_tty_profile(struct cli_tty_fields *f, const struct cli_profile *p)
{
	char *dirs = p != NULL && p->nwritable > 0 ? cli_profile_dirs(p) : NULL;
	char *s = NULL;

	if (p == NULL)		/* unsandboxed: the question as it always was */
		return;
	if (asprintf(&s, "%s (%s)%s%s", cli_profile_name(p), p->network ?
	    "the sandbox, with the network" : "the sandbox", dirs ? "; also writable: " : "", dirs ? dirs : "") < 0)
		s = NULL;
	cli_tty_add(f, "profile:", s);
	free(dirs);
}

/* Which rule asked, or what "always" would add when none did, and where. */
static void
cli_tty_rule(struct cli *c, struct cli_tty_fields *f, struct shellesc_request *req,
    const struct cli_verdict *v)
{
	char *src = v->source ? cli_vis(v->source) : NULL;
	char *why = v->justification ? cli_vis(v->justification) : NULL;
	bool ok;
	char *file = cli_vis(cli_rules_always_file(c, &ok));

	cli_tty_add(f, "rule:   ", v->rule != RULES_NONE ? cli_tty_cat(src, why ? ": " : "",
	    why ? why : "") : strdup("none matched (--default prompt)"));
	if (v->rule == RULES_NONE && ok) {
		cli_tty_always(c, f, req, CLI_ALWAYS_EXACT, RULES_ESCALATE, v->profile);
		cli_tty_always(c, f, req, CLI_ALWAYS_PREFIX, RULES_ESCALATE, v->profile);
		cli_tty_always(c, f, req, CLI_ALWAYS_PREFIX, RULES_RUN, NULL);
		cli_tty_add(f, "to:     ", cli_tty_cat(file, " (loaded by this session)", ""));
	} else if (v->rule == RULES_NONE)
		cli_tty_add(f, "always: ", cli_tty_cat("not offered: ", file, " cannot be written"));
	cli_tty_profile(f, v->profile);
	free(src);
	free(why);
	free(file);
}

/* The cwd, and that the sandbox can write it. */
static char *
cli_tty_cwd_writable(struct shellesc_request *req)
{
	char *cwd = cli_show(shellesc_request_cwd(req)), *s = cli_tty_cat(cwd,
	    " (the sandbox can write it)", "");

	free(cwd);
	return s;
}

/* Rows label and text take as a field, at most max. */
static size_t
cli_tty_field_rows(const struct cli_tty *t, const char *label, const char *text, size_t max)
{
	size_t rows = cli_tty_rows(t, 2 + strlen(label) + 1 + strlen(text ? text : "?"));

	return rows < max ? rows : max;
}

/* The answer line's text into buf; its length. */
static size_t
cli_tty_ask_text(const struct cli *c, bool always_ok, char *buf, size_t size)
{
	int n = snprintf(buf, size, "Allow it? [y]es escalate, [r]un here, [n]o%s (%d s): ",
	    always_ok ? ", [a]lways, [p]refix, [ar] always run here" : "",
	    c->o.prompt_timeout);

	return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

/* The answer line, which the program line always precedes. */
static void
cli_tty_prompt(struct cli *c, struct cli_tty *t, struct shellesc_request *req,
    bool always_ok)
{
	char *prog = cli_show(cli_request_program(req)), ask[160];
	size_t n = cli_tty_ask_text(c, always_ok, ask, sizeof(ask));

	cli_tty_field(t, "program:", prog, 1);
	free(prog);
	while (write(t->fd, ask, n) < 0 && errno == EINTR)
		;
}

/* The rows the program and answer lines take, and the answer typed on. */
static size_t
cli_tty_rows_below(const struct cli *c, const struct cli_tty *t, bool always_ok)
{
	char ask[160];

	return 1 + cli_tty_rows(t, cli_tty_ask_text(c, always_ok, ask, sizeof(ask)) + 1);
}

/* The caller's argv[0] when it is not the program's name (the command
 * shows what it means), and what each link of a script's #! chain runs. */
static void
cli_tty_exec(struct cli_tty_fields *f, struct shellesc_request *req)
{
	const struct shellesc_target *tg = shellesc_request_target(req);
	char *const *argv = shellesc_request_argv(req);
	char *s;

	if (argv != NULL && argv[0] != NULL && tg->argv != NULL && tg->argv[0] != NULL &&
	    strcmp(argv[0], tg->argv[0]) != 0 && (s = cli_show(argv[0])) != NULL) {
		cli_tty_add(f, "argv[0]:", cli_tty_cat(s, " (called so; the command says "
		    "what it does)", ""));
		free(s);
	}
	for (size_t i = 0; tg->error == 0 && i < tg->ninterp && f->n < CLI_TTY_FIELDS - 8; i++) {
		const struct shellesc_interp *in = &tg->interp[i];

		cli_tty_add(f, "runs:   ", cli_show_argv(in->path ? in->path : in->argv[0],
		    in->argv));
	}
}

/* The command gets the rows the rest leaves, one at least. */
static void
cli_tty_question(struct cli *c, struct cli_tty *t, struct shellesc_request *req,
    const struct cli_verdict *v, bool always_ok)
{
	char *cmd = cli_show_argv(cli_request_program(req), cli_request_argv(req)), pid[32];
	struct cli_tty_fields f = { .n = 0 };
	size_t used = 2 + cli_tty_rows_below(c, t, always_ok);	/* and the header */

	snprintf(pid, sizeof(pid), "%ld", (long)shellesc_request_pid(req));
	cli_tty_exec(&f, req);
	cli_tty_add(&f, "cwd:    ", c->o.sandbox != CLI_SANDBOX_NONE &&
	    shellesc_request_cwd_writable(req) ? cli_tty_cwd_writable(req) :
	    cli_show(shellesc_request_cwd(req)));
	cli_tty_add(&f, "pid:    ", strdup(pid));
	cli_tty_rule(c, &f, req, v);
	for (size_t i = 0; i < f.n; i++)
		used += cli_tty_field_rows(t, f.label[i], f.text[i], CLI_TTY_FIELD_ROWS);
	dprintf(t->fd, "\nshellesc: a command asks to be run (escalated)\n");
	for (size_t i = 0; i < f.n; i++) {
		cli_tty_field(t, f.label[i], f.text[i], CLI_TTY_FIELD_ROWS);
		free(f.text[i]);
	}
	cli_tty_field(t, "command:", cmd, t->rows > used ? t->rows - used : 1);
	free(cmd);
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
		[CLI_TTY_PREFIX] = { "p", "prefix" }, [CLI_TTY_ALWAYS_RUN] = { "ar", "always-run" },
		[CLI_TTY_INTERRUPT] = { "\003", "\003" },
	};

	if (*s == '\0')
		return CLI_TTY_NO;
	for (int i = CLI_TTY_YES; i <= CLI_TTY_INTERRUPT; i++)
		if ((strcasecmp(s, words[i][0]) == 0 || strcasecmp(s, words[i][1]) == 0) &&
		    (always_ok || (i != CLI_TTY_ALWAYS && i != CLI_TTY_PREFIX &&
		    i != CLI_TTY_ALWAYS_RUN)))
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
	static const char *const names[] = { "yes", "run", "no", "always", "prefix",
	    "always-run" };

	if (ans == CLI_TTY_INTERRUPT) {
		dprintf(t->fd, "\nshellesc: interrupted, denied\n");
		return cli_verdict_deny(v, "interrupted", "interrupted");
	}
	v->answer = names[ans];
	*a = ans == CLI_TTY_NO ? SHELLESC_DENY : ans == CLI_TTY_RUN ||
	    ans == CLI_TTY_ALWAYS_RUN ? SHELLESC_RUN : SHELLESC_ESCALATE;
	*always = ans == CLI_TTY_ALWAYS ? CLI_ALWAYS_EXACT :
	    ans == CLI_TTY_PREFIX || ans == CLI_TTY_ALWAYS_RUN ? CLI_ALWAYS_PREFIX :
	    CLI_ALWAYS_NO;
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

	cli_tty_size(t);
	cli_tty_question(c, t, req, v, always_ok);
	cli_tty_prompt(c, t, req, always_ok);
	while (ans == CLI_TTY_NONE) {
		if ((w = cli_tty_read(t, wake)) != CLI_WAIT_READY)
			return cli_tty_failed(c, t, v, w);
		if ((ans = cli_tty_answer(t->line, always_ok)) == CLI_TTY_NONE) {
			dprintf(t->fd, "shellesc: please answer y, r or n%s\n",
			    always_ok ? ", a, p or ar" : "");
			cli_tty_prompt(c, t, req, always_ok);
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
