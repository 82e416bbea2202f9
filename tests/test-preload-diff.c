/*
 * test-preload-diff.c: suite preload_diff -- the preload is invisible when
 * the answer is run.  The same program runs twice, in the session with the
 * preload and without it (same environment but LD_PRELOAD), and must print
 * and end the same: what the exec'd program gets (errno at start, open
 * fds, ignored and blocked signals), the PATH search of the execvp family
 * and posix_spawnp (glibc's rules, errors and all), and what a NULL or
 * empty argv or a NULL envp does.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/preload.h"

static struct tpol tp;
static struct shellesc_session *s;

/*
 * posix_spawn* return their error; whatever they leave in errno is not
 * specified (glibc's leaks the last candidate's, the preload keeps the
 * caller's): the comparison leaves it out for them.
 */
static void
drop_spawn_errno(char *out)
{
	for (char *l = out; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		char *e = strncmp(l, "ret=", 4) == 0 ? strstr(l, " errno=") : NULL;
		size_t n;

		if (e == NULL || e > strchrnul(l, '\n'))
			continue;
		n = 7 + strspn(e + 7, "0123456789");
		memmove(e, e + n, strlen(e + n) + 1);
	}
}

/* Run argv with and without the preload; both must end and print the same. */
static void
same_both_ways(const char *cwd, const char *const argv[], bool spawn, const char *what)
{
	struct tp_out with, without;

	tp_run(s, false, "run", cwd, NULL, argv, &without);
	tp_run(s, true, "run", cwd, NULL, argv, &with);
	if (spawn) {
		drop_spawn_errno(with.out);
		drop_spawn_errno(without.out);
	}
	cr_assert_eq(with.status, without.status, "%s: status %#x with the preload, %#x without;"
	    " stderr: %s", what, with.status, without.status, with.err);
	cr_assert_str_eq(with.out, without.out, "%s: stdout differs", what);
	cr_assert_str_eq(with.err, without.err, "%s: stderr differs", what);
	tp_out_free(&with);
	tp_out_free(&without);
}

/* --- what a run-decided child gets -------------------------------------- */

static const char *const all_entries[] = { "execve", "execv", "execvp", "execvpe", "execl",
	"execle", "execlp", "fexecve", "execveat", "execveat-fd", "execveat-cwd", "posix_spawn",
	"posix_spawnp", "system", "popen" };
#define NALL (sizeof(all_entries) / sizeof(all_entries[0]))

ParameterizedTestParameters(preload_diff, child_state)
{
	return ts_indexes(NALL);
}

/*
 * With SIGUSR1 ignored and SIGUSR2 blocked, ENTRY runs sh -c 'exec
 * exec-probe state': errno at its start, its fds (only the session socket
 * besides what the baseline has too), SigIgn and SigBlk.
 */
ParameterizedTest(size_t *i, preload_diff, child_state, .timeout = TS_TIMEOUT)
{
	const char *e = all_entries[*i];

	s = tp_start(&tp, SHELLESC_RUN, 0);
	same_both_ways(NULL, (const char *const[]){ TP_T, "-s", e, "/bin/sh", "sh", "-c",
	    "exec " TP_T " state", NULL }, strncmp(e, "posix_spawn", 11) == 0, e);
	cr_assert_eq(tp.seen, 2, "%s: sh and the probe are decided:\n%s", e, tp.history);
	ts_end(s, &tp);
}

/* The constructor leaves errno alone, with or without a (usable) session. */
Test(preload_diff, errno_at_start, .timeout = TS_TIMEOUT)
{
	static const char *const envs[][4] = {
		{ "PATH=/usr/bin:/bin", "LD_PRELOAD=" TEST_PRELOAD },
		{ "PATH=/usr/bin:/bin", "LD_PRELOAD=" TEST_PRELOAD, "SHELLESC_ESCALATE_SOCKET=999" },
		{ "PATH=/usr/bin:/bin", "LD_PRELOAD=" TEST_PRELOAD, "SHELLESC_ESCALATE_SOCKET=x" },
	};
	char *out;
	struct ts_proc p;

	tp_require_preload();
	for (size_t k = 0; k < sizeof(envs) / sizeof(envs[0]); k++) {
		ts_proc_start(&p, NULL, (char *const *)envs[k], TEST_EXEC_PROBE,
		    TS_V(TEST_EXEC_PROBE, "state"));
		cr_assert_eq(ts_proc_wait(&p, &out, NULL, NULL), 0);
		cr_assert(strncmp(out, "errno=0\n", 8) == 0, "env %zu: %s", k, out);
		free(out);
	}
}

/* --- PATH search -------------------------------------------------------- */

/* 304 and 4097 characters: longer than NAME_MAX and PATH_MAX. */
#define X16(s) s s s s s s s s s s s s s s s s
#define LONG_NAME X16(X16("x")) X16("xxx")
#define LONG_DIR "/" X16(X16(X16("y")))

