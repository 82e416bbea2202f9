/* test-rules.c: suite rules -- what rules mean: matching, strictness,
 * host_executable, the wildcard, target flags, examples, reloading. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rules-int.h"
#include "helpers/rules.h"

#define D_NONE	RULES_NONE
#define D_ESC	RULES_ESCALATE
#define D_RUN	RULES_RUN
#define D_ASK	RULES_PROMPT
#define D_DENY	RULES_DENY

Test(rules, pattern_is_a_prefix_of_the_command)
{
	struct rules *r = tr_load("prefix_rule(pattern = [\"git\", \"status\"], "
	    "decision = \"run\")\n");

	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "status", NULL), D_RUN);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "status", "-s", NULL), D_RUN);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", NULL), D_NONE);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "stat", NULL), D_NONE);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "log", "status", NULL), D_NONE);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/gitk", "status", NULL), D_NONE);
	rules_free(r);
}

Test(rules, alternatives_anywhere_in_the_pattern)
{
	struct rules *r = tr_load(
	    "prefix_rule([[\"python3\", \"python\"], \"-m\", [\"pip\", \"venv\"]],"
	    " \"prompt\")\n");

	cr_expect_eq(tr_decide(r, 0, "/usr/bin/python3", "-m", "pip", NULL), D_ASK);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/python", "-m", "venv", "x", NULL),
	    D_ASK);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/python", "-m", "http.server",
	    NULL), D_NONE);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/python2", "-m", "pip", NULL), D_NONE);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/python3", "-c", "pip", NULL), D_NONE);
	rules_free(r);
}

/* Every pair of decisions, in both orders: the stricter wins. */
Test(rules, strictest_wins)
{
	static const char *const names[] = { "escalate", "run", "prompt", "deny" };
	char text[256];

	for (int a = 0; a < 4; a++)
		for (int b = 0; b < 4; b++) {
			struct rules *r;

			snprintf(text, sizeof(text), "prefix_rule([\"make\"], \"%s\")\n"
			    "prefix_rule([\"make\", \"all\"], \"%s\")\n", names[a],
			    names[b]);
			r = tr_load(text);
			cr_expect_eq(tr_decide(r, 0, "/usr/bin/make", "all", NULL),
			    a > b ? a : b, "%s vs %s", names[a], names[b]);
			cr_expect_eq(tr_decide(r, 0, "/usr/bin/make", NULL), a);
			rules_free(r);
		}
}

/* Issue item 1: a forgotten decision must not escalate in shellesc's own
 * files; Codex's files keep Codex's default (allow: escalate). */
Test(rules, decision_defaults_to_prompt_allow_in_codex_files)
{
	const char *text = "prefix_rule(pattern = [\"ls\"])\n"
	    "prefix_rule([\"cp\"], \"allow\")\nprefix_rule([\"rm\"], \"forbidden\")\n";
	struct rules *r = tr_load(text), *codex = rules_new();

	cr_expect_eq(tr_decide(r, 0, "/bin/ls", NULL), D_ASK);
	cr_expect_eq(tr_decide(r, 0, "/bin/cp", "a", "b", NULL), D_ESC);
	cr_expect_eq(tr_decide(r, 0, "/bin/rm", "-rf", "/", NULL), D_DENY);
	cr_assert_not_null(codex);
	rules_set_codex(codex, true);
	tr_add(codex, text);
	cr_expect_eq(tr_decide(codex, 0, "/bin/ls", NULL), D_ESC);
	cr_expect_eq(tr_decide(codex, 0, "/bin/cp", "a", "b", NULL), D_ESC);
	rules_free(r);
	rules_free(codex);
}

