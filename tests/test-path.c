/*
 * test-path.c: suite path -- common/path.c on its own: lexical cleaning,
 * absolute paths, what execve would say of a file, the PATH iterator (the
 * exec search's entries and a trusted PATH's absolute ones, entries too
 * long skipped) and glibc's PATH search over it.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

Test(path, clean_is_lexical)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "/usr//bin/", "/usr/bin" }, { "//", "/" }, { "/", "/" },
		{ "/./a/./b/.", "/a/b" }, { "./a", "a" }, { "a/", "a" },
		{ ".", "." }, { "./", "." }, { "", "." }, { "a/../b", "a/../b" },
		{ "/../x", "/../x" }, { "~/x", "~/x" }, { ".hidden/..x", ".hidden/..x" },
	};

	for (size_t i = 0; i < N(cases); i++) {
		char buf[64];

		strcpy(buf, cases[i].in);
		path_clean(buf);
		cr_expect_str_eq(buf, cases[i].want, "path_clean(\"%s\")", cases[i].in);
	}
}

Test(path, absolute_against_a_cwd)
{
	static const struct {
		const char *cwd, *file, *want;
	} cases[] = {
		{ "/home/u", "bin/x", "/home/u/bin/x" }, { "/home/u/", "./x", "/home/u/x" },
		{ "/home/u", "/usr//bin/ls", "/usr/bin/ls" }, { "/", ".", "/" },
		{ "/a", "../b", "/a/../b" }, { "//", "", "/" },
	};
	char out[64];

	for (size_t i = 0; i < N(cases); i++) {
		cr_expect_eq(path_absolute(out, sizeof(out), cases[i].cwd, cases[i].file),
		    strlen(cases[i].want), "%s + %s", cases[i].cwd, cases[i].file);
		cr_expect_str_eq(out, cases[i].want);
	}
}

/* One that does not fit is no path at all, not a shortened one. */
Test(path, absolute_that_does_not_fit_is_empty)
{
	char out[8];

	cr_expect_eq(path_absolute(out, sizeof(out), "/abc", "def"), 0);
	cr_expect_str_eq(out, "");
	cr_expect_eq(path_absolute(out, sizeof(out), "/abc", "de"), 7);
	cr_expect_str_eq(out, "/abc/de");
	cr_expect_eq(path_absolute(out, 1, "/", "x"), 0);
}

Test(path, executable_is_what_execve_would_say)
{
	cr_expect_eq(path_executable("/bin/sh"), 0);
	cr_expect_eq(path_executable("/"), EACCES, "a directory");
	cr_expect_eq(path_executable("/dev/null"), EACCES, "a device");
	cr_expect_eq(path_executable("/etc/passwd"), EACCES, "no x bit, even for root");
	cr_expect_eq(path_executable("/nonexistent/x"), ENOENT);
	cr_expect_eq(path_executable("/etc/passwd/x"), ENOTDIR);
}

/* Every result of an iteration, joined by '|'. */
static const char *
iterate(const char *path, const char *file, unsigned flags, size_t size)
{
	static char all[4 * PATH_MAX];
	char buf[PATH_MAX];
	struct path_iter it;
	size_t n = 0;
	bool first = true;

	cr_assert_leq(size, sizeof(buf));
	all[0] = '\0';
	path_iter_init(&it, path, file, flags);
	for (; path_next(&it, buf, size); first = false)
		n += (size_t)snprintf(all + n, sizeof(all) - n, "%s%s", first ? "" : "|", buf);
	return all;
}

/* The exec search's entries: every one, "" standing for the cwd. */
Test(path, next_gives_every_entry)
{
	cr_expect_str_eq(iterate("/bin:/usr/bin", NULL, 0, PATH_MAX), "/bin|/usr/bin");
	cr_expect_str_eq(iterate(":a::/b:", NULL, 0, PATH_MAX), "|a||/b|");
	cr_expect_str_eq(iterate("", NULL, 0, PATH_MAX), "");
	cr_expect_str_eq(iterate(":", NULL, 0, PATH_MAX), "|");
	cr_expect_str_eq(iterate(NULL, NULL, 0, PATH_MAX), "");
}

Test(path, next_counts_entries_not_separators)
{
	struct path_iter it;
	char buf[16];
	int n = 0;

	path_iter_init(&it, "::", NULL, 0);
	while (path_next(&it, buf, sizeof(buf)))
		n++;
	cr_expect_eq(n, 3, "\"::\" is three empty entries");
	path_iter_init(&it, NULL, NULL, 0);
	strcpy(buf, "kept");
	cr_expect_not(path_next(&it, buf, sizeof(buf)));
	cr_expect_str_eq(buf, "kept", "buf is left alone at the end");
}

/* A trusted PATH: an empty or relative entry would search the caller's
 * cwd, so only absolute ones are given. */
Test(path, next_absolute_skips_empty_and_relative)
{
	cr_expect_str_eq(iterate(".:/usr/bin::bin:/bin:", NULL, PATH_ABSOLUTE, PATH_MAX),
	    "/usr/bin|/bin");
	cr_expect_str_eq(iterate(":::", NULL, PATH_ABSOLUTE, PATH_MAX), "");
	cr_expect_str_eq(iterate("", NULL, PATH_ABSOLUTE, PATH_MAX), "");
	cr_expect_str_eq(iterate("./bin:~/bin:/", NULL, PATH_ABSOLUTE, PATH_MAX), "/");
}

