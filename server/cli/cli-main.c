/*
 * cli-main.c: shellesc's main(), its messages, and showing untrusted
 * strings (argv, paths) safely on a terminal.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <vis.h>

#include "cli.h"
#include "proto.h"

const char cli_usage_text[] =
    "usage: shellesc run [OPTIONS] [--] PROGRAM [ARG...]\n"
    "       shellesc check [-p FILE]... [--default DECISION] [--json] [--] ARGV...\n"
    "       shellesc exec [OPTIONS] [--shell PATH] [--login|--no-login] [--timeout SEC]\n"
    "                     [--cwd DIR] -c COMMAND\n"
    "       shellesc mcp [OPTIONS] [--shell PATH] [--max-output BYTES]\n"
    "       shellesc --version | --help\n"
    "\n"
    "Run PROGRAM (run) or one command string (exec) behind an approval gate at\n"
    "execve(2): each program started in its process tree is decided by rules files\n"
    "first: run in place, escalate (run by shellesc, outside the sandbox), deny, or\n"
    "prompt.  check prints what the rules decide for ARGV.  mcp serves the same as\n"
    "the MCP tool \"shell\" on stdin and stdout, for agents.\n"
    "\n"
    "Options of run, exec and mcp:\n"
    "  -p, --policy FILE         load a rules file; repeatable.  Without it: every\n"
    "                            *.rules file in $XDG_CONFIG_HOME/shellesc/rules\n"
    "                            (default ~/.config/shellesc/rules), then in\n"
    "                            " SHELLESC_SYSCONFDIR "/rules\n"
    "  -m, --mode MODE           how execs are caught: preload, wrapper or both (both)\n"
    "  -s, --sandbox KIND        none or landlock (none)\n"
    "  -w, --writable DIR        with landlock: a directory the sandboxed side may\n"
    "                            write; repeatable (default: the current directory and\n"
    "                            a private temporary directory, which TMPDIR names)\n"
    "      --no-network          with landlock: no TCP connect or bind\n"
    "      --no-exec-writable    with landlock: nothing beneath the writable\n"
    "                            directories is executed in place, but the exact\n"
    "                            paths rules name there\n"
    "      --default DECISION    for commands no rule matches: run, escalate, deny or\n"
    "                            prompt (run)\n"
    "      --approver CMD        ask CMD (run with /bin/sh -c) instead of the terminal\n"
    "                            for prompt decisions\n"
    "      --prompt-timeout SEC  a prompt not answered in time is a deny (300)\n"
    "  -a, --audit DEST          FILE, - (stderr) or syslog: one JSON object per line\n"
    "                            per event\n"
    "      --pass-env NAME       give escalated commands the caller's NAME too; by\n"
    "                            default they get shellesc's own PATH, HOME, USER,\n"
    "                            TMPDIR... and the caller's locale and terminal only;\n"
    "                            repeatable\n"
    "  -v, --verbose             report each decision; twice: debug messages too\n"
    "Options of run only:\n"
    "      --force               start even when PROGRAM's execs cannot be caught in\n"
    "                            the chosen mode (see shellesc(1), RUN)\n"
    "Options of exec only:\n"
    "      --shell PATH          the shell that runs COMMAND (/bin/bash)\n"
    "      --login, --no-login   run it as SHELL -lc COMMAND (the default) or -c\n"
    "      --timeout SEC         end the shell and its escalated commands after SEC\n"
    "      --cwd DIR             where the shell starts (the current directory)\n"
    "  -c COMMAND                the command string\n"
    "exec prints one JSON object: exit_code, signal, stdout, stderr, output,\n"
    "duration_ms, timed_out.\n"
    "Options of mcp only (it also reads Codex's rules, $CODEX_HOME/rules/*.rules):\n"
    "      --shell PATH          the shell that runs each command (/bin/bash)\n"
    "      --max-output BYTES    output a result keeps, head and tail (64k)\n"
    "\n"
    "Environment: " SHELLESC_ENV_PROXY_PATH " and " CLI_ENV_PRELOAD
    " override the installed\n"
    "exec wrapper and preload library.\n"
    "Exit status of run: PROGRAM's, 128+N if signal N killed it; 125 if shellesc\n"
    "failed, 126 if PROGRAM could not be executed, 127 if it was not found.\n"
    "See shellesc(1).\n";

static void
cli_vmsg(const char *fmt, va_list ap, const char *err)
{
	char buf[2048];

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* One write per message: threads report too. */
	if (err)
		fprintf(stderr, "shellesc: %s: %s\n", buf, err);
	else
		fprintf(stderr, "shellesc: %s\n", buf);
}

