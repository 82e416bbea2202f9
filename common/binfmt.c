/*
 * binfmt.c: an ELF header and a "#!" line, read as execve(2) reads them.
 * The rules are the kernel's (fs/binfmt_elf.c: load_elf_phdrs and the
 * PT_INTERP loop of load_elf_binary; fs/binfmt_script.c: load_script),
 * written again here: see binfmt.h.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "binfmt.h"
#include "err.h"

#define BINFMT_PHDRS_MAX	65536	/* the kernel's cap on a program header table */

/* Where a file's bytes come from: its first n at head, the rest through fd. */
struct binfmt_src {
	const unsigned char *head;
	size_t n;
	int fd;			/* or -1 */
	bool big;		/* the file is big-endian */
};

/* Where an ELF class keeps what is read here. */
struct binfmt_layout {
	size_t ehdr, phoff, phoff_size, phentsize, phnum;
	size_t phdr, p_offset, p_filesz, word;	/* word: the size of p_offset, p_filesz */
};

static const struct binfmt_layout binfmt_elf64 = {
	sizeof(Elf64_Ehdr), offsetof(Elf64_Ehdr, e_phoff), sizeof(Elf64_Off),
	offsetof(Elf64_Ehdr, e_phentsize), offsetof(Elf64_Ehdr, e_phnum),
	sizeof(Elf64_Phdr), offsetof(Elf64_Phdr, p_offset), offsetof(Elf64_Phdr, p_filesz),
	sizeof(Elf64_Xword)
};

static const struct binfmt_layout binfmt_elf32 = {
	sizeof(Elf32_Ehdr), offsetof(Elf32_Ehdr, e_phoff), sizeof(Elf32_Off),
	offsetof(Elf32_Ehdr, e_phentsize), offsetof(Elf32_Ehdr, e_phnum),
	sizeof(Elf32_Phdr), offsetof(Elf32_Phdr, p_offset), offsetof(Elf32_Phdr, p_filesz),
	sizeof(Elf32_Word)
};

/* Up to len bytes at off of fd, fewer only at its end; their count, or -1. */
static ssize_t
binfmt_pread(int fd, void *out, size_t len, off_t off)
{
	size_t got = 0;
	ssize_t k;

	while (got < len) {
		k = pread(fd, (char *)out + got, len - got, off + (off_t)got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0)
			break;
		got += (size_t)k;
	}
	return (ssize_t)got;
}

