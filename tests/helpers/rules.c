/* test-rules-helpers.c: helpers for the rules engine's suites. */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

const char *
tr_at(const char *dir, const char *name)
{
	static char ring[16][4096];
	static unsigned n;
	char *p = ring[n++ % 16];

	cr_assert_lt((size_t)snprintf(p, sizeof(ring[0]), "%s/%s", dir, name), sizeof(ring[0]));
	return p;
}

char *
tr_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir = tr_path(base && *base ? base : "/tmp", "rules-test-XXXXXX");

	cr_assert_not_null(mkdtemp(dir));
	return dir;
}

static int
tr_rm(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

void
tr_rmtree(char *dir)
{
	cr_assert_eq(nftw(dir, tr_rm, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(dir);
}

char *
tr_path(const char *dir, const char *name)
{
	char *p;

	cr_assert(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

void
tr_write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fwrite(text, 1, strlen(text), f), strlen(text));
	cr_assert_eq(fclose(f), 0);
}

char *
tr_read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *buf = malloc(1 << 20);
	size_t n;

	cr_assert(f != NULL && buf != NULL, "%s", path);
	n = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (len != NULL)
		*len = n;
	return buf;
}
