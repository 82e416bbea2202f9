/*
 * test-cli-complete.c: suite cli_complete -- the shell completions in
 * completions/: bash's, run in a real bash, completes commands, options
 * and their words; both files know every long option shellesc help lists.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/base.h"
#include "helpers/cli.h"

TC_SUITE(cli_complete, NULL);

static char out[4096];

/* What bash's completion offers for the words (the last one is completed). */
static void
complete(const char *words)
{
	char cmd[1024];
	FILE *f;
	size_t n;

	snprintf(cmd, sizeof(cmd), "bash --norc -c 'source %s/shellesc; COMP_WORDS=(%s); "
	    "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _shellesc; echo \"${COMPREPLY[*]}\"'",
	    TEST_COMPLETIONS, words);
	cr_assert_not_null(f = popen(cmd, "r"));
	n = fread(out, 1, sizeof(out) - 1, f);
	out[n] = '\0';
	cr_assert_eq(pclose(f), 0, "%s", cmd);
}

Test(cli_complete, bash_commands_options_words)
{
	complete("shellesc ex");
	cr_assert_str_eq(out, "exec\n");
	complete("shellesc exec --out");
	cr_assert_str_eq(out, "--output\n");
	complete("shellesc exec --output s");
	cr_assert_str_eq(out, "split\n");
	complete("shellesc run --audit-fail s");
	cr_assert_str_eq(out, "stop\n");
	complete("shellesc audit --decision e");
	cr_assert_str_eq(out, "escalate\n");
}

static const char *const cmds[] = { "run", "check", "exec", "mcp", "audit" };

ParameterizedTestParameters(cli_complete, every_option_is_known)
{
	return ts_indexes(sizeof(cmds) / sizeof(cmds[0]));
}

/* Each --option of shellesc help COMMAND is in both completion files. */
ParameterizedTest(size_t *i, cli_complete, every_option_is_known)
{
	char *files[2];

	for (int k = 0; k < 2; k++)
		files[k] = th_read_file(th_at(TEST_COMPLETIONS, k ? "_shellesc" : "shellesc"), NULL);
	tc_run(&t, &r, NULL, TS_V("help", (char *)cmds[*i]));
	for (const char *p = r.out; (p = strstr(p, " --")) != NULL; p += 3) {
		char name[64];
		size_t n = strspn(p + 1, "-abcdefghijklmnopqrstuvwxyz");

		snprintf(name, sizeof(name), "%.*s", (int)n, p + 1);
		if (n < 4 || strcmp(name, "--version") == 0)
			continue;
		for (int k = 0; k < 2; k++)
			cr_expect_not_null(strstr(files[k], name), "%s: %s misses %s", cmds[*i],
			    k ? "_shellesc" : "shellesc", name);
	}
	free(files[0]);
	free(files[1]);
}
