/*
 * gen-corpus DIR: write the seed corpora of the fuzz targets into
 * DIR/{msg,frame,server}, every message made by the real encoder
 * (msg_pack_exec, msg_send_*), so the seeds follow the protocol as the code
 * speaks it.  `make fuzz-corpus` runs it on fuzz/corpus; the rules seeds
 * are written by hand.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <unistd.h>

#include "frame.h"
#include "fuzz.h"
#include "msg.h"

static const char *gc_dir;

static void
gc_write(const char *sub, const char *name, const void *p, size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", gc_dir, sub);
	FZ_CHECK(mkdir(path, 0755) == 0 || errno == EEXIST, "mkdir %s", path);
	snprintf(path, sizeof(path), "%s/%s/%s", gc_dir, sub, name);
	FZ_CHECK((f = fopen(path, "wb")) != NULL, "%s", path);
	FZ_CHECK(fwrite(p, 1, n, f) == n && fclose(f) == 0, "%s", path);
}

/* One message as its sender frames it. */
struct gc_frame {
	const char *name;
	uint8_t bytes[8192];	/* header + payload */
	size_t len;
};

enum { GC_EXEC, GC_EXEC_BIG, GC_EXEC_FLAGS, GC_RUN, GC_ESCALATE, GC_DENY, GC_HANDOVER,
	GC_SIGNAL, GC_EXIT, GC_KILLED, GC_NOSTART, GC_ERROR, GC_STOPPED, GC_N };
static struct gc_frame gc[GC_N];

static void
gc_exec(struct gc_frame *f, const char *name, const struct msg_exec_out *e)
{
	size_t len;

	FZ_CHECK(msg_pack_exec(f->bytes + SHELLESC_FRAME_HDR, sizeof(f->bytes) - SHELLESC_FRAME_HDR,
	    &len, e) == 0, "pack %s", name);
	frame_put_len(f->bytes, (uint32_t)len);
	f->len = len + SHELLESC_FRAME_HDR;
	f->name = name;
}

/* Capture what a msg_send_* call puts on a stream. */
static int gc_sv[2];
static void
gc_capture(struct gc_frame *f, const char *name, int r)
{
	ssize_t n;

	FZ_CHECK(r == 0, "send %s", name);
	n = recv(gc_sv[0], f->bytes, sizeof(f->bytes), MSG_DONTWAIT);
	FZ_CHECK(n > SHELLESC_FRAME_HDR, "capture %s", name);
	f->len = (size_t)n;
	f->name = name;
}

static void
gc_messages(void)
{
	char *env[] = { "PATH=/usr/bin:/bin", "HOME=/root", "LANG=C.UTF-8", NULL };
	char big[1024];
	int null = open("/dev/null", O_RDWR);

	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	gc_exec(&gc[GC_EXEC], "exec", &(struct msg_exec_out){ .file = "/bin/ls", .cwd = "/tmp",
	    .argv = (char *[]){ "ls", "-l", NULL }, .env = (char *[]){ "PATH=/bin", NULL }, .pid = 4242 });
	gc_exec(&gc[GC_EXEC_BIG], "exec-env", &(struct msg_exec_out){ .file = "git", .cwd = "/home/u/src",
	    .argv = (char *[]){ "git", "commit", "-m", big, NULL }, .env = env, .pid = 1 });
	gc_exec(&gc[GC_EXEC_FLAGS], "exec-flags", &(struct msg_exec_out){ .file = "./static-tool",
	    .cwd = "/", .argv = (char *[]){ "", NULL }, .env = NULL, .pid = 0x7fffffff,
	    .flags = SHELLESC_FLAG_STATIC | SHELLESC_FLAG_SETID });
	fz_pair(SOCK_STREAM, gc_sv);
	gc_capture(&gc[GC_RUN], "decision-run", msg_send_decision(gc_sv[1], SHELLESC_ACT_RUN, NULL));
	gc_capture(&gc[GC_ESCALATE], "decision-escalate", msg_send_decision(gc_sv[1], SHELLESC_ACT_ESCALATE, NULL));
	gc_capture(&gc[GC_DENY], "decision-deny", msg_send_decision(gc_sv[1], SHELLESC_ACT_DENY, "not allowed"));
	gc_capture(&gc[GC_HANDOVER], "handover", msg_send_handover(gc_sv[1], (int[]){ 0, 1, 2 },
	    (int[]){ null, null, null }, 3));
	gc_capture(&gc[GC_SIGNAL], "signal", msg_send_signal(gc_sv[1], 2));
	gc_capture(&gc[GC_EXIT], "result-exit", msg_send_result(gc_sv[1], 0, 0, false, NULL));
	gc_capture(&gc[GC_KILLED], "result-signal", msg_send_result(gc_sv[1], -1, 9, true, NULL));
	gc_capture(&gc[GC_NOSTART], "result-error", msg_send_result(gc_sv[1], 127, 0, false, "spawn failed"));
	gc_capture(&gc[GC_ERROR], "error", msg_send_error(gc_sv[1], "protocol version 2 is not supported"));
	gc_capture(&gc[GC_STOPPED], "stopped", msg_send_stopped(gc_sv[1], 20));
	close(null);
	close(gc_sv[0]);
	close(gc_sv[1]);
}

