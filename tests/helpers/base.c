/* helpers.c: small utilities shared by the test suites. */
#include "config.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <msgpack.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The header comes with valgrind: a binary built before valgrind was
 * installed learns from the check-valgrind rule's variable instead. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#define TH_HAVE_VALGRIND_H 1
#endif
#endif

#include "err.h"
#include "frame.h"
#include "helpers/base.h"
#include "msg.h"

static bool
th_under_valgrind(void)
{
#ifdef TH_HAVE_VALGRIND_H
	return RUNNING_ON_VALGRIND;
#else
	return getenv("SHELLESC_UNDER_VALGRIND") != NULL;
#endif
}

int
th_slowdown(void)
{
	return th_under_valgrind() ? TH_VALGRIND_SLOWDOWN : 1;
}

int
th_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the DIR's own fd */
}

void
th_pair(int type, int sv[2])
{
	cr_assert_eq(socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv), 0);
}

int
th_fd_open(int fd)
{
	return fcntl(fd, F_GETFD) != -1;
}

void
th_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	cr_assert(fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0);
}

void
th_pipe(int p[2])
{
	cr_assert_eq(pipe2(p, O_CLOEXEC), 0);
}

void
th_null_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cr_assert((fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0);
}

void
th_close_fds(int *fds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

int
th_same_file(int a, int b)
{
	struct stat sa, sb;

	cr_assert(fstat(a, &sa) == 0 && fstat(b, &sb) == 0);
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool
th_has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, line, n) == 0 && (l[n] == '\n' || l[n] == '\0'))
			return true;
	return false;
}

void
th_write(int fd, const void *p, size_t n)
{
	cr_assert_eq(write(fd, p, n), (ssize_t)n);
}

void
th_check_pipe(int w, int r)
{
	char buf[16] = "";

	th_write(w, "through", 8);
	cr_assert_eq(read(r, buf, sizeof(buf)), 8);
	cr_assert_str_eq(buf, "through");
}

pid_t
th_spawn(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0)
		_exit(fn(arg) == 0 ? 0 : 1);
	return pid;
}

void
th_reap(pid_t pid)
{
	int st;

	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child status %#x", st);
}

int
th_recv_msg(int sock, struct frame_rx *rx, size_t maxfds, struct msg *m)
{
	int r;

	frame_rx_init(rx, NULL, 0, maxfds);
	if ((r = frame_recv(sock, rx, 5000)) != 0)
		return r;
	return msg_decode(rx->buf, rx->len, m);
}

size_t
th_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	unsigned v;

	for (; *hex; hex++) {
		if (*hex == ' ')
			continue;
		cr_assert(n < cap && sscanf(hex, "%2x", &v) == 1, "bad hex %s", hex);
		out[n++] = (uint8_t)v;
		hex++;
	}
	return n;
}

uint64_t
th_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ull;
}

/* --- th_mp: a tiny text notation for MessagePack --- */

static void th_mp_value(const char **s, msgpack_packer *pk);

static void
th_mp_ws(const char **s)
{
	while (isspace((unsigned char)**s))
		(*s)++;
}

/* A quoted body at *s (on the quote) into out; returns its length. */
static size_t
th_mp_quoted(const char **s, char *out)
{
	size_t n = 0;
	unsigned v;

	cr_assert_eq(**s, '"', "quote expected at: %s", *s);
	for ((*s)++; **s != '"'; n++) {
		cr_assert(**s != '\0', "unterminated string");
		if ((*s)[0] == '\\' && (*s)[1] == 'x') {
			cr_assert(sscanf(*s + 2, "%2x", &v) == 1);
			out[n] = (char)v;
			*s += 4;
		} else {
			*s += (*s)[0] == '\\';
			out[n] = *(*s)++;
		}
	}
	(*s)++;
	return n;
}

