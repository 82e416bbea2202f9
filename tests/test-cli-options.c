/*
 * test-cli-options.c: suite cli_options -- the command line of shellesc:
 * --version, --help against the manual page, and every kind of bad
 * option or argument failing with 125 and a message naming it.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/base.h"
#include "helpers/cli.h"

TC_SUITE(cli_options, NULL);

Test(cli_options, version)
{
	tc_run(&t, &r, NULL, TS_V("--version"));
	cr_assert_eq(tc_code(&r), 0);
	cr_assert_str_eq(r.out, "shellesc " PACKAGE_VERSION "\n");
}

/* Each long option named in one text ("--name") is in the other. */
static void
options_in(const char *from, const char *what, const char *into, const char *where)
{
	for (const char *p = from; (p = strstr(p, "--")) != NULL; p += 2) {
		char name[64] = "--";
		size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");

		if (n < 2 || n > sizeof(name) - 3)
			continue;
		memcpy(name + 2, p + 2, n);
		name[n + 2] = '\0';
		cr_expect_not_null(strstr(into, name), "%s names %s, %s does not", what, name, where);
	}
}

/* --help and shellesc(1) document the same options. */
Test(cli_options, help_matches_the_manual)
{
	char *man = th_read_file(TEST_MAN_SHELLESC, NULL), *plain;

	/* roff writes "--" as "\-\-" */
	cr_assert_not_null(plain = strdup(man));
	for (char *s = man, *d = plain;; s++) {
		if (s[0] == '\\' && s[1] == '-')
			s++;
		if ((*d++ = *s) == '\0')
			break;
	}
	tc_run(&t, &r, NULL, TS_V("--help"));
	cr_assert_eq(tc_code(&r), 0);
	cr_assert(strncmp(r.out, "usage: shellesc run", 19) == 0, "%s", r.out);
	options_in(r.out, "--help", plain, "shellesc(1)");
	options_in(plain, "shellesc(1)", r.out, "--help");
	free(man);
	free(plain);
}

struct bad {
	const char *args[8];
	const char *says;	/* in the message */
};

static const struct bad bads[] = {
	{ { NULL }, "usage:" },
	{ { "frobnicate" }, "unknown command 'frobnicate'" },
	{ { "run", "--bogus", "true" }, "unknown option --bogus" },
	{ { "run", "-x", "true" }, "unknown option -x" },
	{ { "run", "-p" }, "option -p needs an argument" },
	{ { "run", "--policy" }, "option --policy needs an argument" },
	{ { "run" }, "no PROGRAM" },
	{ { "run", "--mode", "ptrace", "true" }, "--mode 'ptrace'" },
	{ { "run", "--sandbox", "chroot", "true" }, "--sandbox 'chroot'" },
	{ { "run", "--default", "maybe", "true" }, "--default 'maybe'" },
	{ { "run", "--prompt-timeout", "0", "true" }, "--prompt-timeout '0'" },
	{ { "run", "--prompt-timeout", "5s", "true" }, "--prompt-timeout '5s'" },
	{ { "run", "-w", ".", "true" }, "--writable needs --sandbox landlock" },
	{ { "run", "--no-network", "true" }, "--no-network needs --sandbox landlock" },
	{ { "run", "-p", "/nonexistent/x.rules", "true" }, "/nonexistent/x.rules" },
	{ { "run", "-p", "@bad.rules", "true" }, "bad.rules:1:" },
	{ { "run", "-a", "/nonexistent/audit.log", "true" }, "--audit /nonexistent/audit.log" },
	{ { "run", "--mode", "wrapper", "--force", "--", "no-such-program-here" }, "command not found" },
	{ { "check" }, "no ARGV" },
	{ { "check", "--mode", "both", "ls" }, "unknown option --mode" },
	{ { "exec" }, "-c COMMAND is required" },
	{ { "exec", "-c", "true", "extra" }, "unexpected argument 'extra'" },
	{ { "exec", "--timeout", "soon", "-c", "true" }, "--timeout 'soon'" },
	{ { "exec", "--cwd", "/nonexistent", "-c", "true" }, "--cwd /nonexistent" },
	{ { "exec", "--mode", "wrapper", "--shell", "/nonexistent/sh", "-c", "true" },
	  "/nonexistent/sh" },
};

ParameterizedTestParameters(cli_options, bad)
{
	return ts_indexes(sizeof(bads) / sizeof(bads[0]));
}

/* 125 (shellesc's own failure, as env(1) uses it), except 127 for a
 * PROGRAM that is not found; the message names what was wrong. */
ParameterizedTest(size_t *i, cli_options, bad)
{
	const struct bad *b = &bads[*i];
	char *args[8] = { NULL };

	tc_file(&t, "bad.rules", "prefix_rule(pattern=[\"rm\"], decision=\"sometimes\")\n");
	for (size_t k = 0; b->args[k]; k++)
		args[k] = b->args[k][0] == '@' ? (char *)tc_path(&t, b->args[k] + 1) :
		    (char *)b->args[k];
	tc_run(&t, &r, NULL, args);
	cr_expect_eq(tc_code(&r), strstr(b->says, "not found") ? 127 : 125,
	    "exit %d: %s", tc_code(&r), r.err);
	cr_expect_not_null(strstr(r.err, b->says), "expected \"%s\" in: %s", b->says, r.err);
	cr_expect_str_eq(r.out, "");
}

/* A PROGRAM that exists but cannot be executed: 126. */
Test(cli_options, program_not_executable)
{
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", (char *)tc_file(&t, "plain", "x\n")));
	cr_assert_eq(tc_code(&r), 126, "%s", r.err);
	cr_assert_not_null(strstr(r.err, "Permission denied"), "%s", r.err);
}
