/*
 * cli-run.c: shellesc run PROGRAM.  The library's session_exec has no
 * sandbox hook, so PROGRAM is spawned here: the session's overlay merged
 * into our environment, fork, the library's sandbox (Landlock and the
 * seccomp filter, built at setup) entered in the child, exec.  The
 * session's client socket is closed right after the fork, so only
 * PROGRAM's tree can reach the session.
 *
 * PROGRAM stays in our process group, so the terminal's ^C and ^Z reach it
 * directly; signals sent to shellesc itself (kill, a timeout) are passed
 * on to it.  Our status is PROGRAM's, 128+N if signal N killed it.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "script.h"

/* What the child reports through the exec-error pipe. */
struct cli_run_err {
	enum { CLI_RUN_EXEC, CLI_RUN_LANDLOCK, CLI_RUN_SECCOMP, CLI_RUN_GATE } stage;
	int err;			/* errno */
};

static void
cli_run_sigset(sigset_t *set)
{
	static const int sigs[] = { SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM };

	sigemptyset(set);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaddset(set, sigs[i]);
}

/* Child: from here to exec, async-signal-safe calls only (threads exist). */
static void __attribute__((noreturn))
cli_run_child(struct cli *c, bool listen, const char *path, char **env,
    char **shargv, int ep, int kp)
{
	struct shellesc_sandbox_fault why;
	struct cli_run_err e = { 0 };
	sigset_t none;

	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* the fd limit we had before the session raised it (a failure changes nothing) */
	if (c->nofile.rlim_cur != RLIM_INFINITY)
		setrlimit(RLIMIT_NOFILE, &c->nofile);
	if (cli_kernel_enter(c, listen, kp, &why) != 0) {
		e.stage = why.step == SHELLESC_SANDBOX_LANDLOCK_ENTER ||
		    why.step == SHELLESC_SANDBOX_GIT_ENTER ? CLI_RUN_LANDLOCK :
		    why.step == SHELLESC_SANDBOX_NO_GATE ? CLI_RUN_GATE : CLI_RUN_SECCOMP;
		e.err = why.err;
	} else {
		execve(path, c->o.argv, env);
		/* no #! line: a shell script, as execvp(3) runs it */
		if (errno == ENOEXEC)
			execve(SCRIPT_SHELL, shargv, env);
		e.err = errno;
	}
	if (write(ep, &e, sizeof(e)) < 0)
		_exit(CLI_EXIT_FAIL);
	_exit(CLI_EXIT_NOEXEC);
}

/* The exit status for a PROGRAM that could not be started. */
static int
cli_run_failed(struct cli *c, pid_t pid, const struct cli_run_err *e)
{
	char *prog = cli_show(c->o.argv[0]);

	waitpid(pid, NULL, 0);
	if (e->stage == CLI_RUN_LANDLOCK)
		cli_warnx("cannot enter the Landlock sandbox: %s", strerror(e->err));
	else if (e->stage == CLI_RUN_GATE)
		cli_warnx("--sandbox landlock: no seccomp listener for the socket gate (%s): "
		    "not started", e->err == EBUSY ? "this session runs inside another that "
		    "has one" : strerror(e->err));
	else if (e->stage == CLI_RUN_SECCOMP)
		cli_warnx("cannot install the session's seccomp filter: %s", strerror(e->err));
	else
		cli_warnx("%s: %s", prog ? prog : "PROGRAM", strerror(e->err));
	free(prog);
	if (e->stage != CLI_RUN_EXEC)
		return CLI_EXIT_FAIL;
	return e->err == ENOENT ? CLI_EXIT_NOTFOUND : CLI_EXIT_NOEXEC;
}

