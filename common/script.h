/*
 * script.h: the fallback every exec path shares.  A file that is
 * executable but has no #! line fails execve with ENOEXEC; execvp(3) and
 * shells then run it with /bin/sh, and so do the wrapper, the server and
 * the preload.  Async-signal-safe: the caller provides the array.
 */
#ifndef SHELLESC_SCRIPT_H
#define SHELLESC_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>

#define SCRIPT_SHELL "/bin/sh"

/*
 * Is path a binary file, which no shell would run as a script?  As bash
 * and zsh decide it: a NUL byte before the first newline of its first 80
 * bytes.  An unreadable file counts as not binary.
 */
bool script_is_binary(const char *path);

/* How many slots script_argv() fills for argv (argv may be NULL). */
size_t script_slots(char *const *argv);

/* out[] = { "/bin/sh", file, argv[1], ..., NULL }, script_slots(argv) entries. */
void script_argv(char **out, const char *file, char *const *argv);

#endif /* SHELLESC_SCRIPT_H */
