/*
 * exec32: a 32-bit x86 program (built with -m32, no libc: none for it
 * need be installed) that execs through its own ABI, int $0x80.
 *
 *   exec32 FILE ARG0 [ARG...]
 *
 * execve(FILE, [ARG0, ARG...], its environment); when that fails, exit
 * 99.  Where no 32-bit x86 program can be built, the build puts a
 * script that exits 77 in its place.
 */
static long
e32_execve(const char *path, char **argv, char **envp)
{
	long r;

	__asm__ volatile("int $0x80" : "=a"(r) : "a"(11), "b"(path), "c"(argv), "d"(envp)
	    : "memory");
	return r;
}

/* From _start, with the initial stack: argc, argv..., NULL, envp... */
__attribute__((used, noreturn)) void
e32_main(long *sp)
{
	long argc = sp[0];
	char **argv = (char **)(sp + 1), **envp = argv + argc + 1;

	if (argc > 2)
		e32_execve(argv[1], argv + 2, envp);
	__asm__ volatile("int $0x80" : : "a"(1), "b"(argc > 2 ? 99 : 2));
	for (;;)
		;
}

__asm__(".globl _start\n_start:\n\tpushl %esp\n\tcall e32_main\n");
