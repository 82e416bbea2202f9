/*
 * cli-exec.c: shellesc exec -c COMMAND, one command string run in a
 * session by the library (shellesc_session_exec), printed as one JSON
 * object (cli-exec-output.c).
 *
 * The library spawns the shell itself and offers no hook between its fork
 * and exec, so it is given this very program as the shell, with
 * CLI_ENV_SANDBOX saying what to confine and which shell to become:
 * cli_exec_sandboxed() enters the Landlock ruleset of each layer (exec's
 * --sandbox landlock is one; mcp stacks its command line's and its
 * client's) and the session's seccomp filter (always, cli-seccomp.h),
 * then executes the real shell with the same -c/-lc COMMAND.
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

static json_t *
cli_exec_layers(const struct cli_layer *layers, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_pack("{s:o, s:b, s:o}",
		    "writable", cli_json_strv(layers[i].writable.v),
		    "no_network", layers[i].no_network,
		    "exec_allowed", layers[i].no_exec ?
		    cli_json_strv(layers[i].exec_allowed.v) : json_null()));
	return a;
}

/* environ plus *entry, CLI_ENV_SANDBOX={"shell": ..., "layers":
 * [{"writable": [...], "no_network": ..., "exec_allowed": [...] or null},
 * ...]}; free both. */
char **
cli_exec_sandbox_env(const char *shell, const struct cli_layer *layers, size_t n,
    char **entry)
{
	json_t *j = json_pack("{s:o, s:o}", "shell", cli_json_str(shell),
	    "layers", cli_exec_layers(layers, n));
	char *spec = j ? json_dumps(j, JSON_COMPACT) : NULL, **env;
	size_t k = 0;

	json_decref(j);
	*entry = NULL;
	while (environ[k])
		k++;
	/* asprintf leaves *entry undefined when it fails: the caller frees it */
	if (spec != NULL && asprintf(entry, "%s=%s", CLI_ENV_SANDBOX, spec) < 0)
		*entry = NULL;
	free(spec);
	if (*entry == NULL || (env = calloc(k + 2, sizeof(char *))) == NULL)
		return NULL;
	memcpy(env, environ, k * sizeof(char *));
	env[k] = *entry;
	return env;
}

/* This program's path, for the library to run as the confined shell. */
int
cli_exec_self(char *buf, size_t size)
{
	ssize_t n = readlink("/proc/self/exe", buf, size - 1);

	if (n < 0) {
		cli_warn("/proc/self/exe");
		return -1;
	}
	buf[n] = '\0';
	return 0;
}

/* The session's exec, with the shell swapped for us, to confine it. */
static int
cli_exec_run(struct cli *c, struct shellesc_exec_params *p,
    struct shellesc_exec_result *res)
{
	struct cli_layer one = { .writable = c->o.writable, .no_network = c->o.no_network,
	    .no_exec = c->o.no_exec_writable, .exec_allowed = c->exec_allowed };
	char self[PATH_MAX], **env = NULL, *entry = NULL;
	int r;

	/* what the shell's spawn would have said, had it been ours */
	if (p->shell[0] == '/' && access(p->shell, X_OK) != 0) {
		cli_warn("exec: %s", p->shell);
		return -1;
	}
	if (cli_exec_self(self, sizeof(self)) != 0)
		return -1;
	p->env = env = cli_exec_sandbox_env(p->shell, &one, c->ruleset >= 0 ? 1 : 0, &entry);
	if (env == NULL) {
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
	    .timeout_ms = c->o.timeout_ms, .max_output = c->o.max_output };
	struct shellesc_exec_result res;
	char *cwd = cli_exec_cwd(c);
	int r = CLI_EXIT_FAIL;

	if (cwd == NULL)
		return r;
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

/* --- the re-executed side: confine, then become the shell --- */

#define CLI_SBX_LAYERS	8

struct cli_sbx {
	char *shell;
	struct cli_layer layer[CLI_SBX_LAYERS];
	size_t n;
};

static void
cli_exec_spec_free(struct cli_sbx *x)
{
	free(x->shell);
	for (size_t i = 0; i < x->n; i++) {
		cli_strv_free(&x->layer[i].writable);
		cli_strv_free(&x->layer[i].exec_allowed);
	}
}

/* A JSON array of byte strings appended to sv; 0, or -1 (not one). */
static int
cli_exec_strv(const json_t *a, struct cli_strv *sv)
{
	size_t i;
	json_t *e;
	int r = json_is_array(a) ? 0 : -1;

	json_array_foreach(a, i, e) {
		char *s = cli_json_unbytes(e);

		if (s == NULL || cli_strv_add(sv, s) != 0)
			r = -1;
		free(s);
	}
	return r;
}

/* One layer: {"writable": [...], "no_network": bool, "exec_allowed":
 * [...] (--no-exec-writable) or null}. */
static int
cli_exec_spec_layer(const json_t *j, struct cli_layer *l)
{
	const json_t *allowed = json_object_get(j, "exec_allowed");

	l->no_network = json_is_true(json_object_get(j, "no_network"));
	l->no_exec = json_is_array(allowed);
	if (cli_exec_strv(json_object_get(j, "writable"), &l->writable) != 0 ||
	    (l->no_exec && cli_exec_strv(allowed, &l->exec_allowed) != 0))
		return -1;
	return 0;
}

static int
cli_exec_spec(const char *text, struct cli_sbx *x)
{
	json_error_t err;
	json_t *j = json_loads(text, 0, &err), *layers = json_object_get(j, "layers"), *e;
	size_t i;
	int r = -1;

	x->shell = cli_json_unbytes(json_object_get(j, "shell"));
	if (x->shell != NULL && json_is_array(layers) && json_array_size(layers) <= CLI_SBX_LAYERS)
		r = 0;
	json_array_foreach(layers, i, e)
		if (r == 0 && cli_exec_spec_layer(e, &x->layer[x->n++]) != 0)
			r = -1;
	json_decref(j);
	if (r != 0)
		cli_warnx("%s is not what shellesc exec sets", CLI_ENV_SANDBOX);
	return r;
}

/* Enter layer i's Landlock ruleset: 0 or -1 after a message. */
static int
cli_exec_layer(const struct cli_sbx *x, size_t i)
{
	const struct cli_layer *l = &x->layer[i];
	int ruleset = cli_landlock_ruleset(&l->writable, l->no_network,
	    l->no_exec ? &l->exec_allowed : NULL);
	int e;

	if (ruleset < 0)
		return -1;
	if ((e = cli_landlock_enter(ruleset)) != 0)
		cli_warn("cannot enter the Landlock sandbox");
	close(ruleset);
	return e;
}

/* Every Landlock layer the spec asks for, then the seccomp filter: 0 or -1. */
static int
cli_exec_confine(const struct cli_sbx *x)
{
	struct cli_seccomp f;
	bool no_network = false;

	for (size_t i = 0; i < x->n; i++)
		no_network = no_network || x->layer[i].no_network;
	if (cli_seccomp_build(&f, false) != 0 || (no_network && cli_seccomp_build_net(&f) != 0)) {
		cli_warnx("cannot build the session's seccomp filter");
		return -1;
	}
	for (size_t i = 0; i < x->n; i++)
		if (cli_exec_layer(x, i) != 0)
			return -1;
	if (cli_seccomp_enter(&f) != 0) {
		cli_warn("cannot install the session's seccomp filter");
		return -1;
	}
	return 0;
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
	cli_exec_spec_free(&x);
	return r;
}
