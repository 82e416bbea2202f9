/* mpread.c: allocation-free MessagePack pull reader. */
#include "config.h"

#include <string.h>

#include "err.h"
#include "mpread.h"

void
mpr_init(struct mpr *r, const void *buf, size_t len)
{
	r->p = buf;
	r->end = r->p + len;
}

bool
mpr_done(const struct mpr *r)
{
	return r->p == r->end;
}

static size_t
mpr_left(const struct mpr *r)
{
	return (size_t)(r->end - r->p);
}

/* Big-endian unsigned of n bytes at p (caller checked the bounds). */
static uint64_t
mpr_be(const uint8_t *p, int n)
{
	uint64_t v = 0;

	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * Decode the type byte and the length/count that follows it.  For
 * containers *n is the element count, for str/bin/ext the body length, for
 * scalars the body size.  *hdr is the header size.  Returns a kind letter:
 * 'm' map, 'a' array, 's' str, 'b' bin, 'i' int, 'B' bool, 'n' nil, 'x'
 * other scalar, 0 malformed.
 */
static int
mpr_peek(const struct mpr *r, uint64_t *n, size_t *hdr)
{
	/* Headers with a big-endian length field: width of the field. */
	static const struct { uint8_t tag; char kind; uint8_t w; } lens[] = {
		{ 0xc4, 'b', 1 }, { 0xc5, 'b', 2 }, { 0xc6, 'b', 4 },
		{ 0xc7, 'x', 1 }, { 0xc8, 'x', 2 }, { 0xc9, 'x', 4 },
		{ 0xd9, 's', 1 }, { 0xda, 's', 2 }, { 0xdb, 's', 4 },
		{ 0xdc, 'a', 2 }, { 0xdd, 'a', 4 }, { 0xde, 'm', 2 }, { 0xdf, 'm', 4 },
	};
	uint8_t t;

	if (mpr_left(r) < 1)
		return 0;
	t = r->p[0];
	*hdr = 1;
	*n = 0;
	if (t <= 0x7f || t >= 0xe0)
		return 'i';
	if (t <= 0x8f)
		return (*n = t & 0x0f), 'm';
	if (t <= 0x9f)
		return (*n = t & 0x0f), 'a';
	if (t <= 0xbf)
		return (*n = t & 0x1f), 's';
	if (t == 0xc0)
		return 'n';
	if (t == 0xc2 || t == 0xc3)
		return 'B';
	if (t >= 0xcc && t <= 0xd3)	/* uint8..64, int8..64 */
		return (*n = 1u << ((t - 0xcc) & 3)), 'i';
	if (t == 0xca || t == 0xcb)	/* float32, float64 */
		return (*n = t == 0xca ? 4 : 8), 'x';
	if (t >= 0xd4 && t <= 0xd8)	/* fixext 1..16 */
		return (*n = 1 + (1u << (t - 0xd4))), 'x';
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		if (lens[i].tag != t)
			continue;
		if (mpr_left(r) < 1u + lens[i].w)
			return 0;
		*n = mpr_be(r->p + 1, lens[i].w);
		*hdr = 1 + lens[i].w;
		if (lens[i].kind == 'x')	/* ext: the type byte follows */
			(*n)++;
		return lens[i].kind;
	}
	return 0;			/* 0xc1: never used */
}

/* Read a container header of the given kind. */
static int
mpr_container(struct mpr *r, int want, uint32_t *count)
{
	uint64_t n;
	size_t hdr;
	int k = mpr_peek(r, &n, &hdr);

	if (k == 0)
		return SE_ERR_MALFORMED;
	if (k != want)
		return SE_ERR_TYPE;
	/* Every element takes at least one byte: refuse impossible counts now. */
	if (n > mpr_left(r) - hdr)
		return SE_ERR_MALFORMED;
	r->p += hdr;
	*count = (uint32_t)n;
	return 0;
}

int
mpr_map(struct mpr *r, uint32_t *n)
{
	return mpr_container(r, 'm', n);
}

int
mpr_array(struct mpr *r, uint32_t *n)
{
	return mpr_container(r, 'a', n);
}

int
mpr_bytes(struct mpr *r, const char **p, uint32_t *len)
{
	uint64_t n;
	size_t hdr;
	int k = mpr_peek(r, &n, &hdr);

	if (k == 0)
		return SE_ERR_MALFORMED;
	if (k != 's' && k != 'b')
		return SE_ERR_TYPE;
	if (n > mpr_left(r) - hdr)
		return SE_ERR_MALFORMED;
	*p = (const char *)r->p + hdr;
	*len = (uint32_t)n;
	r->p += hdr + n;
	return 0;
}

int
mpr_int(struct mpr *r, int64_t *v)
{
	uint64_t n, u;
	size_t hdr;
	int k = mpr_peek(r, &n, &hdr);
	uint8_t t;

	if (k == 0)
		return SE_ERR_MALFORMED;
	if (k != 'i')
		return SE_ERR_TYPE;
	t = r->p[0];
	if (n > mpr_left(r) - 1)
		return SE_ERR_MALFORMED;
	if (n == 0)			/* positive or negative fixint */
		*v = (int8_t)t;
	else if (t <= 0xcf) {		/* uint8..64 */
		if ((u = mpr_be(r->p + 1, (int)n)) > INT64_MAX)
			return SE_ERR_RANGE;
		*v = (int64_t)u;
	} else {			/* int8..64: sign-extend */
		u = mpr_be(r->p + 1, (int)n);
		if (n < 8 && (u >> (8 * n - 1)))
			u |= ~(uint64_t)0 << (8 * n);
		*v = (int64_t)u;
	}
	r->p += 1 + n;
	return 0;
}

int
mpr_bool(struct mpr *r, bool *v)
{
	uint64_t n;
	size_t hdr;
	int k = mpr_peek(r, &n, &hdr);

	if (k == 0)
		return SE_ERR_MALFORMED;
	if (k != 'B')
		return SE_ERR_TYPE;
	*v = r->p[0] == 0xc3;
	r->p++;
	return 0;
}

int
mpr_skip(struct mpr *r)
{
	uint64_t pending = 1, n;
	size_t hdr;
	int k;

	while (pending > 0) {
		if ((k = mpr_peek(r, &n, &hdr)) == 0)
			return SE_ERR_MALFORMED;
		pending--;
		if (k == 'm' || k == 'a') {
			uint64_t add = k == 'm' ? 2 * n : n;

			if (add > mpr_left(r) - hdr)	/* each needs a byte */
				return SE_ERR_MALFORMED;
			pending += add;
			n = 0;
		}
		if (n > mpr_left(r) - hdr)
			return SE_ERR_MALFORMED;
		r->p += hdr + n;
	}
	return 0;
}
