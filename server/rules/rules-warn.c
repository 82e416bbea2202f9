/*
 * rules-warn.c: warnings about one rule as it is loaded, for what is
 * likely not what its author meant (shellesc-rules(5), LINT): a missing
 * decision, "allow" (which escalates), escalating a program that runs
 * code the sandbox can write, a pattern element with a blank (it matches
 * one argument with that blank, never the words), a program found
 * nowhere; and an example whose program name is, where live commands are
 * looked up, a file the rule treats otherwise.  None of them fails a load:
 * shellesc check --strict makes them errors.
 */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "path.h"
#include "rules-int.h"

/* Programs found nowhere that a load seeks a "did you mean" for (each
 * reads the trusted directories): a file of thousands of rules for
 * programs not installed here still loads fast. */
#define RULES_WARN_SUGGEST	16

/* Programs that run code they are given (scripts, makefiles, packages):
 * escalating them runs what the sandbox may have written outside it.
 * A trailing '*' is any version suffix (digits and dots). */
static const char *const warn_interpreters[] = {
	"sh", "bash", "zsh", "dash", "ksh", "mksh", "csh", "tcsh", "fish",
	"busybox", "env", "xargs", "make", "gmake", "bmake", "ninja", "cmake",
	"python*", "pypy*", "perl*", "ruby*", "node", "nodejs", "deno", "bun",
	"npm", "npx", "yarn", "pnpm", "cargo", "go", "java", "gradle", "mvn",
	"php*", "lua*", "tclsh*", "pip*", "uv", "poetry", "rake", "bundle",
};

static bool
warn_version_suffix(const char *s)
{
	return s[strspn(s, "0123456789.")] == '\0';
}

/* Is name (a path's file name) one of warn_interpreters? */
static bool
warn_interpreter(const char *prog)
{
	const char *name = strrchr(prog, '/') ? strrchr(prog, '/') + 1 : prog;

	for (size_t i = 0; i < sizeof(warn_interpreters) /
	    sizeof(warn_interpreters[0]); i++) {
		const char *w = warn_interpreters[i];
		size_t n = strlen(w);

		if (w[n - 1] == '*' ? strncmp(name, w, n - 1) == 0 &&
		    warn_version_suffix(name + n - 1) : strcmp(name, w) == 0)
			return true;
	}
	return false;
}

static void
warn_decision(struct rules_parser *p, const struct rules_call *c)
{
	bool codex = p->ld->r->codex;

	if (!c->has_decision)
		rules_note(&p->lx, &c->pos, RULES_SEV_WARNING, codex ?
		    "no decision: Codex's default, allow, escalates: matching "
		    "commands run outside the sandbox; write the decision" :
		    "no decision: this rule prompts (in Codex's files it would "
		    "escalate); write decision = \"prompt\" to say so");
	else if (strcmp(c->decision_word, "allow") == 0)
		rules_note(&p->lx, &c->decision_pos, RULES_SEV_WARNING, codex ?
		    "decision \"allow\" escalates: matching commands run outside "
		    "the sandbox" : "decision \"allow\" escalates: matching "
		    "commands run outside the sandbox; write \"escalate\" to say "
		    "so, or \"run\" to run them in it");
}

/* Escalating an interpreter, or every program. */
static void
warn_escalate(struct rules_parser *p, const struct rules_call *c)
{
	const struct rules_elem *e = &c->pat[0];

	if (c->decision != RULES_ESCALATE)
		return;
	for (size_t i = 0; i < e->nalt; i++)
		if (strcmp(e->alt[i], RULES_WILDCARD) == 0 && c->target == 0)
			rules_note(&p->lx, &c->pat_pos[0][i], RULES_SEV_WARNING,
			    "this rule escalates every program: they run outside "
			    "the sandbox");
		else if (warn_interpreter(e->alt[i]))
			rules_note(&p->lx, &c->pat_pos[0][i], RULES_SEV_WARNING,
			    "escalating \"%.40s\" runs code the sandbox may have "
			    "written (a script, a makefile) outside the sandbox; "
			    "decide run or prompt, or escalate exact commands",
			    e->alt[i]);
}

/* s's words as a pattern's strings: "rm", "-rf". */
static void
warn_split(char *buf, size_t size, const char *s)
{
	size_t n = 0, len;

	buf[0] = '\0';
	for (s += strspn(s, " \t"); *s != '\0' && n < size; s += strspn(s, " \t")) {
		len = strcspn(s, " \t");
		n += (size_t)snprintf(buf + n, size - n, "%s\"%.*s\"",
		    n == 0 ? "" : ", ", (int)len, s);
		s += len;
	}
}

