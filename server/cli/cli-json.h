/*
 * cli-json.h: the JSON the shellesc command writes (the audit log, the
 * approver's request, check --json, exec's result) and reads (the
 * approver's answer), with jansson.  Only the files that handle JSON
 * include it.
 */
#ifndef SHELLESC_CLI_JSON_H
#define SHELLESC_CLI_JSON_H

#include <jansson.h>

#include "cli.h"

/* Bytes: a string when they are valid UTF-8, else {"base64": "..."}. */
json_t *cli_json_bytes(const char *p, size_t n);
json_t *cli_json_str(const char *s);		/* NULL s: null */
json_t *cli_json_strv(char *const *v);
char *cli_json_unbytes(const json_t *j);	/* NULL: not such a value */
json_t *cli_json_request(const struct shellesc_request *req,
    const struct cli_verdict *v);
char *cli_json_line(json_t *j);	/* compact, with a newline; consumes j */

#endif /* SHELLESC_CLI_JSON_H */
