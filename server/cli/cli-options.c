/*
 * cli-options.c: the command line.  Each command takes its own set of
 * options; every error names the option and what is wrong with it.
 */
#include "config.h"

#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
	OPT_NO_NETWORK = 256, OPT_DEFAULT, OPT_APPROVER, OPT_PROMPT_TIMEOUT,
	OPT_JSON, OPT_EXPLAIN, OPT_SHELL, OPT_LOGIN, OPT_NO_LOGIN, OPT_TIMEOUT, OPT_DEFAULT_TIMEOUT,
	OPT_MAX_CALLS, OPT_CWD, OPT_MAX_OUTPUT, OPT_NO_EXEC_WRITABLE, OPT_WRITABLE_GIT, OPT_PASS_ENV,
	OPT_OUTPUT, OPT_BASE64,
	OPT_AUDIT_FAIL, OPT_AUDIT_WRITABLE, OPT_DECISION, OPT_PROGRAM, OPT_SINCE, OPT_UNTIL, OPT_FORCE,
	OPT_STRICT, OPT_LEARN, OPT_NO_RULE, OPT_RULES, OPT_RULES_WRITABLE, OPT_ALLOW_SOCKET,
};

/* --max-output: a result keeps this many bytes of output by default (mcp's
 * for a model's context, exec's for a harness), the first and last halves,
 * within these bounds. */
#define CLI_MAX_OUTPUT_MCP	(64 * 1024)
#define CLI_MAX_CALLS_MAX	1024	/* mcp --max-calls: threads, each with a session */
/* The reference's (Codex's) timeout for a command that names none. */
#define CLI_DEFAULT_TIMEOUT_MS	10000
#define CLI_MAX_OUTPUT_EXEC	(4 * 1024 * 1024)
#define CLI_MAX_OUTPUT_MIN	256
#define CLI_MAX_OUTPUT_MAX	(256 * 1024 * 1024)

#define CLI_RUN_LONGOPTS \
	{ "policy", required_argument, NULL, 'p' }, \
	{ "mode", required_argument, NULL, 'm' }, \
	{ "sandbox", required_argument, NULL, 's' }, \
	{ "writable", required_argument, NULL, 'w' }, \
	{ "no-network", no_argument, NULL, OPT_NO_NETWORK }, \
	{ "allow-socket", required_argument, NULL, OPT_ALLOW_SOCKET }, \
	{ "no-exec-writable", no_argument, NULL, OPT_NO_EXEC_WRITABLE }, \
	{ "writable-git", no_argument, NULL, OPT_WRITABLE_GIT }, \
	{ "default", required_argument, NULL, OPT_DEFAULT }, \
	{ "approver", required_argument, NULL, OPT_APPROVER }, \
	{ "prompt-timeout", required_argument, NULL, OPT_PROMPT_TIMEOUT }, \
	{ "audit", required_argument, NULL, 'a' }, \
	{ "audit-fail", required_argument, NULL, OPT_AUDIT_FAIL }, \
	{ "audit-writable", no_argument, NULL, OPT_AUDIT_WRITABLE }, \
	{ "rules-writable", no_argument, NULL, OPT_RULES_WRITABLE }, \
	{ "pass-env", required_argument, NULL, OPT_PASS_ENV }, \
	{ "verbose", no_argument, NULL, 'v' }, \
	{ "strict", no_argument, NULL, OPT_STRICT }, \
	{ "help", no_argument, NULL, 'h' }

static const struct option cli_run_opts[] = {
	CLI_RUN_LONGOPTS,
	{ "force", no_argument, NULL, OPT_FORCE },
	{ "learn", required_argument, NULL, OPT_LEARN },
	{ 0 }
};
static const struct option cli_exec_opts[] = {
	CLI_RUN_LONGOPTS,
	{ "shell", required_argument, NULL, OPT_SHELL },
	{ "login", no_argument, NULL, OPT_LOGIN },
	{ "no-login", no_argument, NULL, OPT_NO_LOGIN },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "default-timeout", required_argument, NULL, OPT_DEFAULT_TIMEOUT },
	{ "cwd", required_argument, NULL, OPT_CWD },
	{ "max-output", required_argument, NULL, OPT_MAX_OUTPUT },
	{ "output", required_argument, NULL, OPT_OUTPUT },
	{ "base64", no_argument, NULL, OPT_BASE64 },
	{ "learn", required_argument, NULL, OPT_LEARN },
	{ 0 }
};
static const struct option cli_mcp_opts[] = {
	CLI_RUN_LONGOPTS,
	{ "shell", required_argument, NULL, OPT_SHELL },
	{ "max-output", required_argument, NULL, OPT_MAX_OUTPUT },
	{ "default-timeout", required_argument, NULL, OPT_DEFAULT_TIMEOUT },
	{ "max-calls", required_argument, NULL, OPT_MAX_CALLS },
	{ 0 }
};
static const struct option cli_check_opts[] = {
	{ "policy", required_argument, NULL, 'p' },
	{ "default", required_argument, NULL, OPT_DEFAULT },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "explain", no_argument, NULL, OPT_EXPLAIN },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

