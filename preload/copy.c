/*
 * copy.c: the one copy of an exec that is decided and run.
 *
 * The caller's path, argv and envp live in memory that its other threads
 * can rewrite at any moment.  So before anything is decided they are
 * copied, once, into a private anonymous mapping that is then made
 * read-only; the request is encoded from that copy and the real call is
 * given that copy, so what the server saw is what the kernel runs.  The
 * child's environment is built in the same pass: each of shellesc's
 * variables exactly once, with the session's value, where the caller had
 * it (or at the end).
 *
 * One mmap per exec, sized by a counting pass.  The copying pass reads
 * everything again and is bounded by that size, so a string that grew in
 * between cannot overrun it: the copy is retried, and given up with E2BIG.
 * No malloc, no locks: this runs in vfork children.
 *
 * A vfork child maps its copy in its parent's memory, and once its exec
 * has succeeded nothing of it is left to unmap that copy.  So each thread
 * remembers the copy it has mapped and the process that mapped it (in TLS:
 * a vfork child runs on its parent thread's, and that thread is suspended
 * meanwhile); a copy mapped by another process is a vfork child's left
 * over, and the thread unmaps it at its next copy -- it could not be
 * running if that child had not exec'd or ended.  At most one copy per
 * thread outlives its exec.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/single_threaded.h>
#include <unistd.h>

#include "fmt.h"
#include "preload.h"
#include "preloadenv.h"
#include "proto.h"

/*
 * Linux: argv's and envp's strings and pointers get a quarter of the stack
 * limit, at most 3/4 of _STK_LIM and at least ARG_MAX (32 pages); one
 * string with its NUL at most MAX_ARG_STRLEN (32 pages).
 */
#define PL_ARGS_MAX	(6u * 1024 * 1024)
#define PL_ARG_PAGES	32
#define PL_TRIES	4
#define PL_SOCK_ROOM	48	/* "SHELLESC_ESCALATE_SOCKET=" and an int */
#define PL_PROXY_ROOM	32	/* "SHELLESC_PROXY_FD=" and an int */
#define PL_PRELOAD	"LD_PRELOAD="

static __thread struct pl_live {
	void *base;		/* NULL: none */
	size_t size;
	pid_t pid;		/* the process that mapped it */
} pl_live __attribute__((tls_model("initial-exec")));

/* shellesc's variables; the first PL_V_PROXY are put back when missing,
 * the others are never passed on (the session's variables are in every
 * child here: nothing was added that the wrapper should take out; the
 * shell a patched bash names is kept in the copy, for pl_run_wrapped);
 * SHELLESC_WRAPPER_ASK is passed on, and marks the copy. */
enum { PL_V_SOCK, PL_V_PRELOAD, PL_V_WRAPPER, PL_V_PROXY_PATH, PL_V_PROXY, PL_V_ADDED,
	PL_V_SHELL, PL_V_ASK, PL_NV };
static const char *const pl_var_names[PL_NV] = {
	[PL_V_SOCK] = SHELLESC_ENV_SOCKET "=",
	[PL_V_PRELOAD] = PL_PRELOAD,
	[PL_V_WRAPPER] = SHELLESC_ENV_WRAPPER "=",
	[PL_V_PROXY_PATH] = SHELLESC_ENV_PROXY_PATH "=",
	[PL_V_PROXY] = SHELLESC_ENV_PROXY "=",
	[PL_V_ADDED] = SHELLESC_ENV_ADDED "=",
	[PL_V_SHELL] = SHELLESC_ENV_SHELL "=",
	[PL_V_ASK] = SHELLESC_ENV_ASK "=",
};

/* Which of our variables e sets, or PL_NV. */
static int
pl_var_of(const char *e)
{
	for (int i = 0; i < PL_NV; i++)
		if (strncmp(e, pl_var_names[i], strlen(pl_var_names[i])) == 0)
			return i;
	return PL_NV;
}

