/* helpers/base.c: small utilities shared by the test suites (th_). */
#include "config.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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
th_try_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1;	/* the DIR's own fd */
}

int
th_count_fds(void)
{
	int n = th_try_count_fds();

	cr_assert_geq(n, 0, "opendir /proc/self/fd: %s", strerror(errno));
	return n;
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

bool
th_line_starts(const char *text, const char *prefix)
{
	size_t n = strlen(prefix);

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
		if (strncmp(l, prefix, n) == 0)
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

/* --- files ---------------------------------------------------------------- */

const char *
th_at(const char *dir, const char *name)
{
	static char ring[16][4096];
	static unsigned n;
	char *p = ring[n++ % 16];

	cr_assert_lt((size_t)snprintf(p, sizeof(ring[0]), "%s/%s", dir, name), sizeof(ring[0]));
	return p;
}

char *
th_path(const char *dir, const char *name)
{
	char *p;

	cr_assert(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

bool
th_exists(const char *dir, const char *name)
{
	return access(th_at(dir, name), F_OK) == 0;
}

char *
th_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir = th_path(base && *base ? base : "/tmp", "shellesc-test-XXXXXX");

	cr_assert_not_null(mkdtemp(dir), "mkdtemp %s: %s", dir, strerror(errno));
	return dir;
}

static int
th_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

void
th_rmtree(char *dir)
{
	cr_assert_eq(nftw(dir, th_rm, 16, FTW_DEPTH | FTW_PHYS), 0, "rm -r %s", dir);
	free(dir);
}

char *th_suite_dir;

void
th_suite_dir_new(void)
{
	th_suite_dir = th_tmpdir();
}

void
th_suite_dir_end(void)
{
	th_rmtree(th_suite_dir);
	th_suite_dir = NULL;
}

void
th_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
	cr_assert_eq(fclose(f), 0);
}

void
th_put(const char *dir, const char *name, const char *text, mode_t mode)
{
	const char *path = th_at(dir, name);

	if (text == NULL)
		cr_assert_eq(mkdir(path, mode), 0, "mkdir %s: %s", path, strerror(errno));
	else
		th_write_file(path, text);
	cr_assert_eq(chmod(path, mode), 0, "chmod %s", path);
}

char *
th_read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t n = 0, cap = 4096;
	char *buf = malloc(cap);
	ssize_t r;

	cr_assert(fd >= 0 && buf != NULL, "%s: %s", path, strerror(errno));
	while ((r = read(fd, buf + n, cap - n - 1)) != 0) {
		cr_assert(r > 0 || errno == EINTR, "read %s: %s", path, strerror(errno));
		n += r > 0 ? (size_t)r : 0;
		if (cap - n == 1)
			cr_assert_not_null(buf = realloc(buf, cap *= 2));
	}
	close(fd);
	buf[n] = '\0';
	if (len != NULL)
		*len = n;
	return buf;
}

void
th_copy_file(const char *from, const char *to, mode_t mode)
{
	size_t len;
	char *data = th_read_file(from, &len);
	FILE *f = fopen(to, "w");

	cr_assert_not_null(f, "%s: %s", to, strerror(errno));
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(chmod(to, mode), 0);
	free(data);
}

char *
th_subst(const char *text, const char *pattern, const char *with)
{
	size_t plen = strlen(pattern), wlen = strlen(with), n = strlen(text) + 1;
	char *out, *o;

	cr_assert_gt(plen, 0);
	for (const char *p = text; (p = strstr(p, pattern)) != NULL; p += plen)
		n += wlen;	/* over-counts by plen a match: room to spare */
	cr_assert_not_null(o = out = malloc(n));
	for (const char *p; (p = strstr(text, pattern)) != NULL; text = p + plen)
		o = stpcpy(mempcpy(o, text, (size_t)(p - text)), with);
	strcpy(o, text);
	return out;
}

void
th_go_build(const char *dir, const char *name, const char *source)
{
	char cmd[8192], src[4200];

	if (access("/usr/bin/go", X_OK) != 0)
		cr_skip_test("golang-go is not installed (./bootstrap installs it): no Go program to run");
	snprintf(src, sizeof(src), "%s/%s.go", dir, name);
	th_write_file(src, source);
	snprintf(cmd, sizeof(cmd), "cd '%s' && HOME='%s' GOCACHE='%s/gocache' GOPATH='%s/gopath' "
	    "CGO_ENABLED=0 GOFLAGS= GO111MODULE=off PATH=/usr/bin:/bin "
	    "go build -o '%s' '%s.go' 2>&1", dir, dir, dir, dir, name, name);
	cr_assert_eq(system(cmd), 0, "go build failed: %s", cmd);
}
