/*
 * cli-mcp-sandbox.c: Codex's codex/sandbox-state/update on shellesc's own
 * Landlock sandbox (cli-landlock.c), with no extra program:
 *
 *   danger-full-access, external-sandbox   no sandbox
 *   read-only        Landlock: nothing writable (but /dev/null and the
 *                    terminals); no TCP unless network_access is true
 *   workspace-write  Landlock: writable beneath writable_roots,
 *                    sandboxCwd, /tmp (unless exclude_slash_tmp) and
 *                    $TMPDIR (unless exclude_tmpdir_env_var); no TCP
 *                    unless network_access is true
 *
 * Any other type is refused with -32602 naming it.  Until the first
 * update, calls run in the sandbox of the command line (--sandbox,
 * --writable, --no-network; none by default), where the reference refuses
 * every call.  A call keeps the sandbox in force when it started.  Its
 * shell enters the sandbox through this very program (cli-exec.c:
 * cli_exec_sandboxed); escalated commands are started by the server and
 * are never in it.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-mcp.h"

static struct mcp_sbx *
mcp_sbx_new(const char *source)
{
	struct mcp_sbx *x = calloc(1, sizeof(*x));

	if (x == NULL || (x->source = strdup(source)) == NULL) {
		free(x);
		return NULL;
	}
	atomic_init(&x->refs, 1);
	return x;
}

void
mcp_sbx_unref(struct mcp_sbx *x)
{
	if (x == NULL || atomic_fetch_sub(&x->refs, 1) != 1)
		return;
	cli_strv_free(&x->writable);
	free(x->source);
	free(x);
}

struct mcp_sbx *
mcp_sbx_get(struct mcp *m)
{
	struct mcp_sbx *x;

	pthread_mutex_lock(&m->mu);
	x = m->sbx;
	atomic_fetch_add(&x->refs, 1);
	pthread_mutex_unlock(&m->mu);
	return x;
}

/* The command line's sandbox (cli_setup has filled in the defaults). */
int
mcp_sbx_init(struct mcp *m)
{
	struct cli_opts *o = &m->c->o;
	struct mcp_sbx *x = mcp_sbx_new("command line");

	if (x == NULL)
		return -1;
	x->landlock = o->sandbox == CLI_SANDBOX_LANDLOCK;
	x->no_network = o->no_network;
	for (size_t i = 0; i < o->writable.n; i++)
		if (cli_strv_add(&x->writable, o->writable.v[i]) != 0) {
			mcp_sbx_unref(x);
			return -1;
		}
	m->sbx = x;
	return 0;
}

json_t *
mcp_sbx_json(const struct mcp_sbx *x)
{
	return json_pack("{s:s, s:o, s:o, s:b}", "type", x->landlock ? "landlock" : "none",
	    "source", cli_json_str(x->source), "writable_roots", x->landlock ?
	    cli_json_strv(x->writable.v) : json_array(), "network", !x->landlock || !x->no_network);
}

/* The directories of in that exist now: Landlock needs each opened. */
static int
mcp_sbx_existing(const struct cli_strv *in, struct cli_strv *out)
{
	struct stat st;

	for (size_t i = 0; i < in->n; i++)
		if (stat(in->v[i], &st) == 0 && S_ISDIR(st.st_mode) &&
		    cli_strv_add(out, in->v[i]) != 0)
			return -1;
	return 0;
}

int
mcp_sbx_exec(const struct mcp_sbx *x, const char **shell, char *self, size_t size,
    char ***env, char **entry, char **why)
{
	struct cli_strv dirs = { 0 };

	*env = NULL;
	*entry = NULL;
	if (!x->landlock)
		return 0;
	if (mcp_sbx_existing(&x->writable, &dirs) != 0 || cli_exec_self(self, size) != 0 ||
	    (*env = cli_exec_sandbox_env(*shell, &dirs, x->no_network, entry)) == NULL) {
		*why = strdup("cannot prepare the sandbox (shellesc's stderr says why)");
		cli_strv_free(&dirs);
		return -1;
	}
	*shell = self;
	cli_strv_free(&dirs);
	return 0;
}

/* A boolean field: 0 with *out set (absent or null: dflt), -1 if not one. */
static int
mcp_sbx_bool(json_t *o, const char *name, bool dflt, bool *out)
{
	json_t *j = json_object_get(o, name);

	*out = j == NULL || json_is_null(j) ? dflt : json_is_true(j);
	return j == NULL || json_is_null(j) || json_is_boolean(j) ? 0 : -1;
}

/* An absolute path into w; -1 with a message in why. */
static int
mcp_sbx_dir(struct cli_strv *w, json_t *j, const char *what, char *why, size_t n)
{
	const char *s = json_string_value(j);

	if (s == NULL || s[0] != '/' || strlen(s) != json_string_length(j)) {
		snprintf(why, n, "%s must be an absolute path", what);
		return -1;
	}
	return cli_strv_add(w, s);
}