/* With a file, the candidates execvp(3) tries: "ENTRY/FILE", the bare
 * file for an empty entry. */
Test(path, next_with_a_file_gives_candidates)
{
	cr_expect_str_eq(iterate("/bin::.:/", "ls", 0, PATH_MAX), "/bin/ls|ls|./ls|//ls");
	cr_expect_str_eq(iterate("/bin::.:/", "ls", PATH_ABSOLUTE, PATH_MAX), "/bin/ls|//ls");
}

/* An entry whose result does not fit is skipped, never cut: a shortened
 * path would name another file. */
Test(path, next_skips_what_does_not_fit)
{
	cr_expect_str_eq(iterate("/abcd:/ab:/abc", NULL, 0, 4), "/ab");
	cr_expect_str_eq(iterate("/abcd:/ab:/abc", NULL, 0, 5), "/ab|/abc");
	/* "/ab/x" takes 6 bytes with its NUL; "/" and the file count */
	cr_expect_str_eq(iterate("/abc:/ab::/a", "x", 0, 6), "/ab/x|x|/a/x");
	cr_expect_str_eq(iterate("/abcd", NULL, 0, 0), "");
}

Test(path, next_skips_an_entry_of_path_max)
{
	static char path[3 * PATH_MAX];

	snprintf(path, sizeof(path), "/usr/bin:/%0*d:/bin", PATH_MAX - 1, 0);
	cr_expect_str_eq(iterate(path, NULL, PATH_ABSOLUTE, PATH_MAX), "/usr/bin|/bin");
	snprintf(path, sizeof(path), "/usr/bin:/%0*d:/bin", PATH_MAX - 2, 0);
	cr_expect_eq(strlen(iterate(path, NULL, 0, PATH_MAX)), 9 + PATH_MAX - 1 + 5,
	    "PATH_MAX - 1 bytes and a NUL fit");
}

struct tries {
	char seen[2 * PATH_MAX];
	size_t n;
	const char *fail;	/* candidate: errno pairs, "x=13 y=8" */
};

/* path_search's try: records each candidate, fails as t->fail says
 * (ENOENT for the others). */
static int
record(const char *candidate, void *arg)
{
	struct tries *t = arg;
	const char *f = t->fail ? strstr(t->fail, candidate) : NULL;
	size_t len = strlen(candidate);

	t->n += (size_t)snprintf(t->seen + t->n, sizeof(t->seen) - t->n, "%s%s",
	    t->n ? "|" : "", candidate);
	if (f != NULL && f[len] == '=')
		return atoi(f + len + 1);
	return ENOENT;
}

Test(path, search_tries_each_entry_as_execvp)
{
	struct tries t = { 0 };

	cr_expect_eq(path_search("/a::/b:", "x", record, &t), ENOENT);
	cr_expect_str_eq(t.seen, "/a/x|x|/b/x|x");
	t = (struct tries){ 0 };
	cr_expect_eq(path_search(NULL, "x", record, &t), ENOENT);
	cr_expect_str_eq(t.seen, "/bin/x|/usr/bin/x", "PATH_DEFAULT");
}

Test(path, search_goes_on_past_eacces_and_ends_at_others)
{
	struct tries t = { .fail = "/a/x=13 /b/x=0" };

	cr_expect_eq(path_search("/a:/b:/c", "x", record, &t), 0);
	cr_expect_str_eq(t.seen, "/a/x|/b/x");
	t = (struct tries){ .fail = "/a/x=13" };
	cr_expect_eq(path_search("/a:/b", "x", record, &t), EACCES, "EACCES once is kept");
	t = (struct tries){ .fail = "/a/x=8" };
	cr_expect_eq(path_search("/a:/b", "x", record, &t), ENOEXEC);
	cr_expect_str_eq(t.seen, "/a/x", "ENOEXEC ends the search");
}

Test(path, search_of_a_path_or_a_bad_name)
{
	struct tries t = { 0 };
	char longname[NAME_MAX + 2];

	cr_expect_eq(path_search("/a", "./x", record, &t), ENOENT);
	cr_expect_str_eq(t.seen, "./x", "a name with '/' is tried as it is");
	t = (struct tries){ 0 };
	cr_expect_eq(path_search("/a", "", record, &t), ENOENT);
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	cr_expect_eq(path_search("/a", longname, record, &t), ENAMETOOLONG);
	cr_expect_eq(t.n, 0, "nothing tried");
}

Test(path, search_skips_an_entry_too_long_for_the_name)
{
	static char path[2 * PATH_MAX];
	struct tries t = { 0 };

	/* "/0...0/x" would take PATH_MAX + 1 bytes with its NUL */
	snprintf(path, sizeof(path), "/%0*d:/b", PATH_MAX - 3, 0);
	cr_expect_eq(path_search(path, "x", record, &t), ENOENT);
	cr_expect_str_eq(t.seen, "/b/x");
	/* one byte shorter, it fits */
	t = (struct tries){ 0 };
	snprintf(path, sizeof(path), "/%0*d", PATH_MAX - 4, 0);
	cr_expect_eq(path_search(path, "x", record, &t), ENOENT);
	cr_expect_eq(t.n, (size_t)PATH_MAX - 1);
}
