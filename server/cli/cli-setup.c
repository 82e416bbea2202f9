/*
 * cli-setup.c: what run, exec and mcp share: the writable directories,
 * rules, audit, the sandbox, the prompt thread and the session,
 * set up in that order (the ruleset and the private temporary directory
 * before any thread, since TMPDIR is set in our own environment), torn
 * down in reverse.
 */
#include "config.h"

#include <errno.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "proto.h"

extern char **environ;

static int
cli_setup_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (remove(path) != 0)
		cli_warn("cannot remove %s", path);
	return 0;
}

/* A private TMPDIR beneath $TMPDIR (or /tmp), writable in the sandbox
 * whatever -w says: the outer one is not. */
static int
cli_setup_tmpdir(struct cli *c)
{
	const char *base = getenv("TMPDIR");

	if (base && asprintf(&c->outer_tmpdir, "TMPDIR=%s", base) < 0)
		return cli_oom();
	if (asprintf(&c->tmpdir, "%s/shellesc.XXXXXX", base && *base ? base : "/tmp") < 0) {
		c->tmpdir = NULL;
		return cli_oom();
	}
	if (mkdtemp(c->tmpdir) == NULL) {
		cli_warn("cannot make a private temporary directory %s", c->tmpdir);
		free(c->tmpdir);
		c->tmpdir = NULL;
		return -1;
	}
	if (cli_strv_add(&c->o.writable, c->tmpdir) != 0)
		return -1;
	if (setenv("TMPDIR", c->tmpdir, 1) != 0) {
		cli_warn("TMPDIR");
		return -1;
	}
	return 0;
}

/* The current directory (exec: --cwd), writable when no -w is given. */
static int
cli_setup_cwd(struct cli *c)
{
	char *cwd = c->o.cwd ? strdup(c->o.cwd) : getcwd(NULL, 0);
	int r;

	if (cwd == NULL) {
		cli_warn("the current directory");
		return -1;
	}
	r = cli_strv_add(&c->o.writable, cwd);
	free(cwd);
	return r;
}

/*
 * exec's and mcp's shell, --shell or /bin/bash, found as execvp(3) would
 * (PATH searched for a bare name) and checked executable now: a shell
 * that cannot run would otherwise fail every command, one by one.  Made
 * absolute, since each command may start in another directory.
 */
int
cli_setup_shell(struct cli *c)
{
	const char *name = c->o.shell ? c->o.shell : "/bin/bash";
	char *found = cli_path_search(name), *cwd = NULL;
	int e = errno;

	if (found && found[0] != '/' && ((cwd = getcwd(NULL, 0)) == NULL ||
	    asprintf(&c->shell, "%s/%s", cwd, found) < 0)) {
		e = errno;
		c->shell = NULL;
	} else if (found && found[0] == '/')
		c->shell = found, found = NULL;
	free(found);
	free(cwd);
	if (c->shell == NULL) {
		cli_warnx("%s: --shell %s: %s", c->o.cmd == CLI_MCP ? "mcp" : "exec", name,
		    e == ENOENT && strchr(name, '/') == NULL ? "not found in PATH" :
		    e == EACCES ? "not an executable file" : strerror(e));
		return -1;
	}
	c->o.shell = c->shell;
	return 0;
}

/* The exec wrapper: the build tree's, or the installed one. */
static const char *
cli_setup_wrapper(void)
{
	const char *w = getenv(SHELLESC_ENV_PROXY_PATH);

	return w && *w ? w : SHELLESC_WRAPPER_PATH;
}

/* The preload library: the build tree's, or the installed one. */
const char *
cli_setup_preload(void)
{
	const char *p = getenv(CLI_ENV_PRELOAD);

	return p && *p ? p : SHELLESC_PRELOAD_PATH;
}

/* The writable directories are known before the rules are loaded: names
 * are looked up only where the sandbox cannot write (cli-rules.c): the -w
 * directories, or the current one (mcp's default sandbox: both), and
 * always a private TMPDIR. */
static int
cli_setup_roots(struct cli *c)
{
	if (c->o.sandbox != CLI_SANDBOX_LANDLOCK)
		return 0;
	if ((c->o.writable.n == 0 || c->o.sandbox_default) && cli_setup_cwd(c) != 0)
		return -1;
	return cli_setup_tmpdir(c);
}

/*
 * What --no-exec-writable still lets run in place beneath the writable
 * directories: the exact paths the rules name there, PROGRAM (the user
 * named it) and the exec wrapper (the shell runs every command through it).
 */
