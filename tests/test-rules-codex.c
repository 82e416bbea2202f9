/*
 * test-rules-codex.c: suite rules_codex -- Codex's own examples (its
 * execpolicy documentation and the behaviours its tests check, as data in
 * tests/codex/execpolicy.cases) give Codex's answers here, but for the
 * differences that shellesc-rules(5) lists under COMPATIBILITY, which
 * must give another answer (or the list is out of date).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/base.h"
#include "helpers/rules.h"

#define MAXLINE	512

struct codex_case {
	char name[128];
	char differs[128];		/* "" or the text the man page has */
	struct rules *r;
	bool load_failed, want_failure;
	char file[64];			/* the file being collected */
	char text[8192];
	size_t nchecks, nwrong;
};

static const char *
decision_codex(enum rules_decision d)
{
	return d == RULES_ESCALATE ? "allow" : d == RULES_PROMPT ? "prompt" :
	    d == RULES_DENY ? "forbidden" : d == RULES_NONE ? "none" : "run";
}

/* Load the file collected so far, if any. */
static void
case_flush(struct codex_case *c)
{
	struct rules_error err;

	if (c->file[0] == '\0')
		return;
	if (rules_load_text(c->r, c->file, c->text, strlen(c->text), &err) != 0) {
		c->load_failed = true;
		cr_log_info("%s: %s:%d:%d: %s", c->name, err.file, err.line,
		    err.column, err.msg);
	}
	c->file[0] = c->text[0] = '\0';
}

/* "? ARGV => DECISION": decide ARGV as Codex would be asked it. */
static void
case_check(struct codex_case *c, char *line)
{
	char *arrow = strstr(line, " => "), *argv[32], *save = NULL;
	struct rules_file f = { .path = NULL };
	const char *got;
	size_t n = 0;

	case_flush(c);
	cr_assert_not_null(arrow, "%s: bad check line %s", c->name, line);
	*arrow = '\0';
	for (char *w = strtok_r(line + 2, " ", &save); w && n < 31;
	    w = strtok_r(NULL, " ", &save))
		argv[n++] = w;
	argv[n] = NULL;
	f.path = argv[0];
	f.written = argv[0];
	if (strchr(argv[0], '/') != NULL && argv[0][0] != '/')
		f.path = "/nonexistent/cwd/gradlew";	/* where ./X would run */
	got = decision_codex(rules_decide_file(c->r, &f, argv, NULL));
	c->nchecks++;
	if (strcmp(got, arrow + 4) != 0) {
		c->nwrong++;
		cr_log_info("%s: %s...: %s, Codex %s", c->name, argv[0], got, arrow + 4);
	}
}

/* The man page's COMPATIBILITY WITH CODEX section. */
static char *
man_compat(void)
{
	char *man = th_read_file(TEST_RULES_MAN, NULL), *sec;

	cr_assert_not_null(sec = strstr(man, ".SH COMPATIBILITY WITH CODEX"));
	memmove(man, sec, strlen(sec) + 1);
	if ((sec = strstr(man + 1, "\n.SH ")) != NULL)
		*sec = '\0';
	return man;
}

static void
case_end(struct codex_case *c, size_t *ncases)
{
	char *compat;

	if (c->name[0] == '\0')
		return;
	case_flush(c);
	if (c->want_failure)
		cr_expect(c->load_failed, "%s: loads, Codex refuses it", c->name);
	else
		cr_expect(!c->load_failed, "%s: does not load", c->name);
	if (c->differs[0] == '\0')
		cr_expect_eq(c->nwrong, 0, "%s: %zu of %zu answers differ from "
		    "Codex's", c->name, c->nwrong, c->nchecks);
	else {
		cr_expect_gt(c->nwrong, 0, "%s: listed as a difference, but "
		    "agrees with Codex", c->name);
		compat = man_compat();
		cr_expect_not_null(strstr(compat, c->differs), "%s: shellesc-rules(5) "
		    "does not list \"%s\"", c->name, c->differs);
		free(compat);
	}
	rules_free(c->r);
	memset(c, 0, sizeof(*c));
	(*ncases)++;
}

