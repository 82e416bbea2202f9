/* test-msg.c: suite msg (the six messages: encoder, decoder, limits). */
#include "config.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "err.h"
#include "fdpass.h"
#include "frame.h"
#include "helpers/base.h"
#include "msg.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* --- every message through the real encoder and back --- */

static const struct rt_case {
	int type;
	int a, b;		/* action | signal | exit_code, then signal */
	bool core;
	const char *text;	/* reason | error | message, NULL: left out */
} rt_cases[] = {
	{ SHELLESC_MSG_DECISION, SHELLESC_ACT_RUN, 0, false, NULL },
	{ SHELLESC_MSG_DECISION, SHELLESC_ACT_ESCALATE, 0, false, "" },
	{ SHELLESC_MSG_DECISION, SHELLESC_ACT_DENY, 0, false, "not now \xe2\x9c\x8b" },
	{ SHELLESC_MSG_SIGNAL, SIGINT, 0, false, NULL },
	{ SHELLESC_MSG_SIGNAL, 64, 0, false, NULL },
	{ SHELLESC_MSG_RESULT, 42, 0, false, NULL },
	{ SHELLESC_MSG_RESULT, 0, 0, false, NULL },
	{ SHELLESC_MSG_RESULT, -1, SIGSEGV, true, NULL },
	{ SHELLESC_MSG_RESULT, -1, SIGKILL, false, "killed by the server" },
	{ SHELLESC_MSG_RESULT, 127, 0, false, "cannot execute: No such file" },
	{ SHELLESC_MSG_ERROR, 0, 0, false, "request refused" },
};

static int
rt_send(int sock, const struct rt_case *c)
{
	switch (c->type) {
	case SHELLESC_MSG_DECISION:
		return msg_send_decision(sock, c->a, c->text);
	case SHELLESC_MSG_SIGNAL:
		return msg_send_signal(sock, c->a);
	case SHELLESC_MSG_RESULT:
		return msg_send_result(sock, c->a, c->b, c->core, c->text);
	default:
		return msg_send_error(sock, c->text);
	}
}

static void
check_text(struct msg_bytes b, const char *want, size_t max)
{
	size_t n = strlen(want) < max ? strlen(want) : max;

	cr_assert(b.len == n && memcmp(b.p, want, n) == 0, "text %.*s", (int)b.len, b.p);
}

static void
rt_check(const struct msg *m, const struct rt_case *c)
{
	static const char *const text_key[] = {
		[SHELLESC_MSG_DECISION] = "reason", [SHELLESC_MSG_RESULT] = "error",
		[SHELLESC_MSG_ERROR] = "message", [SHELLESC_MSG_SIGNAL] = "message",
	};
	const struct msg_bytes *text = c->type == SHELLESC_MSG_DECISION ? &m->reason :
	    c->type == SHELLESC_MSG_RESULT ? &m->error : &m->message;

	cr_assert_eq(m->type, c->type);
	if (c->type == SHELLESC_MSG_DECISION)
		cr_assert_eq(m->action, c->a);
	if (c->type == SHELLESC_MSG_SIGNAL)
		cr_assert_eq(m->signal, c->a);
	if (c->type == SHELLESC_MSG_RESULT && c->a >= 0)
		cr_assert(m->exit_code == c->a && !msg_has(m, "signal"));
	if (c->type == SHELLESC_MSG_RESULT && c->a < 0)
		cr_assert(m->signal == c->b && m->core == c->core && !msg_has(m, "exit_code"));
	cr_assert_eq(msg_has(m, text_key[c->type]), c->text != NULL);
	if (c->text)
		check_text(*text, c->text, SHELLESC_REASON_MAX);
}

Test(msg, every_message_round_trips)
{
	for (size_t i = 0; i < N(rt_cases); i++) {
		struct frame_rx rx;
		struct msg m;
		int sv[2];

		th_pair(SOCK_STREAM, sv);
		cr_assert_eq(rt_send(sv[0], &rt_cases[i]), 0, "case %zu", i);
		cr_assert_eq(th_recv_msg(sv[1], &rx, 0, &m), 0, "case %zu", i);
		rt_check(&m, &rt_cases[i]);
		frame_rx_reset(&rx);
		th_close_fds(sv, 2);
	}
}

