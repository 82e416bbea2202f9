/*
 * test-cli-learn.c: suite cli_learn -- run --learn FILE: a session of an
 * agent-like script (cc, the program it built, git in a fresh repository)
 * proposes rules that, loaded on the next run of the same script, leave
 * nothing unmatched, decide every command as the first run did and give
 * it the same status, and are never broader than a program and its
 * subcommand; temporary paths and hashes are dropped; argv from the
 * sandboxed side is written as escaped Starlark strings; the -p file is
 * never touched; audit --rules proposes the same rules from the log.
 * Real processes, under the preload library (which catches cc's own
 * children: cc1, as, collect2, ld).
 */
#include "config.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/cli.h"

/* A curated rule: its commands are decided by it, not learned. */
static const char rules[] =
    "prefix_rule(pattern=[\"uname\"], decision=\"escalate\")\n";

TC_SUITE(cli_learn, rules);

/* Each command's status on stdout, to compare the two runs. */
#define AGENT \
	"d=$(mktemp -d); cd \"$d\" || exit 9; " \
	"printf 'int main(int c, char **v) { (void)v; return c == 1 ? 3 : 0; }\\n' > t.c; " \
	"cc -o t t.c; echo \"cc: $?\"; " \
	"./t; echo \"test: $?\"; ./t x; echo \"test x: $?\"; " \
	"uname -s >/dev/null; echo \"uname: $?\"; " \
	"git init -q repo; echo \"init: $?\"; cd repo; " \
	"git status --short; echo \"status: $?\"; " \
	"echo hi > f; git add f; echo \"add: $?\"; " \
	"git diff --cached --stat >/dev/null; echo \"diff: $?\"; " \
	"git diff --no-such-option 2>/dev/null; echo \"bad diff: $?\"; " \
	"cd /; rm -rf \"$d\"; echo \"rm: $?\""

static json_t **ev1, **ev2;
static size_t nev1, nev2;

/* The script under --learn learned.rules, audited to log; its stdout. */
static char *
learned_run(const char *script, const char *log)
{
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("run", "--force", "-p", "t.rules", "--mode", "preload",
	    "--learn", "learned.rules", "-a", (char *)log, "--", "bash", "-c", (char *)script));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	return strdup(r.out);
}

/* The decisions of an audit log, each held; free with let_go. */
static json_t **
decisions(const char *log, size_t *n)
{
	char *text = tc_read(&t, log);
	json_t **all, **ev;
	size_t k = 0, nall;

	cr_assert_not_null(text);
	all = tc_json_lines(&t, text, &nall);
	free(text);
	cr_assert_not_null(ev = calloc(nall + 1, sizeof(*ev)));
	for (size_t i = 0; i < nall; i++)
		if (strcmp(tc_jstr(all[i], "event"), "decision") == 0)
			ev[k++] = json_incref(all[i]);
	*n = k;
	return ev;
}

static void
let_go(json_t **ev, size_t n)
{
	for (size_t i = 0; i < n; i++)
		json_decref(ev[i]);
	free(ev);
}

/* A pattern of a learned line: its elements, counted. */
static size_t
pattern_len(const char *line)
{
	const char *p = strstr(line, "pattern=[");
	size_t n = 0;
	bool in = false;

	cr_assert_not_null(p, "%s", line);
	for (p += 9; *p && (in || *p != ']'); p++) {
		if (*p == '\\' && in)
			p++;
		else if (*p == '"' && !in)
			n++, in = true;
		else if (*p == '"')
			in = false;
	}
	return n;
}

