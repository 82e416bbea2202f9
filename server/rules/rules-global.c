/*
 * rules-global.c: options that come before a subcommand.
 *
 * "git -C dir push" is "git push" run elsewhere: a prompt or deny rule
 * ["git", "push"] must not be walked around by writing an option first.
 * For a few programs whose global options come before the subcommand
 * (git, docker, kubectl, npm, cargo), this file says where the subcommand
 * may start, knowing which of their options take a value.  It is used for
 * prompt and deny rules only (rules-match.c), so that it can only make a
 * decision stricter: run and escalate rules stay exact.
 *
 * Where it cannot tell -- an option it does not know, which may or may not
 * take the next word as its value -- it answers both places, so a guess
 * never lets a command through (fail closed).  The scan is one pass over
 * the leading options, keeping which of the next two words may start a
 * word of their own; nothing is allocated.
 */
#include "config.h"

#include <string.h>

#include "rules-int.h"

/* One program's options before the subcommand.  Long options are written
 * without their dashes; a long option taking a value takes it attached
 * (--name=value) or as the next word. */
struct rules_global_prog {
	const char *name;
	const char *short_value;	/* short options taking a value */
	const char *short_flag;		/* short options without one */
	const char *const *long_value;
	const char *const *long_flag;
	bool cluster;			/* -abc is -a -b -c; -Xvalue attaches */
	bool plus_first;		/* a first word +WORD (rustup's +toolchain) */
};

/* git(1) OPTIONS; -C and -c take the next word only. */
static const char *const git_long_value[] = {
	"git-dir", "work-tree", "namespace", "super-prefix", "attr-source",
	"shallow-file", NULL,
};
static const char *const git_long_flag[] = {
	"version", "help", "exec-path", "html-path", "man-path", "info-path",
	"paginate", "no-pager", "no-replace-objects", "no-lazy-fetch", "bare",
	"literal-pathspecs", "no-literal-pathspecs", "glob-pathspecs",
	"noglob-pathspecs", "icase-pathspecs", "no-optional-locks", "no-advice",
	NULL,
};

/* docker --help: the global options (pflag: values attach or follow). */
static const char *const docker_long_value[] = {
	"config", "context", "host", "log-level", "tlscacert", "tlscert",
	"tlskey", NULL,
};
static const char *const docker_long_flag[] = {
	"debug", "tls", "tlsverify", "version", "help", NULL,
};

/* kubectl options (the flags every command takes). */
static const char *const kubectl_long_value[] = {
	"as", "as-group", "as-uid", "cache-dir", "certificate-authority",
	"client-certificate", "client-key", "cluster", "context", "kubeconfig",
	"namespace", "profile", "profile-output", "request-timeout", "server",
	"tls-server-name", "token", "user", "username", "password", "v",
	"vmodule", "log-flush-frequency", NULL,
};
static const char *const kubectl_long_flag[] = {
	"insecure-skip-tls-verify", "match-server-version", "disable-compression",
	"warnings-as-errors", "help", NULL,
};

/* npm: the configuration options most written before the command. */
static const char *const npm_long_value[] = {
	"prefix", "registry", "cache", "userconfig", "globalconfig", "loglevel",
	"workspace", "tag", "otp", NULL,
};
static const char *const npm_long_flag[] = {
	"global", "silent", "quiet", "verbose", "workspaces", "offline",
	"prefer-offline", "yes", "no", "force", "dry-run", "help", "version",
	NULL,
};

/* cargo --help: the options before the command. */
static const char *const cargo_long_value[] = {
	"color", "config", "explain", NULL,
};
static const char *const cargo_long_flag[] = {
	"verbose", "quiet", "locked", "offline", "frozen", "list", "version",
	"help", NULL,
};