static int
cli_setup_exec_allowed(struct cli *c)
{
	struct cli_strv *allow = &c->exec_allowed;

	if (cli_rules_exec_paths(c, allow) != 0 ||
	    cli_strv_add(allow, cli_setup_wrapper()) != 0 ||
	    (c->program && cli_strv_add(allow, c->program) != 0))
		return cli_oom();
	for (size_t i = 0; i < allow->n; i++)
		cli_debug(c, 2, "--no-exec-writable: %s may run in place", allow->v[i]);
	return 0;
}

/* The flags of a sandbox: the exec notification with the kernel layer,
 * and the fallback to the filter without it where the layer is not
 * required (asked for, or the only one to catch run's PROGRAM). */
unsigned
cli_setup_sandbox_flags(const struct cli *c)
{
	if (c->o.kernel == CLI_KERNEL_OFF)
		return 0;
	return SHELLESC_SANDBOX_EXEC_NOTIFY | (c->o.kernel == CLI_KERNEL_AUTO &&
	    !c->kernel_needed ? SHELLESC_SANDBOX_NOTIFY_FALLBACK : 0);
}

/*
 * The library's sandbox: run's is PROGRAM's and exec's its shell's
 * (Landlock with --sandbox landlock, always the seccomp filter, the exec
 * notification with the kernel layer); mcp builds the command line's layer
 * only to fail at start, as run does: each call's shell builds its own
 * (cli-mcp-tool.c).
 */
static int
cli_setup_sandbox(struct cli *c)
{
	struct cli_layer one = { .writable = c->o.writable, .no_network = c->o.no_network,
	    .no_exec = c->o.no_exec_writable, .writable_git = c->o.writable_git };
	bool landlock = c->o.sandbox == CLI_SANDBOX_LANDLOCK, listen;

	/* the kernel layer's warning, or its refusal, at start (run: at its spawn) */
	if (c->o.cmd != CLI_RUN && cli_kernel_plan(c, &listen) != 0)
		return -1;
	if (!landlock && c->o.cmd == CLI_MCP)
		return 0;
	if (landlock && c->o.no_exec_writable && cli_setup_exec_allowed(c) != 0)
		return -1;
	one.exec_allowed = c->exec_allowed;
	c->sandbox = cli_sandbox_new(&one, landlock ? 1 : 0, cli_setup_sandbox_flags(c),
	    &c->o.allow_socket, c->o.verbose);
	return c->sandbox == NULL ? -1 : 0;
}

/* A session's configuration: our callbacks, and where the wrapper and
 * preload are, checked now: a missing part would leave execs uncaught (or
 * every exec warning) without saying so.  The wrapper is needed in every
 * mode: the preload execs it as the proxy of an escalated exec. */
int
cli_setup_config(struct cli *c, struct shellesc_config *cfg)
{
	*cfg = (struct shellesc_config){
		.policy = cli_policy, .policy_arg = c,
		.ended = cli_policy_ended, .ended_arg = c,
		.prepare = cli_profile_prepare, .release = cli_profile_release,
		.prepare_arg = c,
		.log = cli_policy_log, .log_arg = c,
		.pass_env = (const char *const *)c->o.pass_env.v,
		.session_env = c->own_env,
	};
	cfg->intercept = c->o.intercept;
	/* what the sandboxed side can write cannot be escalated by its name */
	cfg->writable = c->o.sandbox == CLI_SANDBOX_LANDLOCK ? c->o.writable.v : NULL;
	cfg->wrapper_path = cli_setup_wrapper();
	cfg->preload_path = cli_setup_preload();
	if (access(cfg->wrapper_path, X_OK) != 0) {
		cli_warn("exec wrapper %s", cfg->wrapper_path);
		return -1;
	}
	if ((cfg->intercept & SHELLESC_INTERCEPT_PRELOAD) && access(cfg->preload_path, R_OK) != 0) {
		cli_warn("preload library %s (SHELLESC_PRELOAD names another; "
		    "reinstalling shellesc restores it)", cfg->preload_path);
		return -1;
	}
	return 0;
}

/*
 * Our own environment as escalated commands are to see it: the private
 * TMPDIR is the sandbox's (writable from inside), so theirs is the one we
 * were started with.  A new pointer array (NULL: out of memory).
 */