static void
case_line(struct codex_case *c, char *line, size_t *ncases)
{
	if (strncmp(line, "== ", 3) == 0) {
		case_end(c, ncases);
		snprintf(c->name, sizeof(c->name), "%.120s", line + 3);
		cr_assert_not_null(c->r = rules_new());
		rules_set_codex(c->r, true);	/* Codex's files, read as Codex */
	} else if (c->name[0] == '\0' || (line[0] == '#' && c->file[0] == '\0'))
		return;		/* the header */
	else if (strncmp(line, "differs: ", 9) == 0)
		snprintf(c->differs, sizeof(c->differs), "%.120s", line + 9);
	else if (strncmp(line, "@ ", 2) == 0) {
		case_flush(c);
		snprintf(c->file, sizeof(c->file), "%.60s", line + 2);
	} else if (strncmp(line, "? ", 2) == 0)
		case_check(c, line);
	else if (strcmp(line, "!") == 0) {
		case_flush(c);
		c->want_failure = true;
	} else if (c->file[0] != '\0') {
		cr_assert_lt(strlen(c->text) + strlen(line) + 2, sizeof(c->text));
		strcat(strcat(c->text, line), "\n");
	}
}

Test(rules_codex, codex_examples_give_codex_answers)
{
	static struct codex_case c;
	FILE *fp = fopen(TEST_CODEX_CASES, "r");
	char line[MAXLINE];
	size_t ncases = 0;

	cr_assert_not_null(fp, "%s", TEST_CODEX_CASES);
	setenv("HOME", "/home/codex-user", 1);
	memset(&c, 0, sizeof(c));
	while (fgets(line, sizeof(line), fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		case_line(&c, line, &ncases);
	}
	case_end(&c, &ncases);
	fclose(fp);
	cr_expect_geq(ncases, 30, "%zu cases", ncases);
}

/* The pieces of Codex's language the cases rely on, one by one. */
Test(rules_codex, variables_stand_for_their_values)
{
	struct rules *r = tr_load(
	    "GIT = \"git\"\n"
	    "SUBS = [\"push\", \"fetch\"]\n"
	    "PAT = [GIT, SUBS]\n"
	    "WHY = \"publishes\"\n"
	    "prefix_rule(PAT, \"prompt\", justification = WHY,\n"
	    "    match = [[GIT, \"push\"]])\n"
	    "prefix_rule(pattern = [GIT, SUBS, \"--force\"], decision = \"forbidden\")\n");
	struct rules_match m;

	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "fetch", NULL), RULES_PROMPT);
	cr_expect_eq(rules_decide(r, "/usr/bin/git", (char *const[]){ "git",
	    "push", NULL }, 0, &m), RULES_PROMPT);
	cr_expect_str_eq(m.justification, "publishes");
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "push", "--force", NULL),
	    RULES_DENY);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "status", NULL), RULES_NONE);
	rules_free(r);
}

Test(rules_codex, a_relative_program_matches_as_written)
{
	struct rules *r = tr_load("prefix_rule([\"./gradlew\", \"build\"], "
	    "\"allow\")\n");
	char *const argv[] = { "./gradlew", "build", NULL };
	struct rules_file f = { .path = "/src/app/gradlew", .written = "./gradlew" };
	struct rules_match m;

	cr_expect_eq(rules_decide_file(r, &f, argv, &m), RULES_ESCALATE);
	/* it names no file: it never counts as naming the program's path */
	cr_expect(!m.by_path);
	f.written = "/src/app/gradlew";
	cr_expect_eq(rules_decide_file(r, &f, argv, NULL), RULES_NONE);
	f.written = "app/../gradlew";
	cr_expect_eq(rules_decide_file(r, &f, argv, NULL), RULES_NONE);
	f.written = NULL;
	cr_expect_eq(rules_decide_file(r, &f, argv, NULL), RULES_NONE);
	rules_free(r);
}
