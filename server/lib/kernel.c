/*
 * kernel.c: the kernel layer.  The embedder installs a seccomp filter on
 * the session's tree that returns SECCOMP_RET_USER_NOTIF for execve(2)
 * and execveat(2), and hands the session the filter's listener
 * (shellesc_session_kernel).  The loop thread receives each notification:
 * the caller's thread is stopped in the system call.  It is let through
 * unasked when it is the exec the embedder's own child makes first, when
 * it runs the session's wrapper (which asks itself), or when it takes a
 * ticket (server.h): the exec a client already had decided.  Any other is
 * a request like a client's -- path, argv and envp read from the caller's
 * memory (kernel-mem.c), its cwd, ids and root from /proc, the file
 * opened by the server (target_inspect) -- decided by the same policy:
 * run continues the system call through the verifier (kernel-verify.c),
 * which checks at the exec event that what loads is what was decided, as
 * it does for every exec let through unasked; deny fails it with EACCES;
 * escalate makes the caller exec the wrapper as the proxy of the command
 * the server runs (kernel-escalate.c), as the preload does.  What is
 * guaranteed and what is not is in docs/security.md ("The kernel layer").
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/audit.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "server.h"

#define KERNEL_NOTIF_MAX	256	/* bytes for the kernel's struct seccomp_notif */
#define KERNEL_STATUS_MAX	(1u << 20) /* /proc/TID/status, 65536 groups included */

/* An ABI the session's code may call exec in, and how its calls look. */
struct kernel_abi {
	uint32_t arch;
	int execve, execveat;
	size_t psize;			/* its pointers */
};

static const struct kernel_abi kernel_abis[] = {
#if defined(__x86_64__) && !defined(__ILP32__)
	{ AUDIT_ARCH_X86_64, 59, 322, 8 },
	{ AUDIT_ARCH_I386, 11, 358, 4 },
#elif defined(__aarch64__)
	{ AUDIT_ARCH_AARCH64, 221, 281, 8 },
	{ AUDIT_ARCH_ARM, 11, 387, 4 },
#endif
};
#define KERNEL_NABIS	(sizeof(kernel_abis) / sizeof(kernel_abis[0]))

/* Who the stopped thread is, as /proc/TID/status says. */
struct kernel_who {
	pid_t tgid, ppid;
	uid_t uid;			/* effective, as SO_PEERCRED gives */
	gid_t gid;
	gid_t *groups;
	size_t ngroups;
};

void
kernel_init(struct kernel *k)
{
	memset(k, 0, sizeof(*k));
	atomic_init(&k->fd, -1);
}

void
kernel_answer(struct kernel *k, uint64_t id, int err)
{
	struct seccomp_notif_resp r = { .id = id };

	if (err == 0)
		r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	else
		r.error = -err;
	/* ENOENT: the caller was killed meanwhile */
	while (ioctl(atomic_load(&k->fd), SECCOMP_IOCTL_NOTIF_SEND, &r) != 0 && errno == EINTR)
		;
}

