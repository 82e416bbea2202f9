/*
 * gate.c: one exec attempt, copied (copy.c) -- decide it, then run that
 * copy, or become the escalation proxy.
 *
 * Memory on this path comes from the stack or from mmap, never malloc:
 * it runs in vfork children and after fork() in threaded programs.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "client.h"
#include "clock.h"
#include "err.h"
#include "fdpass.h"
#include "preload.h"
#include "script.h"

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

/*
 * The session's wrappers, known by file identity: EXEC_WRAPPER and the
 * proxy, by the paths the session named when the library was loaded.  Each
 * is looked up once, on first use or before fork() (so that children of
 * fork inherit it); a path that is not absolute or does not exist names no
 * wrapper.
 */
static struct pl_wid {
	dev_t dev;
	ino_t ino;
	int state;	/* 0: not looked up yet, 1: known, -1: none */
} pl_wids[2];

/* Threads racing here store the same values; state is published last. */
static int
pl_wid_state(struct pl_wid *w, const char *path)
{
	int state = __atomic_load_n(&w->state, __ATOMIC_ACQUIRE), saved = errno;
	struct stat ws;

	if (state != 0)
		return state;
	state = path[0] == '/' && stat(path, &ws) == 0 ? 1 : -1;
	if (state == 1) {
		w->dev = ws.st_dev;
		w->ino = ws.st_ino;
	}
	__atomic_store_n(&w->state, state, __ATOMIC_RELEASE);
	errno = saved;
	return state;
}

void
pl_wrappers_lookup(void)
{
	pl_wid_state(&pl_wids[0], pl.wrapper);
	pl_wid_state(&pl_wids[1], pl.proxy);
}

/* The session's path (c's copy) of the wrapper c->path names, or NULL. */
static const char *
pl_wrapper_of(const struct pl_copy *c)
{
	struct stat st;
	int saved = errno;
	bool named = stat(c->path, &st) == 0;

	errno = saved;
	if (named && pl_wid_state(&pl_wids[0], pl.wrapper) == 1 &&
	    pl_wids[0].dev == st.st_dev && pl_wids[0].ino == st.st_ino)
		return c->wrapper;
	if (named && pl_wid_state(&pl_wids[1], pl.proxy) == 1 &&
	    pl_wids[1].dev == st.st_dev && pl_wids[1].ino == st.st_ino)
		return c->proxy;
	return NULL;
}

/*
 * The server's verdict on one exec (errno is the caller's to keep).  The
 * request is encoded from c, which no other thread can change: it is
 * whole, and it is what will run.
 */
static enum pl_verdict
pl_ask(const struct pl_copy *c, int *stream)
{
	struct msg_exec_out e = { .file = c->path, .env = c->env,
	    .argv = c->argv[0] ? c->argv : pl_empty_argv };
	struct client_req req;
	int r;

	if (!pl_sock_ok(true))	/* its number may have been reused by now */
		return pl_fail(c->path, "the session socket is gone or not a socket");
	e.pid = getpid();
	/* No claims about the file (static, set-id): the server looks itself. */
	e.flags = SHELLESC_FLAG_VIA_PRELOAD;
	if ((r = client_ask(pl_sock(), &e, &req)) != 0)
		return pl_fail(c->path, req.refused ? req.reason : client_strerror(r));
	if (req.action == SHELLESC_ACT_RUN)
		return PL_RUN;
	if (req.action == SHELLESC_ACT_ESCALATE) {
		*stream = req.stream;
		return PL_ESCALATE;
	}
	client_say("execution denied", req.reason[0] ? req.reason : NULL);
	return PL_DENY;
}

/*
 * The last deny of this process image.  A program that walks PATH itself
 * (CPython's subprocess tries /usr/bin/rm, then /bin/rm: one file under
 * usrmerge) asks again about the same file with the same argv and
 * environment within moments; that repeat is answered from the first
 * decision here, not asked nor audited again.  Only denies are kept, so
 * nothing the process does to this memory can make anything run that the
 * server would not allow: at worst something is refused unasked.  The pid
 * tells a vfork child's record (same memory) from its parent's.
 */
#define PL_REPEAT_MS 2000	/* how long a walk may take */

static struct {
	dev_t dev;
	ino_t ino;
	unsigned long long sum;	/* of argv and env */
	int64_t at;		/* clock_now_ms() of the answer */
	pid_t pid;		/* published last; 0: none */
} pl_denied;

/* FNV-1a over the strings of v, each with its NUL. */
static unsigned long long
pl_sum(unsigned long long h, char *const *v)
{
	for (; v && *v; v++)
		for (const unsigned char *p = (const unsigned char *)*v;; p++) {
			h = (h ^ *p) * 0x100000001b3ULL;
			if (*p == '\0')
				break;
		}
	return (h ^ 0xff) * 0x100000001b3ULL;	/* between argv and env */
}

static unsigned long long
pl_copy_sum(const struct pl_copy *c)
{
	return pl_sum(pl_sum(0xcbf29ce484222325ULL, c->argv), c->env);
}

