/*
 * cli.h: the shellesc command (run, check, exec, mcp), built on libshellesc
 * and the rules engine.  Not installed.
 *
 * One struct cli holds a whole invocation: the options, the rules, the
 * audit sink, the prompt thread and the session.  The session's policy
 * callback (cli-policy.c) decides from the rules on the loop thread and
 * hands prompts to the prompt thread (cli-prompt.c), which asks the
 * terminal (cli-tty.c) or an approver command (cli-approver.c) one request
 * at a time while the loop keeps deciding other requests.
 *
 * Errors: functions print what was wrong (cli_warn, cli_warnx) and return
 * -1, or NULL; only main() exits.  The exceptions say so below: code
 * between fork and exec (-1 with errno, no message), cli_path_search (NULL
 * with errno: its callers word the message), and the answers to a request
 * (a failure is its deny, the text in the verdict's reason).
 * docs/architecture.md has every layer's idiom.
 */
#ifndef SHELLESC_CLI_H
#define SHELLESC_CLI_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>

#include "rules.h"
#include "shellesc.h"

/* Exit statuses of the command itself, as env(1) and timeout(1) use them. */
#define CLI_EXIT_FAIL		125	/* shellesc failed */
#define CLI_EXIT_NOEXEC		126	/* PROGRAM found but not executable */
#define CLI_EXIT_NOTFOUND	127	/* PROGRAM not found */

/* Overrides of the compiled-in paths, for running from the build tree:
 * this one for the preload library, SHELLESC_ENV_PROXY_PATH (proto.h) for
 * the wrapper. */
#define CLI_ENV_PRELOAD		"SHELLESC_PRELOAD"
/* Set by "exec" for its own re-execution as the shell (cli-exec.c). */
#define CLI_ENV_SANDBOX		"SHELLESC_SANDBOX_SHELL"

enum cli_cmd { CLI_RUN, CLI_CHECK, CLI_EXEC, CLI_MCP, CLI_AUDIT };
enum cli_sandbox { CLI_SANDBOX_NONE, CLI_SANDBOX_LANDLOCK };
/* exec --output: which of output (interleaved), stdout and stderr. */
enum cli_output { CLI_OUTPUT_INTERLEAVED, CLI_OUTPUT_SPLIT, CLI_OUTPUT_BOTH };

/* A growable NULL-terminated vector of strings. */
struct cli_strv {
	char **v;
	size_t n;
};

/* One Landlock layer of a sandboxed shell: writes beneath writable only,
 * and no TCP with no_network.  Layers stack, each narrowing the others. */
struct cli_layer {
	struct cli_strv writable;
	bool no_network;
	bool no_exec;			/* nothing beneath writable runs in place ... */
	struct cli_strv exec_allowed;	/* ... but these files */
};

enum cli_kernel {
	CLI_KERNEL_OFF,
	CLI_KERNEL_AUTO,		/* where the kernel has it ("both") */
	CLI_KERNEL_ON,			/* asked for: no session without it */
};

struct cli_opts {
	enum cli_cmd cmd;
	struct cli_strv policies;	/* -p, in order */
	unsigned intercept;		/* SHELLESC_INTERCEPT_* */
	enum cli_kernel kernel;		/* the kernel layer (run only) */
	enum cli_sandbox sandbox;
	struct cli_strv writable;	/* -w; empty: the defaults */
	struct cli_strv pass_env;	/* --pass-env: to escalated commands */
	bool no_network;
	bool no_exec_writable;		/* nothing beneath writable runs in place */
	bool force;			/* run: even when the probe says nothing is caught */
	enum rules_decision dflt;	/* --default */
	const char *approver;
	int prompt_timeout;		/* seconds */
	const char *audit;
	bool audit_stop;		/* --audit-fail stop */
	int verbose;
	bool json;			/* check */
	bool explain;			/* check: every matching rule */
	const char *shell, *cwd, *command; /* exec; mcp: shell */
	int login, timeout_ms;
	size_t max_output;		/* exec, mcp: bytes of output a result keeps; 0: default */
	enum cli_output output;		/* exec --output */
	bool base64;			/* exec --base64 */
	const char *log_decision, *log_program, *log_since, *log_until; /* audit */
	char **argv;			/* what follows the options */
	int argc;
};

