/* test-mpread.c: suite mpread (the reader alone, against msgpack-c, and fuzzed). */
#include "config.h"

#include <criterion/criterion.h>
#include <msgpack.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "err.h"
#include "frame.h"
#include "helpers/base.h"
#include "mpread.h"
#include "msg.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Apply one reader call ('i' int, 'm' map, 'a' array, 'b' bytes, 'B' bool, 's' skip). */
static int
mp_op(struct mpr *r, char op, int64_t *v)
{
	const char *p;
	uint32_t n = 0;
	bool b = false;
	int e;

	switch (op) {
	case 'i':
		return mpr_int(r, v);
	case 'B':
		e = mpr_bool(r, &b);
		*v = b;
		return e;
	case 's':
		return mpr_skip(r);
	default:
		e = op == 'm' ? mpr_map(r, &n) : op == 'a' ? mpr_array(r, &n) :
		    mpr_bytes(r, &p, &n);
		*v = n;
		return e;
	}
}

Test(mpread, reads_each_type)
{
	static const struct {
		const char *hex;
		char op;
		int want;
		int64_t v;	/* value, count or length */
		size_t used;	/* bytes consumed on success */
	} cases[] = {
		{ "00", 'i', 0, 0, 1 }, { "7f", 'i', 0, 127, 1 },
		{ "ff", 'i', 0, -1, 1 }, { "e0", 'i', 0, -32, 1 },
		{ "cc ff", 'i', 0, 255, 2 }, { "cd 01 00", 'i', 0, 256, 3 },
		{ "ce ff ff ff ff", 'i', 0, 4294967295, 5 },
		{ "cf 7f ff ff ff ff ff ff ff", 'i', 0, INT64_MAX, 9 },
		{ "cf 80 00 00 00 00 00 00 00", 'i', SE_ERR_RANGE, 0, 0 },
		{ "d0 80", 'i', 0, -128, 2 }, { "d0 7f", 'i', 0, 127, 2 },
		{ "d1 80 00", 'i', 0, -32768, 3 }, { "d1 ff fe", 'i', 0, -2, 3 },
		{ "d2 80 00 00 00", 'i', 0, INT32_MIN, 5 },
		{ "d3 80 00 00 00 00 00 00 00", 'i', 0, INT64_MIN, 9 },
		{ "cd 01", 'i', SE_ERR_MALFORMED, 0, 0 }, { "cf", 'i', SE_ERR_MALFORMED, 0, 0 },
		{ "a1 41", 'i', SE_ERR_TYPE, 0, 0 }, { "c0", 'i', SE_ERR_TYPE, 0, 0 },
		{ "ca 00 00 00 00", 'i', SE_ERR_TYPE, 0, 0 },
		{ "c1", 'i', SE_ERR_MALFORMED, 0, 0 }, { "", 'i', SE_ERR_MALFORMED, 0, 0 },
		{ "a3 61 62 63", 'b', 0, 3, 4 }, { "a0", 'b', 0, 0, 1 },
		{ "d9 03 61 62 63", 'b', 0, 3, 5 }, { "da 00 03 61 62 63", 'b', 0, 3, 6 },
		{ "db 00 00 00 03 61 62 63", 'b', 0, 3, 8 },
		{ "c4 03 61 00 63", 'b', 0, 3, 5 }, { "c5 00 01 ff", 'b', 0, 1, 4 },
		{ "c6 00 00 00 01 ff", 'b', 0, 1, 6 },
		{ "a3 61 62", 'b', SE_ERR_MALFORMED, 0, 0 },
		{ "c6 ff ff ff ff 00", 'b', SE_ERR_MALFORMED, 0, 0 },
		{ "d9", 'b', SE_ERR_MALFORMED, 0, 0 }, { "da 00", 'b', SE_ERR_MALFORMED, 0, 0 },
		{ "01", 'b', SE_ERR_TYPE, 0, 0 }, { "90", 'b', SE_ERR_TYPE, 0, 0 },
		{ "80", 'm', 0, 0, 1 }, { "81 01 02", 'm', 0, 1, 1 },
		{ "de 00 01 01 02", 'm', 0, 1, 3 }, { "df 00 00 00 01 01 02", 'm', 0, 1, 5 },
		{ "df ff ff ff ff 01", 'm', SE_ERR_MALFORMED, 0, 0 },
		{ "8f 01", 'm', SE_ERR_MALFORMED, 0, 0 }, { "91 01", 'm', SE_ERR_TYPE, 0, 0 },
		{ "90", 'a', 0, 0, 1 }, { "93 01 02 03", 'a', 0, 3, 1 },
		{ "dc 00 02 01 02", 'a', 0, 2, 3 }, { "dd 00 00 00 01 c0", 'a', 0, 1, 5 },
		{ "94 01 02 03", 'a', SE_ERR_MALFORMED, 0, 0 },
		{ "dd ff ff ff ff", 'a', SE_ERR_MALFORMED, 0, 0 },
		{ "dc ff", 'a', SE_ERR_MALFORMED, 0, 0 }, { "80", 'a', SE_ERR_TYPE, 0, 0 },
		{ "c2", 'B', 0, 0, 1 }, { "c3", 'B', 0, 1, 1 }, { "00", 'B', SE_ERR_TYPE, 0, 0 },
		{ "c0", 's', 0, 0, 1 }, { "ca 00 00 00 00", 's', 0, 0, 5 },
		{ "cb 00 00 00 00 00 00 00 00", 's', 0, 0, 9 },
		{ "d4 01 00", 's', 0, 0, 3 },
		{ "d8 01 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00", 's', 0, 0, 18 },
		{ "c7 02 01 aa bb", 's', 0, 0, 5 }, { "c8 00 01 01 aa", 's', 0, 0, 5 },
		{ "c9 00 00 00 00 01", 's', 0, 0, 6 },
		{ "92 81 a1 61 90 c0 01", 's', 0, 0, 6 },
		{ "c7 05 01 00", 's', SE_ERR_MALFORMED, 0, 0 },
		{ "d8 01 00", 's', SE_ERR_MALFORMED, 0, 0 },
		{ "dd 00 00 00 02 01", 's', SE_ERR_MALFORMED, 0, 0 },
		{ "c1", 's', SE_ERR_MALFORMED, 0, 0 }, { "91 c1", 's', SE_ERR_MALFORMED, 0, 0 },
		{ "81 01", 's', SE_ERR_MALFORMED, 0, 0 },
		{ "df 7f ff ff ff c0", 's', SE_ERR_MALFORMED, 0, 0 },
	};

	for (size_t i = 0; i < N(cases); i++) {
		uint8_t *buf = malloc(64);	/* exact-size copy for the sanitizers */
		size_t len = th_hex(cases[i].hex, buf, 64);
		int64_t v = 0;
		struct mpr r;
		int e;

		buf = realloc(buf, len ? len : 1);
		mpr_init(&r, buf, len);
		e = mp_op(&r, cases[i].op, &v);
		cr_assert_eq(e, cases[i].want, "case %zu (%s): %s", i, cases[i].hex, se_strerror(e));
		if (e == 0)
			cr_assert(v == cases[i].v && (size_t)(r.p - buf) == cases[i].used,
			    "case %zu: value %lld, used %td", i, (long long)v, r.p - buf);
		else if (cases[i].op != 's')
			cr_assert(r.p == buf, "case %zu: an error consumes nothing", i);
		if (e == 0)
			cr_assert_eq(mpr_done(&r), cases[i].used == len);
		free(buf);
	}
}

