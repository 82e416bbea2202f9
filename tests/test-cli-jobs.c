/*
 * test-cli-jobs.c: suite cli_jobs -- escalated commands on the terminal
 * behave as plain children of their caller: they read the terminal (a
 * bash read, vi, less), ^C ends them with the caller's status a signal's,
 * ^Z stops them and the interactive shell reports the job stopped, fg
 * continues them, and the terminal goes back to the caller's group when
 * they end.  Everything runs on a real pty with a real bash.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/cli.h"

#define WAIT_MS 10000

static struct tc t;
static struct tc_res r;
static struct tc_pty p;
static char vi[PATH_MAX];	/* vi's real file name: a rule names what runs */

static void
setup(void)
{
	char real[PATH_MAX], rules[PATH_MAX + 256];

	cr_assert_not_null(realpath(tc_which("vi"), real), "no vi");
	snprintf(vi, sizeof(vi), "%s", basename(real));
	snprintf(rules, sizeof(rules),
	    "prefix_rule(pattern=[\"bash\"], decision=\"escalate\")\n"
	    "prefix_rule(pattern=[\"%s\"], decision=\"escalate\")\n"
	    "prefix_rule(pattern=[\"less\"], decision=\"escalate\")\n", vi);
	tc_init(&t, rules);
	tc_env_set(&t, "TERM=xterm");
	tc_file(&t, "f.txt", "first line\n");
}

static void
teardown(void)
{
	tc_fini(&t, &r);
}

TestSuite(cli_jobs, .init = setup, .fini = teardown, .timeout = TC_TIMEOUT);

/* An escalated bash that shows "re-ady" (unlike its echoed command line),
 * then reads a line. */
#define READER "G bash -c 'printf %s-%s re ady; read -r x; echo got:$x'"

/* shellesc run ... -- bash ARGS on the pty. */
static void
start(char *const bash_args[])
{
	char *argv[16] = { (char *)TEST_SHELLESC, "run", "-p", "t.rules", "--mode", "wrapper", "--force",
	    "--", "bash" };
	size_t n = 9;

	while (*bash_args)
		argv[n++] = *bash_args++;
	tc_pty_start(&t, &p, NULL, argv);
}

/* Type a command line once the interactive shell asks for one: typed
 * earlier, it could be read by the job that is ending. */
static void
shell(const char *line)
{
	tc_pty_expect(&p, TC_PS1, WAIT_MS);
	tc_pty_send(&p, line);
	tc_pty_send(&p, "\n");
}

/* An interactive bash in a session, with G defined. */
static void
interactive(void)
{
	tc_file(&t, "rc", TC_RC);
	start((char *[]){ "--noprofile", "--rcfile", "rc", "-i", NULL });
}

/* $? of the last command, as the interactive shell says it. */
static void
expect_status(const char *want)
{
	char text[32];

	shell("echo st:$?");
	snprintf(text, sizeof(text), "st:%s\r", want);
	tc_pty_expect(&p, text, WAIT_MS);
}

static int
finish(void)
{
	shell("exit");
	return tc_pty_end(&p, WAIT_MS);
}

/* The escalated command reads what is typed; then the terminal is the
 * caller's again, so the caller's shell reads the next line. */
Test(cli_jobs, read_gets_the_line)
{
	int st;

	start((char *[]){ "-c", TC_GATE READER "; echo st:$?; "
	    "printf %s-%s aga in; read -r y; echo again:$y", NULL });
	tc_pty_expect(&p, "re-ady", WAIT_MS);
	tc_pty_send(&p, "one\r");
	tc_pty_expect(&p, "got:one", WAIT_MS);
	tc_pty_expect(&p, "st:0", WAIT_MS);
	tc_pty_expect(&p, "aga-in", WAIT_MS);
	tc_pty_send(&p, "two\r");
	tc_pty_expect(&p, "again:two", WAIT_MS);
	st = tc_pty_end(&p, WAIT_MS);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

/* ^C while it reads: it dies of SIGINT, and so does the caller, as the
 * shell's plain child would. */
Test(cli_jobs, ctrl_c_interrupts)
{
	interactive();
	shell(READER);
	tc_pty_expect(&p, "re-ady", WAIT_MS);
	tc_pty_send(&p, "\003");
	expect_status("130");
	finish();
}

/* ^Z while it reads: the shell reports the job stopped; fg continues it
 * on the terminal, and it reads the line typed then. */
Test(cli_jobs, ctrl_z_stops_and_fg_continues)
{
	interactive();
	shell(READER);
	tc_pty_expect(&p, "re-ady", WAIT_MS);
	tc_pty_send(&p, "\032");
	tc_pty_expect(&p, "Stopped", WAIT_MS);
	shell("jobs");
	tc_pty_expect(&p, "Stopped", WAIT_MS);
	shell("fg");
	tc_pty_expect(&p, "\"$@\"", WAIT_MS);	/* the job's command line, from fg */
	usleep(300000);			/* fg shows the job, then continues it */
	tc_pty_send(&p, "later\r");
	tc_pty_expect(&p, "got:later", WAIT_MS);
	expect_status("0");
	finish();
}

/* vi edits on the terminal, is stopped with ^Z and continued with fg. */
Test(cli_jobs, vi_edits_stops_and_continues)
{
	char cmd[PATH_MAX + 64], *text;

	interactive();
	snprintf(cmd, sizeof(cmd), "G %s -u NONE -i NONE -N f.txt", vi);
	shell(cmd);
	tc_pty_expect(&p, "first line", WAIT_MS);
	tc_pty_send(&p, "Oedited\033");
	tc_pty_expect(&p, "edited", WAIT_MS);
	tc_pty_send(&p, "\032");
	tc_pty_expect(&p, "Stopped", WAIT_MS);
	shell("fg");
	tc_pty_expect(&p, "first line", WAIT_MS);	/* redrawn */
	usleep(500000);		/* vim takes the terminal's modes back after the redraw */
	tc_pty_send(&p, ":wq\r");
	expect_status("0");
	finish();
	cr_assert_not_null(text = tc_read(&t, "f.txt"));
	cr_assert_str_eq(text, "edited\nfirst line\n");
	free(text);
}

/* less reads its keys from /dev/tty. */
Test(cli_jobs, less_pages)
{
	interactive();
	shell("G less f.txt");
	tc_pty_expect(&p, "first line", WAIT_MS);
	tc_pty_expect(&p, "(END)", WAIT_MS);
	tc_pty_send(&p, "q");
	expect_status("0");
	finish();
}
