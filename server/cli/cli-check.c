/*
 * cli-check.c: shellesc check ARGV: what the rules decide for a command,
 * and the rule that decided it.  ARGV[0] is found as a shell would (PATH)
 * and made absolute the way the server does (resolve.c), so the answer is
 * the one a session would give.  Flags (static, set-id) are taken as none.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli-json.h"
#include "path.h"

static void
cli_check_text(struct cli *c, const char *program, const struct cli_verdict *v)
{
	char *cmd = cli_show_argv(program, c->o.argv);
	char *why = v->justification ? cli_vis(v->justification) : NULL;

	printf("%s %s\n", rules_decision_name(v->effective), cmd ? cmd : "?");
	if (v->rule == RULES_NONE)
		printf("  no rule matched (--default %s)\n", rules_decision_name(c->o.dflt));
	else
		printf("  rule %s (%s)%s%s\n", v->source ? v->source : "?",
		    rules_decision_name(v->rule), why ? ": " : "", why ? why : "");
	free(cmd);
	free(why);
}

static void
cli_check_json(struct cli *c, const char *program, const struct cli_verdict *v)
{
	json_t *rule = v->rule == RULES_NONE ? json_null() :
	    json_pack("{s:o, s:s, s:o}", "source", cli_json_str(v->source),
	    "decision", rules_decision_name(v->rule), "justification", cli_json_str(v->justification));
	json_t *j = json_pack("{s:o, s:o, s:s, s:o, s:s}",
	    "program", cli_json_str(program), "argv", cli_json_strv(c->o.argv),
	    "decision", rules_decision_name(v->effective), "rule", rule,
	    "default", rules_decision_name(c->o.dflt));
	char *line = cli_json_line(j);

	if (line)
		fputs(line, stdout);
	free(line);
}

/* ARGV[0] as the absolute path that would run, or NULL after a message. */
static char *
cli_check_program(const char *name)
{
	char *found = cli_path_search(name), *cwd = NULL, *abs = NULL, *shown;

	if (found == NULL) {
		shown = cli_show(name);
		cli_warnx("check: %s: not found in PATH", shown ? shown : "ARGV0");
		free(shown);
		return NULL;
	}
	if (found[0] == '/')
		return found;
	if ((cwd = getcwd(NULL, 0)) == NULL)
		cli_warn("check: the current directory");
	else if ((abs = malloc(strlen(cwd) + strlen(found) + 3)) == NULL)
		cli_warn("check");
	else
		path_absolute(abs, strlen(cwd) + strlen(found) + 3, cwd, found);
	free(cwd);
	free(found);
	return abs;
}

int
cli_check(struct cli *c)
{
	struct cli_verdict v = { 0 };
	char *program;
	int r = CLI_EXIT_FAIL;

	if (cli_rules_open(c) == 0 && (program = cli_check_program(c->o.argv[0])) != NULL) {
		cli_rules_decide(c, program, c->o.argv, 0, &v);
		if (c->o.json)
			cli_check_json(c, program, &v);
		else
			cli_check_text(c, program, &v);
		r = fflush(stdout) == 0 ? 0 : CLI_EXIT_FAIL;
		cli_verdict_free(&v);
		free(program);
	}
	cli_rules_close(c);
	return r;
}
