/*
 * fuzz-rules: the rules parser (rules_load_text, server/rules/rules.h) and a
 * few decisions with whatever loaded.  A failed load must say where and why,
 * in bounded, NUL-terminated fields, and leave the rules unchanged.
 */
#include "config.h"

#include <string.h>

#include "fuzz.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
rules_try(const struct rules *r)
{
	const struct {
		const char *program;
		char *const *argv;
		unsigned flags;
	} cmds[] = {
		{ "/usr/bin/git", (char *[]){ "git", "push", "origin", NULL }, 0 },
		{ "/bin/rm", (char *[]){ "rm", "-rf", "/", NULL }, 0 },
		{ "/usr/local/bin/tool", (char *[]){ "tool", NULL }, RULES_TARGET_STATIC },
		{ "/usr/bin/sudo", (char *[]){ "sudo", "-s", NULL }, RULES_TARGET_SETID },
	};
	struct rules_match m;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		enum rules_decision d = rules_decide(r, cmds[i].program, cmds[i].argv, cmds[i].flags, &m);

		FZ_CHECK(d >= RULES_NONE && d <= RULES_DENY, "decision %d", (int)d);
		FZ_CHECK(d == RULES_NONE || m.source != NULL, "a decision without its source");
		FZ_CHECK(rules_decision_name(d) != NULL, "no name for %d", (int)d);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rules *r = rules_new();
	struct rules_error err;

	FZ_CHECK(r != NULL, "rules_new");
	memset(&err, 0x55, sizeof(err));
	if (rules_load_text(r, "fuzz.rules", (const char *)data, size, &err) != 0) {
		FZ_CHECK(memchr(err.file, '\0', sizeof(err.file)) != NULL, "file not terminated");
		FZ_CHECK(memchr(err.msg, '\0', sizeof(err.msg)) != NULL, "msg not terminated");
		FZ_CHECK(err.msg[0] != '\0', "an error without a message");
		FZ_CHECK(err.line >= 1 && err.column >= 1, "position %d:%d", err.line, err.column);
	}
	rules_try(r);
	/* Loading the same text twice: a second copy of every rule, or the same error. */
	(void)rules_load_text(r, "again.rules", (const char *)data, size, &err);
	rules_try(r);
	rules_free(r);
	return 0;
}