static const struct option cli_audit_opts[] = {
	{ "decision", required_argument, NULL, OPT_DECISION },
	{ "program", required_argument, NULL, OPT_PROGRAM },
	{ "since", required_argument, NULL, OPT_SINCE },
	{ "until", required_argument, NULL, OPT_UNTIL },
	{ "no-rule", no_argument, NULL, OPT_NO_RULE },
	{ "rules", no_argument, NULL, OPT_RULES },
	{ "help", no_argument, NULL, 'h' },
	{ 0 }
};

/* '+': stop at PROGRAM, whose options are its own; ':': we report. */
static const struct {
	const char *name;
	enum cli_cmd cmd;
	const char *shorts;
	const struct option *longs;
} cli_cmds[] = {
	{ "run", CLI_RUN, "+:p:m:s:w:a:vh", cli_run_opts },
	{ "check", CLI_CHECK, "+:p:h", cli_check_opts },
	{ "exec", CLI_EXEC, "+:p:m:s:w:a:vc:h", cli_exec_opts },
	{ "mcp", CLI_MCP, "+:p:m:s:w:a:vh", cli_mcp_opts },
	{ "audit", CLI_AUDIT, "+:h", cli_audit_opts },
	{ "log", CLI_AUDIT, "+:h", cli_audit_opts },
};

static const char *const cli_actions[] = { "run", "escalate", "deny" };

const char *
cli_action_name(enum shellesc_action a)
{
	return cli_actions[a];
}

/* Index of word in the NULL-terminated names, or -1 after a message. */
static int
cli_word(const char *cmd, const char *opt, const char *word, const char *const *names,
    const char *expect)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(word, names[i]) == 0)
			return i;
	cli_warnx("%s: %s '%s': expected %s", cmd, opt, word, expect);
	return -1;
}

/* mcp --max-calls N: tool calls running at once. */
static int
cli_max_calls(const char *cmd, const char *arg, int *out)
{
	const char *errstr;
	long long v = strtonum(arg, 1, CLI_MAX_CALLS_MAX, &errstr);

	if (errstr != NULL) {
		cli_warnx("%s: --max-calls '%s': %s (expected 1 to %d)", cmd, arg, errstr,
		    CLI_MAX_CALLS_MAX);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int
cli_seconds(const char *cmd, const char *opt, const char *arg, int *out)
{
	const char *errstr;
	/* milliseconds must still fit an int */
	long long v = strtonum(arg, 1, INT_MAX / 1000, &errstr);

	if (errstr != NULL) {
		cli_warnx("%s: %s '%s': %s (expected seconds, 1 to %d)", cmd, opt, arg,
		    errstr, INT_MAX / 1000);
		return -1;
	}
	*out = (int)v;
	return 0;
}

/* Seconds, fractions allowed (1.5), as milliseconds that fit an int. */
static int
cli_fseconds(const char *cmd, const char *opt, const char *arg, int *ms)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end != '\0' || !(v >= 0.001 && v <= INT_MAX / 1000)) {
		cli_warnx("%s: %s '%s': expected seconds, 0.001 to %d (fractions allowed)",
		    cmd, opt, arg, INT_MAX / 1000);
		return -1;
	}
	*ms = (int)(v * 1000 + 0.5);
	return 0;
}

/* BYTES, or with a k or M suffix (1024, 1024*1024). */
static int
cli_bytes(const char *cmd, const char *opt, const char *arg, size_t *out)
{
	char num[32];
	size_t n = strlen(arg);
	long long v = 0, mult = 1;
	const char *errstr = "invalid";

	if (n > 0 && strchr("kKmM", arg[n - 1]) != NULL)
		mult = arg[--n] == 'k' || arg[n] == 'K' ? 1024 : 1024 * 1024;
	if (n > 0 && n < sizeof(num)) {
		memcpy(num, arg, n);
		num[n] = '\0';
		v = strtonum(num, 1, CLI_MAX_OUTPUT_MAX, &errstr);
	}
	if (errstr == NULL && (v * mult < CLI_MAX_OUTPUT_MIN || v * mult > CLI_MAX_OUTPUT_MAX))
		errstr = "out of range";
	if (errstr == NULL) {
		*out = (size_t)(v * mult);
		return 0;
	}
	cli_warnx("%s: %s '%s': %s (expected bytes, %d to %d; k and M suffixes)", cmd, opt, arg,
	    errstr, CLI_MAX_OUTPUT_MIN, CLI_MAX_OUTPUT_MAX);
	return -1;
}

