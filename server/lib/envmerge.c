/* envmerge.c: laying a session's overlay on an environment. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preloadenv.h"
#include "server.h"

#define ENVMERGE_PRELOAD "LD_PRELOAD="

extern char **environ;

static size_t
envmerge_name_len(const char *entry)
{
	return strcspn(entry, "=");
}

/* Index of the entry named like key ("NAME=..."), or -1. */
static ssize_t
envmerge_find(char **env, size_t n, const char *key)
{
	size_t len = envmerge_name_len(key);

	for (size_t i = 0; i < n; i++)
		if (envmerge_name_len(env[i]) == len && strncmp(env[i], key, len) == 0)
			return (ssize_t)i;
	return -1;
}

/* Overlay entry o replaces old; for LD_PRELOAD, o's library goes in front
 * of old's others, as the preload puts it for every exec after (preloadenv.h). */
static char *
envmerge_value(const char *old, const char *o)
{
	size_t pre = sizeof(ENVMERGE_PRELOAD) - 1, n;
	const char *list;
	char *out;

	if (strncmp(o, ENVMERGE_PRELOAD, pre) != 0)
		return strdup(o);
	list = old ? old + pre : NULL;	/* old is named as o is */
	n = preloadenv_first(NULL, 0, o + pre, list);
	if ((out = malloc(pre + n + 1)) == NULL)
		return NULL;
	memcpy(out, ENVMERGE_PRELOAD, pre);
	preloadenv_first(out + pre, n + 1, o + pre, list);
	return out;
}

char **
shellesc_env_merge(const struct shellesc_session *s, char *const *base)
{
	size_t n = 0, k = 0, extra = 0;
	char **env;

	if (base == NULL)
		base = environ;
	while (base[n])
		n++;
	while (s->env[extra])
		extra++;
	if ((env = calloc(n + extra + 1, sizeof(char *))) == NULL)
		return NULL;
	for (; k < n; k++)
		if ((env[k] = strdup(base[k])) == NULL)
			goto fail;
	for (size_t i = 0; i < extra; i++) {
		ssize_t at = envmerge_find(env, k, s->env[i]);
		char *v = envmerge_value(at >= 0 ? env[at] : NULL, s->env[i]);

		if (v == NULL)
			goto fail;
		if (at >= 0) {
			free(env[at]);
			env[at] = v;
		} else
			env[k++] = v;
	}
	return env;
fail:
	shellesc_env_free(env);
	return NULL;
}

void
shellesc_env_free(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}
