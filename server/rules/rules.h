/*
 * rules.h: policy rules files, the Starlark subset of Codex's execpolicy.
 *
 * A rules set is loaded from one or more files; deciding a command is a
 * lookup indexed by program name, so the cost stays nearly flat with the
 * number of rules.  The grammar, matching and errors are documented in
 * man/shellesc-rules.5.  Library code: nothing here prints or exits.
 *
 * Errors: a function that can fail returns -1 (NULL when it returns a
 * pointer).  errno says why when the system failed (memory, a file, a bad
 * argument: EINVAL); loading and appending also fill in a struct
 * rules_error with where (file, and line and column for a fault in the
 * text) and what, ready to show.
 */
#ifndef SHELLESC_RULES_H
#define SHELLESC_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Decisions, in order of strictness: when several rules match, the highest wins. */
enum rules_decision {
	RULES_NONE = -1,	/* no rule matched */
	RULES_ESCALATE = 0,	/* "allow" (Codex) or "escalate" */
	RULES_RUN = 1,		/* "run" */
	RULES_PROMPT = 2,	/* "prompt" */
	RULES_DENY = 3,		/* "forbidden" (Codex) or "deny" */
};

struct rules;

/* What a report is: an error (the load fails), a warning (it does not),
 * or an example that held (rules_set_report, for running a file's tests). */
enum rules_severity {
	RULES_SEV_ERROR = 0,
	RULES_SEV_WARNING,
	RULES_SEV_PASS,
};

/* Where and why a file failed to load (or a warning, or a passed example). */
struct rules_error {
	char file[256];
	int line, column;	/* 1-based */
	char msg[256];		/* what was expected / what is wrong */
	char text[256];		/* the source line, blanks for tabs and '?' for
				 * control bytes (so column - 1 blanks put a caret
				 * under the place); "" when there is no place */
	enum rules_severity severity;
	bool example;		/* a match/not_match example's result */
};

/* A load reports at most this many errors of a file (then stops). */
#define RULES_MAX_ERRORS	20

/*
 * A sandbox profile: what an escalated command runs under
 * (shellesc-rules(5), PROFILES).  The built-in "unsandboxed" is no sandbox
 * at all; the built-in "network" and every sandbox_profile() are the
 * session's own sandbox with the network allowed (network) and more
 * directories writable (writable).  A profile only ever widens the
 * session's sandbox by these, never narrows nor replaces it.
 */
struct rules_profile {
	const char *name;
	bool unsandboxed;		/* the built-in "unsandboxed" */
	bool network;			/* TCP and the internet families allowed */
	const char *const *writable;	/* absolute directories ("~/" expanded) */
	size_t nwritable;
	const char *const *allow_sockets; /* accepted and kept; not enforced */
	size_t nsockets;
	const char *source;		/* "FILE:LINE", or NULL: built-in */
};

/* The built-in profiles ("unsandboxed", "network"). */
extern const struct rules_profile rules_profile_unsandboxed;
extern const struct rules_profile rules_profile_network;
/* The profile called name in r (a built-in, or a sandbox_profile() of a
 * loaded file), or NULL. */
const struct rules_profile *rules_profile_find(const struct rules *r,
    const char *name);
/* Is every right of inner also one of outer's (an exec inside outer may
 * escalate into inner without widening it)? */
bool rules_profile_within(const struct rules_profile *inner,
    const struct rules_profile *outer);

/* What decided a command. */
struct rules_match {
	enum rules_decision decision;
	const char *justification;	/* NULL when the rule gave none */
	const char *source;		/* "FILE:LINE" of the deciding rule */
	bool by_path;			/* it names the program by a path that is
					 * the program's file, not by name or "*" */
	bool argv0;			/* it lists the caller's argv[0] (argv0 =
					 * [...]): an escalation keeps it */
	const struct rules_profile *profile; /* profile = "NAME" of the rule,
					 * or NULL: none given (unsandboxed) */
};

/* What a rule's target = [...] names: the caller maps the facts it has about
 * the program onto these bits (the shellesc command: SHELLESC_TARGET_*). */
#define RULES_TARGET_STATIC	0x1	/* "static": statically linked */
#define RULES_TARGET_SETID	0x2	/* "setid": set-uid/gid or file capabilities */

/* A new, empty set (NULL when out of memory); rules_free(NULL) does nothing. */
struct rules *rules_new(void);
void rules_free(struct rules *r);

