/*
 * kernel-socket.c: the socket gate of a Landlock sandbox (docs/security.md,
 * "Pathname UNIX sockets").  Landlock does not confine connect(2) or
 * sendto(2) to a socket file, so the sandbox's filter sends both (sendto
 * only with an address) to the session's listener, and the server makes
 * the call itself.  It never answers with SECCOMP_USER_NOTIF_FLAG_CONTINUE:
 * the kernel would read the sockaddr again, after the check, from memory
 * another thread of the caller can rewrite, and the fd number the server
 * looked at can be dup2'ed over meanwhile.  So, on a thread of its own
 * (a connect may block; at most KERNEL_SOCK_MAX at once, the rest EAGAIN):
 *
 *   the caller's socket taken (pidfd_getfd), its sockaddr read once from
 *   its memory, the notification checked still valid (the pid was the
 *   caller's); then by family:
 *     AF_UNIX, a path: resolved through the caller's root and cwd
 *       (walk.c), the file pinned with an O_PATH fd, its canonical path
 *       allowed (the sandbox's list, or a socket file born after the
 *       sandbox was built beneath a root writable in every layer), the
 *       call made to /proc/self/fd/N: a swapped link gains nothing; else
 *       EACCES, or ECONNREFUSED where nothing listens on it (sock_diag),
 *       as the kernel says of a stale file;
 *     AF_UNIX, abstract: allowed if its name is in the list ("@NAME"), or
 *       if the listener is a process of the session's tree (Landlock's scope, which the server is not under,
 *       would allow its own domain's); the listener's pid is learnt by a
 *       probe connect of the server's own socket; else EPERM, as the
 *       scope says;
 *     AF_INET, AF_INET6 on a stream socket under no_network: EACCES (the
 *       server is not under Landlock's TCP rule);
 *     anything else: made as asked;
 *   the answer is the call's result, the caller's socket connected (or
 *   the datagram sent) by the server.
 *
 * A blocking connect is made in slices of a second (SO_SNDTIMEO, put back
 * after), between which the caller must still be waiting and the session
 * not ending; a caller gone leaves nothing behind, as its socket goes with
 * it.  A sendto's data is copied (at most KERNEL_SOCK_DATA bytes, else
 * EMSGSIZE); its ancillary data cannot be passed, and sendmsg(2) is not
 * gated: an unconnected datagram sendmsg to a path is the known limit.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/seccomp.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <netinet/tcp.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "execsys.h"
#include "sandbox.h"
#include "server.h"

#define KERNEL_SOCK_MAX		64		/* calls held at once */
#define KERNEL_SOCK_DATA	(256 * 1024)	/* a sendto's bytes, copied */
#define KERNEL_SOCK_ANCESTRY	4096		/* parents walked up to the tree's top */

#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd	438
#endif

/* One held call, a thread's. */
struct ksock_job {
	struct kernel *k;
	struct loop *l;
	int lfd;			/* a copy of the listener */
	uint64_t id;
	pid_t tid;
	struct seccomp_data d;
	const struct execsys_abi *abi;
	bool send;			/* sendto; else connect */
	struct sockaddr_storage sa;	/* as asked; then as made */
	socklen_t len;
	int fd;				/* the caller's socket, taken */
	int pin;			/* the socket file, O_PATH, or -1 */
};

static const struct execsys_abi *
ksock_abi(const struct seccomp_data *d)
{
	for (size_t i = 0; i < EXECSYS_NABIS; i++)
		if (execsys_abis[i].arch == d->arch &&
		    ((uint32_t)d->nr == execsys_abis[i].connect ||
		    (uint32_t)d->nr == execsys_abis[i].sendto))
			return &execsys_abis[i];
	return NULL;
}

bool
kernel_sock_ours(const struct kernel *k, const struct seccomp_data *d)
{
	return k->gate.g != NULL && ksock_abi(d) != NULL;
}

/* Argument i as the call's ABI reads it (kernel.c's kernel_arg). */
static uint64_t
ksock_arg(const struct ksock_job *j, int i)
{
	return j->abi->psize == 4 ? (uint32_t)j->d.args[i] : j->d.args[i];
}

