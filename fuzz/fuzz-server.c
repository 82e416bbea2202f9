/*
 * fuzz-server: the server's handshake and request handling, in process.
 * One session (libshellesc's real event loop) serves the whole run; each
 * input is a little script of client operations on a fresh request stream
 * and on the session socket (raw bytes, frames, fds, half-closes, waits for
 * replies, new hellos).  The policy answers what the input's first byte
 * says; escalated commands are all redirected to /bin/true.  After each
 * input the client side is closed and the server must settle back to the
 * fds it had before, then serve a good request: it survived and leaked
 * nothing.
 */
#include "config.h"

#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "client.h"
#include "err.h"
#include "fdpass.h"
#include "frame.h"
#include "fuzz.h"
#include "handshake.h"
#include "shellesc.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FS_MAX_ENDS 32		/* client ends kept open during one input */
#define FS_WAITS 4		/* reply waits per input (each up to FS_WAIT_MS) */
#define FS_WAIT_MS 50

static struct shellesc_session *fs_session;
static atomic_int fs_action;
/*
 * Open fds when the input starts (quiet: every input ends by waiting for
 * the server to close what it served).  Measured anew for each input: the
 * sanitizers' symbolizer keeps pipes that libFuzzer opens between inputs.
 */
static int fs_base;

static void
fs_policy(void *arg, struct shellesc_request *req)
{
	struct shellesc_decision d = { .action = (enum shellesc_action)atomic_load(&fs_action),
	    .reason = "fuzz" };

	shellesc_request_decide(req, &d);
}

/* Whatever was asked for, an escalation runs /bin/true with nothing inherited. */
static int
fs_prepare(void *arg, const struct shellesc_request *req,
    const struct shellesc_decision *d, struct shellesc_prepared *p)
{
	static char *const argv[] = { "true", NULL }, *const env[] = { NULL };

	p->path = "/bin/true";
	p->argv = argv;
	p->env = env;
	p->cwd = "/";
	return 0;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct shellesc_config cfg = { .policy = fs_policy, .prepare = fs_prepare,
	    .intercept = SHELLESC_INTERCEPT_WRAPPER, .wrapper_path = "/nonexistent",
	    .kill_grace_ms = 100, .request_timeout_ms = 2000 };
	int r = shellesc_session_start(&cfg, &fs_session);

	FZ_CHECK(r == 0, "session: %d", r);
	return 0;
}

/* One client's state during an input. */
struct fs_client {
	int stream;
	int ends[FS_MAX_ENDS];	/* other fds we hold: extra streams, peers of hellos */
	size_t nends;
	int pending[SHELLESC_MAX_FDS];	/* to attach to the next send */
	size_t npending;
	int waits;
};

static void
fs_keep(struct fs_client *c, int fd)
{
	if (c->nends < FS_MAX_ENDS)
		c->ends[c->nends++] = fd;
	else
		close(fd);
}

static void
fs_send(struct fs_client *c, const void *p, size_t n)
{
	struct iovec iov = { (void *)p, n };

	if (n > 0)
		(void)fdpass_send_all(c->stream, &iov, 1, c->pending, c->npending);
	fdpass_close_all(c->pending, c->npending);
	c->npending = 0;
}

/* Wait a little for one reply frame and drop it. */
static void
fs_wait_reply(struct fs_client *c)
{
	struct frame_rx rx;

	if (c->waits++ >= FS_WAITS)
		return;
	frame_rx_init(&rx, NULL, 0, 0);
	(void)frame_recv(c->stream, &rx, FS_WAIT_MS);
	frame_rx_reset(&rx);
}

/* A raw hello datagram with 0..2 fds of assorted kinds. */
static void
fs_hello(struct fs_client *c, struct fz_in *in)
{
	uint8_t how = fz_byte(in);
	size_t len, nfds = how % 3;
	const uint8_t *p = fz_take(in, (how >> 2) & 7, &len);
	struct iovec iov = { (void *)p, len };
	int fds[2], sv[2];

	for (size_t i = 0; i < nfds; i++) {
		if ((how >> 5) & 1)
			FZ_CHECK(pipe2(sv, O_CLOEXEC) == 0, "pipe");
		else
			fz_pair((how >> 6) & 1 ? SOCK_DGRAM : SOCK_STREAM, sv);
		fds[i] = sv[1];
		fs_keep(c, sv[0]);
	}
	(void)fdpass_send_all(shellesc_session_client_fd(fs_session), &iov, 1, fds, nfds);
	fdpass_close_all(fds, nfds);
}

static void
fs_op(struct fs_client *c, struct fz_in *in)
{
	uint8_t op = fz_byte(in), hdr[SHELLESC_FRAME_HDR];
	const uint8_t *p;
	size_t n;

	switch (op & 7) {
	case 0:		/* raw bytes */
		p = fz_take(in, (size_t)fz_byte(in) + 1, &n);
		fs_send(c, p, n);
		break;
	case 1:		/* a well-framed payload */
		n = fz_byte(in);
		n |= (size_t)fz_byte(in) << 8;
		p = fz_take(in, n, &n);
		frame_put_len(hdr, (uint32_t)n);
		fs_send(c, hdr, sizeof(hdr));
		fs_send(c, p, n);
		break;
	case 2:		/* fds for the next send */
		fdpass_close_all(c->pending, c->npending);
		c->npending = fz_byte(in) % (SHELLESC_MAX_FDS + 1);
		fz_null_fds(c->pending, c->npending);
		break;
	case 3:
		shutdown(c->stream, SHUT_WR);
		break;
	case 4:
		fs_wait_reply(c);
		break;
	case 5:
		fs_hello(c, in);
		break;
	case 6:		/* a new request stream; the old one stays open */
		n = (size_t)handshake_connect(shellesc_session_client_fd(fs_session));
		if ((int)n >= 0) {
			fs_keep(c, c->stream);
			c->stream = (int)n;
		}
		break;
	case 7:		/* the policy's answer for what follows */
		atomic_store(&fs_action, fz_byte(in) % 3);
		break;
	}
}

/* The server gives back every fd of the input's requests (it may still be
 * closing its end of a stream whose answer we already have: wait). */
static void
fs_settle(const char *after)
{
	int now = fz_fds_settle(fs_base, 10000);

	if (now != fs_base)
		fz_list_fds();
	FZ_CHECK(now == fs_base, "%s: %d fds more than when quiet", after, now - fs_base);
}

/* The session still serves: a plain request is answered run. */
static void
fs_good_request(void)
{
	struct msg_exec_out e = { .file = "/bin/true", .argv = (char *[]){ "true", NULL },
	    .env = (char *[]){ NULL }, .cwd = "/", .pid = getpid() };
	struct client_req req;
	int r;

	atomic_store(&fs_action, SHELLESC_RUN);
	r = client_ask(shellesc_session_client_fd(fs_session), &e, &req);
	FZ_CHECK(r == 0 && req.action == SHELLESC_ACT_RUN, "the server stopped serving: %s",
	    client_strerror(r));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct fs_client c = { .stream = -1 };

	fs_base = fz_count_fds();
	atomic_store(&fs_action, fz_byte(&in) % 3);
	c.stream = handshake_connect(shellesc_session_client_fd(fs_session));
	FZ_CHECK(c.stream >= 0, "handshake: %s", se_strerror(c.stream));
	while (in.left > 0)
		fs_op(&c, &in);
	fdpass_close_all(c.pending, c.npending);
	fdpass_close_all(c.ends, c.nends);
	close(c.stream);
	fs_settle("the clients went away");
	fs_good_request();
	fs_settle("a good request");
	return 0;
}
