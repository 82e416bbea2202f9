/*
 * kernel-escalate.c: an escalation decided for an exec that only the
 * kernel layer saw.  The caller is a raw system call: nothing in it can
 * hand its stdio over and wait for the command.  So it is made to exec
 * the wrapper in proxy mode, as the preload does for its own escalations.
 *
 * On the verifier thread (it must be the tracer): trace the calling thread
 * (PTRACE_SEIZE); put one end of a fresh stream into it
 * (SECCOMP_IOCTL_NOTIF_ADDFD), whose other end waits for the hand-over
 * (conn_adopt); ask it to stop (PTRACE_INTERRUPT) and fail its call.  At
 * the stop on its way back, rewrite the call into
 *
 *	execve(WRAPPER, { WRAPPER, FILE, NULL }, { "SHELLESC_PROXY_FD=N", NULL })
 *
 * (the strings and arrays written below its stack pointer, past the red
 * zone) and back it up onto its system call instruction; then let it go.
 * That exec is the wrapper's, let through and checked at its exec event
 * like any; the wrapper hands its stdio over and ends as the command
 * ends.  What runs outside is the target the server opened and decided,
 * whatever the caller's memory says by then.
 *
 * x86-64's native ABI only (its registers, its 2-byte `syscall`).  Anywhere
 * else, and on any failure, the call fails with EACCES and the reason is
 * logged; the stream then ends with the caller, or at the request timeout.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__ILP32__)
#include <sys/user.h>
#define KESC_HAVE 1
#endif

#include "proto.h"
#include "server.h"

#ifdef KESC_HAVE

#define KESC_REDZONE	128	/* the x86-64 ABI's, below the stack pointer */
#define KESC_USER_CS	0x33	/* a 64-bit user code segment */
#define KESC_EXECVE	59
#define KESC_EXECVEAT	322

/* What is written into the caller: where it lands and what it points at. */
struct kesc_blob {
	char *buf;
	size_t len;
	uint64_t at, path, argv, envp;
};

/* The arrays, then the strings, 16-aligned below sp's red zone. */
static int
kesc_layout(const struct kverify_job *j, int fd, uint64_t sp, struct kesc_blob *b)
{
	char env[48];
	uint64_t p[5];
	size_t lw = strlen(j->wrapper) + 1, lf = strlen(j->file) + 1, le;

	le = (size_t)snprintf(env, sizeof(env), "%s=%d", SHELLESC_ENV_PROXY, fd) + 1;
	b->len = sizeof(p) + lw + lf + le;
	if ((b->buf = malloc(b->len)) == NULL)
		return -ENOMEM;
	b->at = (sp - KESC_REDZONE - b->len) & ~(uint64_t)15;
	b->argv = b->at;
	b->envp = b->at + 3 * sizeof(uint64_t);
	b->path = b->at + sizeof(p);
	p[0] = b->path;
	p[1] = b->path + lw;
	p[2] = 0;
	p[3] = b->path + lw + lf;
	p[4] = 0;
	memcpy(b->buf, p, sizeof(p));
	memcpy(b->buf + sizeof(p), j->wrapper, lw);
	memcpy(b->buf + sizeof(p) + lw, j->file, lf);
	memcpy(b->buf + sizeof(p) + lw + lf, env, le);
	return 0;
}

/* Write the blob and check the instruction before rip; NULL or why not. */
static const char *
kesc_write(pid_t pid, const struct user_regs_struct *r, const struct kesc_blob *b)
{
	unsigned char insn[2];
	char path[64];
	const char *why = NULL;
	int mem;

	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)pid);
	if ((mem = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return "cannot open its memory";
	if (pread(mem, insn, 2, (off_t)(r->rip - 2)) != 2 || insn[0] != 0x0f || insn[1] != 0x05)
		why = "its call was not made by a syscall instruction";
	else if (pwrite(mem, b->buf, b->len, (off_t)b->at) != (ssize_t)b->len)
		why = "cannot write below its stack pointer";
	close(mem);
	return why;
}

/* The stopped thread's failed exec becomes the wrapper's; NULL or why not. */
static const char *
kesc_rewrite(const struct kverify_job *j, pid_t pid, int fd)
{
	struct user_regs_struct r;
	struct kesc_blob b;
	const char *why;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r) != 0)
		return "cannot read its registers";
	if (r.cs != KESC_USER_CS || (r.orig_rax != KESC_EXECVE && r.orig_rax != KESC_EXECVEAT))
		return "it is not stopped after a 64-bit exec call";
	if (kesc_layout(j, fd, r.rsp, &b) != 0)
		return "out of memory";
	why = kesc_write(pid, &r, &b);
	free(b.buf);
	if (why)
		return why;
	r.rax = KESC_EXECVE;
	r.orig_rax = (unsigned long long)-1;	/* no restart of the failed call */
	r.rip -= 2;
	r.rdi = b.path;
	r.rsi = b.argv;
	r.rdx = b.envp;
	return ptrace(PTRACE_SETREGS, pid, 0, &r) == 0 ? NULL : "cannot set its registers";
}

/* The stream's end into the caller; its number there, or -errno. */
static int
kesc_addfd(struct kverify *v, const struct kverify_job *j)
{
	struct seccomp_notif_addfd a = { .id = j->id, .srcfd = (uint32_t)j->fd };
	int fd = ioctl(atomic_load(&v->l->kernel.fd), SECCOMP_IOCTL_NOTIF_ADDFD, &a);

	return fd < 0 ? -errno : fd;
}

void
kescalate_one(struct kverify *v, const struct kverify_job *j)
{
	struct kverify_stop st;
	const char *why = NULL;
	int fd;

	if (ptrace(PTRACE_SEIZE, j->tid, 0, PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) != 0) {
		loop_log(v->l, SHELLESC_LOG_ERROR, "escalation of process %ld's exec refused: it "
		    "cannot be traced: %s", (long)j->tid, strerror(errno));
		kernel_answer(&v->l->kernel, j->id, EACCES);
		return;
	}
	if ((fd = kesc_addfd(v, j)) < 0)
		why = "cannot pass it the stream";
	/* the stop is asked for first: the thread must not run its code again */
	ptrace(PTRACE_INTERRUPT, j->tid, 0, 0);
	kernel_answer(&v->l->kernel, j->id, EACCES);
	if (!kverify_next(j, &st))
		return;			/* gone */
	if (why == NULL)
		why = kesc_rewrite(j, st.pid, fd);
	ptrace(PTRACE_DETACH, st.pid, 0, st.sig);
	if (why)
		loop_log(v->l, SHELLESC_LOG_ERROR, "escalation of process %ld's exec failed: %s",
		    (long)j->tid, why);
}

bool
kescalate_possible(void)
{
	return true;
}

#else

void
kescalate_one(struct kverify *v, const struct kverify_job *j)
{
	kernel_answer(&v->l->kernel, j->id, EACCES);
}

bool
kescalate_possible(void)
{
	return false;		/* no register layout known */
}

#endif