/*
 * Where the programs that rules name by name are looked up: the absolute
 * directories of a PATH value (others are skipped), or NULL for none (the
 * default).  Set it before loading, to directories the sandboxed side
 * cannot write: a file found there as NAME is NAME's, whatever another
 * link to it is called (rules_decide_file).  0, or -1 (ENOMEM).
 */
int rules_set_path(struct rules *r, const char *path);

/*
 * Read later loads as Codex reads its own files ($CODEX_HOME/rules): a
 * prefix_rule without decision is "allow" (escalate).  Otherwise (the
 * default) it is "prompt": an upgrade of shellesc then never makes a
 * forgotten decision run a program outside the sandbox.  Either way the
 * load warns of it (shellesc-rules(5), LINT).
 */
void rules_set_codex(struct rules *r, bool codex);

/* Add the rules of a file (or of text, named name in errors).
 * Returns 0, or -1 with *err filled in; r is unchanged on error.
 * err may be NULL.  A failure to read the file (or a bad argument) leaves
 * line and column 0 and sets errno; msg says what failed.  Loading must not
 * run concurrently with anything else on r. */
int rules_load_file(struct rules *r, const char *path, struct rules_error *err);
int rules_load_text(struct rules *r, const char *name, const char *text,
    size_t len, struct rules_error *err);

/*
 * Be told of every error and warning of each later load, in the order
 * found, and of every match/not_match example that held (RULES_SEV_PASS).
 * After an error a load goes on at the next statement (a line starting
 * with a name in column 1), up to RULES_MAX_ERRORS errors, so one pass
 * shows them all; the load fails all the same, and *err of
 * rules_load_file/text holds the first.  Errors not at a place in a text
 * (a file that cannot be read) are not reported here, only in *err.
 * Warnings (shellesc-rules(5), LINT): a network_rule() shellesc ignores,
 * a prefix_rule without decision, one that escalates with "allow" or
 * escalates an interpreter or build tool, a pattern element with a blank,
 * a program found nowhere (a path that does not exist, a name in none of
 * the directories of rules_set_path, when set), an example whose program
 * name is, in those directories, a file the rule treats otherwise.
 * fn NULL: no reports (the default).
 */
typedef void rules_report_fn(void *arg, const struct rules_error *e);
void rules_set_report(struct rules *r, rules_report_fn *fn, void *arg);

/*
 * Warn (through the report function) of rules that can never decide: a
 * duplicate of another rule, or one shadowed by a rule that matches every
 * command it matches and always wins over it (shellesc-rules(5), LINT).
 * Returns how many were found.  Read-only but for the report.
 */
size_t rules_lint(const struct rules *r);

/* How many prefix_rule() calls the set holds (0 for NULL). */
size_t rules_count(const struct rules *r);

/*
 * Decide a command: program is the absolute path that will run, argv the
 * command's argv (argv[0] is ignored: program takes its place), flags the
 * RULES_TARGET_* bits of the program.  Returns the decision (RULES_NONE
 * when nothing matched) and, when m is not NULL, what decided it; m's
 * strings belong to r.  Among rules of the same rank, one naming the
 * program's path is reported before one naming it by name or "*".  It is
 * rules_decide_file() for a file known only by its path.  A NULL or empty program, or a NULL r, match
 * nothing; a NULL argv is a command without arguments.  A program without
 * '/' is matched as a bare name (host_executable does not restrict it).
 * Rules with target = [...] match only when flags has one of its bits, and
 * such a rule deciding escalate outranks run (shellesc-rules(5)).
 * Read-only: any number of threads may decide on one r at once.
 */
enum rules_decision rules_decide(const struct rules *r, const char *program,
    char *const *argv, unsigned flags, struct rules_match *m);

/*
 * The program that will run, as the caller found it: the file it opened.
 *
 * At each load, every absolute program path in the rules (a program
 * element or a host_executable path) is looked up -- its device and inode,
 * and its real path -- and so is every program name, in the directories
 * of rules_set_path.  A file then answers to its own real path and file
 * name, and also to every path and name that was the same file at load
 * (the same device and inode: a hard link, /bin and /usr/bin on a
 * merged-/usr system, a symbolic link under another name) or had it as
 * real path (a file replaced since, by an upgrade).  The name a caller
 * used to reach it does not count: a link of the caller's making cannot
 * lend a program another name's rules.
 *
 * A multi-call binary (busybox) running an applet is decided as itself
 * with its arguments and as the applet by name with the applet's
 * arguments; the strictest decision of both wins.
 *
 * A script is decided as itself and as each program of its #! chain (its
 * interpreters, a loader's program), each by its file with the argv the
 * kernel gives it; the strictest decision of all wins, and a program of
 * the chain no rule matches adds nothing.
 */