/*
 * "%" stands for a fixture directory holding a/cmd (not executable),
 * b/cmd/ (a directory), c/cmd (a #! script), ns/nosh (a script without
 * #!), e/noexec (not executable) and bi/cmd (a #! script whose interpreter
 * is missing: decided, then ENOENT).  Search cases go through execvp,
 * execvpe, execlp and posix_spawnp with -p PATH ("-": unset); the others
 * through the calls that take a path.
 */
#define P(name, path, cwd, file) { name, path, cwd, file, false }
static const struct pathcase {
	const char *name, *path, *cwd, *file;
	bool fresh_env;		/* -e: envp has another PATH (the search ignores it) */
} pathcases[] = {
	P("EACCES remembered, the search goes on", "%/a:%/b:%/c", "%", "cmd"),
	P("only EACCES found", "%/a:%/b", "%", "cmd"),
	P("only a directory of that name", "%/b", "%", "cmd"),
	P("not found", "%/a", "%", "missing"),
	P("not executable", "%/e", "%", "noexec"),
	P("PATH unset: the default path", "-", "%/c", "sh"),
	P("PATH unset: not the cwd", "-", "%/c", "cmd"),
	P("an empty PATH is the cwd", "", "%/c", "cmd"),
	P("a leading empty entry is the cwd", ":%/a", "%/c", "cmd"),
	P("a trailing empty entry is the cwd", "%/a:", "%/c", "cmd"),
	P("a name with '/' is not searched", "%/a", "%/c", "./cmd"),
	P("an empty name", "%/c", "%", ""),
	P("a name longer than NAME_MAX", "%/c", "%", LONG_NAME),
	P("an entry longer than PATH_MAX is skipped", LONG_DIR ":%/c", "%", "cmd"),
	P("ENOTDIR: the search goes on", "%/c/cmd:%/c", "%", "cmd"),
	P("no #!: /bin/sh for execvp, ENOEXEC for posix_spawnp", "%/ns", "%", "nosh"),
	P("decided, then ENOENT from a missing interpreter", "%/bi:%/c", "%", "cmd"),
	P("decided, then only ENOENT", "%/bi", "%", "cmd"),
	{ "PATH from environ, not from envp", "%/c", "%", "cmd", true },
	/* no search */
	P("execve of a bare name runs ./name", NULL, "%/c", "cmd"),
	P("execve without #!: ENOEXEC, no shell", NULL, "%/ns", "nosh"),
	P("execve of an empty name", NULL, "%", ""),
	P("execve of a directory", NULL, "%", "%/b/cmd"),
	P("execve of a file not executable", NULL, "%", "%/a/cmd"),
	P("execve of a missing file", NULL, "%", "%/missing"),
	P("execve through a file (ENOTDIR)", NULL, "%", "%/c/cmd/x"),
	P("execve of a name longer than NAME_MAX", NULL, "%", LONG_NAME),
	P("execve decided, then ENOENT from a missing interpreter", NULL, "%", "%/bi/cmd"),
};
#define NPC (sizeof(pathcases) / sizeof(pathcases[0]))

static const char *const search_entries[] = { "execvp", "execvpe", "execlp", "posix_spawnp", NULL };
static const char *const path_entries[] = { "execve", "execv", "execl", "execle", "fexecve",
	"execveat", "execveat-fd", "execveat-cwd", "posix_spawn", NULL };

static char *
make_path_fixtures(void)
{
	char *dir = th_tmpdir();

	th_put(dir, "a", NULL, 0755);
	th_put(dir, "a/cmd", "echo a-cmd\n", 0644);
	th_put(dir, "b", NULL, 0755);
	th_put(dir, "b/cmd", NULL, 0755);
	th_put(dir, "c", NULL, 0755);
	th_put(dir, "c/cmd", "#!/bin/sh\necho c-cmd \"$@\"\n", 0755);
	th_put(dir, "ns", NULL, 0755);
	th_put(dir, "ns/nosh", "echo noshebang-ran \"$@\"\n", 0755);
	th_put(dir, "e", NULL, 0755);
	th_put(dir, "e/noexec", "echo noexec\n", 0644);
	th_put(dir, "bi", NULL, 0755);
	th_put(dir, "bi/cmd", "#!/nonexistent/interp\n", 0755);
	return dir;
}