/* --- the counting pass ------------------------------------------------- */

struct pl_count {
	size_t max, limit;	/* of one string, of them all (as the kernel's) */
	size_t argc, envc;
	size_t bytes;		/* of the strings, NULs included */
	size_t preload;		/* length of the first LD_PRELOAD entry */
};

/* The kernel's limits for this exec (fs/exec.c: bprm_stack_limits). */
static void
pl_count_limits(struct pl_count *c)
{
	struct rlimit rl;

	c->max = (size_t)PL_ARG_PAGES * (size_t)getpagesize();
	c->limit = PL_ARGS_MAX;
	if (getrlimit(RLIMIT_STACK, &rl) == 0 && rl.rlim_cur / 4 < c->limit)
		c->limit = (size_t)(rl.rlim_cur / 4);
	if (c->limit < c->max)
		c->limit = c->max;
}

/*
 * One string of argv or envp, as the kernel counts it: E2BIG for a string
 * longer than c->max with its NUL, or when the strings and their pointers
 * pass c->limit in all (*args).  Returns the length through *len.
 */
static int
pl_count_str(const struct pl_count *c, const char *s, size_t *args, size_t *len)
{
	if ((*len = strnlen(s, c->max)) == c->max)
		return E2BIG;
	*args += *len + 1 + sizeof(char *);
	return *args > c->limit ? E2BIG : 0;
}

static int
pl_count(struct pl_count *c, char *const argv[], char *const envp[])
{
	size_t args = 0, len;
	int e;

	memset(c, 0, sizeof(*c));
	pl_count_limits(c);
	for (; argv && argv[c->argc]; c->argc++, c->bytes += len + 1)
		if ((e = pl_count_str(c, argv[c->argc], &args, &len)) != 0)
			return e;
	for (; envp && envp[c->envc]; c->envc++, c->bytes += len + 1) {
		const char *s = envp[c->envc];

		if ((e = pl_count_str(c, s, &args, &len)) != 0)
			return e;
		if (c->preload == 0 && strncmp(s, PL_PRELOAD, sizeof(PL_PRELOAD) - 1) == 0)
			c->preload = len;
	}
	return 0;
}

/* Bytes for the strings we add: the proxy's two, ours, and room to build them. */
static size_t
pl_own_bytes(const struct pl_count *c, const char *path)
{
	size_t list = strlen(pl.preload);

	return strlen(path) + 1 + strlen(pl.proxy) + 1 + PL_SOCK_ROOM + PL_PROXY_ROOM +
	    strlen(pl.keep[0]) + 1 + strlen(pl.keep[1]) + 1 +
	    sizeof(PL_PRELOAD) + strlen(pl_self()) + 1 + (c->preload > list ? c->preload : list);
}

/* --- the copying pass -------------------------------------------------- */

/* Where the strings go. */
struct pl_area {
	char *p, *end;
	bool full;		/* something did not fit */
};

/* n bytes at the end of the area, or NULL (then it is full). */
static char *
pl_area_take(struct pl_area *a, size_t n)
{
	char *start = a->p;

	if (a->full || n > (size_t)(a->end - a->p)) {
		a->full = true;
		return NULL;
	}
	a->p += n;
	return start;
}

/* Append s and its NUL (read once, up to the room left); returns the copy. */
static char *
pl_area_str(struct pl_area *a, const char *s)
{
	char *start = a->p, *past = NULL;

	if (!a->full && a->p < a->end)
		past = memccpy(a->p, s, '\0', (size_t)(a->end - a->p));
	if (past == NULL) {
		a->full = true;
		return NULL;
	}
	a->p = past;
	return start;
}

/* Append n bytes of s, no NUL. */
static void
pl_area_put(struct pl_area *a, const char *s, size_t n)
{
	char *p = pl_area_take(a, n);

	if (p != NULL)
		memcpy(p, s, n);
}

