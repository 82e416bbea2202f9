/*
 * test-preload-entry.c: suite preload_entry -- every interposed entry point
 * of libshellesc_preload.so, called by a real program under a real session:
 * run, deny (return value and errno exactly), escalate (exit code and death
 * by a signal mirrored to the caller), programs that cannot run (answered
 * without asking), and the flags a request carries for targets the preload
 * cannot follow (static, set-id, file capabilities).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/preload.h"

/* The expected outputs below spell these numbers out. */
_Static_assert(EACCES == 13 && ENOENT == 2 && SIGTERM == 15, "Linux errno and signal numbers");

static struct tpol tp;
static struct shellesc_session *s;

/* How an entry point reports (see exec-probe.c). */
enum kind { K_EXEC, K_SPAWN, K_SYSTEM, K_POPEN, NKIND };

static const struct entry {
	const char *name;
	enum kind kind;
	const char *file;	/* "sh" is searched for in PATH */
} entries[] = {
	{ "execve", K_EXEC, "/bin/sh" },
	{ "execv", K_EXEC, "/bin/sh" },
	{ "execvp", K_EXEC, "sh" },
	{ "execvpe", K_EXEC, "sh" },
	{ "execl", K_EXEC, "/bin/sh" },
	{ "execle", K_EXEC, "/bin/sh" },
	{ "execlp", K_EXEC, "sh" },
	{ "fexecve", K_EXEC, "/bin/sh" },
	{ "execveat", K_EXEC, "/bin/sh" },
	{ "posix_spawn", K_SPAWN, "/bin/sh" },
	{ "posix_spawnp", K_SPAWN, "sh" },
	{ "system", K_SYSTEM, "/bin/sh" },
	{ "popen", K_POPEN, "/bin/sh" },
};
#define NE (sizeof(entries) / sizeof(entries[0]))

/* What each kind of entry point shows for one scenario. */
struct want {
	int code, sig;
	const char *out;
};

static const struct scenario {
	const char *name;
	enum shellesc_action action;
	const char *cmd;	/* sh -c CMD */
	int ended_code, ended_sig;	/* of the escalated command */
	struct want want[NKIND];
} scens[] = {
	{ "run", SHELLESC_RUN, "echo ran; exit 42", 0, 0, {
	    [K_EXEC] = { 42, 0, "ran\n" },
	    [K_SPAWN] = { 0, 0, "ran\nret=0 errno=1234 exit=42\n" },
	    [K_SYSTEM] = { 0, 0, "ran\nexit=42\n" },
	    [K_POPEN] = { 0, 0, "ran\nexit=42\n" } } },
	/* exec*: -1/EACCES; posix_spawn*: return EACCES, errno untouched;
	 * system: the shell "could not run" (127 << 8); popen: NULL/EACCES. */
	{ "deny", SHELLESC_DENY, "echo ran; exit 42", 0, 0, {
	    [K_EXEC] = { 99, 0, "ret=-1 errno=13\n" },
	    [K_SPAWN] = { 0, 0, "ret=13 errno=1234\n" },
	    [K_SYSTEM] = { 0, 0, "exit=127\n" },
	    [K_POPEN] = { 0, 0, "ret=NULL errno=13\n" } } },
	{ "escalate", SHELLESC_ESCALATE, "echo ran; exit 42", 42, 0, {
	    [K_EXEC] = { 42, 0, "ran\n" },
	    [K_SPAWN] = { 0, 0, "ran\nret=0 errno=1234 exit=42\n" },
	    [K_SYSTEM] = { 0, 0, "ran\nexit=42\n" },
	    [K_POPEN] = { 0, 0, "ran\nexit=42\n" } } },
	/* From exec*, the caller itself dies of the signal. */
	{ "escalate, killed", SHELLESC_ESCALATE, "kill -TERM $$", -1, SIGTERM, {
	    [K_EXEC] = { 0, SIGTERM, "" },
	    [K_SPAWN] = { 0, 0, "ret=0 errno=1234 signal=15\n" },
	    [K_SYSTEM] = { 0, 0, "signal=15\n" },
	    [K_POPEN] = { 0, 0, "signal=15\n" } } },
};
#define NS (sizeof(scens) / sizeof(scens[0]))

