/*
 * forge-profile FILE ARGV0 [ARG...]: a client that asks for more than the
 * rules give, as any program in a session could: its exec request carries
 * the fields a profile would be asked for by ("profile": "unsandboxed",
 * "mode": 0, "sandbox_permissions": "require_escalated", "writable":
 * ["/"], "network": true).  No such field is part of the protocol; the
 * server must skip them and decide as the rules say.  For escalate it
 * hands its stdio over and ends as the escalated command did; for run
 * it prints "run", for deny "deny: REASON" (exit 126).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "fdpass.h"
#include "frame.h"
#include "handshake.h"
#include "msg.h"

extern char **environ;

/* MessagePack of the extra pairs (fixstr keys and values). */
static const unsigned char extra[] =
    "\xa7profile\xabunsandboxed"
    "\xa4mode\x00"
    "\xb3sandbox_permissions\xb1require_escalated"
    "\xa8writable\x91\xa1/"
    "\xa7network\xc3";
#define EXTRA_PAIRS 5

static bool
keep_all(const char *s)
{
	(void)s;
	return true;
}

/* The request with the extra pairs in its map; 0 or -1. */
static int
forge_send(int session_fd, struct msg_exec_out *e, int *stream)
{
	static uint8_t buf[SHELLESC_FRAME_MAX + SHELLESC_FRAME_HDR];
	size_t len;
	int sv[2];

	if (msg_pack_exec(buf + SHELLESC_FRAME_HDR, SHELLESC_FRAME_MAX - sizeof(extra),
	    &len, e) != 0 || (buf[SHELLESC_FRAME_HDR] & 0xf0) != 0x80 ||
	    (buf[SHELLESC_FRAME_HDR] & 0x0f) + EXTRA_PAIRS > 15)
		return -1;
	buf[SHELLESC_FRAME_HDR] += EXTRA_PAIRS;		/* the fixmap's count */
	memcpy(buf + SHELLESC_FRAME_HDR + len, extra, sizeof(extra) - 1);
	len += sizeof(extra) - 1;
	frame_put_len(buf, (uint32_t)len);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
	    write(sv[0], buf, len + SHELLESC_FRAME_HDR) != (ssize_t)(len + SHELLESC_FRAME_HDR) ||
	    handshake_send(session_fd, sv[1]) != 0)
		return -1;
	close(sv[1]);
	*stream = sv[0];
	return 0;
}

int
main(int argc, char **argv)
{
	struct msg_exec_out e = { .env = environ, .pid = getpid(), .env_keep = keep_all };
	struct client_result res;
	struct client_req req = { .stream = -1 };
	struct msg m;
	char cwd[4096];
	int fd;

	if (argc < 3 || getcwd(cwd, sizeof(cwd)) == NULL) {
		fprintf(stderr, "usage: forge-profile FILE ARGV0 [ARG...]\n");
		return 2;
	}
	e.file = argv[1];
	e.argv = argv + 2;
	e.cwd = cwd;
	if (client_session_fd(environ, &fd) != 0 || forge_send(fd, &e, &req.stream) != 0 ||
	    client_recv_msg(req.stream, req.buf.reply, sizeof(req.buf.reply), &m) != 0) {
		fprintf(stderr, "forge-profile: cannot ask\n");
		return 2;
	}
	if (m.type != SHELLESC_MSG_DECISION)
		return fprintf(stderr, "forge-profile: refused\n"), 2;
	if (m.action == SHELLESC_ACT_RUN)
		return puts("run") == EOF;
	if (m.action != SHELLESC_ACT_ESCALATE) {
		printf("deny: %.*s\n", (int)m.reason.len, m.reason.p ? m.reason.p : "");
		return 126;
	}
	req.action = SHELLESC_ACT_ESCALATE;
	if (client_escalate(&req, &res) != 0)
		return 2;
	client_exit_like(&res);
}
