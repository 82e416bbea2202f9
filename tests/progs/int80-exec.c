/*
 * int80-exec: a 64-bit program that execs through the i386 system call
 * (int $0x80), as any x86-64 process may.  The kernel then uses only the
 * low 32 bits of each register, and 32-bit pointers in argv; seccomp
 * reports the registers whole.
 *
 *   int80-exec FILE ARG0 [ARG...] [-- FILE2 ARG0 [ARG...]]
 *
 * FILE and its argv (envp empty) lie below 4 GiB, where the kernel reads
 * them.  With a second command, the registers carry bit 32 too: read
 * whole, they point 4 GiB higher, where FILE2 and an argv array naming
 * FILE2's arguments lie -- a reader that does not truncate them as the
 * kernel does sees FILE2 while the kernel runs FILE.
 * When the exec fails: "ret=-1 errno=E" on stdout, exit 99; 77: this
 * machine cannot (not x86-64, no memory where it is wanted, or a kernel
 * whose i386 system calls are off: ia32_emulation=0, where int $0x80
 * raises SIGSEGV).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__x86_64__) && !defined(__ILP32__)

#define I80_SIZE	(64u << 10)
#define I80_ARGV	4096u		/* where each argv array lies */
#define I80_MAXARGS	64

/* The command at args (n of them) laid out in region at off: the file's
 * path at 0, its argv array (32-bit pointers) at I80_ARGV, its strings
 * in lo from sbase on. */
static void
i80_layout(char *region, char *lo, size_t sbase, char **args, int n)
{
	uint32_t *argv = (uint32_t *)(region + I80_ARGV);
	char *s = lo + sbase;

	snprintf(region, I80_ARGV, "%s", args[0]);
	for (int i = 1; i < n && i < I80_MAXARGS; i++) {
		argv[i - 1] = (uint32_t)(uintptr_t)s;
		s = stpcpy(s, args[i]) + 1;
	}
	argv[n - 1 < I80_MAXARGS ? n - 1 : I80_MAXARGS - 1] = 0;
}

/* Whether this kernel takes i386 system calls: a child asks getpid (20)
 * through int $0x80; where they are off, the kernel kills it. */
static int
i80_available(void)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		long ret;

		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20L) : "memory");
		_exit(ret > 0 ? 0 : 1);
	}
	if (pid < 0)
		return 0;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int
main(int argc, char **argv)
{
	char *lo, *hi = NULL;
	int split = 0;
	long ret;

	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			split = i;
	if (argc < 3 || (split && (split < 3 || argc - split < 3))) {
		fprintf(stderr, "usage: int80-exec FILE ARG0 [ARG...] [-- FILE2 ARG0 [ARG...]]\n");
		return 2;
	}
	if (!i80_available())
		return 77;
	lo = mmap(NULL, I80_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
	    -1, 0);
	if (lo == MAP_FAILED)
		return 77;
	i80_layout(lo, lo, 8192, argv + 1, split ? split - 1 : argc - 1);
	if (split) {
		hi = mmap(lo + (1ull << 32), I80_SIZE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (hi != lo + (1ull << 32))
			return 77;
		i80_layout(hi, lo, I80_SIZE / 2, argv + split + 1, argc - split - 1);
	}
	{
		register long path __asm__("rbx") = (long)(hi ? hi : lo);
		register long av __asm__("rcx") = (long)(hi ? hi : lo) + I80_ARGV;
		register long ev __asm__("rdx") = 0;

		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(11L), "r"(path), "r"(av), "r"(ev)
		    : "memory");
	}
	printf("ret=-1 errno=%ld\n", -ret);
	return 99;
}

#else

int
main(void)
{
	return 77;
}

#endif