/* "LD_PRELOAD=" this library first, then the others of list (preloadenv.h). */
static char *
pl_area_preload(struct pl_area *a, const char *list)
{
	char *start = a->p;
	size_t room, n;

	pl_area_put(a, PL_PRELOAD, sizeof(PL_PRELOAD) - 1);
	room = a->full ? 0 : (size_t)(a->end - a->p);
	if ((n = preloadenv_first(a->p, room, pl_self(), list)) >= room) {
		a->full = true;
		return NULL;
	}
	a->p += n + 1;
	return start;
}

/* prefix and the decimal of v ("-1" for any negative v), as one string. */
static char *
pl_area_num(struct pl_area *a, const char *prefix, int v)
{
	char digits[FMT_UINT_SIZE], *start = a->p;
	size_t n = fmt_uint(digits, v < 0 ? 1u : (unsigned)v);

	pl_area_put(a, prefix, strlen(prefix));
	pl_area_put(a, "-", v < 0);
	pl_area_put(a, digits, n);
	pl_area_put(a, "", 1);
	return a->full ? NULL : start;
}

/*
 * The session's strings, copied first: the child's variables (LD_PRELOAD
 * waits for the caller's list), the proxy's program, the room for its fd.
 */
static void
pl_fill_ours(struct pl_copy *c, struct pl_area *a, char *ours[PL_NV])
{
	memset(ours, 0, PL_NV * sizeof(char *));
	ours[PL_V_SOCK] = pl_area_num(a, pl_var_names[PL_V_SOCK], pl_sock());
	if (pl.keep[0][0] != '\0')
		ours[PL_V_WRAPPER] = pl_area_str(a, pl.keep[0]);
	if (pl.keep[1][0] != '\0')
		ours[PL_V_PROXY_PATH] = pl_area_str(a, pl.keep[1]);
	c->wrapper = ours[PL_V_WRAPPER] ? ours[PL_V_WRAPPER] + strlen(pl_var_names[PL_V_WRAPPER]) : "";
	c->proxy = c->argv[-2] = pl_area_str(a, pl.proxy);
	c->proxy_room = pl_area_take(a, PL_PROXY_ROOM);	/* for pl_copy_proxy() */
}

/*
 * The child's environment: the caller's entries in their order, but each
 * of our variables once, with the session's value, in the place of its
 * first entry (LD_PRELOAD: this library, then the others that entry
 * lists); those the caller did not have come last.  The proxy's fd is
 * never taken from the caller.
 */
static void
pl_fill_env(struct pl_copy *c, struct pl_area *a, char *const envp[], size_t envc,
    char *ours[PL_NV])
{
	unsigned seen = 0;
	size_t k = 0;

	for (size_t i = 0; i < envc && envp[i] && !a->full; i++) {
		char *e = pl_area_str(a, envp[i]);
		int v;

		if (e == NULL)
			break;
		if ((v = pl_var_of(e)) == PL_NV || v == PL_V_ASK) {
			c->ask |= v == PL_V_ASK;
			c->env[k++] = e;
			continue;
		}
		if (v == PL_V_PRELOAD && !(seen & (1u << v)))
			ours[v] = pl_area_preload(a, e + sizeof(PL_PRELOAD) - 1);
		else if (v == PL_V_SHELL && !(seen & (1u << v)))
			c->shell = e + strlen(pl_var_names[v]);	/* kept, not passed on */
		else
			a->p = e;	/* a duplicate, or replaced: not kept */
		if (!(seen & (1u << v)) && ours[v] != NULL)
			c->env[k++] = ours[v];
		seen |= 1u << v;
	}
	if (!(seen & (1u << PL_V_PRELOAD)))
		ours[PL_V_PRELOAD] = pl_area_preload(a, pl.preload);
	for (int v = 0; v < PL_V_PROXY; v++)
		if (!(seen & (1u << v)) && ours[v] != NULL)
			c->env[k++] = ours[v];
	c->env[k] = NULL;
	c->envc = k;
}

