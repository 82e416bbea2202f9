/*
 * test-base.c: suite base -- the shared helpers of the suites
 * (tests/helpers/base.h) do what their contracts say, where the copies
 * they replaced differed: a file is read whole, whatever its size and
 * bytes, and a substitution fits whatever it puts in.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/base.h"

/* 3 MiB of every byte value, NULs included: a reader that stopped at 1 MiB
 * or at the first NUL (two of the copies) returns less. */
Test(base, read_file_reads_any_size_and_any_bytes)
{
	size_t size = 3u << 20, len = 0;
	char *dir = th_tmpdir(), *want = malloc(size), *got;
	FILE *f;

	cr_assert_not_null(want);
	for (size_t i = 0; i < size; i++)
		want[i] = (char)(i * 7 % 256);
	cr_assert_not_null(f = fopen(th_at(dir, "f"), "w"));
	cr_assert_eq(fwrite(want, 1, size, f), size);
	cr_assert_eq(fclose(f), 0);
	got = th_read_file(th_at(dir, "f"), &len);
	cr_assert_eq(len, size);
	cr_assert_eq(memcmp(got, want, size), 0);
	cr_assert_eq(got[len], '\0');
	free(got);
	th_put(dir, "empty", "", 0644);
	got = th_read_file(th_at(dir, "empty"), &len);
	cr_assert(len == 0 && got[0] == '\0');
	free(got);
	free(want);
	th_rmtree(dir);
}

/* An empty replacement: one copy sized its buffer len(text) * len(with),
 * 1 byte here for 4 096 written (the heap it overran is not checked until
 * later, so the test asks malloc how big the buffer is). */
Test(base, subst_fits_any_replacement)
{
	char text[4097], *s;

	memset(text, 'a', sizeof(text) - 1);
	text[sizeof(text) - 1] = '\0';
	text[10] = '%';
	s = th_subst(text, "%", "");
	cr_assert_geq(malloc_usable_size(s), sizeof(text) - 1, "the buffer is smaller than its text");
	cr_assert_eq(strlen(s), sizeof(text) - 2);
	free(s);
	s = th_subst("%/a:%/b:%", "%", "/some/longer/dir");
	cr_assert_str_eq(s, "/some/longer/dir/a:/some/longer/dir/b:/some/longer/dir");
	free(s);
	s = th_subst("@T -c @T@T x", "@T", "p");
	cr_assert_str_eq(s, "p -c pp x");
	free(s);
	s = th_subst("no pattern", "%", "x");
	cr_assert_str_eq(s, "no pattern");
	free(s);
}
