/*
 * execsys.h: the one table of the system-call ABIs the session's code can
 * run in, and their numbers: what the seccomp filter (sandbox-seccomp.c)
 * routes and refuses, and how the kernel layer (kernel.c,
 * kernel-escalate.c) reads an exec it was handed.  seccomp_data.arch says
 * which ABI a call was made in; on x86-64 that is the native one, the
 * i386 one (int $0x80, any process can use it) or x32 (the native arch
 * with __X32_SYSCALL_BIT in the number).  The native ABI is always the
 * first entry.
 */
#ifndef SHELLESC_EXECSYS_H
#define SHELLESC_EXECSYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct execsys_abi {
	uint32_t arch;			/* AUDIT_ARCH_*: seccomp_data.arch */
	int execve, execveat;		/* their numbers in it */
	size_t psize;			/* its pointers; 0: the kernel layer
					 * does not read its calls (fails them) */
	uint32_t ioctl;			/* ioctl(2)'s number */
	uint32_t socket;		/* socket(2)'s */
	uint32_t socketcall;		/* socketcall(2)'s, or 0: none */
	bool x32;			/* __X32_SYSCALL_BIT numbers: x32, refused */
	uint32_t connect, sendto;	/* the socket gate's (kernel-socket.c) */
};

/* How many entries execsys_abis has, known at compile time (the filter's
 * size is checked against it). */
#if defined(__x86_64__) && !defined(__ILP32__)
#define EXECSYS_NABIS	2
#elif defined(__aarch64__)
#define EXECSYS_NABIS	2
#else
#define EXECSYS_NABIS	1
#endif

extern const struct execsys_abi execsys_abis[EXECSYS_NABIS];

/* io_uring_setup(2): the same number in every ABI. */
#define EXECSYS_IO_URING_SETUP	425
/* The bit that marks an x32 system call number. */
#define EXECSYS_X32_BIT		0x40000000u

#endif /* SHELLESC_EXECSYS_H */