/*
 * --mode: words separated by commas.  "both" is the wrapper and the
 * preload, and the kernel layer where it can be had (run, exec and mcp
 * alike); "kernel" asks for that layer: no session without it.  Alone,
 * "kernel" is that layer without the other two: nothing of shellesc in the
 * session (SHELLESC_INTERCEPT_KERNEL).
 */
static int
cli_opt_mode(struct cli_opts *o, const char *cmd, const char *arg)
{
	static const char *const modes[] = { "wrapper", "preload", "both", "kernel", NULL };
	char buf[64], *w, *save = NULL;
	int i;

	if (strlcpy(buf, arg, sizeof(buf)) >= sizeof(buf))
		return cli_word(cmd, "--mode", arg, modes, "preload, wrapper, both or kernel");
	o->intercept = 0;
	o->kernel = CLI_KERNEL_OFF;
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if ((i = cli_word(cmd, "--mode", w, modes,
		    "preload, wrapper, both or kernel, or a list of them (preload,kernel)")) < 0)
			return -1;
		if (i == 3)
			o->kernel = CLI_KERNEL_ON;
		else
			o->intercept |= (unsigned)i + 1;	/* SHELLESC_INTERCEPT_* */
		if (i == 2 && o->kernel == CLI_KERNEL_OFF)
			o->kernel = CLI_KERNEL_AUTO;
	}
	/* "kernel" alone: the layer without the preload and the wrapper */
	if (o->intercept == 0)
		o->intercept = SHELLESC_INTERCEPT_KERNEL;
	return 0;
}

static int
cli_opt_word(struct cli_opts *o, const char *cmd, int opt, const char *arg)
{
	static const char *const sandboxes[] = { "none", "landlock", NULL };
	static const char *const outputs[] = { "interleaved", "split", "both", NULL };
	static const char *const fails[] = { "warn", "stop", NULL };
	int i;

	if (opt == 'm')
		return cli_opt_mode(o, cmd, arg);
	if (opt == 's') {
		if ((i = cli_word(cmd, "--sandbox", arg, sandboxes, "none or landlock")) < 0)
			return -1;
		o->sandbox = i;
		o->sandbox_given = true;
	} else if (opt == OPT_AUDIT_FAIL) {
		if ((i = cli_word(cmd, "--audit-fail", arg, fails, "warn or stop")) < 0)
			return -1;
		o->audit_stop = i == 1;
	} else if (opt == OPT_OUTPUT) {
		if ((i = cli_word(cmd, "--output", arg, outputs, "interleaved, split or both")) < 0)
			return -1;
		o->output = i;
	} else if (strcmp(arg, "allow") == 0 || strcmp(arg, "forbidden") == 0) {
		/* Codex's names read as run and deny here: say which is meant */
		cli_warnx("%s: --default '%s': expected run, escalate, deny or prompt "
		    "('%s' is Codex's name for %s)", cmd, arg, arg,
		    arg[0] == 'a' ? "escalate" : "deny");
		return -1;
	} else if (rules_decision_parse(arg, &o->dflt) != 0) {
		cli_warnx("%s: --default '%s': expected run, escalate, deny or prompt", cmd, arg);
		return -1;
	}
	return 0;
}

/* A variable's name, as --pass-env takes it. */
static int
cli_opt_name(const char *cmd, const char *arg, struct cli_strv *sv)
{
	if (*arg == '\0' || strchr(arg, '=') != NULL) {
		cli_warnx("%s: --pass-env '%s': expected a variable's name", cmd, arg);
		return -1;
	}
	return cli_strv_add(sv, arg);
}

/* audit --decision: what the log calls a decision, or "prompt": the
 * commands a person or the approver was asked about. */
static int
cli_opt_decision(struct cli_opts *o, const char *cmd, const char *arg)
{
	static const char *const decisions[] = { "run", "escalate", "deny", "prompt", NULL };
	int i = cli_word(cmd, "--decision", arg, decisions, "run, escalate, deny or prompt");

	if (i < 0)
		return -1;
	o->log_decision = decisions[i];
	return 0;
}

