/*
 * cli-json.h: the JSON the shellesc command writes (the audit log, the
 * approver's request, check --json, exec's result, mcp's messages) and
 * reads (the approver's answer, mcp's requests), with jansson.  Only the
 * files that handle JSON include it.
 */
#ifndef SHELLESC_CLI_JSON_H
#define SHELLESC_CLI_JSON_H

#include <jansson.h>

#include "cli.h"

/* Bytes: a string when they are valid UTF-8, else {"base64": "..."}. */
json_t *cli_json_bytes(const char *p, size_t n);
json_t *cli_json_b64_object(const char *p, size_t n);	/* {"base64": ...} always */
json_t *cli_json_str(const char *s);		/* NULL s: null */
json_t *cli_json_strv(char *const *v);
/* The profile an escalation or prompt (d) runs under (cli-profile.c):
 * {"name", "network", "writable"}; null for other decisions. */
struct cli_profile;
json_t *cli_profile_json(const struct cli_profile *p, enum rules_decision d);
char *cli_json_unbytes(const json_t *j);	/* NULL: not such a value */
json_t *cli_json_request(const struct shellesc_request *req,
    const struct cli_verdict *v);
/* ...and how it was answered, as the audit log and mcp show it */
json_t *cli_json_decision(const struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action a, const char *reason);
/* Text whatever the bytes: each byte not starting valid UTF-8 as U+FFFD. */
json_t *cli_json_lossy(const char *p, size_t n);
/* The same, *replaced set to true when a byte was replaced. */
json_t *cli_json_text(const char *p, size_t n, bool *replaced);
char *cli_json_line(json_t *j);	/* compact, with a newline; consumes j */

/* cli-check-why.c: check --explain's "why not" for f run as argv: how the
 * program was resolved and the rules that nearly matched ({"written",
 * "file", "names", "name_files", "near"}); NULL when out of memory. */
json_t *cli_check_why(struct cli *c, const struct rules_file *f,
    char *const *argv);
void cli_check_why_text(const json_t *why);

#endif /* SHELLESC_CLI_JSON_H */