/* The program the policy sees for e: searched, or named through an fd. */
static const char *
entry_program(const struct entry *e, char *buf)
{
	char dir[PATH_MAX], base[PATH_MAX];

	if (strchr(e->file, '/') == NULL)
		snprintf(buf, PATH_MAX, "/usr/bin/%s", e->file);	/* ts_env's PATH */
	else if (strcmp(e->name, "fexecve") == 0)
		cr_assert_not_null(realpath(e->file, buf));
	else if (strcmp(e->name, "execveat") == 0) {
		snprintf(base, sizeof(base), "%s", e->file);
		cr_assert_not_null(realpath(dirname(strcpy(dir, e->file)), buf));
		strcat(strcat(buf, "/"), basename(base));
	} else
		strcpy(buf, e->file);
	return buf;
}

static void
check_request(const struct entry *e, const struct scenario *sc)
{
	char program[PATH_MAX];

	cr_assert_eq(tp.seen, 1, "%s: exactly one decision, not %d", e->name, tp.seen);
	cr_assert_str_eq(tp.program, entry_program(e, program));
	cr_assert_eq(tp.argc, 3);
	cr_assert_str_eq(tp.argv[0], "sh");
	cr_assert_str_eq(tp.argv[1], "-c");
	cr_assert_str_eq(tp.argv[2], sc->cmd);
	if (sc->action != SHELLESC_ESCALATE) {
		cr_assert_eq(tp.ended, 0, "nothing was escalated");
		return;
	}
	ts_wait(&tp, &tp.ended, 1, 5000);
	cr_assert_eq(tp.ended_code, sc->ended_code);
	cr_assert_eq(tp.ended_sig, sc->ended_sig);
}

ParameterizedTestParameters(preload_entry, each)
{
	return ts_indexes(NE * NS);
}

/* exec-probe ENTRY FILE sh -c CMD, under the scenario's policy. */
ParameterizedTest(size_t *i, preload_entry, each, .timeout = TS_TIMEOUT)
{
	const struct entry *e = &entries[*i / NS];
	const struct scenario *sc = &scens[*i % NS];
	const struct want *w = &sc->want[e->kind];
	char what[128];
	struct tp_out o;

	snprintf(what, sizeof(what), "%s, %s", e->name, sc->name);
	s = tp_start(&tp, sc->action, 0);
	tp_run(s, true, tp_action_name(sc->action), NULL, NULL,
	    (const char *const[]){ TP_T, e->name, e->file, "sh", "-c", sc->cmd, NULL }, &o);
	tp_check(&o, w->code, w->sig, w->out, sc->action == SHELLESC_DENY ? TP_DENIED : "", what);
	check_request(e, sc);
	tp_out_free(&o);
	ts_end(s, &tp);
}

/*
 * What could not run anyway is answered as the kernel would, without a
 * decision: the policy (deny) never hears of it and nothing is printed.
 */
static const struct unrunnable {
	const char *file;
	const char *exec_out, *spawn_out;
} unrunnables[] = {
	{ "/nonexistent/shellesc-prog", "ret=-1 errno=2\n", "ret=2 errno=1234\n" },
	{ "/etc/passwd", "ret=-1 errno=13\n", "ret=13 errno=1234\n" },	/* not executable */
	{ "/tmp", "ret=-1 errno=13\n", "ret=13 errno=1234\n" },		/* a directory */
};
#define NU (sizeof(unrunnables) / sizeof(unrunnables[0]))
#define NE_DIRECT (NE - 2)	/* system and popen always run /bin/sh */

ParameterizedTestParameters(preload_entry, unrunnable_not_decided)
{
	return ts_indexes(NE_DIRECT * NU);
}

ParameterizedTest(size_t *i, preload_entry, unrunnable_not_decided, .timeout = TS_TIMEOUT)
{
	const struct entry *e = &entries[*i / NU];
	const struct unrunnable *u = &unrunnables[*i % NU];
	bool spawn = e->kind == K_SPAWN;
	char what[128];
	struct tp_out o;

	snprintf(what, sizeof(what), "%s %s", e->name, u->file);
	s = tp_start(&tp, SHELLESC_DENY, 0);
	tp_run(s, true, "deny", NULL, NULL,
	    (const char *const[]){ TP_T, e->name, u->file, "prog", NULL }, &o);
	tp_check(&o, spawn ? 0 : 99, 0, spawn ? u->spawn_out : u->exec_out, "", what);
	cr_assert_eq(tp.seen, 0, "%s was decided", what);
	tp_out_free(&o);
	ts_end(s, &tp);
}

