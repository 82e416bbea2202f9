/*
 * kernel-mem.c: an exec's path, argv and envp, read by the server from the
 * memory of the thread stopped in execve(2) (process_vm_readv: no file to
 * open and close per exec; the caller checks the notification is still
 * valid after the read, so the pid was that thread's throughout).
 *
 * What is read is only what the caller's memory holds at the time of the
 * read: another thread, a process sharing the memory, or a vfork parent's
 * sibling can change it afterwards (docs/security.md, "The kernel
 * layer").  Everything is bounded: SHELLESC_FRAME_MAX bytes in all, the
 * pointers included, as a request on the wire is.  Memory is read a
 * whole page at a time (kernel_mem_cache), so no read crosses into a page that
 * is not mapped when the string ends before it.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "server.h"

#define KERNEL_MEM_PAGE	4096u
#define KERNEL_MEM_PAGES	8		/* pages kept while one exec is read */

struct kernel_mem_buf {
	char *p;
	size_t len, cap;
};

/*
 * The pages of the caller's memory read so far, each whole: an exec's
 * strings and pointers mostly share a few pages (a new process's stack, a
 * shell's heap), so each page is read once, not once per string.  A page
 * is mapped or not as a whole, so reading all of it never fails where
 * reading only the bytes wanted would not.
 */
struct kernel_mem_cache {
	pid_t pid;
	unsigned next;				/* the slot taken next */
	uint64_t addr[KERNEL_MEM_PAGES];		/* each slot's page; 1: none */
	unsigned char page[KERNEL_MEM_PAGES][KERNEL_MEM_PAGE];
};

/* Room for n more bytes within *budget; 0 or -errno. */
static int
kernel_mem_grow(struct kernel_mem_buf *b, size_t n, size_t *budget)
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

/* An empty cache of pid's pages (malloc'd: 32 KiB), or NULL. */
static struct kernel_mem_cache *
kernel_mem_cache_new(pid_t pid)
{
	struct kernel_mem_cache *c = malloc(sizeof(*c));

	if (c == NULL)
		return NULL;
	c->pid = pid;
	c->next = 0;
	for (unsigned i = 0; i < KERNEL_MEM_PAGES; i++)
		c->addr[i] = 1;
	return c;
}

/* The bytes of the page holding addr, read once; NULL with *err set. */
static const unsigned char *
kernel_mem_page(struct kernel_mem_cache *c, uint64_t addr, int *err)
{
	uint64_t base = addr - addr % KERNEL_MEM_PAGE;
	unsigned i;

	for (i = 0; i < KERNEL_MEM_PAGES; i++)
		if (c->addr[i] == base)
			return c->page[i];
	i = c->next++ % KERNEL_MEM_PAGES;
	c->addr[i] = 1;
	if ((*err = proc_vm_read(c->pid, c->page[i], KERNEL_MEM_PAGE, base)) != 0)
		return NULL;
	c->addr[i] = base;
	return c->page[i];
}

/* Copy n bytes at addr (they may span pages); 0 or -errno. */
static int
kernel_mem_copy(struct kernel_mem_cache *c, uint64_t addr, void *buf, size_t n)
{
	const unsigned char *pg;
	size_t off, k;
	int r;

	for (; n > 0; addr += k, buf = (char *)buf + k, n -= k) {
		if ((pg = kernel_mem_page(c, addr, &r)) == NULL)
			return r;
		off = (size_t)(addr % KERNEL_MEM_PAGE);
		k = KERNEL_MEM_PAGE - off < n ? KERNEL_MEM_PAGE - off : n;
		memcpy(buf, pg + off, k);
	}
	return 0;
}

/* Append the NUL-terminated string at addr (its NUL included). */
static int
kernel_mem_string(struct kernel_mem_cache *c, uint64_t addr, struct kernel_mem_buf *b,
    size_t *budget)
{
	for (;;) {
		size_t off = (size_t)(addr % KERNEL_MEM_PAGE), n = KERNEL_MEM_PAGE - off;
		const unsigned char *pg, *nul;
		int r;

		if ((pg = kernel_mem_page(c, addr, &r)) == NULL)
			return r;
		if ((nul = memchr(pg + off, '\0', n)) != NULL)
			n = (size_t)(nul - (pg + off)) + 1;
		if (n > *budget)
			return -E2BIG;
		if ((r = kernel_mem_grow(b, n, budget)) != 0)
			return r;
		memcpy(b->p + b->len, pg + off, n);
		b->len += n;
		if (nul != NULL)
			return 0;
		addr += n;
	}
}

static uint64_t
kernel_mem_ptr(const unsigned char *p, size_t size)
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

/* The strings of the NULL-terminated pointer array at addr (0: none). */
static int
kernel_mem_vector(struct kernel_mem_cache *c, size_t psize, uint64_t addr,
    struct kernel_mem_buf *b, size_t *count, size_t *budget)
{
	unsigned char ptr[8];
	uint64_t s;
	int r;

	*count = 0;
	if (addr == 0)
		return 0;
	for (;; addr += psize) {
		if ((r = kernel_mem_copy(c, addr, ptr, psize)) != 0)
			return r;
		if ((s = kernel_mem_ptr(ptr, psize)) == 0)
			return 0;
		if (*budget < psize)
			return -E2BIG;
		*budget -= psize;
		if ((r = kernel_mem_string(c, s, b, budget)) != 0)
			return r;
		++*count;
	}
}

int
kernel_mem_read(pid_t pid, size_t psize, uint64_t path, uint64_t argv, uint64_t envp,
    struct kernel_mem_exec *out)
{
	struct kernel_mem_buf p = { 0 }, a = { 0 }, e = { 0 };
	size_t budget = SHELLESC_FRAME_MAX, pbudget = PATH_MAX;
	struct kernel_mem_cache *c = kernel_mem_cache_new(pid);
	int r = c ? 0 : -ENOMEM;

	memset(out, 0, sizeof(*out));
	if (r == 0 && (r = kernel_mem_string(c, path, &p, &pbudget)) == -E2BIG)
		r = -ENAMETOOLONG;
	if (r == 0 && (r = kernel_mem_vector(c, psize, argv, &a, &out->argc, &budget)) == 0)
		r = kernel_mem_vector(c, psize, envp, &e, &out->envc, &budget);
	free(c);
	out->path = p.p;
	out->argv = a.p;
	out->argv_len = a.len;
	out->env = e.p;
	out->env_len = e.len;
	if (r != 0)
		kernel_mem_free(out);
	return r;
}

void
kernel_mem_free(struct kernel_mem_exec *e)
{
	free(e->path);
	free(e->argv);
	free(e->env);
	memset(e, 0, sizeof(*e));
}
