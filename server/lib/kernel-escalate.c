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
 * The wrapper needs nothing else: in proxy mode it reads only
 * SHELLESC_PROXY_FD and the stream it names (wrapper.c), never the
 * session's variables or socket, so this works as well where the tree has
 * none of them (the kernel layer alone, SHELLESC_INTERCEPT_KERNEL).
 *
 * x86-64's native ABI only (its registers, its 2-byte `syscall`).  Anywhere
 * else, and on any failure, the call fails with EACCES and the reason is
 * logged; the stream then ends with the caller, or at the request timeout.
 * (Elsewhere a session of the kernel layer alone does not start: none of
 * its escalations could run, session.c.)
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
#define KERNEL_ESCALATE_HAVE 1
#endif

#include "execsys.h"
#include "proto.h"
#include "server.h"

#ifdef KERNEL_ESCALATE_HAVE

#define KERNEL_ESCALATE_REDZONE	128	/* the x86-64 ABI's, below the stack pointer */
#define KERNEL_ESCALATE_USER_CS	0x33	/* a 64-bit user code segment */
/* the native ABI's exec calls (execsys.h) */
#define KERNEL_ESCALATE_EXECVE	((unsigned long long)execsys_abis[0].execve)
#define KERNEL_ESCALATE_EXECVEAT	((unsigned long long)execsys_abis[0].execveat)

/* What is written into the caller: where it lands and what it points at. */
struct kernel_escalate_blob {
	char *buf;
	size_t len;
	uint64_t at, path, argv, envp;
};

/* The arrays, then the strings, 16-aligned below sp's red zone. */
static int
kernel_escalate_layout(const struct kernel_verify_job *j, int fd, uint64_t sp,
    struct kernel_escalate_blob *b)
{
	char env[48];
	uint64_t p[5];
	size_t lw = strlen(j->wrapper) + 1, lf = strlen(j->file) + 1, le;

	le = (size_t)snprintf(env, sizeof(env), "%s=%d", SHELLESC_ENV_PROXY, fd) + 1;
	b->len = sizeof(p) + lw + lf + le;
	if ((b->buf = malloc(b->len)) == NULL)
		return -ENOMEM;
	b->at = (sp - KERNEL_ESCALATE_REDZONE - b->len) & ~(uint64_t)15;
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

/* Write the blob and check the instruction before rip; 0, or -errno with
 * why (n bytes). */
static int
kernel_escalate_write(pid_t pid, const struct user_regs_struct *r,
    const struct kernel_escalate_blob *b, char *why, size_t n)
{
	unsigned char insn[2];
	int mem, e;

	if ((mem = proc_open(pid, "mem", O_RDWR)) < 0)
		return kernel_verify_reason(why, n, mem, "cannot open its memory");
	if ((e = proc_pread(mem, insn, 2, r->rip - 2)) == 0 && (insn[0] != 0x0f || insn[1] != 0x05))
		e = -EINVAL;
	if (e != 0)
		e = kernel_verify_reason(why, n, e,
		    "its call was not made by a syscall instruction");
	else if ((e = proc_pwrite(mem, b->buf, b->len, b->at)) != 0)
		e = kernel_verify_reason(why, n, e, "cannot write below its stack pointer");
	close(mem);
	return e;
}

/* The registers of an exec of the wrapper as proxy, the blob b in place. */
static void
kernel_escalate_regs(struct user_regs_struct *r, const struct kernel_escalate_blob *b)
{
	r->rax = KERNEL_ESCALATE_EXECVE;
	r->orig_rax = (unsigned long long)-1;	/* no restart of the failed call */
	r->rip -= 2;
	r->rdi = b->path;
	r->rsi = b->argv;
	r->rdx = b->envp;
}

/* The stopped thread's failed exec becomes the wrapper's; 0, or -errno
 * with why (n bytes). */
static int
kernel_escalate_rewrite(const struct kernel_verify_job *j, pid_t pid, int fd, char *why,
    size_t n)
{
	struct user_regs_struct r;
	struct kernel_escalate_blob b;
	int e;

	if (ptrace(PTRACE_GETREGS, pid, 0, &r) != 0)
		return kernel_verify_reason(why, n, -errno, "cannot read its registers");
	if (r.cs != KERNEL_ESCALATE_USER_CS ||
	    (r.orig_rax != KERNEL_ESCALATE_EXECVE && r.orig_rax != KERNEL_ESCALATE_EXECVEAT))
		return kernel_verify_reason(why, n, -EINVAL,
		    "it is not stopped after a 64-bit exec call");
	if ((e = kernel_escalate_layout(j, fd, r.rsp, &b)) != 0)
		return kernel_verify_reason(why, n, e, "out of memory");
	e = kernel_escalate_write(pid, &r, &b, why, n);
	kernel_escalate_regs(&r, &b);
	free(b.buf);
	if (e == 0 && ptrace(PTRACE_SETREGS, pid, 0, &r) != 0)
		e = kernel_verify_reason(why, n, -errno, "cannot set its registers");
	return e;
}

/* The stream's end into the caller; its number there, or -errno. */
static int
kernel_escalate_addfd(struct kernel_verify *v, const struct kernel_verify_job *j)
{
	struct seccomp_notif_addfd a = { .id = j->id, .srcfd = (uint32_t)j->fd };
	int fd = ioctl(atomic_load(&v->l->kernel.fd), SECCOMP_IOCTL_NOTIF_ADDFD, &a);

	return fd < 0 ? -errno : fd;
}

void
kernel_escalate_one(struct kernel_verify *v, const struct kernel_verify_job *j)
{
	struct kernel_verify_trap st;
	char why[128];
	int fd, r = 0;

	if (ptrace(PTRACE_SEIZE, j->tid, 0, PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) != 0) {
		loop_log(v->l, SHELLESC_LOG_ERROR, "escalation of process %ld's exec refused: it "
		    "cannot be traced: %s", (long)j->tid, strerror(errno));
		kernel_answer(&v->l->kernel, j->id, -EACCES);
		return;
	}
	if ((fd = kernel_escalate_addfd(v, j)) < 0)
		r = kernel_verify_reason(why, sizeof(why), fd, "cannot pass it the stream");
	/* the stop is asked for first: the thread must not run its code again */
	ptrace(PTRACE_INTERRUPT, j->tid, 0, 0);
	kernel_answer(&v->l->kernel, j->id, -EACCES);
	if (!kernel_verify_next(j, &st))
		return;			/* gone */
	if (r == 0)
		r = kernel_escalate_rewrite(j, st.pid, fd, why, sizeof(why));
	ptrace(PTRACE_DETACH, st.pid, 0, st.sig);
	if (r != 0)
		loop_log(v->l, SHELLESC_LOG_ERROR, "escalation of process %ld's exec failed: %s",
		    (long)j->tid, why);
}

bool
kernel_escalate_possible(void)
{
	return true;
}

#else

void
kernel_escalate_one(struct kernel_verify *v, const struct kernel_verify_job *j)
{
	kernel_answer(&v->l->kernel, j->id, -EACCES);
}

bool
kernel_escalate_possible(void)
{
	return false;		/* no register layout known */
}

#endif