/* --- flags for targets the preload cannot follow ------------------------ */

static const struct flagcase {
	const char *name;
	const char *file;	/* made in a fresh directory; "@..." a given path */
	const char *text;	/* the file's text; NULL: a copy of /bin/true */
	mode_t mode;
	bool caps;		/* give it file capabilities */
	unsigned flags;
	int code;
} flagcases[] = {
	{ "dynamic", "@" TEST_EXEC_PROBE, .code = 0 },
	{ "static", "@" TEST_STATIC_PROBE, .flags = SHELLESC_TARGET_STATIC, .code = 7 },
	{ "script for a static interpreter", "static.sh", "#!" TEST_STATIC_PROBE "\n", 0755,
	  .flags = SHELLESC_TARGET_STATIC, .code = 7 },
	{ "script for a dynamic interpreter", "dynamic.sh", "#!/bin/sh\nexit 3\n", 0755, .code = 3 },
	{ "set-uid", "suid-true", NULL, 04755, .flags = SHELLESC_TARGET_SETID },
	{ "set-gid", "sgid-true", NULL, 02755, .flags = SHELLESC_TARGET_SETID },
	{ "file capabilities", "cap-true", NULL, 0755, true, .flags = SHELLESC_TARGET_SETID },
	{ "set-uid script (the kernel ignores it)", "suid.sh", "#!/bin/sh\nexit 3\n", 04755, .code = 3 },
};
#define NF (sizeof(flagcases) / sizeof(flagcases[0]))