Test(rules, match_names_the_deciding_rule)
{
	struct rules *r = tr_load("prefix_rule([\"rm\"], \"deny\")\n"
	    "\n"
	    "prefix_rule([\"rm\"], \"deny\", justification = \"use trash\")\n"
	    "prefix_rule([\"rm\", \"-i\"], \"run\", justification = \"asks\")\n");
	struct rules_match m;

	cr_assert_eq(rules_decide(r, "/bin/rm", (char *[]){ "rm", "-i", NULL },
	    0, &m), D_DENY);
	cr_expect_eq(m.decision, D_DENY);
	cr_expect_str_eq(m.source, "t:1", "the first rule loaded of the strictest");
	cr_expect_null(m.justification);
	rules_free(r);
	r = tr_load("prefix_rule([\"rm\"], \"deny\", justification = \"use trash\")\n");
	rules_decide(r, "/bin/rm", NULL, 0, &m);
	cr_expect_str_eq(m.justification, "use trash");
	cr_expect_str_eq(m.source, "t:1");
	rules_free(r);
}

Test(rules, paths_match_exactly_names_match_basenames)
{
	struct rules *r = tr_load("prefix_rule([\"/usr//bin/./git\"], \"run\")\n"
	    "prefix_rule([\"make\"], \"prompt\")\n");

	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "x", NULL), D_RUN,
	    "rule paths are cleaned like programs are");
	cr_expect_eq(tr_decide(r, 0, "/usr/local/bin/git", NULL), D_NONE);
	cr_expect_eq(tr_decide(r, 0, "git", NULL), D_NONE);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/make", NULL), D_ASK);
	cr_expect_eq(tr_decide(r, 0, "/home/u/bin/make", NULL), D_ASK);
	cr_expect_eq(tr_decide(r, 0, "make", NULL), D_ASK, "a bare name");
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/make/", NULL), D_NONE);
	rules_free(r);
}

Test(rules, host_executable_limits_name_rules_to_its_paths)
{
	struct rules *r = tr_load(
	    "host_executable(name = \"git\", paths = [\"/usr/bin/git\", "
	    "\"/usr/local/bin/git\"])\n"
	    "prefix_rule([\"git\", \"push\"], \"prompt\")\n"
	    "prefix_rule([\"/opt/git\", \"push\"], \"run\")\n");

	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "push", NULL), D_ASK);
	cr_expect_eq(tr_decide(r, 0, "/usr/local/bin/git", "push", NULL), D_ASK);
	cr_expect_eq(tr_decide(r, 0, "/tmp/git", "push", NULL), D_NONE);
	cr_expect_eq(tr_decide(r, 0, "/opt/git", "push", NULL), D_RUN,
	    "path rules are not limited");
	cr_expect_eq(tr_decide(r, 0, "git", "push", NULL), D_ASK,
	    "a bare name is not a path");
	tr_add(r, "host_executable(name = \"git\", paths = [])\n");
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "push", NULL), D_NONE,
	    "a later definition replaces the earlier one");
	rules_free(r);
}

/* Codex consults name rules only if no path rule matched; shellesc takes
 * the strictest of all. */
Test(rules, name_and_path_rules_combine)
{
	struct rules *r = tr_load("prefix_rule([\"/usr/bin/git\"], \"escalate\")\n"
	    "prefix_rule([\"git\", \"push\"], \"deny\")\n"
	    "prefix_rule([\"*\", \"--version\"], \"run\")\n");

	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "push", NULL), D_DENY);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "pull", NULL), D_ESC);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", "--version", NULL), D_RUN);
	rules_free(r);
}

Test(rules, wildcard_matches_any_program)
{
	struct rules *r = tr_load("prefix_rule([\"*\", \"--help\"], \"run\")\n"
	    "prefix_rule([\"echo\", \"*\"], \"prompt\")\n");

	cr_expect_eq(tr_decide(r, 0, "/x/y", "--help", NULL), D_RUN);
	cr_expect_eq(tr_decide(r, 0, "y", "--help", "more", NULL), D_RUN);
	cr_expect_eq(tr_decide(r, 0, "/x/y", NULL), D_NONE);
	cr_expect_eq(tr_decide(r, 0, "/bin/echo", "hi", NULL), D_NONE,
	    "only a first element is the wildcard");
	cr_expect_eq(tr_decide(r, 0, "/bin/echo", "*", NULL), D_ASK);
	cr_expect_eq(tr_decide(r, 0, "/weird/*", "--help", NULL), D_RUN);
	rules_free(r);
}

