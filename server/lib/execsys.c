/*
 * execsys.c: the system-call ABI table (execsys.h).  The numbers of the
 * native ABI come from the system's headers; the other ABIs' are written
 * out, as their headers are not those of this build.
 */
#include "config.h"

#include <linux/audit.h>
#include <sys/syscall.h>

#include "execsys.h"

const struct execsys_abi execsys_abis[EXECSYS_NABIS] = {
#if defined(__x86_64__) && !defined(__ILP32__)
	{ AUDIT_ARCH_X86_64, __NR_execve, __NR_execveat, 8, __NR_ioctl, __NR_socket, 0, true,
	    __NR_connect, __NR_sendto },
	{ AUDIT_ARCH_I386, 11, 358, 4, 54, 359, 102, false, 362, 369 },
#elif defined(__i386__)
	{ AUDIT_ARCH_I386, __NR_execve, __NR_execveat, 0, __NR_ioctl, 359, 102, false,
	    362, 369 },
#elif defined(__aarch64__)
	{ AUDIT_ARCH_AARCH64, __NR_execve, __NR_execveat, 8, __NR_ioctl, __NR_socket, 0, false,
	    __NR_connect, __NR_sendto },
	{ AUDIT_ARCH_ARM, 11, 387, 4, 54, 281, 0, false, 283, 290 },
#elif defined(__arm__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	{ AUDIT_ARCH_ARM, __NR_execve, __NR_execveat, 0, __NR_ioctl, 281, 0, false, 283, 290 },
#elif defined(__riscv) && __riscv_xlen == 64
	{ AUDIT_ARCH_RISCV64, __NR_execve, __NR_execveat, 0, __NR_ioctl, __NR_socket, 0, false,
	    __NR_connect, __NR_sendto },
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	{ AUDIT_ARCH_PPC64LE, __NR_execve, __NR_execveat, 0, __NR_ioctl, __NR_socket,
	    __NR_socketcall, false, __NR_connect, __NR_sendto },
#elif defined(__s390x__)
	{ AUDIT_ARCH_S390X, __NR_execve, __NR_execveat, 0, __NR_ioctl, __NR_socket,
	    __NR_socketcall, false, __NR_connect, __NR_sendto },
#else
#error "execsys.c: add this architecture's AUDIT_ARCH and its other ABIs"
#endif
};
