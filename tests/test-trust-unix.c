/*
 * test-trust-unix.c: suite trust_unix -- the socket gate of shellesc run
 * -s landlock (docs/security.md, "Pathname UNIX sockets").  The sandboxed
 * side is the suite's unprivileged user u; the victims are servers of u
 * itself started outside the session, their socket files in OUT (outside
 * the writable roots, as /run/user/UID/bus or an ssh ControlMaster are):
 *
 *   - a tmux server: `tmux -S SOCK run-shell "touch OUT/x"` from the
 *     sandbox must fail, x not made; with --allow-socket SOCK it works;
 *   - a plain listener (a session bus's kind): refused by default, reached
 *     with --allow-socket, and never by a name the sandbox swapped: an
 *     allowed socket file in SBX replaced by a link to the listener;
 *   - an abstract socket of a process outside: EPERM, unless allowed;
 *   - a socket file nothing listens on: ECONNREFUSED, as without the gate;
 *   - what the session binds itself stays reachable: a socket file in SBX,
 *     an abstract one, and a tmux server started in the sandbox.
 *
 * Skipped, with the reason, without Landlock, python3 or tmux.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
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
#include "helpers/trust.h"
#include "helpers/user.h"

#define tw tt_world	/* the user u, SBX and OUT: helpers/trust.h */
#define t (tw.t)
#define r (tw.r)

TestSuite(trust_unix, .init = tt_suite_init, .fini = tt_suite_fini, .timeout = TC_TIMEOUT);

/* Connect to each argument (a path, or @name: abstract) and read a line:
 * prints "ARG: ok LINE" or "ARG: ERRNO". */
#define TU_CONNECT_PY							\
	"import socket, sys\n"						\
	"for a in sys.argv[1:]:\n"					\
	"    try:\n"							\
	"        s = socket.socket(socket.AF_UNIX)\n"			\
	"        s.connect(b'\\0' + a[1:].encode() if a[0] == '@' else a)\n" \
	"        print(a + ': ok ' + s.recv(16).decode().strip())\n"	\
	"    except OSError as e:\n"					\
	"        print(a + ': ' + str(e.errno))\n"

/* Bind each argument (as above), then connect to it. */
#define TU_SELF_PY							\
	"import socket, sys\n"						\
	"for a in sys.argv[1:]:\n"					\
	"    n = b'\\0' + a[1:].encode() if a[0] == '@' else a\n"	\
	"    l = socket.socket(socket.AF_UNIX); l.bind(n); l.listen(1)\n" \
	"    try:\n"							\
	"        socket.socket(socket.AF_UNIX).connect(n); print(a + ': ok')\n" \
	"    except OSError as e:\n"					\
	"        print(a + ': ' + str(e.errno))\n"

/* A server of u's outside the session, and how to reach it. */
struct tu_victim {
	pid_t pid;
	int seen;		/* a byte per connection accepted */
	char name[256];		/* its path, or @name */
};

static void
tu_need(void)
{
	tt_need_sandbox(&tw);
	if (access("/usr/bin/python3", X_OK) != 0)
		tt_skip(&tw, "needs /usr/bin/python3 for the clients");
	tt_sbx_file(&tw, "connect.py", TU_CONNECT_PY);
	tt_sbx_file(&tw, "self.py", TU_SELF_PY);
}

/* The listener, as u: name bound (a path, or @abstract), each connection
 * answered "hello" and reported on seen. */
static void __attribute__((noreturn))
tu_listen(const char *name, int ready, int seen)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(name));
	int fd, c;

	if (name[0] == '@')
		memcpy(a.sun_path + 1, name + 1, strlen(name) - 1);
	else
		memcpy(a.sun_path, name, strlen(name));
	/* after the change of ids, which clears it: a failed test ends us too */
	if (tu_become(&tw.u) != 0 || prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 ||
	    (fd = socket(AF_UNIX, SOCK_STREAM, 0)) < 0 ||
	    bind(fd, (struct sockaddr *)&a, len) != 0 || listen(fd, 8) != 0)
		_exit(2);
	close(ready);
	for (;;)
		if ((c = accept(fd, NULL, NULL)) >= 0) {
			if (write(seen, "c", 1) != 1)
				_exit(3);
			/* a peer gone already (the gate's probe) is no reason to end */
			(void)send(c, "hello\n", 6, MSG_NOSIGNAL);
			close(c);
		}
}

static void
tu_victim_start(struct tu_victim *v, const char *name)
{
	int ready[2], seen[2];
	char c;

	snprintf(v->name, sizeof(v->name), "%s", name);
	th_pipe(ready);
	th_pipe(seen);
	cr_assert((v->pid = fork()) >= 0);
	if (v->pid == 0) {
		close(ready[0]);
		close(seen[0]);
		tu_listen(name, ready[1], seen[1]);
	}
	close(ready[1]);
	close(seen[1]);
	cr_assert_eq(read(ready[0], &c, 1), 0, "the listener did not start");
	close(ready[0]);
	v->seen = seen[0];
}

