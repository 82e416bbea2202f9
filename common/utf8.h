/*
 * utf8.h: what counts as UTF-8, once for every part: RFC 3629's, the
 * strict form.  No overlong form (C0 80 for NUL, E0 80 80...), no
 * surrogate (U+D800..U+DFFF, which UTF-16 alone uses), nothing past
 * U+10FFFF (F4 90 80 80 and up, leads F5..FF), no stray continuation
 * byte, no sequence cut short.  NUL (the byte 00) is valid UTF-8; callers
 * that must not pass it check for it themselves.  Malloc-free, no locale.
 */
#ifndef SHELLESC_UTF8_H
#define SHELLESC_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length (1 to 4) of the valid UTF-8 sequence at s, of the n bytes there,
 * or 0 when s does not start one (or n is 0). */
size_t utf8_len(const void *s, size_t n);

/* Whether all n bytes at s are valid UTF-8. */
bool utf8_valid(const void *s, size_t n);

#endif /* SHELLESC_UTF8_H */
