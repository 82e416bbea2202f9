/*
 * script.h: the fallback every exec path shares.  A file that is
 * executable but has no #! line fails execve with ENOEXEC; execvp(3) and
 * shells then run it with /bin/sh (bash with itself), and so do the
 * wrapper, the server and the preload.  Async-signal-safe: the caller
 * provides the array.
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

/* out[] = { shell, file, argv[1], ..., NULL }, script_slots(argv) entries;
 * shell is SCRIPT_SHELL but where a patched shell named itself. */
void script_argv(char **out, const char *shell, const char *file, char *const *argv);

/* An exec function: execve(2) as the raw system call or the real one. */
typedef int (*script_execve_fn)(const char *, char *const[], char *const[]);

/*
 * Run file as a shell runs a command: exec it in place with ex, and a file
 * without #! (ENOEXEC, not binary) under shell.  Returns only on failure:
 * the errno, with *why the message a shell prints for it.
 */
int script_run(script_execve_fn ex, const char *file, char *const argv[], char *const env[],
    const char *shell, const char **why);

/*
 * ex(file, argv, env), again while it fails with EINTR: under the kernel
 * layer an exec waits for the server in a seccomp notification, and a
 * signal caught meanwhile by a handler without SA_RESTART ends that wait
 * with EINTR, which no program expects of execve.  Returns only on failure.
 */
int script_execve(script_execve_fn ex, const char *file, char *const argv[], char *const env[]);

/* The exit status a shell gives a command that failed to exec with e. */
int script_status(int e);

#endif /* SHELLESC_SCRIPT_H */
