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
 *  - both: either of the two; and where the kernel layer comes with it
 *    (the default mode, on a kernel that has the layer), a program neither
 *    can catch -- static, or of another architecture -- still runs: the
 *    layer decides every exec (c->kernel_needed: the layer is then
 *    required, cli_setup_sandbox_flags, so no session if it cannot be had
 *    after all).  A broken preload file is still refused: every process
 *    would carry the loader's warning.
 *  - kernel (asked for, with or without the others): never refused.
 * A refusal names the mode that would catch PROGRAM's execs.
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

#include "binfmt.h"
#include "cli.h"
#include "script.h"

#define CLI_PROBE_MARK "EXEC_WRAPPER"

/* What the file at path is (common/binfmt.h); 0, or -1 with errno. */
static int
cli_probe_read(const char *path, struct binfmt *b)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), r, saved;

	if (fd < 0)
		return -1;
	r = binfmt_read(fd, b);
	saved = errno;
	close(fd);
	errno = saved;
	return r == 0 ? 0 : -1;
}

/* The ELF file at path into *e: 0, or -1 with errno (ENOEXEC: not ELF). */
static int
cli_probe_elf(const char *path, struct binfmt *e)
{
	if (cli_probe_read(path, e) != 0)
		return -1;
	if (e->kind != BINFMT_ELF) {
		errno = ENOEXEC;
		return -1;
	}
	return 0;
}

/*
 * The file that will really run for PROGRAM at path (see above), into
 * out[PATH_MAX]; its ELF facts in *e, or ours for a script's script.
 * 0, or -1 with errno when it cannot be read.
 */
static int
cli_probe_target(const char *path, char *out, struct binfmt *e)
{
	strlcpy(out, path, PATH_MAX);
	if (cli_probe_read(path, e) != 0)
		return -1;
	if (e->kind == BINFMT_ELF)
		return 0;
	/* a #! line the kernel refuses fails with ENOEXEC: /bin/sh runs it */
	strlcpy(out, e->kind == BINFMT_SCRIPT ? e->script : SCRIPT_SHELL, PATH_MAX);
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

/* NULL when the preload can be loaded into t; else why not, and
 * *program: whether the reason is the program's (not the preload file's). */
static const char *
cli_probe_preload(const char *preload, const struct binfmt *t, char *why, size_t size,
    bool *program)
{
	struct binfmt p;

	*program = false;
	if (cli_probe_elf(preload, &p) != 0) {
		snprintf(why, size, "%s: %s", preload,
		    errno == ENOEXEC ? "not an ELF file" : strerror(errno));
		return why;
	}
	*program = true;
	if (p.type != ET_DYN) {
		*program = false;
		snprintf(why, size, "%s is not a shared library", preload);
	} else if (p.cls != t->cls || p.data != t->data || p.machine != t->machine)
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

/* The --mode words of c without the kernel layer, as the user spells them. */
static const char *
cli_probe_mode(const struct cli *c)
{
	unsigned i = c->o.intercept;

	if (c->o.kernel == CLI_KERNEL_AUTO)
		return "both";
	if ((i & SHELLESC_INTERCEPT_WRAPPER) && (i & SHELLESC_INTERCEPT_PRELOAD))
		return "wrapper,preload";
	return i & SHELLESC_INTERCEPT_PRELOAD ? "preload" : "wrapper";
}

/*
 * What to do instead: the preload for a dynamically linked program it was
 * not asked for; the kernel layer for one the preload cannot catch
 * (program: the preload's obstacle is the program's, static or of another
 * architecture, not the preload file's).
 */
static void
cli_probe_advise(const struct cli *c, const struct binfmt *t, bool program)
{
	bool pre = c->o.intercept & SHELLESC_INTERCEPT_PRELOAD;

	if (!pre && t->interp)
		cli_warnx("--mode preload or both catch a dynamically linked program");
	else if ((program || !pre) && shellesc_sandbox_kernel_avail())
		cli_warnx("--mode %s cannot see the execs of this program: use the default "
		    "mode or --mode kernel (their kernel layer decides every exec)",
		    cli_probe_mode(c));
}

int
cli_probe(struct cli *c, const char *preload)
{
	char target[PATH_MAX], why[PATH_MAX + 160];
	const char *nopre = NULL;
	char *shown = cli_show(c->program);
	bool wrap = c->o.intercept & SHELLESC_INTERCEPT_WRAPPER;
	bool pre = c->o.intercept & SHELLESC_INTERCEPT_PRELOAD, program = false;
	struct binfmt t;
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
	if (pre && (nopre = cli_probe_preload(preload, &t, why, sizeof(why), &program)) == NULL)
		goto out;
	if (wrap && cli_probe_marked(target))
		goto out;
	if (c->o.kernel == CLI_KERNEL_AUTO && program && shellesc_sandbox_kernel_avail()) {
		cli_debug(c, 1, "only the kernel layer catches the execs of %s (%s)",
		    shown ? shown : "PROGRAM", nopre);
		c->kernel_needed = true;
		goto out;
	}
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
	cli_probe_advise(c, &t, program);
	cli_warnx("refusing a session that would gate nothing; --force runs it anyway");
out:
	free(shown);
	return r;
}
