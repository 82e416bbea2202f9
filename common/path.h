/*
 * path.h: the two path rules every part applies the same way, so that what
 * one part decides on is what another part runs.  Malloc-free and
 * async-signal-safe: the preload calls them in vfork children.
 *
 * Results: path_executable and path_search return 0 or the positive errno
 * value an exec would fail with, as execve(2) and execvp(3) report it in
 * errno: that value is what they found out, not a failure of theirs
 * (common/'s own failures are SE_ERR_* codes, err.h).  The others cannot
 * fail but by length.
 */
#ifndef SHELLESC_PATH_H
#define SHELLESC_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* PATH when the environment has none: glibc's confstr(_CS_PATH). */
#define PATH_DEFAULT	"/bin:/usr/bin"

/*
 * Clean path in place, lexically: repeated '/' and "." components go, a
 * trailing '/' goes; an absolute path stays absolute ("/" at least), a
 * relative one relative ("." at least).  ".." is kept: with symlinks, "a/../b" is not "b", and the
 * path decided on must name what the kernel would execute.  No "~".
 */
void path_clean(char *path);

/*
 * The absolute, cleaned form of file (taken relative to cwd unless it
 * starts with '/') written into out[size].  Returns its length, or 0 when
 * it does not fit (out then holds "").  size >= strlen(cwd) +
 * strlen(file) + 3 always suffices.
 */
size_t path_absolute(char *out, size_t size, const char *cwd, const char *file);

/*
 * What execve(2) of path would say before it loads anything, found out
 * without running it: 0 for a regular file this process may execute
 * (faccessat with AT_EACCESS, as the kernel checks), else the errno value
 * (EACCES for anything but a regular file).  The preload asks the server
 * only about a candidate that passes; shellesc check names the first one
 * that passes.
 */
int path_executable(const char *path);

/*
 * The entries of a PATH value, in order, each copied into the caller's
 * buffer: the one splitting of PATH every part uses.  Entries are what
 * lies between ':'s, so a leading or trailing ':' or "::" is an empty
 * entry, and "" is one empty entry.  Two uses:
 *
 *  - the exec search (flags 0): every entry, an empty one meaning the
 *    current directory, as execvp(3) takes them;
 *  - a trusted PATH (PATH_ABSOLUTE): only entries that start with '/'.
 *    An empty or relative entry would search whatever directory the
 *    caller happens to be in, which a sandboxed caller chooses.
 *
 * With file (not NULL) each result is the candidate "ENTRY/FILE" (just
 * "FILE" for an empty entry), else the entry itself.  An entry whose
 * result does not fit in size bytes (with its NUL) is skipped, as glibc
 * skips entries too long for PATH_MAX: no shortened path names another
 * file.  path NULL has no entries; the iterator points into path and file,
 * which must outlive it.
 */
#define PATH_ABSOLUTE	0x1

struct path_iter {
	const char *rest;	/* the entries not yet read; NULL at the end */
	const char *file;	/* appended to each entry, or NULL */
	size_t flen;
	unsigned flags;
};

void path_iter_init(struct path_iter *it, const char *path, const char *file,
    unsigned flags);

/* The next result written into buf[size] (NUL-terminated): true, or false
 * when no entry is left (buf is then unchanged). */
bool path_next(struct path_iter *it, char *buf, size_t size);

/*
 * Search for file as glibc's execvp(), execvpe() and posix_spawnp() do:
 * file containing '/' is tried as it is; otherwise each entry of path (a
 * PATH value; NULL means PATH_DEFAULT) in turn, an empty entry meaning the
 * current directory, entries too long for PATH_MAX skipped.  try(candidate,
 * arg) returns 0 to end the search (the candidate was taken, or the caller
 * stops there for a reason it keeps in arg) or the errno value that
 * candidate fails with; the search goes on past EACCES, ENOENT, ENOTDIR,
 * ESTALE, ENODEV and ETIMEDOUT, and ends at any other.  Returns 0, or the
 * errno the search ended with (EACCES when some candidate gave EACCES and
 * none succeeded; ENOENT for an empty file, ENAMETOOLONG for one longer
 * than NAME_MAX).
 */
int path_search(const char *path, const char *file,
    int (*try)(const char *candidate, void *arg), void *arg);

#endif /* SHELLESC_PATH_H */
