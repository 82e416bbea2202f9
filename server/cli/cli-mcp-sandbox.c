/*
 * cli-mcp-sandbox.c: Codex's codex/sandbox-state/update on shellesc's own
 * Landlock sandbox (the library's builder, shellesc_sandbox_new), with
 * no extra program:
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
 * the command line's alone).
 *
 * Without -s, until the first update, the default is Codex's
 * workspace-write: Landlock, writable beneath the roots the client
 * declares (roots/list, asked when it says it has roots), else beneath
 * the start directory and any -w, and always the private TMPDIR.  The
 * first update replaces it whole.  Never the call's workdir: the agent
 * names it, and may have been talked into naming anything (where the
 * reference refuses every call before an update).  --sandbox none: no
 * sandbox until an update.  A call keeps the sandbox in force when it
 * started.
 *
 * Every writable root is pinned when the sandbox is made: opened once as
 * an O_PATH fd, each component of a client's root without following a
 * symbolic link (one is refused, naming it), and each call's Landlock
 * rules are built from /proc/PID/fd/N of that fd, never from its name
 * again.  A root the sandboxed side renames and replaces with a link to
 * $HOME (a root beneath /tmp, or beneath another root) stays the
 * directory it was.  A root that does not exist then is left out (and out
 * of the result's sandbox.writable_roots, which lists what Landlock is
 * given).  The command line's roots and the private TMPDIR are trusted
 * names, pinned once.  A root named twice is pinned and listed once.  Its
 * shell always enters the layers, the session's seccomp filter and, with
 * the kernel layer, its exec notification (the library does, between its
 * fork and exec: shellesc_exec_params.sandbox); escalated commands are
 * started by the server and are never in any.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-mcp.h"

static bool
mcp_sbx_has(const struct cli_strv *w, const char *s)
{
	for (size_t i = 0; i < w->n; i++)
		if (strcmp(w->v[i], s) == 0)
			return true;
	return false;
}

/* s into w unless w has it: a root named twice is listed once. */
static int
mcp_sbx_add(struct cli_strv *w, const char *s)
{
	return mcp_sbx_has(w, s) ? 0 : cli_strv_add(w, s);
}

/* Add root name, pinned as fd (which x then owns), to x's layer k. */
static int
mcp_sbx_pin_add(struct mcp_sbx *x, size_t k, const char *name, int fd)
{
	struct mcp_pinned *p = &x->pinned[k];
	int *fds = reallocarray(p->fd, p->path.n + 1, sizeof(int));
	char proc[64];

	if (fds == NULL) {
		close(fd);
		return cli_oom();
	}
	p->fd = fds;
	snprintf(proc, sizeof(proc), "/proc/%ld/fd/%d", (long)getpid(), fd);
	fds[p->path.n] = fd;
	if (cli_strv_add(&p->path, proc) != 0) {
		close(fd);
		return -1;
	}
	return cli_strv_add(&x->layer[k].writable, name);
}

/* One component of a root: its O_PATH fd beneath dir, or -1 with errno
 * (ELOOP: a symbolic link; ENOTDIR: not a directory). */
static int
mcp_sbx_pin_step(int dir, const char *name)
{
	struct stat st;
	int fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC), e = 0;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		e = errno;
	else if (!S_ISDIR(st.st_mode))
		e = S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
	if (e == 0)
		return fd;
	close(fd);
	errno = e;
	return -1;
}

/* path opened component by component, no symbolic link followed: its fd,
 * or -1 with errno and *at the component that failed. */
static int
mcp_sbx_pin_walk(const char *path, char *at, size_t size)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC), next, e;
	const char *p = path;

	while (fd >= 0 && *p) {
		size_t len;

		while (*p == '/')
			p++;
		if ((len = strcspn(p, "/")) == 0)
			break;
		snprintf(at, size, "%.*s", (int)(p - path + len), path);
		if (len > NAME_MAX) {
			close(fd);
			errno = ENAMETOOLONG;
			return -1;
		}
		char name[len + 1];

		memcpy(name, p, len);
		name[len] = '\0';
		p += len;
		next = mcp_sbx_pin_step(fd, name);
		e = errno;
		close(fd);
		errno = e;
		fd = next;
	}
	return fd;
}

/* Pin each of names into x's layer k; a root missing now is left out.
 * trusted (the command line's): symbolic links followed, once.  -1 with
 * a message in why. */
