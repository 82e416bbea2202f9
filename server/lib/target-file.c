/*
 * target-file.c: what one opened file is, read off the file itself: its
 * inode, its real path, whether the kernel would honour set-id bits or
 * file capabilities on it, and its first bytes -- an ELF header (with or
 * without a program interpreter, PT_INTERP) or a "#!" line, as the kernel
 * reads them (common/binfmt.c).
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

#include "binfmt.h"
#include "server.h"

/* What the ELF and #! facts are, as the kernel reads them. */
static void
target_format(int fd, struct target_file *f)
{
	struct binfmt b;

	if (binfmt_read(fd, &b) != 0)
		return;
	/* of another byte order, no ELF the kernel runs: only a binfmt_misc
	 * handler would (docs/security.md) */
	f->elf = b.kind == BINFMT_ELF &&
	    b.data == (BYTE_ORDER == LITTLE_ENDIAN ? ELFDATA2LSB : ELFDATA2MSB);
	f->dyn = f->elf && b.type == ET_DYN;
	f->interp = f->elf && b.interp;
	if ((f->script = b.kind == BINFMT_SCRIPT))
		snprintf(f->shebang, sizeof(f->shebang), "%s", b.script);
	if ((f->has_arg = f->script && b.has_arg))
		snprintf(f->arg, sizeof(f->arg), "%s", b.arg);
}

/*
 * Read the start of the file, opened anew for reading (an unreadable one
 * tells nothing), and its file capabilities.  Only a regular file is
 * opened: opening a device or a FIFO can block or act.
 */
static void
target_head(int opath, struct target_file *f, bool *caps)
{
	char self[64];
	int fd;

	snprintf(self, sizeof(self), "/proc/self/fd/%d", opath);
	if (!S_ISREG(f->st.st_mode) ||
	    (fd = open(self, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return;
	target_format(fd, f);
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
