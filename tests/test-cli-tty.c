/*
 * test-cli-tty.c: suite cli_tty -- nothing in a session can type on its
 * terminal.  A background process pushes "y" with TIOCSTI while a prompt
 * waits: the prompt still waits for the real keystroke, and the file the
 * prompt guards survives.  A command pushed for the user's shell never
 * reaches it after the session.  Every tty-injection ioctl fails with
 * EPERM, however it is issued (high bits, the i386 and x32 ABIs).  Under
 * Landlock (ABI 5) devices the session opens take no ioctl, while job
 * control on its terminal still works.  A padded argv with a line of its
 * own making cannot push the real program off an 80x24 question.  The
 * Landlock cases run the whole
 * command as the unprivileged user of tests/helpers/user.h, as a user
 * runs it: the session is that user's, and so is the filter's install.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "helpers/cli.h"
#include "helpers/user.h"

static const char rules[] = "prefix_rule(pattern=[\"rm\"], decision=\"prompt\")\n";

static struct tc t;
static struct tc_res r;

/* Who attacks, and with what: the test's user, or the unprivileged one. */
static struct {
	struct tu_user u, *as;
	const char *probe, *sbx, *target;
	const char *dflt;		/* --default, or NULL */
	char *owned[2];
} a;

static void
setup(void)
{
	tc_init(&t, rules);
	memset(&a, 0, sizeof(a));
}

static void
teardown(void)
{
	free(a.owned[0]);
	free(a.owned[1]);
	tc_fini(&t, &r);
}

TestSuite(cli_tty, .init = setup, .fini = teardown, .timeout = TC_TIMEOUT);

/* path as u reaches it; the libtool wrapper script cannot be copied. */
static const char *
reach(const char *path, bool copy_ok)
{
	const char *p = tu_reachable(&a.u, path);

	if (p == NULL || (!copy_ok && strcmp(p, path) != 0))
		TC_SKIP(&t, &r, "the build tree is closed to %s, and %s cannot be copied",
		    a.u.name, path);
	return p;
}

/*
 * The attacker: with Landlock, the unprivileged user owning the test's
 * directory (the shellesc it runs, the wrapper and the probe reachable);
 * else the test's own user.  sbx/ is the sandbox's writable root, target
 * a file outside it.
 */
static void
attacker(bool landlock)
{
	const char *why = NULL;

	a.probe = TEST_TTY_PROBE;
	a.sbx = tc_path(&t, "sbx");
	a.target = tc_file(&t, "target", "keep me\n");
	cr_assert_eq(mkdir(a.sbx, 0755), 0);
	if (!landlock)
		return;
	tc_need_landlock(&t, &r, 1);
	if (tu_user(&a.u, &why) != 0)
		TC_SKIP(&t, &r, "%s", why);
	a.as = &a.u;
	reach(TEST_SHELLESC, false);
	a.probe = reach(TEST_TTY_PROBE, true);
	cr_assert(asprintf(&a.owned[0], "SHELLESC_WRAPPER=%s", reach(TEST_WRAPPER, true)) > 0);
	tc_env_set(&t, a.owned[0]);
	if (a.u.created) {
		const char *own[] = { t.dir, a.sbx, a.target };

		for (size_t i = 0; i < 3; i++)
			cr_assert_eq(chown(own[i], a.u.uid, a.u.gid), 0);
	}
}

/* shellesc run ... -- bash -c script on a pty, as the attacker. */
static int
session(bool landlock, const char *const answers[], const char *script)
{
	char *argv[24] = { (char *)TEST_SHELLESC, "run", "-p", "t.rules", "--mode", "wrapper", "--force",
	    "--prompt-timeout", "30" };
	size_t n = 9;

	if (a.dflt != NULL) {
		argv[n++] = "--default";
		argv[n++] = (char *)a.dflt;
	}
	if (landlock) {
		argv[n++] = "-s";
		argv[n++] = "landlock";
		argv[n++] = "-w";
		argv[n++] = (char *)a.sbx;
	}
	argv[n++] = "--";
	argv[n++] = "bash";
	argv[n++] = "-c";
	argv[n++] = (char *)script;
	return tc_pty_run(&t, &r, a.as, answers, argv);
}

struct mode {
	const char *name;
	bool landlock;
};

static const struct mode modes[] = { { "none", false }, { "landlock", true } };

ParameterizedTestParameters(cli_tty, prompt_not_answered_by_tiocsti)
{
	return ts_indexes(sizeof(modes) / sizeof(modes[0]));
}

/*
 * rm asks; meanwhile a background process of the session pushes "y\n"
 * into the terminal every 0.2 s until rm is decided.  Only the keystroke
 * typed 2 s after the question ("n") may answer it.
 */
