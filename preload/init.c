/*
 * init.c: what the preload captures when it is loaded.
 *
 * Session membership is decided once, here: a child whose environment later
 * loses LD_PRELOAD or the socket variable gets them put back (gate.c).  The
 * constructor scans environ by hand (getenv is not safe this early on every
 * libc) and leaves errno exactly as it found it.
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
struct pl_state pl = { .sock = -1 };

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

void
pl_resolve(void)
{
	int saved = errno;

	if (pl_real.execve != NULL)
		return;
	for (size_t i = 0; i < sizeof(pl_syms) / sizeof(pl_syms[0]); i++)
		*pl_syms[i].slot = dlsym(RTLD_NEXT, pl_syms[i].name);
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

static void
pl_copy(char *dst, size_t size, const char *src)
{
	size_t n = src ? strlen(src) : 0;

	if (n >= size)
		n = 0;		/* too long to be a real path: leave it empty */
	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

/* Remember NAME=value to put back into children's environments. */
static void
pl_keep(const char *name, const char *value)
{
	char *e = pl.keep[pl.nkeep];
	size_t n = strlen(name);

	if (value == NULL || n + 1 + strlen(value) >= sizeof(pl.keep[0]))
		return;
	memcpy(e, name, n);
	e[n] = '=';
	memcpy(e + n + 1, value, strlen(value) + 1);
	pl.nkeep++;
}

static void
pl_after_fork(void)
{
	pl.owner = getpid();	/* fork copies the fds: the socket is ours now */
}

/* Find out where this library is, to put it back into LD_PRELOAD. */
static void
pl_find_self(void)
{
	Dl_info info;

	if (dladdr((void *)pl_find_self, &info) != 0 && info.dli_fname)
		pl_copy(pl.self, sizeof(pl.self), info.dli_fname);
}

__attribute__((constructor)) static void
pl_init(void)
{
	int saved = errno, fd, r;
	const char *proxy;

	pl_resolve();
	if ((r = client_session_fd(environ, &fd)) == SE_ERR_NO_SESSION)
		goto out;
	pl.active = true;
	pl.broken = r != 0;
	pl.sock = r == 0 ? fd : -1;
	pl.owner = getpid();
	pl_find_self();
	pl_copy(pl.preload, sizeof(pl.preload), pl_environ_get("LD_PRELOAD"));
	pl_copy(pl.wrapper, sizeof(pl.wrapper), pl_environ_get(SHELLESC_ENV_WRAPPER));
	proxy = pl_environ_get(SHELLESC_ENV_PROXY_PATH);
	pl_copy(pl.proxy, sizeof(pl.proxy), proxy ? proxy : pl.wrapper[0] ?
	    pl.wrapper : SHELLESC_WRAPPER_PATH);
	pl_keep(SHELLESC_ENV_WRAPPER, pl.wrapper[0] ? pl.wrapper : NULL);
	pl_keep(SHELLESC_ENV_PROXY_PATH, proxy ? pl.proxy : NULL);
	pthread_atfork(NULL, NULL, pl_after_fork);
out:
	errno = saved;
}