struct cli_rules;
struct cli_audit;
struct cli_prompt;
struct cli_exec_out;

struct cli {
	struct cli_opts o;
	struct cli_rules *rules;
	struct cli_audit *audit;
	struct cli_prompt *prompt;
	struct shellesc_session *s;
	int ruleset;			/* Landlock ruleset fd, or -1 */
	const char *program;		/* run's PROGRAM (PATH searched), exec's shell */
	struct cli_strv exec_allowed;	/* --no-exec-writable: what still may run */
	char *tmpdir;			/* the private temporary directory, or NULL */
	char *outer_tmpdir;		/* "TMPDIR=..." before it was set to tmpdir, or NULL */
	char **own_env;			/* escalated commands see these of ours */
	struct rlimit nofile;		/* our fd limit before the session raised it */
	struct cli_exec_out *exec_out;	/* exec: the decisions it reports, or NULL */
};

/*
 * What decided a request, copied out of the rules (which an "always"
 * answer may reload meanwhile) plus how a prompt went.
 */
struct cli_verdict {
	enum rules_decision rule;	/* RULES_NONE: no rule matched */
	bool by_path;			/* the rule names the program's own path */
	enum rules_decision effective;	/* rule, or --default when none matched */
	char *source;			/* "FILE:LINE", or NULL */
	char *justification;		/* or NULL */
	const char *asked;		/* NULL, "tty" or "approver" */
	const char *answer;		/* the prompt's answer, for the audit */
	char *reason;			/* deny reason; NULL: a default is made */
	/* Told how the request is answered, just before it is (any thread);
	 * kept when a prompt re-decides.  NULL: nobody asks. */
	void (*answered)(void *arg, const struct shellesc_request *req,
	    const struct cli_verdict *v, enum shellesc_action a, const char *reason);
	void *answered_arg;
};

/* cli-diag.c: what the rules engine reports while loading (a
 * rules_report_fn).  arg NULL: errors and warnings go to stderr, with the
 * source line and a caret.  arg a tally: examples' results also go to
 * stdout, one line each, and everything is counted. */
struct cli_rules_tally {
	size_t pass, fail, errors;
};
void cli_rules_report(void *arg, const struct rules_error *e);

/* cli-main.c */
/* cli-kernel.c: the kernel layer of run.  Build the filters (f: with the
 * layer when the kernel has it and it is wanted, fb: without it), saying
 * which layer is missing; 0 or -1 (--mode kernel without it). */
struct cli_seccomp;
int cli_kernel_plan(struct cli *c, struct cli_seccomp *f, struct cli_seccomp *fb);
/* In PROGRAM's child (async-signal-safe): install f, and send its
 * listener on sock; falls back to fb when the layer is not required.
 * 0 or -1 with errno. */
int cli_kernel_enter(const struct cli *c, const struct cli_seccomp *f,
    const struct cli_seccomp *fb, int sock);
/* In the parent: the child's listener to the session; 0 or -1 (printed). */
int cli_kernel_take(struct cli *c, int sock, pid_t pid);

