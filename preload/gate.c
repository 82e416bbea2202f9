/*
 * gate.c: one exec attempt -- decide it, then run it with shellesc's
 * variables put back, or become the escalation proxy.
 *
 * Memory on this path comes from the stack or from mmap, never malloc:
 * it runs in vfork children and after fork() in threaded programs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "err.h"
#include "fdpass.h"
#include "preload.h"

#define PL_SOCK_VAR	SHELLESC_ENV_SOCKET "="
#define PL_PRELOAD_VAR	"LD_PRELOAD="
#define PL_PROXY_VAR	SHELLESC_ENV_PROXY "="

static enum pl_verdict
pl_fail(const char *path, const char *why)
{
	char msg[512];
	size_t n = strlen(why);

	if (n > sizeof(msg) - 40)
		n = sizeof(msg) - 40;
	memcpy(msg, "cannot ask the shellesc server: ", 32);
	memcpy(msg + 32, why, n);
	msg[32 + n] = '\0';
	client_say(path, msg);
	return PL_FAIL;
}

/* Linux >= 5.18 runs a NULL or empty argv as { "" }: that is what is asked about. */
static char *const pl_empty_argv[] = { (char *)"", NULL };

/* The server's verdict on one exec (errno is the caller's to keep). */
static enum pl_verdict
pl_ask(const char *path, char *const argv[], char *const envp[], int *stream)
{
	struct msg_exec_out e = { .file = path, .env = envp,
	    .argv = argv && argv[0] ? argv : pl_empty_argv };
	struct client_req req;
	int r;

	if (!pl_sock_ok(true))	/* its number may have been reused by now */
		return pl_fail(path, "the session socket is gone or not a socket");
	e.pid = getpid();
	e.flags = pl_target_flags(path) | SHELLESC_FLAG_VIA_PRELOAD;
	if ((r = client_ask(pl_sock(), &e, &req)) != 0)
		return pl_fail(path, req.refused ? req.reason : client_strerror(r));
	if (req.action == SHELLESC_ACT_RUN)
		return PL_RUN;
	if (req.action == SHELLESC_ACT_ESCALATE) {
		*stream = req.stream;
		return PL_ESCALATE;
	}
	client_say("execution denied", req.reason[0] ? req.reason : NULL);
	return PL_DENY;
}

enum pl_verdict
pl_decide(const char *path, char *const argv[], char *const envp[], int *stream)
{
	enum pl_verdict v;
	int saved = errno;

	if (!pl.active || (pl.wrapper[0] && strcmp(path, pl.wrapper) == 0) ||
	    strcmp(path, pl.proxy) == 0)
		return PL_PASS;		/* the wrapper's own exec is not a decision */
	v = pl_ask(path, argv, envp, stream);
	errno = saved;
	return v;
}

/* --- the child's environment ------------------------------------------ */

static bool
pl_has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* Decimal of v into buf (at least 12 bytes); returns buf. */
static char *
pl_itoa(int v, char *buf)
{
	char tmp[12];
	int n = 0, k = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) > 0);
	while (n > 0)
		buf[k++] = tmp[--n];
	buf[k] = '\0';
	return buf;
}

/* Append s to *p (the caller sized the area). */
static void
pl_put(char **p, const char *s)
{
	size_t n = strlen(s);

	memcpy(*p, s, n);
	*p += n;
}

/* "LD_PRELOAD=" this library first, then the others of list (": " separated). */
static char *
pl_put_preload(char **p, const char *list)
{
	const char *self = pl_self();
	char *start = *p;

	pl_put(p, PL_PRELOAD_VAR);
	pl_put(p, self);
	while (*list) {
		size_t n = strcspn(list, ": ");

		if (n > 0 && !(n == strlen(self) && strncmp(list, self, n) == 0)) {
			*(*p)++ = ':';
			memcpy(*p, list, n);
			*p += n;
		}
		list += n + (list[n] != '\0');
	}
	*(*p)++ = '\0';
	return start;
}

/* Our variables, as the child must see them, and which envp already has right. */
struct pl_envplan {
	char sock[64], proxy[64];
	const char *preload_list;	/* others to keep in LD_PRELOAD */
	int ok;				/* how many of ours envp has right */
	size_t n;
};

/* Is e one of the captured "NAME=value" entries, exactly?  by name? */
static bool
pl_env_kept(const char *e, bool exact)
{
	for (int i = 0; i < pl.nkeep; i++) {
		size_t n = strcspn(pl.keep[i], "=") + 1;

		if (exact ? strcmp(e, pl.keep[i]) == 0 : strncmp(e, pl.keep[i], n) == 0)
			return true;
	}
	return false;
}

static void
pl_env_plan(struct pl_envplan *pp, char *const envp[], int proxy_fd)
{
	char num[12];

	memset(pp, 0, sizeof(*pp));
	memcpy(pp->sock, PL_SOCK_VAR, sizeof(PL_SOCK_VAR) - 1);
	pl_itoa(pl_sock(), pp->sock + sizeof(PL_SOCK_VAR) - 1);
	if (proxy_fd >= 0) {
		memcpy(pp->proxy, PL_PROXY_VAR, sizeof(PL_PROXY_VAR) - 1);
		memcpy(pp->proxy + sizeof(PL_PROXY_VAR) - 1, pl_itoa(proxy_fd, num), 12);
	}
	pp->preload_list = pl.preload;
	for (; envp && envp[pp->n]; pp->n++) {
		const char *e = envp[pp->n];

		if (pl_has_prefix(e, PL_PRELOAD_VAR)) {
			pp->preload_list = e + sizeof(PL_PRELOAD_VAR) - 1;
			pp->ok += pl_has_prefix(pp->preload_list, pl_self());
		} else
			pp->ok += strcmp(e, pp->sock) == 0 || pl_env_kept(e, true);
	}
}

