/*
 * target-file.c: what one opened file is, read off the file itself: its
 * inode, its real path, whether the kernel would honour set-id bits or
 * file capabilities on it, and its first bytes -- an ELF header (with or
 * without a program interpreter, PT_INTERP) or a "#!" line.
 */
#include "config.h"

#include <elf.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "server.h"

#define TARGET_HEAD		1024	/* the ELF header and, nearly always, the program headers */
#define TARGET_MAX_PHDRS	512	/* more is no program the kernel would load */
#define TARGET_SHEBANG_MAX	256	/* the kernel reads a #! line that far (BINPRM_BUF_SIZE) */

static int
target_pread(int fd, void *buf, size_t n, off_t off)
{
	ssize_t k;

	do
		k = pread(fd, buf, n, off);
	while (k < 0 && errno == EINTR);
	return k == (ssize_t)n ? 0 : -1;
}

/* Is there a PT_INTERP among the phnum headers of size ent at off? */
static bool
target_has_interp(int fd, const unsigned char *head, size_t n, uint64_t off,
    size_t phnum, size_t ent, size_t type_at)
{
	unsigned char *ph = NULL;
	const unsigned char *at = head + off;
	bool found = false;
	uint32_t type;

	if (phnum == 0 || phnum > TARGET_MAX_PHDRS || ent < type_at + sizeof(type) ||
	    ent > 4096)
		return false;
	if (off > n || phnum * ent > n - off) {
		if ((ph = malloc(phnum * ent)) == NULL ||
		    target_pread(fd, ph, phnum * ent, (off_t)off) != 0) {
			free(ph);
			return false;
		}
		at = ph;
	}
	for (size_t i = 0; i < phnum && !found; i++) {
		memcpy(&type, at + i * ent + type_at, sizeof(type));
		found = type == PT_INTERP;
	}
	free(ph);
	return found;
}

static void
target_elf(int fd, const unsigned char *h, size_t n, struct target_file *f)
{
	Elf64_Ehdr e64;
	Elf32_Ehdr e32;

	if (n < EI_NIDENT || memcmp(h, ELFMAG, SELFMAG) != 0 ||
	    h[EI_DATA] != (BYTE_ORDER == LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB))
		return;
	if (h[EI_CLASS] == ELFCLASS64 && n >= sizeof(e64)) {
		memcpy(&e64, h, sizeof(e64));
		f->elf = true;
		f->dyn = e64.e_type == ET_DYN;
		f->interp = target_has_interp(fd, h, n, e64.e_phoff, e64.e_phnum,
		    e64.e_phentsize, offsetof(Elf64_Phdr, p_type));
	} else if (h[EI_CLASS] == ELFCLASS32 && n >= sizeof(e32)) {
		memcpy(&e32, h, sizeof(e32));
		f->elf = true;
		f->dyn = e32.e_type == ET_DYN;
		f->interp = target_has_interp(fd, h, n, e32.e_phoff, e32.e_phnum,
		    e32.e_phentsize, offsetof(Elf32_Phdr, p_type));
	}
}

/* "#!  /path/interp arg": the interpreter, as the kernel takes it. */
static void
target_shebang(const unsigned char *h, size_t n, struct target_file *f)
{
	size_t i = 2, k = 0;

	f->script = true;
	if (n > TARGET_SHEBANG_MAX)
		n = TARGET_SHEBANG_MAX;
	while (i < n && (h[i] == ' ' || h[i] == '\t'))
		i++;
	while (i < n && k < sizeof(f->shebang) - 1 && h[i] != ' ' && h[i] != '\t' &&
	    h[i] != '\n' && h[i] != '\0')
		f->shebang[k++] = (char)h[i++];
	f->shebang[k] = '\0';
}

/*
 * Read the start of the file, opened anew for reading (an unreadable one
 * tells nothing), and its file capabilities.  Only a regular file is
 * opened: opening a device or a FIFO can block or act.
 */
static void
target_head(int opath, struct target_file *f, bool *caps)
{
	unsigned char h[TARGET_HEAD];
	char self[64];
	ssize_t n;
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", opath);
	if (!S_ISREG(f->st.st_mode) ||
	    (fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return;
	do
		n = pread(fd, h, sizeof(h), 0);
	while (n < 0 && errno == EINTR);
	if (n >= 2 && h[0] == '#' && h[1] == '!')
		target_shebang(h, (size_t)n, f);
	else if (n > 0)
		target_elf(fd, h, (size_t)n, f);
	*caps = fgetxattr(fd, "security.capability", NULL, 0) >= 0;
	close(fd);
}

/* The file's path, if it has one that names it in our view. */
static char *
target_realpath(int fd, const struct stat *st)
{
	char self[64], buf[PATH_MAX];
	struct stat now;
	ssize_t n;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (st->st_nlink == 0 || (n = readlink(self, buf, sizeof(buf) - 1)) <= 0)
		return NULL;
	buf[n] = '\0';
	if (buf[0] != '/' || stat(buf, &now) != 0 || now.st_dev != st->st_dev ||
	    now.st_ino != st->st_ino)
		return NULL;
	return strdup(buf);
}

static bool
target_nosuid(int fd)
{
	struct statvfs vfs;

	return fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_NOSUID);
}

int
target_file_read(int fd, struct target_file *f)
{
	bool caps = false;

	memset(f, 0, sizeof(*f));
	if (fstat(fd, &f->st) != 0)
		return -errno;
	f->path = target_realpath(fd, &f->st);
	target_head(fd, f, &caps);
	/* set-gid needs group execute (without, it marks mandatory locking);
	 * the kernel ignores set-id bits on scripts and on nosuid mounts */
	f->setid = S_ISREG(f->st.st_mode) && !f->script && ((f->st.st_mode & S_ISUID) ||
	    ((f->st.st_mode & S_ISGID) && (f->st.st_mode & S_IXGRP)) || caps) &&
	    !target_nosuid(fd);
	return 0;
}
