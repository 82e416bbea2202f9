/*
 * escenv.c: the environment of an escalated command.
 *
 * An escalated command runs outside the sandbox, on the caller's cwd and
 * argv, but its environment is not the caller's: any variable the
 * sandboxed side chose could pick the code it runs (HOME's .gitconfig,
 * PATH's first gzip, a GIT_TRACE file to write, a library to preload...),
 * and no blocklist can name them all.  It gets exactly:
 *
 *  - the session's own values of escenv_session[] (PATH, HOME, USER,
 *    SHELL, TMPDIR...), taken once when the session starts: where
 *    programs are found, whose configuration they read, where temporary
 *    files go.  PATH keeps only its absolute directories (an empty or
 *    relative one would search the caller's cwd; path.h's PATH_ABSOLUTE),
 *    and none longer than an exec could search.  The caller's values of
 *    these names are never used, not even when it has the name and the
 *    session does not;
 *  - the caller's values of escenv_caller[] (locale, terminal, time zone,
 *    sizes: how output looks), each checked, e.g. a locale name without
 *    '/', a time zone under the system's zone files;
 *  - the caller's values of the names the embedder passes
 *    (shellesc_config.pass_env), as they are.
 *
 * Names matching the scrub list are never taken from the caller.  Of a
 * name the caller gives twice, the first (what getenv(3) reads) counts.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "server.h"

static const char *const escenv_session[] = {
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TMPDIR", "MAIL",
	"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS",
	"SSH_AUTH_SOCK", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME", "XDG_CACHE_HOME",
	"XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
	NULL
};

#define ESCENV_VALUE_MAX 256

/* Visible ASCII (no space, no control byte), none of reject, at most ESCENV_VALUE_MAX. */
static bool
escenv_visible(const char *v, const char *reject)
{
	size_t n = 0;

	for (; v[n]; n++)
		if (v[n] <= ' ' || v[n] > '~' || strchr(reject, v[n]) || n >= ESCENV_VALUE_MAX)
			return false;
	return true;
}

/* A locale name: glibc would load one with a '/' from that path. */
static bool
escenv_locale(const char *v)
{
	return escenv_visible(v, "/%");
}

