/*
 * rules-mem.c: the rules engine's memory: an arena, growable arrays and
 * buffers, a hash table, and reading a file whole.
 *
 * The arena hands out aligned blocks from chunks it never frees one by
 * one; a mark taken before a load lets a failed load give back everything
 * it allocated.  Every size is checked before it is multiplied or added.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules-int.h"

#define RULES_CHUNK_SIZE	(64u * 1024)

struct rules_chunk {
	struct rules_chunk *next;
	size_t used, size;
	max_align_t data[];
};

void *
rules_arena_alloc(struct rules_arena *a, size_t size)
{
	const size_t align = sizeof(max_align_t);
	struct rules_chunk *c = a->head;
	size_t want;

	if (size > SIZE_MAX / 2)
		return NULL;
	size = (size + align - 1) & ~(align - 1);
	if (c == NULL || c->size - c->used < size) {
		want = size > RULES_CHUNK_SIZE ? size : RULES_CHUNK_SIZE;
		if ((c = malloc(sizeof(*c) + want)) == NULL)
			return NULL;
		c->next = a->head;
		c->used = 0;
		c->size = want;
		a->head = c;
	}
	c->used += size;
	return (char *)c->data + c->used - size;
}

char *
rules_arena_strndup(struct rules_arena *a, const char *s, size_t len)
{
	char *p;

	if (len == SIZE_MAX || (p = rules_arena_alloc(a, len + 1)) == NULL)
		return NULL;
	if (len > 0)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void
rules_arena_mark(const struct rules_arena *a, struct rules_arena_mark *m)
{
	m->head = a->head;
	m->used = a->head ? a->head->used : 0;
}

/* Free the chunks made since the mark; the marked chunk shrinks back. */
void
rules_arena_rewind(struct rules_arena *a, const struct rules_arena_mark *m)
{
	struct rules_chunk *c;

	while ((c = a->head) != m->head) {
		a->head = c->next;
		free(c);
	}
	if (c != NULL)
		c->used = m->used;
}

void
rules_arena_free(struct rules_arena *a)
{
	const struct rules_arena_mark none = { NULL, 0 };

	rules_arena_rewind(a, &none);
}

/* Grow *p (cap elements of size sz) to hold one more; 0 or -1. */
static int
rules_grow(void **p, size_t *cap, size_t sz)
{
	size_t ncap = *cap ? *cap * 2 : 8;
	void *np;

	if (*cap > SIZE_MAX / 2 / sz)
		return -1;
	if ((np = realloc(*p, ncap * sz)) == NULL)
		return -1;
	*p = np;
	*cap = ncap;
	return 0;
}

int
rules_vec_push(struct rules_vec *vec, void *p)
{
	if (vec->n == vec->cap &&
	    rules_grow((void **)&vec->v, &vec->cap, sizeof(*vec->v)) != 0)
		return -1;
	vec->v[vec->n++] = p;
	return 0;
}

void **
rules_vec_copy(const struct rules_vec *vec, struct rules_arena *a)
{
	void **out;

	if (vec->n == 0 || vec->n > SIZE_MAX / sizeof(*out))
		return NULL;
	if ((out = rules_arena_alloc(a, vec->n * sizeof(*out))) != NULL)
		memcpy(out, vec->v, vec->n * sizeof(*out));
	return out;
}

void
rules_vec_free(struct rules_vec *vec)
{
	free(vec->v);
	vec->v = NULL;
	vec->n = vec->cap = 0;
}

int
rules_buf_add(struct rules_buf *b, const void *p, size_t n)
{
	while (b->cap - b->n <= n)	/* room for n bytes and the NUL */
		if (rules_grow((void **)&b->p, &b->cap, 1) != 0)
			return -1;
	if (n > 0)
		memcpy(b->p + b->n, p, n);
	b->n += n;
	b->p[b->n] = '\0';
	return 0;
}

int
rules_buf_addc(struct rules_buf *b, int c)
{
	char ch = (char)c;

	return rules_buf_add(b, &ch, 1);
}

void
rules_buf_free(struct rules_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->n = b->cap = 0;
}

/* FNV-1a over a, mixed with the parent's address. */
uint64_t
rules_hash(const struct rules_key *parent, const char *a)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *s = (const unsigned char *)a; *s; s++)
		h = (h ^ *s) * 0x100000001b3ULL;
	h ^= (uint64_t)(uintptr_t)parent * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

struct rules_key *
rules_table_get(const struct rules_table *t,
    const struct rules_key *parent, const char *a)
{
	const struct rules_key *k;
	uint64_t h;
	size_t i, mask = t->cap - 1;

	if (t->cap == 0)
		return NULL;
	h = rules_hash(parent, a);
	for (i = h & mask; (k = t->slot[i]) != NULL; i = (i + 1) & mask)
		if (k->hash == h && k->parent == parent && strcmp(k->a, a) == 0)
			return t->slot[i];
	return NULL;
}

static void
rules_table_put(struct rules_key **slot, size_t cap, struct rules_key *k)
{
	size_t i, mask = cap - 1;

	for (i = k->hash & mask; slot[i] != NULL; i = (i + 1) & mask)
		continue;
	slot[i] = k;
}

/* Keep the table at most half full, so probes stay short. */
int
rules_table_add(struct rules_table *t, struct rules_key *k)
{
	struct rules_key **ns;
	size_t ncap;

	if (t->n + 1 > t->cap / 2) {
		ncap = t->cap ? t->cap * 2 : 64;
		if (ncap > SIZE_MAX / sizeof(*ns) ||
		    (ns = calloc(ncap, sizeof(*ns))) == NULL)
			return -1;
		for (size_t i = 0; i < t->cap; i++)
			if (t->slot[i] != NULL)
				rules_table_put(ns, ncap, t->slot[i]);
		free(t->slot);
		t->slot = ns;
		t->cap = ncap;
	}
	rules_table_put(t->slot, t->cap, k);
	t->n++;
	return 0;
}

void
rules_table_free(struct rules_table *t, void (*fn)(struct rules_key *))
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->slot[i] != NULL)
			fn(t->slot[i]);
	free(t->slot);
	t->slot = NULL;
	t->cap = t->n = 0;
}

static int
rules_read_fd(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return rules_errno(EIO);	/* shrank while being read */
		got += (size_t)n;
	}
	return 0;
}

/* The open file, read whole. */
static int
rules_read_open(int fd, char **bufp, size_t *lenp, struct stat *st)
{
	char *buf;
	int e;

	if (fstat(fd, st) != 0)
		return -1;
	if (!S_ISREG(st->st_mode))
		return rules_errno(EINVAL);
	if ((uintmax_t)st->st_size > RULES_MAX_FILE)
		return rules_errno(EFBIG);
	if ((buf = malloc((size_t)st->st_size + 1)) == NULL)
		return -1;
	if (rules_read_fd(fd, buf, (size_t)st->st_size) != 0) {
		e = errno;
		free(buf);
		return rules_errno(e);
	}
	buf[st->st_size] = '\0';
	*lenp = (size_t)st->st_size;
	*bufp = buf;
	return 0;
}

/* O_NONBLOCK: opening a FIFO must not hang; it is refused as not regular. */
int
rules_read_file(const char *path, char **bufp, size_t *lenp, struct stat *st)
{
	int fd, r, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0)
		return -1;
	r = rules_read_open(fd, bufp, lenp, st);
	e = errno;
	close(fd);
	errno = e;
	return r;
}
