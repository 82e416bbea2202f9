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

/* What decided a command. */
struct rules_match {
	enum rules_decision decision;
	const char *justification;	/* NULL when the rule gave none */
	const char *source;		/* "FILE:LINE" of the deciding rule */
	bool by_path;			/* it names the program by a path that is
					 * the program's file, not by name or "*" */
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
 * Warnings: a network_rule() shellesc ignores (shellesc-rules(5)).
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
 */
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
};

/* rules_decide() for a file; argv is the command's (argv[0] ignored). */
enum rules_decision rules_decide_file(const struct rules *r,
    const struct rules_file *f, char *const *argv, struct rules_match *m);

/* One rule that matches a command (rules_explain). */
struct rules_hit {
	const char *source;		/* "FILE:LINE" */
	enum rules_decision decision;
	const char *justification;	/* or NULL */
	const char *head;		/* the pattern's program that matched: a
					 * path, a name, "*" or the applet */
	size_t nprefix;			/* how many of the command's tokens the
					 * pattern matched (program included) */
	size_t argi;			/* argv index of the first argument
					 * matched (1, or the applet's) */
	bool by_path;
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

#endif /* SHELLESC_RULES_H */