static void
copy_true(const char *path, mode_t mode)
{
	char buf[65536];
	int in = open("/bin/true", O_RDONLY), out = open(path, O_WRONLY | O_CREAT | O_EXCL, 0700);
	ssize_t n;

	cr_assert(in >= 0 && out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		cr_assert_eq(write(out, buf, (size_t)n), n);
	close(in);
	close(out);
	cr_assert_eq(chmod(path, mode), 0);
}

/* CAP_NET_BIND_SERVICE, permitted and effective: any capability sets the flag. */
static bool
give_caps(const char *path)
{
	struct vfs_cap_data cap = { .magic_etc = VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE };

	cap.data[0].permitted = 1u << CAP_NET_BIND_SERVICE;
	return setxattr(path, "security.capability", &cap, XATTR_CAPS_SZ_2, 0) == 0;
}

/* The target's path, or NULL when this machine cannot make it. */
static const char *
make_target(const struct flagcase *f, const char *dir, char *path)
{
	if (f->file[0] == '@')
		return f->file + 1;
	snprintf(path, PATH_MAX, "%s/%s", dir, f->file);
	if (f->text)
		th_put(dir, f->file, f->text, f->mode);
	else
		copy_true(path, f->mode);
	return f->caps && !give_caps(path) ? NULL : path;
}

ParameterizedTestParameters(preload_entry, target_flags)
{
	return ts_indexes(NF);
}

/* The server finds each target's facts itself; the preload claims none
 * (it used to open the file for them: five system calls an exec). */
ParameterizedTest(size_t *i, preload_entry, target_flags, .timeout = TS_TIMEOUT)
{
	const struct flagcase *f = &flagcases[*i];
	char *dir, path[PATH_MAX];
	const char *file;
	struct tp_out o;

	s = tp_start(&tp, SHELLESC_RUN, 0);
	dir = th_tmpdir();
	if ((file = make_target(f, dir, path)) == NULL) {
		th_rmtree(dir);
		ts_end(s, &tp);
		cr_skip_test("cannot set file capabilities here (not root, or no xattrs)");
	}
	tp_run(s, true, "run", NULL, NULL, (const char *const[]){ TP_T, "execv", file, file, NULL }, &o);
	tp_check(&o, f->code, 0, NULL, "", f->name);
	cr_assert_eq(tp.seen, 1);
	cr_assert_str_eq(tp.program, file);
	cr_assert_eq(tp.flags, SHELLESC_ASKED_BY_PRELOAD, "%s: flags %#x", f->name, tp.flags);
	cr_assert_eq(tp.facts & (SHELLESC_TARGET_STATIC | SHELLESC_TARGET_SETID), f->flags,
	    "%s: facts %#x, expected %#x", f->name, tp.facts, f->flags);
	th_rmtree(dir);
	tp_out_free(&o);
	ts_end(s, &tp);
}

/* --- a program with no path; sessions absent or broken ------------------ */

static const struct memfdcase {
	enum shellesc_action action;
	int code;
	const char *out, *err;
} memfdcases[] = {
	{ SHELLESC_RUN, 42, "ran\n", "" },
	{ SHELLESC_DENY, 99, "ret=-1 errno=13\n", TP_DENIED },
	/* the server would have to run its own /proc/self/fd/N: refused */
	{ SHELLESC_ESCALATE, 99, "ret=-1 errno=13\n", "cannot escalate a program that has no path" },
};

ParameterizedTestParameters(preload_entry, fexecve_memfd)
{
	return ts_indexes(sizeof(memfdcases) / sizeof(memfdcases[0]));
}

/* fexecve of a memfd copy of /bin/sh: decided as "/proc/self/fd", runs in place. */
ParameterizedTest(size_t *i, preload_entry, fexecve_memfd, .timeout = TS_TIMEOUT)
{
	const struct memfdcase *m = &memfdcases[*i];
	struct tp_out o;

	s = tp_start(&tp, m->action, 0);
	tp_run(s, true, tp_action_name(m->action), NULL, NULL, (const char *const[]){ TP_T,
	    "fexecve-memfd", "/bin/sh", "sh", "-c", "echo ran; exit 42", NULL }, &o);
	tp_check(&o, m->code, 0, m->out, m->err, tp_action_name(m->action));
	cr_assert_eq(tp.seen, 1);
	cr_assert_str_eq(tp.program, "/proc/self/fd");
	tp_out_free(&o);
	ts_end(s, &tp);
}

/*
 * Without a session variable the preload is inert; with one naming no
 * usable socket it fails closed: every exec is refused, saying why.
 */
static const struct sessioncase {
	const char *name, *sock;	/* SHELLESC_ESCALATE_SOCKET, NULL: unset */
	int code;
	const char *out, *spawn_out, *err;
} sessioncases[] = {
	{ "no session", NULL, 42, "ran\n", "ran\nret=0 errno=1234 exit=42\n", "" },
	{ "socket closed", "999", 99, "ret=-1 errno=13\n", "ret=13 errno=1234\n",
	  "cannot ask the shellesc server" },
	{ "not a socket", "0", 99, "ret=-1 errno=13\n", "ret=13 errno=1234\n",
	  "cannot ask the shellesc server" },
	{ "not a number", "x", 99, "ret=-1 errno=13\n", "ret=13 errno=1234\n",
	  "cannot ask the shellesc server" },
};
#define NSC (sizeof(sessioncases) / sizeof(sessioncases[0]))

ParameterizedTestParameters(preload_entry, without_a_usable_session)
{
	return ts_indexes(NSC * 2);
}

ParameterizedTest(size_t *i, preload_entry, without_a_usable_session, .timeout = TS_TIMEOUT)
{
	const struct sessioncase *c = &sessioncases[*i / 2];
	bool spawn = *i % 2;
	char sock[64];
	char *env[] = { "PATH=/usr/bin:/bin", "LD_PRELOAD=" TEST_PRELOAD, sock, NULL };
	struct tp_out o;
	struct ts_proc p;

	tp_require_preload();
	snprintf(sock, sizeof(sock), "SHELLESC_ESCALATE_SOCKET=%s", c->sock ? c->sock : "");
	env[2] = c->sock ? sock : NULL;
	ts_proc_start(&p, NULL, env, TEST_EXEC_PROBE, TS_V(TEST_EXEC_PROBE,
	    spawn ? "posix_spawn" : "execv", "/bin/sh", "sh", "-c", "echo ran; exit 42"));
	o.status = ts_proc_wait(&p, &o.out, NULL, &o.err);
	tp_check(&o, spawn ? 0 : c->code, 0, spawn ? c->spawn_out : c->out, c->err, c->name);
	tp_out_free(&o);
}