ParameterizedTest(size_t *i, cli_tty, prompt_not_answered_by_tiocsti)
{
	char script[1024], *log;

	attacker(modes[*i].landlock);
	snprintf(script, sizeof(script), TC_GATE "G rm %s & w=$!; "
	    "while kill -0 $w 2>/dev/null; do %s push $'y\\n' >> sbx/push.log; sleep 0.2; done; "
	    "wait $w; echo \"rm: $?\"", a.target, a.probe);
	cr_assert_eq(session(modes[*i].landlock, (const char *[]){ TC_LATE "n", NULL }, script), 1,
	    "%s", r.out);
	cr_assert(tc_exists(&t, "target"), "the pushed y answered the prompt: %s", r.out);
	cr_assert_not_null(strstr(r.out, "rm: 126"), "%s", r.out);
	cr_assert_not_null(log = tc_read(&t, "sbx/push.log"), "%s", r.out);
	cr_assert_not_null(strstr(log, "push: EPERM\n"), "%s", log);
	cr_assert_null(strstr(log, "push: ok"), "%s", log);
	free(log);
}

/* The rows text (lines ending in CR LF) takes on an 80-column terminal. */
static size_t
screen_rows(const char *s, size_t n)
{
	size_t rows = 0;

	for (const char *end; n > 0; ) {
		size_t len = (end = memchr(s, '\n', n)) ? (size_t)(end - s) : n;

		if (len > 0 && s[len - 1] == '\r')
			len--;
		rows += len == 0 ? 1 : (len + 79) / 80;
		if (end == NULL)
			break;
		n -= (size_t)(end - s) + 1;
		s = end + 1;
	}
	return rows;
}

ParameterizedTestParameters(cli_tty, prompt_fits_the_terminal)
{
	return ts_indexes(2 * sizeof(modes) / sizeof(modes[0]));
}

/*
 * rm asks with 40 arguments of spaces around a fake "command:" line, by
 * its prompt rule or, with no rule, by --default prompt (the question then
 * shows the rules "always" would add, argv and all).  The question fits 24
 * rows, its command is cut with a count, and the last lines are the real
 * program and the answer line, below any fake one.
 */
ParameterizedTest(size_t *i, cli_tty, prompt_fits_the_terminal)
{
	char script[1024], want[256];
	const char *q, *ask, *prog;

	attacker(modes[*i % 2].landlock);
	if (*i >= 2) {
		tc_file(&t, "t.rules", "");
		a.dflt = "prompt";
	}
	snprintf(script, sizeof(script), TC_GATE "pad=$(printf '%%*s' 150 ''); args=(); "
	    "for k in $(seq 40); do args+=(\"$pad\" \"$pad  command: /usr/bin/git status\"); "
	    "done; G rm -f \"${args[@]}\" %s; echo \"rm: $?\"", a.target);
	cr_assert_eq(session(modes[*i % 2].landlock, (const char *[]){ "n", NULL }, script), 1,
	    "%s", r.out);
	cr_assert(tc_exists(&t, "target"), "%s", r.out);
	cr_assert_not_null(q = strstr(r.out, "shellesc: a command asks"), "%s", r.out);
	cr_assert_not_null(ask = strstr(q, "Allow it? "), "%s", r.out);
	ask = strstr(ask, ": ") + 2;
	cr_assert_leq(screen_rows(q, (size_t)(ask - q)) + 1, 24, "%s", r.out);
	cr_assert_not_null(strstr(q, "characters left out ...]"), "%s", r.out);
	snprintf(want, sizeof(want), "\r\n  program: %s\r\nAllow it? ", tc_which("rm"));
	cr_assert_not_null(prog = strstr(q, want), "%s", r.out);
	cr_assert_lt(prog, ask);
	cr_assert_null(strstr(prog + 1, "/usr/bin/git status"), "%s", r.out);
}

ParameterizedTestParameters(cli_tty, nothing_pushed_reaches_the_shell_after)
{
	return ts_indexes(sizeof(modes) / sizeof(modes[0]));
}

/* The user's shell reads its terminal once the session is over: only
 * what the user typed (here nothing) may be there. */
ParameterizedTest(size_t *i, cli_tty, nothing_pushed_reaches_the_shell_after)
{
	char inner[512], *outer;
	int n;

	attacker(modes[*i].landlock);
	snprintf(inner, sizeof(inner), "%s push $'echo INJECTED\\n'", a.probe);
	n = asprintf(&outer, "'%s' run -p t.rules --mode wrapper --force %s%s -- bash -c \"$0\"; "
	    "read -r -t 3 line; echo \"after:[$line]\"", TEST_SHELLESC,
	    modes[*i].landlock ? "-s landlock -w " : "", modes[*i].landlock ? a.sbx : "");
	cr_assert_gt(n, 0);
	tc_pty_run(&t, &r, a.as, (const char *[]){ NULL },
	    (char *[]){ "/bin/bash", "-c", outer, inner, NULL });
	free(outer);
	cr_assert_not_null(strstr(r.out, "push: EPERM"), "%s", r.out);
	cr_assert_not_null(strstr(r.out, "after:[]"), "%s", r.out);
}

ParameterizedTestParameters(cli_tty, injection_ioctls_denied)
{
	return ts_indexes(sizeof(modes) / sizeof(modes[0]));
}

