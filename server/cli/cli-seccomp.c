/*
 * cli-seccomp.c: the session's seccomp filter (cli-seccomp.h).
 *
 * Denied with EPERM, on any file descriptor:
 *
 *   TIOCSTI      pushes a byte into a terminal's input queue: it would
 *                answer a prompt, or type a command for the user's shell
 *                once the session is over;
 *   TIOCLINUX    on a virtual console, pastes the selection into the input
 *                (and sets it): the same thing by another way;
 *   TIOCSETD     changes the terminal's line discipline, which outlives the
 *                session and changes how input is read;
 *   KDSKB*, KDSETKEYCODE
 *                on a virtual console, change what a key types (a key
 *                table entry, a function key's string, accents, keycodes)
 *                or how keys are read (raw mode, meta, lock state): every
 *                later answer and command line would be the session's.
 *
 * Left alone: TIOCSPGRP and TIOCSCTTY (job control needs them; they move
 * who reads, never what is read), TCSETS* (the prompt sets the modes it
 * needs and flushes the input when it asks), TIOCCONS (needs
 * CAP_SYS_ADMIN and redirects console *output*).
 *
 * The kernel's ioctl(2) takes the request as an unsigned int: only the low
 * 32 bits of the argument are compared, as the kernel reads it, so high
 * bits cannot slip a request past the filter.  Every architecture the
 * kernel can run the session's code in is checked by seccomp_data.arch:
 * on x86-64 the i386 ABI (int $0x80, any process can use it) with its own
 * ioctl number, and the x32 ABI (the same arch, numbers with
 * __X32_SYSCALL_BIT) refused whole; a system call of any other arch is
 * refused.
 */
#include "config.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/kd.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cli-seccomp.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)	/* Linux 5.19 */
#endif

/* One ABI the kernel may run the session's code in. */
struct cli_sc_arch {
	uint32_t audit;			/* seccomp_data.arch */
	uint32_t ioctl;			/* ioctl(2)'s number in it */
	uint32_t execve, execveat;	/* theirs, for the kernel layer */
	bool x32;			/* __X32_SYSCALL_BIT numbers: x32, refused */
	uint32_t socket;		/* socket(2)'s number */
	uint32_t socketcall;		/* socketcall(2)'s, or 0: none */
};

/* io_uring_setup(2), the same number in every ABI (its ops make sockets
 * that no filter sees) */
#define CLI_SC_IO_URING	425

static const struct cli_sc_arch cli_sc_arches[] = {
#if defined(__x86_64__) && !defined(__ILP32__)
	{ AUDIT_ARCH_X86_64, __NR_ioctl, __NR_execve, __NR_execveat, true, __NR_socket, 0 },
	{ AUDIT_ARCH_I386, 54, 11, 358, false, 359, 102 },
#elif defined(__i386__)
	{ AUDIT_ARCH_I386, __NR_ioctl, __NR_execve, __NR_execveat, false, 359, 102 },
#elif defined(__aarch64__)
	{ AUDIT_ARCH_AARCH64, __NR_ioctl, __NR_execve, __NR_execveat, false, __NR_socket, 0 },
	{ AUDIT_ARCH_ARM, 54, 11, 387, false, 281, 0 },
#elif defined(__arm__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	{ AUDIT_ARCH_ARM, __NR_ioctl, __NR_execve, __NR_execveat, false, 281, 0 },
#elif defined(__riscv) && __riscv_xlen == 64
	{ AUDIT_ARCH_RISCV64, __NR_ioctl, __NR_execve, __NR_execveat, false, __NR_socket, 0 },
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	{ AUDIT_ARCH_PPC64LE, __NR_ioctl, __NR_execve, __NR_execveat, false, __NR_socket, __NR_socketcall },
#elif defined(__s390x__)
	{ AUDIT_ARCH_S390X, __NR_ioctl, __NR_execve, __NR_execveat, false, __NR_socket, __NR_socketcall },
#else
#error "cli-seccomp.c: add this architecture's AUDIT_ARCH and its other ABIs"
#endif
};