/* Everything into the mapping at base; false when something did not fit. */
static bool
pl_fill(struct pl_copy *c, const struct pl_count *n, const char *path,
    char *const argv[], char *const envp[])
{
	char **v = c->base, *ours[PL_NV];
	struct pl_area a = { (char *)(v + n->argc + 3 + n->envc + PL_NV + 1),
	    (char *)c->base + c->size, false };
	size_t i;

	c->argv = v + 2;
	c->env = c->argv + n->argc + 1;
	c->shell = NULL;
	c->ask = false;
	pl_fill_ours(c, &a, ours);
	c->run = c->path = c->argv[-1] = pl_area_str(&a, path);
	for (i = 0; i < n->argc && argv[i] && !a.full; i++)
		c->argv[i] = pl_area_str(&a, argv[i]);
	c->argv[i] = NULL;
	pl_fill_env(c, &a, envp, n->envc, ours);
	return !a.full && ours[PL_V_PRELOAD] != NULL;
}

/*
 * A copy left by a vfork child of this thread goes; one that this process
 * mapped is in use below us (an exec from a signal handler): it stays.
 */
static pid_t
pl_live_reclaim(void)
{
	pid_t self = getpid();

	if (pl_live.base != NULL && pl_live.pid != self) {
		munmap(pl_live.base, pl_live.size);
		pl_live.base = NULL;
	}
	return self;
}

/* Where the copy goes: c->room when no other thread can run, else a mapping. */
static int
pl_copy_area(struct pl_copy *c)
{
	c->mapped = !__libc_single_threaded || c->size > sizeof(c->room);
	if (!c->mapped) {
		c->base = c->room;
		return 0;
	}
	c->base = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return c->base == MAP_FAILED ? errno : 0;
}

int
pl_copy_make(struct pl_copy *c, const char *path, char *const argv[], char *const envp[])
{
	size_t page = (size_t)getpagesize();
	struct pl_count n;
	int saved = errno, e = E2BIG;
	pid_t self = pl_live_reclaim();

	for (int t = 0; t < PL_TRIES; t++) {
		if ((e = pl_count(&n, argv, envp)) != 0)
			break;
		c->size = (n.argc + 3 + n.envc + PL_NV + 1) * sizeof(char *) + n.bytes +
		    pl_own_bytes(&n, path);
		/* Whole pages are mapped anyway: the rest is room for what grew. */
		c->size = (c->size + page - 1) / page * page;
		if ((e = pl_copy_area(c)) != 0)
			break;
		e = !pl_fill(c, &n, path, argv, envp) ? E2BIG :	/* it changed meanwhile */
		    c->mapped && mprotect(c->base, c->size, PROT_READ) != 0 ? errno : 0;
		if (e == 0) {
			if (c->mapped && pl_live.base == NULL)
				pl_live = (struct pl_live){ c->base, c->size, self };
			errno = saved;
			return 0;
		}
		if (c->mapped)
			munmap(c->base, c->size);
	}
	errno = saved;
	return e;
}

int
pl_copy_proxy(struct pl_copy *c, int fd)
{
	struct pl_area a = { c->proxy_room, c->proxy_room + PL_PROXY_ROOM, false };

	if (c->mapped && mprotect(c->base, c->size, PROT_READ | PROT_WRITE) != 0)
		return errno;
	c->env[c->envc] = pl_area_num(&a, pl_var_names[PL_V_PROXY], fd);
	c->env[c->envc + 1] = NULL;
	return !c->mapped || mprotect(c->base, c->size, PROT_READ) == 0 ? 0 : errno;
}

void
pl_copy_free(struct pl_copy *c)
{
	int saved = errno;

	if (!c->mapped)
		return;
	munmap(c->base, c->size);
	if (pl_live.base == c->base)
		pl_live.base = NULL;
	errno = saved;
}
