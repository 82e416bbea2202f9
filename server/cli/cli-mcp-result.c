/*
 * cli-mcp-result.c: the shell tool as tools/list shows it, and a call's
 * result.
 *
 * The tool's name, description and input schema are the reference's, word
 * for word, so a client (and the model behind it) sees the same tool.  The
 * result's text is the reference's JSON, {"exit_code", "output",
 * "duration": {"secs", "nanos"}, "timed_out"}, in that order; from
 * protocol 2025-06-18 on, structuredContent holds the same fields and
 * more (signal, output size, the sandbox, the decisions in brief, at most
 * MCP_DECISIONS_MAX), described by outputSchema.  The output is in both on
 * purpose: the protocol asks for the JSON as text beside structuredContent,
 * and Codex gives the model structuredContent alone when there is one; the
 * decisions are what a result had too many of.  The output is stdout and stderr interleaved as they were
 * read, as text (bytes that are not UTF-8 become U+FFFD), and over
 * --max-output only its head and tail are kept, with a line between
 * saying how much was dropped.  The library keeps no more than that as
 * the command runs, so a call's memory stays bounded.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-mcp.h"

static const char mcp_input_schema[] =
    "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"title\":\"ExecParams\","
    "\"type\":\"object\",\"properties\":{"
    "\"command\":{\"description\":\"The bash string to execute.\",\"type\":\"string\"},"
    "\"workdir\":{\"description\":\"The working directory to execute the command in. Must "
    "be an absolute path.\",\"type\":\"string\"},"
    "\"timeout_ms\":{\"description\":\"The timeout for the command in milliseconds.\","
    "\"type\":\"integer\",\"format\":\"uint64\",\"minimum\":0,\"nullable\":true},"
    "\"login\":{\"description\":\"Launch Bash with -lc instead of -c: defaults to true.\","
    "\"type\":\"boolean\",\"nullable\":true}},"
    "\"required\":[\"command\",\"workdir\"]}";

static const char mcp_output_schema[] =
    "{\"type\":\"object\",\"properties\":{"
    "\"exit_code\":{\"type\":\"integer\",\"description\":\"The shell's exit status; "
    "128+N when signal N ended it.\"},"
    "\"output\":{\"type\":\"string\",\"description\":\"stdout and stderr, interleaved as "
    "read; over the limit, its head and tail with a line saying what was dropped.\"},"
    "\"duration\":{\"type\":\"object\",\"properties\":{\"secs\":{\"type\":\"integer\"},"
    "\"nanos\":{\"type\":\"integer\"}},\"required\":[\"secs\",\"nanos\"]},"
    "\"timed_out\":{\"type\":\"boolean\"},"
    "\"signal\":{\"type\":[\"integer\",\"null\"],\"description\":\"The signal that ended "
    "the shell, if one did.\"},"
    "\"output_bytes\":{\"type\":\"integer\",\"description\":\"Bytes of output in all.\"},"
    "\"output_dropped\":{\"type\":\"integer\",\"description\":\"Bytes of output left out "
    "(--max-output); 0 when none.\"},"
    "\"sandbox\":{\"type\":\"object\",\"description\":\"Where the shell ran: type "
    "(none or landlock), source, writable_roots, network.\"},"
    "\"decisions\":{\"type\":\"array\",\"items\":{\"type\":\"object\"},\"description\":"
    "\"The programs the rules matched, or that did not run in place (at most 16), in "
    "brief: id, decision (run, escalate or deny), program, argv (its first 8 words), "
    "argc, rule (FILE:LINE, or null), intercept, and reason, asked and answer when "
    "there are.\"},"
    "\"decisions_dropped\":{\"type\":\"integer\"}},"
    "\"required\":[\"exit_code\",\"output\",\"duration\",\"timed_out\",\"signal\","
    "\"output_bytes\",\"output_dropped\",\"sandbox\",\"decisions\",\"decisions_dropped\"]}";

json_t *
mcp_tool_list(struct mcp *m)
{
	json_t *tool = json_pack("{s:s, s:s, s:o}", "name", "shell", "description",
	    "Runs a shell command and returns its output. You MUST provide the workdir as an "
	    "absolute path. Every program the command starts is first checked against the "
	    "user's rules; one that is denied fails with \"execution denied\" and the reason.",
	    "inputSchema", json_loads(mcp_input_schema, 0, NULL));
	json_t *props = json_object_get(json_object_get(tool, "inputSchema"), "properties");
	json_t *ask = mcp_ask_schema();

	/* beyond the reference's: optional, so its calls stay valid */
	if (props != NULL && ask != NULL)
		json_object_update(props, ask);
	json_decref(ask);

	if (tool && atomic_load(&m->structured)) {
		json_object_set_new(tool, "title", json_string("Shell (approval-gated)"));
		json_object_set_new(tool, "outputSchema", json_loads(mcp_output_schema, 0, NULL));
	}
	return json_pack("{s:[o]}", "tools", tool);
}

