/*
 * cli-json.c: JSON for the audit log, the approver and exec's result.
 *
 * argv, paths and output are bytes, JSON strings are Unicode.  The
 * encoding is lossless: bytes that are valid UTF-8 are a plain string
 * (control characters escaped by JSON itself, NUL as \u0000); anything
 * else is {"base64": "..."} of the exact bytes (RFC 4648, with padding).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli-json.h"
#include "utf8.h"

static const char cli_b64[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static char *
cli_json_b64(const unsigned char *p, size_t n)
{
	char *out = malloc((n + 2) / 3 * 4 + 1), *q = out;

	for (size_t i = 0; out && i < n; i += 3) {
		uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) |
		    (i + 2 < n ? p[i + 2] : 0);

		*q++ = cli_b64[v >> 18];
		*q++ = cli_b64[(v >> 12) & 63];
		*q++ = i + 1 < n ? cli_b64[(v >> 6) & 63] : '=';
		*q++ = i + 2 < n ? cli_b64[v & 63] : '=';
	}
	if (out)
		*q = '\0';
	return out;
}

static int
cli_json_b64val(char ch)
{
	const char *d = ch ? strchr(cli_b64, ch) : NULL;

	return d ? (int)(d - cli_b64) : -1;
}

/* Decoded into a NUL-terminated string; NULL if s is not base64 of bytes
 * without a NUL (a path or an argument cannot hold one). */
static char *
cli_json_unb64(const char *s)
{
	size_t n = strlen(s), pad, k = 0;
	char *out;

	if (n % 4 != 0 || (out = malloc(n / 4 * 3 + 1)) == NULL)
		return NULL;
	pad = (n > 0 && s[n - 1] == '=') + (n > 1 && s[n - 2] == '=');
	for (size_t i = 0; i < n; i += 4) {
		uint32_t v = 0;

		for (size_t j = i; j < i + 4; j++) {
			int d = j >= n - pad ? 0 : cli_json_b64val(s[j]);

			if (d < 0)
				goto bad;
			v = v << 6 | (uint32_t)d;
		}
		for (int b = 16; b >= 0; b -= 8)
			out[k++] = (char)(v >> b);
	}
	k -= pad;
	if (memchr(out, '\0', k) != NULL)
		goto bad;
	out[k] = '\0';
	return out;
bad:
	free(out);
	return NULL;
}

json_t *
cli_json_b64_object(const char *p, size_t n)
{
	char *b = cli_json_b64((const unsigned char *)p, n);
	json_t *o = b ? json_pack("{s:s}", "base64", b) : NULL;

	free(b);
	return o;
}

json_t *
cli_json_bytes(const char *p, size_t n)
{
	return utf8_valid(p, n) ? json_stringn(p, n) : cli_json_b64_object(p, n);
}

json_t *
cli_json_str(const char *s)
{
	return s ? cli_json_bytes(s, strlen(s)) : json_null();
}

json_t *
cli_json_strv(char *const *v)
{
	json_t *a = json_array();

	for (size_t i = 0; a && v && v[i]; i++)
		json_array_append_new(a, cli_json_str(v[i]));
	return a;
}

char *
cli_json_unbytes(const json_t *j)
{
	const char *s = json_string_value(j);

	if (s != NULL)
		return strlen(s) == json_string_length(j) ? strdup(s) : NULL;
	if ((s = json_string_value(json_object_get(j, "base64"))) != NULL)
		return cli_json_unb64(s);
	return NULL;
}

/* The server's facts about the file that will run. */
static json_t *
cli_json_flags(unsigned facts)
{
	static const struct { unsigned bit; const char *name; } names[] = {
		{ SHELLESC_TARGET_STATIC, "static" }, { SHELLESC_TARGET_SETID, "setid" },
		{ SHELLESC_TARGET_SCRIPT, "script" }, { SHELLESC_TARGET_WRITABLE, "writable" },
		{ SHELLESC_TARGET_LOADER_OPTIONS, "loader-options" },
	};
	json_t *a = json_array();

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (facts & names[i].bit)
			json_array_append_new(a, json_string(names[i].name));
	return a;
}

/* The rule that decided, or null when none matched. */
static json_t *
cli_json_rule(const struct cli_verdict *v)
{
	if (v->rule == RULES_NONE)
		return json_null();
	return json_pack("{s:o, s:s, s:o, s:o}", "source", cli_json_str(v->source),
	    "decision", rules_decision_name(v->rule),
	    "justification", cli_json_str(v->justification),
	    "profile", cli_profile_json(v->profile, v->rule));
}

/* Which client caught the exec; "unknown" for one that does not say. */
static const char *
cli_json_intercept(unsigned flags)
{
	if (flags & SHELLESC_ASKED_BY_KERNEL)
		return "kernel";
	if (flags & SHELLESC_ASKED_BY_PRELOAD)
		return "preload";
	return flags & SHELLESC_ASKED_BY_WRAPPER ? "wrapper" : "unknown";
}

