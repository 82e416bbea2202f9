/*
 * cli-exec.c: shellesc exec -c COMMAND, one command string run in a
 * session by the library (shellesc_session_exec), printed as one JSON
 * object: {exit_code, signal, stdout, stderr, output, duration_ms,
 * timed_out}, output bytes encoded as cli-json.c describes.
 *
 * The library spawns the shell itself and offers no hook between its fork
 * and exec, so it is given this very program as the shell, with
 * CLI_ENV_SANDBOX saying what to confine and which shell to become:
 * cli_exec_sandboxed() enters the Landlock ruleset (--sandbox landlock)
 * and the session's seccomp filter (always, cli-seccomp.h), then executes
 * the real shell with the same -c/-lc COMMAND.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli.h"
#include "cli-json.h"
#include "cli-seccomp.h"

extern char **environ;

/* environ plus *entry, CLI_ENV_SANDBOX={"shell": ..., "landlock": ...,
 * "writable": [...], "no_network": ...}; free both. */
static char **
cli_exec_sandbox_env(struct cli *c, const char *shell, char **entry)
{
	json_t *j = json_pack("{s:o, s:b, s:o, s:b}", "shell", cli_json_str(shell),
	    "landlock", c->ruleset >= 0,
	    "writable", cli_json_strv(c->o.writable.v), "no_network", c->o.no_network);
	char *spec = j ? json_dumps(j, JSON_COMPACT) : NULL, **env;
	size_t n = 0;

	json_decref(j);
	*entry = NULL;
	while (environ[n])
		n++;
	/* asprintf leaves *entry undefined when it fails: the caller frees it */
	if (spec != NULL && asprintf(entry, "%s=%s", CLI_ENV_SANDBOX, spec) < 0)
		*entry = NULL;
	free(spec);
	if (*entry == NULL || (env = calloc(n + 2, sizeof(char *))) == NULL)
		return NULL;
	memcpy(env, environ, n * sizeof(char *));
	env[n] = *entry;
	return env;
}

static void
cli_exec_print(const struct shellesc_exec_result *res)
{
	json_t *j = json_pack("{s:i, s:i, s:o, s:o, s:o, s:I, s:b}",
	    "exit_code", res->exit_code, "signal", res->signal,
	    "stdout", cli_json_bytes(res->out, res->out_len),
	    "stderr", cli_json_bytes(res->err, res->err_len),
	    "output", cli_json_bytes(res->output, res->output_len),
	    "duration_ms", (json_int_t)(res->duration * 1000 + 0.5),
	    "timed_out", res->timed_out);
	char *line = cli_json_line(j);

	if (line)
		fputs(line, stdout);
	free(line);
}

/* The session's exec, with the shell swapped for us, to confine it. */
static int
cli_exec_run(struct cli *c, struct shellesc_exec_params *p,
    struct shellesc_exec_result *res)
{
	char self[PATH_MAX], **env = NULL, *entry = NULL;
	ssize_t n;
	int r;

	/* what the shell's spawn would have said, had it been ours */
	if (p->shell[0] == '/' && access(p->shell, X_OK) != 0) {
		cli_warn("exec: %s", p->shell);
		return -1;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) < 0) {
		cli_warn("exec: /proc/self/exe");
		return -1;
	}
	self[n] = '\0';
	if ((p->env = env = cli_exec_sandbox_env(c, p->shell, &entry)) == NULL) {
		cli_warnx("exec: out of memory");
		free(entry);
		return -1;
	}
	p->shell = self;
	if ((r = shellesc_session_exec(c->s, p, res)) != 0)
		cli_warnx("exec: %s: %s", c->o.shell ? c->o.shell : "/bin/bash", strerror(-r));
	free(entry);
	free(env);
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
	    .timeout_ms = c->o.timeout * 1000 };
	struct shellesc_exec_result res;
	char *cwd = cli_exec_cwd(c);
	int r = CLI_EXIT_FAIL;

	if (cwd == NULL)
		return r;
	/* the shell's directory is the one writable by default */
	c->o.cwd = p.workdir = cwd;
	p.shell = c->o.shell ? c->o.shell : "/bin/bash";
	if (cli_setup(c) == 0 && cli_exec_run(c, &p, &res) == 0) {
		cli_exec_print(&res);
		shellesc_exec_result_free(&res);
		r = fflush(stdout) == 0 ? 0 : CLI_EXIT_FAIL;
	}
	cli_teardown(c);
	free(cwd);
	return r;
}

/* --- the re-executed side: confine, then become the shell --- */

struct cli_sbx {
	char *shell;
	bool landlock;
	struct cli_strv writable;
	bool no_network;
};

static int
cli_exec_spec(const char *text, struct cli_sbx *x)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err), *w = json_object_get(j, "writable"), *e;
	size_t i;
	int r = -1;

	x->shell = cli_json_unbytes(json_object_get(j, "shell"));
	x->landlock = json_is_true(json_object_get(j, "landlock"));
	x->no_network = json_is_true(json_object_get(j, "no_network"));
	if (x->shell != NULL && json_is_array(w))
		r = 0;
	json_array_foreach(w, i, e) {
		char *dir = cli_json_unbytes(e);

		if (dir == NULL || cli_strv_add(&x->writable, dir) != 0)
			r = -1;
		free(dir);
	}
	json_decref(j);
	if (r != 0)
		cli_warnx("%s is not what shellesc exec sets", CLI_ENV_SANDBOX);
	return r;
}

/* Landlock if the spec asks for it, then the seccomp filter: 0 or -1. */
static int
cli_exec_confine(const struct cli_sbx *x)
{
	struct cli_seccomp f;
	int ruleset = -1, e = 0;

	if (x->landlock && (ruleset = cli_landlock_ruleset(&x->writable, x->no_network)) < 0)
		return -1;
	if (cli_seccomp_build(&f) != 0) {
		cli_warnx("cannot build the session's seccomp filter");
		e = -1;
	} else if (ruleset >= 0 && (e = cli_landlock_enter(ruleset)) != 0)
		cli_warn("cannot enter the Landlock sandbox");
	else if ((e = cli_seccomp_enter(&f)) != 0)
		cli_warn("cannot install the session's seccomp filter");
	if (ruleset >= 0)
		close(ruleset);
	return e;
}

/* argv: SELF -c|-lc COMMAND, as shellesc_session_exec runs the shell. */
int
cli_exec_sandboxed(int argc, char **argv, const char *spec)
{
	struct cli_sbx x = { 0 };
	int r = CLI_EXIT_FAIL;

	if (argc != 3 || (strcmp(argv[1], "-c") != 0 && strcmp(argv[1], "-lc") != 0))
		cli_warnx("%s is set, but this is not a shell's command line", CLI_ENV_SANDBOX);
	else if (cli_exec_spec(spec, &x) == 0 && cli_exec_confine(&x) == 0) {
		char *const shargv[] = { x.shell, argv[1], argv[2], NULL };

		unsetenv(CLI_ENV_SANDBOX);
		/* the raw system call: a preload library in our environment
		 * would otherwise ask the session about the shell itself */
		syscall(SYS_execve, x.shell, shargv, environ);
		cli_warn("%s", x.shell);
		r = errno == ENOENT ? CLI_EXIT_NOTFOUND : CLI_EXIT_NOEXEC;
	}
	free(x.shell);
	cli_strv_free(&x.writable);
	return r;
}