/* Skipping is iterative: a million nested arrays do not overflow the stack. */
Test(mpread, skip_deep_nesting)
{
	enum { DEPTH = 1000000 };
	uint8_t *buf = malloc(DEPTH + 1);
	struct mpr r;

	memset(buf, 0x91, DEPTH);
	buf[DEPTH] = 0xc0;
	mpr_init(&r, buf, DEPTH + 1);
	cr_assert(mpr_skip(&r) == 0 && mpr_done(&r));
	mpr_init(&r, buf, DEPTH);
	cr_assert_eq(mpr_skip(&r), SE_ERR_MALFORMED);
	free(buf);
}

/* --- against msgpack-c --- */

/* buf holds exactly the value that spec describes, byte for byte and as msgpack-c reads it. */
static void
check_same_as(const void *buf, size_t len, const char *spec)
{
	msgpack_unpacked got, want;
	size_t wlen, off = 0, woff = 0;
	uint8_t *wbuf = th_mp(&wlen, "%s", spec);

	msgpack_unpacked_init(&got);
	msgpack_unpacked_init(&want);
	cr_assert_eq(msgpack_unpack_next(&got, buf, len, &off), MSGPACK_UNPACK_SUCCESS, "%s", spec);
	cr_assert_eq(off, len);
	cr_assert_eq(msgpack_unpack_next(&want, (char *)wbuf, wlen, &woff), MSGPACK_UNPACK_SUCCESS);
	cr_assert(msgpack_object_equal(got.data, want.data), "%s", spec);
	cr_assert(len == wlen && memcmp(buf, wbuf, len) == 0, "smallest encodings: %s", spec);
	msgpack_unpacked_destroy(&got);
	msgpack_unpacked_destroy(&want);
	free(wbuf);
}