static bool
pl_env_ours(const char *e)
{
	return pl_has_prefix(e, PL_SOCK_VAR) || pl_has_prefix(e, PL_PRELOAD_VAR) ||
	    pl_has_prefix(e, PL_PROXY_VAR) || pl_env_kept(e, false);
}

/* Copy a NUL-terminated string into the area at *p; returns the copy. */
static char *
pl_put_str(char **p, const char *a, const char *b)
{
	char *start = *p;

	pl_put(p, a);
	pl_put(p, b);
	*(*p)++ = '\0';
	return start;
}

/*
 * The mapping holds its own size first, then the pointer array, then the
 * strings we add; the caller's strings are shared, not copied.
 */
char **
pl_env(char *const envp[], int proxy_fd)
{
	struct pl_envplan pp;
	size_t size, k = 0;
	char **out, *p;

	pl_env_plan(&pp, envp, proxy_fd);
	if (pp.ok == 2 + pl.nkeep && proxy_fd < 0)	/* duplicates aside */
		return (char **)envp;
	size = sizeof(size_t) + (pp.n + 6) * sizeof(char *) + sizeof(pp.sock) +
	    sizeof(pp.proxy) + sizeof(PL_PRELOAD_VAR) + strlen(pl_self()) + 1 +
	    strlen(pp.preload_list) + 1;
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	*(size_t *)(void *)p = size;
	out = (char **)(void *)(p + sizeof(size_t));
	p = (char *)(out + pp.n + 6);
	for (size_t i = 0; i < pp.n; i++)
		if (!pl_env_ours(envp[i]))
			out[k++] = envp[i];
	out[k++] = pl_put_str(&p, pp.sock, "");
	out[k++] = pl_put_preload(&p, pp.preload_list);
	for (int i = 0; i < pl.nkeep; i++)
		out[k++] = (char *)pl.keep[i];	/* static: valid until the exec */
	if (proxy_fd >= 0)
		out[k++] = pl_put_str(&p, pp.proxy, "");
	out[k] = NULL;
	return out;
}

void
pl_env_free(char **env, char *const envp[])
{
	int saved = errno;
	char *base;

	if (env == NULL || env == (char **)envp)
		return;
	base = (char *)env - sizeof(size_t);
	munmap(base, *(size_t *)(void *)base);
	errno = saved;
}

/* --- running what was decided -------------------------------------------- */

/* The socket must survive the exec, whatever the program did to its flags. */
static void
pl_sock_inherit(void)
{
	int fd = pl_sock();

	if (pl.active && !pl.broken && fd >= 0)
		fcntl(fd, F_SETFD, 0);
}

/* argv with two more slots in front, in an mmap'd area (argv may be huge). */
static char **
pl_argv_shift(const char *a0, const char *a1, char *const argv[], size_t *size)
{
	size_t n = 0;
	char **v;

	while (argv && argv[n])
		n++;
	*size = (n + 3) * sizeof(char *);
	v = mmap(NULL, *size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (v == MAP_FAILED)
		return NULL;
	v[0] = (char *)a0;
	v[1] = (char *)a1;
	memcpy(v + 2, argv, sizeof(char *) * n);
	v[n + 2] = NULL;
	return v;
}

/*
 * Escalated: exec the wrapper as the proxy, the request's stream left open
 * for it: it hands over our stdio and ends as the command ends, so the old
 * image (threads, atexit handlers, unflushed stdio) is gone as after any exec.
 */
static int
pl_exec_proxy(const char *path, char *const argv[], char *const envp[], int stream)
{
	size_t size;
	char **env = pl_env(envp, stream), **v = pl_argv_shift(pl.proxy, path, argv, &size);
	int e;

	if (env != NULL && v != NULL && fcntl(stream, F_SETFD, 0) == 0)
		pl_real.execve(pl.proxy, v, env);
	e = errno;
	client_say(pl.proxy, "cannot start the escalation proxy");
	pl_env_free(env, envp);
	if (v != NULL)
		munmap(v, size);
	fdpass_close_all(&stream, 1);
	return e;
}

int
pl_exec_decided(const char *path, char *const argv[], char *const envp[],
    enum pl_verdict v, int stream)
{
	char **env;
	int e;

	if (v == PL_DENY || v == PL_FAIL)
		return EACCES;
	if (v == PL_ESCALATE)
		return pl_exec_proxy(path, argv, envp, stream);
	if (!pl.active) {
		pl_real.execve(path, argv, envp);
		return errno;
	}
	if ((env = pl_env(envp, -1)) == NULL)
		return errno;
	pl_sock_inherit();
	pl_real.execve(path, argv, env);
	e = errno;
	pl_env_free(env, envp);
	return e;
}