static const uint32_t cli_sc_denied[] = {
	TIOCSTI, TIOCLINUX, TIOCSETD,
	KDSKBENT, KDSKBSENT, KDSKBDIACR, KDSKBDIACRUC, KDSETKEYCODE,
	KDSKBMODE, KDSKBMETA, KDSKBLED,
};

#define CLI_SC_N(a)	(sizeof(a) / sizeof((a)[0]))
/* 7 instructions per ABI at most, the unknown ABI's return, the request's
 * load, one per request, three returns. */
_Static_assert(7 * CLI_SC_N(cli_sc_arches) + 2 + CLI_SC_N(cli_sc_denied) + 3 <= CLI_SECCOMP_MAX,
    "the session's seccomp filter does not fit");

#define CLI_SC_NR	offsetof(struct seccomp_data, nr)
#define CLI_SC_ARCH	offsetof(struct seccomp_data, arch)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define CLI_SC_ARG0_LO	offsetof(struct seccomp_data, args[0])
#define CLI_SC_ARG1_LO	offsetof(struct seccomp_data, args[1])
#else
#define CLI_SC_ARG0_LO	(offsetof(struct seccomp_data, args[0]) + 4)
#define CLI_SC_ARG1_LO	(offsetof(struct seccomp_data, args[1]) + 4)
#endif
#define CLI_SC_X32_BIT	0x40000000u

/*
 * A tiny assembler: a jump target is either a literal forward offset (>= 0)
 * or a label placed later (CLI_SC_TO(label)), resolved once all is emitted.
 */
enum cli_sc_label {
	CLI_SC_IOCTL = 1, CLI_SC_ALLOW, CLI_SC_DENY, CLI_SC_NOTIFY, CLI_SC_SOCKET, CLI_SC_TYPE,
	CLI_SC_NLABELS
};
#define CLI_SC_TO(label)	(-(int)(label))

struct cli_sc_asm {
	struct sock_filter *code;	/* one of the filter's programs */
	unsigned short *len;
	uint8_t jt[CLI_SECCOMP_MAX], jf[CLI_SECCOMP_MAX];	/* labels, 0: none */
	int at[CLI_SC_NLABELS];
	bool full;
};

static void
cli_sc_emit(struct cli_sc_asm *a, uint16_t code, uint32_t k, int jt, int jf)
{
	unsigned short i = *a->len;

	if (i == CLI_SECCOMP_MAX) {
		a->full = true;
		return;
	}
	a->code[i] = (struct sock_filter){ code, (uint8_t)(jt > 0 ? jt : 0),
	    (uint8_t)(jf > 0 ? jf : 0), k };
	a->jt[i] = (uint8_t)(jt < 0 ? -jt : 0);
	a->jf[i] = (uint8_t)(jf < 0 ? -jf : 0);
	(*a->len)++;
}

static void
cli_sc_place(struct cli_sc_asm *a, enum cli_sc_label l)
{
	a->at[l] = *a->len;
}

/* Turn label jumps into the relative offsets BPF wants (forward only). */
static int
cli_sc_resolve(struct cli_sc_asm *a)
{
	for (int i = 0; i < *a->len; i++) {
		int t = a->at[a->jt[i]] - i - 1, e = a->at[a->jf[i]] - i - 1;

		if ((a->jt[i] && (t < 0 || t > 255)) || (a->jf[i] && (e < 0 || e > 255)))
			return -1;
		if (a->jt[i])
			a->code[i].jt = (uint8_t)t;
		if (a->jf[i])
			a->code[i].jf = (uint8_t)e;
	}
	return 0;
}

#define CLI_SC_LD(off)	BPF_LD | BPF_W | BPF_ABS, (off)
#define CLI_SC_JEQ	BPF_JMP | BPF_JEQ | BPF_K
#define CLI_SC_RET	BPF_RET | BPF_K

/* Per ABI: ioctl goes on to the request check, with the kernel layer
 * execve and execveat to the server, all else is allowed. */