/* Texts over SHELLESC_REASON_MAX are cut on send, and still decode. */
Test(msg, long_texts_are_truncated)
{
	char *text = malloc(3 * SHELLESC_REASON_MAX);

	memset(text, 'r', 3 * SHELLESC_REASON_MAX - 1);
	text[3 * SHELLESC_REASON_MAX - 1] = '\0';
	for (size_t i = 0; i < N(rt_cases); i++) {
		struct rt_case c = rt_cases[i];
		struct frame_rx rx;
		struct msg m;
		int sv[2];

		if (c.text == NULL)
			continue;
		c.text = text;
		th_pair(SOCK_STREAM, sv);
		cr_assert_eq(rt_send(sv[0], &c), 0);
		cr_assert_eq(th_recv_msg(sv[1], &rx, 0, &m), 0);
		rt_check(&m, &c);
		frame_rx_reset(&rx);
		th_close_fds(sv, 2);
	}
	free(text);
}

/* The destination list and the attached fds arrive together, in order. */
Test(msg, handover_carries_fds)
{
	static const size_t counts[] = { 0, 3, SHELLESC_MAX_FDS };
	int dest[SHELLESC_MAX_FDS + 1], pipes[SHELLESC_MAX_FDS][2], w[SHELLESC_MAX_FDS + 1];

	for (size_t i = 0; i < SHELLESC_MAX_FDS + 1; i++)
		dest[i] = i < 3 ? (int)i : SHELLESC_FD_DEST_MAX - (int)i;
	for (size_t k = 0; k < N(counts); k++) {
		size_t n = counts[k];
		struct frame_rx rx;
		struct msg m;
		int sv[2];

		th_pair(SOCK_STREAM, sv);
		for (size_t i = 0; i < n; i++) {
			th_pipe(pipes[i]);
			w[i] = pipes[i][1];
		}
		cr_assert_eq(msg_send_handover(sv[0], dest, w, n), 0);
		cr_assert_eq(th_recv_msg(sv[1], &rx, SHELLESC_MAX_FDS, &m), 0);
		cr_assert(m.type == SHELLESC_MSG_HANDOVER && m.ndest == n && rx.nfds == n);
		for (size_t i = 0; i < n; i++) {
			cr_assert_eq(m.dest[i], dest[i]);
			close(pipes[i][1]);
			th_check_pipe(rx.fds[i], pipes[i][0]);
			close(pipes[i][0]);
		}
		frame_rx_reset(&rx);
		th_close_fds(sv, 2);
	}
	cr_assert_eq(msg_send_handover(-1, dest, w, SHELLESC_MAX_FDS + 1), SE_ERR_TOO_MANY_FDS);
}

/* A hand-over says whether its client follows stops; only such a client
 * is sent "stopped" (7) messages. */
Test(msg, stops_round_trip)
{
	struct frame_rx rx;
	struct msg m;
	int sv[2], null;

	th_pair(SOCK_STREAM, sv);
	th_null_fds(&null, 1);
	cr_assert_eq(msg_send_handover_follow(sv[0], (int[]){ 0 }, &null, 1), 0);
	cr_assert_eq(th_recv_msg(sv[1], &rx, SHELLESC_MAX_FDS, &m), 0);
	cr_assert(m.type == SHELLESC_MSG_HANDOVER && m.ndest == 1 && m.follow_stops);
	frame_rx_reset(&rx);
	cr_assert_eq(msg_send_handover(sv[0], (int[]){ 0 }, &null, 1), 0);
	cr_assert_eq(th_recv_msg(sv[1], &rx, SHELLESC_MAX_FDS, &m), 0);
	cr_assert(m.type == SHELLESC_MSG_HANDOVER && !m.follow_stops && !msg_has(&m, "follow_stops"));
	frame_rx_reset(&rx);
	cr_assert_eq(msg_send_stopped(sv[0], SIGTSTP), 0);
	cr_assert_eq(th_recv_msg(sv[1], &rx, 0, &m), 0);
	cr_assert(m.type == SHELLESC_MSG_STOPPED && m.signal == SIGTSTP);
	frame_rx_reset(&rx);
	th_close_fds(&null, 1);
	th_close_fds(sv, 2);
}

