/*
 * cli-setup.c: what run and exec share: rules, audit, the sandbox's
 * ruleset, the prompt thread and the session, set up in that order (the
 * ruleset and the private temporary directory before any thread, since
 * TMPDIR is set in our own environment), torn down in reverse.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "path.h"
#include "proto.h"

extern char **environ;

/* The first candidate the preload would ask about (copied into arg,
 * PATH_MAX bytes), or the errno execve would fail with. */
static int
cli_path_try(const char *candidate, void *arg)
{
	int e = path_executable(candidate);

	if (e != 0)
		return e;
	return strlcpy(arg, candidate, PATH_MAX) < PATH_MAX ? 0 : ENAMETOOLONG;
}

/* PROGRAM's path as execvp(3) would find it, by the preload's own search
 * and test (common/path.c): the same PATH, the same default, the same
 * errors. */
char *
cli_path_search(const char *name)
{
	char found[PATH_MAX];
	int e = path_search(getenv("PATH"), name, cli_path_try, found);

	if (e != 0) {
		errno = e;
		return NULL;
	}
	return strdup(found);
}

static int
cli_setup_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (remove(path) != 0)
		cli_warn("cannot remove %s", path);
	return 0;
}

/* The default writable directories: the current one (exec: --cwd) and a
 * private TMPDIR. */
static int
cli_setup_writable(struct cli *c)
{
	const char *base = getenv("TMPDIR");
	char *cwd = c->o.cwd ? strdup(c->o.cwd) : getcwd(NULL, 0);
	int r = -1;

	if (cwd == NULL) {
		cli_warn("the current directory");
		return -1;
	}
	if (base && asprintf(&c->outer_tmpdir, "TMPDIR=%s", base) < 0) {
		cli_oom();
		free(cwd);
		return -1;
	}
	if (asprintf(&c->tmpdir, "%s/shellesc.XXXXXX", base && *base ? base : "/tmp") < 0) {
		c->tmpdir = NULL;
		cli_oom();
	} else if (mkdtemp(c->tmpdir) == NULL) {
		cli_warn("cannot make a private temporary directory %s", c->tmpdir);
		free(c->tmpdir);
		c->tmpdir = NULL;
	} else if (cli_strv_add(&c->o.writable, cwd) == 0 &&
	    cli_strv_add(&c->o.writable, c->tmpdir) == 0) {
		if ((r = setenv("TMPDIR", c->tmpdir, 1)) != 0)
			cli_warn("TMPDIR");
	}
	free(cwd);
	return r;
}

static int
cli_setup_sandbox(struct cli *c)
{
	if (c->o.sandbox != CLI_SANDBOX_LANDLOCK)
		return 0;
	if (c->o.writable.n == 0 && cli_setup_writable(c) != 0)
		return -1;
	c->ruleset = cli_landlock_ruleset(&c->o.writable, c->o.no_network);
	return c->ruleset < 0 ? -1 : 0;
}

/* Where the wrapper and preload are, checked now: a missing part would
 * leave execs uncaught (or every exec warning) without saying so.  The
 * wrapper is needed in every mode: the preload execs it as the proxy of
 * an escalated exec. */
static int
cli_setup_parts(struct cli *c, struct shellesc_config *cfg)
{
	const char *w = getenv(SHELLESC_ENV_PROXY_PATH), *p = getenv(CLI_ENV_PRELOAD);

	cfg->intercept = c->o.intercept;
	cfg->wrapper_path = w && *w ? w : SHELLESC_WRAPPER_PATH;
	cfg->preload_path = p && *p ? p : SHELLESC_PRELOAD_PATH;
	if (access(cfg->wrapper_path, X_OK) != 0) {
		cli_warn("exec wrapper %s", cfg->wrapper_path);
		return -1;
	}
	if ((cfg->intercept & SHELLESC_INTERCEPT_PRELOAD) && access(cfg->preload_path, R_OK) != 0) {
		cli_warn("preload library %s (--mode wrapper catches execs through "
		    "EXEC_WRAPPER only)", cfg->preload_path);
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

static int
cli_setup_session(struct cli *c)
{
	struct shellesc_config cfg = {
		.policy = cli_policy, .policy_arg = c,
		.ended = cli_policy_ended, .ended_arg = c,
		.log = cli_policy_log, .log_arg = c,
		.pass_env = (const char *const *)c->o.pass_env.v,
	};
	char **own = cli_setup_own_env(c);
	int r;

	if (own == NULL) {
		cli_warnx("out of memory");
		return -1;
	}
	cfg.session_env = own;
	/* what PROGRAM gets back (cli-run.c), before the session raises it */
	if (getrlimit(RLIMIT_NOFILE, &c->nofile) != 0)
		c->nofile.rlim_cur = c->nofile.rlim_max = RLIM_INFINITY;
	r = cli_setup_parts(c, &cfg) == 0 ? shellesc_session_start(&cfg, &c->s) : 1;
	free(own);
	if (r < 0)
		cli_warnx("cannot start a session: %s", strerror(-r));
	return r == 0 ? 0 : -1;
}

int
cli_setup(struct cli *c)
{
	/* An approver or terminal going away must be an error, not our death;
	 * children get SIGPIPE back (cli-run.c, cli-approver.c, spawn.c). */
	signal(SIGPIPE, SIG_IGN);
	if (cli_rules_open(c) != 0 || cli_audit_open(c) != 0 ||
	    cli_setup_sandbox(c) != 0 || cli_prompt_start(c) != 0 ||
	    cli_setup_session(c) != 0)
		return -1;
	return 0;
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
	if (c->ruleset >= 0)
		close(c->ruleset);
	c->ruleset = -1;
	if (c->tmpdir) {
		nftw(c->tmpdir, cli_setup_rm, 16, FTW_DEPTH | FTW_PHYS);
		free(c->tmpdir);
		c->tmpdir = NULL;
	}
	free(c->outer_tmpdir);
	c->outer_tmpdir = NULL;
	cli_audit_close(c);
	cli_rules_close(c);
}
