/*
 * sandbox-seccomp.c: the seccomp filter of the sandbox (sandbox.h,
 * shellesc_sandbox_* in shellesc.h).
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
 * refused.  The ABIs and their numbers are execsys.h's table.
 *
 * With the socket gate (every Landlock sandbox: docs/security.md, "Pathname
 * UNIX sockets"), connect(2) and a sendto(2) with an address go to the
 * listener, whose server makes them itself (kernel-socket.c): the address
 * is in memory the filter cannot see.  socketcall(2) hides the call
 * itself in memory and io_uring's operations never pass seccomp, so both
 * are refused with ENOSYS.  sendmsg(2)'s address is in memory too: an
 * unconnected datagram sendmsg to a path stays a documented limit.
 */
#include "config.h"

#include <errno.h>
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

#include "execsys.h"
#include "sandbox.h"

#ifndef SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV
#define SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV (1UL << 5)	/* Linux 5.19 */
#endif

static const uint32_t sandbox_sc_denied[] = {
	TIOCSTI, TIOCLINUX, TIOCSETD,
	KDSKBENT, KDSKBSENT, KDSKBDIACR, KDSKBDIACRUC, KDSETKEYCODE,
	KDSKBMODE, KDSKBMETA, KDSKBLED,
};

#define SC_N(a)	(sizeof(a) / sizeof((a)[0]))
/* 11 instructions per ABI at most, the unknown ABI's return, the request's
 * load, one per request, three returns, the gate's sendto and refusal. */
_Static_assert(11 * EXECSYS_NABIS + 2 + SC_N(sandbox_sc_denied) + 3 + 5 <= SANDBOX_FILTER_MAX,
    "the session's seccomp filter does not fit");

#define SC_NR	offsetof(struct seccomp_data, nr)
#define SC_ARCH	offsetof(struct seccomp_data, arch)
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SC_ARG0_LO	offsetof(struct seccomp_data, args[0])
#define SC_ARG1_LO	offsetof(struct seccomp_data, args[1])
#define SC_ARG4_LO	offsetof(struct seccomp_data, args[4])
#define SC_ARG4_HI	(offsetof(struct seccomp_data, args[4]) + 4)
#else
#define SC_ARG0_LO	(offsetof(struct seccomp_data, args[0]) + 4)
#define SC_ARG1_LO	(offsetof(struct seccomp_data, args[1]) + 4)
#define SC_ARG4_LO	(offsetof(struct seccomp_data, args[4]) + 4)
#define SC_ARG4_HI	offsetof(struct seccomp_data, args[4])
#endif

/*
 * A tiny assembler: a jump target is either a literal forward offset (>= 0)
 * or a label placed later (SC_TO(label)), resolved once all is emitted.
 */
enum sandbox_sc_label {
	SC_IOCTL = 1, SC_ALLOW, SC_DENY, SC_NOTIFY, SC_SOCKET, SC_TYPE,
	SC_SENDTO, SC_SENDTO32, SC_REFUSE, SC_NLABELS
};
#define SC_TO(label)	(-(int)(label))

struct sandbox_sc_asm {
	struct sock_filter *code;	/* one of the filter's programs */
	unsigned short *len;
	uint8_t jt[SANDBOX_FILTER_MAX], jf[SANDBOX_FILTER_MAX];	/* labels, 0: none */
	int at[SC_NLABELS];
	bool full;
};