/* --- exec requests --- */

struct exec_job {
	int sock;
	const struct msg_exec_out *e;
};

static int
exec_job_run(void *arg)
{
	struct exec_job *j = arg;

	return msg_send_exec(j->sock, j->e);
}

static size_t
strv_len(char *const *v)
{
	size_t n = 0;

	while (v && v[n])
		n++;
	return n;
}

/* Send e from a child (it may be megabytes), take it back, compare bytes. */
static void
exec_round_trip(const struct msg_exec_out *e)
{
	struct frame_rx rx;
	struct msg_exec x;
	struct msg m;
	struct exec_job job = { .e = e };
	size_t k = 0;
	int sv[2];
	pid_t pid;

	th_pair(SOCK_STREAM, sv);
	job.sock = sv[0];
	pid = th_spawn(exec_job_run, &job);
	cr_assert_eq(th_recv_msg(sv[1], &rx, 0, &m), 0);
	th_reap(pid);
	cr_assert_eq(msg_exec_take(&m, &x), 0);
	frame_rx_reset(&rx);
	cr_assert_str_eq(x.file, e->file);
	cr_assert_str_eq(x.cwd, e->cwd);
	cr_assert(x.pid == e->pid && x.flags == e->flags);
	cr_assert(x.argc == strv_len(e->argv) && x.argv[x.argc] == NULL);
	for (size_t i = 0; i < x.argc; i++)
		if (strcmp(x.argv[i], e->argv[i]) != 0)
			cr_assert_fail("argv[%zu] differs", i);
	for (size_t i = 0; e->env && e->env[i]; i++)
		if ((e->env_keep == NULL || e->env_keep(e->env[i])) &&
		    strcmp(x.env[k++], e->env[i]) != 0)
			cr_assert_fail("env[%zu] differs", i);
	cr_assert(x.envc == k && x.env[k] == NULL);
	msg_exec_free(&x);
	th_close_fds(sv, 2);
}

static bool
drop_shellesc(const char *entry)
{
	return strncmp(entry, "SHELLESC_", 9) != 0;
}

Test(msg, exec_round_trips_raw_bytes)
{
	char all[256], *bad_utf8[] = { "\x80", "\xc3\x28", "\xed\xa0\x80",
	    "\xf8\x88\x80\x80\x80", "\xfe\xff", all, "", NULL };
	char *env[] = { "K=\xff\xfe", "\x80=1", "SHELLESC_X=1", "", NULL };
	char *plain[] = { "echo", "hello", NULL }, *none[] = { NULL };
	const struct msg_exec_out cases[] = {
		{ "/bin/echo", "/tmp", plain, plain, NULL, 1234, 0 },
		{ "/tmp/\x80\xff", "/tmp/\xe9t\xe9", bad_utf8, bad_utf8, NULL, 1, 0 },
		{ "p", "/", plain, env, NULL, 0, SHELLESC_FLAG_STATIC },
		{ "p", "/", plain, env, drop_shellesc, INT32_MAX, SHELLESC_FLAG_SETID },
		{ "p", "/", plain, NULL, NULL, 1, 0 },		/* empty environment */
		{ "p", "/", plain, none, drop_shellesc, 1, 0 },
		{ "p", "/", NULL, env, NULL, 1, 0 },		/* empty argv */
		{ "p", "/", none, NULL, NULL, 1, 0xffff },
	};

	for (int i = 0; i < 255; i++)
		all[i] = (char)(i + 1);
	all[255] = '\0';
	for (size_t i = 0; i < N(cases); i++)
		exec_round_trip(&cases[i]);
}

Test(msg, exec_with_100000_env_entries)
{
	enum { ENVC = 100000 };
	char **env = calloc(ENVC + 1, sizeof(char *));
	char *argv[] = { "env", NULL };
	struct msg_exec_out e = { "/usr/bin/env", "/", argv, env, NULL, 7, 0 };

	for (int i = 0; i < ENVC; i++)
		cr_assert(asprintf(&env[i], "VAR_%d=value \xff %d", i, i * 31) > 0);
	exec_round_trip(&e);
	for (int i = 0; i < ENVC; i++)
		free(env[i]);
	free(env);
}