void
cli_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_vmsg(fmt, ap, NULL);
	va_end(ap);
}

int
cli_oom(void)
{
	cli_warnx("out of memory");
	return -1;
}

/* Like cli_warnx, with strerror(errno) appended. */
void
cli_warn(const char *fmt, ...)
{
	const char *err = strerror(errno);
	va_list ap;

	va_start(ap, fmt);
	cli_vmsg(fmt, ap, err);
	va_end(ap);
}

void
cli_debug(const struct cli *c, int level, const char *fmt, ...)
{
	va_list ap;

	if (c->o.verbose < level)
		return;
	va_start(ap, fmt);
	cli_vmsg(fmt, ap, NULL);
	va_end(ap);
}

/* Bytes a shell would take literally, so s needs no quotes. */
static bool
cli_show_plain(const char *s)
{
	return s[0] != '\0' && s[strspn(s, "abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./:=@%+,-")] == '\0';
}

/*
 * s for a terminal: control and non-ASCII bytes as C escapes (vis(3)), so
 * a hostile argv or rules file can neither move the cursor nor pass for
 * something else.
 */
char *
cli_vis(const char *s)
{
	char *vis;

	return stravis(&vis, s, VIS_CSTYLE | VIS_OCTAL | VIS_TAB | VIS_NL) < 0 ? NULL : vis;
}

/* cli_vis(s), single-quoted if a shell would split or expand it. */
char *
cli_show(const char *s)
{
	char *vis, *out, *q;

	if ((vis = cli_vis(s)) == NULL)
		return NULL;
	if (cli_show_plain(vis))
		return vis;
	/* worst case: every byte a quote, 4 bytes each, plus the quotes */
	if ((out = q = malloc(strlen(vis) * 4 + 3)) != NULL) {
		*q++ = '\'';
		for (const char *p = vis; *p; p++)
			if (*p == '\'')
				q = stpcpy(q, "'\\''");
			else
				*q++ = *p;
		*q++ = '\'';
		*q = '\0';
	}
	free(vis);
	return out;
}

/* "PROGRAM ARG1 ARG2...": the program that will run, then argv[1...]. */
char *
cli_show_argv(const char *program, char *const *argv)
{
	char *out = cli_show(program);

	for (size_t i = 1; out && argv[0] && argv[i]; i++) {
		char *arg = cli_show(argv[i]), *both = NULL;

		if (arg == NULL || asprintf(&both, "%s %s", out, arg) < 0)
			both = NULL;
		free(arg);
		free(out);
		out = both;
	}
	return out;
}

/*
 * Open 0, 1 and 2 on /dev/null if they are closed, as OpenSSH does: a
 * pipe or file we open must never land there and be taken by a child
 * (PROGRAM, an approver) as its stdio.
 */
static void
cli_stdfds(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= STDERR_FILENO)
		;
	if (fd > STDERR_FILENO)
		close(fd);
}

int
main(int argc, char **argv)
{
	struct cli c = { .ruleset = -1 };
	const char *spec;
	int r;

	/* exec --sandbox landlock runs its shell through this program. */
	if ((spec = getenv(CLI_ENV_SANDBOX)) != NULL)
		return cli_exec_sandboxed(argc, argv, spec);
	cli_stdfds();
	if ((r = cli_options(&c.o, argc, argv)) != 0) {
		cli_options_free(&c.o);
		return r < 0 ? CLI_EXIT_FAIL : 0;
	}
	if (c.o.cmd == CLI_RUN)
		r = cli_run(&c);
	else if (c.o.cmd == CLI_CHECK)
		r = cli_check(&c);
	else if (c.o.cmd == CLI_MCP)
		r = cli_mcp(&c);
	else
		r = cli_exec(&c);
	cli_options_free(&c.o);
	return r;
}
