/* helpers/rules.c: helpers for the rules engine's suites (tr_). */
#include "config.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <string.h>

#include "helpers/rules.h"

void
tr_add(struct rules *r, const char *text)
{
	struct rules_error err;

	cr_assert_eq(rules_load_text(r, "t", text, strlen(text), &err), 0,
	    "%s:%d:%d: %s", err.file, err.line, err.column, err.msg);
}

struct rules *
tr_load(const char *text)
{
	struct rules *r = rules_new();

	cr_assert_not_null(r);
	tr_add(r, text);
	return r;
}

enum rules_decision
tr_decide(const struct rules *r, unsigned flags, const char *program, ...)
{
	const char *argv[32];
	const char *slash = strrchr(program, '/');
	size_t n = 0;
	va_list ap;

	argv[n++] = slash ? slash + 1 : program;
	va_start(ap, program);
	while (n < 31 && (argv[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	argv[n] = NULL;
	return rules_decide(r, program, (char *const *)argv, flags, NULL);
}

struct rules_error tr_reports[TR_NREPORTS];
size_t tr_nreports;

static void
tr_collect(void *arg, const struct rules_error *e)
{
	(void)arg;
	cr_assert_lt(tr_nreports, TR_NREPORTS, "too many reports");
	tr_reports[tr_nreports++] = *e;
}

struct rules_error tr_error;

int
tr_load_reported(struct rules *r, const char *text)
{
	tr_nreports = 0;
	rules_set_report(r, tr_collect, NULL);
	return rules_load_text(r, "f.rules", text, strlen(text), &tr_error);
}