Test(rules, target_flags_restrict_a_rule)
{
	struct rules *r = tr_load(
	    "prefix_rule([\"*\"], \"run\")\n"
	    "prefix_rule([\"*\"], target = [\"static\"], decision = \"prompt\")\n"
	    "prefix_rule([\"ping\"], target = [\"setid\", \"static\"], "
	    "decision = \"deny\")\n");

	cr_expect_eq(tr_decide(r, 0, "/bin/ls", NULL), D_RUN);
	cr_expect_eq(tr_decide(r, RULES_TARGET_STATIC, "/bin/ls", NULL), D_ASK);
	cr_expect_eq(tr_decide(r, RULES_TARGET_SETID, "/bin/ls", NULL), D_RUN);
	cr_expect_eq(tr_decide(r, 0, "/bin/ping", NULL), D_RUN);
	cr_expect_eq(tr_decide(r, RULES_TARGET_SETID, "/bin/ping", NULL), D_DENY);
	cr_expect_eq(tr_decide(r, RULES_TARGET_STATIC, "/bin/ping", NULL), D_DENY);
	rules_free(r);
}

/* "Set-id programs must be escalated" holds against a run rule, not
 * against prompt or deny. */
Test(rules, target_escalate_outranks_run)
{
	struct rules *r = tr_load(
	    "prefix_rule([\"*\"], target = [\"setid\"], decision = \"escalate\")\n"
	    "prefix_rule([\"*\"], \"run\")\n"
	    "prefix_rule([\"passwd\"], \"prompt\")\n");
	const unsigned setid = RULES_TARGET_SETID;

	cr_expect_eq(tr_decide(r, setid, "/usr/bin/sudo", "id", NULL), D_ESC);
	cr_expect_eq(tr_decide(r, 0, "/usr/bin/sudo", "id", NULL), D_RUN);
	cr_expect_eq(tr_decide(r, setid, "/usr/bin/passwd", NULL), D_ASK);
	rules_free(r);
	r = tr_load("prefix_rule([\"sudo\"], \"escalate\")\nprefix_rule([\"*\"], \"run\")\n");
	cr_expect_eq(tr_decide(r, setid, "/usr/bin/sudo", NULL), D_RUN,
	    "the exception is for target rules only");
	rules_free(r);
}

Test(rules, null_and_empty_commands_match_nothing)
{
	struct rules *r = tr_load("prefix_rule([\"*\"], \"deny\")\n"
	    "prefix_rule([\"ls\"], \"run\")\n");
	struct rules_match m = { .decision = D_RUN, .source = "x" };

	cr_expect_eq(rules_decide(NULL, "/bin/ls", NULL, 0, &m), D_NONE);
	cr_expect(m.decision == D_NONE && m.source == NULL &&
	    m.justification == NULL);
	cr_expect_eq(rules_decide(r, NULL, NULL, 0, NULL), D_NONE);
	cr_expect_eq(rules_decide(r, "", (char *[]){ "", NULL }, 0, NULL), D_NONE);
	cr_expect_eq(rules_decide(r, "/bin/ls", NULL, 0, NULL), D_DENY,
	    "a NULL argv is a command without arguments");
	cr_expect_eq(rules_decide(r, "/bin/ls", (char *[]){ NULL }, 0, NULL), D_DENY);
	rules_free(r);
	r = tr_load("");
	cr_expect_eq(rules_count(r), 0);
	cr_expect_eq(tr_decide(r, 0, "/bin/ls", NULL), D_NONE);
	rules_free(r);
	rules_free(NULL);
}

