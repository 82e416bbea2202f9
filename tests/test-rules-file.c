/* test-rules-file.c: suite rules_file -- loading files, appending rules,
 * byte-exact tokens, and a hundred thousand rules. */
#include "config.h"

#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/base.h"
#include "shellesc.h"
#include "helpers/rules.h"

/* Load path into a new set; asserts success. */
static struct rules *
file_load(const char *path)
{
	struct rules *r = rules_new();
	struct rules_error err;

	cr_assert_eq(rules_load_file(r, path, &err), 0, "%s:%d:%d: %s",
	    err.file, err.line, err.column, err.msg);
	return r;
}

/* Entries in dir besides . and .. */
static int
file_count_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)) != NULL)
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

Test(rules_file, load_errors_name_the_file)
{
	char *dir = th_tmpdir(), *path = th_path(dir, "bad.rules");
	struct rules *r = rules_new();
	struct rules_error err;

	cr_expect_eq(rules_load_file(r, path, &err), -1);
	cr_expect_eq(errno, ENOENT);
	cr_expect(err.line == 0 && err.column == 0);
	cr_expect_str_eq(err.file, path);
	cr_expect_str_eq(err.msg, "No such file or directory");
	cr_expect_eq(rules_load_file(r, dir, &err), -1);
	cr_expect_str_eq(err.msg, "not a regular file");
	cr_assert_eq(mkfifo(path, 0600), 0);
	cr_expect_eq(rules_load_file(r, path, &err), -1, "a FIFO does not hang");
	cr_expect_str_eq(err.msg, "not a regular file");
	cr_assert_eq(unlink(path), 0);
	th_write_file(path, "prefix_rule([\"ls\"], \"run\")\n\nprefix_rule([\"ls\"], 1)\n");
	cr_expect_eq(rules_load_file(r, path, &err), -1);
	cr_expect(err.line == 3 && err.column == 21, "%d:%d", err.line, err.column);
	cr_expect_str_eq(err.file, path);
	cr_expect_eq(rules_load_file(r, path, NULL), -1, "err may be NULL");
	cr_expect_eq(rules_load_file(NULL, path, &err), -1);
	cr_expect_eq(rules_count(r), 0);
	rules_free(r);
	free(path);
	th_rmtree(dir);
}

Test(rules_file, sources_are_file_and_line)
{
	char *dir = th_tmpdir(), *path = th_path(dir, "a.rules");
	struct rules_match m;
	struct rules *r;
	char want[4200];

	th_write_file(path, "# header\nprefix_rule(\n  [\"ls\"],\n  \"run\",\n)\n");
	r = file_load(path);
	cr_assert_eq(rules_decide(r, "/bin/ls", NULL, 0, &m), RULES_RUN);
	snprintf(want, sizeof(want), "%s:2", path);
	cr_expect_str_eq(m.source, want);
	rules_free(r);
	free(path);
	th_rmtree(dir);
}

Test(rules_file, append_creates_directories_and_loads_back)
{
	char *dir = th_tmpdir(), *path = th_path(dir, "a/b/default.rules");
	char *const cmd[] = { "/usr//bin/./git", "commit", "-m", "it's \"done\"", NULL };
	struct rules *r;
	char *text;

	cr_assert_eq(rules_append_prefix_rule(path, cmd, 4, RULES_RUN, NULL), 0);
	text = th_read_file(path, NULL);
	cr_expect_str_eq(text, "prefix_rule(pattern=[\"/usr/bin/git\", \"commit\", "
	    "\"-m\", \"it's \\\"done\\\"\"], decision=\"run\")\n");
	r = file_load(path);
	cr_expect_eq(rules_decide(r, "/usr/bin/git", cmd, 0, NULL), RULES_RUN);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "commit", "-m", "x", NULL),
	    RULES_NONE);
	rules_free(r);
	free(text);
	free(path);
	th_rmtree(dir);
}

/* Appending keeps what was there, adds a missing final newline, does not
 * repeat a line, keeps the mode, and leaves no temporary file. */