/* Every line a rule, none broader than a program and its subcommand. */
static size_t
check_narrow(const char *text)
{
	size_t lines = 0;
	char *copy = strdup(text), *save = NULL;

	for (char *l = strtok_r(copy, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		lines++;
		cr_assert(strncmp(l, "prefix_rule(pattern=[\"", 22) == 0, "%s", l);
		cr_assert_null(strstr(l, "\"*\""), "%s", l);
		cr_assert_null(strstr(l, "/tmp/"), "a temporary path: %s", l);
		if (strncmp(l, "prefix_rule(pattern=[\"git\"", 27) == 0)
			cr_assert_geq(pattern_len(l), 2, "broader than git's subcommand: %s", l);
		cr_assert_null(strstr(text + (l - copy) + strlen(l) + 1, l), "twice: %s", l);
	}
	free(copy);
	return lines;
}

/* The acceptance test of the learning mode. */
Test(cli_learn, agent_session_learned)
{
	char *out1, *out2, *learned, *again;
	json_t *e1, *e2;

	TC_NEED_PRELOAD(&t, &r);
	out1 = learned_run(AGENT, "audit1.log");
	cr_assert_not_null(learned = tc_read(&t, "learned.rules"), "nothing learned: %s", r.err);
	cr_assert_geq(check_narrow(learned), 8, "%s", learned);
	/* cc by name, its children off PATH by path (a name found nowhere is
	 * what the lint warns of), git up to its subcommand, no temporary path */
	cr_assert_not_null(strstr(learned, "pattern=[\"cc\"], decision=\"run\")"), "%s", learned);
	cr_assert_null(strstr(learned, "pattern=[\"cc1\"]"), "%s", learned);
	cr_assert_not_null(strstr(learned, "/cc1\"], decision=\"run\")"), "%s", learned);
	cr_assert_not_null(strstr(learned, "pattern=[\"git\", \"diff\"], decision=\"run\")"), "%s",
	    learned);
	cr_assert_null(strstr(learned, "uname"), "a curated rule's command was learned: %s", learned);
	out2 = learned_run(AGENT, "audit2.log");
	cr_assert_str_eq(out2, out1, "the statuses differ");
	/* and they are what the commands gave, failures too */
	cr_assert(strncmp(out1, "cc: 0\ntest: 3\ntest x: 0\nuname: 0\ninit: 0\nstatus: 0\n"
	    "add: 0\ndiff: 0\nbad diff: ", 76) == 0, "%s", out1);
	cr_assert_null(strstr(out1, "bad diff: 0\n"), "%s", out1);
	ev1 = decisions("audit1.log", &nev1);
	ev2 = decisions("audit2.log", &nev2);
	cr_assert_eq(nev2, nev1, "%zu decisions, then %zu", nev1, nev2);
	for (size_t i = 0; i < nev2; i++) {
		e1 = ev1[i];
		e2 = ev2[i];
		cr_assert(json_is_object(json_object_get(e2, "rule")), "no rule matched %s",
		    tc_jstr(e2, "program"));
		/* the same command (the temporary directory differs) */
		cr_assert_str_eq(strrchr(tc_jstr(e2, "program"), '/'),
		    strrchr(tc_jstr(e1, "program"), '/'));
		cr_assert_str_eq(tc_jstr(e2, "decision"), tc_jstr(e1, "decision"), "%s",
		    tc_jstr(e2, "program"));
	}
	let_go(ev1, nev1);
	let_go(ev2, nev2);
	/* nothing new the second time: the file is as it was */
	cr_assert_not_null(again = tc_read(&t, "learned.rules"));
	cr_assert_str_eq(again, learned);
	cr_assert_not_null(again = (free(again), tc_read(&t, "t.rules")));
	cr_assert_str_eq(again, rules, "the -p file was written to");
	free(again);
	/* the same rules from the first run's log */
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("audit", "--rules", "audit1.log"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out, learned);
	free(learned);
	free(out1);
	free(out2);
}

/* Temporary paths and hashes are dropped: the rule stops before them, or
 * is not proposed where it would need them. */
Test(cli_learn, volatile_arguments_dropped)
{
	char *learned;

	TC_NEED_PRELOAD(&t, &r);
	free(learned_run("d=$(mktemp -d); git -C \"$d\" status >/dev/null 2>&1; "
	    "git 0123abc4 >/dev/null 2>&1; git show 0123abc4 >/dev/null 2>&1; "
	    "/usr/bin/printf '%s\\n' 0123abcd4567 /tmp/x >/dev/null; rmdir \"$d\"", "audit.log"));
	cr_assert_not_null(learned = tc_read(&t, "learned.rules"));
	cr_assert_str_eq(learned,
	    "prefix_rule(pattern=[\"mktemp\"], decision=\"run\")\n"
	    "prefix_rule(pattern=[\"git\", \"show\"], decision=\"run\")\n"
	    "prefix_rule(pattern=[\"printf\"], decision=\"run\")\n"
	    "prefix_rule(pattern=[\"rmdir\"], decision=\"run\")\n");
	free(learned);
}

/* argv is the sandboxed side's: quotes, backslashes, newlines and bytes
 * that are not UTF-8 are escaped, one rule a line, and the file loads and
 * decides that very command the next time. */
Test(cli_learn, untrusted_argv_escaped)
{
	const char *script = "git \"$(printf 'a\"b\\\\c\\nd\\001\\377')\" 2>/dev/null; echo \"git: $?\"";
	char *learned, *out1;
	size_t n;

	TC_NEED_PRELOAD(&t, &r);
	out1 = learned_run(script, "audit1.log");
	cr_assert_not_null(learned = tc_read(&t, "learned.rules"));
	cr_assert_str_eq(learned, "prefix_rule(pattern=[\"git\", \"a\\\"b\\\\c\\nd\\x01\\xff\"], "
	    "decision=\"run\")\n");
	free(learned);
	free(learned_run(script, "audit2.log"));
	cr_assert_str_eq(r.out, out1);
	ev2 = decisions("audit2.log", &n);
	cr_assert_eq(n, 1);
	cr_assert(json_is_object(json_object_get(ev2[0], "rule")), "no rule matched");
	let_go(ev2, n);
	free(out1);
}

/* --learn takes a FILE, not a -p one; check has no --learn. */
Test(cli_learn, option_needs_a_file)
{
	tc_run(&t, &r, NULL, TS_V("run", "--learn", "", "true"));
	cr_assert_eq(tc_code(&r), 125);
	cr_assert_not_null(strstr(r.err, "--learn: expected a FILE"), "%s", r.err);
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("check", "--learn", "x", "--", "true"));
	cr_assert_eq(tc_code(&r), 125);
	/* the learned file is shellesc's own, never a curated one */
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("run", "--mode", "wrapper", "--force", "-p", "t.rules",
	    "--learn", "./t.rules", "true"));
	cr_assert_eq(tc_code(&r), 125);
	cr_assert_not_null(strstr(r.err, "a -p file, which shellesc never writes to"), "%s", r.err);
}

