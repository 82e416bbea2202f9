/* tests/helpers/filtered.c: see filtered.h. */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fdpass.h"
#include "helpers/base.h"
#include "helpers/filtered.h"

/* In the child: go on stdin, report on stdout, the socket for the
 * listener on fd 3, as raw-exec filter-threads takes them. */
static void __attribute__((noreturn))
tf_child_run(int sock, int go, int report, const char *file, const char *arg0)
{
	char *argv[] = { "raw-exec", "filter-threads", (char *)file, (char *)arg0, NULL };
	char *envp[] = { NULL };

	if (dup2(go, STDIN_FILENO) < 0 || dup2(report, STDOUT_FILENO) < 0 ||
	    (sock == 3 ? fcntl(3, F_SETFD, 0) : dup2(sock, 3)) < 0)
		_exit(3);
	execve(TEST_RAW_EXEC, argv, envp);
	_exit(4);
}

void
tf_start(struct tf_child *k, struct shellesc_session *s, const char *file,
    const char *arg0, int ms)
{
	int sv[2], go[2], report[2], lfd = -1;
	size_t nfds = 1;
	char c;

	if (th_slowdown() > 1)		/* under valgrind */
		cr_skip_test("valgrind has no seccomp(2): the session cannot take a listener");
	th_pair(SOCK_STREAM, sv);
	th_pipe(go);
	th_pipe(report);
	cr_assert((k->pid = fork()) >= 0);
	if (k->pid == 0) {
		close(go[1]);
		close(report[0]);
		tf_child_run(sv[1], go[0], report[1], file, arg0);
	}
	close(sv[1]);
	close(go[0]);
	close(report[1]);
	cr_assert_eq(fdpass_wait(sv[0], POLLIN, ms), 0, "no listener from the child");
	cr_assert_eq(fdpass_recv(sv[0], &c, 1, &lfd, &nfds), 1);
	cr_assert(nfds == 1 && lfd >= 0, "the child sent no fd");
	close(sv[0]);
	cr_assert_eq(shellesc_session_kernel(s, lfd, 0), 0);
	k->go = go[1];
	k->report = report[0];
}

void
tf_end(struct tf_child *k)
{
	int st;

	kill(k->pid, SIGKILL);
	cr_assert_eq(waitpid(k->pid, &st, 0), k->pid);
	close(k->go);
	close(k->report);
}
