/*
 * cli-helpers.h: the shellesc command as a real process, for the cli
 * suites (test-cli-*.c).  Each test gets a directory of its own, which is
 * also HOME, XDG_CONFIG_HOME's parent and the command's cwd, so no user or
 * system rules leak in.
 */
#ifndef SHELLESC_TEST_CLI_HELPERS_H
#define SHELLESC_TEST_CLI_HELPERS_H

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <unistd.h>

#include "helpers/session.h"

#define TC_TIMEOUT 60

/*
 * A shell function for test scripts: G PROG ARGS... execs PROG through
 * "$EXEC_WRAPPER", exactly what a patched shell does for every command, so
 * the scripts work with stock bash under --mode wrapper.
 */
#define TC_GATE "G() { \"$EXEC_WRAPPER\" \"$(type -P \"$1\")\" \"$@\"; }; "

struct tc_pty;

struct tc {
	char *dir;			/* the test's directory (cwd) */
	char *env[16];			/* shellesc's environment */
	char *owned[8];			/* what env points to */
	char *dirs[4];			/* tc_tmpdir's */
	char *pathvar;			/* tc_setpath's */
	json_t *json;			/* tc_json's */
	json_t **lines;			/* tc_json_lines's */
	size_t nlines;
	struct tc_pty *pty;		/* tc_pty_start's, ended by tc_fini if need be */
	/* tc_path's strings are kept by the helpers until tc_fini */
};

/* The outcome of one shellesc run. */
struct tc_res {
	int status;			/* wait status */
	char *out, *err;		/* with a pty: everything in out */
	size_t outlen;
};

/* A fresh test directory; rules (if not NULL) written to t.rules there. */
void tc_init(struct tc *t, const char *rules);
/* Frees r (if not NULL) too, and all that t holds. */
void tc_fini(struct tc *t, struct tc_res *r);

/*
 * The fixture of a cli suite: each of its tests has a fresh t, made by
 * tc_init(&t, rules) (rules may be NULL), and an r for its runs; both are
 * freed after the test by tc_fini(&t, &r), with everything t holds (the
 * JSON parsed, the directories made).  Tests use t and r by these names.
 */
#define TC_SUITE(suite, rules)						\
	static struct tc t;						\
	static struct tc_res r;						\
	static void suite##_init(void) { tc_init(&t, rules); }		\
	static void suite##_fini(void) { tc_fini(&t, &r); }		\
	TestSuite(suite, .init = suite##_init, .fini = suite##_fini,	\
	    .timeout = TC_TIMEOUT)

/* dir/name; the result is freed by tc_fini (up to 64 per test). */
const char *tc_path(struct tc *t, const char *name);
/* Write dir/name (e.g. a rules file); returns its path. */
const char *tc_file(struct tc *t, const char *name, const char *text);
bool tc_exists(struct tc *t, const char *name);
/* Another fresh directory, outside t's own; removed by tc_fini (up to 4). */
const char *tc_tmpdir(struct tc *t);
/* Set PATH in shellesc's environment to path, or unset it (NULL). */
void tc_setpath(struct tc *t, const char *path);
/* name's path in the tests' PATH, /usr/bin:/bin (kept like tc_path's). */
const char *tc_which(const char *name);
/* dir/name's content (malloc'd), or NULL if missing. */
char *tc_read(struct tc *t, const char *name);

/* shellesc ARGS... in its own session (no controlling terminal), stdin
 * from in (NULL: empty); asserts it ends within the test timeout. */
void tc_run(struct tc *t, struct tc_res *r, const char *in, char *const args[]);
/* Started, not waited for: p's stdio are pipes (see ts_proc_wait). */
void tc_start(struct tc *t, struct ts_proc *p, char *const args[]);
/*
 * shellesc ARGS... on a new pty as its controlling terminal: each time the
 * prompt's last line ("Allow it? ...") appears, the next of answers
 * (NULL-terminated) is typed, TC_SILENT meaning none.  Returns how many
 * prompts there were.
 */