/* 0 once PROGRAM runs; else the exit status for the failure. */
static int
cli_run_spawn(struct cli *c, const char *path, pid_t *pid)
{
	char **env = shellesc_env_merge(c->s, c->program_env);
	char **shargv = calloc(script_slots(c->o.argv), sizeof(char *));
	struct cli_run_err e;
	int ep[2] = { -1, -1 }, kp[2] = { -1, -1 }, r = CLI_EXIT_FAIL, g;
	bool listen;

	if (cli_kernel_plan(c, &listen) != 0)
		goto out;
	if (c->sandbox != NULL && (g = shellesc_session_sandbox(c->s, c->sandbox)) != 0) {
		cli_warnx("cannot start the socket gate: %s", strerror(-g));
		goto out;
	}
	if (env == NULL || shargv == NULL || pipe2(ep, O_CLOEXEC) != 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, kp) != 0) {
		cli_warn("cannot start %s", path);
		goto out;
	}
	script_argv(shargv, SCRIPT_SHELL, path, c->o.argv);
	if ((*pid = fork()) < 0)
		cli_warn("fork");
	else if (*pid == 0)
		cli_run_child(c, listen, path, env, shargv, ep[1], kp[1]);
	else {
		close(ep[1]);
		close(kp[1]);
		ep[1] = kp[1] = -1;
		shellesc_session_close_client(c->s);
		/* before the pipe: the child's exec waits for its listener to be served */
		if (cli_kernel_take(c, kp[0], *pid) != 0) {
			kill(*pid, SIGKILL);
			waitpid(*pid, NULL, 0);
		} else	/* EOF: the exec happened and closed the pipe */
			r = read(ep[0], &e, sizeof(e)) == sizeof(e) ? cli_run_failed(c, *pid, &e) : 0;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (ep[i] >= 0)
			close(ep[i]);
		if (kp[i] >= 0)
			close(kp[i]);
	}
	shellesc_env_free(env);
	free(shargv);
	return r;
}

/* Signals sent to us (not the terminal's, which PROGRAM got too) go on. */
static void
cli_run_forward(int sfd, pid_t pid)
{
	struct signalfd_siginfo si;

	if (read(sfd, &si, sizeof(si)) == sizeof(si) && si.ssi_code != SI_KERNEL)
		kill(pid, (int)si.ssi_signo);
}

static int
cli_run_wait(struct cli *c, pid_t pid, int sfd)
{
	int pidfd = pidfd_open(pid, 0), st = 0;

	while (pidfd >= 0) {
		struct pollfd p[2] = { { pidfd, POLLIN, 0 }, { sfd, POLLIN, 0 } };

		if (poll(p, 2, -1) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			cli_run_forward(sfd, pid);
		if (p[0].revents)
			break;
	}
	if (pidfd >= 0)
		close(pidfd);
	if (waitpid(pid, &st, 0) != pid) {
		cli_warn("waiting for PROGRAM");
		return CLI_EXIT_FAIL;
	}
	if (WIFSIGNALED(st)) {
		cli_debug(c, 1, "%s was killed by signal %d", c->o.argv[0], WTERMSIG(st));
		return 128 + WTERMSIG(st);
	}
	cli_debug(c, 1, "%s exited %d", c->o.argv[0], WEXITSTATUS(st));
	return WEXITSTATUS(st);
}

int
cli_run(struct cli *c)
{
	char *path = NULL, *shown;
	int r = CLI_EXIT_FAIL, sfd = -1;
	sigset_t fwd;
	pid_t pid;

	/* Blocked before any thread starts, so every thread inherits it and
	 * these signals arrive only through the signalfd. */
	cli_run_sigset(&fwd);
	sigprocmask(SIG_BLOCK, &fwd, NULL);
	if ((path = cli_path_search(c->o.argv[0])) == NULL) {
		int e = errno;

		r = e == ENOENT ? CLI_EXIT_NOTFOUND : e == EACCES ? CLI_EXIT_NOEXEC : r;
		shown = cli_show(c->o.argv[0]);
		cli_warnx("%s: %s", shown ? shown : "PROGRAM",
		    e == ENOENT ? "command not found" : strerror(e));
		free(shown);
		return r;
	}
	c->program = path;
	if (cli_probe(c, cli_setup_preload()) != 0) {
		free(path);
		return CLI_EXIT_FAIL;
	}
	if (cli_setup(c) == 0 && (sfd = signalfd(-1, &fwd, SFD_CLOEXEC)) < 0)
		cli_warn("signalfd");
	if (sfd >= 0 && (r = cli_run_spawn(c, path, &pid)) == 0)
		r = cli_run_wait(c, pid, sfd);
	if (sfd >= 0)
		close(sfd);
	cli_teardown(c);
	free(path);
	return r;
}