/* The limit on an exec frame is exact: SHELLESC_FRAME_MAX is sent, one more byte is not. */
Test(msg, exec_size_limit)
{
	enum { PROBE = 70000 };		/* a bin32 string, like the big one */
	char *big = malloc(SHELLESC_FRAME_MAX + 1), *argv[] = { big, NULL };
	struct msg_exec_out e = { "/bin/true", "/", argv, NULL, NULL, 1, 0 };
	size_t len, over;
	int sv[2], fd;
	char buf[16];

	memset(big, 'a', SHELLESC_FRAME_MAX);
	big[PROBE] = '\0';
	char *probe = malloc(2 * PROBE);

	cr_assert_eq(msg_pack_exec(probe, 2 * PROBE, &len, &e), 0);
	cr_assert_eq(msg_pack_exec(probe, len - 1, &over, &e), SE_ERR_TOO_LARGE);
	free(probe);
	over = len - PROBE;		/* everything but the big string */
	big[PROBE] = 'a';
	big[SHELLESC_FRAME_MAX - over + 1] = '\0';
	th_pair(SOCK_STREAM, sv);
	cr_assert_eq(msg_send_exec(sv[0], &e), SE_ERR_TOO_LARGE);
	len = 0;
	cr_assert_eq(fdpass_recv(sv[1], buf, sizeof(buf), &fd, &len), SE_ERR_AGAIN,
	    "nothing was sent");
	big[SHELLESC_FRAME_MAX - over] = '\0';
	exec_round_trip(&e);
	free(big);
}

/* --- the decoder, on hand-made input --- */

struct bad_case {
	const char *spec;
	int want;
	const char *field;	/* m.bad_field to expect, NULL: not checked */
};

static void
check_decode(const uint8_t *buf, size_t len, const struct bad_case *c, size_t i)
{
	struct msg m;
	int r = msg_decode(buf, len, &m);

	cr_assert_eq(r, c->want, "case %zu %s: %s", i, c->spec, se_strerror(r));
	if (r == 0)
		cr_assert_null(m.bad_field);
	if (c->field)
		cr_assert(m.bad_field && strcmp(m.bad_field, c->field) == 0,
		    "case %zu: bad_field %s", i, m.bad_field ? m.bad_field : "(null)");
}

static const char *const exec_pairs[] = {
	"type:1", "file:b\"/bin/true\"", "argv:[b\"true\"]", "cwd:b\"/\"",
	"env:[b\"A=1\"]", "pid:42", "flags:3",
};

/* The valid exec above without the pair of key drop, with extra at the end. */
static uint8_t *
exec_spec(size_t *len, const char *drop, const char *extra)
{
	char spec[1024] = "{";

	for (size_t i = 0; i < N(exec_pairs); i++)
		if (drop == NULL || strncmp(exec_pairs[i], drop, strlen(drop)) != 0 ||
		    exec_pairs[i][strlen(drop)] != ':')
			strcat(strcat(spec, exec_pairs[i]), ", ");
	cr_assert_lt(strlen(spec) + (extra ? strlen(extra) : 0), sizeof(spec) - 2);
	strcat(strcat(spec, extra ? extra : ""), "}");
	return th_mp(len, "%s", spec);
}

