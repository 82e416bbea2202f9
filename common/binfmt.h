/*
 * binfmt.h: what execve(2) makes of a file, read off its first bytes as
 * the kernel reads them (fs/binfmt_elf.c, fs/binfmt_script.c), limits
 * included, so that what is decided on is what would run:
 *
 *  - an ELF file: its class, byte order, type and machine, and its program
 *    interpreter (PT_INTERP).  A program without one is static: no dynamic
 *    loader runs in it, so none reads LD_PRELOAD.
 *  - a "#!" line: the interpreter and its one optional argument, split as
 *    the kernel splits the first BINFMT_LINE bytes.  A line the kernel
 *    refuses (no name, a name cut short by that limit) is no script: the
 *    exec fails with ENOEXEC, and shells then run the file with /bin/sh.
 *
 * Malloc-free.  Errors as common/'s (err.h).
 */
#ifndef SHELLESC_BINFMT_H
#define SHELLESC_BINFMT_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BINFMT_LINE	256	/* BINPRM_BUF_SIZE: how much of a #! line the kernel reads */
#define BINFMT_HEAD	1024	/* read at once: the ELF header and nearly always its program headers */

enum binfmt_kind {
	BINFMT_OTHER,		/* neither: the exec fails with ENOEXEC */
	BINFMT_ELF,
	BINFMT_SCRIPT
};

struct binfmt {
	enum binfmt_kind kind;
	/* BINFMT_ELF; the fields decoded in the file's byte order */
	unsigned char cls;		/* ELFCLASS32 or ELFCLASS64 */
	unsigned char data;		/* ELFDATA2LSB or ELFDATA2MSB */
	uint16_t type;			/* ET_EXEC, ET_DYN, ... */
	uint16_t machine;
	bool interp;			/* a PT_INTERP among program headers the kernel
					 * reads (of an ET_EXEC or ET_DYN file) */
	char interp_path[PATH_MAX];	/* its path; "" where the kernel refuses it (ENOEXEC) */
	/* BINFMT_SCRIPT */
	char script[BINFMT_LINE];	/* the interpreter named ("" fails with ENOENT) */
	bool has_arg;			/* one argument follows (it can be "") */
	char arg[BINFMT_LINE];		/* it: the rest of the line, blanks at its ends trimmed */
};

/*
 * What the file open for reading at fd is: its first BINFMT_HEAD bytes
 * read once, program headers beyond them and the interpreter's path read
 * with pread(2).  0, or SE_ERR_SYSTEM (errno) when the first read fails.
 */
int binfmt_read(int fd, struct binfmt *b);

/*
 * The same for the file's first n bytes at head.  fd (or -1) reads what
 * lies beyond them; without it, an interpreter beyond them is found only
 * when its program header is in head, and its path is then "".
 */
void binfmt_parse(const void *head, size_t n, int fd, struct binfmt *b);

#endif /* SHELLESC_BINFMT_H */
