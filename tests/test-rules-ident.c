/*
 * test-rules-ident.c: suite rules_ident -- a file answers to the rules of
 * every path and name that is the same file (rules_decide_file): by inode
 * (hard links, a directory reached through a link), by real path, by the
 * names found in rules_set_path's directories; never by a name the caller
 * chose; and busybox's applet by name.  Files are made in a directory of
 * the test's own.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/rules.h"

#define dir th_suite_dir	/* this test's scratch directory */

TestSuite(rules_ident, .init = th_suite_dir_new, .fini = th_suite_dir_end);

#define ARGV(...) ((char *const[]){ __VA_ARGS__, NULL })

static const char *
at(const char *name)
{
	return th_at(dir, name);
}

static const char *
file(const char *name)
{
	th_write_file(at(name), "#!/bin/sh\n");
	return at(name);
}

/* The file at path as the server finds it: real path and inode. */
static struct rules_file
found(const char *path)
{
	static char real[4096];
	struct rules_file f = { .path = real, .known = true };
	struct stat st;

	cr_assert_not_null(realpath(path, real), "%s: %s", path, strerror(errno));
	cr_assert_eq(stat(real, &st), 0);
	f.dev = st.st_dev;
	f.ino = st.st_ino;
	return f;
}

/* A set from text, "@D@" standing for dir, names looked up in path. */
static struct rules *
load(const char *text, const char *path)
{
	char buf[2048];
	size_t n = 0;
	struct rules *r = rules_new();

	cr_assert_not_null(r);
	if (path != NULL)
		cr_assert_eq(rules_set_path(r, path), 0);
	for (const char *p = text; *p && n < sizeof(buf) - 512; p++)
		if (strncmp(p, "@D@", 3) == 0) {
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s", dir);
			p += 2;
		} else
			buf[n++] = *p;
	buf[n] = '\0';
	tr_add(r, buf);
	return r;
}

Test(rules_ident, hard_link_matches_by_inode)
{
	struct rules *r;
	struct rules_file f;
	struct rules_match m;

	file("tool");
	cr_assert_eq(link(at("tool"), at("alias")), 0);
	r = load("prefix_rule([\"@D@/tool\"], \"deny\")\n", NULL);
	f = found(at("alias"));
	cr_expect_eq(rules_decide_file(r, &f, ARGV("alias"), &m), RULES_DENY);
	cr_expect(m.by_path, "a rule naming the same file is a path rule");
	/* by path alone, without the identity, it is another program */
	f.known = false;
	cr_expect_eq(rules_decide_file(r, &f, ARGV("alias"), NULL), RULES_NONE);
	rules_free(r);
}

/* /bin/rm for a rule on /usr/bin/rm: a directory reached through a link. */
Test(rules_ident, linked_directory_matches_by_real_path)
{
	struct rules *r;
	struct rules_file f;

	cr_assert_eq(mkdir(at("usr"), 0755), 0);
	file("usr/rm");
	cr_assert_eq(symlink("usr", at("bin")), 0);
	r = load("prefix_rule([\"@D@/bin/rm\"], \"deny\")\n", NULL);
	f = found(at("usr/rm"));
	f.known = false;	/* the real path is enough */
	cr_expect_eq(rules_decide_file(r, &f, ARGV("rm"), NULL), RULES_DENY);
	rules_free(r);
}

/* A name rule holds for the file found under that name in the path, under
 * any of its names; a link of the caller's naming lends nothing. */
Test(rules_ident, names_are_looked_up_in_the_path)
{
	struct rules *r;
	struct rules_file f;
	struct rules_match m;

	cr_assert_eq(mkdir(at("bin"), 0755), 0);
	file("bin/python3.11");
	cr_assert_eq(symlink("python3.11", at("bin/python3")), 0);
	file("bin/id");
	r = load("prefix_rule([\"python3\"], \"deny\")\nprefix_rule([\"id\"], \"escalate\")\n",
	    at("bin"));
	f = found(at("bin/python3"));
	cr_expect_str_eq(f.path, at("bin/python3.11"));
	cr_expect_eq(rules_decide_file(r, &f, ARGV("python3"), &m), RULES_DENY);
	cr_expect(!m.by_path);
	/* a link called id is what it links to: no id */
	file("other");
	cr_assert_eq(symlink(at("other"), at("id")), 0);
	f = found(at("id"));
	cr_expect_eq(rules_decide_file(r, &f, ARGV("id"), NULL), RULES_NONE);
	f = found(at("bin/id"));
	cr_expect_eq(rules_decide_file(r, &f, ARGV("id"), NULL), RULES_ESCALATE);
	rules_free(r);
	/* without the directory, python3.11 is no python3 */
	r = load("prefix_rule([\"python3\"], \"deny\")\n", NULL);
	f = found(at("bin/python3"));
	cr_expect_eq(rules_decide_file(r, &f, ARGV("python3"), NULL), RULES_NONE);
	rules_free(r);
}

