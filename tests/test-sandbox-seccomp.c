/*
 * test-sandbox-seccomp.c: suite sandbox_seccomp -- the session's seccomp filter
 * (the library's sandbox builder, server/lib/sandbox-seccomp.c), run by
 * a small classic-BPF interpreter on the system calls of every ABI an
 * x86-64 kernel can run: the i386 one
 * (int $0x80) cannot be issued for real where the kernel lacks ia32
 * emulation, so the cli_tty suite, which installs the filter for real,
 * cannot cover it everywhere.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/kd.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>

#include "server/lib/sandbox.h"

#define DENY	(SECCOMP_RET_ERRNO | EPERM)
#define ALLOW	SECCOMP_RET_ALLOW

static struct sandbox_filter f;

static void
setup(void)
{
#if !defined(__x86_64__) || defined(__ILP32__)
	cr_skip_test("the cases are written for x86-64 and its i386 and x32 ABIs");
#endif
	cr_assert_eq(sandbox_seccomp_build(&f, false, false), 0);
}

TestSuite(sandbox_seccomp, .init = setup);

/* What the filter answers for one system call, with args[1] and args[4]. */
static uint32_t
bpf_run4(uint32_t arch, uint32_t nr, uint64_t arg1, uint64_t arg4)
{
	struct seccomp_data d = { .nr = (int)nr, .arch = arch, .args = { 0, arg1, 0, 0, arg4 } };
	uint32_t acc = 0;

	for (unsigned pc = 0; pc < f.len; pc++) {
		const struct sock_filter *i = &f.code[pc];

		switch (i->code) {
		case BPF_LD | BPF_W | BPF_ABS:
			cr_assert_leq(i->k + 4, sizeof(d), "a load beyond seccomp_data");
			memcpy(&acc, (const char *)&d + i->k, 4);
			break;
		case BPF_JMP | BPF_JEQ | BPF_K:
			pc += acc == i->k ? i->jt : i->jf;
			break;
		case BPF_JMP | BPF_JGE | BPF_K:
			pc += acc >= i->k ? i->jt : i->jf;
			break;
		case BPF_RET | BPF_K:
			return i->k;
		default:
			cr_assert_fail("instruction %#x at %u is not interpreted here", i->code, pc);
		}
	}
	cr_assert_fail("the filter ran off its end");
	return 0;
}

static uint32_t
bpf_run(uint32_t arch, uint32_t nr, uint64_t arg1)
{
	return bpf_run4(arch, nr, arg1, 0);
}

static const unsigned long denied[] = {
	TIOCSTI, TIOCLINUX, TIOCSETD, KDSKBENT, KDSKBSENT, KDSKBDIACR, KDSKBDIACRUC,
	KDSETKEYCODE, KDSKBMODE, KDSKBMETA, KDSKBLED,
};

Test(sandbox_seccomp, native_injection_ioctls_denied)
{
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++)
		cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, denied[i]), DENY,
		    "request %#lx", denied[i]);
}

/* The kernel reads the request as an unsigned int. */
Test(sandbox_seccomp, high_bits_do_not_hide_a_request)
{
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, 0xffffffff00000000ULL | TIOCSTI), DENY);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, (1ULL << 32) | TIOCLINUX), DENY);
}

Test(sandbox_seccomp, everything_else_allowed)
{
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, TCGETS), ALLOW);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, TIOCSPGRP), ALLOW);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, TIOCSWINSZ), ALLOW);
	/* the same number as another system call's argument */
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_write, TIOCSTI), ALLOW);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_getpid, 0), ALLOW);
}

/* int $0x80: ioctl is 54 there, 16 is another call (lchown). */
Test(sandbox_seccomp, i386_abi_checked_on_its_own_numbers)
{
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++)
		cr_expect_eq(bpf_run(AUDIT_ARCH_I386, 54, denied[i]), DENY, "request %#lx", denied[i]);
	cr_expect_eq(bpf_run(AUDIT_ARCH_I386, 54, TCGETS), ALLOW);
	cr_expect_eq(bpf_run(AUDIT_ARCH_I386, 16, TIOCSTI), ALLOW);
}

/* The x32 ABI: the x86-64 arch with __X32_SYSCALL_BIT, refused whole. */
Test(sandbox_seccomp, x32_refused)
{
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, 0x40000000u | 514, TIOCSTI), DENY);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, 0x40000000u | 514, TCGETS), DENY);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, 0x40000000u | 39, 0), DENY);
}

Test(sandbox_seccomp, unknown_abi_refused)
{
	cr_expect_eq(bpf_run(AUDIT_ARCH_AARCH64, 29, TIOCSTI), DENY);
	cr_expect_eq(bpf_run(AUDIT_ARCH_AARCH64, 172, 0), DENY);
}

/* The socket gate's filter (every Landlock sandbox): connect and an
 * addressed sendto to the listener, in both ABIs; socketcall and
 * io_uring_setup refused; the rest as without it. */
Test(sandbox_seccomp, socket_gate)
{
	cr_assert_eq(sandbox_seccomp_build(&f, false, true), 0);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_connect, 0), SECCOMP_RET_USER_NOTIF);
	cr_expect_eq(bpf_run4(AUDIT_ARCH_X86_64, __NR_sendto, 0, 0), ALLOW);
	cr_expect_eq(bpf_run4(AUDIT_ARCH_X86_64, __NR_sendto, 0, 0x1000), SECCOMP_RET_USER_NOTIF);
	/* a pointer above 4 GiB: the high half alone */
	cr_expect_eq(bpf_run4(AUDIT_ARCH_X86_64, __NR_sendto, 0, 1ULL << 32), SECCOMP_RET_USER_NOTIF);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_io_uring_setup, 0), SECCOMP_RET_ERRNO | ENOSYS);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_execve, 0), ALLOW);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, TIOCSTI), DENY);
	cr_expect_eq(bpf_run(AUDIT_ARCH_I386, 362, 0), SECCOMP_RET_USER_NOTIF);	/* connect */
	cr_expect_eq(bpf_run4(AUDIT_ARCH_I386, 369, 0, 0x1000), SECCOMP_RET_USER_NOTIF);
	/* int $0x80 from a 64-bit program: the kernel reads the low half only */
	cr_expect_eq(bpf_run4(AUDIT_ARCH_I386, 369, 0, 1ULL << 32), ALLOW);
	cr_expect_eq(bpf_run(AUDIT_ARCH_I386, 102, 0), SECCOMP_RET_ERRNO | ENOSYS);	/* socketcall */
	cr_expect_eq(bpf_run(AUDIT_ARCH_I386, 425, 0), SECCOMP_RET_ERRNO | ENOSYS);
	cr_expect_eq(bpf_run(AUDIT_ARCH_I386, 54, TIOCSTI), DENY);
	cr_assert_eq(sandbox_seccomp_build(&f, true, true), 0);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_execve, 0), SECCOMP_RET_USER_NOTIF);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_connect, 0), SECCOMP_RET_USER_NOTIF);
	cr_expect_eq(bpf_run(AUDIT_ARCH_I386, 102, 0), SECCOMP_RET_ERRNO | ENOSYS);
}