static int
cli_opt(struct cli_opts *o, const char *cmd, int opt, const char *arg)
{
	switch (opt) {
	case 'p':
		return cli_strv_add(&o->policies, arg);
	case OPT_PASS_ENV:
		return cli_opt_name(cmd, arg, &o->pass_env);
	case 'w':
		return cli_strv_add(&o->writable, arg);
	case OPT_ALLOW_SOCKET:
		return cli_strv_add(&o->allow_socket, arg);
	case 'm': case 's': case OPT_DEFAULT: case OPT_OUTPUT: case OPT_AUDIT_FAIL:
		return cli_opt_word(o, cmd, opt, arg);
	case OPT_PROMPT_TIMEOUT:
		return cli_seconds(cmd, "--prompt-timeout", arg, &o->prompt_timeout);
	case OPT_TIMEOUT:
		return cli_fseconds(cmd, "--timeout", arg, &o->timeout_ms);
	case OPT_DEFAULT_TIMEOUT:	/* 0: none */
		if (strcmp(arg, "0") == 0) {
			o->default_timeout_ms = 0;
			return 0;
		}
		return cli_fseconds(cmd, "--default-timeout", arg, &o->default_timeout_ms);
	case OPT_MAX_OUTPUT:
		return cli_bytes(cmd, "--max-output", arg, &o->max_output);
	case OPT_MAX_CALLS:
		return cli_max_calls(cmd, arg, &o->max_calls);
	case OPT_NO_NETWORK: o->no_network = true; return 0;
	case OPT_NO_EXEC_WRITABLE: o->no_exec_writable = true; return 0;
	case OPT_WRITABLE_GIT: o->writable_git = true; return 0;
	case OPT_FORCE: o->force = true; return 0;
	case OPT_AUDIT_WRITABLE: o->audit_writable = true; return 0;
	case OPT_RULES_WRITABLE: o->rules_writable = true; return 0;
	case OPT_APPROVER: o->approver = arg; return 0;
	case 'a': o->audit = arg; return 0;
	case 'v': o->verbose++; return 0;
	case OPT_JSON: o->json = true; return 0;
	case OPT_BASE64: o->base64 = true; return 0;
	case OPT_EXPLAIN: o->explain = true; return 0;
	case OPT_STRICT: o->strict = true; return 0;
	case OPT_SHELL: o->shell = arg; return 0;
	case OPT_LOGIN: o->login = 1; return 0;
	case OPT_NO_LOGIN: o->login = 0; return 0;
	case OPT_CWD: o->cwd = arg; return 0;
	case 'c': o->command = arg; return 0;
	case OPT_DECISION: return cli_opt_decision(o, cmd, arg);
	case OPT_PROGRAM: o->log_program = arg; return 0;
	case OPT_SINCE: o->log_since = arg; return 0;
	case OPT_UNTIL: o->log_until = arg; return 0;
	case OPT_NO_RULE: o->log_unmatched = true; return 0;
	case OPT_RULES: o->log_rules = true; return 0;
	case OPT_LEARN:
		if (*arg == '\0') {
			cli_warnx("%s: --learn: expected a FILE", cmd);
			return -1;
		}
		o->learn = arg;
		return 0;
	}
	return -1;
}

/* What getopt refused, named as the user typed it. */
static void
cli_opt_refused(const char *cmd, int opt, char **argv)
{
	char shortopt[3] = { '-', (char)optopt, '\0' };
	const char *last = argv[optind - 1];
	/* a long option as typed; a short one alone (it may sit in a cluster) */
	const char *name = strncmp(last, "--", 2) == 0 || optopt <= 0 || optopt >= 256 ?
	    last : shortopt;

	if (opt == ':')
		cli_warnx("%s: option %s needs an argument", cmd, name);
	else
		cli_warnx("%s: unknown option %s (see shellesc --help)", cmd, name);
}