/* A map or array: pack the elements apart to count them, then the header. */
static void
th_mp_container(const char **s, msgpack_packer *pk)
{
	char close = **s == '{' ? '}' : ']';
	msgpack_sbuffer sb;
	msgpack_packer sub;
	size_t n = 0;

	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&sub, &sb, msgpack_sbuffer_write);
	for ((*s)++, th_mp_ws(s); **s != close; n++, th_mp_ws(s)) {
		th_mp_value(s, &sub);
		th_mp_ws(s);
		if (close == '}') {
			cr_assert_eq(**s, ':', "':' expected at: %s", *s);
			(*s)++;
			th_mp_value(s, &sub);
			th_mp_ws(s);
		}
		if (**s == ',')
			(*s)++;
	}
	(*s)++;
	if (close == '}')
		msgpack_pack_map(pk, n);
	else
		msgpack_pack_array(pk, n);
	pk->callback(pk->data, sb.data, sb.size);
	msgpack_sbuffer_destroy(&sb);
}

static void
th_mp_number(const char **s, msgpack_packer *pk)
{
	char *end;
	double d = strtod(*s, &end);
	size_t n = strspn(*s, "-0123456789");

	if (end > *s + n)
		msgpack_pack_double(pk, d);
	else if (**s == '-')
		msgpack_pack_int64(pk, strtoll(*s, &end, 10));
	else
		msgpack_pack_uint64(pk, strtoull(*s, &end, 10));
	*s = end;
}

static void
th_mp_value(const char **s, msgpack_packer *pk)
{
	char *text = malloc(strlen(*s) + 1);
	uint8_t raw[256];
	size_t n;

	cr_assert_not_null(text);
	th_mp_ws(s);
	if (**s == '{' || **s == '[')
		th_mp_container(s, pk);
	else if (**s == '"') {
		n = th_mp_quoted(s, text);
		msgpack_pack_str_with_body(pk, text, n);
	} else if ((**s == 'b' || **s == 'e') && (*s)[1] == '"') {
		int ext = *(*s)++ == 'e';

		n = th_mp_quoted(s, text);
		if (ext)
			msgpack_pack_ext_with_body(pk, text, n, 7);
		else
			msgpack_pack_bin_with_body(pk, text, n);
	} else if (**s == '#') {
		n = strspn(++*s, "0123456789abcdefABCDEF");
		memcpy(text, *s, n);
		text[n] = '\0';
		*s += n;
		n = th_hex(text, raw, sizeof(raw));
		pk->callback(pk->data, (const char *)raw, n);
	} else if (**s == '-' || isdigit((unsigned char)**s))
		th_mp_number(s, pk);
	else {
		n = strspn(*s, "abcdefghijklmnopqrstuvwxyz_0123456789");
		cr_assert(n > 0, "bad spec at: %s", *s);
		if (n == 3 && strncmp(*s, "nil", 3) == 0)
			msgpack_pack_nil(pk);
		else if (n == 4 && strncmp(*s, "true", 4) == 0)
			msgpack_pack_true(pk);
		else if (n == 5 && strncmp(*s, "false", 5) == 0)
			msgpack_pack_false(pk);
		else
			msgpack_pack_str_with_body(pk, *s, n);
		*s += n;
	}
	free(text);
}

uint8_t *
th_mp(size_t *len, const char *fmt, ...)
{
	msgpack_sbuffer sb;
	msgpack_packer pk;
	va_list ap;
	char *spec;
	const char *s;

	va_start(ap, fmt);
	cr_assert(vasprintf(&spec, fmt, ap) >= 0);
	va_end(ap);
	msgpack_sbuffer_init(&sb);
	msgpack_packer_init(&pk, &sb, msgpack_sbuffer_write);
	for (s = spec, th_mp_ws(&s); *s; th_mp_ws(&s))
		th_mp_value(&s, &pk);
	free(spec);
	*len = sb.size;
	return (uint8_t *)msgpack_sbuffer_release(&sb);
}
