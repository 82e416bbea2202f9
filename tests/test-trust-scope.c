/*
 * test-trust-scope.c: suite trust_scope -- what the sandboxed side of
 * shellesc run -s landlock can reach that is not a file: processes of the
 * same user outside the sandbox, by signal and by abstract UNIX socket.
 * The sandboxed side is the run's unprivileged user (tests/helpers/user.h)
 * running shellesc itself; the victim is a process of that same user,
 * started outside, that binds an abstract socket and waits.  Landlock's
 * scopes (ABI 6) put both out of reach; the session's own processes keep
 * both.  Skipped, with the reason, below ABI 6.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/cli.h"
#include "helpers/user.h"

TC_SUITE(trust_scope, NULL);

/* Connect to the abstract socket argv[1], or bind one and connect to it
 * ("self"): prints "NAME: ok" or "NAME: errno". */
#define TS_ABSTRACT_PY							\
	"import socket, sys\n"						\
	"def go(tag, name, bind):\n"					\
	"    try:\n"							\
	"        if bind:\n"						\
	"            l = socket.socket(socket.AF_UNIX); l.bind(b'\\0' + name); l.listen(1)\n" \
	"        socket.socket(socket.AF_UNIX).connect(b'\\0' + name); print(tag + ': ok')\n" \
	"    except OSError as e:\n"					\
	"        print(tag + ': ' + str(e.errno))\n"			\
	"go('outside', sys.argv[1].encode(), False)\n"			\
	"go('inside', sys.argv[1].encode() + b'-inner', True)\n"

/* The victim, as u: an abstract socket named name, listening, then a wait
 * to be killed.  Reports its readiness by closing ready. */
static pid_t
ts_victim(const struct tu_user *u, const char *name, int ready[2])
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	pid_t pid;
	int fd;

	cr_assert(strlen(name) + 1 < sizeof(a.sun_path));
	memcpy(a.sun_path + 1, name, strlen(name));
	cr_assert((pid = fork()) >= 0);
	if (pid == 0) {
		close(ready[0]);
		/* a failed assertion must not leave it behind */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || tu_become(u) != 0 || (fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
		    bind(fd, (struct sockaddr *)&a,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name))) != 0 ||
		    listen(fd, 8) != 0)
			_exit(2);
		close(ready[1]);
		for (;;)
			pause();
	}
	close(ready[1]);
	return pid;
}

/* The attack's script: the victim's socket, a kill of the victim and of
 * the server, and the session's own child. */
static const char ts_script[] =
    "/usr/bin/python3 -c \"$PY\" \"$NAME\"\n"
    "kill -9 \"$VICTIM\" 2>/dev/null; echo \"victim: $?\"\n"
    "kill -0 \"$PPID\" 2>/dev/null; echo \"server: $?\"\n"
    "sleep 30 & own=$!; kill \"$own\"; wait \"$own\"; echo \"own: $?\"\n";

/* The unprivileged user and its SBX, or the test skipped, saying why. */
static char *
ts_need(struct tu_user *u)
{
	const char *why = NULL, *self;
	char *sbx;

	if (tc_landlock_abi() < 6)
		TC_SKIP(&t, &r, "needs Landlock ABI 6 (its scopes)");
	if (access("/usr/bin/python3", X_OK) != 0)
		TC_SKIP(&t, &r, "needs /usr/bin/python3 for an abstract socket");
	if (tu_user(u, &why) != 0)
		TC_SKIP(&t, &r, "%s", why);
	if ((self = tu_reachable(u, TEST_SHELLESC)) == NULL || strcmp(self, TEST_SHELLESC) != 0 ||
	    strcmp(tu_reachable(u, TEST_WRAPPER), TEST_WRAPPER) != 0)
		TC_SKIP(&t, &r, "the build tree is closed to %s: shellesc cannot run as it", u->name);
	sbx = th_tmpdir();
	cr_assert_eq(chmod(sbx, 0755), 0);
	if (u->created)
		cr_assert_eq(chown(sbx, u->uid, u->gid), 0);
	return sbx;
}