static const struct rules_global_prog rules_global_progs[] = {
	{ "git", "Cc", "vhpP", git_long_value, git_long_flag, false, false },
	{ "docker", "cHl", "Dvh", docker_long_value, docker_long_flag, true, false },
	{ "kubectl", "nsv", "h", kubectl_long_value, kubectl_long_flag, true, false },
	{ "npm", "Cw", "gsqdyhv", npm_long_value, npm_long_flag, true, false },
	{ "cargo", "CZ", "vqVh", cargo_long_value, cargo_long_flag, true, true },
};

#define RULES_GLOBAL_NPROGS \
	(sizeof(rules_global_progs) / sizeof(rules_global_progs[0]))

/* Where the next word may start: after this word (1), after the next (2). */
#define RULES_GLOBAL_NEXT	0x1
#define RULES_GLOBAL_SKIP	0x2

static const struct rules_global_prog *
rules_global_find(const char *name)
{
	for (size_t i = 0; i < RULES_GLOBAL_NPROGS; i++)
		if (strcmp(rules_global_progs[i].name, name) == 0)
			return &rules_global_progs[i];
	return NULL;
}

static bool
rules_global_listed(const char *const *list, const char *s, size_t len)
{
	for (; *list != NULL; list++)
		if (strlen(*list) == len && strncmp(*list, s, len) == 0)
			return true;
	return false;
}

/* "--name", "--name=value" (s past the dashes). */
static unsigned
rules_global_long(const struct rules_global_prog *p, const char *s)
{
	const char *eq = strchr(s, '=');

	if (*s == '\0' || eq != NULL)
		return RULES_GLOBAL_NEXT;	/* "--", or the value attached */
	if (rules_global_listed(p->long_value, s, strlen(s)))
		return RULES_GLOBAL_SKIP;
	if (rules_global_listed(p->long_flag, s, strlen(s)))
		return RULES_GLOBAL_NEXT;
	return RULES_GLOBAL_NEXT | RULES_GLOBAL_SKIP;
}

/* "-X", or a cluster "-abX" / "-Xvalue" where the program has them (s
 * past the dash). */
static unsigned
rules_global_short(const struct rules_global_prog *p, const char *s)
{
	if (!p->cluster && s[1] != '\0')
		return RULES_GLOBAL_NEXT | RULES_GLOBAL_SKIP;
	for (; *s != '\0'; s++) {
		if (strchr(p->short_value, *s) != NULL)
			return s[1] != '\0' ? RULES_GLOBAL_NEXT : RULES_GLOBAL_SKIP;
		if (strchr(p->short_flag, *s) == NULL)
			return RULES_GLOBAL_NEXT | RULES_GLOBAL_SKIP;
	}
	return RULES_GLOBAL_NEXT;
}

/* Where the word after the option w may start; 0: w is not an option. */
static unsigned
rules_global_word(const struct rules_global_prog *p, const char *w, size_t i)
{
	if (p->plus_first && i == 0 && w[0] == '+')
		return RULES_GLOBAL_NEXT;
	if (w[0] != '-' || w[1] == '\0')
		return 0;
	return w[1] == '-' ? rules_global_long(p, w + 2) : rules_global_short(p, w + 1);
}

bool
rules_global_known(const char *name)
{
	return rules_global_find(name) != NULL;
}

void
rules_global_each(const char *name, const char *const *args, size_t nargs,
    void (*fn)(void *arg, size_t start), void *arg)
{
	const struct rules_global_prog *p = rules_global_find(name);
	bool may[3] = { true, false, false };	/* word i, i + 1, i + 2 */
	unsigned next;

	for (size_t i = 0; p != NULL && i < nargs; i++) {
		if (may[0]) {
			if ((next = rules_global_word(p, args[i], i)) == 0 && i > 0)
				fn(arg, i);
			may[1] |= (next & RULES_GLOBAL_NEXT) != 0;
			may[2] |= (next & RULES_GLOBAL_SKIP) != 0;
		}
		if (!may[1] && !may[2])
			return;
		may[0] = may[1];
		may[1] = may[2];
		may[2] = false;
	}
}