Test(rules, examples_are_checked_against_their_rule)
{
	struct rules *r;

	setenv("HOME", "/home/t", 1);
	r = tr_load(
	    "host_executable(name = \"git\", paths = [\"/usr/bin/git\"])\n"
	    "prefix_rule(\n"
	    "    pattern = [\"git\", [\"push\", \"fetch\"]],\n"
	    "    decision = \"prompt\",\n"
	    "    match = [[\"git\", \"push\", \"origin\"], \"git fetch 'a b'\",\n"
	    "             \"/usr/bin/git push\"],\n"
	    "    not_match = [[\"git\", \"status\"], \"/opt/git push\", \"gitk push\"],\n"
	    ")\n"
	    "prefix_rule([\"*\"], target = [\"static\"], match = [\"anything\"])\n"
	    "prefix_rule([\"~/bin/x\"], match = [\"~/bin/x\", \"~/./bin//x -v\"])\n"
	    "prefix_rule([\"/usr/bin/y\"], match = [[\"/usr//bin/./y\"]], "
	    "not_match = [\"y\", \"usr/bin/y\"])\n");

	cr_expect_eq(rules_count(r), 4);
	rules_free(r);
}

Test(rules, examples_see_host_executables_of_earlier_files)
{
	struct rules *r = tr_load(
	    "host_executable(name = \"git\", paths = [\"/usr/bin/git\"])\n");
	struct rules_error err;
	const char *bad = "prefix_rule([\"git\"], match = [\"/opt/git\"])\n";

	cr_expect_eq(rules_load_text(r, "u", bad, strlen(bad), &err), -1);
	cr_expect_str_eq(err.file, "u");
	cr_expect(strstr(err.msg, "\"/opt/git\" does not match") != NULL, "%s",
	    err.msg);
	rules_free(r);
}

/* A load that fails takes back its rules and host_executable changes. */
Test(rules, failed_load_changes_nothing)
{
	struct rules *r = tr_load(
	    "host_executable(name = \"git\", paths = [\"/usr/bin/git\"])\n"
	    "prefix_rule([\"git\"], \"run\")\nprefix_rule([\"ls\", \"-l\"], \"run\")\n");
	const char *bad =
	    "host_executable(name = \"git\", paths = [\"/opt/git\"])\n"
	    "prefix_rule([\"ls\", \"-l\"], \"deny\")\n"
	    "prefix_rule([\"cat\"], \"deny\")\n"
	    "prefix_rule([\"x\"], \"nonsense\")\n";
	struct rules_error err;

	for (int i = 0; i < 3; i++) {
		cr_assert_eq(rules_load_text(r, "bad", bad, strlen(bad), &err), -1);
		cr_expect_eq(err.line, 4);
		cr_expect_eq(rules_count(r), 2);
		cr_expect_eq(tr_decide(r, 0, "/usr/bin/git", NULL), D_RUN);
		cr_expect_eq(tr_decide(r, 0, "/opt/git", NULL), D_NONE);
		cr_expect_eq(tr_decide(r, 0, "/bin/ls", "-l", NULL), D_RUN);
		cr_expect_eq(tr_decide(r, 0, "/bin/cat", NULL), D_NONE);
	}
	tr_add(r, "prefix_rule([\"cat\"], \"deny\")\n");
	cr_expect_eq(tr_decide(r, 0, "/bin/cat", NULL), D_DENY);
	cr_expect_eq(rules_count(r), 3);
	rules_free(r);
}

