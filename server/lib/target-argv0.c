/*
 * target-argv0.c: argv[0] is part of what runs.  Many programs choose what
 * they do by the name argv[0] gives them: git runs "git-archive ..." as
 * "git archive ...", unxz is "xz -d", sudoedit is "sudo -e", busybox runs
 * the applet it is called as.  The caller writes argv[0], so a rule for
 * "git status" must not be met by git called "git-archive" with "status"
 * as its first argument.
 *
 * So the command is decided in a canonical form that says the same thing
 * with argv[0] set to the program's own name: a program of a known family
 * (by the name of its real path, which the caller cannot choose) called by
 * another name of the family has that name's meaning spelled out in
 * arguments; any other program's argv[0] becomes the name of its real
 * path.  The canonical argv is the target's argv: what the rules see and
 * what an escalation runs, so nothing the policy did not see picks the
 * program's behaviour outside.  The request keeps argv[0] as written
 * (shellesc_request_argv) for prompts to show.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

#define ARGV0_MAX_WORDS	3	/* words an argv[0] stands for, at most */

/* One meaning of argv[0] for a family: a name (matched as the program
 * matches it) and the words it stands for. */
struct argv0_name {
	const char *name;
	enum { ARGV0_IS, ARGV0_HAS, ARGV0_PREFIX } how;
	const char *words[ARGV0_MAX_WORDS];	/* NULL-ended; "" = the rest of the
						 * name after a prefix */
};

struct argv0_family {
	const char *const *members;	/* real-path names of the program */
	const char *main;		/* the name that means the program itself */
	const struct argv0_name *names;	/* tried in order, the first wins */
};

static const char *const git_m[] = { "git", NULL };
static const struct argv0_name git_n[] = {
	{ "git-", ARGV0_PREFIX, { "" } }, { NULL, 0, { NULL } } };

/* xz: src/xz/args.c, by strstr on the name */
static const char *const xz_m[] = { "xz", "unxz", "xzcat", "lzma", "unlzma", "lzcat", NULL };
static const struct argv0_name xz_n[] = {
	{ "xzcat", ARGV0_HAS, { "--decompress", "--stdout" } },
	{ "unxz", ARGV0_HAS, { "--decompress" } },
	{ "lzcat", ARGV0_HAS, { "--format=lzma", "--decompress", "--stdout" } },
	{ "unlzma", ARGV0_HAS, { "--format=lzma", "--decompress" } },
	{ "lzma", ARGV0_HAS, { "--format=lzma" } }, { NULL, 0, { NULL } } };

/* bzip2: bzip2.c, by substrings of the name */
static const char *const bz_m[] = { "bzip2", "bunzip2", "bzcat", NULL };
static const struct argv0_name bz_n[] = {
	{ "unzip", ARGV0_HAS, { "-d" } }, { "UNZIP", ARGV0_HAS, { "-d" } },
	{ "z2cat", ARGV0_HAS, { "-d", "-c" } }, { "Z2CAT", ARGV0_HAS, { "-d", "-c" } },
	{ "zcat", ARGV0_HAS, { "-d", "-c" } }, { "ZCAT", ARGV0_HAS, { "-d", "-c" } },
	{ NULL, 0, { NULL } } };

/* gzip: gzip.c, "un*" and "gun*" decompress, "?cat" and "gzcat" to stdout */
static const char *const gz_m[] = { "gzip", "gunzip", "zcat", "gzcat", NULL };
static const struct argv0_name gz_n[] = {
	{ "un", ARGV0_PREFIX, { "-d" } }, { "gun", ARGV0_PREFIX, { "-d" } },
	{ "zcat", ARGV0_IS, { "-d", "-c" } }, { "gzcat", ARGV0_IS, { "-d", "-c" } },
	{ NULL, 0, { NULL } } };

static const char *const sudo_m[] = { "sudo", "sudoedit", NULL };
static const struct argv0_name sudo_n[] = {
	{ "sudoedit", ARGV0_IS, { "-e" } }, { NULL, 0, { NULL } } };

/* systemctl: systemd's aliases; "systemctl NAME" for the verbs it has, a
 * failing verb for the others (decided, and escalated, as that) */
