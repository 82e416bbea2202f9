/* request.c: an exec request as the policy sees it. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "proto.h"
#include "server.h"

int
request_new(const struct msg *m, int fd, struct shellesc_request **out)
{
	struct shellesc_request *req = calloc(1, sizeof(*req));
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (req == NULL)
		return -ENOMEM;
	if (msg_exec_take(m, &req->ex) != 0) {
		free(req);
		return -ENOMEM;
	}
	if ((req->program = resolve_program(req->ex.file, req->ex.cwd)) == NULL) {
		request_free(req);
		return -ENOMEM;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0) {
		req->pid = cred.pid;
		req->uid = cred.uid;
		req->gid = cred.gid;
	} else {
		req->pid = req->ex.pid;
		req->uid = (uid_t)-1;
		req->gid = (gid_t)-1;
	}
	*out = req;
	return 0;
}

void
request_free(struct shellesc_request *req)
{
	if (req == NULL)
		return;
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
