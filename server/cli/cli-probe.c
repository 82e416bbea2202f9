/*
 * cli-probe.c: before run starts a session, whether its mode can catch
 * PROGRAM's execs at all.  A session that catches nothing looks exactly
 * like one whose rules allowed everything, so run refuses it (125) unless
 * --force.  Nothing is executed: the probes read files.
 *
 * What runs is PROGRAM itself when it is an ELF file; for a #! script its
 * interpreter (one level: an interpreter that is itself a script is taken
 * as a program of shellesc's own architecture); for a file without #!,
 * /bin/sh, as run starts it.
 *
 *  - preload: the preload library is an ELF shared object of the class and
 *    machine of what runs, and what runs is dynamically linked (has an
 *    interpreter): the dynamic loader would load it.
 *  - wrapper: what runs names EXEC_WRAPPER in its file (the patched shells
 *    read the variable; Debian's stock shells do not contain the name).
 *  - both: either of the two.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "script.h"

#define CLI_PROBE_MARK "EXEC_WRAPPER"

/* What the probes need to know of an ELF file. */
struct cli_elf {
	unsigned char cls;	/* ELFCLASS32 or ELFCLASS64 */
	unsigned char data;	/* ELFDATA2LSB or ELFDATA2MSB */
	uint16_t machine;
	uint16_t type;		/* ET_EXEC, ET_DYN */
	bool interp;		/* has a PT_INTERP: the dynamic loader runs it */
};

/* Read exactly n bytes at off; 0, or -1 (short: errno ENOEXEC). */
static int
cli_probe_read(int fd, void *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r == 0)
				errno = ENOEXEC;
			return -1;
		}
		got += (size_t)r;
	}
	return 0;
}

/* Whether one of the file's program headers is a PT_INTERP (p_type is
 * the first word of a header in both classes). */
static bool
cli_probe_interp(int fd, uint64_t off, unsigned n, unsigned size)
{
	uint32_t type;

	for (unsigned i = 0; i < n && i < 256; i++)
		if (cli_probe_read(fd, &type, sizeof(type), (off_t)(off + (uint64_t)i * size)) == 0 &&
		    type == PT_INTERP)
			return true;
	return false;
}

/* The ELF facts of the file at fd: 0, or -1 with errno (ENOEXEC: not ELF). */
static int
cli_probe_elf_fd(int fd, struct cli_elf *e)
{
	union { Elf64_Ehdr h64; Elf32_Ehdr h32; unsigned char id[EI_NIDENT]; } u;

	memset(&u, 0, sizeof(u));
	if (cli_probe_read(fd, u.id, EI_NIDENT, 0) != 0 || memcmp(u.id, ELFMAG, SELFMAG) != 0 ||
	    (u.id[EI_CLASS] != ELFCLASS32 && u.id[EI_CLASS] != ELFCLASS64)) {
		errno = ENOEXEC;
		return -1;
	}
	e->cls = u.id[EI_CLASS];
	e->data = u.id[EI_DATA];
	if (cli_probe_read(fd, &u, e->cls == ELFCLASS64 ? sizeof(u.h64) : sizeof(u.h32), 0) != 0)
		return -1;
	/* a file of the other byte order differs in machine anyway */
	e->machine = e->cls == ELFCLASS64 ? u.h64.e_machine : u.h32.e_machine;
	e->type = e->cls == ELFCLASS64 ? u.h64.e_type : u.h32.e_type;
	e->interp = e->cls == ELFCLASS64 ?
	    cli_probe_interp(fd, u.h64.e_phoff, u.h64.e_phnum, u.h64.e_phentsize) :
	    cli_probe_interp(fd, u.h32.e_phoff, u.h32.e_phnum, u.h32.e_phentsize);
	return 0;
}

static int
cli_probe_elf(const char *path, struct cli_elf *e)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r, saved;

	if (fd < 0)
		return -1;
	r = cli_probe_elf_fd(fd, e);
	saved = errno;
	close(fd);
	errno = saved;
	return r;
}

/* The interpreter a #! line names, into out[PATH_MAX]; 0, or -1 (no #!). */
static int
cli_probe_shebang(const char *path, char *out)
{
	char line[256];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t a, b;

	if (fd < 0)
		return -1;
	while ((n = read(fd, line, sizeof(line) - 1)) < 0 && errno == EINTR)
		;
	close(fd);
	if (n < 2 || line[0] != '#' || line[1] != '!')
		return -1;
	line[n] = '\0';
	a = 2 + strspn(line + 2, " \t");
	b = a + strcspn(line + a, " \t\n");
	if (b == a || b - a >= PATH_MAX)
		return -1;
	memcpy(out, line + a, b - a);
	out[b - a] = '\0';
	return 0;
}

