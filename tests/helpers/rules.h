/* test-rules.h: helpers shared by the rules engine's suites (test-rules*.c). */
#ifndef SHELLESC_TEST_RULES_H
#define SHELLESC_TEST_RULES_H

#include <stddef.h>

#include <rules.h>	/* the engine's (server/rules), not this file */

/* A set with text loaded (named "t"); asserts that it loads. */
struct rules *tr_load(const char *text);

/* Load text into r; asserts success, naming the error if not. */
void tr_add(struct rules *r, const char *text);

/* Decide program with the arguments after it (NULL-terminated); argv[0]
 * is program's basename. */
enum rules_decision tr_decide(const struct rules *r, unsigned flags,
    const char *program, ...) __attribute__((sentinel));

/* dir/name in one of 16 static buffers, reused in turn (no free). */
const char *tr_at(const char *dir, const char *name);

/* A fresh directory under $TMPDIR (or /tmp); free with tr_rmtree. */
char *tr_tmpdir(void);
/* Remove dir and everything under it, then free it. */
void tr_rmtree(char *dir);

/* dir/name, malloc'd. */
char *tr_path(const char *dir, const char *name);
/* Write (replace) a file with text. */
void tr_write_file(const char *path, const char *text);
/* A file's content, NUL-terminated, malloc'd. */
char *tr_read_file(const char *path, size_t *len);

#endif
