/*
 * tests/helpers/trust.h: the world of a trust test (tt_).  The suite's
 * unprivileged user u runs the sandboxed side under --sandbox landlock
 * with SBX (u's) writable; OUT (mode 1777) lies outside, so only Landlock
 * keeps u from writing there.  The wrapper, the preload, forge-ask and the
 * static raw-exec are copied where u can reach them, and t's environment
 * names the copies of the first two.
 */
#ifndef SHELLESC_TESTS_TRUST_H
#define SHELLESC_TESTS_TRUST_H

#include "helpers/cli.h"
#include "helpers/user.h"

struct tt {
	struct tc t;
	struct tc_res r;
	struct tu_user u;
	char *sbx, *out;
	char *wrapper, *preload, *forge, *raw;	/* preload, raw: NULL if not built */
	char *env_wrapper, *env_preload;
};

/* file copied where u can reach it (malloc'd path). */
char *tt_reachable(struct tt *w, const char *file);
/* A suite's .init and .fini: of w, or (tt_suite_*) of tt_world. */
void tt_setup(struct tt *w);
void tt_teardown(struct tt *w);
extern struct tt tt_world;
void tt_suite_init(void);
void tt_suite_fini(void);
/* Skip the test (after tt_teardown) with why. */
void tt_skip(struct tt *w, const char *why) __attribute__((noreturn));
/* Skip unless the kernel has Landlock and the unprivileged user is there. */
void tt_need_sandbox(struct tt *w);
/* shellesc OPTS... -- bash -c cmd, the bash (and all it runs) as u
 * (setpriv, when the suite made u); opts NULL-terminated, at most 32. */
void tt_run(struct tt *w, const char *const *opts, const char *cmd);
/* The dynamic loader of this machine, or NULL. */
const char *tt_loader(void);
/* SBX/name, u's, mode 0755, text with each @OUT@ replaced by OUT; the
 * path, in a static buffer. */
const char *tt_sbx_file(struct tt *w, const char *name, const char *text);

#endif