/*
 * The file that will really run for PROGRAM at path (see above), into
 * out[PATH_MAX]; its ELF facts in *e, or ours for a script's script.
 * 0, or -1 with errno when it cannot be read.
 */
static int
cli_probe_target(const char *path, char *out, struct cli_elf *e)
{
	strlcpy(out, path, PATH_MAX);
	if (cli_probe_elf(out, e) == 0)
		return 0;
	if (errno != ENOEXEC)
		return -1;
	if (cli_probe_shebang(path, out) != 0)
		strlcpy(out, SCRIPT_SHELL, PATH_MAX);
	if (cli_probe_elf(out, e) == 0)
		return 0;
	return cli_probe_elf("/proc/self/exe", e);
}

/* Whether the file at path holds the bytes of CLI_PROBE_MARK. */
static bool
cli_probe_marked(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *m = MAP_FAILED;
	bool found = false;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (m != MAP_FAILED) {
		found = memmem(m, (size_t)st.st_size, CLI_PROBE_MARK,
		    sizeof(CLI_PROBE_MARK) - 1) != NULL;
		munmap(m, (size_t)st.st_size);
	}
	if (fd >= 0)
		close(fd);
	return found;
}

/* NULL when the preload can be loaded into t; else why not. */
static const char *
cli_probe_preload(const char *preload, const struct cli_elf *t, char *why, size_t size)
{
	struct cli_elf p;

	if (cli_probe_elf(preload, &p) != 0) {
		snprintf(why, size, "%s: %s", preload,
		    errno == ENOEXEC ? "not an ELF file" : strerror(errno));
		return why;
	}
	if (p.type != ET_DYN)
		snprintf(why, size, "%s is not a shared library", preload);
	else if (p.cls != t->cls || p.data != t->data || p.machine != t->machine)
		snprintf(why, size, "%s is built for another architecture "
		    "(ELF class %d, machine %d; the program's: class %d, machine %d)",
		    preload, p.cls, p.machine, t->cls, t->machine);
	else if (!t->interp)
		snprintf(why, size, "the program is statically linked: "
		    "no dynamic loader reads LD_PRELOAD");
	else
		return NULL;
	return why;
}

int
cli_probe(const struct cli *c, const char *preload)
{
	char target[PATH_MAX], why[PATH_MAX + 160];
	const char *nopre = NULL;
	char *shown = cli_show(c->program);
	bool wrap = c->o.intercept & SHELLESC_INTERCEPT_WRAPPER;
	bool pre = c->o.intercept & SHELLESC_INTERCEPT_PRELOAD;
	struct cli_elf t;
	int r = 0;

	/* asked for, the kernel layer decides every exec, or there is no session */
	if (c->o.kernel == CLI_KERNEL_ON) {
		free(shown);
		return 0;
	}
	if (cli_probe_target(c->program, target, &t) != 0) {
		cli_warn("cannot read %s", shown ? shown : "PROGRAM");
		free(shown);
		return -1;
	}
	if (pre && (nopre = cli_probe_preload(preload, &t, why, sizeof(why))) == NULL)
		goto out;
	if (wrap && cli_probe_marked(target))
		goto out;
	if (c->o.force) {
		cli_debug(c, 1, "--force: %s may not be gated in this mode (%s)",
		    shown ? shown : "PROGRAM", nopre ? nopre : "no EXEC_WRAPPER in it");
		goto out;
	}
	r = -1;
	if (nopre)
		cli_warnx("the preload library cannot catch the execs of %s: %s",
		    shown ? shown : "PROGRAM", nopre);
	if (wrap)
		cli_warnx("%s%s does not honour EXEC_WRAPPER (a shell patched for it does: "
		    "see patches/ in shellesc's source)", strcmp(target, c->program) == 0 ?
		    "" : "the interpreter ", target);
	cli_warnx("refusing a session that would gate nothing%s; --force runs it anyway",
	    pre ? "" : " (--mode preload or both catch a dynamically linked program)");
out:
	free(shown);
	return r;
}
