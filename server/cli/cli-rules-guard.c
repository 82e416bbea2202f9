/*
 * cli-rules-guard.c: no sandbox of ours may write the rules.
 *
 * The rules files are trusted (docs/security.md): a session loads the -p
 * files, the user's and the system's rules directories (Codex's too, for
 * mcp) and the learned file that "always" appends to, and loads them
 * again after each "always".  A sandbox writable beneath any of them, or
 * beneath a directory on the way to one, could write a rule that this
 * session (after its next "always") or the next one obeys: the sandbox's
 * own choice of what runs outside it.  Landlock cannot take a subtree
 * back out of a writable root, and a read-only bind mount of the rules
 * directory would not hold either: the sandboxed side could rename a
 * directory above it away and make a new one in its place.
 *
 * So a writable root that holds a rules location -- one of the files, or
 * any directory on its path, existing or not yet -- is refused by run and
 * exec, and left out (with a message) by mcp, whose roots its client
 * names; --rules-writable accepts it, for a user who knows.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/*
 * Could a sandbox writable beneath root change what path names: write
 * it, or replace or create any directory on its way?  Each directory on
 * path is checked, down to the first that does not exist (whose parent,
 * checked already, is then what could create it).  1 (*why malloc'd, or
 * NULL), or 0.
 */
static int
guard_path(const char *path, const char *root, char **why)
{
	char *const roots[] = { (char *)root, NULL };
	char dir[PATH_MAX];
	size_t n = strlen(path);
	int r;

	if (path[0] != '/' || n >= sizeof(dir))
		return 0;
	for (size_t i = 1; i <= n; i++) {
		if (i < n && path[i] != '/')
			continue;
		memcpy(dir, path, i);
		dir[i] = '\0';
		if ((r = shellesc_path_writable(dir, 0, NULL, 0, roots, why)) == 1)
			return 1;
		if (r < 0)
			return 0;
	}
	return 0;
}

/* The first rules location beneath root (malloc'd: "LOCATION (WHY)"),
 * or NULL; *oom on running out of memory. */
static char *
guard_root(const struct cli_strv *where, const char *root, bool *oom)
{
	char *why = NULL, *out = NULL;

	for (size_t i = 0; out == NULL && i < where->n; i++) {
		if (guard_path(where->v[i], root, &why) != 1)
			continue;
		if (asprintf(&out, "%s (%s)", where->v[i], why ? why : "beneath it") < 0) {
			out = NULL;
			*oom = true;
			break;
		}
		free(why);
		why = NULL;
	}
	free(why);
	return out;
}

int
cli_rules_guard(struct cli *c)
{
	struct cli_strv where = { 0 };
	char *hit = NULL;
	bool oom = false;

	if (c->o.sandbox != CLI_SANDBOX_LANDLOCK || c->o.rules_writable)
		return 0;
	if (cli_rules_locations(c, &where) != 0) {
		cli_strv_free(&where);
		return cli_oom();
	}
	if (c->o.cmd == CLI_MCP)
		oom = cli_rules_guard_filter(c, &c->o.writable, "writable root") != 0;
	for (size_t i = 0; !oom && hit == NULL && i < c->o.writable.n; i++)
		if ((hit = guard_root(&where, c->o.writable.v[i], &oom)) != NULL)
			cli_warnx("writable directory %s holds the rules file or directory %s: "
			    "the sandboxed side could write the rules of this session and the "
			    "next; name narrower directories, or give --rules-writable",
			    c->o.writable.v[i], hit);
	cli_strv_free(&where);
	free(hit);
	if (oom)
		return cli_oom();
	return hit != NULL ? -1 : 0;
}

int
cli_rules_guard_filter(const struct cli *c, struct cli_strv *roots, const char *what)
{
	struct cli_strv where = { 0 };
	size_t k = 0;
	bool oom = false;
	char *hit;

	if (c->o.rules_writable)
		return 0;
	if (cli_rules_locations(c, &where) != 0) {
		cli_strv_free(&where);
		return -1;
	}
	for (size_t i = 0; i < roots->n; i++) {
		if ((hit = guard_root(&where, roots->v[i], &oom)) == NULL) {
			roots->v[k++] = roots->v[i];
			continue;
		}
		cli_warnx("mcp: %s %s left out: it holds the rules file or directory %s, "
		    "which the sandboxed side must not write", what, roots->v[i], hit);
		free(hit);
		free(roots->v[i]);
	}
	if (roots->v != NULL)
		roots->v[k] = NULL;
	roots->n = k;
	cli_strv_free(&where);
	return oom ? -1 : 0;
}