static int
mcp_sbx_pin(struct mcp_sbx *x, size_t k, const struct cli_strv *names, bool trusted,
    char *why, size_t n)
{
	char at[PATH_MAX] = "";

	for (size_t i = 0; i < names->n; i++) {
		const char *name = names->v[i];
		int fd;

		if (mcp_sbx_has(&x->layer[k].writable, name))
			continue;	/* named twice: pinned once */
		fd = trusted ? open(name, O_PATH | O_DIRECTORY | O_CLOEXEC) :
		    mcp_sbx_pin_walk(name, at, sizeof(at));

		if (fd >= 0 && mcp_sbx_pin_add(x, k, name, fd) != 0) {
			snprintf(why, n, "out of memory");
			return -1;
		}
		if (fd >= 0 || errno == ENOENT || (errno == ENOTDIR && !trusted &&
		    strcmp(at, name) == 0))
			continue;
		if (errno == ELOOP)
			snprintf(why, n, "writable root %.1000s: %.1000s is a symbolic link, "
			    "which the sandboxed side may have planted; name the directory "
			    "it points to", name, at);
		else
			snprintf(why, n, "writable root %.1000s: %s", name, strerror(errno));
		return -1;
	}
	return 0;
}

/* The command line's layer, pinned (trusted names: links followed). */
static int
mcp_sbx_floor(struct mcp_sbx *x, const struct cli_opts *o)
{
	char why[2200];

	x->source[x->n] = o->sandbox_default ? "default" : "command line";
	x->layer[x->n].no_network = o->no_network;
	x->layer[x->n].writable_git = o->writable_git;
	if (mcp_sbx_pin(x, x->n++, &o->writable, true, why, sizeof(why)) != 0) {
		cli_warnx("mcp: %s", why);
		return -1;
	}
	return 0;
}

/* floor's command line layer in x, its fds duplicated. */
static int
mcp_sbx_floor_copy(struct mcp_sbx *x, const struct mcp_sbx *floor)
{
	const struct mcp_pinned *p = &floor->pinned[0];

	x->source[x->n] = floor->source[0];
	x->layer[x->n].no_network = floor->layer[0].no_network;
	x->layer[x->n].writable_git = floor->layer[0].writable_git;
	for (size_t i = 0; i < p->path.n; i++) {
		int fd = fcntl(p->fd[i], F_DUPFD_CLOEXEC, 0);

		if (fd < 0 || mcp_sbx_pin_add(x, x->n, floor->layer[0].writable.v[i], fd) != 0) {
			x->n++;
			return -1;
		}
	}
	x->n++;
	return 0;
}

/* A sandbox holding the command line's layer, if it has one: floor's,
 * or (floor NULL) pinned now. */
static struct mcp_sbx *
mcp_sbx_new(const struct cli_opts *o, const char *policy, const struct mcp_sbx *floor)
{
	struct mcp_sbx *x = calloc(1, sizeof(*x));

	if (x == NULL)
		return NULL;
	atomic_init(&x->refs, 1);
	if (policy && (x->policy = strdup(policy)) == NULL) {
		free(x);
		return NULL;
	}
	if (o->sandbox != CLI_SANDBOX_LANDLOCK || (policy && o->sandbox_default))
		return x;
	if ((floor ? mcp_sbx_floor_copy(x, floor) : mcp_sbx_floor(x, o)) == 0)
		return x;
	mcp_sbx_unref(x);
	return NULL;
}