static void
cli_sc_arch(struct cli_sc_asm *a, const struct cli_sc_arch *arch, bool notify)
{
	cli_sc_emit(a, CLI_SC_LD(CLI_SC_ARCH), 0, 0);
	/* another ABI: skip this one's block */
	cli_sc_emit(a, CLI_SC_JEQ, arch->audit, 0, 2 + arch->x32 + 2 * notify);
	cli_sc_emit(a, CLI_SC_LD(CLI_SC_NR), 0, 0);
	if (arch->x32)
		cli_sc_emit(a, BPF_JMP | BPF_JGE | BPF_K, CLI_SC_X32_BIT, CLI_SC_TO(CLI_SC_DENY), 0);
	if (notify) {
		cli_sc_emit(a, CLI_SC_JEQ, arch->execve, CLI_SC_TO(CLI_SC_NOTIFY), 0);
		cli_sc_emit(a, CLI_SC_JEQ, arch->execveat, CLI_SC_TO(CLI_SC_NOTIFY), 0);
	}
	cli_sc_emit(a, CLI_SC_JEQ, arch->ioctl, CLI_SC_TO(CLI_SC_IOCTL), CLI_SC_TO(CLI_SC_ALLOW));
}

int
cli_seccomp_build(struct cli_seccomp *f, bool exec_notify)
{
	struct cli_sc_asm a = { .code = f->code, .len = &f->len };
	size_t i;

	f->len = f->net_len = 0;
	f->listener = exec_notify;
	for (i = 0; i < CLI_SC_N(cli_sc_arches); i++)
		cli_sc_arch(&a, &cli_sc_arches[i], exec_notify);
	cli_sc_emit(&a, CLI_SC_RET, SECCOMP_RET_ERRNO | EPERM, 0, 0);	/* an ABI not listed */
	cli_sc_place(&a, CLI_SC_IOCTL);
	cli_sc_emit(&a, CLI_SC_LD(CLI_SC_ARG1_LO), 0, 0);
	for (i = 0; i < CLI_SC_N(cli_sc_denied); i++)
		cli_sc_emit(&a, CLI_SC_JEQ, cli_sc_denied[i], CLI_SC_TO(CLI_SC_DENY), 0);
	cli_sc_place(&a, CLI_SC_ALLOW);
	cli_sc_emit(&a, CLI_SC_RET, SECCOMP_RET_ALLOW, 0, 0);
	cli_sc_place(&a, CLI_SC_DENY);
	cli_sc_emit(&a, CLI_SC_RET, SECCOMP_RET_ERRNO | EPERM, 0, 0);
	cli_sc_place(&a, CLI_SC_NOTIFY);
	if (exec_notify)
		cli_sc_emit(&a, CLI_SC_RET, SECCOMP_RET_USER_NOTIF, 0, 0);
	return a.full || cli_sc_resolve(&a) != 0 ? -1 : 0;
}

/*
 * The filter, its listener's waits killable only where the kernel has
 * that (Linux 5.19): once the server has an exec, a signal the caller
 * catches no longer fails it with EINTR while it is being decided.
 */
static long
cli_sc_install(unsigned flags, struct sock_fprog *prog)
{
	long r = -1;

	if (flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    flags | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, prog);
	if (r < 0 && (errno == EINVAL || !(flags & SECCOMP_FILTER_FLAG_NEW_LISTENER)))
		r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, flags, prog);
	return r;
}

int
cli_seccomp_enter(const struct cli_seccomp *f)
{
	struct sock_fprog prog = { .len = f->len, .filter = (struct sock_filter *)f->code };
	struct sock_fprog net = { .len = f->net_len, .filter = (struct sock_filter *)f->net };
	unsigned flags = f->listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
	long r;

	if ((r = cli_sc_install(flags, &prog)) < 0) {
		if (errno != EACCES)
			return -1;
		/* Without CAP_SYS_ADMIN the kernel installs a filter only under
		 * no_new_privs: set-id programs run in the session then keep the
		 * caller's ids and capabilities (docs/security.md). */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    (r = cli_sc_install(flags, &prog)) < 0)
			return -1;
	}
	/* --no-network's program; no_new_privs is set by now if need be */
	if (f->net_len > 0 && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &net) != 0)
		return -1;
	return (int)r;
}

