/*
 * kernel-mem.c: an exec's path, argv and envp, read by the server from the
 * memory of the thread stopped in execve(2) (its /proc/TID/mem).
 *
 * What is read is only what the caller's memory holds at the time of the
 * read: another thread, a process sharing the memory, or a vfork parent's
 * sibling can change it afterwards (docs/security.md, "The kernel
 * layer").  Everything is bounded: SHELLESC_FRAME_MAX bytes in all, the
 * pointers included, as a request on the wire is.  A string is read a
 * page at a time at most, so no read crosses into a page that is not
 * mapped when the string ends before it.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"
#include "server.h"

#define KMEM_PAGE	4096u
#define KMEM_PTRS	512		/* pointers read at a time */

struct kmem_buf {
	char *p;
	size_t len, cap;
};

/* Room for n more bytes within *budget; 0 or -errno. */
static int
kmem_grow(struct kmem_buf *b, size_t n, size_t *budget)
{
	char *p;
	size_t cap;

	if (n > *budget)
		return -E2BIG;
	*budget -= n;
	if (b->len + n <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + n)
		cap *= 2;
	if ((p = realloc(b->p, cap)) == NULL)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

/* pread the whole of [addr, addr+n) or fail: -EFAULT for memory not mapped. */
static int
kmem_pread(int mem, void *buf, size_t n, uint64_t addr)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(mem, (char *)buf + got, n - got, (off_t)(addr + got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 && errno != EIO ? -errno : -EFAULT;
		got += (size_t)r;
	}
	return 0;
}

/* Append the NUL-terminated string at addr (its NUL included). */
static int
kmem_string(int mem, uint64_t addr, struct kmem_buf *b, size_t *budget)
{
	for (;;) {
		size_t n = KMEM_PAGE - (size_t)(addr % KMEM_PAGE), start = b->len;
		char *nul;
		int r;

		if (n > *budget)
			n = *budget;
		if (n == 0)
			return -E2BIG;
		if ((r = kmem_grow(b, n, budget)) != 0 ||
		    (r = kmem_pread(mem, b->p + start, n, addr)) != 0)
			return r;
		if ((nul = memchr(b->p + start, '\0', n)) != NULL) {
			size_t used = (size_t)(nul - (b->p + start)) + 1;

			*budget += n - used;
			b->len = start + used;
			return 0;
		}
		b->len = start + n;
		addr += n;
	}
}

static uint64_t
kmem_ptr(const unsigned char *p, size_t size)
{
	uint64_t v = 0;

	if (size == 8)
		memcpy(&v, p, 8);
	else {
		uint32_t w;

		memcpy(&w, p, 4);
		v = w;
	}
	return v;
}

/* Up to KMEM_PTRS pointers at addr: a whole batch, or one when the
 * batch runs past what is mapped.  How many, or -errno. */
static int
kmem_ptrs(int mem, size_t psize, uint64_t addr, unsigned char *ptrs)
{
	if (kmem_pread(mem, ptrs, KMEM_PTRS * psize, addr) == 0)
		return KMEM_PTRS;
	return kmem_pread(mem, ptrs, psize, addr) == 0 ? 1 : -EFAULT;
}

/* The strings of the NULL-terminated pointer array at addr (0: none). */
static int
kmem_vector(int mem, size_t psize, uint64_t addr, struct kmem_buf *b, size_t *count,
    size_t *budget)
{
	unsigned char ptrs[KMEM_PTRS * 8];
	int n, r;

	*count = 0;
	if (addr == 0)
		return 0;
	for (;; addr += (uint64_t)n * psize) {
		if ((n = kmem_ptrs(mem, psize, addr, ptrs)) < 0)
			return n;
		for (int i = 0; i < n; i++) {
			uint64_t s = kmem_ptr(ptrs + (size_t)i * psize, psize);

			if (s == 0)
				return 0;
			if (*budget < psize)
				return -E2BIG;
			*budget -= psize;
			if ((r = kmem_string(mem, s, b, budget)) != 0)
				return r;
			++*count;
		}
	}
}

int
kmem_read(int mem, size_t psize, uint64_t path, uint64_t argv, uint64_t envp,
    struct kmem_exec *out)
{
	struct kmem_buf p = { 0 }, a = { 0 }, e = { 0 };
	size_t budget = SHELLESC_FRAME_MAX, pbudget = PATH_MAX;
	int r;

	memset(out, 0, sizeof(*out));
	if ((r = kmem_string(mem, path, &p, &pbudget)) == 0 &&
	    (r = kmem_vector(mem, psize, argv, &a, &out->argc, &budget)) == 0)
		r = kmem_vector(mem, psize, envp, &e, &out->envc, &budget);
	out->path = p.p;
	out->argv = a.p;
	out->argv_len = a.len;
	out->env = e.p;
	out->env_len = e.len;
	if (r != 0)
		kmem_free(out);
	return r == -E2BIG && p.len >= PATH_MAX ? -ENAMETOOLONG : r;
}

void
kmem_free(struct kmem_exec *e)
{
	free(e->path);
	free(e->argv);
	free(e->env);
	memset(e, 0, sizeof(*e));
}