/* exec-probe [-p PATH] [-e] ENTRY FILE prog -c 'echo ran', both ways. */
static void
path_case(const struct pathcase *c, const char *entry, const char *dir)
{
	char *path = c->path ? th_subst(c->path, "%", dir) : NULL, *file = th_subst(c->file, "%", dir);
	char *cwd = th_subst(c->cwd, "%", dir), what[256];
	const char *argv[12] = { TP_T };
	size_t n = 1;

	if (path) {
		argv[n++] = "-p";
		argv[n++] = path;
	}
	if (c->fresh_env)
		argv[n++] = "-e";
	memcpy(argv + n, (const char *const[]){ entry, file, "prog", "-c", "echo ran", NULL },
	    6 * sizeof(char *));
	snprintf(what, sizeof(what), "%s: %s", c->name, entry);
	same_both_ways(cwd, argv, strncmp(entry, "posix_spawn", 11) == 0, what);
	free(path);
	free(file);
	free(cwd);
}

ParameterizedTestParameters(preload_diff, path_search)
{
	return ts_indexes(NPC);
}

ParameterizedTest(size_t *i, preload_diff, path_search, .timeout = TS_TIMEOUT)
{
	const struct pathcase *c = &pathcases[*i];
	const char *const *entries = c->path ? search_entries : path_entries;
	char *dir;

	s = tp_start(&tp, SHELLESC_RUN, 0);
	dir = make_path_fixtures();
	for (size_t k = 0; entries[k]; k++)
		path_case(c, entries[k], dir);
	th_rmtree(dir);
	ts_end(s, &tp);
}

/* --- NULL and empty argv, NULL envp ------------------------------------- */

/*
 * Linux >= 5.18 runs a NULL or empty argv as { "" } and a NULL envp as
 * empty; glibc's fexecve refuses both with EINVAL.  glibc's posix_spawn*
 * dereference a NULL argv themselves (a crash in the caller, with or
 * without the preload), so those pairs are left out.
 */
static const char *const null_opts[][3] = { { "-A" }, { "-Z" }, { "-E" }, { "-A", "-E" } };
#define NNULL (sizeof(null_opts) / sizeof(null_opts[0]))
static const char *const null_entries[] = { "execve", "execv", "execvp", "execvpe", "execle",
	"fexecve", "execveat", "execveat-fd", "execveat-cwd", "posix_spawn", "posix_spawnp" };
#define NNE (sizeof(null_entries) / sizeof(null_entries[0]))

ParameterizedTestParameters(preload_diff, null_argv_envp)
{
	return ts_indexes(NNULL * NNE);
}

ParameterizedTest(size_t *i, preload_diff, null_argv_envp, .timeout = TS_TIMEOUT)
{
	const char *const *opts = null_opts[*i / NNE], *e = null_entries[*i % NNE];
	bool spawn = strncmp(e, "posix_spawn", 11) == 0, argv_null = strcmp(opts[0], "-A") == 0;
	char what[64];

	if (spawn && argv_null)
		cr_skip_test("glibc's %s crashes on a NULL argv by itself", e);
	snprintf(what, sizeof(what), "%s %s %s", e, opts[0], opts[1] ? opts[1] : "");
	s = tp_start(&tp, SHELLESC_RUN, 0);
	same_both_ways(NULL, (const char *const[]){ TP_T, opts[0], opts[1] ? opts[1] : e,
	    opts[1] ? e : TEST_EXEC_PROBE, opts[1] ? TEST_EXEC_PROBE : NULL, NULL }, spawn, what);
	/* What was asked about is what the kernel ran: argv { "" }. */
	if (tp.seen > 0 && strcmp(opts[0], "-E") != 0) {
		cr_assert_eq(tp.argc, 1, "%s", what);
		cr_assert_str_eq(tp.argv[0], "", "%s", what);
	}
	ts_end(s, &tp);
}

/* --- size ------------------------------------------------------------- */

/*
 * Bash builds the arguments itself (no exec): the longest string the kernel
 * takes (MAX_ARG_STRLEN with its NUL) runs; one byte more, or more than
 * 6 MiB in all (64 strings of 100 000 bytes: more than any stack limit
 * gives), fails with E2BIG as without the preload, and is never asked about.
 */
#define BIG "printf -v x '%0*d' $1 0; /bin/true \"$x\" && echo ran || echo failed $?"
#define MANY "printf -v x '%0*d' 100000 0; a=(); for i in {1..64}; do a+=(\"$x\"); done; " \
	"/bin/true \"${a[@]}\" && echo ran || echo failed $?"

Test(preload_diff, too_large, .timeout = TS_TIMEOUT)
{
	static const char *const sizes[] = { "131071", "131072" };

	s = tp_start(&tp, SHELLESC_RUN, 0);
	for (size_t k = 0; k < 2; k++)
		same_both_ways(NULL, (const char *const[]){ "/bin/bash", "-c", BIG, "bash", sizes[k],
		    NULL }, false, sizes[k]);
	same_both_ways(NULL, (const char *const[]){ "/bin/bash", "-c", MANY, NULL }, false, "6.4 MB");
	cr_assert_str_eq(tp.history, "/bin/true\n", "decided:\n%s", tp.history);
	ts_end(s, &tp);
}