/* Answer: the call returned val, or failed with err (> 0). */
static void
ksock_answer(const struct ksock_job *j, int64_t val, int err)
{
	struct seccomp_notif_resp r = { .id = j->id, .val = err ? 0 : val,
	    .error = err ? -err : 0 };

	while (ioctl(j->lfd, SECCOMP_IOCTL_NOTIF_SEND, &r) != 0 && errno == EINTR)
		;
}

static bool
ksock_valid(const struct ksock_job *j)
{
	return ioctl(j->lfd, SECCOMP_IOCTL_NOTIF_ID_VALID, &j->id) == 0;
}

/* The caller's process: its tgid from /proc/TID/status. */
static pid_t
ksock_tgid(pid_t tid)
{
	char *st;
	unsigned long v;
	pid_t tgid = -1;

	if (proc_read_all(tid, "status", 1u << 20, &st) != 0)
		return -1;
	if (proc_status_num(st, "Tgid", 0, &v) == 0 && v <= INT32_MAX)
		tgid = (pid_t)v;
	free(st);
	return tgid;
}

/* The caller's socket (j->fd) and sockaddr (j->sa), read once; its
 * process as a peer (root, cwd) in *p.  0 or an errno. */
static int
ksock_read(struct ksock_job *j, struct peer *p)
{
	uint64_t addr = ksock_arg(j, j->send ? 4 : 1);
	uint64_t len = ksock_arg(j, j->send ? 5 : 2) & 0xffffffffu;
	pid_t tgid = ksock_tgid(j->tid);
	int mem, r;

	if (len > sizeof(j->sa) || len < sizeof(sa_family_t))
		return EINVAL;
	j->len = (socklen_t)len;
	if (tgid <= 0 || (r = peer_open_pid(p, tgid, 0, 0, NULL, 0, -1)) != 0)
		return ESRCH;
	if ((mem = proc_open(j->tid, "mem", O_RDONLY)) < 0)
		return -mem;
	r = proc_pread(mem, &j->sa, j->len, addr);
	close(mem);
	if (r != 0)
		return -r;
	if (p->pidfd < 0 ||
	    (j->fd = (int)syscall(SYS_pidfd_getfd, p->pidfd, (int)ksock_arg(j, 0), 0)) < 0)
		return p->pidfd < 0 ? ENOSYS : errno;
	/* after the reads: tid was the caller, and so its tgid's files */
	return ksock_valid(j) ? 0 : ESRCH;
}

/* Is pid in the session's tree (the gate's top, or below it)? */
static bool
ksock_in_tree(const struct kernel *k, pid_t pid)
{
	for (int i = 0; i < KERNEL_SOCK_ANCESTRY && pid > 1; i++) {
		if (pid == k->gate.top)
			return true;
		pid = proc_ppid(pid);
	}
	return false;
}

/* path beneath root (both canonical)? */
static bool
ksock_beneath(const char *path, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return true;
	return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Born since the sandbox was built, beneath a root writable in every
 * layer: a socket the session bound (docs/security.md says what else). */
static bool
ksock_session_file(const struct sandbox_gate *g, int pin, const char *path)
{
	struct statx sx;
	size_t layers = 0;

	if (statx(pin, "", AT_EMPTY_PATH, STATX_BTIME, &sx) != 0 || !(sx.stx_mask & STATX_BTIME))
		return false;		/* no birth time: only the allowed list */
	if (sx.stx_btime.tv_sec < g->start.tv_sec || (sx.stx_btime.tv_sec == g->start.tv_sec &&
	    sx.stx_btime.tv_nsec < (uint32_t)g->start.tv_nsec))
		return false;
	for (size_t l = 0; l < g->nlayers; l++)
		for (size_t i = 0; i < g->nroots; i++)
			if (g->root_layer[i] == l && ksock_beneath(path, g->roots[i])) {
				layers++;
				break;
			}
	return g->nlayers > 0 && layers == g->nlayers;
}

/* May the sandbox reach the socket file pin? */
static bool
ksock_allowed(const struct sandbox_gate *g, int pin)
{
	char link[64], path[PATH_MAX];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", pin);
	if ((n = readlink(link, path, sizeof(path) - 1)) <= 0)
		return false;
	path[n] = '\0';
	for (char **a = g->allow; a && *a; a++)
		if (fnmatch(*a, path, FNM_PATHNAME) == 0)
			return true;
	return ksock_session_file(g, pin, path);
}

/* One reply of the dump: 1 a listener bound to (ino, dev) in it, 0 none
 * yet, 2 the dump's end, -1 an error. */
static int
ksock_diag_scan(const char *buf, ssize_t n, const struct stat *st)
{
	for (const struct nlmsghdr *h = (const void *)buf; NLMSG_OK(h, (size_t)n);
	    h = NLMSG_NEXT(h, n)) {
		const struct unix_diag_msg *m = NLMSG_DATA(h);
		const struct rtattr *a = (const void *)(m + 1);
		int len = (int)(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));

		if (h->nlmsg_type == NLMSG_DONE)
			return 2;
		if (h->nlmsg_type == NLMSG_ERROR)
			return -1;
		for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
			const struct unix_diag_vfs *v = RTA_DATA(a);

			/* the kernel's own dev_t: major above 20 bits of minor */
			if (a->rta_type == UNIX_DIAG_VFS && v->udiag_vfs_ino == st->st_ino &&
			    v->udiag_vfs_dev >> 20 == major(st->st_dev) &&
			    (v->udiag_vfs_dev & 0xfffff) == minor(st->st_dev))
				return 1;
		}
	}
	return 0;
}

