/*
 * sandbox-gate.c: the socket gate's facts, taken when the sandbox is built
 * (sandbox.h, struct sandbox_gate) and copied into the session that serves
 * the gate (kernel-socket.c): which socket files are allowed, the writable
 * roots beneath which a socket bound since then is the session's, and
 * whether TCP is refused.  Paths are made canonical here, while the
 * caller's view and ours are one, so that the gate compares them with the
 * canonical path of the file it pinned.
 */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox.h"

const char *const shellesc_sandbox_default_sockets[] = {
	"/dev/log",
	"/run/systemd/journal/socket",
	"/run/systemd/journal/stdout",
	"/var/run/nscd/socket",
	"/run/systemd/userdb/*",
	NULL,
};

/* path made canonical: itself where it exists, else its directory's with
 * its last component (a pattern's, or a socket not bound yet); "@NAME",
 * an abstract socket's name, as it is. */
static char *
sandbox_gate_canon(const char *path)
{
	char buf[PATH_MAX], *d, *b, *dc, *bc, *r = NULL;

	if (path[0] == '@')
		return strdup(path);
	dc = strdup(path);
	bc = strdup(path);
	if (realpath(path, buf) != NULL)
		r = strdup(buf);
	else if (dc != NULL && bc != NULL && realpath((d = dirname(dc)), buf) != NULL) {
		b = basename(bc);
		if (asprintf(&r, "%s%s%s", buf, strcmp(buf, "/") == 0 ? "" : "/", b) < 0)
			r = NULL;
	} else
		r = strdup(path);
	free(dc);
	free(bc);
	return r;
}

static size_t
sandbox_gate_count(const char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

/* The allowed patterns: the default list, then the config's. */
static int
sandbox_gate_allow(struct sandbox_gate *g, const char *const *extra)
{
	size_t nd = sandbox_gate_count(shellesc_sandbox_default_sockets);
	size_t n = nd + sandbox_gate_count(extra);

	if ((g->allow = calloc(n + 1, sizeof(char *))) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if ((g->allow[i] = sandbox_gate_canon(i < nd ? shellesc_sandbox_default_sockets[i] :
		    extra[i - nd])) == NULL)
			return -ENOMEM;
	return 0;
}

static int
sandbox_gate_roots(struct sandbox_gate *g, const struct shellesc_sandbox_config *cfg)
{
	size_t n = 0;

	for (size_t l = 0; l < cfg->n_layers; l++)
		n += sandbox_gate_count((const char *const *)cfg->layers[l].writable);
	g->roots = calloc(n + 1, sizeof(char *));
	g->root_layer = calloc(n + 1, sizeof(size_t));
	if (g->roots == NULL || g->root_layer == NULL)
		return -ENOMEM;
	for (size_t l = 0; l < cfg->n_layers; l++)
		for (char *const *w = cfg->layers[l].writable; w && *w; w++) {
			if ((g->roots[g->nroots] = sandbox_gate_canon(*w)) == NULL)
				return -ENOMEM;
			g->root_layer[g->nroots++] = l;
		}
	return 0;
}

int
sandbox_gate_init(struct sandbox_gate *g, const struct shellesc_sandbox_config *cfg)
{
	memset(g, 0, sizeof(*g));
	if (cfg->n_layers == 0 || (cfg->flags & SHELLESC_SANDBOX_NO_SOCKET_GATE))
		return 0;
	g->on = true;
	g->nlayers = cfg->n_layers;
	for (size_t l = 0; l < cfg->n_layers; l++)
		g->no_network |= cfg->layers[l].no_network;
	/* the clock file times are taken from */
	if (clock_gettime(CLOCK_REALTIME_COARSE, &g->start) != 0)
		return -errno;
	if (sandbox_gate_allow(g, cfg->allow_sockets) != 0 || sandbox_gate_roots(g, cfg) != 0)
		return -ENOMEM;
	return 0;
}

static char **
sandbox_gate_strv(char *const *v, size_t n)
{
	char **c = calloc(n + 1, sizeof(char *));

	for (size_t i = 0; c != NULL && i < n; i++)
		if ((c[i] = strdup(v[i])) == NULL) {
			while (i > 0)
				free(c[--i]);
			free(c);
			return NULL;
		}
	return c;
}

int
sandbox_gate_copy(struct sandbox_gate *to, const struct sandbox_gate *from)
{
	*to = *from;
	to->allow = to->roots = NULL;
	to->root_layer = NULL;
	if (!from->on)
		return 0;
	to->allow = sandbox_gate_strv(from->allow,
	    sandbox_gate_count((const char *const *)from->allow));
	to->roots = sandbox_gate_strv(from->roots, from->nroots);
	to->root_layer = calloc(from->nroots + 1, sizeof(size_t));
	if (to->allow == NULL || to->roots == NULL || to->root_layer == NULL) {
		sandbox_gate_free(to);
		return -ENOMEM;
	}
	memcpy(to->root_layer, from->root_layer, from->nroots * sizeof(size_t));
	return 0;
}

void
sandbox_gate_free(struct sandbox_gate *g)
{
	for (char **v = g->allow; v && *v; v++)
		free(*v);
	for (size_t i = 0; g->roots && i < g->nroots; i++)
		free(g->roots[i]);
	free(g->allow);
	free(g->roots);
	free(g->root_layer);
	memset(g, 0, sizeof(*g));
}