static void
sandbox_sc_emit(struct sandbox_sc_asm *a, uint16_t code, uint32_t k, int jt, int jf)
{
	unsigned short i = *a->len;

	if (i == SANDBOX_FILTER_MAX) {
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
sandbox_sc_place(struct sandbox_sc_asm *a, enum sandbox_sc_label l)
{
	a->at[l] = *a->len;
}

/* Turn label jumps into the relative offsets BPF wants (forward only). */
static int
sandbox_sc_resolve(struct sandbox_sc_asm *a)
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

#define SC_LD(off)	BPF_LD | BPF_W | BPF_ABS, (off)
#define SC_JEQ	BPF_JMP | BPF_JEQ | BPF_K
#define SC_RET	BPF_RET | BPF_K

/* Per ABI: ioctl goes on to the request check, with the kernel layer
 * execve and execveat to the server, with the socket gate connect and an
 * addressed sendto to the server and socketcall and io_uring_setup
 * refused; all else is allowed. */
static void
sandbox_sc_arch(struct sandbox_sc_asm *a, const struct execsys_abi *arch, bool notify,
    bool gate)
{
	int skip = 2 + arch->x32 + 2 * notify + gate * (3 + (arch->socketcall != 0));

	sandbox_sc_emit(a, SC_LD(SC_ARCH), 0, 0);
	sandbox_sc_emit(a, SC_JEQ, arch->arch, 0, skip);	/* another ABI: the next block */
	sandbox_sc_emit(a, SC_LD(SC_NR), 0, 0);
	if (arch->x32)
		sandbox_sc_emit(a, BPF_JMP | BPF_JGE | BPF_K, EXECSYS_X32_BIT, SC_TO(SC_DENY), 0);
	if (notify) {
		sandbox_sc_emit(a, SC_JEQ, (uint32_t)arch->execve, SC_TO(SC_NOTIFY), 0);
		sandbox_sc_emit(a, SC_JEQ, (uint32_t)arch->execveat, SC_TO(SC_NOTIFY), 0);
	}
	if (gate) {
		sandbox_sc_emit(a, SC_JEQ, arch->connect, SC_TO(SC_NOTIFY), 0);
		/* a 32-bit ABI's pointer is the low half only (kernel_arg) */
		sandbox_sc_emit(a, SC_JEQ, arch->sendto,
		    SC_TO(arch->psize == 4 ? SC_SENDTO32 : SC_SENDTO), 0);
		sandbox_sc_emit(a, SC_JEQ, EXECSYS_IO_URING_SETUP, SC_TO(SC_REFUSE), 0);
		if (arch->socketcall)
			sandbox_sc_emit(a, SC_JEQ, arch->socketcall, SC_TO(SC_REFUSE), 0);
	}
	sandbox_sc_emit(a, SC_JEQ, arch->ioctl, SC_TO(SC_IOCTL), SC_TO(SC_ALLOW));
}

/* The gate's sendto: with an address (dest_addr, args[4], not NULL) it goes
 * to the server, without one it is a send on a connected socket, allowed. */
static void
sandbox_sc_sendto(struct sandbox_sc_asm *a)
{
	sandbox_sc_place(a, SC_SENDTO);
	sandbox_sc_emit(a, SC_LD(SC_ARG4_HI), 0, 0);
	sandbox_sc_emit(a, SC_JEQ, 0, 0, SC_TO(SC_NOTIFY));
	sandbox_sc_place(a, SC_SENDTO32);
	sandbox_sc_emit(a, SC_LD(SC_ARG4_LO), 0, 0);
	sandbox_sc_emit(a, SC_JEQ, 0, SC_TO(SC_ALLOW), SC_TO(SC_NOTIFY));
	sandbox_sc_place(a, SC_REFUSE);
	/* ENOSYS: what a program falls back from (direct socket calls, no ring) */
	sandbox_sc_emit(a, SC_RET, SECCOMP_RET_ERRNO | ENOSYS, 0, 0);
}

int
sandbox_seccomp_build(struct sandbox_filter *f, bool exec_notify, bool gate)
{
	struct sandbox_sc_asm a = { .code = f->code, .len = &f->len };
	size_t i;

	f->len = f->net_len = 0;
	f->listener = exec_notify || gate;
	for (i = 0; i < EXECSYS_NABIS; i++)
		sandbox_sc_arch(&a, &execsys_abis[i], exec_notify, gate);
	sandbox_sc_emit(&a, SC_RET, SECCOMP_RET_ERRNO | EPERM, 0, 0);	/* an ABI not listed */
	if (gate)
		sandbox_sc_sendto(&a);
	sandbox_sc_place(&a, SC_IOCTL);
	sandbox_sc_emit(&a, SC_LD(SC_ARG1_LO), 0, 0);
	for (i = 0; i < SC_N(sandbox_sc_denied); i++)
		sandbox_sc_emit(&a, SC_JEQ, sandbox_sc_denied[i], SC_TO(SC_DENY), 0);
	sandbox_sc_place(&a, SC_ALLOW);
	sandbox_sc_emit(&a, SC_RET, SECCOMP_RET_ALLOW, 0, 0);
	sandbox_sc_place(&a, SC_DENY);
	sandbox_sc_emit(&a, SC_RET, SECCOMP_RET_ERRNO | EPERM, 0, 0);
	sandbox_sc_place(&a, SC_NOTIFY);
	if (f->listener)
		sandbox_sc_emit(&a, SC_RET, SECCOMP_RET_USER_NOTIF, 0, 0);
	return a.full || sandbox_sc_resolve(&a) != 0 ? -1 : 0;
}

/*
 * The filter, its listener's waits killable only where the kernel has
 * that (Linux 5.19): once the server has an exec, a signal the caller
 * catches no longer fails it with EINTR while it is being decided.
 */
static long
sandbox_sc_install(unsigned flags, struct sock_fprog *prog)
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
sandbox_seccomp_enter(const struct sandbox_filter *f)
{
	struct sock_fprog prog = { .len = f->len, .filter = (struct sock_filter *)f->code };
	struct sock_fprog net = { .len = f->net_len, .filter = (struct sock_filter *)f->net };
	unsigned flags = f->listener ? SECCOMP_FILTER_FLAG_NEW_LISTENER : 0;
	long r;

	if ((r = sandbox_sc_install(flags, &prog)) < 0) {
		if (errno != EACCES)
			return -1;
		/* Without CAP_SYS_ADMIN the kernel installs a filter only under
		 * no_new_privs: set-id programs run in the session then keep the
		 * caller's ids and capabilities (docs/security.md). */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    (r = sandbox_sc_install(flags, &prog)) < 0)
			return -1;
	}
	/* no_network's program; no_new_privs is set by now if need be */
	if (f->net_len > 0 && syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &net) != 0)
		return -1;
	return (int)r;
}

