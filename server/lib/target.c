/*
 * target.c: the file a request will run, opened and looked at by the
 * server itself (shellesc_request_target).  Nothing the client says about
 * the program is believed: the path it named is walked from the peer's
 * own root and working directory (walk.c), and what the policy learns --
 * real path, device and inode, set-id bits, file capabilities, linkage,
 * whether the sandboxed side could have changed it -- is read off that
 * open file (target-file.c).  An escalated command then executes that
 * very file (conn.c, spawn.c), so nothing can be swapped in between.
 *
 * For a #! script the interpreter is what the kernel loads: its set-id
 * bits and linkage are the script's facts, as the preload reports them,
 * and an interpreter the sandboxed side could have changed makes the
 * script as good as the sandbox's.
 *
 * Two kinds of program stand for another: the dynamic loader run directly
 * loads a program, which then is the target (target-loader.c), and a
 * multi-call binary (busybox, toybox) runs the applet its argv names,
 * which is reported beside it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server.h"

/* Interpreters followed: as many as the kernel loads (exec_binprm in
 * fs/exec.c: six binary formats in all, the file's own among them); past
 * them its exec fails (ELOOP). */
#define TARGET_SCRIPT_DEPTH	5

void
target_clear(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	free(t->path);
	free(t->why);
	free(t->shebangs);
	t->fd = -1;
	t->path = t->why = t->shebangs = NULL;
	t->shebangs_len = 0;
	t->pub.path = t->pub.writable = NULL;
	t->pub.facts = 0;
	target_chain_clear(t);
}

/* Could the sandboxed side have changed path (what: how it is involved)? */
static int
target_writable(struct target *t, const struct writer *wr, const char *path,
    const char *what)
{
	char *why = NULL;
	int r = writable_check(wr, path, &why);

	if (r == 0 || (t->pub.facts & SHELLESC_TARGET_WRITABLE)) {
		free(why);
		return r < 0 ? r : 0;
	}
	if (r < 0)
		r = asprintf(&t->why, "%s%s%s cannot be checked (%s)", what, what[0] ? " " : "",
		    path, strerror(-r));
	else if (what[0] != '\0')
		r = asprintf(&t->why, "%s %s: %s", what, path, why);
	else
		t->why = why, why = NULL;
	free(why);
	if (r < 0)
		return -ENOMEM;
	t->pub.facts |= SHELLESC_TARGET_WRITABLE;
	t->pub.writable = t->why;
	return 0;
}

/*
 * A file with no path -- a memfd, an O_TMPFILE file, a deleted one -- is
 * one the caller may have written: nothing outside it names the file, so
 * nothing but the caller's own fd vouches for what it holds.
 */
static int
target_anonymous(struct target *t)
{
	if ((t->why = strdup("it has no path (a memfd or another anonymous or deleted "
	    "file, which the caller could have written)")) == NULL)
		return -ENOMEM;
	t->pub.facts |= SHELLESC_TARGET_WRITABLE;
	t->pub.writable = t->why;
	return 0;
}

/* st is the ELF the kernel will load. */
static void
target_runs(struct target *t, const struct stat *st)
{
	t->runs_known = true;
	t->runs_dev = st->st_dev;
	t->runs_ino = st->st_ino;
}

/*
 * The words the #! line of f puts in the argv the kernel makes, before
 * those of the lines read so far (the kernel reads the script, then its
 * interpreter: each one's line goes in front).  0 or -ENOMEM.
 */
static int
target_shebang(struct target *t, const struct target_file *f)
{
	size_t n = strlen(f->shebang) + 1, a = f->has_arg ? strlen(f->arg) + 1 : 0;
	char *p = malloc(n + a + t->shebangs_len);

	if (p == NULL)
		return -ENOMEM;
	memcpy(p, f->shebang, n);
	memcpy(p + n, f->arg, a);
	if (t->shebangs_len > 0)
		memcpy(p + n + a, t->shebangs, t->shebangs_len);
	free(t->shebangs);
	t->shebangs = p;
	t->shebangs_len += n + a;
	return 0;
}

static bool target_is_loader(const struct target_file *f);

/* A script's interpreter, named in its #! line (from, the file naming it):
 * its facts are the script's, and it is a link of the chain. */
