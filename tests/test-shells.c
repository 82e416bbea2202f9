/*
 * test-shells.c: suite shells -- the patched shells built by
 * `make shells` (patches/) running scripts in a real session (wrapper
 * interception only), with a policy that records every decision.
 *
 * Every test runs once per shell, as zsh_NAME and bash_NAME (the filter
 * 'shells/zsh_*' runs one shell's).  Without the built shells each test is
 * skipped and says why (so does `make check`, in a note).
 *
 * What wrapper mode covers, as these tests assert: every exec the patched
 * shell itself makes -- wherever the command sits (pipeline, subshell,
 * command substitution, exec, startup files) and in nested patched shells.
 * Programs that exec on their own (xargs, find -exec, /bin/sh running a
 * script without #!) are not patched: their execs are not asked about.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <pthread.h>
#include <pwd.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/preload.h"
#include "shellesc.h"

#ifndef TEST_SHELLS_DIR
#error "TEST_SHELLS_DIR (where make shells installs them) must be defined"
#endif

#define SHELLS_TIMEOUT 60
#define DENIED "shellesc: execution denied: test policy: "

/* --- The policy: rules by the program's base name, every decision kept --- */

struct rule {
	const char *base;
	enum shellesc_action action;
};

struct seen {
	char *program;
	char **argv;
	size_t argc;
	enum shellesc_action action;
	unsigned flags;		/* shellesc_request_flags: who asked */
};

#define MAX_SEEN 256

static struct {
	pthread_mutex_t mu;
	const struct rule *extra;	/* a test's own rules, before the defaults */
	struct seen seen[MAX_SEEN];
	size_t n;
} pol = { .mu = PTHREAD_MUTEX_INITIALIZER };

static const struct rule default_rules[] = {
	{ "rm", SHELLESC_DENY },
	{ "denied-script", SHELLESC_DENY },
	{ "id", SHELLESC_ESCALATE },
	{ NULL, SHELLESC_RUN },
};

static const char *
base_of(const char *path)
{
	const char *b = strrchr(path, '/');

	return b ? b + 1 : path;
}

static enum shellesc_action
rule_for(const struct rule *r, const char *base, int *found)
{
	for (; r && r->base; r++)
		if (strcmp(r->base, base) == 0)
			return *found = 1, r->action;
	return SHELLESC_RUN;
}

static void
record_policy(void *arg, struct shellesc_request *req)
{
	const char *prog = shellesc_request_program(req);
	char *const *argv = shellesc_request_argv(req);
	struct shellesc_decision d = { .action = SHELLESC_RUN };
	char reason[256];
	int found = 0;

	d.action = rule_for(pol.extra, base_of(prog), &found);
	if (!found)
		d.action = rule_for(default_rules, base_of(prog), &found);
	snprintf(reason, sizeof(reason), "test policy: %s", base_of(prog));
	d.reason = reason;
	pthread_mutex_lock(&pol.mu);
	if (pol.n < MAX_SEEN) {
		struct seen *s = &pol.seen[pol.n++];

		s->program = strdup(prog);
		s->argc = shellesc_request_argc(req);
		s->argv = calloc(s->argc + 1, sizeof(char *));
		for (size_t i = 0; i < s->argc; i++)
			s->argv[i] = strdup(argv[i]);
		s->action = d.action;
		s->flags = shellesc_request_flags(req);
	}
	pthread_mutex_unlock(&pol.mu);
	shellesc_request_decide(req, &d);
}

/* Index of the first decision for a program named base (with argv[1] ==
 * arg1 unless NULL) at or after from, or -1. */
static int
decided_from(int from, const char *base, const char *arg1)
{
	int r = -1;

	pthread_mutex_lock(&pol.mu);
	for (size_t i = from; i < pol.n && r < 0; i++) {
		struct seen *s = &pol.seen[i];

		if (strcmp(base_of(s->program), base) == 0 &&
		    (!arg1 || (s->argc > 1 && strcmp(s->argv[1], arg1) == 0)))
			r = (int)i;
	}
	pthread_mutex_unlock(&pol.mu);
	return r;
}

static int
decided(const char *base, const char *arg1)
{
	return decided_from(0, base, arg1);
}

static int
count_decisions(const char *base)
{
	int n = 0;

	for (int i = decided(base, NULL); i >= 0; i = decided_from(i + 1, base, NULL))
		n++;
	return n;
}

/* The decision for base/arg1, asserting there is one with that verdict. */
static const struct seen *
expect_decision(const char *base, const char *arg1, enum shellesc_action action)
{
	int i = decided(base, arg1);

	cr_assert(i >= 0, "no decision for %s %s", base, arg1 ? arg1 : "");
	cr_assert_eq(pol.seen[i].action, action, "%s decided %d, expected %d", base,
	    pol.seen[i].action, action);
	return &pol.seen[i];
}

