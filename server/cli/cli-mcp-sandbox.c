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
 * Any other type is refused with -32602 naming it.  The command line's
 * sandbox (--sandbox landlock, --writable, --no-network) is a floor: the
 * client's policy is a second Landlock layer on top of it, which can only
 * narrow what the first allows, never widen it (danger-full-access leaves
 * the command line's alone).  Until the first update the command line's
 * sandbox is all there is (none by default), where the reference refuses
 * every call.  A call keeps the sandbox in force when it started.  Its
 * shell is always started through this very program (cli-exec.c:
 * cli_exec_sandboxed), which enters the layers and the session's seccomp
 * filter; escalated commands are started by the server and are never in
 * any.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-mcp.h"

/* A sandbox holding the command line's layer, if it has one. */
static struct mcp_sbx *
mcp_sbx_new(const struct cli_opts *o, const char *policy)
{
	struct mcp_sbx *x = calloc(1, sizeof(*x));

	if (x == NULL)
		return NULL;
	atomic_init(&x->refs, 1);
	if (policy && (x->policy = strdup(policy)) == NULL) {
		free(x);
		return NULL;
	}
	if (o->sandbox != CLI_SANDBOX_LANDLOCK)
		return x;
	x->source[x->n] = "command line";
	x->layer[x->n].no_network = o->no_network;
	for (size_t i = 0; i < o->writable.n; i++)
		if (cli_strv_add(&x->layer[x->n].writable, o->writable.v[i]) != 0) {
			x->n++;
			mcp_sbx_unref(x);
			return NULL;
		}
	x->n++;
	return x;
}

void
mcp_sbx_unref(struct mcp_sbx *x)
{
	if (x == NULL || atomic_fetch_sub(&x->refs, 1) != 1)
		return;
	for (size_t i = 0; i < x->n; i++)
		cli_strv_free(&x->layer[i].writable);
	free(x->policy);
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
	return (m->sbx = mcp_sbx_new(&m->c->o, NULL)) == NULL ? -1 : 0;
}

json_t *
mcp_sbx_json(const struct mcp_sbx *x)
{
	json_t *layers = json_array();
	bool net = true;

	for (size_t i = 0; i < x->n; i++) {
		json_array_append_new(layers, json_pack("{s:s, s:o, s:b}", "source", x->source[i],
		    "writable_roots", cli_json_strv(x->layer[i].writable.v),
		    "network", !x->layer[i].no_network));
		net = net && !x->layer[i].no_network;
	}
	return json_pack("{s:s, s:o, s:o, s:b}", "type", x->n ? "landlock" : "none",
	    "policy", cli_json_str(x->policy), "layers", layers, "network", net);
}

/* x's layers with the writable directories that exist now: Landlock
 * needs each opened.  Free with mcp_sbx_layers_free. */
static int
mcp_sbx_existing(const struct mcp_sbx *x, struct cli_layer *out)
{
	struct stat st;

	for (size_t k = 0; k < x->n; k++) {
		const struct cli_strv *in = &x->layer[k].writable;

		out[k].no_network = x->layer[k].no_network;
		for (size_t i = 0; i < in->n; i++)
			if (stat(in->v[i], &st) == 0 && S_ISDIR(st.st_mode) &&
			    cli_strv_add(&out[k].writable, in->v[i]) != 0)
				return -1;
	}
	return 0;
}

static void
mcp_sbx_layers_free(struct cli_layer *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cli_strv_free(&l[i].writable);
}

int
mcp_sbx_exec(const struct mcp_sbx *x, const char **shell, char *self, size_t size,
    char ***env, char **entry, char **why)
{
	struct cli_layer dirs[2] = { 0 };

	*env = NULL;
	*entry = NULL;
	if (mcp_sbx_existing(x, dirs) != 0 || cli_exec_self(self, size) != 0 ||
	    (*env = cli_exec_sandbox_env(*shell, dirs, x->n, entry)) == NULL)
		*why = strdup("cannot prepare the sandbox (shellesc's stderr says why)");
	else
		*shell = self;
	mcp_sbx_layers_free(dirs, 2);
	return *env ? 0 : -1;
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
mcp_sbx_workspace(struct cli_layer *l, json_t *pol, json_t *cwd, char *why, size_t n)
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
		if (mcp_sbx_dir(&l->writable, r, what, why, n) != 0)
			return -1;
	}
	if ((cwd && !json_is_null(cwd) && mcp_sbx_dir(&l->writable, cwd, "sandboxCwd", why, n)) ||
	    (!no_slash_tmp && cli_strv_add(&l->writable, "/tmp") != 0) ||
	    (!no_tmpdir && tmp && tmp[0] == '/' && cli_strv_add(&l->writable, tmp) != 0))
		return -1;
	l->no_network = !net;
	return 0;
}

/* The policy's layer on top of x's; -1 with a -32602 message in why. */
static int
mcp_sbx_parse(struct mcp_sbx *x, const char *type, json_t *params, char *why, size_t n)
{
	json_t *pol = json_object_get(params, "sandboxPolicy");
	struct cli_layer *l = &x->layer[x->n];
	bool net;
	int r;

	if (strcmp(type, "danger-full-access") == 0 || strcmp(type, "external-sandbox") == 0)
		return 0;
	if (strcmp(type, "workspace-write") == 0)
		r = mcp_sbx_workspace(l, pol, json_object_get(params, "sandboxCwd"), why, n);
	else if (strcmp(type, "read-only") != 0) {
		snprintf(why, n, "unknown sandbox policy type '%.100s': expected read-only, "
		    "workspace-write, danger-full-access or external-sandbox", type);
		return -1;
	} else if ((r = mcp_sbx_bool(pol, "network_access", false, &net)) != 0)
		snprintf(why, n, "network_access must be a boolean");
	else
		l->no_network = !net;
	x->source[x->n++] = x->policy;	/* freed with x, whatever r */
	return r;
}

/* Whether this kernel can make x's rulesets: no surprise at the first call. */
static bool
mcp_sbx_possible(const struct mcp_sbx *x)
{
	struct cli_layer dirs[2] = { 0 };
	bool ok = mcp_sbx_existing(x, dirs) == 0;

	for (size_t i = 0; ok && i < x->n; i++) {
		int fd = cli_landlock_ruleset(&dirs[i].writable, dirs[i].no_network, NULL);

		ok = fd >= 0;
		if (fd >= 0)
			close(fd);
	}
	mcp_sbx_layers_free(dirs, 2);
	return ok;
}

void
mcp_sbx_update(struct mcp *m, json_t *id, json_t *params)
{
	const char *type = json_string_value(json_object_get(json_object_get(params,
	    "sandboxPolicy"), "type"));
	struct mcp_sbx *x = type ? mcp_sbx_new(&m->c->o, type) : NULL, *old;
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
