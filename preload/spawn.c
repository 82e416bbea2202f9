/*
 * spawn.c: posix_spawn and posix_spawnp, decided in the parent (where
 * allocation would be safe, though none is needed), and system, popen and
 * pclose, which glibc runs through internal calls no interposer sees, so
 * they are rebuilt here on the interposed posix_spawn with POSIX's signal
 * rules.  posix_spawn* return an error number; they never set errno.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "path.h"
#include "preload.h"

extern char **environ;

/* Escalated: spawn the wrapper as the proxy, the stream inherited on a high fd. */
static int
pl_spawn_proxy(pid_t *pid, struct pl_copy *c, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, int stream)
{
	int fd = fcntl(stream, F_DUPFD, 512), r = errno;

	close(stream);
	if (fd < 0)
		return r;
	if ((r = pl_copy_proxy(c, fd)) == 0)
		r = pl_real.posix_spawn(pid, c->proxy, fa, attr, c->argv - 2, c->env);
	close(fd);
	return r;
}

/*
 * Decide one candidate (a private string) and spawn the copy that was
 * decided.  Returns 0 or an error number; *refused says the policy refused
 * it (EACCES), which ends a PATH search where a plain EACCES would go on.
 */
static int
pl_spawn_one(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[],
    bool *refused)
{
	int stream = -1, r;
	enum pl_verdict v;
	struct pl_copy c;

	*refused = false;
	/* As for an exec: no decision about what could not run anyway. */
	if ((r = path_executable(path)) != 0 || (r = pl_copy_make(&c, path, argv, envp)) != 0)
		return r;
	v = pl_decide(&c, &stream);
	if ((*refused = v == PL_DENY || v == PL_FAIL))
		r = EACCES;
	else if (v == PL_ESCALATE)
		r = pl_spawn_proxy(pid, &c, fa, attr, stream);
	else {
		pl_sock_inherit();
		r = pl_real.posix_spawn(pid, c.run, fa, attr, c.argv, c.env);
	}
	pl_copy_free(&c);
	return r;
}

int
pl_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	char p[PATH_MAX];
	int saved = errno, r;
	bool refused;

	if (!pl.active)
		r = pl_real.posix_spawn(pid, path, fa, attr, argv, envp);
	else if ((r = pl_private(p, path)) == 0)
		r = pl_spawn_one(pid, p, fa, attr, argv, envp, &refused);
	errno = saved;
	return r;
}

PL_EXPORT int
posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	pl_resolve();
	return pl_spawn(pid, path, fa, attr, argv, envp);
}

/*
 * posix_spawnp: as in glibc, each PATH candidate is tried in turn -- the
 * search goes on past a failed spawn (a script's missing interpreter gives
 * ENOENT) exactly where execvp's would.
 */
struct pl_spawnp {
	pid_t *pid;
	const posix_spawn_file_actions_t *fa;
	const posix_spawnattr_t *attr;
	char *const *argv, *const *envp;
	bool refused;
};

/* path_search's try: 0 ends the search (spawned, or refused: sp->refused). */
static int
pl_spawnp_try(const char *cand, void *arg)
{
	struct pl_spawnp *sp = arg;
	int r = pl_spawn_one(sp->pid, cand, sp->fa, sp->attr, sp->argv, sp->envp,
	    &sp->refused);

	return sp->refused ? 0 : r;
}

PL_EXPORT int
posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
    const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	struct pl_spawnp sp = { pid, fa, attr, argv, envp, false };
	char f[PATH_MAX];
	int saved = errno, e;

	pl_resolve();
	if (!pl.active)
		return pl_real.posix_spawnp(pid, file, fa, attr, argv, envp);
	if ((e = pl_private(f, file)) == 0)
		e = pl_path_search(f, pl_spawnp_try, &sp);
	errno = saved;
	return sp.refused ? EACCES : e;
}
