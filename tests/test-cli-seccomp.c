/*
 * test-cli-seccomp.c: suite cli_seccomp -- the session's seccomp filter
 * (server/cli/cli-seccomp.c), run by a small classic-BPF interpreter on
 * the system calls of every ABI an x86-64 kernel can run: the i386 one
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

#include "cli-seccomp.h"

#define DENY	(SECCOMP_RET_ERRNO | EPERM)
#define ALLOW	SECCOMP_RET_ALLOW

static struct cli_seccomp f;

static void
setup(void)
{
#if !defined(__x86_64__) || defined(__ILP32__)
	cr_skip_test("the cases are written for x86-64 and its i386 and x32 ABIs");
#endif
	cr_assert_eq(cli_seccomp_build(&f, false), 0);
}

TestSuite(cli_seccomp, .init = setup);

/* What the filter answers for one system call. */
static uint32_t
bpf_run(uint32_t arch, uint32_t nr, uint64_t arg1)
{
	struct seccomp_data d = { .nr = (int)nr, .arch = arch, .args = { 0, arg1, 0 } };
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

static const unsigned long denied[] = {
	TIOCSTI, TIOCLINUX, TIOCSETD, KDSKBENT, KDSKBSENT, KDSKBDIACR, KDSKBDIACRUC,
	KDSETKEYCODE, KDSKBMODE, KDSKBMETA, KDSKBLED,
};

Test(cli_seccomp, native_injection_ioctls_denied)
{
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++)
		cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, denied[i]), DENY,
		    "request %#lx", denied[i]);
}

/* The kernel reads the request as an unsigned int. */
Test(cli_seccomp, high_bits_do_not_hide_a_request)
{
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, 0xffffffff00000000ULL | TIOCSTI), DENY);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, (1ULL << 32) | TIOCLINUX), DENY);
}

Test(cli_seccomp, everything_else_allowed)
{
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, TCGETS), ALLOW);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, TIOCSPGRP), ALLOW);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_ioctl, TIOCSWINSZ), ALLOW);
	/* the same number as another system call's argument */
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_write, TIOCSTI), ALLOW);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, __NR_getpid, 0), ALLOW);
}

/* int $0x80: ioctl is 54 there, 16 is another call (lchown). */
Test(cli_seccomp, i386_abi_checked_on_its_own_numbers)
{
	for (size_t i = 0; i < sizeof(denied) / sizeof(denied[0]); i++)
		cr_expect_eq(bpf_run(AUDIT_ARCH_I386, 54, denied[i]), DENY, "request %#lx", denied[i]);
	cr_expect_eq(bpf_run(AUDIT_ARCH_I386, 54, TCGETS), ALLOW);
	cr_expect_eq(bpf_run(AUDIT_ARCH_I386, 16, TIOCSTI), ALLOW);
}

/* The x32 ABI: the x86-64 arch with __X32_SYSCALL_BIT, refused whole. */
Test(cli_seccomp, x32_refused)
{
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, 0x40000000u | 514, TIOCSTI), DENY);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, 0x40000000u | 514, TCGETS), DENY);
	cr_expect_eq(bpf_run(AUDIT_ARCH_X86_64, 0x40000000u | 39, 0), DENY);
}

Test(cli_seccomp, unknown_abi_refused)
{
	cr_expect_eq(bpf_run(AUDIT_ARCH_AARCH64, 29, TIOCSTI), DENY);
	cr_expect_eq(bpf_run(AUDIT_ARCH_AARCH64, 172, 0), DENY);
}