/* msg: payloads alone.  frame: two mode bytes, then frames as sent. */
static void
gc_msg_and_frame(void)
{
	uint8_t buf[3 * 8192 + 2];

	for (int i = 0; i < GC_N; i++) {
		gc_write("msg", gc[i].name, gc[i].bytes + SHELLESC_FRAME_HDR, gc[i].len - SHELLESC_FRAME_HDR);
		buf[0] = (uint8_t)((i & 1) | (i == GC_HANDOVER ? (3 << 1 | 16 << 3) : 0));
		buf[1] = (uint8_t)(i * 37);
		memcpy(buf + 2, gc[i].bytes, gc[i].len);
		gc_write("frame", gc[i].name, buf, gc[i].len + 2);
	}
	/* A whole escalation's client stream, frame after frame. */
	buf[0] = 16 << 3;
	buf[1] = 255;
	memcpy(buf + 2, gc[GC_EXEC].bytes, gc[GC_EXEC].len);
	memcpy(buf + 2 + gc[GC_EXEC].len, gc[GC_HANDOVER].bytes, gc[GC_HANDOVER].len);
	memcpy(buf + 2 + gc[GC_EXEC].len + gc[GC_HANDOVER].len, gc[GC_SIGNAL].bytes, gc[GC_SIGNAL].len);
	gc_write("frame", "conversation", buf, 2 + gc[GC_EXEC].len + gc[GC_HANDOVER].len + gc[GC_SIGNAL].len);
}

/* server: scripts of fuzz-server's operations (see fuzz-server.c). */
struct gc_script {
	uint8_t b[3 * 8192];
	size_t n;
};

static void
gc_op(struct gc_script *s, const uint8_t *p, size_t n)
{
	memcpy(s->b + s->n, p, n);
	s->n += n;
}

static void
gc_op_frame(struct gc_script *s, int which)
{
	const struct gc_frame *f = &gc[which];
	size_t len = f->len - SHELLESC_FRAME_HDR;

	gc_op(s, (uint8_t[]){ 1, (uint8_t)len, (uint8_t)(len >> 8) }, 3);
	gc_op(s, f->bytes + SHELLESC_FRAME_HDR, len);
}

#define OP(s, ...) gc_op(s, (uint8_t[]){ __VA_ARGS__ }, sizeof((uint8_t[]){ __VA_ARGS__ }))

static void
gc_server(void)
{
	struct gc_script s;

	for (uint8_t action = 0; action < 3; action++) {
		static const char *const names[] = { "run", "escalate", "deny" };

		s.n = 0;
		OP(&s, action);
		gc_op_frame(&s, GC_EXEC);
		OP(&s, 4);
		if (action == 1) {
			OP(&s, 2, 3);
			gc_op_frame(&s, GC_HANDOVER);
			OP(&s, 4);
		}
		gc_write("server", names[action], s.b, s.n);
	}
	s.n = 0;			/* escalate, forward a signal, half-close */
	OP(&s, 1);
	gc_op_frame(&s, GC_EXEC_BIG);
	OP(&s, 4, 2, 3);
	gc_op_frame(&s, GC_HANDOVER);
	gc_op_frame(&s, GC_SIGNAL);
	OP(&s, 3, 4);
	gc_write("server", "escalate-signal", s.b, s.n);
	s.n = 0;			/* raw bytes: a header split from its payload */
	OP(&s, 0, 0, 3);
	gc_op(&s, gc[GC_EXEC].bytes, 4);
	OP(&s, 0, (uint8_t)(gc[GC_EXEC].len - 5));
	gc_op(&s, gc[GC_EXEC].bytes + 4, gc[GC_EXEC].len - 4);
	OP(&s, 4);
	gc_write("server", "split", s.b, s.n);
	s.n = 0;			/* hellos of every kind, then a second stream */
	OP(&s, 2, 5, 1 | 3 << 2, 'S', 'E', 1, 5, 2 | 3 << 2, 'S', 'E', 1, 5, 1 | 1 << 5 | 3 << 2, 'S', 'E', 1);
	OP(&s, 5, 1 | 1 << 6 | 3 << 2, 'S', 'E', 2, 5, 0 | 3 << 2, 'S', 'E', 1, 6, 7, 0);
	gc_op_frame(&s, GC_EXEC_FLAGS);
	OP(&s, 4);
	gc_write("server", "hellos", s.b, s.n);
	s.n = 0;			/* a reply-type message where the exec belongs */
	OP(&s, 0);
	gc_op_frame(&s, GC_RUN);
	OP(&s, 4);
	gc_write("server", "wrong-type", s.b, s.n);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gen-corpus DIR\n");
		return 2;
	}
	gc_dir = argv[1];
	gc_messages();
	gc_msg_and_frame();
	gc_server();
	return 0;
}
