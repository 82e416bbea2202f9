/* helpers/base.h: small utilities shared by the test suites (th_). */
#ifndef SHELLESC_TEST_HELPERS_H
#define SHELLESC_TEST_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct frame_rx;
struct msg;

/*
 * The factor by which timing-bound tests stretch their delays and limits, or
 * cut their repetitions: 1, or TH_VALGRIND_SLOWDOWN under valgrind.  Memcheck measured on 2 busy
 * cores: a run request 7x slower than natively, an escalation 14x, a
 * thread's creation more (valgrind runs one thread at a time).
 */
#define TH_VALGRIND_SLOWDOWN 10
int th_slowdown(void);

/* Number of open fds in this process (counts /proc/self/fd entries). */
int th_count_fds(void);
/* The same, or -1 when the directory cannot be opened (the fd table is full). */
int th_try_count_fds(void);

/* A SOCK_STREAM or SOCK_DGRAM AF_UNIX socketpair (CLOEXEC); asserts success. */
void th_pair(int type, int sv[2]);

/* True when fd is open. */
int th_fd_open(int fd);

/* Set O_NONBLOCK on fd. */
void th_nonblock(int fd);

/* A CLOEXEC pipe; asserts success. */
void th_pipe(int p[2]);

/* n fds open on /dev/null; th_close_fds() closes them. */
void th_null_fds(int *fds, size_t n);
void th_close_fds(int *fds, size_t n);

/* True when fds a and b are the same open file (same device and inode). */
int th_same_file(int a, int b);

/* Assert that bytes written to w come out of r (e.g. a received pipe end). */
void th_check_pipe(int w, int r);

/* Does text hold line, a whole line of it? */
bool th_has_line(const char *text, const char *line);
/* Does a line of text start with prefix (e.g. "NAME=" in env(1)'s output)? */
bool th_line_starts(const char *text, const char *prefix);

/* write(2) all of p, asserting success. */
void th_write(int fd, const void *p, size_t n);

/*
 * Run fn(arg) in a forked child (to feed a socket while the test reads it);
 * the child exits 0 when fn returns 0.  th_reap() asserts that it did.
 */
pid_t th_spawn(int (*fn)(void *), void *arg);
void th_reap(pid_t pid);

/* Receive one frame into a heap rx (maxfds fds) and decode it. Returns the first error. */
int th_recv_msg(int sock, struct frame_rx *rx, size_t maxfds, struct msg *m);

/* Hex digits (spaces ignored) to bytes; returns the count. */
size_t th_hex(const char *hex, uint8_t *out, size_t cap);

/* Deterministic pseudo-random numbers (xorshift64*). */
uint64_t th_rand(uint64_t *state);

/*
 * Build MessagePack from a compact text (printf-formatted first) with
 * msgpack-c's packer.  Values: {k: v, ...}  [v, ...]  "str"  b"bin"  e"ext"
 * (type 7)  123  -4  1.5  nil  true  false  bare_word (a str)  #c1ff (raw
 * bytes, counted as one element).  Quoted text takes \xNN, \" and \\.
 * Several top-level values are concatenated.  Returns a malloc'd buffer.
 */
uint8_t *th_mp(size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Files.  Each asserts success (a test that cannot set up fails, naming the
 * file and errno) rather than returning an error.
 */
/* dir/name in one of 16 static buffers, reused in turn (no free). */
const char *th_at(const char *dir, const char *name);
/* dir/name, malloc'd. */
char *th_path(const char *dir, const char *name);
/* Does dir/name exist (access F_OK: a dangling symlink does not)? */
bool th_exists(const char *dir, const char *name);
/* A fresh directory (mode 0700) under $TMPDIR, or /tmp; th_rmtree() it. */
char *th_tmpdir(void);
/* Remove dir and everything under it, then free it. */
void th_rmtree(char *dir);
/* A suite's scratch directory: th_suite_dir is a fresh th_tmpdir() for
 * each test of a suite with .init = th_suite_dir_new, .fini =
 * th_suite_dir_end. */
extern char *th_suite_dir;
void th_suite_dir_new(void);
void th_suite_dir_end(void);
/* Write (create or replace) a file with text. */
void th_write_file(const char *path, const char *text);
/* dir/name with mode: a directory when text is NULL, else a file with text. */
void th_put(const char *dir, const char *name, const char *text, mode_t mode);
/* A whole file, of any size and any bytes, NUL-terminated (the NUL not in *len), malloc'd. */
char *th_read_file(const char *path, size_t *len);
/* cp from to, then chmod mode. */
void th_copy_file(const char *from, const char *to, mode_t mode);
/* dir/name built by go from source (written to dir/name.go), with Go's
 * caches in dir; skips the test where golang-go is not installed. */
void th_go_build(const char *dir, const char *name, const char *source);
/* text with every pattern (not empty) replaced by with, malloc'd. */
char *th_subst(const char *text, const char *pattern, const char *with);

#endif