/* How many connections it accepted; then it is stopped. */
static int
tu_victim_stop(struct tu_victim *v)
{
	char buf[64];
	ssize_t n;
	int total = 0;

	kill(v->pid, SIGKILL);
	cr_assert_eq(waitpid(v->pid, NULL, 0), v->pid);
	while ((n = read(v->seen, buf, sizeof(buf))) > 0)
		total += (int)n;
	close(v->seen);
	if (v->name[0] != '@')
		unlink(v->name);
	return total;
}

/* cmd under shellesc run -s landlock -w SBX (and extra options, NULL-
 * terminated), as u, with PY the connecting script and SELF the binding
 * one. */
static void
tu_run(const char *const *extra, const char *cmd)
{
	const char *opts[24] = { "run", "--force", "--mode", "wrapper", "-s", "landlock",
	    "-w", tw.sbx };
	char full[4096];
	size_t n = 8;

	for (; extra && *extra && n < 22; extra++)
		opts[n++] = *extra;
	opts[n] = NULL;
	snprintf(full, sizeof(full), "cd %s || exit 99; PY=%s/connect.py SELF=%s/self.py; %s",
	    tw.sbx, tw.sbx, tw.sbx, cmd);
	tt_run(&tw, opts, full);
	cr_log_info("status %#x\nstdout:\n%s\nstderr:\n%s", r.status, r.out, r.err);
}

static bool
tu_said(const char *line)
{
	return r.out != NULL && th_has_line(r.out, line);
}

/* A plain listener outside: refused, then reached with --allow-socket. */
Test(trust_unix, outside_listener_needs_allow_socket)
{
	struct tu_victim v;
	char path[512], cmd[1024], line[600];

	tu_need();
	snprintf(path, sizeof(path), "%s/bus", tw.out);
	tu_victim_start(&v, path);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 \"$PY\" %s", path);
	tu_run(NULL, cmd);
	snprintf(line, sizeof(line), "%s: 13", path);
	cr_assert(tu_said(line), "an outside socket file was reachable:\n%s", r.out);
	tu_run((const char *[]){ "--allow-socket", path, NULL }, cmd);
	snprintf(line, sizeof(line), "%s: ok hello", path);
	cr_assert(tu_said(line), "--allow-socket did not let it through:\n%s", r.out);
	cr_assert_eq(tu_victim_stop(&v), 1, "the refused connect reached the listener");
}

/* tmux's run-shell runs a command outside: the sandbox must not reach a
 * tmux server of its user unless allowed. */
Test(trust_unix, outside_tmux_unreachable)
{
	char sock[512], x[512], cmd[4096];
	char *start[] = { "/usr/bin/tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d",
	    "sleep 600", NULL };
	char *stop[] = { "/usr/bin/tmux", "-S", sock, "kill-server", NULL };
	bool refused, made, allowed;
	int st;
	pid_t pid;

	tu_need();
	if (access("/usr/bin/tmux", X_OK) != 0)
		tt_skip(&tw, "needs /usr/bin/tmux");
	snprintf(sock, sizeof(sock), "%s/tmux.sock", tw.out);
	snprintf(x, sizeof(x), "%s/x", tw.out);
	cr_assert((pid = fork()) >= 0);
	if (pid == 0) {
		/* the server's shell (the window's and run-shell's) is $SHELL, else
		 * u's login shell, nologin: with no SHELL (CI has none) the window
		 * would end at once, and the server with it */
		if (tu_become(&tw.u) == 0 && setenv("SHELL", "/bin/sh", 1) == 0)
			execv(start[0], start);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert_eq(st, 0, "tmux did not start: %#x", st);
	snprintf(cmd, sizeof(cmd), "tmux -S %s run-shell 'touch %s'; echo \"tmux: $?\"", sock, x);
	tu_run(NULL, cmd);
	refused = tu_said("tmux: 1");
	made = access(x, F_OK) == 0;
	tu_run((const char *[]){ "--allow-socket", sock, NULL }, cmd);
	allowed = tu_said("tmux: 0") && access(x, F_OK) == 0;
	cr_assert((pid = fork()) >= 0);
	if (pid == 0) {
		if (tu_become(&tw.u) == 0)
			execv(stop[0], stop);
		_exit(127);
	}
	cr_assert_eq(waitpid(pid, NULL, 0), pid);
	unlink(x);
	cr_assert(refused, "the tmux client got through");
	cr_assert_not(made, "tmux ran a command outside for the sandbox");
	cr_assert(allowed, "--allow-socket: tmux failed, or ran nothing");
}

/* An abstract socket of u's outside: the scope's EPERM, then reached
 * with --allow-socket @NAME. */
Test(trust_unix, outside_abstract_needs_allow_socket)
{
	struct tu_victim v;
	char name[64], cmd[512], line[128];

	tu_need();
	snprintf(name, sizeof(name), "@shellesc-unix-%d", (int)getpid());
	tu_victim_start(&v, name);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 \"$PY\" %s", name);
	tu_run(NULL, cmd);
	snprintf(line, sizeof(line), "%s: 1", name);
	cr_assert(tu_said(line), "an outside abstract socket was reachable:\n%s", r.out);
	tu_run((const char *[]){ "--allow-socket", name, NULL }, cmd);
	snprintf(line, sizeof(line), "%s: ok hello", name);
	cr_assert(tu_said(line), "--allow-socket @NAME did not let it through:\n%s", r.out);
	/* the gate's probe of who listens is a connect of the server's own */
	tu_victim_stop(&v);
}

