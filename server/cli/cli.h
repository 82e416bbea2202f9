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
 * The helpers most files use (messages, showing untrusted strings, string
 * vectors, the PATH search) are cli-util.h's, which this includes;
 * cli-main.c is main() and its dispatch.
 *
 * Errors: functions print what was wrong (cli_warn, cli_warnx) and return
 * -1, or NULL; only main() exits.  The exceptions say so where they are
 * declared: code between fork and exec (-1 with errno, no message),
 * cli_path_search (NULL with errno: its callers word the message), and
 * the answers to a request (a failure is its deny, the text in the
 * verdict's reason).
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

#include "cli-util.h"
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

enum cli_cmd { CLI_RUN, CLI_CHECK, CLI_EXEC, CLI_MCP, CLI_AUDIT };
enum cli_sandbox { CLI_SANDBOX_NONE, CLI_SANDBOX_LANDLOCK };
/* exec --output: which of output (interleaved), stdout and stderr. */
enum cli_output { CLI_OUTPUT_INTERLEAVED, CLI_OUTPUT_SPLIT, CLI_OUTPUT_BOTH };

/* One Landlock layer of PROGRAM's or a shell's sandbox, owning its
 * strings: writes beneath writable only, and no TCP with no_network.
 * Layers stack, each narrowing the others.  cli-sandbox.c hands them to
 * the library's builder as struct shellesc_sandbox_layer. */
struct cli_layer {
	struct cli_strv writable;
	bool no_network;
	bool no_exec;			/* nothing beneath writable runs in place ... */
	struct cli_strv exec_allowed;	/* ... but these files */
	bool writable_git;		/* --writable-git: each root's .git too */
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
	enum cli_kernel kernel;		/* the kernel layer */
	enum cli_sandbox sandbox;
	bool sandbox_given;		/* -s was on the command line */
	bool sandbox_default;		/* mcp without -s: Landlock on the workspace
					 * until the client's sandbox-state update */
	struct cli_strv writable;	/* -w; empty: the defaults */
	struct cli_strv pass_env;	/* --pass-env: to escalated commands */
	struct cli_strv allow_socket;	/* --allow-socket: the socket gate's */
	bool no_network;
	bool no_exec_writable;		/* nothing beneath writable runs in place */
	bool writable_git;		/* the writable roots' .git is writable too */
	bool force;			/* run: even when the probe says nothing is caught */
	enum rules_decision dflt;	/* --default */
	const char *approver;
	int prompt_timeout;		/* seconds */
	const char *audit;
	bool audit_stop;		/* --audit-fail stop */
	bool audit_writable;		/* --audit-writable: beneath -w is fine */
	bool rules_writable;		/* --rules-writable: a root may hold rules */
	int verbose;
	bool json;			/* check */
	bool explain;			/* check: every matching rule */
	bool strict;			/* a rules warning is an error */
	const char *shell, *cwd, *command; /* exec; mcp: shell */
	int login, timeout_ms;		/* exec --timeout; 0: not given */
	int default_timeout_ms;		/* exec, mcp: when no timeout is given; 0: none */
	int max_calls;			/* mcp: tool calls running at once (32) */
	size_t max_output;		/* exec, mcp: bytes of output a result keeps; 0: default */
	enum cli_output output;		/* exec --output */
	bool base64;			/* exec --base64 */
	const char *log_decision, *log_program, *log_since, *log_until; /* audit */
	bool log_unmatched;		/* audit --no-rule: no rule matched */
	bool log_rules;			/* audit --rules: propose rules */
	const char *learn;		/* --learn FILE: the learned file */
	char **argv;			/* what follows the options */
	int argc;
};

struct cli_rules;
struct cli_audit;
struct cli_prompt;
struct cli_exec_out;
struct cli_learn;

struct cli {
	struct cli_opts o;
	struct cli_rules *rules;
	struct cli_audit *audit;
	struct cli_prompt *prompt;
	struct shellesc_session *s;
	struct shellesc_sandbox *sandbox; /* run: PROGRAM's; exec, mcp: the command
					 * line's layer, checked at start; or NULL */
	const char *program;		/* run's PROGRAM (PATH searched), exec's shell */
	bool kernel_needed;		/* run: only the kernel layer catches its execs */
	struct cli_strv exec_allowed;	/* --no-exec-writable: what still may run */
	char *shell;			/* exec, mcp: the shell's absolute path */
	char *tmpdir;			/* the private temporary directory, or NULL */
	char *outer_tmpdir;		/* "TMPDIR=..." before it was set to tmpdir, or NULL */
	char **own_env;			/* escalated commands see these of ours */
	char **program_env;		/* --mode kernel: what PROGRAM (or the shell)
					 * starts with; else NULL: environ */
	struct rlimit nofile;		/* our fd limit before the session raised it */
	struct cli_exec_out *exec_out;	/* exec: the decisions it reports, or NULL */
	struct cli_learn *learn;	/* --learn: the rules proposed so far, or NULL */
};

/*
 * Whose decisions the audit log writes (cli-audit.c): one tools/call of
 * mcp, whose session numbers its requests from 1 like every other call's.
 * The log gives each decision an id of its own, unique in the server's
 * life, and ties the "end" of an escalated command to it through ids.
 */
struct cli_audit_call {
	struct json_t *call;		/* the tools/call request's id */
	char *command;			/* the call's command string */
	char *client, *client_version;	/* initialize's clientInfo, or NULL */
	pthread_mutex_t mu;
	struct cli_audit_id { uint64_t req, id; } *ids; /* request id -> log id */
	size_t n, cap;
};

/*
 * What decided a request, copied out of the rules (which an "always"
 * answer may reload meanwhile) plus how a prompt went.
 */
/*
 * cli-profile.c: the profile an escalation runs under, copied out of the
 * rules (shellesc-rules(5), PROFILES); NULL: unsandboxed.
 */
struct cli_profile {
	char *name;
	bool network;
	char **writable;		/* NULL-terminated, absolute */
	size_t nwritable;
};
/* Out of memory: never mistaken for NULL (unsandboxed). */
#define CLI_PROFILE_NOMEM	((struct cli_profile *)-1)
/* NULL for NULL and "unsandboxed"; CLI_PROFILE_NOMEM when out of memory. */
struct cli_profile *cli_profile_dup(const struct rules_profile *p);
void cli_profile_free(struct cli_profile *p);
const char *cli_profile_name(const struct cli_profile *p);
/* p's directories, shown (cli_vis) and joined by ", " (malloc'd; NULL). */
char *cli_profile_dirs(const struct cli_profile *p);
/* A copy of p (or an equal one kept before) kept for the life of the
 * process; NULL when out of memory. */
const struct cli_profile *cli_profile_keep(const struct cli_profile *p);
/* The sandbox of n layers (a session's: its shell's) widened by p, for
 * an escalation into p (no exec notification); NULL after a message. */
struct cli_layer;
struct shellesc_sandbox *cli_profile_sandbox(const struct cli_layer *in, size_t n,
    const struct cli_profile *p);
/* The session's prepare and release callbacks (arg: the struct cli):
 * SHELLESC_MODE_PROFILE's sandbox. */
int cli_profile_prepare(void *arg, const struct shellesc_request *req,
    const struct shellesc_decision *d, struct shellesc_prepared *p);
void cli_profile_release(void *arg, struct shellesc_prepared *p);
/* A request's own ask for profile name (mcp's sandbox_permissions, to
 * come): what the rules run or escalate becomes a prompt into it, a deny
 * stays; 0, or -1 with v denied (unknown name, out of memory). */
struct cli_verdict;
int cli_profile_requested(struct cli *c, struct cli_verdict *v, const char *name);
/* Does the rules set define a profile of this name (the built-ins too)? */
bool cli_profile_known(struct cli *c, const char *name);

/*
 * An escalation the caller itself asks for (mcp's sandbox_permissions,
 * justification and prefix_rule): borrowed from the caller, which
 * outlives every request it asks about.  The agent's words are untrusted
 * text: shown as such, never obeyed.
 */
struct cli_ask {
	const char *profile;		/* "unsandboxed", or a profile's name */
	const char *justification;	/* the agent's question, or NULL */
	char *const *prefix_rule;	/* the suggested rule's words, or NULL */
	size_t nprefix;
};

struct cli_verdict {
	enum rules_decision rule;	/* RULES_NONE: no rule matched */
	bool by_path;			/* the rule names the program's own path */
	bool keep_argv0;		/* the rule lists the caller's argv[0] */
	enum rules_decision effective;	/* rule, or --default when none matched */
	char *source;			/* "FILE:LINE", or NULL */
	char *justification;		/* or NULL */
	struct cli_profile *profile;	/* escalate into it; NULL: unsandboxed */
	const char *asked;		/* NULL, "tty" or "approver" */
	const char *answer;		/* the prompt's answer, for the audit */
	char *reason;			/* deny reason; NULL: a default is made */
	/* Told how the request is answered, just before it is (any thread);
	 * kept when a prompt re-decides.  NULL: nobody asks. */
	void (*answered)(void *arg, const struct shellesc_request *req,
	    const struct cli_verdict *v, enum shellesc_action a, const char *reason);
	void *answered_arg;
	struct cli_audit_call *audit;	/* mcp: the call it belongs to; else NULL */
	const struct cli_ask *ask;	/* the caller asked for this escalation */
};

/*
 * cli-diag.c: what the rules engine reports while loading (a
 * rules_report_fn; arg a tally, which counts everything).  Errors and
 * warnings go to stderr, with the source line and a caret, the first
 * CLI_MAX_WARNINGS warnings only; with examples, examples' results go to
 * stdout, one line each; with collect, nothing is shown and everything
 * goes to collect (check -p --json).
 */
#define CLI_MAX_WARNINGS	20
struct cli_rules_tally {
	size_t pass, fail, errors, warnings;
	bool examples;			/* show examples' results */
	bool stopped;			/* a file's load stopped at the error cap */
	char file[256];			/* the file errors are being counted of */
	size_t file_errors;
	void (*collect)(void *arg, const struct rules_error *e);
	void *collect_arg;
};
void cli_rules_report(void *arg, const struct rules_error *e);
/* "and N more warnings", when some were not shown. */
void cli_rules_tally_end(const struct cli_rules_tally *t);
/* A file that could not be read (err's line is 0; e the errno): its
 * message, with a hint for a path that does not exist. */
void cli_rules_unreadable(const struct rules_error *err, const char *file, int e);

/* cli-kernel.c: the kernel layer of run (exec's and mcp's: the library's,
 * shellesc_exec_params.sandbox, planned here too).  Whether PROGRAM's child is to
 * take a listener (*listen: the layer is wanted and the kernel has it),
 * saying which layer is missing; 0 or -1 (--mode kernel without it). */
int cli_kernel_plan(struct cli *c, bool *listen);
/* In PROGRAM's child (async-signal-safe): enter c->sandbox, and with
 * listen send its listener on sock (or why there is none).  0, or -errno
 * with *why saying which step failed. */
int cli_kernel_enter(const struct cli *c, bool listen, int sock,
    struct shellesc_sandbox_fault *why);
/* In the parent: the child's listener to the session; 0 or -1 (printed). */
int cli_kernel_take(struct cli *c, int sock, pid_t pid);

/* cli-usage.c: the usage text for cmd (an enum cli_cmd), or all of it (-1). */
void cli_usage(FILE *f, int cmd);

/* cli-options.c */
int cli_options(struct cli_opts *o, int argc, char **argv);
void cli_options_free(struct cli_opts *o);
const char *cli_action_name(enum shellesc_action a);

/* cli-setup.c: what run, exec and mcp share (mcp starts no session) */
int cli_setup(struct cli *c);
/* exec's and mcp's shell into c->shell and o.shell; -1 after a message. */
int cli_setup_shell(struct cli *c);
int cli_setup_config(struct cli *c, struct shellesc_config *cfg);
void cli_teardown(struct cli *c);
const char *cli_setup_preload(void);	/* the preload library's path */
/* The SHELLESC_SANDBOX_* flags of the kernel layer as --mode asks for it. */
unsigned cli_setup_sandbox_flags(const struct cli *c);

/* cli-probe.c: whether the session's mode can catch PROGRAM's execs (run);
 * 0, or -1 after saying why and what to do (0 with --force, still said).
 * Sets c->kernel_needed when only the default mode's kernel layer can. */
int cli_probe(struct cli *c, const char *preload);

/* cli-rules.c */
int cli_rules_open(struct cli *c);
/* The -p arguments as files: a directory stands for its *.rules files
 * (sorted), as the default directories do; 0, or -1 after a message. */
int cli_rules_files(const struct cli_strv *policies, struct cli_strv *out);
/* Is file one of Codex's ($CODEX_HOME/rules, else ~/.codex/rules)?  Those
 * are read as Codex reads them (rules_set_codex). */
bool cli_rules_is_codex(const char *file);
/* Our PATH's directories the sandboxed side cannot write (malloc'd), or
 * NULL after a message: where rules look program names up. */
char *cli_rules_trusted_path(const struct cli *c);
void cli_rules_close(struct cli *c);
/* Where rules come from, for the guard: the files loaded, the learned
 * file, the rules directories (absolute).  0, or -1 out of memory. */
int cli_rules_locations(const struct cli *c, struct cli_strv *out);

/* cli-rules-guard.c: under -s landlock, a writable root that holds a
 * rules location (cli_rules_locations, or a directory on its path) is
 * refused with a message (-1), or for mcp left out of c's roots with a
 * message; --rules-writable lets it be.  cli_rules_guard_filter leaves
 * such roots out of roots (what names them in the message); -1 out of
 * memory. */
int cli_rules_guard(struct cli *c);
int cli_rules_guard_filter(const struct cli *c, struct cli_strv *roots, const char *what);
/* Decide the program that will run; request or a file of check's. */
/* rules_host_excludes under the lock. */
bool cli_rules_host_excludes(struct cli *c, const struct rules_file *f);
/* Every rule that matches f with argv (rules_explain), under the lock. */
void cli_rules_explain(struct cli *c, const struct rules_file *f,
    char *const *argv, void (*fn)(void *arg, const struct rules_hit *h),
    void *arg);
void cli_rules_decide(struct cli *c, const struct rules_file *f, char *const *argv,
    struct cli_verdict *v);
/* fn with the rules set, under the lock (read-only). */
void cli_rules_with(struct cli *c, void (*fn)(void *arg, const struct rules *r),
    void *arg);
void cli_rules_decide_request(struct cli *c, const struct shellesc_request *req,
    struct cli_verdict *v);
/* The file a request is decided on, as the rules engine takes it (its
 * strings are req's). */
void cli_rules_request_file(const struct shellesc_request *req, struct rules_file *f);
/* The directories of our PATH the sandboxed side cannot write, where rules
 * look names up (malloc'd; NULL after a message). */
char *cli_rules_trusted_path(const struct cli *c);
/* Does text alone, loaded with names looked up in path, decide f argv as d? */
bool cli_rules_would(const char *path, const char *text, const struct rules_file *f,
    char *const *argv, enum rules_decision d);
/* The learned file's name by default, in the user's rules directory. */
#define CLI_RULES_LEARNED	"learned.rules"
/* What a request is decided on: the file the server opened (its real path
 * and argv), or the program as named when it could not be opened. */
const char *cli_request_program(const struct shellesc_request *req);
char *const *cli_request_argv(const struct shellesc_request *req);
/* Every exact program path of the rules beneath a writable directory (a
 * NULL-terminated vector into *out); 0 or -1. */
int cli_rules_exec_paths(struct cli *c, struct cli_strv *out);
/* "always" runs or escalates (d) from now on exactly this argv, or the
 * command generalised as --learn does (what an approver or a person
 * picked); CLI_ALWAYS_NO: only this once.  The rule goes to the learned
 * file, never a -p file. */
enum cli_always { CLI_ALWAYS_NO, CLI_ALWAYS_EXACT, CLI_ALWAYS_PREFIX };
struct cli_profile;
/* profile: the escalation's (NULL: unsandboxed), written with the rule. */
int cli_rules_always(struct cli *c, const struct shellesc_request *req,
    enum cli_always how, enum rules_decision d, const struct cli_profile *profile);
char *cli_rules_always_text(struct cli *c, const struct shellesc_request *req,
    enum cli_always how, enum rules_decision d, const struct cli_profile *profile);
/* The file "always" appends to; *ok: it can be written (or made). */
const char *cli_rules_always_file(struct cli *c, bool *ok);
/* A rule the caller suggested and the person kept: prefix_rule(pattern=
 * ask's words, decision="escalate"[, profile=ask's]) in the learned file,
 * loaded at once.  cli_rules_keep_text: that line (malloc'd; NULL when
 * the words make no valid rule).  0 or -1. */
int cli_rules_keep(struct cli *c, const struct cli_ask *ask);
char *cli_rules_keep_text(const struct cli_ask *ask);
void cli_verdict_free(struct cli_verdict *v);
int cli_verdict_deny(struct cli_verdict *v, const char *answer, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* cli-policy.c */
void cli_policy(void *arg, struct shellesc_request *req);
/* req decided by the rules into v; v->reason set when it must be denied
 * whatever they say (a prompt that could only end in a refused escalation,
 * a dynamic loader's program shellesc cannot tell). */
void cli_policy_decide(struct cli *c, struct shellesc_request *req, struct cli_verdict *v);
/* The same, with v->ask (not NULL) turning what the rules do not deny
 * into a question whose yes escalates into the profile asked for
 * (cli_profile_requested). */
void cli_policy_decide_asked(struct cli *c, struct shellesc_request *req,
    struct cli_verdict *v);
void cli_policy_answer(struct cli *c, struct shellesc_request *req,
    struct cli_verdict *v, enum shellesc_action a);
void cli_policy_ended(void *arg, const struct shellesc_request *req,
    int exit_code, int sig, double seconds);
void cli_policy_log(void *arg, enum shellesc_log_level level, const char *msg);

/* cli-prompt.c */
enum cli_wait { CLI_WAIT_READY, CLI_WAIT_TIMEOUT, CLI_WAIT_WOKEN, CLI_WAIT_ERROR };
struct pollfd;

int cli_prompt_start(struct cli *c);
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

/* cli-question.c: the question about req a client shows a person (plain
 * text, safe to render as Markdown, bounded): "Allow agent to run `REAL
 * ARGV` (called as `NAME`) in `CWD`?", then the justification, if any.
 * cli_question_value: one value as a bounded code span, *cut the bytes
 * left out of its middle; cli_question_text: free text escaped for
 * Markdown, at most max bytes of it kept.  All malloc'd; NULL: no memory. */
struct cli_profile;
/* profile: what yes escalates into (NULL: unsandboxed), shown after the
 * command ("It runs under the profile `network` ..."). */
char *cli_question(const struct shellesc_request *req, const char *justification,
    const struct cli_profile *profile);
/* The question with what the caller asked (ask may be NULL): its
 * justification as the agent's words ("The agent says: ..."), escaped
 * and bounded as free text, and its suggested rule (rule: the line that
 * keeping it writes) as a value. */
char *cli_question_asked(const struct shellesc_request *req, const char *justification,
    const struct cli_profile *profile, const struct cli_ask *ask, const char *rule);
char *cli_question_value(const char *s, size_t *cut);
char *cli_question_text(const char *s, size_t max);

/* cli-sandbox.c: the library's sandbox of n layers (none: the seccomp
 * filter alone), flags SHELLESC_SANDBOX_*, the socket files allow lets
 * its gate reach (--allow-socket; NULL: the defaults only); NULL after a
 * message.  With verbose, says when the roots' .git stays writable. */
struct shellesc_sandbox *cli_sandbox_new(const struct cli_layer *layers, size_t n,
    unsigned flags, const struct cli_strv *allow, int verbose);

/* cli-audit.c */
int cli_audit_open(struct cli *c);
void cli_audit_close(struct cli *c);
/* 0, or -1: the line was lost and --audit-fail stop is ending the session. */
int cli_audit_decision(struct cli *c, const struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action a, const char *reason);
void cli_audit_end(struct cli *c, struct cli_audit_call *call,
    const struct shellesc_request *req, int exit_code, int sig, double seconds);
void cli_audit_call_init(struct cli_audit_call *call);
void cli_audit_call_free(struct cli_audit_call *call);

/* cli-learn.c: rules proposed from what ran (--learn, audit --rules).
 * cli_learn_rule: the rule for argv of f decided d (run or escalate):
 * tokens appended to out, *exact for exact=True; 0, 1 when none can be
 * proposed, -1 after a message.  path: where names are looked up. */
int cli_learn_rule(const char *path, const struct rules_file *f, char *const *argv,
    enum rules_decision d, struct cli_strv *out, bool *exact);
struct cli_learn *cli_learn_new(const struct cli *c);
void cli_learn_free(struct cli_learn *l);
/* Propose a rule for f argv decided d (any thread, each rule once). */
int cli_learn_add(struct cli_learn *l, const struct rules_file *f, char *const *argv,
    enum rules_decision d);
/* A --learn session's request, as answered: kept when no rule matched or
 * a prompt decided it, and it was not denied. */
void cli_learn_request(struct cli *c, const struct shellesc_request *req,
    const struct cli_verdict *v, enum shellesc_action a);
int cli_learn_print(struct cli_learn *l, FILE *out);
int cli_learn_write(struct cli_learn *l, const char *path);
size_t cli_learn_count(const struct cli_learn *l);

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