/* exec takes --learn too: its shell's commands are learned when it ends. */
Test(cli_learn, exec_learns)
{
	char *learned;

	TC_NEED_PRELOAD(&t, &r);
	tc_run(&t, &r, NULL, TS_V("exec", "--mode", "preload", "--no-login", "--learn",
	    "learned.rules", "-c", "uname -s >/dev/null; git --version >/dev/null; true"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_not_null(learned = tc_read(&t, "learned.rules"));
	cr_assert_str_eq(learned, "prefix_rule(pattern=[\"uname\"], decision=\"run\")\n"
	    "prefix_rule(pattern=[\"git\", \"--version\"], decision=\"run\", exact=True)\n");
	free(learned);
}

/* One audit decision event, as --audit writes it (the fields --rules reads). */
#define EV(prog, args, rule, decision, asked) \
	"{\"time\":\"2026-12-01T10:00:00.000Z\",\"event\":\"decision\",\"id\":1,\"pid\":2," \
	"\"program\":\"/usr/bin/" prog "\",\"file\":\"" prog "\"," \
	"\"target\":\"/usr/bin/" prog "\",\"target_argv\":[\"" prog "\"" args "]," \
	"\"argv\":[\"" prog "\"" args "],\"rule\":" rule ",\"decision\":\"" decision "\"," \
	"\"asked\":" asked "}\n"
#define NORULE "null"
#define RULED "{\"source\":\"x.rules:1\",\"decision\":\"run\"}"

/* audit --rules: the same generalisation from a log: up to the subcommand
 * for programs that have them, the program alone for others, exactly
 * when options come first; nothing that needs a temporary path or a hash;
 * nothing for what a rule decided unasked, or was denied; each once. */
Test(cli_learn, audit_rules_generalise)
{
	static const char log[] =
	    EV("git", ",\"push\",\"origin\",\"main\"", NORULE, "escalate", "\"tty\"")
	    EV("git", ",\"push\",\"origin\",\"dev\"", NORULE, "escalate", "\"tty\"")
	    EV("docker", ",\"run\",\"-it\",\"debian\"", NORULE, "run", "null")
	    EV("npm", ",\"install\",\"left-pad\"", NORULE, "run", "null")
	    EV("make", ",\"-j2\",\"all\"", NORULE, "escalate", "\"approver\"")
	    EV("rm", ",\"-rf\",\"/tmp/ccZtk2Ig.s\"", NORULE, "run", "null")
	    EV("git", ",\"-C\",\"/tmp/x\",\"status\"", NORULE, "run", "null")
	    EV("git", ",\"--no-pager\",\"log\"", NORULE, "run", "null")
	    EV("git", ",\"3f2a9c0d1e\"", NORULE, "run", "null")
	    EV("cargo", ",\"build\"", RULED, "run", "null")
	    EV("kubectl", ",\"delete\",\"pod\",\"x\"", NORULE, "deny", "\"tty\"");

	tc_file(&t, "hand.log", log);
	tc_run(&t, &r, NULL, TS_V("audit", "--rules", "hand.log"));
	cr_assert_eq(tc_code(&r), 0, "%s", r.err);
	cr_assert_str_eq(r.out,
	    "prefix_rule(pattern=[\"git\", \"push\"], decision=\"escalate\")\n"
	    "prefix_rule(pattern=[\"/usr/bin/docker\", \"run\"], decision=\"run\")\n"
	    "prefix_rule(pattern=[\"npm\", \"install\"], decision=\"run\")\n"
	    "prefix_rule(pattern=[\"make\"], decision=\"escalate\")\n"
	    "prefix_rule(pattern=[\"rm\"], decision=\"run\")\n"
	    "prefix_rule(pattern=[\"git\", \"--no-pager\", \"log\"], decision=\"run\", exact=True)\n");
	/* the filters apply first */
	tc_res_free(&r);
	tc_run(&t, &r, NULL, TS_V("audit", "--rules", "--decision", "prompt", "hand.log"));
	cr_assert_str_eq(r.out, "prefix_rule(pattern=[\"git\", \"push\"], decision=\"escalate\")\n"
	    "prefix_rule(pattern=[\"make\"], decision=\"escalate\")\n", "%s", r.err);
}
