/*
 * cli-exec.c: shellesc exec -c COMMAND, one command string run in a
 * session by the library (shellesc_session_exec), printed as one JSON
 * object (cli-exec-output.c).  The library enters the shell's sandbox
 * (built at setup: --sandbox landlock's layer, the seccomp filter, and
 * the exec notification of the kernel layer, whose listener the session
 * takes) between its fork and the exec.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* The session's exec, its shell in the sandbox and environment made at setup. */
static int
cli_exec_run(struct cli *c, struct shellesc_exec_params *p,
    struct shellesc_exec_result *res)
{
	int r;

	p->sandbox = c->sandbox;
	p->env = c->program_env;
	if ((r = shellesc_session_exec(c->s, p, res)) != 0)
		cli_warnx("exec: %s: %s", p->shell, strerror(-r));
	return r == 0 ? 0 : -1;
}

/* --cwd (default: ours), absolute as the library wants it. */
static char *
cli_exec_cwd(struct cli *c)
{
	const char *dir = c->o.cwd ? c->o.cwd : ".";
	char *abs = realpath(dir, NULL);
	struct stat st;

	if (abs == NULL || stat(abs, &st) != 0)
		cli_warn("exec: --cwd %s", dir);
	else if (!S_ISDIR(st.st_mode))
		cli_warnx("exec: --cwd %s: not a directory", dir);
	else
		return abs;
	free(abs);
	return NULL;
}

int
cli_exec(struct cli *c)
{
	struct shellesc_exec_params p = { .command = c->o.command, .login = c->o.login,
	    .timeout_ms = c->o.timeout_ms ? c->o.timeout_ms : c->o.default_timeout_ms, .max_output = c->o.max_output,
	    /* interleaved alone: one pipe, in the order written */
	    .one_pipe = c->o.output == CLI_OUTPUT_INTERLEAVED };
	struct shellesc_exec_result res;
	char *cwd = cli_exec_cwd(c);
	int r = CLI_EXIT_FAIL;

	if (cwd == NULL || cli_setup_shell(c) != 0) {
		free(cwd);
		return r;
	}
	/* the shell's directory is the one writable by default */
	c->o.cwd = p.workdir = cwd;
	c->program = p.shell = c->o.shell ? c->o.shell : "/bin/bash";
	if (cli_exec_out_start(c) == 0 && cli_setup(c) == 0 && cli_exec_run(c, &p, &res) == 0) {
		if (cli_exec_out_print(c, &res) == 0 && fflush(stdout) == 0)
			r = 0;
		shellesc_exec_result_free(&res);
	}
	cli_teardown(c);
	cli_exec_out_free(c);
	free(cwd);
	return r;
}