static void
expect_no_decision(const char *base, const char *arg1)
{
	cr_assert(decided(base, arg1) < 0, "%s %s was asked about, yet its exec is not the shell's",
	    base, arg1 ? arg1 : "");
}

/* --- The shells and a scratch directory ------------------------------- */

static char *dir;		/* the scratch directory; the shells' cwd */
static char zsh[] = TEST_SHELLS_DIR "/bin/zsh";
static char bash[] = TEST_SHELLS_DIR "/bin/bash";

/* Skip the test, saying why in the log too (Criterion prints it only when verbose). */
#define skip_because(...) do {						\
		fprintf(stderr, "skipped: " __VA_ARGS__);			\
		fputc('\n', stderr);						\
		cr_skip_test(__VA_ARGS__);					\
	} while (0)

/* The patched shell named sh, or the test is skipped, saying why. */
static const char *
shell_or_skip(const char *sh)
{
	const char *path = strcmp(sh, "zsh") == 0 ? zsh : bash;

	if (access(path, X_OK) != 0)
		skip_because("the patched %s is not built (%s is missing); `make shells` builds it",
		    sh, path);
	return path;
}

/* Debian's own build of the shell at sh, or the test is skipped, saying why. */
static const char *
stock_or_skip(const char *sh)
{
	const char *stock = strcmp(base_of(sh), "zsh") == 0 ? "/usr/bin/zsh" : "/bin/bash";

	if (access(stock, X_OK) != 0)
		skip_because("no stock %s to compare with (apt-get install zsh)", stock);
	return stock;
}

/* The other patched shell (nesting). */
static const char *
other_shell(const char *sh)
{
	return shell_or_skip(strcmp(base_of(sh), "zsh") == 0 ? "bash" : "zsh");
}

static void
shells_setup(void)
{
	dir = th_tmpdir();
}

/* Forget the decisions recorded so far. */
static void
forget_decisions(void)
{
	pthread_mutex_lock(&pol.mu);
	for (size_t i = 0; i < pol.n; i++) {
		for (size_t j = 0; j < pol.seen[i].argc; j++)
			free(pol.seen[i].argv[j]);
		free(pol.seen[i].argv);
		free(pol.seen[i].program);
	}
	pol.n = 0;
	pthread_mutex_unlock(&pol.mu);
}

static void
shells_teardown(void)
{
	th_rmtree(dir);
	dir = NULL;
	forget_decisions();
}

/* The environment every shell gets: nothing of the test process. */
static char **
shell_env(const char *extra)
{
	static char path[] = "PATH=/usr/local/bin:/usr/bin:/bin";
	static char lc[] = "LC_ALL=C";
	static char home[4200], pzsh[sizeof(zsh) + 8], pbash[sizeof(bash) + 8];
	static char dump[] = "ARGV_DUMP=" TEST_ARGV_DUMP;
	static char *env[8];
	size_t n = 0;

	snprintf(home, sizeof(home), "HOME=%s", dir);
	snprintf(pzsh, sizeof(pzsh), "PZSH=%s", zsh);
	snprintf(pbash, sizeof(pbash), "PBASH=%s", bash);
	env[n++] = path;
	env[n++] = lc;
	env[n++] = home;
	env[n++] = pzsh;
	env[n++] = pbash;
	env[n++] = dump;
	env[n++] = (char *)extra;
	env[n] = NULL;
	return env;
}

/* --- Running a script -------------------------------------------------- */

struct run {
	int code;
	char *out, *err;
	size_t out_len;
};

/* sh -c script (-lc when login) in a fresh session catching execs by
 * intercept (SHELLESC_INTERCEPT_*), extra rules first. */
static void
run_in_mode(const char *sh, const char *script, int login, const struct rule *extra,
    unsigned intercept, struct run *r)
{
	struct shellesc_config cfg = { .policy = record_policy,
	    .intercept = intercept, .wrapper_path = TEST_WRAPPER, .preload_path = TEST_PRELOAD };
	struct shellesc_exec_params p = { .command = script, .workdir = dir, .shell = sh,
	    .env = shell_env(NULL), .timeout_ms = 30000, .login = login };
	struct shellesc_exec_result res;
	struct shellesc_session *s;

	pol.extra = extra;
	cr_assert_eq(shellesc_session_start(&cfg, &s), 0);
	cr_assert_eq(shellesc_session_exec(s, &p, &res), 0);
	shellesc_session_end(s);
	cr_assert_not(res.timed_out, "%s timed out: %s", sh, res.err);
	r->code = res.exit_code;
	r->out_len = res.out_len;
	cr_assert_not_null(r->out = malloc(res.out_len + 1));
	memcpy(r->out, res.out, res.out_len + 1);	/* may hold NULs */
	r->err = strdup(res.err);
	shellesc_exec_result_free(&res);
}

/* ... in wrapper mode. */
static void
run_in_session(const char *sh, const char *script, int login, const struct rule *extra,
    struct run *r)
{
	run_in_mode(sh, script, login, extra, SHELLESC_INTERCEPT_WRAPPER, r);
}

