/*
 * preload-helpers.h: real programs run under a session with
 * libshellesc_preload.so, or the same way without it (the baseline the
 * preload must be invisible against), for the test-preload-*.c suites.
 */
#ifndef SHELLESC_TEST_PRELOAD_HELPERS_H
#define SHELLESC_TEST_PRELOAD_HELPERS_H

#include <stdbool.h>
#include <sys/types.h>

#include "helpers/session.h"

#define TP_REASON "not now"
#define TP_DENIED "shellesc: execution denied: " TP_REASON "\n"

/* "@T" in test strings: the exec-probe program (tests/exec-probe.c). */
#define TP_T "@T"

/* Skip the test, saying why, where the preload cannot be loaded (sanitizer builds). */
void tp_require_preload(void);

/*
 * Start a session for tp whose callers get the build tree's preload;
 * intercept adds SHELLESC_INTERCEPT_* bits (0: preload only).  The policy
 * answers action unless the request's TEST_ACTION says otherwise, and
 * denies with TP_REASON.
 */
struct shellesc_session *tp_start(struct tpol *tp, enum shellesc_action action,
    unsigned intercept);

/* TEST_ACTION's value for a. */
const char *tp_action_name(enum shellesc_action a);

/* How a child ended and what it wrote. */
struct tp_out {
	int status;
	char *out, *err;
};

/*
 * A caller's environment: the session's overlay, PATH, TEST_ACTION=action,
 * TP_TARGET=<exec-probe> and TP_SOCK=<the session socket's number>.  With
 * preload false it is the same but for LD_PRELOAD (the baseline).  Free
 * with shellesc_env_free().
 */
char **tp_env(struct shellesc_session *s, bool preload, const char *action);

/*
 * Run argv (argv[0] is the path; "@T" is replaced anywhere in it) in cwd
 * (NULL: ours) with in (NULL: nothing) on stdin, in tp_env(s, preload,
 * action).
 */
void tp_run(struct shellesc_session *s, bool preload, const char *action,
    const char *cwd, const char *in, const char *const argv[], struct tp_out *o);
void tp_out_free(struct tp_out *o);

/*
 * Assert how o ended (sig > 0: killed by sig, else exit code), its exact
 * stdout (NULL: not checked) and its stderr: err_has must be in it ("":
 * stderr must be empty; NULL: not checked).  what names the case.
 */
void tp_check(const struct tp_out *o, int code, int sig, const char *out,
    const char *err_has, const char *what);

/* A malloc'd copy of s with every "@T" replaced. */
char *tp_subst(const char *s);

/* Whether path is an ELF executable without PT_INTERP (no preload can load
 * into it), as common/binfmt.h reads it. */
bool tp_is_static(const char *path);

/* Skip the test, saying why, unless path is an installed, dynamically linked program. */
void tp_need(const char *path);

#endif
