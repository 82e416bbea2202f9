/* request.c: an exec request as the policy sees it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto.h"
#include "server.h"

/*
 * The caller's working directory, as the kernel has it: the server's own
 * fd of it (/proc/PID/cwd, pinned with the peer), and the path that fd
 * has in the server's view.  An escalated command runs there (fchdir), so
 * the directory shown is the one used, whatever is renamed or replaced by
 * name meanwhile; the cwd the client sent is never used.  0 or -errno.
 */
static int
request_cwd(struct shellesc_request *req, struct peer *p, const struct writer *wr)
{
	char link[64], path[PATH_MAX];
	ssize_t n;
	int fd = peer_cwd(p), r;

	if (fd < 0)
		return fd;
	if ((req->cwd_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return -errno;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", req->cwd_fd);
	if ((n = readlink(link, path, sizeof(path))) < 0)
		return -errno;
	if ((size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	path[n] = '\0';
	if ((req->cwd = strdup(path)) == NULL)
		return -ENOMEM;
	/* not a path (another mount namespace), or one that cannot be
	 * checked (deleted): as writable as can be */
	r = path[0] == '/' ? writable_check(wr, path, NULL) : 1;
	req->cwd_writable = r != 0;
	return r == -ENOMEM ? r : 0;
}

/* What will run, looked up as the caller p (open: r == 0) would. */
static void
request_target(struct shellesc_request *req, struct peer *p, int r,
    const char *const *roots)
{
	struct writer wr = { .uid = p->uid, .gid = p->gid, .groups = p->groups,
	    .ngroups = p->ngroups, .roots = roots };
	pid_t ppid;

	req->pid = p->pid;
	/* the kernel's word, never the client's; the caller waits in its
	 * exec, so its parent is still the one that started it (or init) */
	req->ppid = p->ppid > 0 ? p->ppid :
	    p->pid > 0 && (ppid = proc_ppid(p->pid)) > 0 ? ppid : 0;
	req->uid = p->uid;
	req->gid = p->gid;
	req->target.pub.argv = req->ex.argv;
	req->target.pub.argc = req->ex.argc;
	if (r == 0 && (r = request_cwd(req, p, &wr)) != 0) {
		/* no directory to run in: the request cannot be escalated */
		if (req->cwd_fd >= 0)
			close(req->cwd_fd);
		req->cwd_fd = -1;
		req->cwd_writable = true;
	}
	if (r == 0)
		target_inspect(&req->target, p, &req->ex, &wr);
	else
		req->target.pub.error = -r;
}

/* Who asks (SO_PEERCRED), and what will run. */
static void
request_peer(struct shellesc_request *req, int fd, const char *const *roots)
{
	struct peer p;
	int r = peer_open(&p, fd);

	request_target(req, &p, r, roots);
	peer_close(&p);
}

int
request_from(struct msg_exec *ex, struct peer *p, const char *const *roots,
    struct shellesc_request **out)
{
	struct shellesc_request *req = calloc(1, sizeof(*req));

	if (req == NULL) {
		msg_exec_free(ex);
		return -ENOMEM;
	}
	req->target.fd = req->cwd_fd = -1;
	req->ex = *ex;
	memset(ex, 0, sizeof(*ex));
	request_target(req, p, 0, roots);
	if ((req->program = resolve_program(req->ex.file, shellesc_request_cwd(req))) == NULL) {
		request_free(req);
		return -ENOMEM;
	}
	if (req->target.pub.facts & SHELLESC_TARGET_STATIC)
		req->ex.flags |= SHELLESC_TARGET_STATIC;
	if (req->target.pub.facts & SHELLESC_TARGET_SETID)
		req->ex.flags |= SHELLESC_TARGET_SETID;
	*out = req;
	return 0;
}

int
request_new(const struct msg *m, int fd, const char *const *roots,
    struct shellesc_request **out)
{
	struct shellesc_request *req = calloc(1, sizeof(*req));

	if (req == NULL)
		return -ENOMEM;
	req->target.fd = req->cwd_fd = -1;
	if (msg_exec_take(m, &req->ex) != 0) {
		free(req);
		return -ENOMEM;
	}
	req->ex.flags &= ~(unsigned)SHELLESC_ASKED_BY_KERNEL;	/* never a client's */
	request_peer(req, fd, roots);
	if ((req->program = resolve_program(req->ex.file, shellesc_request_cwd(req))) == NULL) {
		request_free(req);
		return -ENOMEM;
	}
	*out = req;
	return 0;
}

void
request_free(struct shellesc_request *req)
{
	if (req == NULL)
		return;
	target_free(&req->target);
	kernel_verify_job_free(req->vjob);
	msg_exec_free(&req->ex);
	if (req->cwd_fd >= 0)
		close(req->cwd_fd);
	free(req->cwd);
	free(req->program);
	free((char *)req->d.reason);
	free(req);
}

const char *
shellesc_request_program(const struct shellesc_request *req)
{
	return req->program;
}

const char *
shellesc_request_file(const struct shellesc_request *req)
{
	return req->ex.file;
}

char *const *
shellesc_request_argv(const struct shellesc_request *req)
{
	return req->ex.argv;
}

size_t
shellesc_request_argc(const struct shellesc_request *req)
{
	return req->ex.argc;
}

const char *
shellesc_request_cwd(const struct shellesc_request *req)
{
	return req->cwd != NULL ? req->cwd : req->ex.cwd;
}

int
shellesc_request_cwd_writable(const struct shellesc_request *req)
{
	return req->cwd_writable;
}

char *const *
shellesc_request_env(const struct shellesc_request *req)
{
	return req->ex.env;
}

pid_t
shellesc_request_pid(const struct shellesc_request *req)
{
	return req->pid;
}

pid_t
shellesc_request_ppid(const struct shellesc_request *req)
{
	return req->ppid;
}

uid_t
shellesc_request_uid(const struct shellesc_request *req)
{
	return req->uid;
}

gid_t
shellesc_request_gid(const struct shellesc_request *req)
{
	return req->gid;
}

/* The public bits are the wire bits: passed through unchanged. */
_Static_assert(SHELLESC_TARGET_STATIC == SHELLESC_FLAG_STATIC &&
    SHELLESC_TARGET_SETID == SHELLESC_FLAG_SETID &&
    SHELLESC_ASKED_BY_PRELOAD == SHELLESC_FLAG_VIA_PRELOAD &&
    SHELLESC_ASKED_BY_WRAPPER == SHELLESC_FLAG_VIA_WRAPPER, "flag bits differ");

unsigned
shellesc_request_flags(const struct shellesc_request *req)
{
	return req->ex.flags;
}

const struct shellesc_target *
shellesc_request_target(const struct shellesc_request *req)
{
	return &req->target.pub;
}

uint64_t
shellesc_request_id(const struct shellesc_request *req)
{
	return req->id;
}

int
shellesc_request_cancelled(const struct shellesc_request *req)
{
	return atomic_load(&((struct shellesc_request *)req)->cancelled);
}

void
shellesc_request_keep_argv0(struct shellesc_request *req)
{
	req->keep_argv0 = true;
}