#define RULES_CHAIN_MAX	6

struct rules_link {
	const char *path;	/* absolute, symlinks resolved; NULL: skipped */
	bool known;		/* dev and ino are the file's */
	dev_t dev;
	ino_t ino;
	char *const *argv;	/* what it runs with (argv[0] ignored) */
};

struct rules_file {
	const char *path;	/* absolute, symlinks resolved; or a bare name */
	const char *written;	/* the program as the caller wrote it (execve's
				 * path), or NULL: a relative path with '/' in it
				 * also matches rules naming that very string, as
				 * in Codex (never as a path: see by_path) */
	bool known;		/* dev and ino are the file's */
	dev_t dev;
	ino_t ino;
	unsigned flags;		/* RULES_TARGET_* facts about it */
	const char *applet;	/* the applet it runs, or NULL */
	size_t applet_argi;	/* index in argv of the applet's first argument */
	struct rules_link chain[RULES_CHAIN_MAX];	/* a script's #! chain */
	size_t nchain;
	const char *argv0;	/* the caller's argv[0] as written, or NULL: a
				 * rule with argv0 = [...] matches only one it
				 * lists (as written, or by its basename) */
};

/* rules_decide() for a file; argv is the command's (argv[0] ignored). */
enum rules_decision rules_decide_file(const struct rules *r,
    const struct rules_file *f, char *const *argv, struct rules_match *m);

/* One rule that matches a command (rules_explain). */
struct rules_hit {
	const char *source;		/* "FILE:LINE" */
	enum rules_decision decision;
	const char *justification;	/* or NULL */
	const struct rules_profile *profile;	/* or NULL (rules_match) */
	const char *head;		/* the pattern's program that matched: a
					 * path, a name, "*" or the applet */
	size_t nprefix;			/* how many of the command's tokens the
					 * pattern matched (program included) */
	size_t argi;			/* argv index of the first argument
					 * matched (1, or the applet's, or
					 * past options before a subcommand) */
	bool by_path;
	bool options;			/* matched past options before a
					 * subcommand or with short options
					 * spelled otherwise (shellesc-rules(5)
					 * OPTIONS IN PROMPT AND DENY RULES);
					 * nprefix is 1 for the latter */
};

/*
 * Does a host_executable() for f's file name keep the rules written for
 * that name from matching f (f is none of its paths)?  For explaining why
 * a name's rules did not apply.  A bare name is never kept out.
 */
bool rules_host_excludes(const struct rules *r, const struct rules_file *f);

/*
 * Every rule that matches, as rules_decide_file() would weigh them (the
 * deciding one among them), each once, in no particular order: fn is
 * called for each; its strings belong to r.  Returns the decision.
 */
enum rules_decision rules_explain(const struct rules *r,
    const struct rules_file *f, char *const *argv,
    void (*fn)(void *arg, const struct rules_hit *h), void *arg);

/* Why a rule did not match a command (rules_near). */
enum rules_miss_why {
	RULES_MISS_PROGRAM,	/* written for the command's name, but the file
				 * is not that name's (rules_name_file), or a
				 * host_executable keeps it out */
	RULES_MISS_ELEM,	/* element elem is none of want: got instead */
	RULES_MISS_SHORT,	/* the command ends before element elem */
	RULES_MISS_LONGER,	/* exact=True, and the command goes on (got) */
	RULES_MISS_TARGET,	/* target = [...] names none of f's flags */
	RULES_MISS_OPTIONS,	/* a run or escalate rule that would match
				 * past the options before the subcommand
				 * (elem as RULES_MISS_ELEM): those stay exact */
};

/* A rule that nearly matched a command. */
struct rules_miss {
	const char *source;		/* "FILE:LINE" */
	enum rules_decision decision;
	const char *head;		/* the pattern's program looked at */
	size_t elem;			/* the first element that differed: 0 the
					 * program, else the argument's index */
	const char *const *want;	/* that element's alternatives, or NULL */
	size_t nwant;
	const char *got;		/* the command's word there (the file for
					 * the program), or NULL past its end */
	enum rules_miss_why why;
};