Test(rules_file, append_keeps_the_old_content)
{
	char *dir = th_tmpdir(), *path = th_path(dir, "x.rules");
	char *const ls[] = { "ls", "-l" }, *const rm[] = { "/bin/rm" };
	struct stat st;
	char *text;

	th_write_file(path, "# mine\nprefix_rule([\"cat\"], \"run\")");
	cr_assert_eq(chmod(path, 0640), 0);
	cr_assert_eq(rules_append_prefix_rule(path, ls, 2, RULES_ESCALATE, NULL), 0);
	cr_assert_eq(rules_append_prefix_rule(path, rm, 1, RULES_DENY, NULL), 0);
	cr_assert_eq(rules_append_prefix_rule(path, ls, 2, RULES_ESCALATE, NULL), 0);
	text = th_read_file(path, NULL);
	cr_expect_str_eq(text, "# mine\nprefix_rule([\"cat\"], \"run\")\n"
	    "prefix_rule(pattern=[\"ls\", \"-l\"], decision=\"escalate\")\n"
	    "prefix_rule(pattern=[\"/bin/rm\"], decision=\"deny\")\n");
	cr_assert_eq(stat(path, &st), 0);
	cr_expect_eq(st.st_mode & 07777, 0640);
	cr_expect_eq(file_count_entries(dir), 1);
	free(text);
	free(path);
	th_rmtree(dir);
}

Test(rules_file, append_follows_a_symlink)
{
	char *dir = th_tmpdir(), *real = th_path(dir, "real.rules");
	char *link = th_path(dir, "link.rules");
	char *const cmd[] = { "make" };
	struct stat st;
	char *text;

	th_write_file(real, "");
	cr_assert_eq(symlink("real.rules", link), 0);
	cr_assert_eq(rules_append_prefix_rule(link, cmd, 1, RULES_PROMPT, NULL), 0);
	cr_assert_eq(lstat(link, &st), 0);
	cr_expect(S_ISLNK(st.st_mode));
	text = th_read_file(real, NULL);
	cr_expect_str_eq(text, "prefix_rule(pattern=[\"make\"], decision=\"prompt\")\n");
	free(text);
	free(real);
	free(link);
	th_rmtree(dir);
}

/* A refused append: -1, errno e, and *err naming path and saying why. */
static void
expect_refused(int r, const struct rules_error *err, const char *path, int e,
    const char *why, size_t i)
{
	cr_expect_eq(r, -1, "case %zu", i);
	cr_expect_eq(errno, e, "case %zu: errno %d", i, errno);
	cr_expect_str_eq(err->file, path ? path : "(null)", "case %zu", i);
	cr_expect_eq(err->line, 0, "case %zu", i);
	cr_expect_str_eq(err->msg, why, "case %zu", i);
}

Test(rules_file, append_refuses_what_would_not_load_back)
{
	static const struct {
		const char *tok0;
		size_t n;
		enum rules_decision d;
	} cases[] = {
		{ "ls", 0, RULES_RUN }, { "ls", 1, RULES_NONE }, { "ls", 1, 7 },
		{ "", 1, RULES_RUN }, { "*", 1, RULES_RUN }, { "bin/ls", 1, RULES_RUN },
		{ "~/ls", 1, RULES_RUN },
	};
	static const char refused[] = "not a rule that can be appended";
	char *dir = th_tmpdir(), *path = th_path(dir, "x.rules");
	char *const nul[] = { "ls", NULL };
	struct rules_error err;
	size_t n = sizeof(cases) / sizeof(cases[0]);

	for (size_t i = 0; i < n; i++) {
		char *const cmd[] = { (char *)cases[i].tok0 };

		expect_refused(rules_append_prefix_rule(path, cmd, cases[i].n,
		    cases[i].d, &err), &err, path, EINVAL, refused, i);
		cr_expect_null(rules_format_prefix_rule(cmd, cases[i].n, cases[i].d));
		cr_expect_eq(errno, EINVAL);
	}
	expect_refused(rules_append_prefix_rule(path, nul, 2, RULES_RUN, &err), &err,
	    path, EINVAL, refused, n);
	expect_refused(rules_append_prefix_rule(path, NULL, 1, RULES_RUN, &err), &err,
	    path, EINVAL, refused, n + 1);
	expect_refused(rules_append_prefix_rule(NULL, nul, 1, RULES_RUN, &err), &err,
	    NULL, EINVAL, "invalid argument", n + 2);
	expect_refused(rules_append_prefix_rule("", nul, 1, RULES_RUN, &err), &err,
	    "", EINVAL, "invalid argument", n + 3);
	cr_expect_eq(rules_append_prefix_rule(NULL, nul, 1, RULES_RUN, NULL), -1,
	    "err may be NULL");
	cr_expect_eq(file_count_entries(dir), 0, "nothing was written");
	free(path);
	th_rmtree(dir);
}