/* The output as text: the library kept at most --max-output bytes of it,
 * its head and tail; the marker says what was dropped between them. */
static json_t *
mcp_output(struct mcp_call *call, const struct shellesc_exec_result *res)
{
	size_t len;
	char *buf;
	json_t *j;

	if (res->output_dropped == 0)
		return cli_json_lossy(res->output, res->output_len);
	buf = cli_output_marked(res->output, res->output_len, res->output_dropped,
	    call->m->c->o.max_output, &len);
	if (buf == NULL)
		return NULL;
	j = cli_json_lossy(buf, len);
	free(buf);
	return j;
}

/* The reference's four fields, in its order. */
static json_t *
mcp_result_base(const struct shellesc_exec_result *res, json_t *output)
{
	json_int_t secs = (json_int_t)res->duration;
	json_int_t nanos = (json_int_t)((res->duration - (double)secs) * 1e9 + 0.5);

	return json_pack("{s:i, s:o, s:{s:I, s:I}, s:b}",
	    "exit_code", res->signal ? 128 + res->signal : res->exit_code, "output", output,
	    "duration", "secs", secs, "nanos", nanos < 1000000000 ? nanos : 999999999,
	    "timed_out", res->timed_out);
}

/* After call->done: the decisions no longer change. */
static json_t *
mcp_result_more(struct mcp_call *call, const struct shellesc_exec_result *res,
    json_t *base)
{
	json_t *j = json_deep_copy(base);

	json_object_set_new(j, "signal", res->signal ? json_integer(res->signal) : json_null());
	json_object_set_new(j, "output_bytes",
	    json_integer((json_int_t)(res->output_len + res->output_dropped)));
	json_object_set_new(j, "output_dropped", json_integer((json_int_t)res->output_dropped));
	json_object_set_new(j, "sandbox", mcp_sbx_json(call->sbx));
	json_object_set(j, "decisions", call->decisions);
	json_object_set_new(j, "decisions_dropped",
	    json_integer((json_int_t)call->decisions_dropped));
	return j;
}

json_t *
mcp_result(struct mcp_call *call, const struct shellesc_exec_result *res)
{
	json_t *out = mcp_output(call, res);
	json_t *base = out ? mcp_result_base(res, out) : NULL, *j;
	char *text = base ? json_dumps(base, JSON_COMPACT) : NULL;

	if (text == NULL) {
		json_decref(base);
		return mcp_tool_error("out of memory for the result");
	}
	j = json_pack("{s:[{s:s, s:s}], s:b}", "content", "type", "text", "text", text,
	    "isError", 0);
	if (j && atomic_load(&call->m->structured))
		json_object_set_new(j, "structuredContent", mcp_result_more(call, res, base));
	free(text);
	json_decref(base);
	return j;
}

/* At most MCP_BRIEF_ARGV words of argv, each at most MCP_BRIEF_WORD bytes
 * (a cut inside a character leaves U+FFFD). */
static json_t *
mcp_brief_argv(json_t *argv)
{
	json_t *a = json_array(), *w;
	const char *s;
	size_t i;

	json_array_foreach(argv, i, w) {
		if (a == NULL || i == MCP_BRIEF_ARGV)
			break;
		s = json_string_value(w);
		if (s && json_string_length(w) > MCP_BRIEF_WORD)
			json_array_append_new(a, cli_json_lossy(s, MCP_BRIEF_WORD));
		else
			json_array_append(a, w);
	}
	return a;
}

json_t *
mcp_decision_brief(json_t *d)
{
	static const char *const maybe[] = { "reason", "asked", "answer" };
	json_t *rule = json_object_get(d, "rule"), *argv = json_object_get(d, "argv"), *j;

	j = json_pack("{s:O, s:O, s:O, s:o, s:I, s:O, s:O}",
	    "id", json_object_get(d, "id"), "decision", json_object_get(d, "decision"),
	    "program", json_object_get(d, "program"), "argv", mcp_brief_argv(argv),
	    "argc", (json_int_t)json_array_size(argv),
	    "rule", json_is_object(rule) ? json_object_get(rule, "source") : json_null(),
	    "intercept", json_object_get(d, "intercept"));
	for (size_t i = 0; j && i < sizeof(maybe) / sizeof(maybe[0]); i++)
		if (!json_is_null(json_object_get(d, maybe[i])))
			json_object_set(j, maybe[i], json_object_get(d, maybe[i]));
	return j;
}

/* A failure of the tool, not of the protocol: the model reads why. */
json_t *
mcp_tool_error(const char *why)
{
	return json_pack("{s:[{s:s, s:o}], s:b}", "content", "type", "text", "text",
	    cli_json_lossy(why, strlen(why)), "isError", 1);
}