/* A script's #! chain: each program's path and argv. */
static json_t *
cli_json_chain(const struct shellesc_target *t)
{
	json_t *a = json_array();

	for (size_t i = 0; a && t->error == 0 && i < t->ninterp; i++)
		json_array_append_new(a, json_pack("{s:o, s:o}",
		    "path", cli_json_str(t->interp[i].path),
		    "argv", cli_json_strv(t->interp[i].argv)));
	return a;
}

static json_t *cli_json_request_facts(const struct shellesc_request *req,
    const struct cli_verdict *v);

/* A request as the audit log and the approver see it: argv0 is the
 * caller's argv[0] when it is not target_argv's (which says what it does),
 * interpreters a script's #! chain. */
json_t *
cli_json_request(const struct shellesc_request *req, const struct cli_verdict *v)
{
	const struct shellesc_target *t = shellesc_request_target(req);
	char *const *argv = shellesc_request_argv(req);
	json_t *j = cli_json_request_facts(req, v);
	bool differs = argv && argv[0] && t->argv && t->argv[0] && strcmp(argv[0], t->argv[0]);

	if (j == NULL)
		return NULL;
	json_object_set_new(j, "argv0", differs ? cli_json_str(argv[0]) : json_null());
	json_object_set_new(j, "interpreters", cli_json_chain(t));
	/* what an escalation of it runs under: the approver's yes means it */
	json_object_set_new(j, "profile", cli_profile_json(v->profile, RULES_ESCALATE));
	/* the caller's own request (mcp's sandbox_permissions): untrusted words */
	if (v->ask != NULL)
		json_object_set_new(j, "requested", json_pack("{s:s, s:o, s:o}", "profile",
		    v->ask->profile, "justification", cli_json_str(v->ask->justification),
		    "prefix_rule", cli_json_strv(v->ask->prefix_rule)));
	return j;
}

static json_t *
cli_json_request_facts(const struct shellesc_request *req, const struct cli_verdict *v)
{
	const struct shellesc_target *t = shellesc_request_target(req);

	pid_t ppid = shellesc_request_ppid(req);

	return json_pack("{s:I, s:I, s:o, s:I, s:I, s:o, s:o, s:o, s:o, s:b, s:o, s:o, s:o, s:s, s:o}",
	    "id", (json_int_t)shellesc_request_id(req),
	    "pid", (json_int_t)shellesc_request_pid(req),
	    "ppid", ppid > 0 ? json_integer(ppid) : json_null(),
	    "uid", (json_int_t)(int)shellesc_request_uid(req),
	    "gid", (json_int_t)(int)shellesc_request_gid(req),
	    "program", cli_json_str(shellesc_request_program(req)),
	    "file", cli_json_str(shellesc_request_file(req)),
	    "argv", cli_json_strv(shellesc_request_argv(req)),
	    "cwd", cli_json_str(shellesc_request_cwd(req)),
	    "cwd_writable", shellesc_request_cwd_writable(req) != 0,
	    "target", cli_json_str(t->error == 0 ? t->path : NULL),
	    "target_argv", cli_json_strv(t->argv),
	    "flags", cli_json_flags(t->error == 0 ? t->facts : 0),
	    "intercept", cli_json_intercept(shellesc_request_flags(req)),
	    "rule", cli_json_rule(v));
}

/* A request and how it was answered, as the audit log and mcp show it. */
json_t *
cli_json_decision(const struct shellesc_request *req, const struct cli_verdict *v,
    enum shellesc_action a, const char *reason)
{
	json_t *j = cli_json_request(req, v);

	json_object_set_new(j, "decision", json_string(cli_action_name(a)));
	json_object_set_new(j, "reason", cli_json_str(reason));
	json_object_set_new(j, "asked", cli_json_str(v->asked));
	json_object_set_new(j, "answer", cli_json_str(v->answer));
	/* the audit names the profile an escalation runs under; null else */
	json_object_set_new(j, "profile", a == SHELLESC_ESCALATE ?
	    cli_profile_json(v->profile, RULES_ESCALATE) : json_null());
	return j;
}

/* Text for a reader that wants a string whatever the bytes (mcp's and
 * exec's output): each byte that does not start valid UTF-8 becomes
 * U+FFFD, and *replaced (if not NULL) says whether one did. */
json_t *
cli_json_text(const char *p, size_t n, bool *replaced)
{
	char *out = malloc(n * 3 + 1), *q = out;
	json_t *j;

	if (out == NULL)
		return NULL;
	for (size_t i = 0, k; i < n; i += k ? k : 1) {
		if ((k = utf8_len(p + i, n - i)) != 0)
			q = mempcpy(q, p + i, k);
		else {
			q = mempcpy(q, "\xef\xbf\xbd", 3);
			if (replaced)
				*replaced = true;
		}
	}
	j = json_stringn(out, (size_t)(q - out));
	free(out);
	return j;
}

json_t *
cli_json_lossy(const char *p, size_t n)
{
	return cli_json_text(p, n, NULL);
}

char *
cli_json_line(json_t *j)
{
	char *s = j ? json_dumps(j, JSON_COMPACT) : NULL, *line = NULL;

	json_decref(j);
	if (s != NULL && asprintf(&line, "%s\n", s) < 0)
		line = NULL;
	free(s);
	return line;
}