/* What the system refused is told as a load error is: file, errno, text. */
Test(rules_file, append_failure_says_why)
{
	char *dir = th_tmpdir(), *file = th_path(dir, "file");
	char *below = th_path(dir, "file/sub/x.rules");
	char *const cmd[] = { "make", NULL };
	struct rules_error err;

	th_write_file(file, "");
	expect_refused(rules_append_prefix_rule(dir, cmd, 1, RULES_RUN, &err), &err,
	    dir, EINVAL, "not a regular file", 0);
	expect_refused(rules_append_prefix_rule(below, cmd, 1, RULES_RUN, &err), &err,
	    below, ENOTDIR, strerror(ENOTDIR), 1);
	free(below);
	free(file);
	th_rmtree(dir);
}

Test(rules_file, format_escapes_what_is_not_utf8)
{
	char *const cmd[] = { "/usr/bin/printf", "caf\xc3\xa9 \xe2\x82\xac",
	    "\xff\xc3(\xed\xa0\x80", "\x01\t\n\r\x7f\\\"" };
	char *line = rules_format_prefix_rule(cmd, 4, RULES_ESCALATE);

	cr_assert_not_null(line);
	cr_expect_str_eq(line, "prefix_rule(pattern=[\"/usr/bin/printf\", "
	    "\"caf\xc3\xa9 \xe2\x82\xac\", \"\\xff\\xc3(\\xed\\xa0\\x80\", "
	    "\"\\x01\\t\\n\\r\\x7f\\\\\\\"\"], decision=\"escalate\")");
	free(line);
}

/* Random byte strings (any byte but NUL) survive append and reload. */
Test(rules_file, random_tokens_round_trip)
{
	char *dir = th_tmpdir(), *path = th_path(dir, "r.rules");
	static char tok[200][4][16];
	uint64_t seed = 0x5eed;
	struct rules *r;

	for (int i = 0; i < 200; i++) {
		char *cmd[5] = { tok[i][0], tok[i][1], tok[i][2], tok[i][3], NULL };

		snprintf(tok[i][0], sizeof(tok[i][0]), "/bin/p%d", i);
		for (int k = 1; k < 4; k++) {
			size_t len = th_rand(&seed) % 15;

			for (size_t j = 0; j < len; j++)
				tok[i][k][j] = (char)(1 + th_rand(&seed) % 255);
			tok[i][k][len] = '\0';
		}
		cr_assert_eq(rules_append_prefix_rule(path, cmd, 4,
		    (enum rules_decision)(i % 4), NULL), 0, "command %d", i);
	}
	r = file_load(path);
	cr_expect_eq(rules_count(r), 200);
	for (int i = 0; i < 200; i++) {
		char *cmd[5] = { tok[i][0], tok[i][1], tok[i][2], tok[i][3], NULL };

		char *longer[6] = { cmd[0], cmd[1], cmd[2], cmd[3], "more", NULL };
		enum rules_decision want = (enum rules_decision)(i % 4);

		cr_expect_eq(rules_decide(r, cmd[0], cmd, 0, NULL), want,
		    "command %d", i);
		cr_expect_eq(rules_decide(r, cmd[0], longer, 0, NULL), want);
		cmd[3] = NULL;
		cr_expect_eq(rules_decide(r, cmd[0], cmd, 0, NULL), RULES_NONE);
	}
	rules_free(r);
	free(path);
	th_rmtree(dir);
}

#define MANY 100000

/* Rule i of the many: one of five shapes -- many arguments of one program,
 * exact paths, alternatives, and one program each -- deciding i % 4. */
static int
many_rule(char *out, int i)
{
	static const char *const dec[] = { "allow", "run", "prompt", "forbidden" };
	const char *d = dec[i % 4];

	switch (i % 5) {
	case 0:
		return sprintf(out, "prefix_rule([\"git\", \"sub%d\"], \"%s\")\n", i, d);
	case 1:
		return sprintf(out, "prefix_rule([\"/opt/bin/t%d\"], \"%s\")\n", i, d);
	case 2:
		return sprintf(out, "prefix_rule([[\"a%d\", \"b%d\"], \"-x\", "
		    "[\"1\", \"2\"]], \"%s\")\n", i, i, d);
	default:
		return sprintf(out, "prefix_rule(pattern = [\"prog%d\", \"arg\"], "
		    "decision = \"%s\")\n", i, d);
	}
}

