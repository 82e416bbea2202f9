/* request.c: an exec request as the policy sees it. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proto.h"
#include "server.h"

/* What will run, looked up as the caller p (open: r == 0) would. */
static void
request_target(struct shellesc_request *req, struct peer *p, int r,
    const char *const *roots)
{
	struct writer wr = { .uid = p->uid, .gid = p->gid, .groups = p->groups,
	    .ngroups = p->ngroups, .roots = roots };

	req->pid = p->pid;
	req->uid = p->uid;
	req->gid = p->gid;
	req->target.pub.argv = req->ex.argv;
	req->target.pub.argc = req->ex.argc;
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
	req->target.fd = -1;
	req->ex = *ex;
	memset(ex, 0, sizeof(*ex));
	if ((req->program = resolve_program(req->ex.file, req->ex.cwd)) == NULL) {
		request_free(req);
		return -ENOMEM;
	}
	request_target(req, p, 0, roots);
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
	req->target.fd = -1;
	if (msg_exec_take(m, &req->ex) != 0) {
		free(req);
		return -ENOMEM;
	}
	req->ex.flags &= ~(unsigned)SHELLESC_ASKED_BY_KERNEL;	/* never a client's */
	if ((req->program = resolve_program(req->ex.file, req->ex.cwd)) == NULL) {
		request_free(req);
		return -ENOMEM;
	}
	request_peer(req, fd, roots);
	*out = req;
	return 0;
}

void
request_free(struct shellesc_request *req)
{
	if (req == NULL)
		return;
	target_free(&req->target);
	kverify_job_free(req->vjob);
	msg_exec_free(&req->ex);
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
	return req->ex.cwd;
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