static void
run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* argv[0] (as the program) with env, no session, stdout and stderr to
 * files; returns the exit code (-1 on a signal). */
static void
run_plain(char *const argv[], const char *path, char *const env[], struct run *r)
{
	posix_spawn_file_actions_t fa;
	char out[256], err[256];
	pid_t pid;
	int st;

	snprintf(out, sizeof(out), "%s/.out", dir);
	snprintf(err, sizeof(err), "%s/.err", dir);
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(posix_spawn(&pid, path, &fa, NULL, argv, env), 0, "%s", path);
	posix_spawn_file_actions_destroy(&fa);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	r->code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	r->out = th_read_file(th_at(dir, ".out"), &r->out_len);
	r->err = th_read_file(th_at(dir, ".err"), NULL);
}

/* sh -c script with EXEC_WRAPPER=wrapper (NULL: unset), no session. */
static void
run_with_wrapper(const char *sh, const char *wrapper, const char *script, struct run *r)
{
	char var[256];
	char *argv[] = { (char *)"testsh", (char *)"-c", (char *)script, NULL };

	snprintf(var, sizeof(var), "EXEC_WRAPPER=%s", wrapper ? wrapper : "");
	run_plain(argv, sh, shell_env(wrapper ? var : NULL), r);
}

/* expect_out(r, TEXT...): stdout holds each of the texts. */
#define expect_out(r, ...) expect_outv(r, (const char *const[]){ __VA_ARGS__, NULL })

static void
expect_outv(const struct run *r, const char *const *texts)
{
	for (; *texts; texts++)
		cr_assert_not_null(strstr(r->out, *texts), "stdout lacks \"%s\":\n%s\nstderr:\n%s",
		    *texts, r->out, r->err);
}

static void
expect_err(const struct run *r, const char *text)
{
	cr_assert_not_null(strstr(r->err, text), "stderr lacks \"%s\":\n%s", text, r->err);
}

static const char *
user_name(void)
{
	struct passwd *pw = getpwuid(getuid());

	cr_assert_not_null(pw);
	return pw->pw_name;
}