/* A command that rule i (alone) decides. */
static enum rules_decision
many_decide(const struct rules *r, int i)
{
	char prog[32], arg[32];

	snprintf(arg, sizeof(arg), "sub%d", i);
	switch (i % 5) {
	case 0:
		return tr_decide(r, 0, "/usr/bin/git", arg, "-v", NULL);
	case 1:
		snprintf(prog, sizeof(prog), "/opt/bin/t%d", i);
		return tr_decide(r, 0, prog, NULL);
	case 2:
		snprintf(prog, sizeof(prog), "/b/b%d", i);
		return tr_decide(r, 0, prog, "-x", "2", NULL);
	default:
		snprintf(prog, sizeof(prog), "/usr/bin/prog%d", i);
		return tr_decide(r, 0, prog, "arg", NULL);
	}
}

Test(rules_file, a_hundred_thousand_rules)
{
	char *dir = th_tmpdir(), *path = th_path(dir, "many.rules");
	char *text = malloc((size_t)MANY * 96);
	size_t n = 0;
	struct rules *r;

	cr_assert_not_null(text);
	for (int i = 0; i < MANY; i++)
		n += (size_t)many_rule(text + n, i);
	th_write_file(path, text);
	r = file_load(path);
	cr_assert_eq(rules_count(r), MANY);
	for (int i = 0; i < MANY; i += 7)
		cr_assert_eq(many_decide(r, i), (enum rules_decision)(i % 4),
		    "rule %d", i);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "sub1", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/prog3", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, "/b/a2", "-x", "3", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/t1", NULL), RULES_NONE);
	rules_free(r);
	free(text);
	free(path);
	th_rmtree(dir);
}

/* exact=True: the pattern's own length only; appended as such. */
Test(rules_file, exact_rule_matches_its_length_only)
{
	char *dir = th_tmpdir(), *path = th_path(dir, "r.rules");
	char *const cmd[] = { "/usr/bin/uname", "-s", NULL }, *const longer[] = {
	    "/usr/bin/uname", "-s", "-r", NULL }, *const bare[] = { "/usr/bin/uname", NULL };
	struct rules *r;

	cr_assert_eq(rules_append_rule(path, cmd, 2, RULES_ESCALATE, RULES_APPEND_EXACT, NULL), 0);
	r = file_load(path);
	cr_expect_eq(rules_decide(r, cmd[0], cmd, 0, NULL), RULES_ESCALATE);
	cr_expect_eq(rules_decide(r, cmd[0], longer, 0, NULL), RULES_NONE);
	cr_expect_eq(rules_decide(r, cmd[0], bare, 0, NULL), RULES_NONE);
	rules_free(r);
	r = rules_new();
	cr_expect_neq(rules_load_text(r, "x", "prefix_rule(pattern=[\"a\"], exact=\"yes\")", 40,
	    NULL), 0);
	rules_free(r);
	free(path);
	th_rmtree(dir);
}

/* Several rules in one replacement: the new ones added once each, in
 * order, after the old content; one that would not load back means none
 * is written. */
Test(rules_file, append_several_at_once)
{
	char *dir = th_tmpdir(), *path = th_path(dir, "learned.rules");
	char *const git[] = { "git", "status" }, *const cc[] = { "cc" },
	    *const bad[] = { "*" };
	const struct rules_new rs[] = {
		{ git, 2, RULES_RUN, 0, NULL }, { cc, 1, RULES_RUN, 0, NULL },
		{ git, 2, RULES_RUN, 0, NULL },
		{ cc, 1, RULES_ESCALATE, RULES_APPEND_EXACT, NULL },
	}, worse[] = { { git, 2, RULES_DENY, 0, NULL }, { bad, 1, RULES_RUN, 0, NULL } };
	struct rules_error err;
	char *text;

	th_write_file(path, "prefix_rule(pattern=[\"cc\"], decision=\"run\")\n");
	cr_assert_eq(rules_append_rules(path, rs, 4, &err), 0, "%s", err.msg);
	text = th_read_file(path, NULL);
	cr_expect_str_eq(text, "prefix_rule(pattern=[\"cc\"], decision=\"run\")\n"
	    "prefix_rule(pattern=[\"git\", \"status\"], decision=\"run\")\n"
	    "prefix_rule(pattern=[\"cc\"], decision=\"escalate\", exact=True)\n");
	free(text);
	cr_expect_eq(rules_append_rules(path, worse, 2, &err), -1);
	cr_expect_eq(errno, EINVAL);
	cr_expect_str_eq(err.msg, "not a rule that can be appended");
	text = th_read_file(path, NULL);
	cr_expect_null(strstr(text, "deny"), "%s", text);
	free(text);
	cr_expect_eq(file_count_entries(dir), 1, "a temporary file was left");
	free(path);
	th_rmtree(dir);
}
