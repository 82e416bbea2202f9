/*
 * test-utf8.c: suite utf8 -- common/utf8.c, RFC 3629's UTF-8 and nothing
 * looser: what the rules writer keeps unescaped and what the CLI's JSON
 * gives as a string rather than base64 or U+FFFD.  Each refused form is
 * one a looser decoder takes: an overlong (C0 80 is NUL to a naive
 * decoder, "/" as C0 AF got past path checks), a surrogate, a code point
 * past U+10FFFF.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "utf8.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const struct {
	const char *s;
	size_t len;	/* utf8_len of the whole of s: 0 is not UTF-8 */
	const char *what;
} cases[] = {
	{ "a", 1, "ASCII" }, { "\x7f", 1, "DEL" },
	{ "\xc2\x80", 2, "U+0080" }, { "\xdf\xbf", 2, "U+07FF" },
	{ "\xe0\xa0\x80", 3, "U+0800" }, { "\xed\x9f\xbf", 3, "U+D7FF" },
	{ "\xee\x80\x80", 3, "U+E000" }, { "\xef\xbf\xbf", 3, "U+FFFF" },
	{ "\xf0\x90\x80\x80", 4, "U+10000" }, { "\xf4\x8f\xbf\xbf", 4, "U+10FFFF" },
	{ "\xc0\x80", 0, "overlong NUL" }, { "\xc0\xaf", 0, "overlong '/'" },
	{ "\xc1\xbf", 0, "overlong U+007F" }, { "\xe0\x80\xaf", 0, "overlong '/' in 3" },
	{ "\xe0\x9f\xbf", 0, "overlong U+07FF" }, { "\xf0\x80\x80\xaf", 0, "overlong '/' in 4" },
	{ "\xf0\x8f\xbf\xbf", 0, "overlong U+FFFF" },
	{ "\xed\xa0\x80", 0, "surrogate U+D800" }, { "\xed\xbf\xbf", 0, "surrogate U+DFFF" },
	{ "\xf4\x90\x80\x80", 0, "U+110000" }, { "\xf5\x80\x80\x80", 0, "lead F5" },
	{ "\xf7\xbf\xbf\xbf", 0, "U+1FFFFF" }, { "\xf8\x88\x80\x80\x80", 0, "5 bytes" },
	{ "\xfe", 0, "FE" }, { "\xff", 0, "FF" },
	{ "\x80", 0, "stray continuation" }, { "\xbf", 0, "stray continuation" },
	{ "\xc2", 0, "cut short" }, { "\xe0\xa0", 0, "cut short" },
	{ "\xf0\x90\x80", 0, "cut short" }, { "\xc2\x41", 0, "ASCII for a continuation" },
	{ "\xe2\x82\xc0", 0, "lead for a continuation" },
};

Test(utf8, len_takes_rfc_3629_only)
{
	for (size_t i = 0; i < N(cases); i++) {
		size_t n = strlen(cases[i].s);

		cr_expect_eq(utf8_len(cases[i].s, n), cases[i].len, "%s: %zu, not %zu",
		    cases[i].what, utf8_len(cases[i].s, n), cases[i].len);
		cr_expect_eq(utf8_valid(cases[i].s, n), cases[i].len == n, "%s", cases[i].what);
	}
}

/* Only the n bytes given are looked at: a sequence is not completed by
 * what follows them. */
Test(utf8, len_stays_within_n)
{
	cr_expect_eq(utf8_len("\xe2\x82\xac", 2), 0);
	cr_expect_eq(utf8_len("\xe2\x82\xac", 3), 3);
	cr_expect_eq(utf8_len("ab", 0), 0);
	cr_expect_eq(utf8_len("\xc2\x80xyz", 5), 2, "one sequence, not the string");
}

/* NUL is U+0000, valid UTF-8; only its overlong form is not. */
Test(utf8, nul_is_valid)
{
	cr_expect_eq(utf8_len("", 1), 1);
	cr_expect(utf8_valid("a\0b", 3));
	cr_expect_not(utf8_valid("a\xc0\x80" "b", 4));
}

Test(utf8, valid_checks_every_byte)
{
	cr_expect(utf8_valid("", 0));
	cr_expect(utf8_valid("h\xc3\xa9llo \xe2\x82\xac \xf0\x9f\x98\x80", 15));
	cr_expect_not(utf8_valid("h\xc3\xa9llo\xff", 7), "a bad last byte");
	cr_expect_not(utf8_valid("abc\xe2\x82", 5), "cut at the end");
	cr_expect_not(utf8_valid("\xed\xa0\xbd\xed\xb8\x80", 6), "CESU-8 surrogate pair");
}
