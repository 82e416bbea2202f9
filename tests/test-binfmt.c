/*
 * test-binfmt.c: suite binfmt -- common/binfmt.c reads a file as execve(2)
 * does.  The kernel is the oracle: each small file written here is also
 * executed, and how its exec goes must be what the reader said -- a #!
 * line's interpreter (tests/progs/argv-dump) gets the name and argument
 * the reader split off; a line the reader refuses fails with ENOEXEC; an
 * ELF file whose PT_INTERP names a missing file fails with ENOENT exactly
 * when the reader saw that interpreter.  Then real programs: /bin/true
 * and the static wrapper.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binfmt.h"
#include "helpers/base.h"

#define TB_EXEC_FAILED	200	/* the child's status: this + execve's errno */
#define TB_NO_LOADER	"/nonexistent/ld.so"

#define dir th_suite_dir	/* this test's scratch directory */

TestSuite(binfmt, .init = th_suite_dir_new, .fini = th_suite_dir_end);

/* dir/name holding n bytes at p, executable; its path (static buffer). */
static const char *
tb_put(const char *name, const void *p, size_t n)
{
	static char path[4096];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	cr_assert((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755)) >= 0);
	th_write(fd, p, n);
	cr_assert_eq(close(fd), 0);
	return path;
}

static void
tb_read(const char *path, struct binfmt *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	cr_assert(fd >= 0, "%s: %s", path, strerror(errno));
	cr_assert_eq(binfmt_read(fd, b), 0);
	close(fd);
}

/* Exec path with no arguments; its wait status, its output into out[size]
 * (*len bytes).  A failed exec ends the child with TB_EXEC_FAILED + errno. */
static int
tb_exec(const char *path, char *out, size_t size, size_t *len)
{
	int p[2], st;
	ssize_t k;
	pid_t pid;

	th_pipe(p);
	cr_assert((pid = fork()) >= 0);
	if (pid == 0) {
		dup2(p[1], STDOUT_FILENO);
		execve(path, (char *[]){ (char *)path, NULL }, (char *[]){ NULL });
		_exit(TB_EXEC_FAILED + errno);
	}
	close(p[1]);
	*len = 0;
	while ((k = read(p[0], out + *len, size - *len)) > 0)
		*len += (size_t)k;
	close(p[0]);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return st;
}

/* --- #! lines ---------------------------------------------------------- */

/* How the kernel must run dir/s holding text, the reader's split. */
static void
tb_check_script(const char *text, size_t n, const struct binfmt *b, const char *what)
{
	char out[4096], want[4096];
	size_t len, k = 0;
	const char *path = tb_put("s", text, n);
	int st = tb_exec(path, out, sizeof(out), &len);

	if (b->kind != BINFMT_SCRIPT) {
		cr_assert_eq(st, W_EXITCODE(TB_EXEC_FAILED + ENOEXEC, 0), "%s: %#x", what, st);
		return;
	}
	if (access(b->script, X_OK) != 0) {	/* the kernel took the line, and failed later */
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) > TB_EXEC_FAILED &&
		    WEXITSTATUS(st) != TB_EXEC_FAILED + ENOEXEC, "%s: %#x", what, st);
		return;
	}
	cr_assert_eq(st, 0, "%s: %#x", what, st);
	k += (size_t)sprintf(want + k, "%s", b->script) + 1;
	if (b->has_arg)
		k += (size_t)sprintf(want + k, "%s", b->arg) + 1;
	k += (size_t)sprintf(want + k, "%s", path) + 1;
	cr_assert_eq(len, k, "%s: argv of %zu bytes, not %zu", what, len, k);
	cr_assert(memcmp(out, want, k) == 0, "%s: not the argv the reader split", what);
}

/* Parse text as a #! file; its kind, name and argument must be as given
 * (name NULL: refused), and the kernel must agree. */
static void
tb_script(const char *text, size_t n, const char *name, const char *arg, const char *what)
{
	struct binfmt b;

	tb_read(tb_put("s", text, n), &b);
	if (name == NULL)
		cr_assert_eq(b.kind, BINFMT_OTHER, "%s: taken as a script (%s)", what, b.script);
	else {
		cr_assert_eq(b.kind, BINFMT_SCRIPT, "%s", what);
		cr_assert_str_eq(b.script, name, "%s", what);
		cr_assert_eq(b.has_arg, arg != NULL, "%s", what);
		if (arg != NULL)
			cr_assert_str_eq(b.arg, arg, "%s", what);
	}
	tb_check_script(text, n, &b, what);
}