Test(mpread, msgpack_c_reads_what_we_write)
{
	char *argv[] = { "ls", "-l", "\xff\xfe", NULL }, *env[] = { "A=1", NULL };
	struct msg_exec_out e = { "/bin/ls", "/tmp", argv, env, NULL, 4242, 3 };
	static const char *const replies[] = {
		"{type:2, action:2, reason:\"no\"}",
		"{type:3, fds:[0, 1, 1023]}",
		"{type:4, signal:2}",
		"{type:5, exit_code:3}",
		"{type:5, signal:9, core:true, error:\"e\"}",
		"{type:6, message:\"bad\"}",
	};
	char buf[256];
	struct frame_rx rx;
	size_t len;
	int sv[2];

	cr_assert_eq(msg_pack_exec(buf, sizeof(buf), &len, &e), 0);
	check_same_as(buf, len, "{type:1, file:b\"/bin/ls\", argv:[b\"ls\", b\"-l\", b\"\\xff\\xfe\"],"
	    " cwd:b\"/tmp\", env:[b\"A=1\"], pid:4242, flags:3}");
	th_pair(SOCK_STREAM, sv);
	cr_assert_eq(msg_send_decision(sv[0], SHELLESC_ACT_DENY, "no"), 0);
	cr_assert_eq(msg_send_handover(sv[0], (int[]){ 0, 1, 1023 }, (int[]){ sv[0], sv[0], sv[0] }, 3), 0);
	cr_assert_eq(msg_send_signal(sv[0], 2), 0);
	cr_assert_eq(msg_send_result(sv[0], 3, 0, false, NULL), 0);
	cr_assert_eq(msg_send_result(sv[0], -1, 9, true, "e"), 0);
	cr_assert_eq(msg_send_error(sv[0], "bad"), 0);
	frame_rx_init(&rx, NULL, 0, SHELLESC_MAX_FDS);
	for (size_t i = 0; i < N(replies); i++) {
		cr_assert_eq(frame_recv(sv[1], &rx, 1000), 0);
		check_same_as(rx.buf, rx.len, replies[i]);
		frame_rx_reset(&rx);
	}
}