static const char *const sysd_m[] = { "systemctl", NULL };
static const struct argv0_name sysd_n[] = {
	{ "reboot", ARGV0_IS, { "reboot" } }, { "halt", ARGV0_IS, { "halt" } },
	{ "poweroff", ARGV0_IS, { "poweroff" } }, { "shutdown", ARGV0_IS, { "shutdown" } },
	{ "telinit", ARGV0_IS, { "telinit" } }, { "runlevel", ARGV0_IS, { "runlevel" } },
	{ NULL, 0, { NULL } } };

/* busybox, toybox: "busybox APPLET" (target_applet then sees the applet) */
static const char *const bb_m[] = { "busybox", NULL };
static const char *const tb_m[] = { "toybox", NULL };
static const struct argv0_name applet_n[] = {
	{ "", ARGV0_PREFIX, { "" } }, { NULL, 0, { NULL } } };

static const struct argv0_family argv0_families[] = {
	{ git_m, "git", git_n }, { xz_m, "xz", xz_n }, { bz_m, "bzip2", bz_n },
	{ gz_m, "gzip", gz_n }, { sudo_m, "sudo", sudo_n }, { sysd_m, "systemctl", sysd_n },
	{ bb_m, "busybox", applet_n }, { tb_m, "toybox", applet_n },
};

static const char *
argv0_base(const char *s)
{
	const char *slash = strrchr(s, '/');

	return slash ? slash + 1 : s;
}

static const struct argv0_family *
argv0_family(const char *real)
{
	for (size_t i = 0; i < sizeof(argv0_families) / sizeof(argv0_families[0]); i++)
		for (const char *const *m = argv0_families[i].members; *m != NULL; m++)
			if (strcmp(*m, real) == 0)
				return &argv0_families[i];
	return NULL;
}

/* The meaning of the name, or NULL; *rest: the name past a prefix. */
static const struct argv0_name *
argv0_meaning(const struct argv0_family *fam, const char *name, const char **rest)
{
	if (strcmp(name, fam->main) == 0 || name[0] == '\0')
		return NULL;
	for (const struct argv0_name *n = fam->names; n->name != NULL; n++) {
		size_t len = strlen(n->name);

		*rest = name + len;
		if ((n->how == ARGV0_IS && strcmp(name, n->name) == 0) ||
		    (n->how == ARGV0_HAS && strstr(name, n->name) != NULL) ||
		    (n->how == ARGV0_PREFIX && strncmp(name, n->name, len) == 0))
			return n;
	}
	return NULL;
}

/* argv with argv[0] main and the words of n (may be NULL) after it. */
static int
argv0_rewrite(struct target *t, const char *main, const struct argv0_name *n,
    const char *rest)
{
	char *const *argv = t->pub.argv;
	size_t nw = 0, argc = t->pub.argc > 0 ? t->pub.argc : 1;
	char **out;

	while (n != NULL && nw < ARGV0_MAX_WORDS && n->words[nw] != NULL)
		nw++;
	if ((out = calloc(argc + nw + 1, sizeof(char *))) == NULL)
		return -ENOMEM;
	out[0] = (char *)main;
	for (size_t i = 0; i < nw; i++)
		out[1 + i] = (char *)(n->words[i][0] != '\0' ? n->words[i] : rest);
	for (size_t i = 1; i < t->pub.argc; i++)
		out[nw + i] = argv[i];
	free(t->argv);
	t->pub.argv = t->argv = out;
	t->pub.argc = argc + nw;
	return 0;
}

int
target_argv0(struct target *t)
{
	const struct argv0_family *fam = NULL;
	const struct argv0_name *n = NULL;
	const char *real, *name, *rest = "";

	if (t->path == NULL || t->pub.argv == NULL)
		return 0;	/* no name of its own: argv[0] stays */
	real = argv0_base(t->path);
	name = t->pub.argv[0] != NULL ? argv0_base(t->pub.argv[0]) : "";
	/* a family's programs are ELF files (Debian's zcat is a script) */
	if (t->elf && (fam = argv0_family(real)) != NULL)
		n = argv0_meaning(fam, name, &rest);
	if (n != NULL && n->words[0] != NULL && n->words[0][0] == '\0' && rest[0] == '\0')
		n = NULL;	/* "git-": nothing it names */
	if (fam != NULL)
		real = fam->main;	/* a link of the family named as itself */
	if (n == NULL && t->pub.argv[0] != NULL && strcmp(t->pub.argv[0], real) == 0)
		return 0;
	return argv0_rewrite(t, real, n, rest);
}