/* shellesc ARGS... as u in sbx, with the victim in its environment:
 * the script's output (exec's stdout is in its JSON). */
static char *
ts_attack(const struct tu_user *u, const char *sbx, pid_t victim, const char *name,
    char *const args[])
{
	char vars[3][256], *env[8] = { NULL }, *o, *err, *text;
	struct ts_proc p;
	int st;

	snprintf(vars[0], sizeof(vars[0]), "NAME=%s", name);
	snprintf(vars[1], sizeof(vars[1]), "VICTIM=%d", (int)victim);
	/* not sbx: a writable root that holds the rules is refused */
	snprintf(vars[2], sizeof(vars[2]), "HOME=/nonexistent");
	for (size_t i = 0; i < 3; i++)
		env[i] = vars[i];
	env[3] = "PY=" TS_ABSTRACT_PY;
	env[4] = "PATH=/usr/bin:/bin";
	env[5] = "SHELLESC_WRAPPER=" TEST_WRAPPER;
	ts_proc_start_as(&p, u, sbx, env, TEST_SHELLESC, args);
	st = ts_proc_wait(&p, &o, NULL, &err);
	cr_log_info("shellesc %s as %s: status %#x\nstdout:\n%sstderr:\n%s", args[1], u->name,
	    st, o, err);
	free(err);
	if (strcmp(args[1], "exec") != 0)
		return o;
	text = strdup(tc_jstr(tc_json(&t, o), "stdout"));
	free(o);
	return text;
}

/*
 * The attack, as the unprivileged user under shellesc run (or exec) -s
 * landlock -w SBX: connect to the victim's abstract socket, kill -9 the
 * victim and the server; and the session's own: a socket it binds, a
 * child it kills.
 */
static void
ts_scoped(bool exec)
{
	struct tu_user u;
	char name[64], *o, *sbx = ts_need(&u);
	int ready[2], st;
	pid_t victim;
	char c;

	th_pipe(ready);
	snprintf(name, sizeof(name), "shellesc-scope-%d", (int)getpid());
	victim = ts_victim(&u, name, ready);
	cr_assert_eq(read(ready[0], &c, 1), 0, "the victim did not start");
	close(ready[0]);
	o = ts_attack(&u, sbx, victim, name, exec ?
	    TS_V("shellesc", "exec", "--mode", "wrapper", "--no-login", "--output", "split",
	    "-s", "landlock", "-w", sbx, "-c", (char *)ts_script) :
	    TS_V("shellesc", "run", "--mode", "wrapper", "--force", "-s", "landlock", "-w", sbx,
	    "--", "bash", "-c", (char *)ts_script));
	cr_assert_eq(waitpid(victim, &st, WNOHANG), 0, "the sandbox killed a process outside");
	kill(victim, SIGKILL);
	cr_assert_eq(waitpid(victim, NULL, 0), victim);
	cr_assert_not_null(o);
	cr_assert(th_has_line(o, "victim: 1"), "a process outside got a signal:\n%s", o);
	cr_assert(th_has_line(o, "server: 1"), "the server got a signal:\n%s", o);
	cr_assert(th_has_line(o, "own: 143"), "the session's own child got no signal:\n%s", o);
	cr_assert(th_has_line(o, "outside: 1"), "an outside abstract socket was reachable:\n%s", o);
	cr_assert(th_has_line(o, "inside: ok"), "the sandbox's own abstract socket:\n%s", o);
	free(o);
	th_rmtree(sbx);
}

Test(trust_scope, signals_and_abstract_sockets_stay_inside_run)
{
	ts_scoped(false);
}

/* exec's shell (and so each mcp call's) enters the library's same sandbox. */
Test(trust_scope, signals_and_abstract_sockets_stay_inside_exec)
{
	ts_scoped(true);
}
