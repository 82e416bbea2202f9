/*
 * bench-kfloor MODE N FILE: the floor of the kernel layer.
 *
 * A child sets no_new_privs, installs a seccomp filter that sends its
 * execve and execveat to a listener, and runs bench-execloop's loop: N
 * times fork + execve(FILE) + wait.  This process holds the listener and
 * answers each exec at once, with nothing read and nothing decided:
 *   continue  SECCOMP_USER_NOTIF_FLAG_CONTINUE, what any design built on
 *             user notification pays;
 *   trace     the same with the tracing shellesc's check at the exec event
 *             adds (PTRACE_SEIZE, continue, PTRACE_INTERRUPT, the exec
 *             event, PTRACE_DETACH), without the check itself.
 * Exits 1 if any run failed, 2 on a usage or system error.
 */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__)
#define KF_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define KF_ARCH AUDIT_ARCH_AARCH64
#else
#define KF_ARCH 0xffffffffu	/* no ABI known: nothing goes to the listener */
#endif

extern char **environ;

/* execve and execveat of the native ABI to the listener; all else allowed. */
static int
kf_filter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, KF_ARCH, 0, 4),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execve, 1, 0),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_execveat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
	    &prog);
}

/* The child: the filter, its listener to the parent, then the loop. */
static int
kf_child(int sock, int n, char *file)
{
	char *args[] = { file, NULL }, c = 0;
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u = { 0 };
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
	    .msg_controllen = sizeof(u.b) };
	int fd = kf_filter(), failed = 0, st;

	if (fd < 0)
		return 2;
	u.h.cmsg_level = SOL_SOCKET;
	u.h.cmsg_type = SCM_RIGHTS;
	u.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&u.h), &fd, sizeof(int));
	if (sendmsg(sock, &m, 0) != 1)
		return 2;
	close(fd);
	for (int i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			execve(file, args, environ);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
			failed++;
	}
	return failed != 0;
}

static int
kf_recv_fd(int sock)
{
	char c;
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	struct iovec iov = { &c, 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b,
	    .msg_controllen = sizeof(u.b) };
	int fd;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1 || CMSG_FIRSTHDR(&m) == NULL)
		return -1;
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(int));
	return fd;
}

/* Continue one notification; with trace, follow it to its next stop. */
static void
kf_answer(int fd, const struct seccomp_notif *n, int trace)
{
	struct seccomp_notif_resp r = { .id = n->id, .flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE };
	pid_t pid = (pid_t)n->pid;
	int st;

	if (trace && ptrace(PTRACE_SEIZE, pid, 0, PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) != 0)
		trace = 0;
	ioctl(fd, SECCOMP_IOCTL_NOTIF_SEND, &r);
	if (!trace || ptrace(PTRACE_INTERRUPT, pid, 0, 0) != 0)
		return;
	while (waitpid(pid, &st, __WALL) < 0 && errno == EINTR)
		;
	if (WIFSTOPPED(st))
		ptrace(PTRACE_DETACH, pid, 0, 0);
}

static int
kf_serve(int fd, int trace)
{
	struct pollfd p = { fd, POLLIN, 0 };
	struct seccomp_notif n;

	for (;;) {
		if (poll(&p, 1, -1) < 0 && errno != EINTR)
			return -1;
		if (!(p.revents & POLLIN))
			return 0;	/* every process of the filter is gone */
		memset(&n, 0, sizeof(n));
		if (ioctl(fd, SECCOMP_IOCTL_NOTIF_RECV, &n) == 0)
			kf_answer(fd, &n, trace);
	}
}

int
main(int argc, char **argv)
{
	int n = argc == 4 ? atoi(argv[2]) : -1, trace = argc == 4 && strcmp(argv[1], "trace") == 0;
	int sv[2], fd, st;
	pid_t pid;

	if (n < 0 || (!trace && strcmp(argv[1], "continue") != 0)) {
		fprintf(stderr, "usage: bench-kfloor continue|trace N FILE\n");
		return 2;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 || (pid = fork()) < 0)
		return 2;
	if (pid == 0)
		_exit(kf_child(sv[1], n, argv[3]));
	close(sv[1]);
	if ((fd = kf_recv_fd(sv[0])) < 0 || kf_serve(fd, trace) != 0)
		return 2;
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return 2;
	return WEXITSTATUS(st);
}