/* What the session binds, it reaches: a socket file beneath SBX, an
 * abstract socket, a tmux server it started (which daemonizes). */
Test(trust_unix, session_sockets_reachable)
{
	char cmd[2048], line[600];

	tu_need();
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 \"$SELF\" %s/own.sock @shellesc-own-%d\n"
	    "if [ -x /usr/bin/tmux ]; then\n"
	    /* u's login shell is nologin: the window would end, and the server */
	    "  export SHELL=/bin/sh\n"
	    "  tmux -S %s/t.sock -f /dev/null new-session -d 'sleep 600'\n"
	    "  tmux -S %s/t.sock run-shell 'touch %s/made'; echo \"tmux: $?\"\n"
	    "  tmux -S %s/t.sock kill-server\n"
	    "fi\n", tw.sbx, (int)getpid(), tw.sbx, tw.sbx, tw.sbx, tw.sbx);
	tu_run(NULL, cmd);
	snprintf(line, sizeof(line), "%s/own.sock: ok", tw.sbx);
	cr_assert(tu_said(line), "the session's own socket file:\n%s", r.out);
	snprintf(line, sizeof(line), "@shellesc-own-%d: ok", (int)getpid());
	cr_assert(tu_said(line), "the session's own abstract socket:\n%s", r.out);
	if (access("/usr/bin/tmux", X_OK) == 0)
		cr_assert(tu_said("tmux: 0"), "a tmux server of the session's:\n%s", r.out);
}

/* An allowed socket file the sandbox can replace: its link to an outside
 * listener is followed to a file that is not allowed. */
Test(trust_unix, swapped_allowed_name_does_not_redirect)
{
	struct tu_victim ok, bus;
	char okp[512], busp[512], cmd[4096], line[600];

	tu_need();
	snprintf(okp, sizeof(okp), "%s/ok.sock", tw.sbx);
	snprintf(busp, sizeof(busp), "%s/bus2", tw.out);
	tu_victim_start(&ok, okp);
	tu_victim_start(&bus, busp);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 \"$PY\" %s\n"
	    "rm -f %s && ln -s %s %s && /usr/bin/python3 \"$PY\" %s\n",
	    okp, okp, busp, okp, okp);
	tu_run((const char *[]){ "--allow-socket", okp, NULL }, cmd);
	snprintf(line, sizeof(line), "%s: ok hello", okp);
	cr_assert(tu_said(line), "the allowed socket:\n%s", r.out);
	snprintf(line, sizeof(line), "%s: 13", okp);
	cr_assert(tu_said(line), "the swapped name reached another socket:\n%s", r.out);
	cr_assert_eq(tu_victim_stop(&bus), 0, "the outside listener was reached");
	tu_victim_stop(&ok);
}

/* A socket file nothing listens on (a leftover of an earlier session) is
 * refused as the kernel refuses it, ECONNREFUSED, so that a program
 * removes it and binds afresh; one a daemon listens on is EACCES. */
Test(trust_unix, stale_socket_file_is_connection_refused)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char cmd[1024], line[600];
	int fd;

	tu_need();
	snprintf(a.sun_path, sizeof(a.sun_path), "%s/stale.sock", tw.sbx);
	cr_assert((fd = socket(AF_UNIX, SOCK_STREAM, 0)) >= 0);
	cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	close(fd);
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 \"$PY\" %s", a.sun_path);
	tu_run(NULL, cmd);
	snprintf(line, sizeof(line), "%s: 111", a.sun_path);
	cr_assert(tu_said(line), "a stale socket file:\n%s", r.out);
	unlink(a.sun_path);
}