static int
mcp_sbx_workspace(struct mcp_sbx *x, json_t *pol, json_t *cwd, char *why, size_t n)
{
	json_t *roots = json_object_get(pol, "writable_roots"), *r;
	const char *tmp = getenv("TMPDIR");
	bool net, no_tmpdir, no_slash_tmp;
	char what[64];
	size_t i;

	if (mcp_sbx_bool(pol, "network_access", false, &net) != 0 ||
	    mcp_sbx_bool(pol, "exclude_tmpdir_env_var", false, &no_tmpdir) != 0 ||
	    mcp_sbx_bool(pol, "exclude_slash_tmp", false, &no_slash_tmp) != 0) {
		snprintf(why, n, "network_access, exclude_tmpdir_env_var and exclude_slash_tmp "
		    "must be booleans");
		return -1;
	}
	if (roots != NULL && !json_is_null(roots) && !json_is_array(roots)) {
		snprintf(why, n, "writable_roots must be an array of absolute paths");
		return -1;
	}
	json_array_foreach(roots, i, r) {
		snprintf(what, sizeof(what), "writable_roots[%zu]", i);
		if (mcp_sbx_dir(&x->writable, r, what, why, n) != 0)
			return -1;
	}
	if ((cwd && !json_is_null(cwd) && mcp_sbx_dir(&x->writable, cwd, "sandboxCwd", why, n)) ||
	    (!no_slash_tmp && cli_strv_add(&x->writable, "/tmp") != 0) ||
	    (!no_tmpdir && tmp && tmp[0] == '/' && cli_strv_add(&x->writable, tmp) != 0))
		return -1;
	x->landlock = true;
	x->no_network = !net;
	return 0;
}

/* x from the update's params; -1 with a -32602 message in why. */
static int
mcp_sbx_parse(struct mcp_sbx *x, const char *type, json_t *params, char *why, size_t n)
{
	json_t *pol = json_object_get(params, "sandboxPolicy");
	bool net;

	if (strcmp(type, "danger-full-access") == 0 || strcmp(type, "external-sandbox") == 0)
		return 0;
	if (strcmp(type, "workspace-write") == 0)
		return mcp_sbx_workspace(x, pol, json_object_get(params, "sandboxCwd"), why, n);
	if (strcmp(type, "read-only") != 0) {
		snprintf(why, n, "unknown sandbox policy type '%.100s': expected read-only, "
		    "workspace-write, danger-full-access or external-sandbox", type);
		return -1;
	}
	if (mcp_sbx_bool(pol, "network_access", false, &net) != 0) {
		snprintf(why, n, "network_access must be a boolean");
		return -1;
	}
	x->landlock = true;
	x->no_network = !net;
	return 0;
}

/* Whether this kernel can make x's ruleset: no surprise at the first call. */
static bool
mcp_sbx_possible(const struct mcp_sbx *x)
{
	struct cli_strv dirs = { 0 };
	int fd = -1;

	if (!x->landlock)
		return true;
	if (mcp_sbx_existing(&x->writable, &dirs) == 0)
		fd = cli_landlock_ruleset(&dirs, x->no_network);
	cli_strv_free(&dirs);
	if (fd >= 0)
		close(fd);
	return fd >= 0;
}

void
mcp_sbx_update(struct mcp *m, json_t *id, json_t *params)
{
	const char *type = json_string_value(json_object_get(json_object_get(params,
	    "sandboxPolicy"), "type"));
	struct mcp_sbx *x = type ? mcp_sbx_new(type) : NULL, *old;
	char why[256] = "out of memory";

	if (type == NULL)
		mcp_error(m, id, MCP_BAD_PARAMS, "sandboxPolicy must be an object with a type");
	else if (x == NULL)
		mcp_error(m, id, MCP_INTERNAL, "out of memory");
	else if (mcp_sbx_parse(x, type, params, why, sizeof(why)) != 0)
		mcp_error(m, id, MCP_BAD_PARAMS, "sandbox policy %.100s: %s", type, why);
	else if (!mcp_sbx_possible(x))
		mcp_error(m, id, MCP_INTERNAL, "sandbox policy %.100s needs Landlock, which "
		    "cannot be set up here (shellesc's stderr says why)", type);
	else {
		pthread_mutex_lock(&m->mu);
		old = m->sbx;
		m->sbx = x;
		pthread_mutex_unlock(&m->mu);
		mcp_sbx_unref(old);
		cli_debug(m->c, 1, "mcp: sandbox now %s", type);
		mcp_reply(m, id, json_object());
		return;
	}
	mcp_sbx_unref(x);
}