/* A terminal type: a terminfo entry's name. */
static bool
escenv_term(const char *v)
{
	for (const char *p = v; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._+-", *p))
			return false;
	return *v != '\0' && strlen(v) <= 64;
}

/* A time zone: POSIX rules, a name under the zone files, or a path into them; no "..". */
static bool
escenv_tz(const char *v)
{
	static const char zones[] = "/usr/share/zoneinfo/";

	if (*v == ':')
		v++;
	if (!escenv_visible(v, "%") || (*v == '/' && strncmp(v, zones, sizeof(zones) - 1) != 0))
		return false;
	for (const char *p = v; (p = strstr(p, "..")) != NULL; p += 2)
		if ((p == v || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return false;
	return true;
}

/* A terminal size. */
static bool
escenv_digits(const char *v)
{
	size_t n = strspn(v, "0123456789");

	return n > 0 && n <= 5 && v[n] == '\0';
}

/* A flag whose value is only looked at, never used as a name. */
static bool
escenv_flag(const char *v)
{
	return escenv_visible(v, "");
}

static const struct escenv_keep {
	const char *name;
	bool (*ok)(const char *value);
} escenv_caller[] = {
	{ "LANG", escenv_locale }, { "LANGUAGE", escenv_locale },
	{ "LC_ALL", escenv_locale }, { "LC_ADDRESS", escenv_locale },
	{ "LC_COLLATE", escenv_locale }, { "LC_CTYPE", escenv_locale },
	{ "LC_IDENTIFICATION", escenv_locale }, { "LC_MEASUREMENT", escenv_locale },
	{ "LC_MESSAGES", escenv_locale }, { "LC_MONETARY", escenv_locale },
	{ "LC_NAME", escenv_locale }, { "LC_NUMERIC", escenv_locale },
	{ "LC_PAPER", escenv_locale }, { "LC_TELEPHONE", escenv_locale },
	{ "LC_TIME", escenv_locale },
	{ "TERM", escenv_term }, { "COLORTERM", escenv_term },
	{ "TZ", escenv_tz }, { "COLUMNS", escenv_digits }, { "LINES", escenv_digits },
	{ "NO_COLOR", escenv_flag },
};
#define ESCENV_NCALLER (sizeof(escenv_caller) / sizeof(escenv_caller[0]))

/* Index of entry's name ("NAME=value", name length len) in names, or -1. */
static ssize_t
escenv_index(const char *const *names, const char *entry, size_t len)
{
	for (size_t i = 0; names[i]; i++)
		if (strncmp(names[i], entry, len) == 0 && names[i][len] == '\0')
			return (ssize_t)i;
	return -1;
}

static ssize_t
escenv_caller_index(const char *entry, size_t len)
{
	for (size_t i = 0; i < ESCENV_NCALLER; i++)
		if (strncmp(escenv_caller[i].name, entry, len) == 0 &&
		    escenv_caller[i].name[len] == '\0')
			return (ssize_t)i;
	return -1;
}

bool
escenv_is_session_name(const char *name)
{
	return escenv_index(escenv_session, name, strlen(name)) >= 0;
}

/* "PATH=" and the absolute directories of value (NULL: none, or ENOMEM);
 * one too long for PATH_MAX, which no exec could search, goes too. */
static char *
escenv_path(const char *value, bool *nomem)
{
	char *out = malloc(strlen(value) + 6), *q, dir[PATH_MAX];
	struct path_iter it;

	if ((*nomem = out == NULL))
		return NULL;
	q = stpcpy(out, "PATH=");
	path_iter_init(&it, value, NULL, PATH_ABSOLUTE);
	while (path_next(&it, dir, sizeof(dir))) {
		if (q > out + 5)
			*q++ = ':';
		q = stpcpy(q, dir);
	}
	if (q == out + 5) {
		free(out);
		return NULL;
	}
	return out;
}

/* The entry to keep for session name i from src (NULL when there is none). */
static char *
escenv_session_entry(char *const *src, size_t i, bool *nomem)
{
	size_t len = strlen(escenv_session[i]);
	char *out;

	*nomem = false;
	for (; *src; src++)
		if (strncmp(*src, escenv_session[i], len) == 0 && (*src)[len] == '=') {
			if (strcmp(escenv_session[i], "PATH") == 0)
				return escenv_path(*src + len + 1, nomem);
			*nomem = (out = strdup(*src)) == NULL;
			return out;
		}
	return NULL;
}

char **
escenv_capture(char *const *src)
{
	size_t n = sizeof(escenv_session) / sizeof(escenv_session[0]), k = 0;
	char **out = calloc(n, sizeof(char *));
	bool nomem = out == NULL;

	for (size_t i = 0; !nomem && escenv_session[i]; i++)
		if ((out[k] = escenv_session_entry(src, i, &nomem)) != NULL)
			k++;
	if (nomem) {
		shellesc_env_free(out);
		return NULL;
	}
	return out;
}

/* Whether the caller's entry e (its name len bytes long) goes in; taken[] marks names seen. */
static bool
escenv_take(const struct shellesc_config *cfg, const char *e, size_t len, bool *taken)
{
	ssize_t i = cfg->pass_env ? escenv_index(cfg->pass_env, e, len) : -1;

	if (i >= 0) {
		i += ESCENV_NCALLER;
		if (taken[i])
			return false;
		return taken[i] = true;
	}
	if ((i = escenv_caller_index(e, len)) < 0 || taken[i])
		return false;
	taken[i] = true;
	return escenv_caller[i].ok(e + len + 1) && !scrub_match(e, cfg->scrub);
}

char **
escenv_build(const struct shellesc_config *cfg, char *const *session, char *const *caller)
{
	size_t ns = 0, npass = 0, k = 0;
	char **out;
	bool *taken;

	while (session[ns])
		ns++;
	while (cfg->pass_env && cfg->pass_env[npass])
		npass++;
	out = calloc(ns + ESCENV_NCALLER + npass + 1, sizeof(char *));
	taken = calloc(ESCENV_NCALLER + npass, sizeof(bool));
	if (out == NULL || taken == NULL) {
		free(out);
		free(taken);
		return NULL;
	}
	memcpy(out, session, ns * sizeof(char *));
	k = ns;
	for (; *caller; caller++) {
		const char *eq = strchr(*caller, '=');

		if (eq != NULL && escenv_take(cfg, *caller, (size_t)(eq - *caller), taken))
			out[k++] = *caller;
	}
	free(taken);
	return out;
}

int
escenv_check_pass(const struct loop *l, const char *const *names)
{
	for (; names && *names; names++) {
		const char *n = *names;
		size_t len = strlen(n);
		char entry[len + 2];

		memcpy(entry, n, len);
		memcpy(entry + len, "=", 2);
		if (len == 0 || strchr(n, '=') != NULL)
			loop_log(l, SHELLESC_LOG_ERROR, "cannot pass '%s' to escalated commands: "
			    "not a variable's name", n);
		else if (escenv_is_session_name(n))
			loop_log(l, SHELLESC_LOG_ERROR, "cannot pass %s to escalated commands: "
			    "theirs is the session's own", n);
		else if (scrub_match(entry, l->cfg->scrub))
			loop_log(l, SHELLESC_LOG_ERROR, "cannot pass %s to escalated commands: "
			    "it can make a program run code of the caller's choosing", n);
		else
			continue;
		return -EINVAL;
	}
	return 0;
}

/* A deep copy of env (its strings borrowed), for shellesc_env_free. */
static char **
escenv_copy(char *const *env)
{
	size_t n = 0;
	char **out;

	while (env[n])
		n++;
	if ((out = calloc(n + 1, sizeof(char *))) == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if ((out[i] = strdup(env[i])) == NULL) {
			shellesc_env_free(out);
			return NULL;
		}
	return out;
}

char **
shellesc_env_build(const struct shellesc_config *cfg, char *const *caller)
{
	extern char **environ;
	struct shellesc_config c = *cfg;
	char **session, **built, **out = NULL;

	if (c.scrub == NULL)
		c.scrub = shellesc_default_scrub;
	session = escenv_capture(c.session_env ? c.session_env : environ);
	built = session ? escenv_build(&c, session, caller ? caller : environ) : NULL;
	if (built != NULL)
		out = escenv_copy(built);
	free(built);		/* its strings are session's and caller's */
	shellesc_env_free(session);
	if (out == NULL)
		errno = ENOMEM;
	return out;
}