static void
warn_blanks(struct rules_parser *p, const struct rules_call *c)
{
	char fix[120];

	for (size_t k = 0; k < c->npat; k++)
		for (size_t i = 0; i < c->pat[k].nalt; i++) {
			const char *s = c->pat[k].alt[i];

			if (strpbrk(s, " \t") == NULL || s[0] == '/' ||
			    s[strspn(s, " \t")] == '\0')
				continue;
			warn_split(fix, sizeof(fix), s);
			rules_note(&p->lx, &c->pat_pos[k][i], RULES_SEV_WARNING,
			    "pattern element \"%.40s\" has a blank: it matches one "
			    "argument with that blank, never the words; split it: "
			    "%.100s", s, fix);
		}
}

bool
rules_path_find(const char *dirs, const char *name, char *buf, size_t size)
{
	struct path_iter it;
	struct stat st;

	path_iter_init(&it, dirs, name, PATH_ABSOLUTE);
	while (dirs != NULL && path_next(&it, buf, size))
		if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
			return true;
	return false;
}

/* A path that does not exist; a name in none of the set's directories
 * (when it has some) and not defined by host_executable. */
static void
warn_nowhere(struct rules_parser *p, const struct rules_call *c)
{
	const struct rules *r = p->ld->r;
	const struct rules_elem *e = &c->pat[0];
	const struct rules_hostent *h;
	char file[PATH_MAX], dym[NAME_MAX + 32];
	struct stat st;

	for (size_t i = 0; i < e->nalt; i++) {
		const char *s = e->alt[i];

		if (s[0] == '/' && stat(s, &st) != 0)
			rules_note(&p->lx, &c->pat_pos[0][i], RULES_SEV_WARNING,
			    "program \"%.100s\" does not exist here", s);
		if (s[0] == '/' || strchr(s, '/') != NULL || r->path == NULL ||
		    strcmp(s, RULES_WILDCARD) == 0 || strpbrk(s, " \t") != NULL ||
		    rules_path_find(r->path, s, file, sizeof(file)))
			continue;
		h = (const struct rules_hostent *)rules_table_get(&r->hosts, NULL, s);
		if (h != NULL && h->def != NULL)
			continue;
		rules_note(&p->lx, &c->pat_pos[0][i], RULES_SEV_WARNING,
		    "program \"%.60s\" is in no directory of the trusted PATH%s",
		    s, p->ld->nsuggest++ >= RULES_WARN_SUGGEST ? "" :
		    rules_did_you_mean_program(dym, sizeof(dym), s, r->path));
	}
}

void
rules_lint_call(struct rules_parser *p, const struct rules_call *c)
{
	if (p->lx.r == NULL || p->lx.r->report == NULL)
		return;		/* no one to tell: spare the lookups */
	warn_decision(p, c);
	warn_escalate(p, c);
	warn_blanks(p, c);
	warn_nowhere(p, c);
}

struct warn_hit {
	const struct rules_rule *rule;
	bool hit;
};

static void
warn_hit(void *arg, const struct rules_hit *h)
{
	struct warn_hit *w = arg;

	if (h->source == w->rule->source)
		w->hit = true;
}

/*
 * A live command's program is a file, and a rule for a name matches
 * every name that was that file (rules_decide_file): "python3.11" may be
 * "python3".  The example is checked by name; say when the file the name
 * is in the set's directories would go the other way.
 */
void
rules_lint_example(struct rules_parser *p, const struct rules_example *ex)
{
	const struct rules *r = p->ld->r;
	char file[PATH_MAX], real[PATH_MAX];
	struct warn_hit w = { .rule = ex->rule };
	struct rules_file f = { .path = real };
	struct stat st;
	char **argv;

	if (r->report == NULL || strchr(ex->tok[0], '/') != NULL ||
	    !rules_path_find(r->path, ex->tok[0], file, sizeof(file)) ||
	    realpath(file, real) == NULL || stat(real, &st) != 0 ||
	    (argv = calloc(ex->ntok + 1, sizeof(*argv))) == NULL)
		return;
	memcpy(argv, ex->tok, ex->ntok * sizeof(*argv));
	f.known = true;
	f.dev = st.st_dev;
	f.ino = st.st_ino;
	rules_explain(r, &f, argv, warn_hit, &w);
	free(argv);
	if (w.hit == ex->match)
		return;
	p->lx.failed = false;
	rules_note(&p->lx, &ex->pos, RULES_SEV_WARNING, "%s example: %.40s is "
	    "%.80s here, which this rule %s: a live command would %s",
	    ex->match ? "match" : "not_match", ex->tok[0], real,
	    w.hit ? "matches" : "does not match", w.hit ? "match" : "not match");
}