/* The whole of a small /proc file, NUL-terminated; malloc'd or NULL. */
static char *
kernel_slurp(const char *path, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 4096;
	char *b = NULL, *nb;
	ssize_t n;

	if (fd < 0)
		return NULL;
	while (len + 1 < max && (nb = realloc(b, cap)) != NULL) {
		b = nb;
		if ((n = read(fd, b + len, cap - len - 1)) < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (len + 1 == cap)
			cap *= 2;
	}
	close(fd);
	if (b)
		b[len] = '\0';
	return b;
}

static int
kernel_groups(const char *line, struct kernel_who *w)
{
	char *end;
	size_t n = 0;

	for (const char *p = line; *p && *p != '\n'; p++)
		n += *p == ' ' || *p == '\t';
	if ((w->groups = calloc(n + 1, sizeof(gid_t))) == NULL)
		return -ENOMEM;
	for (;;) {
		unsigned long g = strtoul(line, &end, 10);

		if (end == line || *end == '\0')
			return 0;
		w->groups[w->ngroups++] = (gid_t)g;
		line = end;
		if (*line == '\n' || w->ngroups > n)
			return 0;
	}
}

static int
kernel_status(pid_t tid, struct kernel_who *w)
{
	char path[64], *st, *p;
	unsigned long ruid, euid, rgid, egid;
	int r = -EIO, have = 0;

	snprintf(path, sizeof(path), "/proc/%ld/status", (long)tid);
	if ((st = kernel_slurp(path, KERNEL_STATUS_MAX)) == NULL)
		return -errno;
	for (p = st; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		long v;

		if (sscanf(p, "Tgid: %ld", &v) == 1 && (have |= 1))
			w->tgid = (pid_t)v;
		else if (sscanf(p, "PPid: %ld", &v) == 1 && (have |= 2))
			w->ppid = (pid_t)v;
		else if (sscanf(p, "Uid: %lu %lu", &ruid, &euid) == 2 && (have |= 4))
			w->uid = (uid_t)euid;
		else if (sscanf(p, "Gid: %lu %lu", &rgid, &egid) == 2 && (have |= 8))
			w->gid = (gid_t)egid;
		else if (strncmp(p, "Groups:", 7) == 0 && kernel_groups(p + 7, w) == 0)
			have |= 16;
	}
	if (have == 31)
		r = 0;
	free(st);
	return r;
}

static const struct kernel_abi *
kernel_abi(const struct seccomp_data *d)
{
	for (size_t i = 0; i < KERNEL_NABIS; i++)
		if (kernel_abis[i].arch == d->arch &&
		    ((int)d->nr == kernel_abis[i].execve || (int)d->nr == kernel_abis[i].execveat))
			return &kernel_abis[i];
	return NULL;
}

/*
 * The file as the caller's kernel will look it up, for the walk:
 * execveat's directory fd named through the caller's /proc/self/fd.
 */
static char *
kernel_file(const struct seccomp_data *d, bool at, const char *path)
{
	int dirfd = (int)d->args[0];
	char *f;

	if (!at || path[0] == '/' || (dirfd == AT_FDCWD && path[0] != '\0'))
		return strdup(path);
	if (path[0] == '\0' && (d->args[4] & AT_EMPTY_PATH))
		return asprintf(&f, "/proc/self/fd/%d", dirfd) < 0 ? NULL : f;
	return asprintf(&f, "/proc/self/fd/%d/%s", dirfd, path) < 0 ? NULL : f;
}

/* Strings joined with their NULs into a NULL-terminated array. */
static void
kernel_split(char *s, size_t n, char **out)
{
	for (size_t i = 0; i < n; i++) {
		out[i] = s;
		s += strlen(s) + 1;
	}
	out[n] = NULL;
}

/* The request's exec as a client would have sent it (km's strings kept). */
static int
kernel_exec(struct msg_exec *ex, const struct kmem_exec *km, const char *file, pid_t tid)
{
	char link[64], cwd[PATH_MAX];
	ssize_t n;
	size_t flen = strlen(file) + 1, clen;

	snprintf(link, sizeof(link), "/proc/%ld/cwd", (long)tid);
	if ((n = readlink(link, cwd, sizeof(cwd) - 1)) < 0)
		return -errno;
	cwd[n] = '\0';
	clen = (size_t)n + 1;
	memset(ex, 0, sizeof(*ex));
	ex->blob_ = malloc(flen + clen + km->argv_len + km->env_len);
	ex->argv = calloc(km->argc + 1, sizeof(char *));
	ex->env = calloc(km->envc + 1, sizeof(char *));
	if (!ex->blob_ || !ex->argv || !ex->env)
		return -ENOMEM;
	ex->file = memcpy(ex->blob_, file, flen);
	ex->cwd = memcpy(ex->blob_ + flen, cwd, clen);
	if (km->argv_len)	/* argv, envp NULL: no strings, no buffer */
		memcpy(ex->cwd + clen, km->argv, km->argv_len);
	if (km->env_len)
		memcpy(ex->cwd + clen + km->argv_len, km->env, km->env_len);
	kernel_split(ex->cwd + clen, km->argc, ex->argv);
	kernel_split(ex->cwd + clen + km->argv_len, km->envc, ex->env);
	ex->argc = km->argc;
	ex->envc = km->envc;
	ex->pid = tid;
	ex->flags = SHELLESC_ASKED_BY_KERNEL;
	return 0;
}

/* How the kernel names the file in a script's argv (fs/exec.c). */
static char *
kernel_filename(const struct seccomp_data *d, bool at, const char *path)
{
	int dirfd = (int)d->args[0];
	char *f;

	if (!at || dirfd == AT_FDCWD || path[0] == '/')
		return strdup(path);
	if (path[0] == '\0')
		return asprintf(&f, "/dev/fd/%d", dirfd) < 0 ? NULL : f;
	return asprintf(&f, "/dev/fd/%d/%s", dirfd, path) < 0 ? NULL : f;
}

/*
 * What the exec read as km must load and run with, if let through: the
 * ELF the server found (t), with argv as read; a script's interpreter
 * with, at the end of its argv, the file's name and argv[1..].
 */
static struct kverify_job *
kernel_job(const struct seccomp_notif *n, const struct kmem_exec *km,
    const struct kernel_who *w, const struct target *t)
{
	bool at = (int)n->data.nr == kernel_abi(&n->data)->execveat;
	struct kverify_job *j = calloc(1, sizeof(*j));
	size_t skip = t->elf ? 0 : strlen(km->argv) + 1;	/* argc >= 1 */
	char *name = t->elf ? NULL : kernel_filename(&n->data, at, km->path);
	size_t nlen = name ? strlen(name) + 1 : 0;

	if (j && (name || t->elf)) {
		*j = (struct kverify_job){ .id = n->id, .tid = (pid_t)n->pid, .tgid = w->tgid, .fd = -1,
		    .ppid = w->ppid, .known = t->pub.error == 0 && t->runs_known,
		    .dev = t->runs_dev, .ino = t->runs_ino, .whole = t->elf,
		    .len = nlen + km->argv_len - skip };
		if ((j->want = malloc(j->len ? j->len : 1)) != NULL) {
			if (name)
				memcpy(j->want, name, nlen);
			memcpy(j->want + nlen, km->argv + skip, km->argv_len - skip);
			free(name);
			return j;
		}
	}
	free(j);
	free(name);
	return NULL;
}

/* The ticket this exec takes, if any: then it is used up, and t says
 * what the decided target runs. */
static bool
kernel_ticket_take(struct kernel *k, const struct stat *st, const struct kernel_who *w,
    const struct kmem_exec *km, struct target *t)
{
	for (size_t i = 0; i < KERNEL_TICKETS; i++) {
		struct kticket *kt = &k->t[i];

		if (kt->pid == 0 || kt->dev != st->st_dev || kt->ino != st->st_ino ||
		    (kt->pid != w->tgid && kt->pid != w->ppid) || kt->len != km->argv_len ||
		    memcmp(kt->argv, km->argv, kt->len) != 0)
			continue;
		t->elf = kt->elf;
		t->runs_known = kt->runs_known;
		t->runs_dev = kt->runs_dev;
		t->runs_ino = kt->runs_ino;
		free(kt->argv);
		memset(kt, 0, sizeof(*kt));
		return true;
	}
	return false;
}

void
kernel_ticket(struct loop *l, const struct shellesc_request *req)
{
	struct kernel *k = &l->kernel;
	struct kticket *kt = &k->t[k->next++ % KERNEL_TICKETS];
	const struct target *t = &req->target;
	size_t len = 0;
	char *p;

	if (atomic_load(&k->fd) < 0 || t->pub.error != 0)
		return;
	for (size_t i = 0; i < req->ex.argc; i++)
		len += strlen(req->ex.argv[i]) + 1;
	if (len > KERNEL_TICKET_ARGV || (p = malloc(len ? len : 1)) == NULL)
		return;
	free(kt->argv);
	*kt = (struct kticket){ .pid = req->pid, .dev = t->pub.dev, .ino = t->pub.ino,
	    .argv = p, .len = len, .elf = t->elf, .runs_known = t->runs_known,
	    .runs_dev = t->runs_dev, .runs_ino = t->runs_ino };
	for (size_t i = 0; i < req->ex.argc; i++)
		p = stpcpy(p, req->ex.argv[i]) + 1;
}

/* Let the exec of the file st through without a question?  Then t says
 * what it runs. */
static bool
kernel_known(struct kernel *k, const struct stat *st, const struct kernel_who *w,
    const struct kmem_exec *km, struct target *t)
{
	if (k->wrapper && st->st_dev == k->wdev && st->st_ino == k->wino) {
		t->elf = t->runs_known = true;	/* it asks for itself */
		t->runs_dev = st->st_dev;
		t->runs_ino = st->st_ino;
		return true;
	}
	return kernel_ticket_take(k, st, w, km, t);
}

/* Ask the policy, as conn_take_exec does for a client's request. */
static void
kernel_ask(struct loop *l, struct shellesc_request *req)
{
	req->hub = l->hub;
	req->id = ++l->next_id;
	pthread_mutex_lock(&l->hub->mu);
	l->hub->refs++;			/* the policy's reference */
	pthread_mutex_unlock(&l->hub->mu);
	loop_log(l, SHELLESC_LOG_DEBUG, "request %llu (kernel): %s", (unsigned long long)req->id,
	    req->program);
	hub_inline_begin(req);
	l->cfg->policy(l->cfg->policy_arg, req);
	hub_inline_end();
	if (req->decided_inline)
		kernel_on_decided(l, req);
}

/* The stopped exec's memory (km), its caller (w) and the caller as a
 * peer to look files up as (p: w's groups are its now).  0 or -errno. */
static int
kernel_read(struct kernel *k, const struct seccomp_notif *n, struct kernel_who *w,
    struct kmem_exec *km, struct peer *p)
{
	const struct kernel_abi *abi = kernel_abi(&n->data);
	bool at = (int)n->data.nr == abi->execveat;
	const uint64_t *a = (const uint64_t *)n->data.args + (at ? 1 : 0);
	char path[64];
	int mem, r;

	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)n->pid);
	if ((mem = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -errno;
	if (ioctl(atomic_load(&k->fd), SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) != 0)
		r = -ESRCH;		/* gone: that pid may be another's now */
	else if ((r = kernel_status((pid_t)n->pid, w)) == 0)
		r = kmem_read(mem, abi->psize, a[0], a[1], a[2], km);
	close(mem);
	if (r == 0 && km->argc == 0)
		r = -EINVAL;
	if (r == 0)
		r = peer_open_pid(p, w->tgid, w->uid, w->gid, w->groups, w->ngroups);
	else
		free(w->groups);
	w->groups = NULL;
	return r;
}

/*
 * A preload- or wrapper-decided exec (a ticket), or the wrapper's own,
 * found before any request is built: the file the caller's exec opens
 * (walk_open, as a request's inspection does), by device and inode, with
 * argv.  Its check goes to the verifier, which answers.  false: ask.
 */
static bool
kernel_fast(struct kernel *k, const struct seccomp_notif *n, const struct kmem_exec *km,
    const struct kernel_who *w, struct peer *p, const char *file)
{
	struct target t = { 0 };
	struct kverify_job *j;
	struct stat st;
	int fd, r;

	if (walk_open(p, file, &fd) != 0)
		return false;
	r = fstat(fd, &st);
	close(fd);
	if (r != 0 || !kernel_known(k, &st, w, km, &t) || (j = kernel_job(n, km, w, &t)) == NULL)
		return false;	/* a ticket lost costs a question, never a pass */
	kverify_submit(&k->v, j);
	return true;
}

/*
 * Give req (notification n's, verified by j) to the policy, if its process
 * has room for one more request in flight (loop_room: each held exec keeps
 * a pidfd and its request); else refuse the exec.  Both taken over.
 */
static void
kernel_hold(struct loop *l, const struct seccomp_notif *n, struct shellesc_request *req,
    struct kverify_job *j, size_t bytes)
{
	char why[256];

	req->kernel = true;
	req->notif_id = n->id;
	req->vjob = j;
	req->inflight = loop_room(l, req->uid, req->pid, false, bytes, why, sizeof(why));
	if (req->inflight == NULL) {
		kernel_answer(&l->kernel, n->id, EACCES);	/* loop_room logged why */
		request_free(req);
		return;
	}
	loop_hold(l, req->inflight);
	req->held = bytes;
	l->rx_pending += bytes;
	kernel_ask(l, req);	/* req is the policy's now */
}

/* What the request read from km holds, about (for loop.rx_pending). */
static size_t
kernel_bytes(const struct kmem_exec *km)
{
	return (km->path ? strlen(km->path) : 0) + km->argv_len + km->env_len;
}

/* Anything else: a request for the policy, as a client's would be. */
static int
kernel_slow(struct loop *l, const struct seccomp_notif *n, const struct kmem_exec *km,
    const struct kernel_who *w, struct peer *p, const char *file)
{
	struct shellesc_request *req;
	struct kverify_job *j;
	struct msg_exec ex;
	int r;

	if ((r = kernel_exec(&ex, km, file, (pid_t)n->pid)) != 0) {
		msg_exec_free(&ex);
		return r;
	}
	if ((r = request_from(&ex, p, (const char *const *)l->s->roots, &req)) != 0)
		return r;
	if ((j = kernel_job(n, km, w, &req->target)) == NULL) {
		request_free(req);
		return -ENOMEM;
	}
	kernel_hold(l, n, req, j, kernel_bytes(km));
	return 0;
}

/* A notification: let it through, ask about it, or refuse it at once. */
static void
kernel_take(struct loop *l, const struct seccomp_notif *n)
{
	struct kernel *k = &l->kernel;
	struct kernel_who w = { 0 };
	struct kmem_exec km = { 0 };
	struct peer p = { .root = -1, .cwd = -1, .pidfd = -1 };
	char *file = NULL;
	int r;

	if (k->first != 0 && (pid_t)n->pid == k->first) {
		k->first = 0;		/* the embedder's child execs what it chose */
		kernel_answer(k, n->id, 0);
		return;
	}
	if (kernel_abi(&n->data) == NULL) {
		kernel_answer(k, n->id, EPERM);
		return;
	}
	if ((r = kernel_read(k, n, &w, &km, &p)) == 0 &&
	    (file = kernel_file(&n->data, (int)n->data.nr == kernel_abi(&n->data)->execveat,
	    km.path)) == NULL)
		r = -ENOMEM;
	if (r == 0 && !kernel_fast(k, n, &km, &w, &p, file))
		r = kernel_slow(l, n, &km, &w, &p, file);
	if (r != 0) {
		loop_log(l, SHELLESC_LOG_WARN, "exec of process %ld refused: cannot read it: %s",
		    (long)n->pid, strerror(-r));
		kernel_answer(k, n->id, EACCES);
	}
	free(file);
	kmem_free(&km);
	peer_close(&p);
}

/*
 * Make the caller exec the wrapper as the proxy of req (kernel-escalate.c),
 * the other end of its stream waiting for the hand-over (conn_adopt).
 * 0 with req taken over (the call answered, whatever happens), or -errno
 * with the reason logged.
 */
static int
kernel_escalate(struct loop *l, struct shellesc_request *req)
{
	struct kernel *k = &l->kernel;
	struct kverify_job *j = req->vjob;
	int sv[2];

	if (!kescalate_possible() || !k->wrapper) {
		loop_log(l, SHELLESC_LOG_ERROR, "request %llu: %s: escalation refused: no way here "
		    "to make a raw exec land in the wrapper", (unsigned long long)req->id, req->program);
		return -ENOTSUP;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		loop_log(l, SHELLESC_LOG_ERROR, "request %llu: %s: escalation failed: socketpair: %s",
		    (unsigned long long)req->id, req->program, strerror(errno));
		return -ENFILE;
	}
	j->escalate = true;
	j->fd = sv[1];		/* j is req's until submitted: freed with it */
	j->wrapper = strdup(l->s->cfg.wrapper_path);
	j->file = strdup(req->program);
	if (j->wrapper == NULL || j->file == NULL) {
		loop_log(l, SHELLESC_LOG_ERROR, "request %llu: %s: escalation failed: out of memory",
		    (unsigned long long)req->id, req->program);
		close(sv[0]);
		return -ENOMEM;
	}
	req->vjob = NULL;
	if (conn_adopt(l, sv[0], req) != 0) {	/* req is gone either way */
		kernel_answer(k, j->id, EACCES);
		kverify_job_free(j);
	} else
		kverify_submit(&k->v, j);	/* it answers */
	return 0;
}

void
kernel_on_decided(struct loop *l, struct shellesc_request *req)
{
	int action = req->d.action;

	loop_log(l, SHELLESC_LOG_DEBUG, "request %llu (kernel): decided %d",
	    (unsigned long long)req->id, action);
	l->rx_pending -= req->held;	/* no longer held for the policy */
	req->held = 0;
	if (atomic_load(&l->kernel.fd) < 0)
		;			/* the session ends: the call fails without us */
	else if (action == SHELLESC_RUN && req->vjob) {
		kverify_submit(&l->kernel.v, req->vjob);	/* it answers */
		req->vjob = NULL;
	} else if (action == SHELLESC_ESCALATE && req->vjob && kernel_escalate(l, req) == 0)
		return;
	else
		kernel_answer(&l->kernel, req->notif_id, EACCES);
	loop_release(l, req->inflight);
	request_free(req);
}

void
kernel_on_ready(struct loop *l)
{
	struct kernel *k = &l->kernel;
	union {
		struct seccomp_notif n;
		char room[KERNEL_NOTIF_MAX];
	} u;

	if (!(k->events & EPOLLIN)) {
		/* every process of the filter is gone: nothing will come */
		epoll_ctl(l->epfd, EPOLL_CTL_DEL, atomic_load(&k->fd), NULL);
		return;
	}
	memset(&u, 0, sizeof(u));
	if (ioctl(atomic_load(&k->fd), SECCOMP_IOCTL_NOTIF_RECV, &u.n) != 0) {
		if (errno != ENOENT && errno != EINTR)
			loop_log(l, SHELLESC_LOG_WARN, "seccomp listener: %s", strerror(errno));
		return;
	}
	kernel_take(l, &u.n);
}

void
kernel_stop(struct loop *l)
{
	struct kernel *k = &l->kernel;
	int fd;

	kverify_stop(&k->v);		/* it answers with the listener */
	if ((fd = atomic_exchange(&k->fd, -1)) >= 0)
		close(fd);	/* execs still stopped fail (ENOSYS), later ones too */
	for (size_t i = 0; i < KERNEL_TICKETS; i++)
		free(k->t[i].argv);
	memset(k->t, 0, sizeof(k->t));
}

int
shellesc_session_kernel(struct shellesc_session *s, int listener, pid_t first)
{
	struct kernel *k = &s->loop.kernel;
	struct seccomp_notif_sizes sz;
	struct stat st;
	int r;

	if (KERNEL_NABIS == 0)
		r = -ENOSYS;
	else if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
		r = -errno;
	else if (sz.seccomp_notif > KERNEL_NOTIF_MAX || atomic_load(&k->fd) >= 0)
		r = sz.seccomp_notif > KERNEL_NOTIF_MAX ? -ENOSYS : -EBUSY;
	else {
		k->first = first;
		if ((k->wrapper = stat(s->cfg.wrapper_path, &st) == 0)) {
			k->wdev = st.st_dev;
			k->wino = st.st_ino;
		}
		k->w = (struct watch){ WATCH_KERNEL, &s->loop };
		atomic_store(&k->fd, listener);
		if ((r = kverify_start(&k->v, &s->loop)) == 0 &&
		    (r = loop_watch(&s->loop, listener, &k->w, EPOLL_CTL_ADD)) == 0)
			return 0;
		kverify_stop(&k->v);
		atomic_store(&k->fd, -1);
	}
	close(listener);
	return r;
}
