/*
 * err.h: the error idiom of common/ (the protocol, framing, fd passing and
 * the client).  Each layer of shellesc has its own (docs/architecture.md).
 *
 * Functions return 0 (or a count, or a value such as an fd number) on
 * success and a negative SE_ERR_* code on failure; se_strerror() names the
 * failure.  SE_ERR_SYSTEM means "look at errno", which the failing call
 * leaves set.  Nothing in common/ prints (but client_say) or exits (but
 * client_exit_like).
 */
#ifndef SHELLESC_ERR_H
#define SHELLESC_ERR_H

enum se_err {
	SE_OK = 0,
	SE_ERR_SYSTEM = -1,		/* a system call failed; errno says why */
	SE_ERR_AGAIN = -2,		/* non-blocking: not complete yet */
	SE_ERR_EOF_HEADER = -3,		/* peer closed before a frame began */
	SE_ERR_EOF_PAYLOAD = -4,	/* peer closed in the middle of a frame */
	SE_ERR_TOO_LARGE = -5,		/* frame over SHELLESC_FRAME_MAX */
	SE_ERR_TOO_MANY_FDS = -6,	/* more fds than allowed */
	SE_ERR_CTRUNC = -7,		/* control data truncated: fds were lost */
	SE_ERR_MALFORMED = -8,		/* not valid MessagePack */
	SE_ERR_TYPE = -9,		/* a field has the wrong type */
	SE_ERR_MISSING = -10,		/* a required field is missing */
	SE_ERR_TRAILING = -11,		/* bytes after the message */
	SE_ERR_RANGE = -12,		/* a value out of its allowed range */
	SE_ERR_VERSION = -13,		/* protocol version mismatch */
	SE_ERR_UNEXPECTED = -14,	/* a message of the wrong type */
	SE_ERR_BAD_SOCKET = -15,	/* session fd is not an AF_UNIX datagram socket */
	SE_ERR_NO_SESSION = -16,	/* SHELLESC_ESCALATE_SOCKET is not set */
	SE_ERR_NOMEM = -17,		/* out of memory */
	SE_ERR_NUL = -18,		/* a string holds a NUL byte */
	SE_ERR_TIMEOUT = -19,		/* the peer took too long */
	SE_ERR_FDS = -20,		/* fd count does not match the message */
	SE_ERR_MAX_ = -21
};

/* A static, human-readable description of r (never NULL). Async-signal-safe. */
const char *se_strerror(int r);

#endif /* SHELLESC_ERR_H */