/* Every test, once per patched shell: body(sh) with sh the shell's path. */
#define SHELL_TEST(name)							\
	static void name##_body(const char *sh);				\
	Test(shells, zsh_##name, .init = shells_setup, .fini = shells_teardown,	\
	    .timeout = SHELLS_TIMEOUT) { name##_body(shell_or_skip("zsh")); }	\
	Test(shells, bash_##name, .init = shells_setup, .fini = shells_teardown, \
	    .timeout = SHELLS_TIMEOUT) { name##_body(shell_or_skip("bash")); }	\
	static void name##_body(const char *sh)

/* --- Interception itself ---------------------------------------------- */

/* The probe: a wrapper that fails makes every command fail. */
SHELL_TEST(probe)
{
	struct run r;

	run_with_wrapper(sh, "/bin/false", "/bin/true", &r);
	cr_assert_eq(r.code, 1, "EXEC_WRAPPER=/bin/false %s -c /bin/true exited %d", sh, r.code);
	run_free(&r);
	/* Unset, empty, or starting with a blank: not a wrapper. */
	run_with_wrapper(sh, NULL, "/bin/true", &r);
	cr_assert_eq(r.code, 0);
	run_free(&r);
	run_with_wrapper(sh, " /bin/false", "/bin/true", &r);
	cr_assert_eq(r.code, 0);
	run_free(&r);
}

/* The control case: Debian's own shell ignores EXEC_WRAPPER. */
SHELL_TEST(probe_stock)
{
	const char *stock = stock_or_skip(sh);
	struct run r;

	run_with_wrapper(stock, "/bin/false", "/bin/true", &r);
	cr_assert_eq(r.code, 0, "the stock %s was intercepted", stock);
	run_free(&r);
}

/* A wrapper that cannot be executed: nothing runs, 126, and zsh/bash say why. */
SHELL_TEST(wrapper_missing_fails_closed)
{
	struct run r;

	run_with_wrapper(sh, "/nonexistent/wrapper", "/usr/bin/touch made; echo \"rc=$?\"", &r);
	expect_out(&r, "rc=126");
	expect_err(&r, "cannot execute EXEC_WRAPPER /nonexistent/wrapper");
	cr_assert_not(th_exists(dir, "made"), "the command ran without its wrapper");
	run_free(&r);
}

/* Files the kernel would refuse never reach the wrapper; the shell's own
 * errors and statuses stay, and a $PATH search goes on past them. */
SHELL_TEST(unrunnable_files_not_asked)
{
	struct run r;

	th_put(dir, "a", NULL, 0755);
	th_put(dir, "a/uname", "not executable\n", 0644);
	th_put(dir, "plain", "not executable\n", 0644);
	run_in_session(sh, "./missing; echo \"missing=$?\"; ./plain; echo \"plain=$?\"; "
	    "/tmp; echo \"dir=$?\"; PATH=\"$PWD/nowhere:$PWD/a:$PATH\"; uname -s",
	    0, NULL, &r);
	expect_out(&r, "missing=127", "plain=126", "dir=126", "Linux");
	cr_assert_eq(pol.n, 1, "%zu decisions; only uname can run", pol.n);
	cr_assert_str_eq(expect_decision("uname", "-s", SHELLESC_RUN)->program, "/usr/bin/uname");
	run_free(&r);
}

/* Files the as-stock tests run. */
static void
stock_files(void)
{
	th_put(dir, "plain", "x\n", 0644);
	/* bash runs it itself, in a subshell that sees v; zsh with /bin/sh, and
	 * v is not exported: the session must agree */
	th_put(dir, "noshebang", "echo \"no #!: $1 ${BASH_VERSION:+bash} ${v-unset}\"\n", 0755);
	th_put(dir, "badinterp", "#!/nonexistent/interpreter\n", 0755);
	th_put(dir, "relinterp", "#!nosuchinterpreter\n", 0755);
	th_put(dir, "bin", NULL, 0755);
	th_put(dir, "bin/slashless", "#!sh\necho \"slashless: $1\"\n", 0755);
}

/* With EXEC_WRAPPER unset the patched shell answers like Debian's. */
SHELL_TEST(unset_matches_stock)
{
	const char *stock = stock_or_skip(sh);
	const char *script = "./missing; echo $?; ./plain; echo $?; /tmp; echo $?; "
	    "nosuchcommand; echo $?; ./noshebang x; echo $?; ./badinterp; echo $?; "
	    "exec ./noshebang last";
	struct run a, b;

	stock_files();
	run_with_wrapper(stock, NULL, script, &a);
	run_with_wrapper(sh, NULL, script, &b);
	cr_assert_eq(a.code, b.code);
	cr_assert_str_eq(a.out, b.out);
	cr_assert_str_eq(a.err, b.err);
	expect_out(&b, "no #!: last");
	run_free(&a);
	run_free(&b);
}

/* --- Verdicts wherever the command sits -------------------------------- */

SHELL_TEST(run_escalate_deny)
{
	struct run r;
	char who[64];

	run_in_session(sh, "id -un; echo \"id=$?\"; rm -f nothing; echo \"rm=$?\"; "
	    "/usr/bin/printf 'ran:%s\\n' ok; echo \"printf=$?\"; id --no-such-option; echo \"bad=$?\"",
	    0, NULL, &r);
	snprintf(who, sizeof(who), "%s\nid=0\n", user_name());
	/* bad=1: an escalated command's own status */
	expect_out(&r, who, "rm=126", "ran:ok\nprintf=0", "bad=1");
	expect_err(&r, DENIED "rm");
	expect_decision("id", "-un", SHELLESC_ESCALATE);
	expect_decision("rm", "-f", SHELLESC_DENY);
	expect_decision("printf", "ran:%s\\n", SHELLESC_RUN);
	cr_assert_eq(r.code, 0);
	run_free(&r);
}

/* Both mode: the preload in the patched shell decides the command the
 * shell hands the wrapper and execs it itself -- one decision per command,
 * asked by the preload, and the verdicts are the wrapper's. */
SHELL_TEST(both_mode_decided_in_the_shell)
{
	struct run r;
	char who[64];

	tp_require_preload();
	run_in_mode(sh, "id -un; echo \"id=$?\"; rm -f nothing; echo \"rm=$?\"; "
	    "/usr/bin/printf 'ran:%s\\n' ok; echo \"printf=$?\"; (exec /bin/rm -f x); echo \"x=$?\"",
	    0, NULL, SHELLESC_INTERCEPT_WRAPPER | SHELLESC_INTERCEPT_PRELOAD, &r);
	snprintf(who, sizeof(who), "%s\nid=0\n", user_name());
	expect_out(&r, who, "rm=126", "ran:ok\nprintf=0", "x=126");
	expect_err(&r, DENIED "rm");
	expect_decision("id", "-un", SHELLESC_ESCALATE);
	expect_decision("rm", "-f", SHELLESC_DENY);
	cr_assert_eq(expect_decision("printf", "ran:%s\\n", SHELLESC_RUN)->flags &
	    (SHELLESC_ASKED_BY_PRELOAD | SHELLESC_ASKED_BY_WRAPPER), SHELLESC_ASKED_BY_PRELOAD,
	    "asked by the preload in the shell, not by the wrapper");
	cr_assert_eq(decided_from(decided("printf", NULL) + 1, "printf", NULL), -1,
	    "printf asked about twice");
	cr_assert_eq(r.code, 0);
	run_free(&r);
}

SHELL_TEST(pipelines)
{
	static const struct rule esc_cat[] = { { "cat", SHELLESC_ESCALATE }, { NULL, 0 } };
	struct run r;
	char who[64];

	run_in_session(sh, "id -un | /usr/bin/tr a-z A-Z; "
	    "rm -f x 2>&1 | /usr/bin/tr a-z A-Z; "
	    "/usr/bin/printf 'a\\nb\\n' | /usr/bin/sort -r | /usr/bin/head -n 1; "
	    "/usr/bin/printf 'through-escalated\\n' | /bin/cat | /usr/bin/tr a-z A-Z",
	    0, esc_cat, &r);
	snprintf(who, sizeof(who), "%s\n", user_name());
	for (char *p = who; *p; p++)
		*p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
	expect_out(&r, who, "SHELLESC: EXECUTION DENIED: TEST POLICY: RM\n", "\nb\n");
	expect_decision("id", "-un", SHELLESC_ESCALATE);
	expect_decision("rm", "-f", SHELLESC_DENY);
	expect_decision("sort", "-r", SHELLESC_RUN);
	expect_decision("head", "-n", SHELLESC_RUN);
	expect_out(&r, "THROUGH-ESCALATED\n");	/* stdin and stdout are pipes */
	expect_decision("cat", NULL, SHELLESC_ESCALATE);
	cr_assert_geq(decided_from(decided("tr", NULL) + 1, "tr", NULL), 0, "both tr asked");
	run_free(&r);
}

SHELL_TEST(subshells)
{
	struct run r;

	run_in_session(sh, "(id -un >/dev/null; rm -f x; echo \"sub-rm=$?\"); "
	    "( (/usr/bin/printf 'deep\\n') ); (exec rm -f y); echo \"exec-in-sub=$?\"",
	    0, NULL, &r);
	expect_out(&r, "sub-rm=126", "deep\n", "exec-in-sub=126");
	expect_decision("id", "-un", SHELLESC_ESCALATE);
	expect_decision("printf", "deep\\n", SHELLESC_RUN);
	cr_assert_geq(decided_from(decided("rm", "-f") + 1, "rm", "-f"), 0, "both rm asked");
	run_free(&r);
}

/* exec CMD: the shell becomes the wrapper, which becomes (or waits for) CMD. */
SHELL_TEST(exec_command)
{
	struct run r;
	char who[64];

	run_in_session(sh, "exec id -un", 0, NULL, &r);
	snprintf(who, sizeof(who), "%s\n", user_name());
	cr_assert_str_eq(r.out, who);
	cr_assert_eq(r.code, 0);
	expect_decision("id", "-un", SHELLESC_ESCALATE);
	run_free(&r);
	forget_decisions();

	run_in_session(sh, "exec rm -f x; echo not-reached", 0, NULL, &r);
	cr_assert_eq(r.code, 126);
	cr_assert_str_eq(r.out, "");
	expect_err(&r, DENIED "rm");
	run_free(&r);
	forget_decisions();

	run_in_session(sh, "exec /usr/bin/printf 'replaced\\n'; echo not-reached", 0, NULL, &r);
	cr_assert_str_eq(r.out, "replaced\n");
	expect_decision("printf", "replaced\\n", SHELLESC_RUN);
	run_free(&r);
}

SHELL_TEST(command_substitution)
{
	struct run r;
	char who[80];

	run_in_session(sh, "u=$(id -un); echo \"u=$u\"; d=$(rm -f x 2>&1); echo \"d=$?:$d\"; "
	    "n=$(/usr/bin/printf run | /usr/bin/wc -c); echo \"n=$n\"; "
	    "echo \"nested=$(echo $(/usr/bin/printf deep))\"",
	    0, NULL, &r);
	snprintf(who, sizeof(who), "u=%s\n", user_name());
	expect_out(&r, who, "d=126:" DENIED "rm\n", "n=3\n", "nested=deep\n");
	expect_decision("wc", "-c", SHELLESC_RUN);
	expect_decision("printf", "deep", SHELLESC_RUN);
	run_free(&r);
}

/*
 * xargs and find are asked about, but what they exec is not: they are not
 * patched (preload mode covers them).  A patched shell they start is
 * intercepted again, since EXEC_WRAPPER stays in the environment.
 */
SHELL_TEST(xargs_and_find_exec)
{
	struct run r;

	th_put(dir, "victim1", "", 0644);
	th_put(dir, "victim2", "", 0644);
	run_in_session(sh, "/usr/bin/printf '%s\\n' one two | /usr/bin/xargs /usr/bin/printf 'x:%s\\n'; "
	    "/usr/bin/find . -name victim1 -exec rm -f {} +; echo \"find1=$?\"; "
	    "/usr/bin/find . -name victim2 -exec \"$PBASH\" -c 'rm -f \"$1\"' sh {} \\;; "
	    "echo \"find2=$?\"",
	    0, NULL, &r);
	expect_out(&r, "x:one\nx:two\n");
	expect_decision("xargs", NULL, SHELLESC_RUN);
	expect_no_decision("printf", "x:%s\\n");
	/* rm is denied, yet find ran it unasked. */
	expect_decision("find", ".", SHELLESC_RUN);
	cr_assert_not(th_exists(dir, "victim1"), "find -exec rm did not run");
	/* find -> patched bash -> rm: bash's exec is asked, and denied. */
	cr_assert(th_exists(dir, "victim2"), "rm ran from the patched bash started by find");
	cr_assert_eq(count_decisions("rm"), 1, "only the patched bash's rm is asked about");
	cr_assert_str_eq(expect_decision("rm", "-f", SHELLESC_DENY)->argv[2], "./victim2");
	expect_no_decision("bash", "-c");
	expect_err(&r, DENIED "rm");
	run_free(&r);
}

/* A script without #!: asked about like any program; the wrapper runs it
 * as the shell would: zsh's with /bin/sh (not patched: the commands inside
 * are not asked about), bash's with the patched bash itself, which asks. */
SHELL_TEST(script_without_shebang)
{
	static const struct rule esc_script[] = { { "escalated-script", SHELLESC_ESCALATE }, { NULL, 0 } };
	struct run r;
	char prog[128];

	th_put(dir, "noshebang", "/usr/bin/printf 'inside:%s\\n' \"$1\"\n", 0755);
	th_put(dir, "denied-script", "/usr/bin/printf 'must not run\\n'\n", 0755);
	th_put(dir, "escalated-script", "/usr/bin/printf 'escalated:%s\\n' \"$1\"\n", 0755);
	run_in_session(sh, "./noshebang 'a b'; echo \"rc=$?\"; ./denied-script; echo \"denied=$?\"; "
	    "./escalated-script x", 0, esc_script, &r);
	expect_out(&r, "inside:a b\nrc=0\n", "escalated:x\n");
	expect_decision("escalated-script", "x", SHELLESC_ESCALATE);
	expect_out(&r, "denied=126");
	cr_assert_null(strstr(r.out, "must not run"));
	snprintf(prog, sizeof(prog), "%s/noshebang", dir);
	cr_assert_str_eq(expect_decision("noshebang", "a b", SHELLESC_RUN)->program, prog);
	expect_decision("denied-script", NULL, SHELLESC_DENY);
	if (strstr(base_of(sh), "bash"))
		expect_decision("printf", "inside:%s\\n", SHELLESC_RUN);
	else
		expect_no_decision("printf", "inside:%s\\n");
	run_free(&r);
}

/* exec -a: argv[0] reaches the policy, and the program when it runs in
 * place; escalated, it gets its own name (docs/security.md: argv[0] picks
 * a multi-call program's behaviour, which the rules did not decide). */
SHELL_TEST(exec_argv0)
{
	static const struct rule esc_dump[] = { { "argv-dump", SHELLESC_ESCALATE }, { NULL, 0 } };
	static const char want_run[] = "fancy-name\0x\0", want_esc[] = "argv-dump\0x\0";
	struct run r;

	for (int escalate = 0; escalate < 2; escalate++) {
		const char *want = escalate ? want_esc : want_run;
		size_t len = escalate ? sizeof(want_esc) - 1 : sizeof(want_run) - 1;

		run_in_session(sh, "exec -a fancy-name \"$ARGV_DUMP\" x", 0,
		    escalate ? esc_dump : NULL, &r);
		cr_assert_eq(r.out_len, len, "%s", r.err);
		cr_assert_eq(memcmp(r.out, want, len), 0);
		cr_assert_str_eq(expect_decision("argv-dump", "x",
		    escalate ? SHELLESC_ESCALATE : SHELLESC_RUN)->argv[0], "fancy-name");
		run_free(&r);
		forget_decisions();
	}
}

/* Arguments -- and argv[0], and a program's name -- that look like options. */
SHELL_TEST(option_like_arguments)
{
	static const char want[] = "-zsh\0--help\0--\0-c\0-x\0";
	struct run r;

	th_put(dir, "--help", "#!/bin/sh\necho \"help-script:$1\"\n", 0755);
	run_in_session(sh, "(exec -a -zsh \"$ARGV_DUMP\" --help -- -c -x); ./--help -zsh", 0, NULL, &r);
	cr_assert_geq(r.out_len, sizeof(want) - 1, "%s", r.err);
	cr_assert_eq(memcmp(r.out, want, sizeof(want) - 1), 0);
	cr_assert_str_eq(r.out + sizeof(want) - 1, "help-script:-zsh\n");
	expect_decision("argv-dump", "--help", SHELLESC_RUN);
	cr_assert_str_eq(expect_decision("--help", "-zsh", SHELLESC_RUN)->argv[0], "./--help");
	run_free(&r);
}

/* Bytes that are not UTF-8, in arguments and in a file name, byte for byte. */
SHELL_TEST(non_utf8_arguments)
{
	static const struct rule esc_cat[] = { { "cat", SHELLESC_ESCALATE }, { NULL, 0 } };
	static const char want[] = "dump\0\xff\xfe-bytes\0caf\xe9\0escalated data\n";
	struct run r;

	th_put(dir, "\xff", "escalated data\n", 0644);
	run_in_session(sh, "(exec -a dump \"$ARGV_DUMP\" $'\\xff\\xfe-bytes' $'caf\\xe9'); "
	    "/bin/cat $'\\xff'", 0, esc_cat, &r);
	cr_assert_eq(r.out_len, sizeof(want) - 1, "%s", r.err);
	cr_assert_eq(memcmp(r.out, want, sizeof(want) - 1), 0);
	cr_assert_str_eq(expect_decision("argv-dump", "\xff\xfe-bytes", SHELLESC_RUN)->argv[2],
	    "caf\xe9");
	expect_decision("cat", "\xff", SHELLESC_ESCALATE);
	run_free(&r);
}

/* --- Nesting and startup ----------------------------------------------- */

/*
 * sh -> other -> sh (bash -> zsh -> bash, and zsh -> bash -> zsh): each
 * level's execs are decided and the session socket is the same descriptor
 * all the way down, still served after the inner shells ended.
 */
SHELL_TEST(nesting)
{
	const char *other = other_shell(sh);
	char script[512];
	struct run r;

	th_put(dir, "inner.sh", "id -un >/dev/null; rm -f x; echo \"inner-rm=$?\"; "
	    "/usr/bin/printf 'inner:%s\\n' \"$SHELLESC_ESCALATE_SOCKET\"\n", 0644);
	snprintf(script, sizeof(script), "\"%s\" ./inner.sh; echo \"middle-after=$?\"; "
	    "/usr/bin/printf 'middle:%%s\\n' \"$SHELLESC_ESCALATE_SOCKET\"\n", sh);
	th_put(dir, "middle.sh", script, 0644);
	snprintf(script, sizeof(script), "\"%s\" ./middle.sh; "
	    "/usr/bin/printf 'outer:%%s\\n' \"$SHELLESC_ESCALATE_SOCKET\"; id -un", other);
	run_in_session(sh, script, 0, NULL, &r);
	expect_out(&r, "inner-rm=126\n", "middle-after=0\n");
	cr_assert_eq(r.code, 0, "%s", r.err);
	/* The same socket at every level. */
	const char *in = strstr(r.out, "inner:"), *mid = strstr(r.out, "middle:"),
	    *out = strstr(r.out, "outer:");
	cr_assert(in && mid && out, "%s", r.out);
	cr_assert_eq(strcspn(in + 6, "\n"), strcspn(out + 6, "\n"));
	cr_assert_eq(strncmp(in + 6, out + 6, strcspn(out + 6, "\n")), 0, "%s", r.out);
	cr_assert_eq(strncmp(mid + 7, out + 6, strcspn(out + 6, "\n")), 0, "%s", r.out);
	/* Each level asked, in order: other, sh, then the inner commands, then
	 * the outer ones after the inner shells ended. */
	int i_other = decided(base_of(other), "./middle.sh");
	int i_sh = decided(base_of(sh), "./inner.sh");
	int i_rm = decided("rm", "-f");
	int i_out = decided("printf", "outer:%s\\n");
	cr_assert(i_other >= 0 && i_sh > i_other && i_rm > i_sh && i_out > i_rm,
	    "order: %d %d %d %d", i_other, i_sh, i_rm, i_out);
	cr_assert_str_eq(pol.seen[i_sh].program, sh);
	cr_assert_eq(pol.seen[i_rm].action, SHELLESC_DENY);
	cr_assert_geq(decided_from(i_out, "id", "-un"), 0, "the outer id after nesting");
	run_free(&r);
}

/*
 * A login shell (-lc): commands in startup files are asked about like any
 * other, before the script's own (shellesc does not mark them apart).
 */
SHELL_TEST(login_startup_files)
{
	const char *startup = "/usr/bin/printf 'startup:%s\\n' profile; rm -f x; "
	    "echo \"startup-rm=$?\"\n";
	struct run r;

	th_put(dir, ".bash_profile", startup, 0644);
	th_put(dir, ".zprofile", startup, 0644);
	run_in_session(sh, "/usr/bin/printf 'script:%s\\n' main", 1, NULL, &r);
	expect_out(&r, "startup:profile\nstartup-rm=126\n", "script:main\n");
	cr_assert_lt(strstr(r.out, "startup:") - r.out, strstr(r.out, "script:") - r.out);
	int i_start = decided("printf", "startup:%s\\n");
	cr_assert_geq(i_start, 0);
	cr_assert_gt(decided("printf", "script:%s\\n"), i_start);
	expect_decision("rm", "-f", SHELLESC_DENY);
	run_free(&r);
}

/* exec -c clears the command's environment: the session still reaches the
 * wrapper (the shell adds its socket, the wrapper takes it out again), the
 * command is decided, and it gets the empty environment it was given. */
SHELL_TEST(exec_clean_env_is_decided)
{
	struct run r;

	run_in_session(sh, "(exec -c /usr/bin/env); echo \"env=$?\"; "
	    "(exec -c /usr/bin/touch made); echo \"touch=$?\"; "
	    "(exec -c /bin/rm -f made); echo \"rm=$?\"", 0, NULL, &r);
	cr_assert_str_eq(r.out, "env=0\ntouch=0\nrm=126\n", "stderr:\n%s", r.err);
	expect_decision("env", NULL, SHELLESC_RUN);
	expect_decision("touch", "made", SHELLESC_RUN);
	expect_decision("rm", "-f", SHELLESC_DENY);
	expect_err(&r, DENIED "rm");
	cr_assert(th_exists(dir, "made"));
	run_free(&r);
}

/* In both mode the preload puts the session in every child: exec -c's
 * command is decided and keeps the session, nothing of the shell's
 * marker is left. */
SHELL_TEST(exec_clean_env_both_mode)
{
	struct run r;

	tp_require_preload();
	run_in_mode(sh, "(exec -c /usr/bin/env); (exec -c /bin/rm -f x); echo \"rm=$?\"", 0, NULL,
	    SHELLESC_INTERCEPT_WRAPPER | SHELLESC_INTERCEPT_PRELOAD, &r);
	expect_out(&r, "SHELLESC_ESCALATE_SOCKET=", "rm=126\n");
	cr_assert_null(strstr(r.out, "SHELLESC_WRAPPER_ADDED"), "%s", r.out);
	cr_assert_null(strstr(r.out, "SHELLESC_WRAPPER_SHELL"), "%s", r.out);
	expect_decision("env", NULL, SHELLESC_RUN);
	expect_decision("rm", "-f", SHELLESC_DENY);
	run_free(&r);
}

/* The deny of an exec the shell's exec builtin made reads "Permission
 * denied", as for any EACCES (bash's builtin used to lose the errno and
 * print "Success").  Preload mode: the shell itself sees the EACCES. */
SHELL_TEST(exec_denied_permission_denied)
{
	struct run r;

	tp_require_preload();
	run_in_mode(sh, "exec -a NAME /bin/rm -f x", 0, NULL, SHELLESC_INTERCEPT_PRELOAD, &r);
	cr_assert_eq(r.code, 126, "%s", r.err);
	expect_err(&r, DENIED "rm");
	cr_assert(strstr(r.err, "Permission denied") || strstr(r.err, "permission denied"),
	    "%s", r.err);
	cr_assert_null(strstr(r.err, "Success"), "%s", r.err);
	run_free(&r);
}

/* The scripts' answers inside a live session equal the stock shell's with
 * no session: missing files, #! lines with missing or relative
 * interpreters (zsh finds a relative one in $PATH), files without #!
 * (bash runs them with bash, zsh with /bin/sh), exec -a.  Run in wrapper mode, then in both mode. */
static const char stock_script[] =
    "v=inherited; ./missing; echo $?; ./plain; echo $?; /tmp; echo $?; nosuchcommand; echo $?; "
    "./noshebang x; echo $?; ./badinterp; echo $?; ./relinterp; echo $?; "
    "PATH=\"$PWD/bin/:$PATH\" slashless a; echo $?; (exec -a NAME ./noshebang y); echo $?; "
    "exec ./noshebang last";


/* The session's run of the patched shell, its name for itself as stock's. */
static void
expect_as_stock(const char *sh, unsigned intercept)
{
	const char *stock = stock_or_skip(sh);
	struct run a, b;
	char *p;

	stock_files();
	run_with_wrapper(stock, NULL, stock_script, &a);
	run_in_mode(sh, stock_script, 0, NULL, intercept, &b);
	/* the session runs the shell as argv[0] = its path; run_plain as "testsh" */
	while ((p = strstr(b.err, sh)) != NULL) {
		memmove(p + 6, p + strlen(sh), strlen(p + strlen(sh)) + 1);
		memcpy(p, "testsh", 6);
	}
	cr_assert_str_eq(b.out, a.out, "stock:\n%s\nstderr:\n%s\nsession stderr:\n%s", a.out, a.err, b.err);
	cr_assert_str_eq(b.err, a.err);
	cr_assert_eq(b.code, a.code);
	expect_out(&b, "no #!: last");
	run_free(&a);
	run_free(&b);
}

SHELL_TEST(as_stock_in_wrapper_mode)
{
	expect_as_stock(sh, SHELLESC_INTERCEPT_WRAPPER);
}

SHELL_TEST(as_stock_in_both_mode)
{
	tp_require_preload();
	expect_as_stock(sh, SHELLESC_INTERCEPT_WRAPPER | SHELLESC_INTERCEPT_PRELOAD);
}
