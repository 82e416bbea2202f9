/*
 * proto.h: the shellesc wire protocol, in one place.
 *
 * docs/protocol.md is the contract in prose, with byte-level examples; this
 * header is its mirror in C.  Bump SHELLESC_PROTO_VERSION whenever a message
 * changes incompatibly (a new optional map key is compatible: receivers
 * ignore keys they do not know).
 */
#ifndef SHELLESC_PROTO_H
#define SHELLESC_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define SHELLESC_PROTO_VERSION	1

/* Environment variables shared by the server and every client. */
#define SHELLESC_ENV_SOCKET	"SHELLESC_ESCALATE_SOCKET"
#define SHELLESC_ENV_WRAPPER	"EXEC_WRAPPER"
#define SHELLESC_ENV_DEBUG	"SHELLESC_DEBUG"
#define SHELLESC_ENV_PREFIX	"SHELLESC_"	/* never forwarded in a request */
/* Set by the preload on a wrapper it execs as the proxy of an escalation
 * already decided: the fd number of that request's open stream. */
#define SHELLESC_ENV_PROXY	"SHELLESC_PROXY_FD"
/* The wrapper the preload execs as that proxy (the session sets it with
 * LD_PRELOAD); the shellesc command also takes it as the wrapper to use. */
#define SHELLESC_ENV_PROXY_PATH	"SHELLESC_WRAPPER"
/* Set by a patched shell that added session variables (names, ':'
 * separated) to an environment it was told to clear (exec -c): the wrapper
 * takes them out again before asking and running, so the program gets the
 * environment it was given.  The preload, which puts the session's
 * variables in every child, drops this one. */
#define SHELLESC_ENV_ADDED	"SHELLESC_WRAPPER_ADDED"
/* Set by a patched shell that runs a file without #! itself when it is not
 * wrapping (bash): its own file, which the wrapper runs such a file with
 * instead of /bin/sh.  The wrapper always takes it out. */
#define SHELLESC_ENV_SHELL	"SHELLESC_WRAPPER_SHELL"
/* Set by a patched shell that runs a file without #! itself (bash), in a
 * subshell: the number of a pipe's write end.  The wrapper only asks; for
 * run it writes one byte there and exits 0, and the shell runs the file.
 * The preload lets such an exec of the wrapper run the wrapper. */
#define SHELLESC_ENV_ASK	"SHELLESC_WRAPPER_ASK"

/*
 * Handshake: one datagram on the session socket, exactly these bytes,
 * with exactly one SCM_RIGHTS fd: the server's end of a fresh stream pair.
 */
#define SHELLESC_HELLO_MAGIC0	'S'
#define SHELLESC_HELLO_MAGIC1	'E'
#define SHELLESC_HELLO_LEN	3	/* magic, magic, version */

/*
 * A frame is a u32 little-endian payload length, then one MessagePack value.
 *
 * Why 8 MiB: Linux caps the strings of argv plus envp at 6 MiB
 * (3/4 of _STK_LIM; sysconf(_SC_ARG_MAX) never reports more), and counts
 * every string as its length + 1 + sizeof(char *).  MessagePack spends at
 * most 5 bytes of header per string, so any exec the kernel would accept
 * encodes to less than 6 MiB plus a path and a cwd.  Anything larger is
 * refused on send and on receive before a byte of it is allocated.
 */
#define SHELLESC_FRAME_HDR	4
#define SHELLESC_FRAME_MAX	(8u * 1024 * 1024)
#define SHELLESC_MAX_FDS	16	/* per frame, as in the reference */

/* Limits on fields (checked on receive, where they matter). */
#define SHELLESC_REASON_MAX	4096	/* deny reason and error text */
#define SHELLESC_REPLY_MAX	(SHELLESC_REASON_MAX + 256) /* frames sent to clients */
#define SHELLESC_FD_DEST_MAX	1023	/* highest destination fd number */

/* Message types: the value of the "type" key of every message. */
enum shellesc_msg_type {
	SHELLESC_MSG_EXEC = 1,		/* client -> server: what is about to run */
	SHELLESC_MSG_DECISION,		/* server -> client: run | escalate | deny */
	SHELLESC_MSG_HANDOVER,		/* client -> server: stdio for escalate */
	SHELLESC_MSG_SIGNAL,		/* client -> server: forward a signal */
	SHELLESC_MSG_RESULT,		/* server -> client: how it ended */
	SHELLESC_MSG_ERROR,		/* server -> client: request refused */
	SHELLESC_MSG_STOPPED,		/* server -> client: the command stopped
					 * (only to a client whose hand-over
					 * said "follow_stops") */
};

/* Values of the "action" key of a decision. */
enum shellesc_proto_action {
	SHELLESC_ACT_RUN = 0,
	SHELLESC_ACT_ESCALATE = 1,
	SHELLESC_ACT_DENY = 2,
};

/* Bits of the "flags" key of an exec request (targets the preload cannot follow). */
#define SHELLESC_FLAG_STATIC	0x1	/* ELF without PT_INTERP */
#define SHELLESC_FLAG_SETID	0x2	/* set-uid, set-gid or file capabilities */
/* ...and which client asked (version 1 servers that predate them ignore them). */
#define SHELLESC_FLAG_VIA_PRELOAD	0x100	/* libshellesc_preload.so */
#define SHELLESC_FLAG_VIA_WRAPPER	0x200	/* shellesc-execve-wrapper */

#endif /* SHELLESC_PROTO_H */