/* A map packed by msgpack-c, with odd but valid encodings and unknown keys. */
Test(mpread, we_read_what_msgpack_c_writes)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	struct msg_exec x;
	struct msg m;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	msgpack_pack_map(&pk, 12);
	msgpack_pack_int(&pk, 7);			/* int key, nested arrays */
	msgpack_pack_array(&pk, 2);
	msgpack_pack_nil(&pk);
	msgpack_pack_array(&pk, 0);
	msgpack_pack_str_with_body(&pk, "type", 4);
	msgpack_pack_fix_uint64(&pk, 1);		/* not the smallest encoding */
	msgpack_pack_str_with_body(&pk, "file", 4);
	msgpack_pack_str_with_body(&pk, "/bin/sh", 7);	/* str where we write bin */
	msgpack_pack_double(&pk, 2.5);			/* float key, ext value */
	msgpack_pack_ext_with_body(&pk, "\x01\x02\x03", 3, -5);
	msgpack_pack_str_with_body(&pk, "argv", 4);
	msgpack_pack_array(&pk, 2);
	msgpack_pack_bin_with_body(&pk, "sh", 2);
	msgpack_pack_str_with_body(&pk, "-c", 2);
	msgpack_pack_str_with_body(&pk, "cwd", 3);
	msgpack_pack_bin_with_body(&pk, "/", 1);
	msgpack_pack_str_with_body(&pk, "x", 1);
	msgpack_pack_nil(&pk);
	msgpack_pack_str_with_body(&pk, "env", 3);
	msgpack_pack_array(&pk, 0);
	msgpack_pack_str_with_body(&pk, "pid", 3);
	msgpack_pack_fix_int32(&pk, 4242);
	msgpack_pack_str_with_body(&pk, "flags", 5);
	msgpack_pack_fix_uint16(&pk, 2);
	msgpack_pack_bin_with_body(&pk, "y", 1);	/* bin key, fixext16 value */
	msgpack_pack_ext_with_body(&pk, "0123456789abcdef", 16, 1);
	msgpack_pack_float(&pk, 1.5f);			/* float key, nested map */
	msgpack_pack_map(&pk, 1);
	msgpack_pack_str_with_body(&pk, "pid", 3);
	msgpack_pack_array(&pk, 1);
	msgpack_pack_double(&pk, -0.0);

	cr_assert_eq(msg_decode(sb.data, sb.size, &m), 0);
	cr_assert_eq(msg_exec_take(&m, &x), 0);
	cr_assert(x.pid == 4242 && x.flags == 2 && x.argc == 2 && x.envc == 0);
	cr_assert(strcmp(x.file, "/bin/sh") == 0 && strcmp(x.cwd, "/") == 0);
	cr_assert(strcmp(x.argv[0], "sh") == 0 && strcmp(x.argv[1], "-c") == 0);
	msg_exec_free(&x);
	msgpack_sbuffer_destroy(&sb);
}

/* --- random input --- */

/* A random valid value, packed by msgpack-c. */
static void
gen_value(msgpack_packer *pk, uint64_t *rng, int depth)
{
	static const size_t lens[] = { 0, 1, 2, 4, 8, 16, 31, 32, 255, 256, 65535, 65536 };
	static char body[65536];
	uint64_t r = th_rand(rng);
	size_t n = lens[(r >> 8) % N(lens)];

	if (n > 256 && (r >> 16) % 8)	/* the big ones rarely */
		n = (r >> 24) % 40;
	switch (depth > 4 ? r % 9 : r % 11) {
	case 0: msgpack_pack_nil(pk); break;
	case 1: msgpack_pack_true(pk); break;
	case 2: msgpack_pack_uint64(pk, th_rand(rng) >> (r >> 8) % 64); break;
	case 3: msgpack_pack_int64(pk, -(int64_t)(th_rand(rng) >> (1 + (r >> 8) % 63))); break;
	case 4: msgpack_pack_float(pk, 0.5f); break;
	case 5: msgpack_pack_double(pk, (double)r); break;
	case 6: msgpack_pack_str_with_body(pk, body, n); break;
	case 7: msgpack_pack_bin_with_body(pk, body, n); break;
	case 8: msgpack_pack_ext_with_body(pk, body, n, (int8_t)r); break;
	case 9:
		msgpack_pack_array(pk, n %= 20);
		while (n--)
			gen_value(pk, rng, depth + 1);
		break;
	default:
		msgpack_pack_map(pk, n %= 18);
		for (n *= 2; n--; )
			gen_value(pk, rng, depth + 1);
	}
}

/* mpr_skip accepts exactly what msgpack-c accepts, and consumes as much. */
static void
agree_with_msgpack_c(const uint8_t *buf, size_t len, bool whole)
{
	msgpack_unpacked u;
	size_t off = 0;
	struct mpr r;
	int e, ok;

	mpr_init(&r, buf, len);
	e = mpr_skip(&r);
	cr_assert(e == 0 || e == SE_ERR_MALFORMED);
	cr_assert(r.p <= buf + len);
	if (e != 0 && !whole)
		return;		/* msgpack-c might try to allocate a huge count */
	msgpack_unpacked_init(&u);
	ok = msgpack_unpack_next(&u, (const char *)buf, len, &off);
	ok = ok == MSGPACK_UNPACK_SUCCESS || ok == MSGPACK_UNPACK_EXTRA_BYTES;
	cr_assert_eq(e == 0, ok, "mpr_skip %d, msgpack-c %d (len %zu)", e, ok, len);
	if (ok)
		cr_assert_eq((size_t)(r.p - buf), off);
	msgpack_unpacked_destroy(&u);
}

