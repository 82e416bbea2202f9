/*
 * utf8.c: RFC 3629's UTF-8 (utf8.h), by its table of well-formed byte
 * sequences (section 4): the lead byte gives the length, and the second
 * byte's range after E0, ED, F0 and F4 rules out overlongs, surrogates
 * and what lies past U+10FFFF.
 */
#include "config.h"

#include "utf8.h"

/* The length a lead byte announces, or 0 (a continuation byte, C0, C1,
 * F5..FF: bytes that never start a well-formed sequence). */
static size_t
utf8_lead(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	if (c >= 0xe0 && c <= 0xef)
		return 3;
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	return 0;
}

size_t
utf8_len(const void *s, size_t n)
{
	const unsigned char *p = s;
	size_t len = n > 0 ? utf8_lead(p[0]) : 0;

	if (len == 0 || len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) ||
	    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] > 0x8f))
		return 0;
	return len;
}

bool
utf8_valid(const void *s, size_t n)
{
	const unsigned char *p = s;

	for (size_t k; n > 0; p += k, n -= k)
		if ((k = utf8_len(p, n)) == 0)
			return false;
	return true;
}
