/* envmerge.c: laying a session's overlay on an environment. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

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

/* Overlay entry o replaces env[i]; LD_PRELOAD goes in front of the old value. */
static char *
envmerge_value(const char *old, const char *o)
{
	char *out;

	if (old && strncmp(o, "LD_PRELOAD=", 11) == 0 && old[11] != '\0') {
		if (asprintf(&out, "%s:%s", o, old + 11) < 0)
			return NULL;
		return out;
	}
	return strdup(o);
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