static int
target_interp(struct target *t, struct peer *p, const struct target_file *from,
    const struct writer *wr, int depth)
{
	const char *name = from->shebang;
	struct target_file f;
	int fd, r;

	if (name[0] == '\0' || walk_open(p, name, &fd) != 0)
		return 0;	/* the exec fails: nothing will run */
	if ((r = target_file_read(fd, &f)) == 0 &&
	    (r = target_chain_add(t, name, from->has_arg ? from->arg : NULL,
	    &f, target_is_loader(&f))) == 0) {
		if (f.elf)
			target_runs(t, &f.st);
		if (f.elf && !f.interp)
			t->pub.facts |= SHELLESC_TARGET_STATIC;
		if (f.setid)
			t->pub.facts |= SHELLESC_TARGET_SETID;
		if (f.path != NULL)
			r = target_writable(t, wr, f.path, "its interpreter");
		if (r == 0 && f.script && depth < TARGET_SCRIPT_DEPTH &&
		    (r = target_shebang(t, &f)) == 0)
			r = target_interp(t, p, &f, wr, depth + 1);
	}
	free(f.path);
	close(fd);
	return r;
}

/* The dynamic loader: ld-linux*.so*, ld64.so.*, ld.so*, ld-musl-*.so.*,
 * ld-2.31.so: a shared object without interpreter, called ld*.so*. */
static bool
target_is_loader(const struct target_file *f)
{
	const char *slash = f->path ? strrchr(f->path, '/') : NULL;

	return f->elf && f->dyn && !f->interp && slash != NULL &&
	    strncmp(slash + 1, "ld", 2) == 0 && strstr(slash + 1, ".so") != NULL;
}

int
target_take(struct target *t, struct peer *p, int fd, const struct writer *wr)
{
	struct target_file f;
	int r;

	target_clear(t);
	t->fd = fd;
	if ((r = target_file_read(fd, &f)) != 0)
		return r;
	t->pub.dev = f.st.st_dev;
	t->pub.ino = f.st.st_ino;
	t->pub.mode = f.st.st_mode;
	t->pub.uid = f.st.st_uid;
	t->pub.gid = f.st.st_gid;
	t->pub.path = t->path = f.path;
	t->elf = f.elf;
	t->runs_known = false;
	if (f.elf)
		target_runs(t, &f.st);
	t->loader = target_is_loader(&f);
	t->pub.facts = (f.script ? SHELLESC_TARGET_SCRIPT : 0) |
	    (f.elf && !f.interp ? SHELLESC_TARGET_STATIC : 0) |
	    (f.setid ? SHELLESC_TARGET_SETID : 0);
	if (t->path != NULL && (r = target_writable(t, wr, t->path, "")) != 0)
		return r;
	if (f.script && (r = target_shebang(t, &f)) != 0)
		return r;
	if (t->path == NULL && (r = target_anonymous(t)) != 0)
		return r;
	return f.script ? target_interp(t, p, &f, wr, 1) : 0;
}

/* Basename of path starts with prefix. */
static bool
target_named(const char *path, const char *prefix)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash != NULL && strncmp(slash + 1, prefix, strlen(prefix)) == 0;
}

/* A multi-call binary runs the applet argv[0] names, or "busybox APPLET". */
static void
target_applet(struct target *t)
{
	static const char *const multi[] = { "busybox", "toybox" };
	char *const *argv = t->pub.argv;
	const char *name;

	for (size_t i = 0; i < sizeof(multi) / sizeof(multi[0]); i++) {
		if (!target_named(t->path, multi[i]) || argv[0] == NULL)
			continue;
		name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
		t->pub.applet_argi = 1;
		if (strncmp(name, multi[i], strlen(multi[i])) == 0) {
			name = argv[1] != NULL && argv[1][0] != '-' ? argv[1] : NULL;
			t->pub.applet_argi = 2;
		}
		t->pub.applet = name != NULL && name[0] != '\0' ? name : NULL;
		return;
	}
}

void
target_inspect(struct target *t, struct peer *p, const struct msg_exec *ex,
    const struct writer *wr)
{
	int fd, r;

	t->pub.argv = ex->argv;
	t->pub.argc = ex->argc;
	if ((r = walk_open(p, ex->file, &fd)) != 0 || (r = target_take(t, p, fd, wr)) != 0 ||
	    (t->loader && (r = target_loader(t, p, ex, wr)) != 0)) {
		target_clear(t);
		t->pub.error = -r;
		return;
	}
	if (!t->pub.loader)
		t->named = ex->file;
	/* the chain gets the script's arguments as given, argv[0] aside */
	if ((r = target_chain(t, p)) != 0 || (r = target_argv0(t)) != 0) {
		target_clear(t);
		t->pub.error = -r;
		return;
	}
	target_applet(t);
}

void
target_free(struct target *t)
{
	target_clear(t);
	free(t->argv);
	free(t->loader_path);
	t->argv = NULL;
	t->loader_path = NULL;
}
