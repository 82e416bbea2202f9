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
 * memory (kernel-mem.c), its ids from a pidfd (kernel_read_who), its cwd
 * and root from /proc, the file
 * opened by the server (target_inspect) -- decided by the same policy:
 * run continues the system call through the verifier (kernel-verify.c),
 * which checks at the exec event that what loads is what was decided, as
 * it does for every exec let through unasked; deny fails it with EACCES;
 * escalate makes the caller exec the wrapper as the proxy of the command
 * the server runs (kernel-escalate.c), as the preload does.  What is
 * guaranteed and what is not is in docs/security.md ("The kernel layer").
 *
 * A notification's life (each arrow is the function that takes it):
 *
 *   RECEIVED (kernel_on_ready)
 *     |-- the embedder's child's first exec ------------------> continued
 *     |-- an ABI the layer cannot read -------------------------> EPERM
 *     |-- the caller unreadable (kernel_read_caller) ----------> EACCES
 *     v
 *   READ --known: the wrapper, or a ticket (kernel_pass_known)--> VERIFIED
 *     |
 *     | unknown (kernel_request_unknown): a request, origin REQUEST_KERNEL
 *     v
 *   ASKED --no room for it (loop_room, kernel_hold) ------------> EACCES
 *     |
 *     | loop_ask: the policy's, as a stream's request is (conn.c)
 *     v
 *   HELD --the answer: inline, or through the hub (loop_decided)-->
 *   DECIDED (kernel_on_decided)
 *     |-- run -------------------------------------------------> VERIFIED
 *     |-- deny, or the session ending -------------------------> EACCES
 *     '-- escalate (kernel_redirect_to_wrapper): a stream adopts
 *         the request (conn_adopt), then --------------------> VERIFIED
 *
 *   A connect(2) or addressed sendto(2) of the socket gate (a Landlock
 *   sandbox's filter sends those too) leaves at RECEIVED for
 *   kernel-socket.c, which makes the call itself and answers with its
 *   result: it is never continued.
 *
 *   VERIFIED (kernel-verify.c): continued and checked at its exec event,
 *   the process killed there if what loads is not what was decided; an
 *   escalation is continued as the exec of the wrapper, the proxy of the
 *   command the server runs (kernel-escalate.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "execsys.h"
#include "server.h"

#define KERNEL_NOTIF_MAX	256	/* bytes for the kernel's struct seccomp_notif */
#define KERNEL_STATUS_MAX	(1u << 20) /* /proc/TID/status, 65536 groups included */
#define KERNEL_PIDFD_THREAD	O_EXCL	/* PIDFD_THREAD, Linux 6.9: bookworm's headers lack it */

/* Who the stopped thread is, as the kernel says (kernel_read_who). */
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

int
kernel_answer(struct kernel *k, uint64_t id, int err)
{
	struct seccomp_notif_resp r = { .id = id };

	if (err == 0)
		r.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	else
		r.error = err;		/* the kernel's convention too: -errno */
	/* ENOENT, the only other failure: the caller no longer waits (killed
	 * meanwhile, or a wait that is not killable ended), and no answer is
	 * owed */
	while (ioctl(atomic_load(&k->fd), SECCOMP_IOCTL_NOTIF_SEND, &r) != 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

static int
kernel_parse_groups(const char *line, struct kernel_who *w)
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
kernel_read_status(pid_t tid, struct kernel_who *w)
{
	char *st;
	const char *groups;
	unsigned long tgid, ppid, euid, egid;
	int r;

	if ((r = proc_read_all(tid, "status", KERNEL_STATUS_MAX, &st)) != 0)
		return r;
	if ((r = proc_status_num(st, "Tgid", 0, &tgid)) == 0 &&
	    (r = proc_status_num(st, "PPid", 0, &ppid)) == 0 &&
	    (r = proc_status_num(st, "Uid", 1, &euid)) == 0 &&
	    (r = proc_status_num(st, "Gid", 1, &egid)) == 0)
		r = (groups = proc_status_line(st, "Groups")) != NULL ?
		    kernel_parse_groups(groups, w) : -EIO;
	if (r == 0 && (tgid > INT32_MAX || ppid > INT32_MAX || euid > UINT32_MAX ||
	    egid > UINT32_MAX))
		r = -EIO;
	if (r == 0) {
		w->tgid = (pid_t)tgid;
		w->ppid = (pid_t)ppid;
		w->uid = (uid_t)euid;	/* effective: the second of four */
		w->gid = (gid_t)egid;
	}
	free(st);
	return r;
}

/*
 * Who the stopped thread is.  Its ids from a pidfd of the thread itself
 * (PIDFD_GET_INFO, one ioctl, Linux 6.13); its groups, and its ids on an
 * older kernel, from /proc/TID/status, which the kernel formats whole for
 * each read: the costliest of the layer's looks at its caller.  Root's
 * groups are not read: they change no check (writable_check), as for a
 * stream's peer (peer_open).  *pidfd: the thread's, or -1.  0 or -errno.
 */
static int
kernel_read_who(pid_t tid, struct kernel_who *w, int *pidfd)
{
	struct proc_ids ids;

	*pidfd = (int)syscall(SYS_pidfd_open, tid, KERNEL_PIDFD_THREAD);
	if (*pidfd < 0 || proc_pidfd_ids(*pidfd, &ids) != 0 || ids.euid != 0)
		return kernel_read_status(tid, w);
	w->tgid = ids.tgid;
	w->ppid = ids.ppid;
	w->uid = ids.euid;
	w->gid = ids.egid;
	return 0;
}

/* The ABI of an exec the layer reads (execsys.h), or NULL. */
static const struct execsys_abi *
kernel_abi(const struct seccomp_data *d)
{
	for (size_t i = 0; i < EXECSYS_NABIS; i++)
		if (execsys_abis[i].psize != 0 && execsys_abis[i].arch == d->arch &&
		    ((int)d->nr == execsys_abis[i].execve || (int)d->nr == execsys_abis[i].execveat))
			return &execsys_abis[i];
	return NULL;
}

/*
 * System-call argument i as the kernel uses it in the call's ABI.  A
 * 32-bit ABI's call uses the low half of each register only, whether a
 * 32-bit program made it or a 64-bit one through int $0x80, whose
 * registers keep their upper halves, reported whole in seccomp_data: read
 * whole, they would name other memory than the kernel then reads.
 */
static uint64_t
kernel_arg(const struct execsys_abi *abi, const struct seccomp_data *d, int i)
{
	return abi->psize == 4 ? (uint32_t)d->args[i] : d->args[i];
}

/*
 * The file as the caller's kernel will look it up, for the walk:
 * execveat's directory fd named through the caller's /proc/self/fd.
 */
static char *
kernel_walk_path(const struct seccomp_data *d, bool at, const char *path)
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

/* The request's exec as a client would have sent it (km's strings kept);
 * 0 or -errno, ex to be freed (msg_exec_free) either way. */
static int
kernel_msg_exec(struct msg_exec *ex, const struct kernel_mem_exec *km, const char *file,
    pid_t tid)
{
	char cwd[PATH_MAX];
	ssize_t n;
	size_t flen = strlen(file) + 1, clen;

	memset(ex, 0, sizeof(*ex));
	if ((n = proc_readlink(tid, "cwd", cwd, sizeof(cwd))) < 0)
		return (int)n;
	clen = (size_t)n + 1;
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
kernel_script_name(const struct seccomp_data *d, bool at, const char *path)
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
 * with the words of its #! lines (t->shebangs), the file's name and
 * argv[1..]: the whole argv the kernel makes, nothing more.
 */
static struct kernel_verify_job *
kernel_make_job(const struct seccomp_notif *n, const struct kernel_mem_exec *km,
    const struct kernel_who *w, const struct target *t)
{
	bool at = (int)n->data.nr == kernel_abi(&n->data)->execveat;
	struct kernel_verify_job *j = calloc(1, sizeof(*j));
	size_t skip = t->elf ? 0 : strlen(km->argv) + 1;	/* argc >= 1 */
	char *name = t->elf ? NULL : kernel_script_name(&n->data, at, km->path);
	size_t nlen = name ? strlen(name) + 1 : 0, slen = t->elf ? 0 : t->shebangs_len;

	if (j && (name || t->elf)) {
		*j = (struct kernel_verify_job){ .id = n->id, .tid = (pid_t)n->pid,
		    .tgid = w->tgid, .fd = -1, .ppid = w->ppid,
		    .known = t->pub.error == 0 && t->runs_known,
		    .dev = t->runs_dev, .ino = t->runs_ino,
		    .len = slen + nlen + km->argv_len - skip };
		if ((j->want = malloc(j->len ? j->len : 1)) != NULL) {
			if (slen)
				memcpy(j->want, t->shebangs, slen);
			if (name)
				memcpy(j->want + slen, name, nlen);
			memcpy(j->want + slen + nlen, km->argv + skip, km->argv_len - skip);
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
    const struct kernel_mem_exec *km, struct target *t)
{
	for (size_t i = 0; i < KERNEL_TICKETS; i++) {
		struct kernel_ticket *kt = &k->t[i];

		if (kt->pid == 0 || kt->dev != st->st_dev || kt->ino != st->st_ino ||
		    (kt->pid != w->tgid && kt->pid != w->ppid) || kt->len != km->argv_len ||
		    memcmp(kt->argv, km->argv, kt->len) != 0)
			continue;
		t->elf = kt->elf;
		t->runs_known = kt->runs_known;
		t->runs_dev = kt->runs_dev;
		t->runs_ino = kt->runs_ino;
		t->shebangs = kt->shebangs;	/* t's now */
		t->shebangs_len = kt->shebangs_len;
		free(kt->argv);
		memset(kt, 0, sizeof(*kt));
		return true;
	}
	return false;
}

void
kernel_ticket_issue(struct loop *l, const struct shellesc_request *req)
{
	struct kernel *k = &l->kernel;
	struct kernel_ticket *kt = &k->t[k->next++ % KERNEL_TICKETS];
	const struct target *t = &req->target;
	size_t len = 0;
	char *p, *sb = NULL;

	if (atomic_load(&k->fd) < 0 || t->pub.error != 0)
		return;
	for (size_t i = 0; i < req->ex.argc; i++)
		len += strlen(req->ex.argv[i]) + 1;
	if (len > KERNEL_TICKET_ARGV || (p = malloc(len ? len : 1)) == NULL)
		return;
	if (t->shebangs_len > 0 && (sb = malloc(t->shebangs_len)) == NULL) {
		free(p);
		return;
	}
	if (sb != NULL)
		memcpy(sb, t->shebangs, t->shebangs_len);
	free(kt->argv);
	free(kt->shebangs);
	*kt = (struct kernel_ticket){ .pid = req->pid, .dev = t->pub.dev, .ino = t->pub.ino,
	    .argv = p, .len = len, .elf = t->elf, .runs_known = t->runs_known,
	    .runs_dev = t->runs_dev, .runs_ino = t->runs_ino, .shebangs = sb,
	    .shebangs_len = sb ? t->shebangs_len : 0 };
	for (size_t i = 0; i < req->ex.argc; i++)
		p = stpcpy(p, req->ex.argv[i]) + 1;
}

/* Let the exec of the file st through without a question?  Then t says
 * what it runs. */
static bool
kernel_is_known(struct kernel *k, const struct stat *st, const struct kernel_who *w,
    const struct kernel_mem_exec *km, struct target *t)
{
	if (k->wrapper && st->st_dev == k->wdev && st->st_ino == k->wino) {
		t->elf = t->runs_known = true;	/* it asks for itself */
		t->runs_dev = st->st_dev;
		t->runs_ino = st->st_ino;
		return true;
	}
	return kernel_ticket_take(k, st, w, km, t);
}

/* The stopped exec's memory (km), its caller (w) and the caller as a
 * peer to look files up as (p: w's groups are its now).  0 or -errno. */
static int
kernel_read_caller(struct kernel *k, const struct seccomp_notif *n, struct kernel_who *w,
    struct kernel_mem_exec *km, struct peer *p)
{
	const struct execsys_abi *abi = kernel_abi(&n->data);
	int a = (int)n->data.nr == abi->execveat ? 1 : 0;	/* execveat: a dirfd first */
	int pidfd, r;

	if ((r = kernel_read_who((pid_t)n->pid, w, &pidfd)) == 0)
		r = kernel_mem_read((pid_t)n->pid, abi->psize, kernel_arg(abi, &n->data, a),
		    kernel_arg(abi, &n->data, a + 1), kernel_arg(abi, &n->data, a + 2), km);
	/* still waiting: the pid, its pidfd and all read were the caller's */
	if (r == 0 && ioctl(atomic_load(&k->fd), SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) != 0)
		r = -ESRCH;		/* gone: that pid may be another's now */
	if (r == 0 && km->argc == 0)
		r = -EINVAL;
	if (r == 0 && pidfd >= 0 && w->tgid != (pid_t)n->pid) {
		close(pidfd);	/* a thread's: the peer is its process */
		pidfd = -1;
	}
	if (r == 0) {
		r = peer_open_pid(p, w->tgid, w->uid, w->gid, w->groups, w->ngroups, pidfd);
		p->ppid = w->ppid;
	} else {
		free(w->groups);
		if (pidfd >= 0)
			close(pidfd);
	}
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
kernel_pass_known(struct kernel *k, const struct seccomp_notif *n,
    const struct kernel_mem_exec *km, const struct kernel_who *w, struct peer *p, const char *file)
{
	struct target t = { 0 };
	struct kernel_verify_job *j;
	struct stat st;
	int fd, r;

	if (walk_open(p, file, &fd) != 0)
		return false;
	r = fstat(fd, &st);
	j = r == 0 && kernel_is_known(k, &st, w, km, &t) ? kernel_make_job(n, km, w, &t) : NULL;
	free(t.shebangs);
	if (j == NULL) {	/* a ticket lost costs a question, never a pass */
		p->kept = fd;	/* for the question's look, which would open it again */
		p->kept_name = file;
		return false;
	}
	close(fd);
	kernel_verify_submit(&k->v, j);
	return true;
}

/*
 * Give req (notification n's, verified by j) to the policy, if its process
 * has room for one more request in flight (loop_room: each held exec keeps
 * a pidfd and its request); else refuse the exec.  Both taken over.
 */
static void
kernel_hold(struct loop *l, const struct seccomp_notif *n, struct shellesc_request *req,
    struct kernel_verify_job *j, size_t bytes)
{
	char why[256];

	req->origin = REQUEST_KERNEL;
	req->notif_id = n->id;
	req->vjob = j;
	req->inflight = loop_room(l, req->uid, req->pid, false, bytes, why, sizeof(why));
	if (req->inflight == NULL) {
		kernel_answer(&l->kernel, n->id, -EACCES);	/* loop_room logged why */
		request_free(req);
		return;
	}
	loop_hold(l, req->inflight);
	req->held = bytes;
	l->rx_pending += bytes;
	if (loop_ask(l, req))	/* req is the policy's now */
		loop_decided(l, req);	/* ASKED -> DECIDED at once */
}

/* What the request read from km holds, about (for loop.rx_pending). */
static size_t
kernel_bytes(const struct kernel_mem_exec *km)
{
	return (km->path ? strlen(km->path) : 0) + km->argv_len + km->env_len;
}

/* Anything else: a request for the policy, as a client's would be. */
static int
kernel_request_unknown(struct loop *l, const struct seccomp_notif *n,
    const struct kernel_mem_exec *km, const struct kernel_who *w, struct peer *p, const char *file)
{
	struct shellesc_request *req;
	struct kernel_verify_job *j;
	struct msg_exec ex;
	int r;

	if ((r = kernel_msg_exec(&ex, km, file, (pid_t)n->pid)) != 0) {
		msg_exec_free(&ex);
		return r;
	}
	if ((r = request_from(&ex, p, (const char *const *)l->s->roots, &req)) != 0)
		return r;
	if ((j = kernel_make_job(n, km, w, &req->target)) == NULL) {
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
	struct kernel_mem_exec km = { 0 };
	struct peer p = { .root = -1, .cwd = -1, .pidfd = -1, .kept = -1 };
	char *file = NULL;
	int r;

	if (kernel_sock_ours(k, &n->data)) {	/* never continued: see kernel-socket.c */
		kernel_sock_take(l, n);
		return;
	}
	if (k->first != 0 && (pid_t)n->pid == k->first) {
		k->first = 0;		/* the embedder's child execs what it chose */
		kernel_answer(k, n->id, 0);
		return;
	}
	if (kernel_abi(&n->data) == NULL) {
		kernel_answer(k, n->id, -EPERM);
		return;
	}
	if ((r = kernel_read_caller(k, n, &w, &km, &p)) == 0 &&
	    (file = kernel_walk_path(&n->data, (int)n->data.nr == kernel_abi(&n->data)->execveat,
	    km.path)) == NULL)
		r = -ENOMEM;
	if (r == 0 && !kernel_pass_known(k, n, &km, &w, &p, file))
		r = kernel_request_unknown(l, n, &km, &w, &p, file);
	if (r != 0) {
		loop_log(l, SHELLESC_LOG_WARN, "exec of process %ld refused: cannot read it: %s",
		    (long)n->pid, strerror(-r));
		kernel_answer(k, n->id, -EACCES);
	}
	peer_close(&p);		/* before file: p.kept_name is file */
	free(file);
	kernel_mem_free(&km);
}

/*
 * Make the caller exec the wrapper as the proxy of req (kernel-escalate.c),
 * the other end of its stream waiting for the hand-over (conn_adopt).
 * 0 with req taken over (the call answered, whatever happens), or -errno
 * with the reason logged.
 */
static int
kernel_redirect_to_wrapper(struct loop *l, struct shellesc_request *req)
{
	struct kernel *k = &l->kernel;
	struct kernel_verify_job *j = req->vjob;
	int sv[2];

	if (!kernel_escalate_possible() || !k->wrapper) {
		loop_log(l, SHELLESC_LOG_ERROR, "request %llu: %s: escalation refused: no way here "
		    "to make a raw exec land in the wrapper", (unsigned long long)req->id, req->program);
		return -ENOTSUP;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
		int e = errno;

		loop_log(l, SHELLESC_LOG_ERROR, "request %llu: %s: escalation failed: socketpair: %s",
		    (unsigned long long)req->id, req->program, strerror(e));
		return -e;
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
		kernel_answer(k, j->id, -EACCES);
		kernel_verify_job_free(j);
	} else
		kernel_verify_submit(&k->v, j);	/* it answers */
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
		kernel_verify_submit(&l->kernel.v, req->vjob);	/* it answers */
		req->vjob = NULL;
	} else if (action == SHELLESC_ESCALATE && req->vjob &&
	    kernel_redirect_to_wrapper(l, req) == 0)
		return;
	else
		kernel_answer(&l->kernel, req->notif_id, -EACCES);
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

	kernel_verify_stop(&k->v);		/* it answers with the listener */
	kernel_sock_stop(k);			/* its threads hold a copy of it */
	if ((fd = atomic_exchange(&k->fd, -1)) >= 0)
		close(fd);	/* execs still stopped fail (ENOSYS), later ones too */
	for (size_t i = 0; i < KERNEL_TICKETS; i++) {
		free(k->t[i].argv);
		free(k->t[i].shebangs);
	}
	memset(k->t, 0, sizeof(k->t));
}

int
shellesc_session_kernel(struct shellesc_session *s, int listener, pid_t first)
{
	struct kernel *k = &s->loop.kernel;
	struct seccomp_notif_sizes sz;
	struct stat st;
	int r;

	if (execsys_abis[0].psize == 0)	/* the layer reads no exec here (execsys.h) */
		r = -ENOSYS;
	else if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) != 0)
		r = -errno;
	else if (sz.seccomp_notif > KERNEL_NOTIF_MAX || atomic_load(&k->fd) >= 0)
		r = sz.seccomp_notif > KERNEL_NOTIF_MAX ? -ENOSYS : -EBUSY;
	else {
		k->first = first;
		k->gate.top = first;
		if ((k->wrapper = stat(s->cfg.wrapper_path, &st) == 0)) {
			k->wdev = st.st_dev;
			k->wino = st.st_ino;
		}
		k->w = (struct watch){ WATCH_KERNEL, &s->loop };
		atomic_store(&k->fd, listener);
		if ((r = kernel_verify_start(&k->v, &s->loop)) == 0 &&
		    (r = loop_watch(&s->loop, listener, &k->w, EPOLL_CTL_ADD)) == 0)
			return 0;
		kernel_verify_stop(&k->v);
		atomic_store(&k->fd, -1);
	}
	close(listener);
	return r;
}