bool
sandbox_seccomp_notify_avail(void)
{
	uint32_t action = SECCOMP_RET_USER_NOTIF;

	return syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) == 0;
}

/*
 * no_network's part (Landlock denies TCP connect and bind): per ABI,
 * socket(2) of AF_INET or AF_INET6 with any type but SOCK_STREAM (UDP,
 * raw and ICMP sockets, SCTP) and of AF_PACKET is refused with EACCES, and
 * so are socketcall(2) (its arguments are in memory, out of a filter's
 * sight) and io_uring_setup(2) (its socket op is not a system call).
 */
static void
sandbox_sc_net_arch(struct sandbox_sc_asm *a, const struct execsys_abi *arch)
{
	sandbox_sc_emit(a, SC_LD(SC_ARCH), 0, 0);
	sandbox_sc_emit(a, SC_JEQ, arch->arch, 0, 3 + arch->x32 + (arch->socketcall != 0));
	sandbox_sc_emit(a, SC_LD(SC_NR), 0, 0);
	if (arch->x32)
		sandbox_sc_emit(a, BPF_JMP | BPF_JGE | BPF_K, EXECSYS_X32_BIT, SC_TO(SC_DENY), 0);
	sandbox_sc_emit(a, SC_JEQ, EXECSYS_IO_URING_SETUP, SC_TO(SC_DENY), 0);
	if (arch->socketcall)
		sandbox_sc_emit(a, SC_JEQ, arch->socketcall, SC_TO(SC_DENY), 0);
	sandbox_sc_emit(a, SC_JEQ, arch->socket, SC_TO(SC_SOCKET), SC_TO(SC_ALLOW));
}

int
sandbox_seccomp_build_net(struct sandbox_filter *f)
{
	struct sandbox_sc_asm a = { .code = f->net, .len = &f->net_len };

	f->net_len = 0;
	for (size_t i = 0; i < EXECSYS_NABIS; i++)
		sandbox_sc_net_arch(&a, &execsys_abis[i]);
	sandbox_sc_emit(&a, SC_RET, SECCOMP_RET_ERRNO | EACCES, 0, 0);	/* an ABI not listed */
	sandbox_sc_place(&a, SC_SOCKET);
	sandbox_sc_emit(&a, SC_LD(SC_ARG0_LO), 0, 0);
	sandbox_sc_emit(&a, SC_JEQ, AF_PACKET, SC_TO(SC_DENY), 0);
	sandbox_sc_emit(&a, SC_JEQ, AF_INET, SC_TO(SC_TYPE), 0);
	sandbox_sc_emit(&a, SC_JEQ, AF_INET6, SC_TO(SC_TYPE), SC_TO(SC_ALLOW));
	sandbox_sc_place(&a, SC_TYPE);
	sandbox_sc_emit(&a, SC_LD(SC_ARG1_LO), 0, 0);
	sandbox_sc_emit(&a, BPF_ALU | BPF_AND | BPF_K, 0xf, 0, 0);	/* not SOCK_NONBLOCK, _CLOEXEC */
	sandbox_sc_emit(&a, SC_JEQ, SOCK_STREAM, SC_TO(SC_ALLOW), SC_TO(SC_DENY));
	sandbox_sc_place(&a, SC_ALLOW);
	sandbox_sc_emit(&a, SC_RET, SECCOMP_RET_ALLOW, 0, 0);
	sandbox_sc_place(&a, SC_DENY);
	sandbox_sc_emit(&a, SC_RET, SECCOMP_RET_ERRNO | EACCES, 0, 0);
	return a.full || sandbox_sc_resolve(&a) != 0 ? -1 : 0;
}