/*
 * Does a socket listen on the file st (sock_diag, this network namespace's
 * sockets)?  1, 0, or -1: unknown.  Only what the errno of a refusal is
 * hangs on it: a stale file (ECONNREFUSED, which a program removes and
 * binds again) or a daemon's (EACCES).
 */
static int
ksock_listened(const struct stat *st)
{
	struct {
		struct nlmsghdr nh;
		struct unix_diag_req r;
	} req = {
		.nh = { .nlmsg_len = sizeof(req), .nlmsg_type = SOCK_DIAG_BY_FAMILY,
		    .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
		.r = { .sdiag_family = AF_UNIX, .udiag_states = 1u << TCP_LISTEN,
		    .udiag_show = UDIAG_SHOW_VFS },
	};
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG), r = 0;
	ssize_t n;

	if (fd < 0)
		return -1;
	if (send(fd, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		r = -1;
	while (r == 0) {
		char b[16384] __attribute__((aligned(8)));

		if ((n = recv(fd, b, sizeof(b), 0)) < 0 && errno == EINTR)
			continue;
		r = n <= 0 ? -1 : ksock_diag_scan(b, n, st);
	}
	close(fd);
	return r == 2 ? 0 : r;
}

/* A socket file by path: resolved as the caller would, pinned, checked;
 * j->sa then names the pinned file.  0 or an errno. */
static int
ksock_unix_path(struct ksock_job *j, struct peer *p)
{
	struct sockaddr_un *u = (struct sockaddr_un *)&j->sa;
	size_t max = j->len - offsetof(struct sockaddr_un, sun_path);
	char path[sizeof(u->sun_path) + 1];
	struct stat st;
	int r;

	memcpy(path, u->sun_path, max);
	path[strnlen(path, max)] = '\0';
	if ((r = walk_open(p, path, &j->pin)) != 0)
		return -r;
	if (fstat(j->pin, &st) != 0 || !S_ISSOCK(st.st_mode))
		return ECONNREFUSED;	/* as the kernel says of another file */
	if (!ksock_allowed(j->k->gate.g, j->pin))
		return ksock_listened(&st) == 0 ? ECONNREFUSED : EACCES;
	memset(u->sun_path, 0, sizeof(u->sun_path));
	snprintf(u->sun_path, sizeof(u->sun_path), "/proc/self/fd/%d", j->pin);
	j->len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(u->sun_path) + 1);
	return 0;
}

/* Is the abstract address of j allowed by name ("@NAME" in the list)?
 * A name with a NUL in it matches no pattern. */
static bool
ksock_abstract_allowed(const struct ksock_job *j)
{
	const char *name = ((const struct sockaddr_un *)&j->sa)->sun_path + 1;
	size_t n = j->len - offsetof(struct sockaddr_un, sun_path) - 1;
	char at[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];

	if (n >= sizeof(at) - 1 || memchr(name, '\0', n) != NULL)
		return false;
	at[0] = '@';
	memcpy(at + 1, name, n);
	at[n + 1] = '\0';
	for (char **a = j->k->gate.g->allow; a && *a; a++)
		if ((*a)[0] == '@' && fnmatch(*a, at, 0) == 0)
			return true;
	return false;
}

/* An abstract address: allowed by name, else its listener's pid, by a
 * connect of our own. */
static int
ksock_unix_abstract(struct ksock_job *j)
{
	struct ucred cr;
	socklen_t cl = sizeof(cr);
	int type, s, r = EPERM;
	socklen_t tl = sizeof(type);

	if (ksock_abstract_allowed(j))
		return 0;
	if (getsockopt(j->fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0)
		return errno;
	if ((s = socket(AF_UNIX, type | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) < 0)
		return errno;
	/* a datagram peer has no credentials to give: refused, as the scope
	 * refuses a send to another domain's */
	if (connect(s, (struct sockaddr *)&j->sa, j->len) == 0 &&
	    getsockopt(s, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == 0 && cr.pid > 0 &&
	    ksock_in_tree(j->k, cr.pid))
		r = 0;
	close(s);
	return r;
}

/* What the call may do, by family; j->sa made the address to use. */
static int
ksock_check(struct ksock_job *j, struct peer *p)
{
	int type = 0;
	socklen_t tl = sizeof(type);

	switch (j->sa.ss_family) {
	case AF_UNIX:
		if (j->len <= offsetof(struct sockaddr_un, sun_path))
			return 0;	/* no name: the kernel's answer */
		if (((struct sockaddr_un *)&j->sa)->sun_path[0] == '\0')
			return ksock_unix_abstract(j);
		return ksock_unix_path(j, p);
	case AF_INET:
	case AF_INET6:
		if (!j->k->gate.g->no_network)
			return 0;
		if (getsockopt(j->fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0)
			return errno;
		return type == SOCK_STREAM ? EACCES : 0;
	default:
		return 0;
	}
}

static bool
ksock_go_on(const struct ksock_job *j)
{
	return !atomic_load(&j->k->gate.stop) && ksock_valid(j);
}

/* The connect, in slices of a second where the caller's file blocks. */
static int
ksock_connect(struct ksock_job *j)
{
	struct timeval old, slice = { 1, 0 };
	socklen_t ol = sizeof(old);
	int fl = fcntl(j->fd, F_GETFL), r, e;
	bool blocks = fl >= 0 && !(fl & O_NONBLOCK), timed = false;

	if (blocks && getsockopt(j->fd, SOL_SOCKET, SO_SNDTIMEO, &old, &ol) == 0)
		timed = setsockopt(j->fd, SOL_SOCKET, SO_SNDTIMEO, &slice, sizeof(slice)) == 0;
	for (;;) {
		r = connect(j->fd, (struct sockaddr *)&j->sa, j->len);
		e = r == 0 ? 0 : errno;
		if (!blocks || !timed || (e != EAGAIN && e != EINPROGRESS && e != EALREADY &&
		    e != EINTR) || !ksock_go_on(j))
			break;
	}
	if (timed)
		setsockopt(j->fd, SOL_SOCKET, SO_SNDTIMEO, &old, sizeof(old));
	return e;
}

/* The sendto, its data copied from the caller; *sent its result. */
static int
ksock_sendto(struct ksock_job *j, ssize_t *sent)
{
	uint64_t len = ksock_arg(j, 2);
	int flags = (int)ksock_arg(j, 3), fl = fcntl(j->fd, F_GETFL), mem, r;
	bool blocks = fl >= 0 && !(fl & O_NONBLOCK) && !(flags & MSG_DONTWAIT);
	char *buf;

	if (len > KERNEL_SOCK_DATA)
		return EMSGSIZE;
	if ((buf = malloc(len ? len : 1)) == NULL)
		return ENOMEM;
	if ((mem = proc_open(j->tid, "mem", O_RDONLY)) < 0)
		r = -mem;
	else {
		r = len ? -proc_pread(mem, buf, len, ksock_arg(j, 1)) : 0;
		close(mem);
	}
	while (r == 0) {
		if ((*sent = sendto(j->fd, buf, len, flags | MSG_DONTWAIT | MSG_NOSIGNAL,
		    (struct sockaddr *)&j->sa, j->len)) >= 0)
			break;
		r = errno;
		if (!blocks || (r != EAGAIN && r != EINTR) || !ksock_go_on(j))
			break;
		r = 0;
		poll(NULL, 0, 10);	/* the peer's queue is full: wait for room */
	}
	free(buf);
	return r;
}

static void
ksock_run(struct ksock_job *j)
{
	struct peer p = { .root = -1, .cwd = -1, .pidfd = -1, .kept = -1 };
	ssize_t sent = 0;
	int e;

	if ((e = ksock_read(j, &p)) == 0 && (e = ksock_check(j, &p)) == 0)
		e = j->send ? ksock_sendto(j, &sent) : ksock_connect(j);
	peer_close(&p);
	if (e == ESRCH && !ksock_valid(j))
		return;			/* the caller is gone: no answer owed */
	if (e == EACCES || e == EPERM)
		loop_log(j->l, SHELLESC_LOG_DEBUG, "%s of process %ld refused by the socket gate",
		    j->send ? "sendto" : "connect", (long)j->tid);
	ksock_answer(j, j->send ? sent : 0, e);
}

static void *
ksock_thread(void *arg)
{
	struct ksock_job *j = arg;
	struct kernel *k = j->k;

	ksock_run(j);
	if (j->fd >= 0)
		close(j->fd);
	if (j->pin >= 0)
		close(j->pin);
	close(j->lfd);
	free(j);
	atomic_fetch_sub(&k->gate.held, 1);
	return NULL;
}

static int
ksock_spawn(struct ksock_job *j)
{
	pthread_attr_t at;
	pthread_t t;
	int r;

	if ((r = pthread_attr_init(&at)) != 0)
		return r;
	if ((r = pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED)) == 0)
		r = pthread_create(&t, &at, ksock_thread, j);
	pthread_attr_destroy(&at);
	return r;
}

void
kernel_sock_take(struct loop *l, const struct seccomp_notif *n)
{
	struct kernel *k = &l->kernel;
	struct ksock_job *j = calloc(1, sizeof(*j));
	int e = ENOMEM;

	if (j != NULL) {
		*j = (struct ksock_job){ .k = k, .l = l, .id = n->id, .tid = (pid_t)n->pid,
		    .d = n->data, .abi = ksock_abi(&n->data), .fd = -1, .pin = -1 };
		j->send = (uint32_t)j->d.nr == j->abi->sendto;
		j->lfd = fcntl(atomic_load(&k->fd), F_DUPFD_CLOEXEC, 0);
		e = j->lfd < 0 ? errno : EAGAIN;
	}
	if (j != NULL && j->lfd >= 0 && atomic_fetch_add(&k->gate.held, 1) < KERNEL_SOCK_MAX) {
		if ((e = ksock_spawn(j)) == 0)
			return;
		e = EAGAIN;
	}
	if (j != NULL && j->lfd >= 0) {
		atomic_fetch_sub(&k->gate.held, 1);
		close(j->lfd);
	}
	free(j);
	loop_log(l, SHELLESC_LOG_WARN, "socket call of process %ld refused: %s",
	    (long)n->pid, strerror(e));
	kernel_answer(k, n->id, -e);
}

void
kernel_sock_stop(struct kernel *k)
{
	atomic_store(&k->gate.stop, true);
	/* each gives up within a slice of a connect; none may outlive k,
	 * which it uses (a walk stuck on a hung file system would hold the
	 * loop thread's own walks as long) */
	while (atomic_load(&k->gate.held) > 0)
		poll(NULL, 0, 10);
	if (k->gate.g != NULL) {
		sandbox_gate_free(k->gate.g);
		free(k->gate.g);
		k->gate.g = NULL;
	}
}

int
shellesc_session_sandbox(struct shellesc_session *s, const struct shellesc_sandbox *sb)
{
	struct kernel *k = &s->loop.kernel;
	struct sandbox_gate *g;

	if (!sb->gate.on)
		return 0;
	if (k->gate.g != NULL || atomic_load(&k->fd) >= 0)
		return -EBUSY;
	if ((g = malloc(sizeof(*g))) == NULL)
		return -ENOMEM;
	if (sandbox_gate_copy(g, &sb->gate) != 0) {
		free(g);
		return -ENOMEM;
	}
	k->gate.g = g;
	return 0;
}