static char **
cli_setup_own_env(struct cli *c)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	if ((env = calloc(n + 2, sizeof(char *))) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (c->tmpdir == NULL || strncmp(environ[i], "TMPDIR=", 7) != 0)
			env[k++] = environ[i];
	if (c->tmpdir != NULL && c->outer_tmpdir != NULL)
		env[k] = c->outer_tmpdir;
	return env;
}

/*
 * The kernel layer alone: our environment without shellesc's own
 * variables (where its wrapper and preload are), so that nothing in the
 * session names shellesc.  Its strings are environ's.  NULL: out of memory.
 */
static char **
cli_setup_program_env(void)
{
	static const char *const ours[] = { SHELLESC_ENV_PROXY_PATH "=", CLI_ENV_PRELOAD "=" };
	size_t n = 0, k = 0, j;
	char **env;

	while (environ[n])
		n++;
	if ((env = calloc(n + 1, sizeof(char *))) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		for (j = 0; j < 2 && strncmp(environ[i], ours[j], strlen(ours[j])) != 0; j++)
			continue;
		if (j == 2)
			env[k++] = environ[i];
	}
	return env;
}

static int
cli_setup_session(struct cli *c)
{
	struct shellesc_config cfg;
	int r;

	if (cli_setup_config(c, &cfg) != 0)
		return -1;
	if ((r = shellesc_session_start(&cfg, &c->s)) != 0) {
		cli_warnx("cannot start a session: %s", strerror(-r));
		return -1;
	}
	return 0;
}

/* What escalated commands see of ours, what PROGRAM starts with, and the
 * fd limit PROGRAM gets back (cli-run.c), all taken before any session
 * starts. */
static int
cli_setup_env(struct cli *c)
{
	if ((c->own_env = cli_setup_own_env(c)) == NULL ||
	    (c->o.intercept == SHELLESC_INTERCEPT_KERNEL &&
	    (c->program_env = cli_setup_program_env()) == NULL)) {
		cli_warnx("out of memory");
		return -1;
	}
	if (getrlimit(RLIMIT_NOFILE, &c->nofile) != 0)
		c->nofile.rlim_cur = c->nofile.rlim_max = RLIM_INFINITY;
	return 0;
}

int
cli_setup(struct cli *c)
{
	/* An approver or terminal going away must be an error, not our death;
	 * children get SIGPIPE back (cli-run.c, cli-approver.c, spawn.c). */
	signal(SIGPIPE, SIG_IGN);
	if (c->o.approver != NULL && cli_approver_check(c->o.approver) != 0)
		return -1;
	if (cli_setup_roots(c) != 0 || cli_rules_open(c) != 0 || cli_rules_guard(c) != 0 ||
	    cli_audit_open(c) != 0 ||
	    (c->o.learn != NULL && (c->learn = cli_learn_new(c)) == NULL) ||
	    cli_setup_sandbox(c) != 0 || cli_setup_env(c) != 0 || cli_prompt_start(c) != 0)
		return -1;
	/* mcp starts a session per tool call (cli-mcp-tool.c) */
	return c->o.cmd == CLI_MCP ? 0 : cli_setup_session(c);
}

/* The session first: once it has ended no request reaches the prompt
 * thread, and stopping that thread denies what it still holds. */
void
cli_teardown(struct cli *c)
{
	if (c->s)
		shellesc_session_end(c->s);
	c->s = NULL;
	cli_prompt_stop(c);
	/* every answer is in: what --learn proposed goes to its file at once */
	if (c->learn != NULL) {
		if (cli_learn_write(c->learn, c->o.learn) == 0)
			cli_debug(c, 1, "--learn: %zu rules proposed in %s",
			    cli_learn_count(c->learn), c->o.learn);
		cli_learn_free(c->learn);
		c->learn = NULL;
	}
	shellesc_sandbox_free(c->sandbox);
	c->sandbox = NULL;
	if (c->tmpdir) {
		nftw(c->tmpdir, cli_setup_rm, 16, FTW_DEPTH | FTW_PHYS);
		free(c->tmpdir);
		c->tmpdir = NULL;
	}
	cli_strv_free(&c->exec_allowed);
	free(c->own_env);	/* its strings are environ's and outer_tmpdir */
	c->own_env = NULL;
	free(c->program_env);	/* its strings are environ's */
	c->program_env = NULL;
	free(c->outer_tmpdir);
	c->outer_tmpdir = NULL;
	free(c->shell);
	c->shell = NULL;
	cli_audit_close(c);
	cli_rules_close(c);
}