/* A name of n bytes for argv-dump: slashes in front of its path. */
static char *
tb_long_name(size_t n)
{
	size_t d = strlen(TEST_ARGV_DUMP);
	char *s = malloc(n + 1);

	cr_assert_not_null(s);
	cr_assert_gt(n, d);
	memset(s, '/', n - d);
	memcpy(s + n - d, TEST_ARGV_DUMP, d + 1);
	return s;
}

#define D TEST_ARGV_DUMP
#define TB_SCRIPT(text, name, arg) tb_script(text, sizeof(text) - 1, name, arg, #text)

/* The line is split as the kernel splits it: blanks are spaces and tabs,
 * the one argument is the rest of the line, a CR is part of a word. */
Test(binfmt, script_line_split_as_the_kernel_does)
{
	TB_SCRIPT("#!" D "\n", D, NULL);
	TB_SCRIPT("#! \t" D "  -x  y \t\necho\n", D, "-x  y");
	TB_SCRIPT("#!" D "\t-x\n", D, "-x");
	TB_SCRIPT("#!" D "\r\n", D "\r", NULL);
	TB_SCRIPT("#!" D " -x\r\n", D, "-x\r");
	TB_SCRIPT("#!" D, D, NULL);
	TB_SCRIPT("#!" D " x\0y\n", D, "x");
	TB_SCRIPT("#!" D "\0 x\n", D, NULL);
}

/* No name: ENOEXEC (the shell's /bin/sh fallback runs such a file). */
Test(binfmt, script_without_a_name_is_refused)
{
	TB_SCRIPT("#!\n", NULL, NULL);
	TB_SCRIPT("#!  \t \n", NULL, NULL);
	TB_SCRIPT("#!", "", NULL);	/* a name "" after all: that exec fails */
}

/*
 * The kernel reads BINFMT_LINE bytes: a name that fills them to the last
 * byte is cut short, and refused (ENOEXEC); one that ends before runs, and
 * an argument running past them is cut.
 */
Test(binfmt, script_line_longer_than_the_kernel_reads)
{
	char text[1024], cut[BINFMT_LINE], *name;

	name = tb_long_name(BINFMT_LINE - 3);	/* "#!" NAME "\n": 256 bytes */
	snprintf(text, sizeof(text), "#!%s\n", name);
	tb_script(text, strlen(text), name, NULL, "a name that just fits");
	free(name);
	name = tb_long_name(BINFMT_LINE - 2);	/* its "\n" past the 256 */
	snprintf(text, sizeof(text), "#!%s\n", name);
	tb_script(text, strlen(text), NULL, NULL, "a name one byte too long");
	free(name);
	name = tb_long_name(200);	/* "#!" NAME " " ARG: ARG from byte 203 */
	snprintf(text, sizeof(text), "#!%s %0300d\n", name, 0);
	memset(cut, '0', BINFMT_LINE - 1 - 203);
	cut[BINFMT_LINE - 1 - 203] = '\0';
	tb_script(text, strlen(text), name, cut, "an argument cut");
	free(name);
}

/* --- ELF --------------------------------------------------------------- */

/* A 64-bit ELF file of our machine: a header, nph program headers, bytes. */
struct tb_elf {
	Elf64_Ehdr eh;
	Elf64_Phdr ph[1200];
	char tail[64];
};

/* An ELF file of type type, as our own executable's class and machine,
 * with nph program headers of type PT_NOTE after the header. */
