/*
 * cli-util.h: the helpers most files of the command use (cli-util.c):
 * its messages, untrusted strings shown safely, string vectors, and the
 * PATH search.  They call nothing else of server/cli/; cli.h includes
 * this, so a file that needs no more of the command includes only this.
 *
 * Errors as cli.h says: a message, then -1 or NULL; but cli_path_search,
 * whose callers word the message, returns NULL with errno.
 */
#ifndef SHELLESC_CLI_UTIL_H
#define SHELLESC_CLI_UTIL_H

#include <stddef.h>

struct cli;

/* A growable NULL-terminated vector of strings. */
struct cli_strv {
	char **v;
	size_t n;
};

void cli_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_oom(void);		/* "out of memory", then -1: return cli_oom(); */
/* A message only when c's -v count is at least level. */
void cli_debug(const struct cli *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

char *cli_vis(const char *s);	/* control and 8-bit bytes escaped */
char *cli_show(const char *s);	/* cli_vis, then quoted if a shell needs it */
char *cli_show_argv(const char *program, char *const *argv);

int cli_strv_add(struct cli_strv *sv, const char *s);	/* a copy of s; 0 or -1 */
void cli_strv_free(struct cli_strv *sv);

char *cli_path_search(const char *name);	/* NULL: not found (errno) */

#endif /* SHELLESC_CLI_UTIL_H */
