/*
 * shellesc-execve-wrapper FILE ARGV0 [ARG...]
 *
 * Patched shells exec this instead of FILE when EXEC_WRAPPER is set.  It
 * asks the session's server and then execs FILE in place (run), hands its
 * stdio to the server and mirrors the command's end (escalate), or refuses
 * (deny, exit 126).  Every argument after FILE is argv, verbatim: there are
 * no options.  It prints nothing but errors, unless SHELLESC_DEBUG is set.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "client.h"
#include "err.h"
#include "fdpass.h"
#include "script.h"

extern char **environ;

#define EXIT_CANNOT_RUN 126	/* as shells report a file they cannot execute */

static const char *wrapper_verdicts[] = { "run", "escalate", "deny" };

static void
wrapper_debug(const char *file, const char *what)
{
	if (getenv(SHELLESC_ENV_DEBUG) != NULL)
		fprintf(stderr, "shellesc-execve-wrapper[%ld]: %s: %s\n",
		    (long)getpid(), file, what);
}

/*
 * The raw system call, not execve(3): when the preload library is loaded
 * into the wrapper too, this exec was already decided and must not be
 * asked about again.
 */
static int
wrapper_execve(const char *file, char *const argv[], char *const env[])
{
	return (int)syscall(SYS_execve, file, argv, env);
}

/*
 * Exec in place; a file without #! runs under /bin/sh, as POSIX shells do,
 * or under the patched shell that named itself (bash runs such a file
 * itself).  Naming another file gives a caller nothing it did not have:
 * it could exec that file itself, and the kernel layer asks about it.
 */
static int
wrapper_run(const char *file, char **argv, const char *shell)
{
	const char *why;
	int e = script_run(wrapper_execve, file, argv, environ, shell, &why);

	client_say(file, why);
	return script_status(e);
}

static int
wrapper_escalate(const char *file, struct client_req *req)
{
	struct client_result res;
	int r = client_escalate(req, &res);

	if (r != 0) {
		client_say(file, res.error[0] ? res.error : client_strerror(r));
		return EXIT_CANNOT_RUN;
	}
	if (res.error[0])	/* the server's text names the program already */
		client_say(NULL, res.error);
	client_exit_like(&res);
}

static int
wrapper_fail(const char *file, const char *why, int r)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "%s: %s", why, client_strerror(r));
	client_say(file, msg);
	return EXIT_CANNOT_RUN;
}

/* Whether NAME=... is one of the names in list (':' separated). */
static int
wrapper_listed(const char *list, const char *entry)
{
	size_t n = strcspn(entry, "=");

	for (const char *p = list; *p; p += strcspn(p, ":"), p += *p == ':')
		if (strncmp(p, entry, n) == 0 && (p[n] == ':' || p[n] == '\0'))
			return 1;
	return 0;
}

/* What a patched shell tells the wrapper beside the command's environment. */
struct wrapper_vars {
	const char *shell;	/* for a file without #!: SCRIPT_SHELL, or the one named */
	int ask;		/* SHELLESC_WRAPPER_ASK's fd, or -1 */
};

/* Whether entry is one of the variables the patched shell added. */
static int
wrapper_added(const char *entry, const char *list)
{
	static const char *const ours[] = { SHELLESC_ENV_ADDED "=", SHELLESC_ENV_SHELL "=",
		SHELLESC_ENV_ASK "=" };

	for (size_t i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		if (strncmp(entry, ours[i], strlen(ours[i])) == 0)
			return 1;
	return list != NULL && wrapper_listed(list, entry);
}

/*
 * A patched shell told to clear the command's environment (exec -c) adds
 * the session's variables back for us and names them in
 * SHELLESC_WRAPPER_ADDED; bash names itself in SHELLESC_WRAPPER_SHELL, and
 * gives SHELLESC_WRAPPER_ASK when it only asks.  Once the session is found
 * they go, so what is asked about and run is the environment the program
 * was given (the strings stay valid: only environ's slots move).
 */
static struct wrapper_vars
wrapper_env_restore(void)
{
	const char *list = getenv(SHELLESC_ENV_ADDED), *sh = getenv(SHELLESC_ENV_SHELL);
	const char *ask = getenv(SHELLESC_ENV_ASK);
	struct wrapper_vars v = { sh != NULL && sh[0] == '/' ? sh : SCRIPT_SHELL,
	    ask != NULL ? client_fd_value(ask) : -1 };
	size_t k = 0;

	for (size_t i = 0; environ[i]; i++)
		if (!wrapper_added(environ[i], list))
			environ[k++] = environ[i];
	environ[k] = NULL;
	return v;
}

/*
 * Ask mode (SHELLESC_WRAPPER_ASK): the patched bash runs the file itself,
 * as a file without #! is run, and only wants the verdict.  Run: one byte
 * on the pipe it gave, and exit 0; the other verdicts are done here.
 */
static int
wrapper_tell_run(int fd)
{
	ssize_t n;

	while ((n = write(fd, "r", 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? 0 : EXIT_CANNOT_RUN;
}

/*
 * Proxy mode: the preload decided on escalation inside an execve() or
 * posix_spawn() and exec'd us with the request's stream open; all that is
 * left is the hand-over and mirroring the command's end.
 */
static int
wrapper_proxy(const char *file, const char *fdstr)
{
	struct client_req req = { .action = SHELLESC_ACT_ESCALATE };
	int fd = client_fd_value(fdstr);

	if (fd < 0 || fdpass_is_unix(fd, SOCK_STREAM) != 0) {
		client_say(file, "SHELLESC_PROXY_FD is not an escalation stream");
		return EXIT_CANNOT_RUN;
	}
	req.stream = fd;
	return wrapper_escalate(file, &req);
}

int
main(int argc, char **argv)
{
	const char *proxy = getenv(SHELLESC_ENV_PROXY);

	struct msg_exec_out e = { .env = environ, .pid = getpid(), .flags = SHELLESC_FLAG_VIA_WRAPPER };
	struct client_req req;
	struct wrapper_vars vars;
	int fd, r;

	if (argc < 2) {
		client_say(NULL, "usage: shellesc-execve-wrapper FILE ARGV0 [ARG...]");
		return EXIT_CANNOT_RUN;
	}
	e.file = argv[1];
	e.argv = argv + 2;
	if (proxy != NULL)
		return wrapper_proxy(e.file, proxy);
	if ((r = client_session_fd(environ, &fd)) != 0)
		return wrapper_fail(e.file, "no usable shellesc session", r);
	vars = wrapper_env_restore();
	e.env = environ;
	if ((r = client_ask(fd, &e, &req)) != 0)
		return req.refused ? (client_say(e.file, req.reason), EXIT_CANNOT_RUN) :
		    wrapper_fail(e.file, "cannot ask the shellesc server", r);
	wrapper_debug(e.file, wrapper_verdicts[req.action]);
	switch (req.action) {
	case SHELLESC_ACT_RUN:
		return vars.ask >= 0 ? wrapper_tell_run(vars.ask) :
		    wrapper_run(e.file, argv + 2, vars.shell);
	case SHELLESC_ACT_ESCALATE:
		return wrapper_escalate(e.file, &req);
	default:
		client_say("execution denied", req.reason[0] ? req.reason : NULL);
		return EXIT_CANNOT_RUN;
	}
}