static struct tb_elf *
tb_elf(uint16_t type, size_t nph)
{
	struct tb_elf *e = calloc(1, sizeof(*e));
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

	cr_assert_not_null(e);
	cr_assert(fd >= 0);
	cr_assert_eq(pread(fd, &e->eh, sizeof(e->eh), 0), (ssize_t)sizeof(e->eh));
	close(fd);
	if (e->eh.e_ident[EI_CLASS] != ELFCLASS64)
		cr_skip_test("these files are 64-bit ELF");
	e->eh.e_type = type;
	e->eh.e_entry = 0x1000;
	e->eh.e_phoff = offsetof(struct tb_elf, ph);
	e->eh.e_phentsize = sizeof(Elf64_Phdr);
	e->eh.e_phnum = (uint16_t)nph;
	e->eh.e_shoff = 0;
	e->eh.e_shnum = e->eh.e_shstrndx = 0;
	for (size_t i = 0; i < nph; i++)
		e->ph[i] = (Elf64_Phdr){ .p_type = PT_NOTE, .p_flags = PF_R, .p_align = 1 };
	return e;
}

/* Make ph[i] a PT_INTERP naming TB_NO_LOADER (its NUL counted, or not). */
static void
tb_interp(struct tb_elf *e, size_t i, bool nul)
{
	strcpy(e->tail, TB_NO_LOADER);
	e->ph[i].p_type = PT_INTERP;
	e->ph[i].p_offset = offsetof(struct tb_elf, tail);
	e->ph[i].p_filesz = e->ph[i].p_memsz = strlen(TB_NO_LOADER) + nul;
}

/*
 * Write e (its first n bytes; 0: all), read it back into *b, and exec it:
 * how the kernel takes it must be how (e: errno, or 0) the test says --
 * ENOENT: it runs the PT_INTERP, which names TB_NO_LOADER; ENOEXEC: it
 * refuses the file; 0: it loads the file without a loader, which then
 * dies at once (nothing is mapped).
 */
static void
tb_elf_check(struct tb_elf *e, size_t n, struct binfmt *b, int how, const char *what)
{
	const char *path = tb_put("e", e, n ? n : sizeof(*e));
	char out[64];
	size_t len;
	int st;

	tb_read(path, b);
	st = tb_exec(path, out, sizeof(out), &len);
	free(e);
	if (how != 0)
		cr_assert_eq(st, W_EXITCODE(TB_EXEC_FAILED + how, 0), "%s: %#x", what, st);
	else
		cr_assert(WIFSIGNALED(st), "%s: %#x", what, st);
	/* a loader runs exactly where the reader saw one */
	cr_assert_eq(b->interp && b->interp_path[0] != '\0', how == ENOENT, "%s", what);
}

/* A dynamically linked program and a static-pie one (ET_DYN, no PT_INTERP). */
Test(binfmt, elf_interpreter_or_none)
{
	struct tb_elf *e = tb_elf(ET_EXEC, 3);
	struct binfmt b;

	tb_interp(e, 1, true);
	tb_elf_check(e, 0, &b, ENOENT, "dynamic");
	cr_assert_eq(b.kind, BINFMT_ELF);
	cr_assert_eq(b.cls, ELFCLASS64);
	cr_assert_eq(b.type, ET_EXEC);
	cr_assert(b.interp);
	cr_assert_str_eq(b.interp_path, TB_NO_LOADER);
	tb_elf_check(tb_elf(ET_DYN, 3), 0, &b, 0, "static-pie");
	cr_assert_eq(b.kind, BINFMT_ELF);
	cr_assert_eq(b.type, ET_DYN);
	cr_assert_not(b.interp, "a static-pie program has no loader");
	e = tb_elf(ET_DYN, 4);
	tb_interp(e, 0, true);
	e->ph[2].p_type = PT_INTERP;	/* the first one counts */
	tb_elf_check(e, 0, &b, ENOENT, "two");
	cr_assert_str_eq(b.interp_path, TB_NO_LOADER);
}

/*
 * The kernel reads up to 64 KiB of program headers (1170 of 64 bits),
 * each wherever in the file; so a PT_INTERP at the 1170th is the loader
 * that runs (the copies this reader replaced stopped at 256 and 512, and
 * called that program static).  One header more and it refuses the file.
 */
Test(binfmt, elf_interpreter_among_many_headers)
{
	struct tb_elf *e = tb_elf(ET_EXEC, 1170);
	struct binfmt b;

	tb_interp(e, 1169, true);
	tb_elf_check(e, 0, &b, ENOENT, "1170 headers");
	cr_assert(b.interp, "the PT_INTERP the kernel honours was missed");
	e = tb_elf(ET_EXEC, 1171);
	tb_interp(e, 1169, true);
	tb_elf_check(e, 0, &b, ENOEXEC, "1171 headers");
	cr_assert_not(b.interp);
}

