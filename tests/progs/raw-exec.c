/*
 * raw-exec: execs FILE without libc's exec functions, as Go programs,
 * static binaries and hostile code do, so no preload sees it.
 *
 *   raw-exec HOW FILE ARG0 [ARG...]
 *
 * HOW is syscall (syscall(SYS_execve)), execveat (SYS_execveat, AT_FDCWD),
 * vfork (a clone(CLONE_VM|CLONE_VFORK) child on its own stack makes the
 * raw execve, as Go's os/exec does; the parent reports the child's end),
 * memfd (FILE copied into a memfd, run by SYS_execveat with
 * AT_EMPTY_PATH, as fexecve does), thread (a second thread, not the
 * leader, makes the raw execve) or traced (a child that its parent traces,
 * as a debugger does, makes it) or signals (100 children each make it
 * while a timer signal they catch, SA_RESTART, fires every 50 us; prints
 * how many failed with EINTR: "eintr=N") or filter-threads (first a
 * seccomp filter that reports execve to a listener, sent on fd 3, as
 * shellesc_session_kernel(3) asks; then a thread per byte read on stdin
 * makes it, with argv[1] a 7 MiB string for a 'b'; each failure is its
 * errno, one byte on stdout; exit 0 at the end of stdin)
 * or missing (500 raw execve's in a row of FILE.missing, which does not
 * exist, as a shell or execvp searching PATH makes: prints "enoent=N
 * other=M errno=E", E the first other errno, then execs FILE)
 * or edge (the path and argv strings copied to the very end of a page
 * that no mapping follows, the argv and envp arrays likewise: a
 * reader that reads past what it needs gets EFAULT there).
 * When the exec fails: "ret=-1 errno=E"
 * on stdout, exit 99.  vfork, traced: "child exit=N" or "child signal=N".
 * Built twice: dynamically, and statically (raw-exec-static).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/ptrace.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *file, **args;

static int
raw_execve(void *arg)
{
	(void)arg;
	syscall(SYS_execve, file, args, environ);
	_exit(errno == ENOENT ? 127 : 126);
}

/* How the child pid ended, on stdout. */
static int
raw_report(pid_t pid, int st)
{
	if (pid < 0) {
		printf("ret=-1 errno=%d\n", errno);
		return 99;
	}
	if (WIFSIGNALED(st))
		printf("child signal=%d\n", WTERMSIG(st));
	else
		printf("child exit=%d\n", WEXITSTATUS(st));
	return 0;
}

static int
raw_vfork(void)
{
	static char stack[256 * 1024];
	int st = 0;
	pid_t pid = clone(raw_execve, stack + sizeof(stack), CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);

	if (pid > 0 && waitpid(pid, &st, 0) != pid)
		pid = -1;
	return raw_report(pid, st);
}

static void *
raw_thread_main(void *arg)
{
	(void)arg;
	syscall(SYS_execve, file, args, environ);
	printf("ret=-1 errno=%d\n", errno);
	_exit(99);
}

static int
raw_thread(void)
{
	pthread_t t;

	if ((errno = pthread_create(&t, NULL, raw_thread_main, NULL)) != 0)
		return raw_report(-1, 0);
	pthread_join(t, NULL);
	return 2;
}

/* The parent stays its tracer, passing on signals, until it ends. */
static int
raw_traced(void)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, 0, 0) != 0 || raise(SIGSTOP) != 0)
			_exit(98);
		syscall(SYS_execve, file, args, environ);
		printf("ret=-1 errno=%d\n", errno);
		_exit(99);
	}
	while (pid > 0 && waitpid(pid, &st, 0) == pid && WIFSTOPPED(st)) {
		int sig = WSTOPSIG(st) == SIGSTOP || WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st);

		ptrace(PTRACE_CONT, pid, 0, sig);
	}
	return raw_report(pid, st);
}

static void
raw_caught(int sig)
{
	(void)sig;
}

/* A child whose raw execve may be interrupted: exit 98 when it was. */
static void
raw_signalled_child(void)
{
	struct sigaction sa = { .sa_handler = raw_caught, .sa_flags = SA_RESTART };
	struct itimerval it = { { 0, 50 }, { 0, 50 } };

	if (sigaction(SIGALRM, &sa, NULL) != 0 || setitimer(ITIMER_REAL, &it, NULL) != 0)
		_exit(2);
	syscall(SYS_execve, file, args, environ);
	_exit(errno == EINTR ? 98 : 99);
}

static int
raw_signals(void)
{
	int eintr = 0, st;

	for (int i = 0; i < 100; i++) {
		pid_t pid = fork();

		if (pid == 0)
			raw_signalled_child();
		if (pid < 0 || waitpid(pid, &st, 0) != pid)
			return raw_report(-1, 0);
		eintr += WIFEXITED(st) && WEXITSTATUS(st) == 98;
	}
	printf("eintr=%d\n", eintr);
	return 0;
}

/* threads: the big argv[1] (7 MiB: the server reads up to 8 MiB). */
#define RAW_BIG (7u << 20)