/* host_executable paths are compared by identity too. */
Test(rules_ident, host_executable_by_identity)
{
	struct rules *r;
	struct rules_file f;

	cr_assert_eq(mkdir(at("bin"), 0755), 0);
	file("bin/git");
	cr_assert_eq(link(at("bin/git"), at("git")), 0);
	file("other-git");
	r = load("host_executable(name = \"git\", paths = [\"@D@/bin/git\"])\n"
	    "prefix_rule([\"git\"], \"deny\")\n", NULL);
	f = found(at("git"));
	cr_expect_eq(rules_decide_file(r, &f, ARGV("git"), NULL), RULES_DENY);
	f = found(at("other-git"));
	cr_expect_eq(rules_decide_file(r, &f, ARGV("other-git"), NULL), RULES_NONE);
	rules_free(r);
}

/* busybox rm -r x: decided as busybox, and as rm with -r x. */
Test(rules_ident, applet_is_decided_by_name)
{
	struct rules *r = tr_load("prefix_rule([\"rm\", \"-r\"], \"deny\")\n");
	struct rules_file f = { .path = "/usr/bin/busybox", .applet = "rm", .applet_argi = 2 };

	cr_expect_eq(rules_decide_file(r, &f, ARGV("busybox", "rm", "-r", "x"), NULL),
	    RULES_DENY);
	cr_expect_eq(rules_decide_file(r, &f, ARGV("busybox", "rm", "-f", "x"), NULL),
	    RULES_NONE);
	f.applet_argi = 1;	/* a link called rm: argv[0] names it */
	cr_expect_eq(rules_decide_file(r, &f, ARGV("rm", "-r", "x"), NULL), RULES_DENY);
	f.applet_argi = 9;	/* past the end: no applet arguments to match */
	cr_expect_eq(rules_decide_file(r, &f, ARGV("rm", "-r"), NULL), RULES_NONE);
	rules_free(r);
}

/* Of two rules of one rank, the one naming the path is reported. */
Test(rules_ident, path_rule_reported_first)
{
	struct rules *r = tr_load("prefix_rule([\"tool\"], \"escalate\")\n"
	    "prefix_rule([\"/opt/tool\"], \"escalate\")\n");
	struct rules_match m;

	cr_expect_eq(rules_decide(r, "/opt/tool", ARGV("tool"), 0, &m), RULES_ESCALATE);
	cr_expect(m.by_path);
	cr_expect_not_null(strstr(m.source, ":2"), "%s", m.source);
	cr_expect_eq(rules_decide(r, "/usr/bin/tool", ARGV("tool"), 0, &m), RULES_ESCALATE);
	cr_expect(!m.by_path);
	rules_free(r);
}

struct seen {
	int n;
	bool tool, deny;
};

static void
each(void *arg, const char *path, enum rules_decision d)
{
	struct seen *s = arg;

	s->n++;
	s->tool |= strcmp(path, "/opt/tool") == 0 && d == RULES_RUN;
	s->deny |= strcmp(path, "/opt/bad") == 0 && d == RULES_DENY;
}

Test(rules_ident, each_path)
{
	struct rules *r = tr_load("prefix_rule([\"/opt/tool\", \"a\"], \"run\")\n"
	    "prefix_rule([[\"/opt/bad\", \"name\"]], \"deny\")\nprefix_rule([\"git\"], \"run\")\n");
	struct seen s = { 0 };

	rules_each_path(r, each, &s);
	cr_expect(s.tool && s.deny);
	cr_expect_eq(s.n, 2);
	rules_free(r);
}

/* argv0 = [...]: the rule matches only a caller's argv[0] it lists, as
 * written or by its basename, and says so (an escalation keeps it). */
Test(rules_ident, argv0_listed_by_a_rule)
{
	struct rules *r = tr_load("prefix_rule([\"git\", \"upload-pack\"], \"escalate\", "
	    "argv0 = [\"git-upload-pack\"])\n");
	struct rules_file f = { .path = "/usr/bin/git", .argv0 = "/usr/lib/git-upload-pack" };
	struct rules_match m;

	cr_expect_eq(rules_decide_file(r, &f, ARGV("git", "upload-pack", "x"), &m),
	    RULES_ESCALATE);
	cr_expect(m.argv0);
	f.argv0 = "git";
	cr_expect_eq(rules_decide_file(r, &f, ARGV("git", "upload-pack", "x"), &m), RULES_NONE);
	f.argv0 = NULL;
	cr_expect_eq(rules_decide_file(r, &f, ARGV("git", "upload-pack", "x"), &m), RULES_NONE);
	rules_free(r);
}

/* A script's #! chain: the strictest decision of the script and each
 * program of its chain wins; one no rule matches adds nothing. */
Test(rules_ident, shebang_chain_is_decided)
{
	struct rules *r = tr_load("prefix_rule([\"rm\"], \"deny\")\n"
	    "prefix_rule([\"/x/s\"], \"escalate\")\n");
	struct rules_file f = { .path = "/x/s", .nchain = 1,
	    .chain = { { .path = "/usr/bin/rm", .argv = ARGV("/bin/rm", "-f", "/x/s", "F") } } };

	cr_expect_eq(rules_decide_file(r, &f, ARGV("s", "F"), NULL), RULES_DENY);
	f.chain[0] = (struct rules_link){ .path = "/usr/bin/sh", .argv = ARGV("/bin/sh", "/x/s") };
	cr_expect_eq(rules_decide_file(r, &f, ARGV("s", "F"), NULL), RULES_ESCALATE);
	rules_free(r);
}