/* Past the index's depth and fan-out, elements are still compared. */
Test(rules, long_patterns_and_many_alternatives)
{
	struct rules *r = tr_load(
	    "prefix_rule([\"p\", \"1\", \"2\", \"3\", \"4\", \"5\", \"6\", "
	    "\"7\", \"8\", \"9\", \"10\", \"11\", \"12\", \"13\", \"14\", "
	    "\"15\", \"16\", \"17\", [\"18\", \"x\"]], \"deny\")\n"
	    "prefix_rule([[\"q\", \"r\"], [\"a\", \"b\", \"c\", \"d\", \"e\"], "
	    "[\"a\", \"b\", \"c\", \"d\", \"e\"], [\"a\", \"b\", \"c\", \"d\", "
	    "\"e\"], [\"a\", \"b\", \"c\", \"d\", \"e\"]], \"run\")\n");
	const char *bad = "prefix_rule([\"q\", \"a\", \"a\", \"a\", \"a\"], "
	    "\"deny\")\nprefix_rule([\"p\"], \"bogus\")\n";

	cr_expect_eq(tr_decide(r, 0, "/p", "1", "2", "3", "4", "5", "6", "7", "8",
	    "9", "10", "11", "12", "13", "14", "15", "16", "17", "x", "y", NULL),
	    RULES_DENY);
	cr_expect_eq(tr_decide(r, 0, "/p", "1", "2", "3", "4", "5", "6", "7", "8",
	    "9", "10", "11", "12", "13", "14", "15", "16", "17", "19", NULL),
	    RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, "/p", "1", "2", "3", "4", "5", "6", "7", "8",
	    "9", "10", "11", "12", "13", "14", "15", "16", "17", NULL), RULES_NONE);
	cr_expect_eq(tr_decide(r, 0, "/r", "e", "d", "c", "b", NULL), RULES_RUN);
	cr_expect_eq(tr_decide(r, 0, "/q", "a", "a", "a", "a", "z", NULL), RULES_RUN);
	cr_expect_eq(tr_decide(r, 0, "/q", "a", "a", "a", "f", NULL), RULES_NONE);
	cr_expect_eq(rules_load_text(r, "bad", bad, strlen(bad), NULL), -1);
	cr_expect_eq(tr_decide(r, 0, "/q", "a", "a", "a", "a", NULL), RULES_RUN);
	rules_free(r);
}

Test(rules, decision_names)
{
	static const struct {
		const char *name;
		enum rules_decision d;
	} cases[] = {
		{ "allow", D_ESC }, { "escalate", D_ESC }, { "run", D_RUN },
		{ "prompt", D_ASK }, { "forbidden", D_DENY }, { "deny", D_DENY },
	};
	enum rules_decision d;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cr_expect_eq(rules_decision_parse(cases[i].name, &d), 0);
		cr_expect_eq(d, cases[i].d, "%s", cases[i].name);
	}
	cr_expect_eq(rules_decision_parse("Allow", &d), -1);
	cr_expect_eq(rules_decision_parse(NULL, &d), -1);
	cr_expect_str_eq(rules_decision_name(D_ESC), "escalate");
	cr_expect_str_eq(rules_decision_name(D_RUN), "run");
	cr_expect_str_eq(rules_decision_name(D_ASK), "prompt");
	cr_expect_str_eq(rules_decision_name(D_DENY), "deny");
	cr_expect_str_eq(rules_decision_name(D_NONE), "none");
}

/* The example splitter, word for word ("|" separates expected words),
 * or the reason it refuses. */