/* len bytes of the file at off: from head when they are there, else read. */
static int
binfmt_get(const struct binfmt_src *s, void *out, size_t len, uint64_t off)
{
	if (off <= s->n && len <= s->n - off) {
		memcpy(out, s->head + off, len);
		return 0;
	}
	if (s->fd < 0 || off > (uint64_t)INT64_MAX - len)
		return -1;
	return binfmt_pread(s->fd, out, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The unsigned integer of size bytes at p, in the file's byte order. */
static uint64_t
binfmt_uint(const struct binfmt_src *s, const unsigned char *p, size_t size)
{
	uint64_t v = 0;

	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)p[s->big ? size - 1 - i : i] << (8 * i);
	return v;
}

/* The interpreter's path, as the kernel takes it: 2 to PATH_MAX bytes
 * ending in its NUL; else the exec fails (ENOEXEC) and the path is "". */
static void
binfmt_interp_path(const struct binfmt_src *s, const struct binfmt_layout *l,
    const unsigned char *ph, struct binfmt *b)
{
	uint64_t off = binfmt_uint(s, ph + l->p_offset, l->word);
	uint64_t size = binfmt_uint(s, ph + l->p_filesz, l->word);

	b->interp_path[0] = '\0';
	if (size < 2 || size > PATH_MAX || binfmt_get(s, b->interp_path, size, off) != 0 ||
	    b->interp_path[size - 1] != '\0')
		b->interp_path[0] = '\0';
}

/* How many of k program headers of ent bytes at off to read now: all
 * of them, or without fd those in head. */
static size_t
binfmt_chunk(const struct binfmt_src *s, uint64_t off, size_t ent, size_t k)
{
	if (s->fd >= 0)
		return k;
	if (off > s->n)
		return 0;
	return (s->n - off) / ent < k ? (s->n - off) / ent : k;
}

/*
 * The first PT_INTERP, among program headers the kernel would read: each
 * of its class's size, at least one, their table at most BINFMT_PHDRS_MAX
 * bytes (load_elf_phdrs; else the exec fails with ENOEXEC).  Older
 * kernels also capped the table at a page: a larger one fails there
 * anyway, so the larger bound is the one that misses no interpreter.
 */
static void
binfmt_phdrs(const struct binfmt_src *s, const struct binfmt_layout *l, struct binfmt *b)
{
	uint64_t off = binfmt_uint(s, s->head + l->phoff, l->phoff_size);
	size_t ent = (size_t)binfmt_uint(s, s->head + l->phentsize, 2);
	size_t num = (size_t)binfmt_uint(s, s->head + l->phnum, 2);
	unsigned char tab[BINFMT_HEAD];	/* the headers, read this many bytes at a time */
	size_t per = sizeof(tab) / l->phdr, k;

	if (ent != l->phdr || num == 0 || num * ent > BINFMT_PHDRS_MAX || off > INT64_MAX)
		return;
	for (size_t i = 0; i < num && !b->interp; i += k) {
		if ((k = binfmt_chunk(s, off + i * ent, ent, num - i < per ? num - i : per)) == 0 ||
		    binfmt_get(s, tab, k * ent, off + i * ent) != 0)
			return;	/* the kernel fails the exec (EIO) */
		for (size_t j = 0; j < k && !b->interp; j++)
			if ((b->interp = binfmt_uint(s, tab + j * ent, 4) == PT_INTERP))
				binfmt_interp_path(s, l, tab + j * ent, b);
	}
}

/* An ELF header: magic, a known class and byte order, complete. */
static void
binfmt_elf(struct binfmt_src *s, struct binfmt *b)
{
	const unsigned char *h = s->head;
	const struct binfmt_layout *l;

	if (s->n < EI_NIDENT || memcmp(h, ELFMAG, SELFMAG) != 0 ||
	    (h[EI_DATA] != ELFDATA2LSB && h[EI_DATA] != ELFDATA2MSB))
		return;
	l = h[EI_CLASS] == ELFCLASS64 ? &binfmt_elf64 :
	    h[EI_CLASS] == ELFCLASS32 ? &binfmt_elf32 : NULL;
	if (l == NULL || s->n < l->ehdr)
		return;
	s->big = h[EI_DATA] == ELFDATA2MSB;
	b->kind = BINFMT_ELF;
	b->cls = h[EI_CLASS];
	b->data = h[EI_DATA];
	b->type = (uint16_t)binfmt_uint(s, h + offsetof(Elf64_Ehdr, e_type), 2);
	b->machine = (uint16_t)binfmt_uint(s, h + offsetof(Elf64_Ehdr, e_machine), 2);
	if (b->type == ET_EXEC || b->type == ET_DYN)	/* else ENOEXEC: nothing runs */
		binfmt_phdrs(s, l, b);
}

/* --- "#!" ------------------------------------------------------------- */

static bool
binfmt_blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The first of buf[from..to] that is not blank, or -1. */
static ssize_t
binfmt_nonblank(const char *buf, size_t from, size_t to)
{
	for (size_t i = from; i <= to; i++)
		if (!binfmt_blank(buf[i]))
			return (ssize_t)i;
	return -1;
}

/* The first of buf[from..to] that ends a name: a blank or a NUL; or -1. */
static ssize_t
binfmt_name_end(const char *buf, size_t from, size_t to)
{
	for (size_t i = from; i <= to; i++)
		if (binfmt_blank(buf[i]) || buf[i] == '\0')
			return (ssize_t)i;
	return -1;
}

/*
 * Where the line ends in buf[BINFMT_LINE]: its newline (looked for up to
 * the first NUL), or, without one, the buffer's last byte provided the
 * name is not cut short there (a blank or a NUL follows it).  -1: ENOEXEC.
 */
static ssize_t
binfmt_line_end(const char *buf)
{
	const char *nl = memchr(buf, '\n', strnlen(buf, BINFMT_LINE));
	ssize_t name;

	if (nl != NULL)
		return nl - buf;
	if ((name = binfmt_nonblank(buf, 2, BINFMT_LINE - 1)) < 0 ||
	    binfmt_name_end(buf, (size_t)name, BINFMT_LINE - 1) < 0)
		return -1;
	return BINFMT_LINE - 1;
}

/* Split the #! line at head as load_script does. */
static void
binfmt_script(const unsigned char *head, size_t n, struct binfmt *b)
{
	char buf[BINFMT_LINE] = { 0 };	/* as bprm->buf: NULs past a short file */
	ssize_t end, name, sep, arg = -1;

	memcpy(buf, head, n < sizeof(buf) ? n : sizeof(buf));
	if ((end = binfmt_line_end(buf)) < 0)
		return;
	while (end > 2 && binfmt_blank(buf[end - 1]))
		end--;
	if ((name = binfmt_nonblank(buf, 2, (size_t)end)) < 0 || name == end)
		return;
	if ((sep = binfmt_name_end(buf, (size_t)name, (size_t)end)) >= 0 && buf[sep] != '\0')
		arg = binfmt_nonblank(buf, (size_t)sep, (size_t)end);
	buf[end] = '\0';
	if (arg >= 0)
		buf[sep] = '\0';
	b->kind = BINFMT_SCRIPT;
	strcpy(b->script, buf + name);	/* both fit: at most BINFMT_LINE - 3 bytes */
	if ((b->has_arg = arg >= 0))
		strcpy(b->arg, buf + arg);
}

void
binfmt_parse(const void *head, size_t n, int fd, struct binfmt *b)
{
	struct binfmt_src s = { head, n, fd, false };

	memset(b, 0, sizeof(*b));
	if (n >= 2 && s.head[0] == '#' && s.head[1] == '!')
		binfmt_script(s.head, n, b);
	else
		binfmt_elf(&s, b);
}

int
binfmt_read(int fd, struct binfmt *b)
{
	unsigned char head[BINFMT_HEAD];
	ssize_t n = binfmt_pread(fd, head, sizeof(head), 0);

	if (n < 0)
		return SE_ERR_SYSTEM;
	binfmt_parse(head, (size_t)n, fd, b);
	return 0;
}
