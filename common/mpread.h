/*
 * mpread.h: a bounded, allocation-free MessagePack reader.
 *
 * Why not msgpack-c's unpacker: it builds an object tree in a msgpack_zone,
 * which mallocs, and the client must decode replies inside a vfork child.
 * This cursor reads values in place and returns pointers into the buffer.
 * Every length is checked against the bytes left before it is used.
 * (msgpack-c still packs everything, and the tests check each side against
 * the other.)
 */
#ifndef SHELLESC_MPREAD_H
#define SHELLESC_MPREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mpr {
	const uint8_t *p, *end;
};

void mpr_init(struct mpr *r, const void *buf, size_t len);

/* Each returns 0, SE_ERR_TYPE (a valid value of another type, not consumed)
 * or SE_ERR_MALFORMED (truncated or invalid bytes). */
int mpr_map(struct mpr *r, uint32_t *n);
int mpr_array(struct mpr *r, uint32_t *n);
int mpr_bytes(struct mpr *r, const char **p, uint32_t *len); /* str or bin */
int mpr_int(struct mpr *r, int64_t *v);
int mpr_bool(struct mpr *r, bool *v);

/* Skip one value of any type, however nested (iteratively). */
int mpr_skip(struct mpr *r);

/* True when every byte has been read. */
bool mpr_done(const struct mpr *r);

#endif /* SHELLESC_MPREAD_H */
