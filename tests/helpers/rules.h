/* test-rules.h: helpers shared by the rules engine's suites (test-rules*.c). */
#ifndef SHELLESC_TEST_RULES_H
#define SHELLESC_TEST_RULES_H

#include <stddef.h>

#include <rules.h>	/* the engine's (server/rules), not this file */

/* A set with text loaded (named "t"); asserts that it loads. */
struct rules *tr_load(const char *text);

/* Load text (as "f.rules") into r with every report it makes collected in
 * tr_reports (at most TR_NREPORTS) and its first error in tr_error;
 * rules_load_text's return value. */
#define TR_NREPORTS 64
extern struct rules_error tr_reports[TR_NREPORTS];
extern size_t tr_nreports;
extern struct rules_error tr_error;
int tr_load_reported(struct rules *r, const char *text);

/* Load text into r; asserts success, naming the error if not. */
void tr_add(struct rules *r, const char *text);

/* Decide program with the arguments after it (NULL-terminated); argv[0]
 * is program's basename. */
enum rules_decision tr_decide(const struct rules *r, unsigned flags,
    const char *program, ...) __attribute__((sentinel));

#endif
