/*
 * init.c: what the preload captures when it is loaded.
 *
 * Session membership and the session's values are decided once, here,
 * before any code of the program runs: every child gets exactly these
 * values back, whatever its environment holds by then (copy.c), so its own
 * copy of the library captures the same ones -- the wrapper paths that
 * name the wrapper's identity (gate.c) among them.  The constructor scans
 * environ by hand (getenv is not safe this early on every libc) and leaves
 * errno exactly as it found it.
 *
 * It is loaded into every process of a session, and most of them never
 * exec anything, so the constructor makes no symbol lookup and no system
 * call but getpid: the real functions, the socket check and our own path
 * are all found on first use.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "err.h"
#include "preload.h"

extern char **environ;

struct pl_real pl_real;
struct pl_state pl;		/* .bss: sock is only read once active is set */

/* Each slot of pl_real and the symbol that fills it. */
#define SYM(f) { #f, (void **)&pl_real.f }
static const struct { const char *name; void **slot; } pl_syms[] = {
	SYM(execve), SYM(execvpe), SYM(fexecve), SYM(execveat), SYM(posix_spawn), SYM(posix_spawnp),
	SYM(close), SYM(close_range), SYM(closefrom), SYM(dup2), SYM(dup3),
	{ "posix_spawn_file_actions_addclose", (void **)&pl_real.fa_addclose },
	{ "posix_spawn_file_actions_adddup2", (void **)&pl_real.fa_adddup2 },
	{ "posix_spawn_file_actions_addopen", (void **)&pl_real.fa_addopen },
	{ "posix_spawn_file_actions_addclosefrom_np", (void **)&pl_real.fa_addclosefrom },
	SYM(pclose), SYM(popen), SYM(system),
};
#undef SYM

static int pl_resolved;		/* set (release) once every slot is filled */

/*
 * Threads racing here all store the same values; the flag is published
 * last, so whoever sees it set sees every slot.  A vfork child that gets
 * here fills the slots for its parent too (shared memory, same values).
 */
void
pl_resolve(void)
{
	int saved = errno;

	if (__atomic_load_n(&pl_resolved, __ATOMIC_ACQUIRE))
		return;
	for (size_t i = 0; i < sizeof(pl_syms) / sizeof(pl_syms[0]); i++)
		*pl_syms[i].slot = dlsym(RTLD_NEXT, pl_syms[i].name);
	__atomic_store_n(&pl_resolved, 1, __ATOMIC_RELEASE);
	errno = saved;
}

/* The value of NAME in environ, or NULL (scanned by hand). */
static const char *
pl_environ_get(const char *name)
{
	size_t n = strlen(name);

	for (char **e = environ; e && *e; e++)
		if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
			return *e + n + 1;
	return NULL;
}

/* Copy "a" "b" into pl.strs; "" when it does not fit (too long to be real). */
static const char *
pl_save(const char *a, const char *b)
{
	size_t na = strlen(a), nb = b ? strlen(b) : 0;
	char *p = pl.strs + pl.used;

	if (na + nb + 1 > sizeof(pl.strs) - pl.used)
		return "";
	memcpy(p, a, na);
	memcpy(p + na, b ? b : "", nb);
	p[na + nb] = '\0';
	pl.used += na + nb + 1;
	return p;
}

/* The value of NAME at load, kept in pl.strs ("" when unset). */
static const char *
pl_save_var(const char *name)
{
	const char *v = pl_environ_get(name);

	return pl_save(v ? v : "", NULL);
}

/* NAME=value to give every child ("" when value is NULL: no child gets NAME). */
static const char *
pl_keep(const char *name, const char *value)
{
	char eq[64];
	size_t n = strlen(name);

	if (value == NULL || n + 1 >= sizeof(eq))
		return "";
	memcpy(eq, name, n);
	eq[n] = '=';
	eq[n + 1] = '\0';
	return pl_save(eq, value);
}

/*
 * Before fork(), in the parent: find what the child will need, once for
 * the parent's lifetime, so that a program that only forks and execs does
 * not repeat the lookups in every child.  (vfork and posix_spawn children
 * share the parent's memory, so what they find is kept anyway.)
 */
static void
pl_before_fork(void)
{
	pl_resolve();
	if (pl.active) {
		pl_self();
		pl_wrappers_lookup();
	}
}

static void
pl_after_fork(void)
{
	if (pl.active)
		pl.owner = getpid();	/* fork copies the fds: the socket is ours now */
}

const char *
pl_self(void)
{
	static const char *self;
	static char path[PATH_MAX];
	Dl_info info;
	int saved = errno;

	if (self != NULL)
		return self;
	if (dladdr((void *)pl_self, &info) != 0 && info.dli_fname &&
	    strlen(info.dli_fname) < sizeof(path))
		memcpy(path, info.dli_fname, strlen(info.dli_fname) + 1);
	errno = saved;
	return self = path;
}

bool
pl_sock_ok(bool recheck)
{
	if (!pl.active || pl.broken)
		return false;
	if (!pl.checked || recheck)
		pl.checked = client_check_socket(pl_sock()) == 0;
	return pl.checked;
}

__attribute__((constructor)) static void
pl_init(void)
{
	int saved = errno;
	const char *v = pl_environ_get(SHELLESC_ENV_SOCKET), *proxy;

	if (v == NULL)
		goto out;
	pl.active = true;
	pl.sock = client_fd_value(v);
	if ((pl.broken = pl.sock < 0))
		pl.sock = -1;
	pl.owner = getpid();
	pl.preload = pl_save_var("LD_PRELOAD");
	pl.wrapper = pl_save_var(SHELLESC_ENV_WRAPPER);
	proxy = pl_environ_get(SHELLESC_ENV_PROXY_PATH);
	pl.proxy = pl_save(proxy ? proxy : pl.wrapper[0] ? pl.wrapper : SHELLESC_WRAPPER_PATH, NULL);
	pl.keep[0] = pl_keep(SHELLESC_ENV_WRAPPER, pl.wrapper[0] ? pl.wrapper : NULL);
	pl.keep[1] = pl_keep(SHELLESC_ENV_PROXY_PATH, proxy ? pl.proxy : NULL);
out:
	if (pl.preload == NULL)
		pl.preload = pl.wrapper = pl.proxy = pl.keep[0] = pl.keep[1] = "";
	pthread_atfork(pl_before_fork, NULL, pl_after_fork);
	errno = saved;
}
