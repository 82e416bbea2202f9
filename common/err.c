/* err.c: names of the SE_ERR_* codes. */
#include "config.h"

#include "err.h"

static const char *const se_err_names[] = {
	[0] = "success",
	[-SE_ERR_SYSTEM] = "system call failed",
	[-SE_ERR_AGAIN] = "operation would block",
	[-SE_ERR_EOF_HEADER] = "peer closed the connection before a frame",
	[-SE_ERR_EOF_PAYLOAD] = "peer closed the connection in the middle of a frame",
	[-SE_ERR_TOO_LARGE] = "frame larger than the protocol maximum",
	[-SE_ERR_TOO_MANY_FDS] = "too many file descriptors for one message",
	[-SE_ERR_CTRUNC] = "file descriptors were truncated in transit",
	[-SE_ERR_MALFORMED] = "malformed MessagePack",
	[-SE_ERR_TYPE] = "a field has the wrong type",
	[-SE_ERR_MISSING] = "a required field is missing",
	[-SE_ERR_TRAILING] = "trailing bytes after the message",
	[-SE_ERR_RANGE] = "a value is out of range",
	[-SE_ERR_VERSION] = "protocol version mismatch",
	[-SE_ERR_UNEXPECTED] = "unexpected message type",
	[-SE_ERR_BAD_SOCKET] = "session fd is not an AF_UNIX datagram socket",
	[-SE_ERR_NO_SESSION] = "SHELLESC_ESCALATE_SOCKET is not set",
	[-SE_ERR_NOMEM] = "out of memory",
	[-SE_ERR_NUL] = "a string contains a NUL byte",
	[-SE_ERR_TIMEOUT] = "timed out waiting for the peer",
	[-SE_ERR_FDS] = "file descriptor count does not match the message",
};

const char *
se_strerror(int r)
{
	if (r > 0 || r <= SE_ERR_MAX_)
		return "unknown error";
	return se_err_names[-r];
}