bool
cli_seccomp_notify_avail(void)
{
	uint32_t action = SECCOMP_RET_USER_NOTIF;

	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

/*
 * --no-network's part (Landlock denies TCP connect and bind): per ABI,
 * socket(2) of AF_INET or AF_INET6 with any type but SOCK_STREAM (UDP,
 * raw and ICMP sockets, SCTP) and of AF_PACKET is refused with EACCES, and
 * so are socketcall(2) (its arguments are in memory, out of a filter's
 * sight) and io_uring_setup(2) (its socket op is not a system call).
 */
static void
cli_sc_net_arch(struct cli_sc_asm *a, const struct cli_sc_arch *arch)
{
	cli_sc_emit(a, CLI_SC_LD(CLI_SC_ARCH), 0, 0);
	cli_sc_emit(a, CLI_SC_JEQ, arch->audit, 0, 3 + arch->x32 + (arch->socketcall != 0));
	cli_sc_emit(a, CLI_SC_LD(CLI_SC_NR), 0, 0);
	if (arch->x32)
		cli_sc_emit(a, BPF_JMP | BPF_JGE | BPF_K, CLI_SC_X32_BIT, CLI_SC_TO(CLI_SC_DENY), 0);
	cli_sc_emit(a, CLI_SC_JEQ, CLI_SC_IO_URING, CLI_SC_TO(CLI_SC_DENY), 0);
	if (arch->socketcall)
		cli_sc_emit(a, CLI_SC_JEQ, arch->socketcall, CLI_SC_TO(CLI_SC_DENY), 0);
	cli_sc_emit(a, CLI_SC_JEQ, arch->socket, CLI_SC_TO(CLI_SC_SOCKET), CLI_SC_TO(CLI_SC_ALLOW));
}

int
cli_seccomp_build_net(struct cli_seccomp *f)
{
	struct cli_sc_asm a = { .code = f->net, .len = &f->net_len };

	f->net_len = 0;
	for (size_t i = 0; i < CLI_SC_N(cli_sc_arches); i++)
		cli_sc_net_arch(&a, &cli_sc_arches[i]);
	cli_sc_emit(&a, CLI_SC_RET, SECCOMP_RET_ERRNO | EACCES, 0, 0);	/* an ABI not listed */
	cli_sc_place(&a, CLI_SC_SOCKET);
	cli_sc_emit(&a, CLI_SC_LD(CLI_SC_ARG0_LO), 0, 0);
	cli_sc_emit(&a, CLI_SC_JEQ, AF_PACKET, CLI_SC_TO(CLI_SC_DENY), 0);
	cli_sc_emit(&a, CLI_SC_JEQ, AF_INET, CLI_SC_TO(CLI_SC_TYPE), 0);
	cli_sc_emit(&a, CLI_SC_JEQ, AF_INET6, CLI_SC_TO(CLI_SC_TYPE), CLI_SC_TO(CLI_SC_ALLOW));
	cli_sc_place(&a, CLI_SC_TYPE);
	cli_sc_emit(&a, CLI_SC_LD(CLI_SC_ARG1_LO), 0, 0);
	cli_sc_emit(&a, BPF_ALU | BPF_AND | BPF_K, 0xf, 0, 0);	/* not SOCK_NONBLOCK, _CLOEXEC */
	cli_sc_emit(&a, CLI_SC_JEQ, SOCK_STREAM, CLI_SC_TO(CLI_SC_ALLOW), CLI_SC_TO(CLI_SC_DENY));
	cli_sc_place(&a, CLI_SC_ALLOW);
	cli_sc_emit(&a, CLI_SC_RET, SECCOMP_RET_ALLOW, 0, 0);
	cli_sc_place(&a, CLI_SC_DENY);
	cli_sc_emit(&a, CLI_SC_RET, SECCOMP_RET_ERRNO | EACCES, 0, 0);
	return a.full || cli_sc_resolve(&a) != 0 ? -1 : 0;
}