void
mcp_sbx_unref(struct mcp_sbx *x)
{
	if (x == NULL || atomic_fetch_sub(&x->refs, 1) != 1)
		return;
	for (size_t i = 0; i < 2; i++) {
		for (size_t k = 0; k < x->pinned[i].path.n; k++)
			close(x->pinned[i].fd[k]);
		free(x->pinned[i].fd);
		cli_strv_free(&x->pinned[i].path);
		cli_strv_free(&x->layer[i].writable);
	}
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
	return (m->sbx = mcp_sbx_new(&m->c->o, NULL, NULL)) == NULL ? -1 : 0;
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

/* x's layers as Landlock is to get them: the pinned roots' /proc paths
 * (borrowed from x). */
static void
mcp_sbx_pinned(const struct mcp_sbx *x, struct cli_layer *out)
{
	for (size_t k = 0; k < x->n; k++) {
		out[k].no_network = x->layer[k].no_network;
		out[k].writable_git = x->layer[k].writable_git;
		out[k].writable = x->pinned[k].path;
	}
}

struct shellesc_sandbox *
mcp_sbx_build_profile(const struct mcp_sbx *x, const struct cli_profile *p)
{
	struct cli_layer dirs[2] = { 0 };

	mcp_sbx_pinned(x, dirs);
	return cli_profile_sandbox(dirs, x->n, p);
}

struct shellesc_sandbox *
mcp_sbx_build(const struct mcp_sbx *x, unsigned flags, const struct cli_strv *allow,
    char **why)
{
	struct cli_layer dirs[2] = { 0 };
	struct shellesc_sandbox *sb = NULL;

	mcp_sbx_pinned(x, dirs);
	if ((sb = cli_sandbox_new(dirs, x->n, flags, allow, 0)) == NULL)
		*why = strdup("cannot prepare the sandbox (shellesc's stderr says why)");
	return sb;
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
	return mcp_sbx_add(w, s);
}

static int
mcp_sbx_workspace(struct cli_layer *l, struct cli_strv *names, json_t *pol, json_t *cwd,
    char *why, size_t n)
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
		if (mcp_sbx_dir(names, r, what, why, n) != 0)
			return -1;
	}
	if ((cwd && !json_is_null(cwd) && mcp_sbx_dir(names, cwd, "sandboxCwd", why, n)) ||
	    (!no_slash_tmp && mcp_sbx_add(names, "/tmp") != 0) ||
	    (!no_tmpdir && tmp && tmp[0] == '/' && mcp_sbx_add(names, tmp) != 0))
		return -1;
	l->no_network = !net;
	return 0;
}

/* The policy's layer on top of x's, its roots pinned; -1 with a -32602
 * message in why. */
static int
mcp_sbx_parse(const struct cli *c, struct mcp_sbx *x, const char *type, json_t *params,
    char *why, size_t n)
{
	json_t *pol = json_object_get(params, "sandboxPolicy");
	struct cli_layer *l = &x->layer[x->n];
	struct cli_strv names = { 0 };
	bool net;
	int r;

	if (strcmp(type, "danger-full-access") == 0 || strcmp(type, "external-sandbox") == 0)
		return 0;
	if (strcmp(type, "workspace-write") == 0) {
		r = mcp_sbx_workspace(l, &names, pol, json_object_get(params, "sandboxCwd"),
		    why, n);
		if (r == 0 && (r = cli_rules_guard_filter(c, &names, "writable root")) != 0)
			snprintf(why, n, "out of memory");
		if (r == 0)
			r = mcp_sbx_pin(x, x->n, &names, false, why, n);
		cli_strv_free(&names);
	}
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
	struct shellesc_sandbox *sb;

	mcp_sbx_pinned(x, dirs);
	sb = cli_sandbox_new(dirs, x->n, 0, NULL, 0);
	shellesc_sandbox_free(sb);
	return sb != NULL;
}