#define TC_SILENT "(silent)"
/* An answer typed only TC_LATE_MS after its prompt appears: TC_LATE "n". */
#define TC_LATE "\001"
#define TC_LATE_MS 2000
/* An answer typed as it is, with no newline after it: TC_RAW "\003". */
#define TC_RAW "\002"
int tc_run_pty(struct tc *t, struct tc_res *r, const char *const answers[],
    char *const args[]);
struct tu_user;
/* The same for any program (argv[0] its path), run as u (NULL: as we are). */
int tc_pty_run(struct tc *t, struct tc_res *r, const struct tu_user *u,
    const char *const answers[], char *const argv[]);

/*
 * A program on a pty, driven as a person would: type, and wait for what
 * it shows.  The pty is 24x80 and the program's controlling terminal.
 */
struct tc_pty {
	int master;
	pid_t pid;
	char *out;			/* everything shown so far */
	size_t len, mark;		/* tc_pty_expect looks after mark */
};

/* argv (argv[0] a path) in the test's directory and environment, as u
 * (NULL: us).  p must outlive the test (static): should the test fail
 * before tc_pty_end, tc_fini ends the program and frees p's buffer. */
void tc_pty_start(struct tc *t, struct tc_pty *p, const struct tu_user *u,
    char *const argv[]);
/* Wait until text shows after the mark, asserting it does within ms; the
 * mark moves past it.  tc_pty_wait: the same, false if it did not show. */
void tc_pty_expect(struct tc_pty *p, const char *text, int ms);
bool tc_pty_wait(struct tc_pty *p, const char *text, int ms);
void tc_pty_send(struct tc_pty *p, const char *s);
/* Read until the program and all it left on the pty are gone (asserting
 * that within ms), reap it: its wait status.  Frees p's buffer. */
int tc_pty_end(struct tc_pty *p, int ms);
/* The prompt of interactive shells the tests drive, and a bash rc file
 * that sets it and defines G (as the environment cannot: the build tree's
 * shellesc is a libtool script, and a non-interactive bash drops PS1). */
#define TC_PS1 "tc> "
#define TC_RC "PS1='" TC_PS1 "'\n" TC_GATE "\n"
/* Set "NAME=value" in the environment of what the test runs (kept, not copied). */
void tc_env_set(struct tc *t, char *entry);
/* Skip the test; Criterion runs no .fini after a skip, so clean up first. */
#define TC_SKIP(t, r, ...) do { tc_fini(t, r); cr_skip_test(__VA_ARGS__); } while (0)

/* Skip, saying why, where the preload library cannot catch a stock bash's execs. */
#ifdef TEST_SANITIZERS
#define TC_NEED_PRELOAD(t, r) \
	TC_SKIP(t, r, "a sanitizer build's preload cannot load into stock bash (docs/preload.md)")
#else
#define TC_NEED_PRELOAD(t, r) do { } while (0)
#endif

/* The exit code; asserts a normal exit. */
int tc_code(const struct tc_res *r);
void tc_res_free(struct tc_res *r);

/* The JSON value text holds; asserts it parses.  t keeps it until the
 * next call or tc_fini. */
json_t *tc_json(struct tc *t, const char *text);
/* The lines of text that start with '{', each parsed; *n of them.  t keeps
 * them until the next call or tc_fini. */
json_t **tc_json_lines(struct tc *t, const char *text, size_t *n);
/* j[key] as a string (asserting it is one). */
const char *tc_jstr(json_t *j, const char *key);
/* j[key] as an integer (asserting it is one). */
json_int_t tc_jint(json_t *j, const char *key);

/* Landlock's ABI version here, 0 without it. */
int tc_landlock_abi(void);
/* Skip the test, saying why, on a kernel without Landlock ABI abi. */
void tc_need_landlock(struct tc *t, struct tc_res *r, int abi);

#endif