Test(msg, exec_decoding)
{
	static const struct { const char *drop; struct bad_case c; } cases[] = {
		{ NULL, { NULL, 0, NULL } },
		{ "flags", { NULL, 0, NULL } },			/* optional */
		{ "type", { "type:1", 0, NULL } },		/* any order */
		{ "file", { "file:\"/bin/true\"", 0, NULL } },	/* str for bin */
		{ "argv", { "argv:[]", 0, NULL } },		/* the codec allows it */
		{ "env", { "env:[]", 0, NULL } },
		{ NULL, { "x:{a:[1,{b:nil}],c:[[1.5],e\"z\"]}, typ:\"t\", types:0", 0, NULL } },
		{ NULL, { "1:2, nil:[true], 2.5:{a:b}, b\"\\xff\":1", 0, NULL } },
		{ "pid", { "pid:\"1\"", SE_ERR_TYPE, "pid" } },
		{ "pid", { "pid:1.0", SE_ERR_TYPE, "pid" } },
		{ "argv", { "argv:{a:b\"1\"}", SE_ERR_TYPE, "argv" } },
		{ "argv", { "argv:[b\"a\", 1]", SE_ERR_TYPE, "argv" } },
		{ "env", { "env:b\"A=1\"", SE_ERR_TYPE, "env" } },
		{ "file", { "file:[b\"/bin/true\"]", SE_ERR_TYPE, "file" } },
		{ "type", { "type:\"1\"", SE_ERR_TYPE, "type" } },
		{ "flags", { "flags:true", SE_ERR_TYPE, "flags" } },
		{ NULL, { "pid:43", SE_ERR_MALFORMED, "pid" } },	/* duplicate */
		{ NULL, { "b\"file\":b\"/x\"", SE_ERR_MALFORMED, "file" } },
		{ "file", { "file:b\"/bin/\\x00true\"", SE_ERR_NUL, "file" } },
		{ "argv", { "argv:[b\"true\", b\"a\\x00\"]", SE_ERR_NUL, "argv" } },
		{ "env", { "env:[\"A=\\x00\"]", SE_ERR_NUL, "env" } },
		{ "cwd", { "cwd:\"\\x00\"", SE_ERR_NUL, "cwd" } },
		{ "file", { "file:b\"\"", SE_ERR_RANGE, "file" } },
		{ "cwd", { "cwd:b\"\"", SE_ERR_RANGE, "cwd" } },
		{ "pid", { "pid:-1", SE_ERR_RANGE, "pid" } },
		{ "pid", { "pid:2147483648", SE_ERR_RANGE, "pid" } },
		{ "flags", { "flags:65536", SE_ERR_RANGE, "flags" } },
		{ "type", { "type:0", SE_ERR_RANGE, "type" } },
		{ "type", { "type:8", SE_ERR_RANGE, "type" } },
		{ "type", { "type:18446744073709551615", SE_ERR_RANGE, "type" } },
		{ "argv", { "argv:#dc7fff", SE_ERR_MALFORMED, "argv" } },
	};
	static const char *const required[] = { "type", "file", "argv", "cwd", "env", "pid" };
	uint8_t *buf;
	size_t len;

	for (size_t i = 0; i < N(cases); i++) {
		buf = exec_spec(&len, cases[i].drop, cases[i].c.spec);
		check_decode(buf, len, &cases[i].c, i);
		free(buf);
	}
	for (size_t i = 0; i < N(required); i++) {
		buf = exec_spec(&len, required[i], NULL);
		check_decode(buf, len, &(struct bad_case){ required[i], SE_ERR_MISSING, required[i] }, i);
		free(buf);
	}
	/* Every proper prefix of a valid message is malformed. */
	buf = exec_spec(&len, NULL, NULL);
	for (size_t n = 0; n < len; n++)
		check_decode(buf, n, &(struct bad_case){ "prefix", SE_ERR_MALFORMED, NULL }, n);
	free(buf);
}