/* Whether c repeats the last deny recorded by this process (st: c->path's
 * identity; the caller has checked the record's pid). */
static bool
pl_repeats_deny(const struct pl_copy *c, const struct stat *st)
{
	int64_t now = clock_now_ms();

	return pl_denied.dev == st->st_dev && pl_denied.ino == st->st_ino &&
	    now - pl_denied.at < PL_REPEAT_MS && pl_denied.sum == pl_copy_sum(c);
}

static void
pl_remember_deny(const struct pl_copy *c, const struct stat *st)
{
	__atomic_store_n(&pl_denied.pid, 0, __ATOMIC_RELEASE);
	pl_denied.dev = st->st_dev;
	pl_denied.ino = st->st_ino;
	pl_denied.sum = pl_copy_sum(c);
	pl_denied.at = clock_now_ms();
	__atomic_store_n(&pl_denied.pid, getpid(), __ATOMIC_RELEASE);
}

/* The wrapper's own exec is not a decision: it asks about its FILE itself. */
enum pl_verdict
pl_decide(struct pl_copy *c, int *stream)
{
	const char *wrapper;
	enum pl_verdict v;
	struct stat st;
	bool known;
	pid_t pid;
	int saved = errno;

	if (!pl.active)
		return PL_PASS;
	if ((wrapper = pl_wrapper_of(c)) != NULL) {
		c->run = wrapper;	/* the session's path, not the caller's */
		return PL_PASS;
	}
	/* no syscall added to an exec unless this image was denied before */
	pid = __atomic_load_n(&pl_denied.pid, __ATOMIC_ACQUIRE);
	known = pid != 0 && pid == getpid() && stat(c->path, &st) == 0;
	if (known && pl_repeats_deny(c, &st))
		v = PL_DENY;
	else if ((v = pl_ask(c, stream)) == PL_DENY && stat(c->path, &st) == 0)
		pl_remember_deny(c, &st);
	errno = saved;
	return v;
}

/* --- running what was decided -------------------------------------------- */

/* The socket must survive the exec, whatever the program did to its flags. */
void
pl_sock_inherit(void)
{
	int fd = pl_sock();

	if (pl.active && !pl.broken && fd >= 0)
		fcntl(fd, F_SETFD, 0);
}

/*
 * Escalated: exec the wrapper as the proxy, the request's stream left open
 * for it: it hands over our stdio and ends as the command ends, so the old
 * image (threads, atexit handlers, unflushed stdio) is gone as after any exec.
 */
static int
pl_exec_proxy(struct pl_copy *c, int stream)
{
	int e = pl_copy_proxy(c, stream);

	if (e == 0 && fcntl(stream, F_SETFD, 0) == 0)
		script_execve(pl_real.execve, c->proxy, c->argv - 2, c->env);
	if (e == 0)
		e = errno;
	client_say(c->proxy, "cannot start the escalation proxy");
	fdpass_close_all(&stream, 1);
	return e;
}

int
pl_exec_decided(struct pl_copy *c, enum pl_verdict v, int stream)
{
	if (v == PL_DENY || v == PL_FAIL)
		return EACCES;
	if (v == PL_ESCALATE)
		return pl_exec_proxy(c, stream);
	pl_sock_inherit();
	script_execve(pl_real.execve, c->run, c->argv, c->env);
	return errno;
}

/*
 * --- a patched shell's exec of the wrapper, decided here --------------------
 *
 * In both mode a patched shell execs the session's wrapper for every
 * command, FILE and argv behind it.  This library is loaded in that shell
 * already, so it does here what the wrapper would have done: one decision
 * and one exec per command instead of two execs and a second program's
 * start.  Only the exec family comes here (posix_spawn of the wrapper runs
 * it); the wrapper itself stays for shells without this library.
 */
bool
pl_wrapped(struct pl_copy *c)
{
	if (c->run != c->wrapper || c->wrapper[0] == '\0' || c->argv[0] == NULL ||
	    c->argv[1] == NULL || c->ask)
		return false;
	c->path = c->run = c->argv[1];	/* in the copy: what is decided runs */
	c->argv += 2;			/* argv[-2], argv[-1]: the proxy's line */
	return true;
}

int
pl_run_wrapped(struct pl_copy *c)
{
	const char *why, *shell = c->shell && c->shell[0] == '/' ? c->shell : SCRIPT_SHELL;
	int stream = -1, e;
	enum pl_verdict v = pl_decide(c, &stream);

	if (v == PL_ESCALATE)
		return pl_exec_proxy(c, stream);
	if (v == PL_RUN || v == PL_PASS) {	/* PASS: FILE is the wrapper again */
		pl_sock_inherit();
		e = script_run(pl_real.execve, c->run, c->argv, c->env, shell, &why);
		client_say(c->run, why);
		_exit(script_status(e));
	}
	_exit(126);	/* denied, or the server could not be asked: said already */
}