/* What the kernel refuses (ENOEXEC) runs no loader either. */
Test(binfmt, elf_refused_as_the_kernel_refuses)
{
	struct tb_elf *e = tb_elf(ET_EXEC, 2);
	struct binfmt b;

	tb_interp(e, 0, false);		/* its path not NUL-terminated */
	tb_elf_check(e, 0, &b, ENOEXEC, "no NUL");
	cr_assert(b.interp);
	cr_assert_str_eq(b.interp_path, "");
	e = tb_elf(ET_EXEC, 2);
	tb_interp(e, 0, true);
	e->ph[0].p_filesz = 1;		/* shorter than the kernel takes */
	tb_elf_check(e, 0, &b, ENOEXEC, "one byte");
	cr_assert_str_eq(b.interp_path, "");
	e = tb_elf(ET_EXEC, 2);
	tb_interp(e, 0, true);
	e->eh.e_phentsize = sizeof(Elf64_Phdr) + 8;	/* not its class's size */
	tb_elf_check(e, 0, &b, ENOEXEC, "header size");
	cr_assert_not(b.interp);
	e = tb_elf(ET_REL, 2);		/* no program the kernel runs */
	tb_interp(e, 0, true);
	tb_elf_check(e, 0, &b, ENOEXEC, "an object file");
	cr_assert_not(b.interp);
	tb_elf_check(tb_elf(ET_EXEC, 2), sizeof(Elf64_Ehdr) - 1, &b, ENOEXEC,
	    "a header cut short");
	cr_assert_eq(b.kind, BINFMT_OTHER);
}

/* A buffer alone: headers in it are read; beyond it, nothing is. */
Test(binfmt, elf_from_a_buffer)
{
	struct tb_elf *e = tb_elf(ET_EXEC, 1000);
	struct binfmt b;

	tb_interp(e, 1, true);
	binfmt_parse(e, BINFMT_HEAD, -1, &b);
	cr_assert(b.interp);
	cr_assert_str_eq(b.interp_path, "", "its path lies past the buffer");
	tb_interp(e, 999, true);
	e->ph[1].p_type = PT_NOTE;
	binfmt_parse(e, BINFMT_HEAD, -1, &b);
	cr_assert_eq(b.kind, BINFMT_ELF);
	cr_assert_not(b.interp);
	free(e);
}

/* Fields in the file's byte order: a big-endian header reads as such. */
Test(binfmt, elf_of_the_other_byte_order)
{
	struct tb_elf *e = tb_elf(ET_EXEC, 1);
	unsigned char *h = (unsigned char *)&e->eh;
	bool big = e->eh.e_ident[EI_DATA] == ELFDATA2MSB;
	struct binfmt b;

	h[EI_DATA] = big ? ELFDATA2LSB : ELFDATA2MSB;
	h[offsetof(Elf64_Ehdr, e_machine) + big] = 0;	/* now of the other order */
	h[offsetof(Elf64_Ehdr, e_machine) + !big] = EM_PPC64;
	binfmt_parse(e, sizeof(*e), -1, &b);
	cr_assert_eq(b.kind, BINFMT_ELF);
	cr_assert_eq(b.data, h[EI_DATA]);
	cr_assert_eq(b.machine, EM_PPC64);
	free(e);
}

/* Real programs: /bin/true and its loader, the static wrapper. */
Test(binfmt, real_programs)
{
	struct binfmt b, l;

	tb_read("/bin/true", &b);
	cr_assert_eq(b.kind, BINFMT_ELF);
	cr_assert(b.interp, "/bin/true is dynamically linked");
	tb_read(b.interp_path, &l);
	cr_assert_eq(l.kind, BINFMT_ELF);
	cr_assert_eq(l.type, ET_DYN);
	cr_assert_not(l.interp, "%s is the loader", b.interp_path);
	cr_assert_eq(l.machine, b.machine);
	tb_read(TEST_WRAPPER, &b);
	cr_assert_eq(b.kind, BINFMT_ELF);
#ifndef TEST_SANITIZERS		/* a sanitizer build links the wrapper dynamically */
	cr_assert_not(b.interp, "the wrapper is static");
#endif
}