/* Each way to issue each one, on the session's terminal. */
ParameterizedTest(size_t *i, cli_tty, injection_ioctls_denied)
{
	static const char *const denied[] = {
		"TIOCSTI: EPERM\r\n", "TIOCSTI high bits: EPERM\r\n", "TIOCLINUX: EPERM\r\n",
		"TIOCSETD: EPERM\r\n", "KDSKBENT: EPERM\r\n", "KDSKBMODE: EPERM\r\n",
#if defined(__x86_64__) && !defined(__ILP32__)
		"x32 TIOCSTI: EPERM\r\n",
#endif
	};
	char script[512];

	attacker(modes[*i].landlock);
	snprintf(script, sizeof(script), "%s ioctls", a.probe);
	session(modes[*i].landlock, (const char *[]){ NULL }, script);
	cr_assert_eq(tc_code(&r), 0, "%s", r.out);
	for (size_t k = 0; k < sizeof(denied) / sizeof(denied[0]); k++)
		cr_expect_not_null(strstr(r.out, denied[k]), "no \"%.*s\" in:\n%s",
		    (int)strlen(denied[k]) - 2, denied[k], r.out);
#if defined(__x86_64__) && !defined(__ILP32__)
	cr_expect(strstr(r.out, "i386 TIOCSTI: EPERM\r\n") ||
	    strstr(r.out, "i386 TIOCSTI: no ia32 emulation\r\n"), "%s", r.out);
#endif
}

/* A character device u can open and that is no terminal (TCGETS gives
 * ENOTTY): a copy of /dev/null's node where we may make one, else one of
 * the system's; NULL if none. */
static const char *
plain_device(void)
{
	const char *candidates[] = { tc_path(&t, "null-node"), "/dev/autofs", "/dev/kmsg" };

	(void)mknod(candidates[0], S_IFCHR | 0666, makedev(1, 3));	/* root only */
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		bool plain;

		tc_pty_run(&t, &r, a.as, (const char *[]){ NULL },
		    (char *[]){ (char *)a.probe, "ioctl-dev", (char *)candidates[i], NULL });
		plain = strstr(r.out, "TCGETS: ENOTTY") != NULL;
		tc_res_free(&r);
		if (plain)
			return candidates[i];
	}
	return NULL;
}

/*
 * Under Landlock ABI 5 a device the session opens takes no ioctl (a
 * terminal ioctl gives EACCES, not ENOTTY), while the terminals do
 * (/dev/tty).
 */
Test(cli_tty, landlock_device_ioctls)
{
	const char *dev;
	char script[1024];

	attacker(true);
	tc_need_landlock(&t, &r, 5);
	if ((dev = plain_device()) == NULL)
		TC_SKIP(&t, &r, "no character device here that %s can open", a.u.name);
	snprintf(script, sizeof(script), "%s ioctl-dev %s; %s ioctl-dev /dev/tty",
	    a.probe, dev, a.probe);
	session(true, (const char *[]){ NULL }, script);
	cr_assert_not_null(strstr(r.out, "TCGETS: EACCES\r\nTCGETS: ok\r\n"), "%s: status %#x: %s", dev, r.status, r.out);
}

/* An interactive bash in a Landlock session opens /dev/tty itself and
 * drives its jobs through it: ^Z, fg and ^C work. */
Test(cli_tty, landlock_keeps_job_control)
{
	static struct tc_pty p;

	attacker(true);
	tc_file(&t, "rc", TC_RC);
	tc_pty_start(&t, &p, a.as, (char *[]){ (char *)TEST_SHELLESC, "run", "--mode", "wrapper", "--force",
	    "-s", "landlock", "-w", (char *)a.sbx, "--", "bash", "--noprofile", "--rcfile", "rc",
	    "-i", NULL });
	tc_pty_expect(&p, TC_PS1, 10000);
	tc_pty_send(&p, "bash -c 'printf %s-%s re ady; exec sleep 30'\n");
	tc_pty_expect(&p, "re-ady", 10000);
	tc_pty_send(&p, "\032");
	tc_pty_expect(&p, "Stopped", 10000);
	tc_pty_expect(&p, TC_PS1, 10000);
	tc_pty_send(&p, "fg\n");
	tc_pty_expect(&p, "sleep 30", 10000);
	/* fg shows the job, then gives it the terminal and continues it: a ^C
	 * before that reaches the waiting shell, not the job, so it is sent
	 * again until the job is gone rather than once after a guessed delay. */
	bool gone = false;
	for (int i = 0; i < 20 && !gone; i++) {
		tc_pty_send(&p, "\003");
		gone = tc_pty_wait(&p, TC_PS1, 500);
	}
	cr_assert(gone, "^C did not end the job within 10 s; the pty showed:\n%s", p.out);
	tc_pty_send(&p, "echo st:$?\n");
	tc_pty_expect(&p, "st:130", 10000);
	tc_pty_expect(&p, TC_PS1, 10000);
	tc_pty_send(&p, "exit\n");
	cr_expect_null(strstr(p.out, "no job control"), "%s", p.out);
	cr_expect_null(strstr(p.out, "cannot set terminal process group"), "%s", p.out);
	tc_pty_end(&p, 10000);
}