Test(rules, examples_split_like_a_posix_shell)
{
	static const struct {
		const char *in, *words, *why;
	} cases[] = {
		{ "git  status\t-s\n", "git|status|-s", NULL },
		{ "echo 'a b' \"c d\"", "echo|a b|c d", NULL },
		{ "echo it\\'s a\\ b", "echo|it's|a b", NULL },
		{ "echo \"\\$HOME \\\" \\x\"", "echo|$HOME \" \\x", NULL },
		{ "echo ''  \"\"", "echo||", NULL },
		{ "echo a'b'\"c\"d", "echo|abcd", NULL },
		{ "echo a#b # comment\nls", "echo|a#b|ls", NULL },
		{ "echo a\\\nb \"c\\\nd\"", "echo|ab|cd", NULL },
		{ "echo $x * ~", "echo|$x|*|~", NULL },
		{ "  ", "", NULL },
		{ "echo 'a", NULL, "unterminated single quote" },
		{ "echo \"a\\\"", NULL, "unterminated double quote" },
		{ "echo a\\", NULL, "backslash at the end" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rules_arena a = { 0 };
		struct rules_vec w = { 0 };
		const char *why = NULL;
		char joined[128] = "";
		int r = rules_split(&a, cases[i].in, &w, &why);

		cr_expect_eq(r, cases[i].why ? -1 : 0, "case %zu", i);
		for (size_t k = 0; r == 0 && k < w.n; k++) {
			strcat(joined, k ? "|" : "");
			strcat(joined, w.v[k]);
		}
		if (cases[i].why != NULL)
			cr_expect_str_eq(why, cases[i].why, "case %zu", i);
		else
			cr_expect_str_eq(joined, cases[i].words, "case %zu", i);
		rules_vec_free(&w);
		rules_arena_free(&a);
	}
}

/* Profiles: the deciding rule's profile is reported; a profile is found
 * by name (built-ins and definitions), a failed load takes its
 * definitions back, and "within" orders them. */
Test(rules, profile_of_the_deciding_rule)
{
	struct rules *r = tr_load(
	    "sandbox_profile(name = \"npm\", writable = [\"/tmp/npm/\", \"/var//x\"], "
	    "network = True, allow_sockets = [\"/run/s\"])\n"
	    "prefix_rule([\"curl\"], \"escalate\", profile = \"network\")\n"
	    "prefix_rule([\"npm\", \"install\"], \"prompt\", profile = \"npm\")\n"
	    "prefix_rule([\"sudo\"], \"escalate\", profile = \"unsandboxed\")\n"
	    "prefix_rule([\"make\"], \"escalate\")\n");
	char *curl[] = { "curl", "x", NULL }, *npm[] = { "npm", "install", NULL };
	char *sudo[] = { "sudo", NULL }, *make[] = { "make", NULL };
	struct rules_match m;
	const struct rules_profile *p;

	cr_assert_eq(rules_decide(r, "/usr/bin/curl", curl, 0, &m), D_ESC);
	cr_expect_eq(m.profile, &rules_profile_network);
	cr_assert_eq(rules_decide(r, "/usr/bin/npm", npm, 0, &m), D_ASK);
	cr_assert_not_null(m.profile);
	cr_expect_str_eq(m.profile->name, "npm");
	cr_expect(m.profile->network && !m.profile->unsandboxed);
	cr_assert_eq(m.profile->nwritable, 2);
	cr_expect_str_eq(m.profile->writable[0], "/tmp/npm");
	cr_expect_str_eq(m.profile->writable[1], "/var/x");
	cr_expect_eq(m.profile->nsockets, 1);
	cr_expect_str_eq(m.profile->source, "t:1");
	cr_assert_eq(rules_decide(r, "/usr/bin/sudo", sudo, 0, &m), D_ESC);
	cr_expect_eq(m.profile, &rules_profile_unsandboxed);
	cr_assert_eq(rules_decide(r, "/usr/bin/make", make, 0, &m), D_ESC);
	cr_expect_null(m.profile);
	p = rules_profile_find(r, "npm");
	cr_expect(rules_profile_within(&rules_profile_network, p));
	cr_expect(!rules_profile_within(p, &rules_profile_network));
	cr_expect(!rules_profile_within(&rules_profile_unsandboxed, p));
	cr_expect(!rules_profile_within(NULL, &rules_profile_network));
	cr_expect(rules_profile_within(p, NULL));
	/* a failed load defines nothing */
	cr_expect_eq(tr_load_reported(r, "sandbox_profile(\"later\", network = True)\n"
	    "prefix_rule([\"x\"], \"bogus\")\n"), -1);
	cr_expect_null(rules_profile_find(r, "later"));
	tr_add(r, "sandbox_profile(\"later\", writable = [\"/tmp/npm/cache\"])\n");
	cr_assert_not_null((p = rules_profile_find(r, "later")));
	cr_expect(rules_profile_within(p, rules_profile_find(r, "npm")));
	rules_free(r);
}
