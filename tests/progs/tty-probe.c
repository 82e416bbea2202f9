/*
 * tty-probe: what a process in a session may do to its terminal.
 *
 *   tty-probe push TEXT        push TEXT into fd 0's input with TIOCSTI,
 *                              byte by byte; print "push: ok" or
 *                              "push: <errno name>", exit 0 or 1
 *   tty-probe ioctls           try each tty-injection ioctl on fd 0 in
 *                              every way a program can issue it and print
 *                              "NAME: ok" or "NAME: <errno name>", a line
 *                              each (see probe_all)
 *   tty-probe ioctl-dev PATH   open PATH read-only and print what a
 *                              terminal ioctl (TCGETS) on it gives
 *
 * Errno names, not numbers or strerror texts: EPERM, EACCES, ENOTTY...
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

static const char *
probe_errname(int e)
{
	switch (e) {
	case 0: return "ok";
	case EPERM: return "EPERM";
	case EACCES: return "EACCES";
	case ENOTTY: return "ENOTTY";
	case EINVAL: return "EINVAL";
	case ENOSYS: return "ENOSYS";
	case EIO: return "EIO";
	case EFAULT: return "EFAULT";
	default: return strerror(e);
	}
}

static void
probe_say(const char *name, long r)
{
	printf("%s: %s\n", name, probe_errname(r < 0 ? errno : 0));
}

static int
probe_push(const char *text)
{
	for (const char *p = text; *p; p++)
		if (ioctl(0, TIOCSTI, p) != 0) {
			printf("push: %s\n", probe_errname(errno));
			return 1;
		}
	printf("push: ok\n");
	return 0;
}

#if defined(__x86_64__) && !defined(__ILP32__)
/* A system call of the i386 ABI, as any 64-bit process can make one. */
static long
probe_int80(long nr, long a, long b, long c)
{
	long r;

	__asm__ volatile ("int $0x80" : "=a"(r) : "a"(nr), "b"(a), "c"(b), "d"(c) : "memory");
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	return r;
}

/* The i386 ABI's TIOCSTI (ioctl is 54 there), with a byte below 4 GiB;
 * in a child, since a kernel without ia32 emulation kills the caller. */
static void
probe_i386(void)
{
	char *b = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
	    -1, 0);
	int p[2], st, e = -1;
	pid_t pid;

	if (b == MAP_FAILED || pipe(p) != 0 || (pid = fork()) < 0) {
		printf("i386 TIOCSTI: cannot try\n");
		return;
	}
	if (pid == 0) {
		*b = ' ';
		e = probe_int80(54, 0, TIOCSTI, (long)(uintptr_t)b) < 0 ? errno : 0;
		_exit(write(p[1], &e, sizeof(e)) == sizeof(e) ? 0 : 1);
	}
	close(p[1]);
	if (read(p[0], &e, sizeof(e)) != sizeof(e))
		e = -1;
	waitpid(pid, &st, 0);
	close(p[0]);
	if (e < 0)
		printf("i386 TIOCSTI: no ia32 emulation\n");
	else
		printf("i386 TIOCSTI: %s\n", probe_errname(e));
}

static void
probe_x32(void)
{
	char c = ' ';

	probe_say("x32 TIOCSTI", syscall(0x40000000 | 514, 0, TIOCSTI, &c));
}
#else
static void probe_i386(void) { }
static void probe_x32(void) { }
#endif

/*
 * Each request on fd 0 with harmless arguments: where the filter lets it
 * through, the terminal (a pty) refuses the console ones (ENOTTY, EINVAL)
 * and takes the rest (ok).
 */
static void
probe_all(void)
{
	char c = ' ', sub = 6;		/* TIOCL_GETSHIFTSTATE */
	int ldisc = 0;			/* N_TTY, what a pty has */
	struct kbentry ke = { 0 };

	probe_say("TIOCSTI", ioctl(0, TIOCSTI, &c));
	/* the request with bits above 32 set: the kernel reads an unsigned int */
	probe_say("TIOCSTI high bits", syscall(SYS_ioctl, 0, 0x100000000UL | TIOCSTI, &c));
	probe_say("TIOCLINUX", ioctl(0, TIOCLINUX, &sub));
	probe_say("TIOCSETD", ioctl(0, TIOCSETD, &ldisc));
	probe_say("KDSKBENT", ioctl(0, KDSKBENT, &ke));
	probe_say("KDSKBMODE", ioctl(0, KDSKBMODE, K_XLATE));
	probe_i386();
	probe_x32();
}

static int
probe_ioctl_dev(const char *path)
{
	struct termios tio;
	int fd = open(path, O_RDONLY | O_NOCTTY | O_CLOEXEC);

	if (fd < 0) {
		printf("open: %s\n", probe_errname(errno));
		return 1;
	}
	probe_say("TCGETS", ioctl(fd, TCGETS, &tio));
	close(fd);
	return 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 3 && strcmp(argv[1], "push") == 0)
		return probe_push(argv[2]);
	if (argc == 2 && strcmp(argv[1], "ioctls") == 0) {
		probe_all();
		return 0;
	}
	if (argc == 3 && strcmp(argv[1], "ioctl-dev") == 0)
		return probe_ioctl_dev(argv[2]);
	fprintf(stderr, "usage: tty-probe push TEXT | ioctls | ioctl-dev PATH\n");
	return 2;
}