Test(msg, reply_decoding)
{
	static const struct bad_case cases[] = {
		{ "{type:2, action:0}", 0, NULL },
		{ "{action:2, type:2, reason:\"no\"}", 0, NULL },
		{ "{type:2, action:3}", SE_ERR_RANGE, "action" },
		{ "{type:2, action:-1}", SE_ERR_RANGE, "action" },
		{ "{type:2}", SE_ERR_MISSING, "action" },
		{ "{type:2, action:\"run\"}", SE_ERR_TYPE, "action" },
		{ "{type:2, action:0, reason:\"a\\x00b\"}", SE_ERR_NUL, "reason" },
		{ "{type:2, action:0, pid:\"x\"}", SE_ERR_TYPE, "pid" },
		{ "{type:3, fds:[0,1,2]}", 0, NULL },
		{ "{type:3, fds:[]}", 0, NULL },
		{ "{type:3, fds:[1023]}", 0, NULL },
		{ "{type:3}", SE_ERR_MISSING, "fds" },
		{ "{type:3, fds:[1024]}", SE_ERR_RANGE, "fds" },
		{ "{type:3, fds:[-1]}", SE_ERR_RANGE, "fds" },
		{ "{type:3, fds:[1,2,1]}", SE_ERR_RANGE, "fds" },
		{ "{type:3, fds:[0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16]}",
		  SE_ERR_TOO_MANY_FDS, "fds" },
		{ "{type:3, fds:{}}", SE_ERR_TYPE, "fds" },
		{ "{type:3, fds:[\"0\"]}", SE_ERR_TYPE, "fds" },
		{ "{type:3, fds:[0,1,2], follow_stops:true}", 0, NULL },
		{ "{type:3, fds:[0,1,2], follow_stops:1}", SE_ERR_TYPE, "follow_stops" },
		{ "{type:4, signal:1}", 0, NULL },
		{ "{type:4, signal:64}", 0, NULL },
		{ "{type:4, signal:0}", SE_ERR_RANGE, "signal" },
		{ "{type:4, signal:65}", SE_ERR_RANGE, "signal" },
		{ "{type:4}", SE_ERR_MISSING, "signal" },
		{ "{type:5, exit_code:0}", 0, NULL },
		{ "{type:5, exit_code:255}", 0, NULL },
		{ "{type:5, exit_code:256}", SE_ERR_RANGE, "exit_code" },
		{ "{type:5, exit_code:-1}", SE_ERR_RANGE, "exit_code" },
		{ "{type:5, signal:9, core:true, error:\"x\"}", 0, NULL },
		{ "{type:5, signal:9, core:1}", SE_ERR_TYPE, "core" },
		{ "{type:5}", SE_ERR_MISSING, "exit_code" },
		{ "{type:5, core:false}", SE_ERR_MISSING, "exit_code" },
		{ "{type:5, exit_code:0, signal:9}", SE_ERR_RANGE, "signal" },
		{ "{type:6, message:\"no\"}", 0, NULL },
		{ "{type:6, message:\"\"}", 0, NULL },
		{ "{type:6}", SE_ERR_MISSING, "message" },
		{ "{type:6, message:nil}", SE_ERR_TYPE, "message" },
		{ "{type:7, signal:20}", 0, NULL },
		{ "{type:7}", SE_ERR_MISSING, "signal" },
		{ "{type:7, signal:0}", SE_ERR_RANGE, "signal" },
		{ "{type:8, signal:20}", SE_ERR_RANGE, "type" },
		{ "{type:2, action:0} #c0", SE_ERR_TRAILING, NULL },
		{ "{type:2, action:0} {}", SE_ERR_TRAILING, NULL },
		{ "{}", SE_ERR_MISSING, "type" },
		{ "[1]", SE_ERR_TYPE, NULL },
		{ "\"type\"", SE_ERR_TYPE, NULL },
		{ "#c1", SE_ERR_MALFORMED, NULL },
		{ "#dfffffffff", SE_ERR_MALFORMED, NULL },
		{ "#82a47479706502", SE_ERR_MALFORMED, NULL },
	};

	for (size_t i = 0; i < N(cases); i++) {
		size_t len;
		uint8_t *buf = th_mp(&len, "%s", cases[i].spec);

		check_decode(buf, len, &cases[i], i);
		free(buf);
	}
}

/* Texts may be SHELLESC_REASON_MAX bytes, not one more. */
Test(msg, text_length_limit)
{
	static const char *const specs[] = {
		"{type:2, action:0, reason:", "{type:5, exit_code:0, error:", "{type:6, message:",
	};
	static const char *const keys[] = { "reason", "error", "message" };
	char *text = malloc(SHELLESC_REASON_MAX + 2);

	for (size_t i = 0; i < N(specs); i++)
		for (int extra = 0; extra < 2; extra++) {
			size_t len;
			uint8_t *buf;

			memset(text, 't', SHELLESC_REASON_MAX + extra);
			text[SHELLESC_REASON_MAX + extra] = '\0';
			buf = th_mp(&len, "%s\"%s\"}", specs[i], text);
			check_decode(buf, len, &(struct bad_case){ specs[i],
			    extra ? SE_ERR_RANGE : 0, extra ? keys[i] : NULL }, i);
			free(buf);
		}
	free(text);
}
