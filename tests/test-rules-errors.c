/* test-rules-errors.c: suite rules_errors -- what the language accepts,
 * and every error with its exact place. */
#include "config.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "helpers/rules.h"

struct syntax_error {
	const char *text;
	int line, column;
	const char *msg;	/* a part of the message */
};

static const struct syntax_error syntax_errors[] = {
	/* statements and calls */
	{ "foo()", 1, 1, "unknown function 'foo' (expected prefix_rule, "
	    "host_executable, network_rule or sandbox_profile)" },
	{ "x = 1", 1, 5, "expected a string or a list, got a number" },
	{ "x = y", 1, 5, "'y' is not defined" },
	{ "x()", 1, 1, "unknown function 'x'" },
	{ ";", 1, 1, "expected prefix_rule(...) or host_executable(...), got ';'" },
	{ "prefix_rule", 1, 12, "expected '(', got end of file" },
	{ "prefix_rule([\"a\"]", 1, 12, "'(' is not closed" },
	{ "prefix_rule([\"a\"] \"b\")", 1, 19, "expected ',' or ')', got a string" },
	{ "prefix_rule([\"a\"]) prefix_rule([\"b\"])", 1, 20,
	    "expected end of line after ')', got a name" },
	{ "  prefix_rule([\"a\"])", 1, 3, "unexpected indentation" },
	{ "prefix_rule([\"a\"])\n\tprefix_rule([\"b\"])", 2, 2,
	    "unexpected indentation" },
	/* arguments */
	{ "prefix_rule()", 1, 1, "prefix_rule: missing argument pattern" },
	{ "prefix_rule(decision = \"run\")", 1, 1, "missing argument pattern" },
	{ "prefix_rule(pattern=[\"a\"], bogus=\"1\")", 1, 28,
	    "prefix_rule() has no argument 'bogus' (expected pattern, decision, "
	    "match, not_match, justification, target, exact, argv0 or profile)" },
	{ "prefix_rule([\"a\"], \"run\", pattern=[\"b\"])", 1, 27,
	    "argument pattern given more than once" },
	{ "prefix_rule(pattern=[\"a\"], pattern=[\"b\"])", 1, 28,
	    "argument pattern given more than once" },
	{ "prefix_rule(decision=\"run\", [\"a\"])", 1, 29,
	    "positional argument after a keyword argument" },
	{ "prefix_rule(\n  [\"a\"],\n  \"run\",\n  [],\n  [],\n  \"j\",\n  \"x\")",
	    7, 3, "prefix_rule() takes at most 5 positional arguments" },
	{ "prefix_rule([\"a\"], None)", 1, 20, "got the name 'None'" },
	{ "prefix_rule(pattern [\"a\"])", 1, 21,
	    "expected '=' after pattern, got a list" },
	{ "prefix_rule([\"a\"],,)", 1, 19,
	    "unexpected ',': an argument is missing before it" },
	/* profiles (shellesc-rules(5), PROFILES) */
	{ "prefix_rule([\"a\"], \"escalate\", profile = \"netwrk\")", 1, 42,
	    "unknown profile \"netwrk\" (did you mean 'network'?)" },
	{ "prefix_rule([\"a\"], \"escalate\", profile = \"p\")\n"
	    "sandbox_profile(\"p\", network = True)", 1, 42, "unknown profile \"p\"" },
	{ "prefix_rule([\"a\"], \"run\", profile = \"network\")", 1, 37,
	    "profile: a run rule runs nothing under a profile" },
	{ "prefix_rule([\"a\"], \"deny\", profile = \"network\")", 1, 38,
	    "profile: a deny rule runs nothing under a profile" },
	{ "prefix_rule([\"a\"], \"escalate\", profile = 1)", 1, 42,
	    "profile: expected a string, got a number" },
	{ "sandbox_profile(name = \"network\")", 1, 24,
	    "\"network\" is a built-in profile" },
	{ "sandbox_profile(name = \"unsandboxed\", network = False)", 1, 24,
	    "\"unsandboxed\" is a built-in profile" },
	{ "sandbox_profile(\"p\", network = True)\nsandbox_profile(\"p\", "
	    "network = False)", 2, 17, "\"p\" is already defined at f.rules:1" },
	{ "sandbox_profile(\"p\", network = 1)", 1, 32,
	    "network: expected True or False, got a number" },
	{ "sandbox_profile(\"p\", writable = \"/x\")", 1, 33,
	    "writable: expected a list, got a string" },
	{ "sandbox_profile(\"p\", writable = [\"x\"])", 1, 34,
	    "writable: path \"x\" is not absolute" },
	{ "sandbox_profile(\"p\", writable = [1])", 1, 34, "got a number" },
	{ "sandbox_profile(\"a b\")", 1, 17, "name must be letters" },
	{ "sandbox_profile(writable = [\"/x\"])", 1, 1,
	    "sandbox_profile: missing argument name" },
	{ "sandbox_profile(\"p\", allow_sockets = \"x\")", 1, 38,
	    "allow_sockets: expected a list, got a string" },
	/* pattern */
	{ "prefix_rule(pattern=[])", 1, 21, "pattern cannot be empty" },
	{ "prefix_rule(pattern=[[]])", 1, 22,
	    "pattern: a list of alternatives cannot be empty" },
	{ "prefix_rule(pattern=\"a\")", 1, 21,
	    "pattern: expected a list, got a string" },
	{ "prefix_rule([\"a\" \"b\"])", 1, 18,
	    "pattern: expected ',' or ']', got a string" },
	{ "prefix_rule([\"a\", [\"b\", [\"c\"]]])", 1, 25,
	    "pattern: expected a string, got a list" },
	{ "prefix_rule([\"\\u00e9\", 5])", 1, 24,
	    "pattern: expected a string or a list of strings, got a number" },
	{ "prefix_rule([\"\xc3\xa9\", 5])", 1, 19, "got a number" },
	{ "prefix_rule(\n\t[5])", 2, 3, "got a number" },
	{ "prefix_rule([\"\"])", 1, 14, "pattern: the program cannot be empty" },
	{ "prefix_rule([[\"a\", \"\"]])", 1, 20, "the program cannot be empty" },
	/* decision, justification, target */
	{ "prefix_rule(pattern=[\"a\"], decision=\"x\")", 1, 37,
	    "unknown decision \"x\" (expected allow, prompt, forbidden, run, "
	    "escalate or deny)" },
	{ "prefix_rule([\"a\"], decision=[\"run\"])", 1, 29,
	    "decision: expected a string, got a list" },
	{ "prefix_rule([\"a\"], justification=\" \\t\")", 1, 34,
	    "justification cannot be empty" },
	{ "prefix_rule([\"a\"], justification=5)", 1, 34,
	    "justification: expected a string, got a number" },
	{ "prefix_rule([\"a\"], target=[\"dyn\"])", 1, 28,
	    "unknown target \"dyn\" (expected static or setid)" },
	{ "prefix_rule([\"a\"], target=[\"static\", \"x\"])", 1, 38,
	    "unknown target \"x\"" },
	{ "prefix_rule([\"a\"], target=[])", 1, 27, "target cannot be empty" },
	{ "prefix_rule([\"a\"], target=\"static\")", 1, 27,
	    "target: expected a list, got a string" },
	/* examples */
	{ "prefix_rule([\"a\"], match=[\"b\"])", 1, 27,
	    "match example \"b\" does not match the rule" },
	{ "prefix_rule([\"a\"], not_match=[\"a x\"])", 1, 31,
	    "not_match example \"a x\" matches the rule" },
	{ "prefix_rule([\"a\"], not_match=[[\"a\",\n \"x\"]])", 1, 31,
	    "not_match example [\"a\",\n \"x\"] matches the rule" },
	{ "prefix_rule([\"a\"], match=[\"a 'x\"])", 1, 27,
	    "match example: unterminated single quote" },
	{ "prefix_rule([\"a\"], match=[[]])", 1, 27, "match example cannot be empty" },
	{ "prefix_rule([\"a\"], match=[\" \"])", 1, 27, "match example cannot be empty" },
	{ "prefix_rule([\"a\"], match=[5])", 1, 27,
	    "match example: expected a string or a list of strings, got a number" },
	{ "prefix_rule([\"a\"], match=[[\"a\", 5]])", 1, 33,
	    "match example: expected a string, got a number" },
	{ "prefix_rule([\"a\"], match=\"a\")", 1, 26, "match: expected a list" },
	{ "prefix_rule([\"/bin/a\"], match=[\"a\"])", 1, 32, "does not match" },
	{ "prefix_rule([\"a\"])\nprefix_rule([\"b\"], match=[\"a\"])", 2, 27,
	    "does not match the rule" },
	/* host_executable */
	{ "host_executable(name=\"git\", paths=[\"/usr/bin/gitx\"])", 1, 36,
	    "host_executable: path \"/usr/bin/gitx\" does not name git" },
	{ "host_executable(name=\"git\", paths=[\"git\"])", 1, 36,
	    "host_executable: path \"git\" is not absolute" },
	{ "host_executable(name=\"a/b\", paths=[])", 1, 22,
	    "name must be a program name" },
	{ "host_executable(name=\"\", paths=[])", 1, 22, "name must be a program" },
	{ "host_executable(name=\"*\", paths=[])", 1, 22, "name must be a program" },
	{ "host_executable(name=\"git\")", 1, 1,
	    "host_executable: missing argument paths" },
	{ "host_executable(paths=[])", 1, 1, "missing argument name" },
	{ "host_executable(\"git\", [], [])", 1, 28,
	    "host_executable() takes at most 2 positional arguments" },
	{ "host_executable(name=\"git\", path=[])", 1, 29,
	    "has no argument 'path' (did you mean 'paths'?) (expected name or paths)" },
	/* strings and other tokens */
	{ "prefix_rule([\"a\\q\"])", 1, 16, "invalid escape sequence \\q" },
	{ "prefix_rule([\"a", 1, 14, "unterminated string" },
	{ "prefix_rule([\"a\n\"])", 1, 14, "unterminated string" },
	{ "prefix_rule([\"\"\"a\"\"])", 1, 14, "unterminated string" },
	{ "prefix_rule([\"a\", \"\\x00\"])", 1, 20, "NUL byte in a string" },
	{ "prefix_rule([\"a\", \"\\0\"])", 1, 20, "NUL byte in a string" },
	{ "prefix_rule([\"a\", \"\\x4\"])", 1, 20, "\\x needs 2 hex digits" },
	{ "prefix_rule([\"a\", \"\\u12\"])", 1, 20, "\\u needs 4 hex digits" },
	{ "prefix_rule([\"a\", \"\\ud800\"])", 1, 20,
	    "\\u escape is not a Unicode code point" },
	{ "prefix_rule([\"a\", \"\\U00110000\"])", 1, 20, "not a Unicode code point" },
	{ "prefix_rule([\"a\", \"x\\400\"])", 1, 21, "octal escape above \\377" },
	{ "prefix_rule([\"a\", \"\\\x01\"])", 1, 20, "invalid escape sequence" },
	{ "$", 1, 1, "unexpected character '$'" },
	{ "prefix_rule([\"a\"]) + 1", 1, 20, "unexpected character '+'" },
	{ "\xff", 1, 1, "unexpected byte 0xff" },
	{ "prefix_rule(b\"a\")", 1, 13, "got the name 'b'" },
	{ "# ok\n\nprefix_rule(\n    pattern = [\"b\"],\n    decision = \"nope\",\n)",
	    5, 16, "unknown decision \"nope\"" },
};