void
mcp_sbx_update(struct mcp *m, json_t *id, json_t *params)
{
	const char *type = json_string_value(json_object_get(json_object_get(params,
	    "sandboxPolicy"), "type"));
	struct mcp_sbx *x = type ? mcp_sbx_new(&m->c->o, type, m->sbx) : NULL, *old;
	char why[2200] = "out of memory";

	if (type == NULL)
		mcp_error(m, id, MCP_BAD_PARAMS, "sandboxPolicy must be an object with a type");
	else if (x == NULL)
		mcp_error(m, id, MCP_INTERNAL, "out of memory");
	else if (mcp_sbx_parse(m->c, x, type, params, why, sizeof(why)) != 0)
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

/* A hexadecimal digit's value, or -1. */
static int
mcp_sbx_hex(char ch)
{
	static const char digits[] = "0123456789abcdef";
	const char *d = ch ? strchr(digits, ch | 0x20) : NULL;

	return d ? (int)(d - digits) : -1;
}

/* A file: URI's path, percent-decoded (no NUL), or NULL; to be freed. */
static char *
mcp_sbx_uri_path(const char *uri)
{
	char *p, *q;

	if (uri == NULL || strncmp(uri, "file://", 7) != 0 || uri[7] != '/' ||
	    (p = strdup(uri + 7)) == NULL)
		return NULL;
	for (const char *r = q = p; *r; r++) {
		int hi = r[0] == '%' ? mcp_sbx_hex(r[1]) : -1;
		int lo = hi >= 0 ? mcp_sbx_hex(r[2]) : -1;

		if (lo >= 0 && (hi | lo) != 0) {
			*q++ = (char)(hi << 4 | lo);
			r += 2;
		} else
			*q++ = *r;
	}
	*q = '\0';
	return p;
}

/* A default sandbox writable beneath the client's roots (pinned as any
 * client's root: no link followed) and the private TMPDIR (ours: a trusted
 * name); NULL if a root is not a file: URI, cannot be pinned, or memory
 * runs out. */
static struct mcp_sbx *
mcp_sbx_from_roots(struct mcp *m, json_t *roots)
{
	struct mcp_sbx *x = mcp_sbx_new(&(struct cli_opts){ 0 }, NULL, NULL);
	struct cli_strv names = { 0 }, tmp = { 0 };
	char *dir, why[2200];
	json_t *r;
	size_t i, k;
	int bad = x == NULL;

	json_array_foreach(roots, i, r) {
		if ((dir = mcp_sbx_uri_path(json_string_value(json_object_get(r, "uri")))) == NULL)
			bad = 1;
		else
			bad |= mcp_sbx_add(&names, dir) != 0;
		free(dir);
	}
	bad |= m->c->tmpdir && cli_strv_add(&tmp, m->c->tmpdir) != 0;
	bad |= cli_rules_guard_filter(m->c, &names, "root") != 0;
	if (!bad) {
		k = x->n++;
		x->source[k] = "roots";
		x->layer[k].no_network = m->c->o.no_network;
		x->layer[k].writable_git = m->c->o.writable_git;
		bad = mcp_sbx_pin(x, k, &names, false, why, sizeof(why)) != 0 ||
		    mcp_sbx_pin(x, k, &tmp, true, why, sizeof(why)) != 0;
		if (bad)
			cli_warnx("mcp: %s", why);
	}
	cli_strv_free(&names);
	cli_strv_free(&tmp);
	if (bad) {
		mcp_sbx_unref(x);
		return NULL;
	}
	return x;
}

/* The answer to our roots/list: the default sandbox's writable roots, as
 * long as no update has replaced it.  A bad answer keeps what was. */
void
mcp_sbx_roots(struct mcp *m, json_t *msg)
{
	json_t *roots = json_object_get(json_object_get(msg, "result"), "roots");
	struct mcp_sbx *x = json_is_array(roots) ? mcp_sbx_from_roots(m, roots) : NULL, *old;

	if (x == NULL || !mcp_sbx_possible(x)) {
		cli_warnx("mcp: the client's roots (roots/list) are not absolute file: URIs of "
		    "directories Landlock can use: the start directory stays writable");
		mcp_sbx_unref(x);
		return;
	}
	pthread_mutex_lock(&m->mu);
	old = m->sbx;
	if (old->policy == NULL && old->n == 1 && m->c->o.sandbox_default)
		m->sbx = x;
	else
		old = x;	/* an update came first: it stands */
	pthread_mutex_unlock(&m->mu);
	mcp_sbx_unref(old);
	cli_debug(m->c, 1, "mcp: writable roots from the client");
}

/* roots/list, when the client said it has roots and the default sandbox
 * is in force; m->roots_id is the id its answer will carry. */
void
mcp_sbx_ask_roots(struct mcp *m)
{
	json_int_t id;

	if (!atomic_load(&m->can_roots) || !m->c->o.sandbox_default)
		return;
	pthread_mutex_lock(&m->mu);
	id = m->roots_id = m->next_id++;
	pthread_mutex_unlock(&m->mu);
	mcp_send(m, json_pack("{s:s, s:I, s:s}", "jsonrpc", "2.0", "id", id,
	    "method", "roots/list"));
}

/* The start-up line: which sandbox is in force, and what it lets write. */
void
mcp_sbx_announce(struct mcp *m)
{
	const struct cli_opts *o = &m->c->o;

	if (o->sandbox != CLI_SANDBOX_LANDLOCK) {
		fprintf(stderr, "shellesc: mcp: sandbox: none (--sandbox none) until the client's "
		    "codex/sandbox-state/update\n");
		return;
	}
	fprintf(stderr, "shellesc: mcp: sandbox: landlock (%s), writable:",
	    o->sandbox_default ? "the default, until the client's codex/sandbox-state/update; "
	    "the client's roots replace the start directory" : "--sandbox landlock, a floor");
	for (size_t i = 0; i < o->writable.n; i++)
		fprintf(stderr, " %s", o->writable.v[i]);
	fprintf(stderr, "%s\n", o->no_network ? "; no network" : "");
	for (size_t i = 0; i < o->writable.n; i++)
		if (strcmp(o->writable.v[i], "/") == 0)
			cli_warnx("mcp: warning: / is writable, so the sandbox keeps nothing from "
			    "being written (start shellesc mcp in the workspace, or have the client "
			    "declare roots)");
}