void cli_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int cli_oom(void);		/* "out of memory", then -1: return cli_oom(); */
void cli_debug(const struct cli *c, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
char *cli_vis(const char *s);	/* control and 8-bit bytes escaped */
char *cli_show(const char *s);	/* cli_vis, then quoted if a shell needs it */
char *cli_show_argv(const char *program, char *const *argv);

/* cli-usage.c: the usage text for cmd (an enum cli_cmd), or all of it (-1). */
void cli_usage(FILE *f, int cmd);

/* cli-options.c */
int cli_options(struct cli_opts *o, int argc, char **argv);
void cli_options_free(struct cli_opts *o);
int cli_strv_add(struct cli_strv *sv, const char *s);
void cli_strv_free(struct cli_strv *sv);
const char *cli_action_name(enum shellesc_action a);

/* cli-setup.c: what run, exec and mcp share (mcp starts no session) */
int cli_setup(struct cli *c);
int cli_setup_config(struct cli *c, struct shellesc_config *cfg);
void cli_teardown(struct cli *c);
char *cli_path_search(const char *name);	/* NULL: not found (errno) */
const char *cli_setup_preload(void);	/* the preload library's path */

/* cli-probe.c: whether the session's mode can catch PROGRAM's execs (run);
 * 0, or -1 after saying why and what to do (0 with --force, still said). */
int cli_probe(const struct cli *c, const char *preload);

/* cli-rules.c */
int cli_rules_open(struct cli *c);
void cli_rules_close(struct cli *c);
/* Decide the program that will run; request or a file of check's. */
/* rules_host_excludes under the lock. */
bool cli_rules_host_excludes(struct cli *c, const struct rules_file *f);
/* Every rule that matches f with argv (rules_explain), under the lock. */
void cli_rules_explain(struct cli *c, const struct rules_file *f,
    char *const *argv, void (*fn)(void *arg, const struct rules_hit *h),
    void *arg);
void cli_rules_decide(struct cli *c, const struct rules_file *f, char *const *argv,
    struct cli_verdict *v);
void cli_rules_decide_request(struct cli *c, const struct shellesc_request *req,
    struct cli_verdict *v);
/* What a request is decided on: the file the server opened (its real path
 * and argv), or the program as named when it could not be opened. */
const char *cli_request_program(const struct shellesc_request *req);
char *const *cli_request_argv(const struct shellesc_request *req);
/* Every exact program path of the rules beneath a writable directory (a
 * NULL-terminated vector into *out); 0 or -1. */
int cli_rules_exec_paths(struct cli *c, struct cli_strv *out);
/* "always" escalates from now on exactly this argv, or argv as a prefix
 * (what an approver or a person picked); CLI_ALWAYS_NO: only this once. */
enum cli_always { CLI_ALWAYS_NO, CLI_ALWAYS_EXACT, CLI_ALWAYS_PREFIX };
int cli_rules_always(struct cli *c, const char *program, char *const *argv,
    enum cli_always how);
char *cli_rules_always_text(struct cli *c, const char *program, char *const *argv,
    enum cli_always how);
/* The file "always" appends to; *ok: it can be written (or made). */
const char *cli_rules_always_file(struct cli *c, bool *ok);
void cli_verdict_free(struct cli_verdict *v);
int cli_verdict_deny(struct cli_verdict *v, const char *answer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* cli-policy.c */
void cli_policy(void *arg, struct shellesc_request *req);
/* req decided by the rules into v; v->reason set when it must be denied
 * whatever they say (a prompt that could only end in a refused escalation,
 * a dynamic loader's program shellesc cannot tell). */
void cli_policy_decide(struct cli *c, struct shellesc_request *req, struct cli_verdict *v);
void cli_policy_answer(struct cli *c, struct shellesc_request *req,
    struct cli_verdict *v, enum shellesc_action a);
void cli_policy_ended(void *arg, const struct shellesc_request *req,
    int exit_code, int sig, double seconds);
void cli_policy_log(void *arg, enum shellesc_log_level level, const char *msg);

/* cli-prompt.c */
enum cli_wait { CLI_WAIT_READY, CLI_WAIT_TIMEOUT, CLI_WAIT_WOKEN, CLI_WAIT_ERROR };
struct pollfd;

int cli_prompt_start(struct cli *c);
int64_t cli_now_ms(void);	/* CLOCK_MONOTONIC */
int64_t cli_prompt_deadline(const struct cli *c);
enum cli_wait cli_prompt_poll(struct pollfd *p, size_t n, int wake, int64_t deadline);
void cli_prompt_push(struct cli *c, struct shellesc_request *req, struct cli_verdict *v);
void cli_prompt_stop(struct cli *c);

/* "always" is offered only for a command no rule matched, into a file
 * that can be written (cli-tty.c says why). */
bool cli_prompt_always_ok(struct cli *c, const struct cli_verdict *v);

/* cli-tty.c: 0 with *a and *always set, or -1 with v->reason set. */
int cli_tty_ask(struct cli *c, struct shellesc_request *req, struct cli_verdict *v,
    int wake, enum shellesc_action *a, enum cli_always *always);

/* cli-approver.c: 0 with *a and *always set (v->reason maybe), or -1 with
 * v->reason set.  cli_approver_check: the approver's program exists and
 * can be executed, or -1 after a message (at start). */
int cli_approver_ask(struct cli *c, struct shellesc_request *req,
    struct cli_verdict *v, int wake, enum shellesc_action *a, enum cli_always *always);
int cli_approver_check(const char *cmd);

/* cli-landlock.c: with no_exec (not NULL), nothing beneath writable may
 * be executed in place but the files it names. */
int cli_landlock_ruleset(const struct cli_strv *writable, bool no_network,
    const struct cli_strv *no_exec);
int cli_landlock_enter(int ruleset);	/* after fork: 0, or -1 with errno (no message) */

/* cli-audit.c */
int cli_audit_open(struct cli *c);
void cli_audit_close(struct cli *c);
/* 0, or -1: the line was lost and --audit-fail stop is ending the session. */
int cli_audit_decision(struct cli *c, const struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action a, const char *reason);
void cli_audit_end(struct cli *c, const struct shellesc_request *req,
    int exit_code, int sig, double seconds);

/* cli-json.c: see cli-json.h, which only the files writing JSON include */

/* check's exit status: the decision (shellesc(1)); CLI_EXIT_FAIL if
 * check failed.  Running examples: 0 all held, 1 not. */
#define CLI_CHECK_RUN		0
#define CLI_CHECK_ESCALATE	1
#define CLI_CHECK_PROMPT	2
#define CLI_CHECK_DENY		3
#define CLI_CHECK_FAILED	1
int cli_check_status(enum rules_decision d);
/* cli-check-tests.c: check -p FILE... without ARGV: every example of the
 * files, a line each. */
int cli_check_tests(struct cli *c);

/* cli-run.c, cli-check.c, cli-exec.c, cli-mcp.c: a command's exit status */
int cli_run(struct cli *c);
int cli_check(struct cli *c);
int cli_exec(struct cli *c);
int cli_mcp(struct cli *c);
int cli_log(struct cli *c);		/* cli-log.c: shellesc audit FILE */
int cli_exec_sandboxed(int argc, char **argv, const char *spec);
/* For a shell the library runs confined (n Landlock layers, none for no
 * sandbox, and always the session's seccomp filter): environ plus *entry,
 * the spec cli_exec_sandboxed() reads; the shell to give the library is
 * this very program (cli_exec_self).  Free *entry and the vector. */
char **cli_exec_sandbox_env(const char *shell, const struct cli_layer *layers, size_t n,
    char **entry);
int cli_exec_self(char *buf, size_t size);

/* cli-exec-output.c: exec's result.  cli_exec_out_start before the
 * session, then every answer goes to cli_exec_out_decision (any thread);
 * cli_exec_out_print prints the result and frees what start made. */
int cli_exec_out_start(struct cli *c);
void cli_exec_out_decision(struct cli *c, const struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action a, const char *reason);
int cli_exec_out_print(struct cli *c, const struct shellesc_exec_result *res);
void cli_exec_out_free(struct cli *c);
/* A stream the library cut (shellesc_exec_result's *_dropped): p[0..n)
 * with a line at the cut, max/2, saying how much was dropped; NULL when
 * out of memory.  exec and mcp print the same marker. */
char *cli_output_marked(const char *p, size_t n, size_t dropped, size_t max, size_t *len);

#endif /* SHELLESC_CLI_H */