Test(rules_errors, every_error_names_its_place)
{
	for (size_t i = 0; i < sizeof(syntax_errors) / sizeof(syntax_errors[0]); i++) {
		const struct syntax_error *c = &syntax_errors[i];
		struct rules *r = rules_new();
		struct rules_error err;

		cr_assert_eq(rules_load_text(r, "f.rules", c->text, strlen(c->text),
		    &err), -1, "case %zu loaded: %s", i, c->text);
		cr_expect_str_eq(err.file, "f.rules");
		cr_expect(err.line == c->line && err.column == c->column,
		    "case %zu: %d:%d, want %d:%d (%s)", i, err.line, err.column,
		    c->line, c->column, err.msg);
		cr_expect(strstr(err.msg, c->msg) != NULL, "case %zu: \"%s\" lacks "
		    "\"%s\"", i, err.msg, c->msg);
		cr_expect_eq(rules_count(r), 0);
		rules_free(r);
	}
}

Test(rules_errors, nul_byte_outside_a_string)
{
	static const char text[] = "prefix_rule([\"a\"])\0\n";
	struct rules *r = rules_new();
	struct rules_error err;

	cr_assert_eq(rules_load_text(r, "t", text, sizeof(text) - 1, &err), -1);
	cr_expect(err.line == 1 && err.column == 19, "%d:%d", err.line, err.column);
	cr_expect_str_eq(err.msg, "unexpected byte 0x00");
	rules_free(r);
}