Test(mpread, random_values_agree_with_msgpack_c)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull;

	for (int i = 0; i < 3000; i++) {
		msgpack_sbuffer sb;
		msgpack_packer pk;

		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		gen_value(&pk, &rng, 0);
		agree_with_msgpack_c((uint8_t *)sb.data, sb.size, true);
		for (int k = 0; k < 20; k++)	/* a cut value is malformed */
			agree_with_msgpack_c((uint8_t *)sb.data, th_rand(&rng) % sb.size, true);
		msgpack_sbuffer_destroy(&sb);
	}
}

/* Random unknown keys and values around a valid exec request are skipped. */
Test(mpread, random_unknown_fields_are_ignored)
{
	size_t base_len;
	uint8_t *base = th_mp(&base_len, "{type:1, file:b\"/x\", argv:[], cwd:b\"/\", env:[], pid:5}");
	uint64_t rng = 42;

	for (int i = 0; i < 500; i++) {
		msgpack_sbuffer sb;
		msgpack_packer pk;
		struct msg m;

		msgpack_sbuffer_init(&sb);
		msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
		msgpack_pack_map(&pk, 6 + 4);
		for (int k = 0; k < 4; k++) {
			if (k == 2)	/* the known pairs, without their map header */
				pk.callback(pk.data, (char *)base + 1, base_len - 1);
			gen_value(&pk, &rng, 3);	/* a key: never one of ours */
			gen_value(&pk, &rng, 0);
		}
		cr_assert_eq(msg_decode(sb.data, sb.size, &m), 0, "iteration %d", i);
		cr_assert(m.pid == 5 && m.file.len == 2 && m.argv.n == 0);
		msgpack_sbuffer_destroy(&sb);
	}
	free(base);
}

/* 20000 random mutations of a valid request: never a crash, always 0 or an SE_ERR_*. */
Test(mpread, fuzz_mutated_exec)
{
	static const uint8_t special[] = { 0xc1, 0xdd, 0xdf, 0xdb, 0xc6, 0xff, 0x00, 0x7f,
	    0x80, 0x90, 0xc0, 0xc4, 0xd9, 0xcf, 0xd3, 0xc7 };
	char *argv[] = { "grep", "-r", "\xff\x80", NULL }, *env[] = { "PATH=/bin", "A=", NULL };
	struct msg_exec_out e = { "/bin/grep", "/home", argv, env, NULL, 77, 1 };
	uint8_t base[256];
	size_t base_len, ok = 0;
	uint64_t rng = 1;

	cr_assert_eq(msg_pack_exec(base, sizeof(base), &base_len, &e), 0);
	for (int it = 0; it < 20000; it++) {
		uint8_t *buf = malloc(base_len + 8);
		size_t len = base_len;
		struct msg_exec x;
		struct msg m;
		int r;

		memcpy(buf, base, base_len);
		for (int k = 1 + th_rand(&rng) % 4; k > 0 && len > 0; k--) {
			uint64_t v = th_rand(&rng);
			size_t at = (v >> 8) % len;

			switch (v % 6) {
			case 0: buf[at] = (uint8_t)(v >> 32); break;
			case 1: buf[at] ^= (uint8_t)(1u << (v >> 32) % 8); break;
			case 2: buf[at] = special[(v >> 32) % N(special)]; break;
			case 3: len = at; break;
			case 4: memmove(buf + at + 1, buf + at, len++ - at); buf[at] = (uint8_t)(v >> 40); break;
			default: memmove(buf + at, buf + at + 1, --len - at); break;
			}
		}
		buf = realloc(buf, len ? len : 1);	/* exact size for the sanitizers */
		r = msg_decode(buf, len, &m);
		cr_assert(r <= 0 && r > SE_ERR_MAX_, "iteration %d: %d", it, r);
		agree_with_msgpack_c(buf, len, false);
		if (r == 0 && m.type == SHELLESC_MSG_EXEC) {
			cr_assert_eq(msg_exec_take(&m, &x), 0);
			msg_exec_free(&x);
		}
		ok += r == 0;
		free(buf);
	}
	cr_assert(ok > 100 && ok < 19000, "both outcomes seen (%zu decoded)", ok);
}