/* Options that only mean something together with others. */
static int
cli_options_check(const struct cli_opts *o, const char *cmd)
{
	if (o->sandbox != CLI_SANDBOX_LANDLOCK && o->writable.n > 0)
		cli_warnx("%s: --writable needs --sandbox landlock", cmd);
	else if (o->sandbox != CLI_SANDBOX_LANDLOCK && o->allow_socket.n > 0)
		cli_warnx("%s: --allow-socket needs --sandbox landlock", cmd);
	else if (o->sandbox != CLI_SANDBOX_LANDLOCK && o->no_network)
		cli_warnx("%s: --no-network needs --sandbox landlock", cmd);
	else if (o->sandbox != CLI_SANDBOX_LANDLOCK && o->no_exec_writable)
		cli_warnx("%s: --no-exec-writable needs --sandbox landlock", cmd);
	else if (o->cmd == CLI_RUN && o->argc == 0)
		cli_warnx("run: no PROGRAM given (see shellesc --help)");
	else if (o->cmd == CLI_CHECK && o->argc == 0 && o->policies.n == 0)
		cli_warnx("check: no ARGV given, nor -p FILE whose examples to run "
		    "(see shellesc --help)");
	else if (o->cmd == CLI_EXEC && o->command == NULL)
		cli_warnx("exec: -c COMMAND is required");
	else if (o->cmd == CLI_EXEC && o->argc > 0)
		cli_warnx("exec: unexpected argument '%s' (the command goes in -c)", o->argv[0]);
	else if (o->cmd == CLI_AUDIT && o->argc != 1)
		cli_warnx("audit: expected one FILE (- for stdin)");
	else if (o->cmd == CLI_MCP && o->argc > 0)
		cli_warnx("mcp: unexpected argument '%s' (commands come from the MCP client)",
		    o->argv[0]);
	else
		return 0;
	return -1;
}

static int
cli_options_cmd(struct cli_opts *o, int k, int argc, char **argv)
{
	const char *cmd = cli_cmds[k].name;
	int opt;

	o->cmd = cli_cmds[k].cmd;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, cli_cmds[k].shorts,
	    cli_cmds[k].longs, NULL)) != -1) {
		if (opt == 'h') {
			cli_usage(stdout, -1);
			return 1;
		}
		if (opt == '?' || opt == ':') {
			cli_opt_refused(cmd, opt, argv);
			return -1;
		}
		if (cli_opt(o, cmd, opt, optarg) != 0)
			return -1;
	}
	o->argv = argv + optind;
	o->argc = argc - optind;
	/* an MCP server's commands come from an agent: sandboxed unless the
	 * operator says --sandbox none (cli-mcp-sandbox.c) */
	if (o->cmd == CLI_MCP && !o->sandbox_given) {
		o->sandbox = CLI_SANDBOX_LANDLOCK;
		o->sandbox_default = true;
	}
	if (o->max_output == 0)
		o->max_output = o->cmd == CLI_EXEC ? CLI_MAX_OUTPUT_EXEC : CLI_MAX_OUTPUT_MCP;
	return cli_options_check(o, cmd);
}

/* shellesc help [COMMAND]: 1 once shown, -1 for an unknown COMMAND. */
static int
cli_options_help(int argc, char **argv)
{
	if (argc == 0) {
		cli_usage(stdout, -1);
		return 1;
	}
	for (size_t k = 0; argc == 1 && k < sizeof(cli_cmds) / sizeof(cli_cmds[0]); k++)
		if (strcmp(argv[0], cli_cmds[k].name) == 0) {
			cli_usage(stdout, (int)cli_cmds[k].cmd);
			return 1;
		}
	cli_warnx("help: unknown command '%s': expected run, check, exec, mcp or audit",
	    argv[0]);
	return -1;
}

/* 0: a command to run; 1: --help or --version was answered; -1: error. */
int
cli_options(struct cli_opts *o, int argc, char **argv)
{
	o->intercept = SHELLESC_INTERCEPT_WRAPPER | SHELLESC_INTERCEPT_PRELOAD;
	o->kernel = CLI_KERNEL_AUTO;
	o->dflt = RULES_RUN;
	o->prompt_timeout = 300;
	o->default_timeout_ms = CLI_DEFAULT_TIMEOUT_MS;
	o->max_calls = 32;
	o->login = 1;
	if (argc < 2) {
		cli_usage(stderr, -1);
		return -1;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		cli_usage(stdout, -1);
		return 1;
	}
	if (strcmp(argv[1], "help") == 0)
		return cli_options_help(argc - 2, argv + 2);
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("shellesc %s\n", PACKAGE_VERSION);
		return 1;
	}
	for (size_t k = 0; k < sizeof(cli_cmds) / sizeof(cli_cmds[0]); k++)
		if (strcmp(argv[1], cli_cmds[k].name) == 0)
			return cli_options_cmd(o, (int)k, argc - 1, argv + 1);
	cli_warnx("unknown command '%s': expected run, check, exec, mcp, audit or help "
	    "(see shellesc --help)",
	    argv[1]);
	return -1;
}

void
cli_options_free(struct cli_opts *o)
{
	cli_strv_free(&o->policies);
	cli_strv_free(&o->writable);
	cli_strv_free(&o->allow_socket);
	cli_strv_free(&o->pass_env);
}