static void *
raw_threads_main(void *arg)
{
	unsigned char e;

	syscall(SYS_execve, file, (char **)arg, environ);
	e = (unsigned char)errno;
	if (write(STDOUT_FILENO, &e, 1) != 1)
		_exit(3);
	return NULL;
}

/* execve, and only it, goes to a listener, sent on fd 3; 0 or -1. */
static int
raw_filter(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	union {
		struct cmsghdr h;
		char room[CMSG_SPACE(sizeof(int))];
	} u = { 0 };
	struct msghdr m = { .msg_iov = &(struct iovec){ "L", 1 }, .msg_iovlen = 1,
	    .msg_control = u.room, .msg_controllen = sizeof(u.room) };
	int fd;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    (fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) < 0)
		return -1;
	u.h.cmsg_level = SOL_SOCKET;
	u.h.cmsg_type = SCM_RIGHTS;
	u.h.cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(&u.h), &fd, sizeof(int));
	if (sendmsg(3, &m, 0) != 1)
		return -1;
	close(fd);
	close(3);
	return 0;
}

static int
raw_threads(void)
{
	static char *big[3];
	pthread_t t;
	char c;

	if (raw_filter() != 0)
		return raw_report(-1, 0);
	big[0] = args[0];
	if ((big[1] = malloc(RAW_BIG)) == NULL)
		return raw_report(-1, 0);
	memset(big[1], 'x', RAW_BIG - 1);
	big[1][RAW_BIG - 1] = '\0';
	while (read(STDIN_FILENO, &c, 1) == 1)
		if ((errno = pthread_create(&t, NULL, raw_threads_main, c == 'b' ? big : args)) != 0)
			return raw_report(-1, 0);
	return 0;
}

/* A page of memory that no mapping follows (PROT_NONE would not do:
 * /proc/PID/mem reads through it): its first byte. */
static char *
raw_edge_page(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED || munmap(m + pg, (size_t)pg) != 0)
		return NULL;
	return m;
}

static int
raw_edge(void)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *strs = raw_edge_page(), *ptrs = raw_edge_page(), *end, *path, **v;
	size_t n = 0, len;

	while (args[n])
		n++;
	if (strs == NULL || ptrs == NULL)
		return raw_report(-1, 0);
	end = strs + pg;
	/* argv + envp ({NULL}) pointers end at the page's end */
	v = (char **)(ptrs + pg) - (n + 2);
	v[n] = v[n + 1] = NULL;
	for (size_t i = n; i-- > 0;) {	/* the last string ends at the page's end */
		len = strlen(args[i]) + 1;
		end -= len;
		v[i] = memcpy(end, args[i], len);
	}
	len = strlen(file) + 1;
	path = memcpy(end - len, file, len);
	return (int)syscall(SYS_execve, path, v, v + n + 1);
}

static int
raw_memfd(void)
{
	int in = open(file, O_RDONLY | O_CLOEXEC), fd = (int)syscall(SYS_memfd_create, "copy", 0);
	struct stat st;

	if (in < 0 || fd < 0 || fstat(in, &st) != 0 ||
	    sendfile(fd, in, NULL, (size_t)st.st_size) != st.st_size)
		return -1;
	return (int)syscall(SYS_execveat, fd, "", args, environ, AT_EMPTY_PATH);
}

static void
raw_missing(void)
{
	char path[4096];
	int enoent = 0, other = 0, first = 0;

	snprintf(path, sizeof(path), "%s.missing", file);
	for (int i = 0; i < 500; i++) {
		syscall(SYS_execve, path, args, environ);
		if (errno == ENOENT)
			enoent++;
		else if (other++ == 0)
			first = errno;
	}
	printf("enoent=%d other=%d errno=%d\n", enoent, other, first);
}

int
main(int argc, char **argv)
{
	const char *how;

	if (argc < 4) {
		fputs("usage: raw-exec syscall|execveat|vfork|memfd|thread|filter-threads|traced|signals|missing|edge "
		    "FILE ARG0 [ARG...]\n", stderr);
		return 2;
	}
	how = argv[1];
	file = argv[2];
	args = argv + 3;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(how, "vfork") == 0)
		return raw_vfork();
	if (strcmp(how, "thread") == 0)
		return raw_thread();
	if (strcmp(how, "traced") == 0)
		return raw_traced();
	if (strcmp(how, "signals") == 0)
		return raw_signals();
	if (strcmp(how, "filter-threads") == 0)
		return raw_threads();
	if (strcmp(how, "missing") == 0)
		raw_missing();
	if (strcmp(how, "edge") == 0)
		raw_edge();
	else if (strcmp(how, "memfd") == 0)
		raw_memfd();
	else if (strcmp(how, "execveat") == 0)
		syscall(SYS_execveat, AT_FDCWD, file, args, environ, 0);
	else
		syscall(SYS_execve, file, args, environ);
	printf("ret=-1 errno=%d\n", errno);
	return 99;
}
