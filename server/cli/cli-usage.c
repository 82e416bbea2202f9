/*
 * cli-usage.c: --help and shellesc help [COMMAND]: the usage text in
 * parts, each shown for the commands it concerns.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "proto.h"

#define U_RUN	(1u << CLI_RUN)
#define U_CHECK	(1u << CLI_CHECK)
#define U_EXEC	(1u << CLI_EXEC)
#define U_MCP	(1u << CLI_MCP)
#define U_AUDIT	(1u << CLI_AUDIT)
#define U_ALL	(U_RUN | U_CHECK | U_EXEC | U_MCP | U_AUDIT)
#define U_GATE	(U_RUN | U_CHECK | U_EXEC | U_MCP)	/* the commands with rules */

static const struct {
	unsigned cmds;
	const char *text;
} cli_usage_parts[] = {
	{ U_RUN, "usage: shellesc run [OPTIONS] [--] PROGRAM [ARG...]\n" },
	{ U_CHECK, "usage: shellesc check [-p FILE]... [--default DECISION] [--json] [--explain]\n"
	    "                      [--strict] [--] ARGV...\n"
	    "       shellesc check -p FILE [-p FILE]... [--json] [--strict]\n" },
	{ U_EXEC, "usage: shellesc exec [OPTIONS] [--shell PATH] [--login|--no-login] [--timeout SEC]\n"
	    "                     [--default-timeout SEC] [--cwd DIR] [--max-output BYTES]\n"
	    "                     [--output MODE] [--base64] -c COMMAND\n" },
	{ U_MCP, "usage: shellesc mcp [OPTIONS] [--shell PATH] [--max-output BYTES]\n"
	    "                    [--default-timeout SEC] [--max-calls N]\n" },
	{ U_AUDIT, "usage: shellesc audit|log [--decision DECISION] [--program NAME] [--no-rule]\n"
	    "                     [--since TIME] [--until TIME] [--rules] FILE\n" },
	{ U_GATE, "usage: shellesc help [COMMAND] | --version | --help\n"
	    "\n"
	    "Run PROGRAM (run) or one command string (exec) behind an approval gate at\n"
	    "execve(2): each program started in its process tree is decided by rules files\n"
	    "first: run in place, escalate (run by shellesc, outside the sandbox), deny, or\n"
	    "prompt.  check prints what the rules decide for ARGV (--explain: every\n"
	    "matching rule, how the program was resolved and the rules that nearly\n"
	    "matched) and exits with it: 0 run, 1 escalate, 2 prompt, 3 deny, 125 error;\n"
	    "a program not installed is decided by its name.  check -p FILE alone runs\n"
	    "the files' match/not_match examples (exit 0 if all hold).  mcp serves\n"
	    "the same as the MCP tool \"shell\" on stdin and stdout, for agents.  audit\n"
	    "shows an audit log's decisions as a table, or the rules they suggest.\n" },
	{ U_RUN | U_EXEC | U_MCP, "\n"
    "Options of run, exec and mcp:\n"
    "  -p, --policy FILE         load a rules file (a directory: its *.rules files);\n"
    "                            repeatable.  Without it: every *.rules file in\n"
    "                            $XDG_CONFIG_HOME/shellesc/rules (default\n"
    "                            ~/.config/shellesc/rules), then in\n"
    "                            " SHELLESC_SYSCONFDIR "/rules.  The learned file\n"
    "                            (--learn, or learned.rules in the first\n"
    "                            directory), which \"always\" answers go to, is\n"
    "                            loaded either way\n"
    "      --strict              a warning in the rules files is an error (also\n"
    "                            for check)\n"
    "  -m, --mode MODE           how execs are caught: preload, wrapper or both (both),\n"
    "                            and kernel added with a comma (preload,kernel): every\n"
    "                            execve of the tree is decided, static programs and\n"
    "                            raw system calls too (seccomp, Linux 5.5); both\n"
    "                            includes it where the kernel has it; kernel alone\n"
    "                            is that layer with nothing of shellesc in the tree\n"
    "  -s, --sandbox KIND        none or landlock (none; mcp: landlock on the\n"
    "                            workspace until the client's sandbox update)\n"
    "  -w, --writable DIR        with landlock: a directory the sandboxed side may\n"
    "                            write; repeatable (default: the current directory);\n"
    "                            a private temporary directory, which TMPDIR names,\n"
    "                            is writable either way\n"
    "      --no-network          with landlock: no TCP connect or bind, and no UDP,\n"
    "                            raw or packet sockets (seccomp)\n"
    "      --allow-socket PATH   with landlock: a UNIX socket file the sandboxed side\n"
    "                            may connect to (repeatable; besides a short default\n"
    "                            list and the sockets the session binds)\n"
    "      --no-exec-writable    with landlock: nothing beneath the writable\n"
    "                            directories is executed in place, but the exact\n"
    "                            paths rules name there\n"
    "      --writable-git        with landlock: the .git at the top of each writable\n"
    "                            directory is writable too (default: read-only)\n"
    "      --default DECISION    for commands no rule matches: run, escalate, deny or\n"
    "                            prompt (run); Codex's allow is refused: say escalate\n"
    "      --approver CMD        ask CMD (run with /bin/sh -c) instead of the terminal\n"
    "                            for prompt decisions; its program must exist\n"
    "      --prompt-timeout SEC  a prompt not answered in time is a deny (300)\n"
    "  -a, --audit DEST          FILE, - (stderr) or syslog: one JSON object per line\n"
    "                            per event\n"
    "      --audit-fail MODE     an event that cannot be written: warn (once, then\n"
    "                            go on, but deny escalations) or stop (deny it and\n"
    "                            end the session) (warn)\n"
    "      --audit-writable      allow an audit FILE beneath a writable directory\n"
    "      --rules-writable      allow a writable directory that holds rules files\n"
    "                            (the sandboxed side could then write rules)\n"
    "      --pass-env NAME       give escalated commands the caller's NAME too; by\n"
    "                            default they get shellesc's own PATH, HOME, USER,\n"
    "                            TMPDIR... and the caller's locale and terminal only;\n"
    "                            repeatable\n"
    "  -v, --verbose             report each decision that did not run in place;\n"
    "                            twice: every decision and debug messages too\n" },
	{ U_RUN,
    "Options of run only:\n"
    "      --force               start even when PROGRAM's execs cannot be caught in\n"
    "                            the chosen mode (see shellesc(1), RUN)\n"
    "      --learn FILE          propose a rule in FILE (the learned file) for every\n"
    "                            command no rule matched or a prompt decided, as it\n"
    "                            was decided: program by name, up to its subcommand\n" },
	{ U_EXEC,
    "Options of exec only:\n"
    "      --shell PATH          the shell that runs COMMAND (/bin/bash)\n"
    "      --login, --no-login   run it as SHELL -lc COMMAND (the default) or -c\n"
    "      --timeout SEC         end the shell and its escalated commands after SEC\n"
    "                            (fractions allowed: 1.5)\n"
    "      --default-timeout SEC the timeout without --timeout; 0: none (10)\n"
    "      --cwd DIR             where the shell starts (the current directory)\n"
    "      --max-output BYTES    output each stream keeps, head and tail (4M)\n"
    "      --output MODE         interleaved (output), split (stdout, stderr) or both\n"
    "                            (interleaved)\n"
    "      --base64              streams as {\"base64\": ...}, not text with U+FFFD\n"
    "      --learn FILE          as run's: propose rules in FILE for what ran\n"
    "  -c COMMAND                the command string\n"
    "exec prints one JSON object: exit_code, signal, the streams with their _bytes,\n"
    "_dropped and _replaced, duration_ms, timed_out, decisions.\n" },
	{ U_MCP,
    "Options of mcp only (it also reads Codex's rules, $CODEX_HOME/rules/*.rules):\n"
    "      --shell PATH          the shell that runs each command (/bin/bash)\n"
    "      --max-output BYTES    output a result keeps, head and tail (64k)\n"
    "      --default-timeout SEC end a call's command after SEC when it names no\n"
    "                            timeout_ms (fractions allowed); 0: none (10)\n"
    "      --max-calls N         tool calls running at once; more wait for one to\n"
    "                            finish, up to 120 s (32)\n" },
	{ U_AUDIT, "\n"
    "Show an audit log (run, exec or mcp --audit FILE; - for stdin) as a table:\n"
    "one line per decision: its time, decision, command, and the rule or reason.\n"
    "\n" },
	{ U_AUDIT,
    "Options of audit (or log):\n"
    "      --decision DECISION   only run, escalate or deny; prompt: what a person or\n"
    "                            the approver was asked about\n"
    "      --no-rule             only what no rule matched\n"
    "      --rules               print the rules --learn would propose for the lines\n"
    "                            kept, not the table\n"
    "      --program NAME        only this program (a file name or a whole path, of\n"
    "                            the path run or of the file decided)\n"
    "      --since TIME          only from TIME on (the log's UTC time or a prefix of\n"
    "                            it: 2026-11-30, 2026-11-30T05:51)\n"
    "      --until TIME          only up to TIME (a prefix includes all it starts)\n" },
	{ U_GATE,
    "\n"
    "Environment: " SHELLESC_ENV_PROXY_PATH " and " CLI_ENV_PRELOAD
    " override the installed\n"
    "exec wrapper and preload library.\n"
    "Exit status of run: PROGRAM's, 128+N if signal N killed it; 125 if shellesc\n"
    "failed, 126 if PROGRAM could not be executed, 127 if it was not found.\n"
    "See shellesc(1).\n" },
};

/* The parts for cmd (-1: every part) on f. */
void
cli_usage(FILE *f, int cmd)
{
	for (size_t i = 0; i < sizeof(cli_usage_parts) / sizeof(cli_usage_parts[0]); i++)
		if (cmd < 0 || (cli_usage_parts[i].cmds & (1u << cmd)))
			fputs(cli_usage_parts[i].text, f);
}