/*
 * Every rule that does not match f with argv but nearly does, each once,
 * in no particular order: a rule for one of the paths or names f answers
 * to (and the wildcard, once an argument matched), or one written for f's
 * file name or the command's name that f does not answer to.  For
 * explaining; it looks at every rule of r.  Strings belong to r.
 */
void rules_near(const struct rules *r, const struct rules_file *f,
    char *const *argv, void (*fn)(void *arg, const struct rules_miss *m),
    void *arg);

/* The first regular file called name in the absolute directories of the
 * PATH-like dirs, into buf: true when there is one.  What "a program
 * found nowhere" means to the lint and to the learning mode. */
bool rules_path_find(const char *dirs, const char *name, char *buf,
    size_t size);

/* The file that a rule naming name by name is for: the first one found as
 * name in rules_set_path's directories at the last load (r's string), or
 * NULL (no rule names it, or none was found). */
const char *rules_name_file(const struct rules *r, const char *name);

/* Call fn with each path and name rules reach f by (its path, its name
 * unless a host_executable keeps it out, what it was at load), perhaps
 * more than once: rules_decide_file's view, for explaining. */
void rules_file_names(const struct rules *r, const struct rules_file *f,
    void (*fn)(void *arg, const char *head), void *arg);

/*
 * Call fn for every absolute program path the rules name, with the
 * decision of a rule naming it (once per rule and path), in no particular
 * order.  For giving those exact files a right the sandbox denies others.
 */
void rules_each_path(const struct rules *r,
    void (*fn)(void *arg, const char *path, enum rules_decision d), void *arg);

/* "deny", "prompt", ... for a decision; "none" for RULES_NONE. */
const char *rules_decision_name(enum rules_decision d);

/* The decision a name stands for in a rules file ("allow", "run", ...):
 * 0, or -1 when name is not one. */
int rules_decision_parse(const char *name, enum rules_decision *d);

/*
 * Append to the rules file at path a prefix_rule matching exactly
 * tokens[0..n) (tokens[0] a program path or name) with the given decision,
 * creating the file (and its directory) if needed.  Written so a crash
 * never leaves a half-written file.  Returns 0, or -1 with errno set and
 * *err (may be NULL) filled in: file is path, line and column are 0.
 *
 * EINVAL: path is NULL or empty, n is 0, a token is NULL, d is RULES_NONE,
 * or tokens[0] is empty, "*" (the wildcard) or a relative path with '/'.
 * The line is checked to load back and decide [tokens] as d before the
 * file is touched.  A line already in the file is not added again.  A
 * symlink at path is followed: its target is replaced.
 */
int rules_append_prefix_rule(const char *path, char *const *tokens, size_t n,
    enum rules_decision d, struct rules_error *err);

/* The line rules_append_prefix_rule() would append (no newline), malloc'd;
 * NULL with errno EINVAL (as there) or ENOMEM.  For showing it before asking. */
char *rules_format_prefix_rule(char *const *tokens, size_t n,
    enum rules_decision d);

/* The same with flags: RULES_APPEND_EXACT writes exact=True, a rule for
 * tokens[0..n) and no longer command. */
#define RULES_APPEND_EXACT	0x1
int rules_append_rule(const char *path, char *const *tokens, size_t n,
    enum rules_decision d, unsigned flags, struct rules_error *err);
char *rules_format_rule(char *const *tokens, size_t n, enum rules_decision d,
    unsigned flags);

/* Several rules at once, each as rules_append_rule() would write it, in
 * one replacement of the file: all of them or none.  Lines already in the
 * file (or twice in rs) are written once.  n 0 creates nothing. */
struct rules_new {
	char *const *tokens;
	size_t n;
	enum rules_decision decision;
	unsigned flags;			/* RULES_APPEND_* */
	const char *profile;		/* profile = "NAME" (escalate and prompt
					 * only; a name of letters, digits, '_',
					 * '.', '-'), or NULL: none */
};
/* The line rules_append_rules() would write for rn, checked (malloc'd);
 * NULL with errno EINVAL or ENOMEM. */
char *rules_format_new(const struct rules_new *rn);
int rules_append_rules(const char *path, const struct rules_new *rs, size_t n,
    struct rules_error *err);

#endif /* SHELLESC_RULES_H */