Test(rules_errors, tilde_needs_home)
{
	struct rules *r;
	struct rules_error err;
	const char *text = "prefix_rule([\"~/bin/x\"], \"run\")";

	setenv("HOME", "/home/u/", 1);
	r = tr_load(text);
	cr_expect_eq(tr_decide(r, 0, "/home/u/bin/x", NULL), RULES_RUN);
	rules_free(r);
	unsetenv("HOME");
	r = rules_new();
	cr_assert_eq(rules_load_text(r, "t", text, strlen(text), &err), -1);
	cr_expect(err.line == 1 && err.column == 14);
	cr_expect(strstr(err.msg, "HOME") != NULL, "%s", err.msg);
	rules_free(r);
}

/* Starlark's lexical forms: each text must load, and decide the command
 * ["/bin/x", "<want>"] as run. */
Test(rules_errors, strings_and_layout)
{
	static const struct {
		const char *text, *want;
	} cases[] = {
		{ "prefix_rule(['x', 'a\"b'], 'run')", "a\"b" },
		{ "prefix_rule([\"x\", \"\\a\\b\\f\\n\\r\\t\\v\\\\\\'\\\"\"], \"run\")",
		    "\a\b\f\n\r\t\v\\'\"" },
		{ "prefix_rule([\"x\", \"\\x41\\101\\7\\u00e9\\U0001F600\"], \"run\")",
		    "AA\a\xc3\xa9\xf0\x9f\x98\x80" },
		{ "prefix_rule([\"x\", \"\\xff\\xFE\\377\"], \"run\")", "\xff\xfe\xff" },
		{ "prefix_rule([\"x\", \"raw \xff\xfe bytes\"], \"run\")",
		    "raw \xff\xfe bytes" },
		{ "prefix_rule([\"x\", r\"\\d+\\\"\"], \"run\")", "\\d+\\\"" },
		{ "prefix_rule([\"x\", R'\\n'], \"run\")", "\\n" },
		{ "prefix_rule([\"x\", \"\"\"two\nlines \"q\" \"\"\"], \"run\")",
		    "two\nlines \"q\" " },
		{ "prefix_rule([\"x\", '''a'b'''], \"run\")", "a'b" },
		{ "prefix_rule([\"x\", \"con\\\ntinued\"], \"run\")", "continued" },
		{ "prefix_rule(\n\tdecision = \"run\", # why\n\n\tpattern = [\n\t\t"
		    "\"x\",\n\t\t[\"y\",],\n\t],\n)\n", "y" },
		{ "# only\n   # comments\n\nprefix_rule([\"x\", \"y\"], \"run\")", "y" },
		{ "prefix_rule([\"a\"]); prefix_rule([\"x\", \"y\"], \"run\");\n", "y" },
		{ "prefix_rule([\"x\", \"y\"], \"run\")\r\n\r\n", "y" },
		{ "prefix_rule(pattern=[\"x\", \"y\"], decision=\"run\", "
		    "justification=\"j\", match=[], not_match=[], target=[\"static\", "
		    "\"setid\"])", NULL },
		{ "prefix_rule([\"x\", \"y\"], \"run\", [\"x y\"], [\"x z\"], \"j\",)",
		    "y" },
		{ "host_executable(\"x\", [\"/bin/x\"]); prefix_rule([\"x\", \"y\"], "
		    "\"run\")", "y" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rules *r = rules_new();
		struct rules_error err;

		cr_assert_eq(rules_load_text(r, "t", cases[i].text,
		    strlen(cases[i].text), &err), 0, "case %zu: %d:%d: %s", i,
		    err.line, err.column, err.msg);
		if (cases[i].want != NULL)
			cr_expect_eq(tr_decide(r, 0, "/bin/x", cases[i].want, NULL),
			    RULES_RUN, "case %zu", i);
		rules_free(r);
	}
}
