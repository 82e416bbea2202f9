/*
 * target.c: flagging targets that will run outside the preload's reach, so
 * the policy can deny or escalate them: statically linked executables (no
 * PT_INTERP, so no dynamic loader to load us) and set-id or
 * file-capability executables (the loader drops LD_PRELOAD for them).  For
 * a #! script the interpreter is what runs, so it is checked instead.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "preload.h"
#include "proto.h"

#define PL_PHDR_MAX 64

/* Program headers of an ELF file: any PT_INTERP? -1 when not ELF. */
static int
pl_elf_has_interp(int fd, const unsigned char *h, size_t n)
{
	bool is64 = h[EI_CLASS] == ELFCLASS64;
	size_t esz = is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr);
	unsigned char ph[PL_PHDR_MAX * sizeof(Elf64_Phdr)];
	const unsigned char *p = ph;
	uint64_t off;
	unsigned num;

	if (n < sizeof(Elf64_Ehdr) || memcmp(h, ELFMAG, SELFMAG) != 0)
		return -1;
	off = is64 ? ((const Elf64_Ehdr *)(const void *)h)->e_phoff :
	    ((const Elf32_Ehdr *)(const void *)h)->e_phoff;
	num = is64 ? ((const Elf64_Ehdr *)(const void *)h)->e_phnum :
	    ((const Elf32_Ehdr *)(const void *)h)->e_phnum;
	if (num > PL_PHDR_MAX)
		num = PL_PHDR_MAX;
	if (off <= n && esz * num <= n - off)
		p = h + off;	/* usual: right after the ELF header, already read */
	else if (pread(fd, ph, esz * num, (off_t)off) != (ssize_t)(esz * num))
		return -1;
	for (unsigned i = 0; i < num; i++) {
		uint32_t type;

		memcpy(&type, p + i * esz, sizeof(type));
		if (type == PT_INTERP)
			return 1;
	}
	return 0;
}

static unsigned pl_flags_of(const char *path, int depth);

/* "#!interp ..." -> the interpreter's flags. */
static unsigned
pl_script_flags(const unsigned char *h, size_t n, int depth)
{
	char interp[PATH_MAX];
	size_t i = 2, k = 0;

	while (i < n && (h[i] == ' ' || h[i] == '\t'))
		i++;
	while (i < n && k < sizeof(interp) - 1 && h[i] != ' ' && h[i] != '\t' && h[i] != '\n')
		interp[k++] = (char)h[i++];
	interp[k] = '\0';
	return k > 0 && depth < 2 ? pl_flags_of(interp, depth + 1) : 0;
}

static unsigned
pl_flags_of(const char *path, int depth)
{
	unsigned char h[1024];	/* the ELF header and, mostly, the program headers */
	unsigned flags = 0;
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);

	if (fd < 0)
		return 0;	/* unreadable: nothing to say */
	if (fstat(fd, &st) == 0 && (st.st_mode & (S_ISUID | S_ISGID)))
		flags |= SHELLESC_FLAG_SETID;
	if (fgetxattr(fd, "security.capability", NULL, 0) > 0)
		flags |= SHELLESC_FLAG_SETID;
	if ((n = pread(fd, h, sizeof(h), 0)) >= 2 && h[0] == '#' && h[1] == '!')
		flags = pl_script_flags(h, (size_t)n, depth);	/* set-id is ignored on scripts */
	else if (n > 0 && pl_elf_has_interp(fd, h, (size_t)n) == 0)
		flags |= SHELLESC_FLAG_STATIC;
	close(fd);
	return flags;
}

unsigned
pl_target_flags(const char *path)
{
	int saved = errno;
	unsigned flags = pl_flags_of(path, 0);

	errno = saved;
	return flags;
}
