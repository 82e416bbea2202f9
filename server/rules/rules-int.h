/*
 * rules-int.h: the rules engine's private structures, shared by rules-*.c.
 *
 * Memory: everything a load creates (rules, strings, examples) comes from
 * one arena owned by struct rules, so a rule set is freed in a few calls
 * and a failed load gives back exactly what it took.  The index and the
 * host table are hash tables of malloc'd entries that outlive a failed
 * load (emptied, not removed: harmless, and bounded by the keys seen), and
 * each entry carries its own copy of its key.
 */
#ifndef SHELLESC_RULES_INT_H
#define SHELLESC_RULES_INT_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "rules.h"

/*
 * Errors, as in rules.h: a function that can fail returns -1 (NULL for a
 * pointer); errno says why when the system failed (memory, a file), and a
 * fault in a rules text is written to the lexer's struct rules_error
 * (rules_fail).  rules_errno(e) sets errno to e and returns -1.
 */
static inline int
rules_errno(int e)
{
	errno = e;
	return -1;
}

/* Files larger than this are refused: a policy is text a person wrote. */
#define RULES_MAX_FILE		(256u << 20)

/* The first pattern token that matches any program. */
#define RULES_WILDCARD		"*"

/* --- rules-mem.c: arena, growable arrays, byte buffers, hash table ------- */

struct rules_chunk;

struct rules_arena {
	struct rules_chunk *head;	/* newest first */
};

struct rules_arena_mark {
	struct rules_chunk *head;
	size_t used;
};

void *rules_arena_alloc(struct rules_arena *a, size_t size);
char *rules_arena_strndup(struct rules_arena *a, const char *s, size_t len);
void rules_arena_mark(const struct rules_arena *a, struct rules_arena_mark *m);
void rules_arena_rewind(struct rules_arena *a, const struct rules_arena_mark *m);
void rules_arena_free(struct rules_arena *a);

/* A growable array of pointers. */
struct rules_vec {
	void **v;
	size_t n, cap;
};

int rules_vec_push(struct rules_vec *vec, void *p);
/* The n pointers copied into the arena (NULL when n is 0 or out of memory). */
void **rules_vec_copy(const struct rules_vec *vec, struct rules_arena *a);
void rules_vec_free(struct rules_vec *vec);

/* A growable byte buffer, kept NUL-terminated. */
struct rules_buf {
	char *p;
	size_t n, cap;
};

int rules_buf_add(struct rules_buf *b, const void *p, size_t n);
int rules_buf_addc(struct rules_buf *b, int c);
void rules_buf_free(struct rules_buf *b);

/*
 * Open-addressing hash table keyed by (parent, a): parent is another
 * entry's key (NULL at the top), a a string.  Entries begin with struct
 * rules_key and are owned by the caller; a must live as long as the entry.
 */
struct rules_key {
	const struct rules_key *parent;
	const char *a;
	uint64_t hash;
};

struct rules_table {
	struct rules_key **slot;
	size_t cap, n;
};

uint64_t rules_hash(const struct rules_key *parent, const char *a);
struct rules_key *rules_table_get(const struct rules_table *t,
    const struct rules_key *parent, const char *a);
/* Add k (whose hash is set and which is not in t yet); 0 or -1 (ENOMEM). */
int rules_table_add(struct rules_table *t, struct rules_key *k);
/* Call fn on every entry, then free the slots. */
void rules_table_free(struct rules_table *t, void (*fn)(struct rules_key *));

/* Read a regular file whole (at most RULES_MAX_FILE); 0, or -1 with errno
 * set (EINVAL: not a regular file; EFBIG: too large). */
int rules_read_file(const char *path, char **buf, size_t *len, struct stat *st);

/* --- the rule set ------------------------------------------------------- */

/* A place in the text: byte offset, 1-based line, offset of that line. */
struct rules_pos {
	size_t off, bol;
	int line;
};

/* One pattern element: the alternatives it accepts. */
struct rules_elem {
	const char *const *alt;
	size_t nalt;
};

struct rules_rule {
	const struct rules_elem *pat;	/* pat[0]: program names, paths or "*" */
	size_t npat;			/* >= 1 */
	enum rules_decision decision;
	unsigned target;		/* RULES_TARGET_* mask; 0: any target */
	bool exact;			/* exact=True: no arguments past the pattern */
	const char *justification;	/* NULL: none */
	const char *const *argv0;	/* argv0 = [...]: the caller's argv[0]s it
					 * matches (and an escalation keeps), or NULL */
	size_t nargv0;
	const struct rules_profile *profile; /* profile = "NAME", or NULL */
	const char *source;		/* "FILE:LINE" */
	size_t seq;			/* load order, breaks ties */
	size_t depth;			/* elements the index holds it by */
};

/*
 * Rules are filed in a tree of tokens: the node (NULL, "git") holds rules
 * filed by ["git"], its child (that node, "push") those filed by ["git",
 * "push"], and so on.  A rule is filed under each path its first depth
 * elements' alternatives spell; depth is kept small (see rules-load.c) and
 * the elements after it are compared when deciding.
 */
#define RULES_INDEX_DEPTH	16	/* elements at most */
#define RULES_INDEX_PATHS	64	/* paths per rule, beyond the program's */

struct rules_node {
	struct rules_key key;		/* (parent node or NULL, token) */
	struct rules_vec rules;		/* rules_rule with this depth, in load order */
	char token[];
};

/* One host_executable() call; prev is the definition it replaced. */
struct rules_host {
	const char *const *paths;
	size_t npaths;
	const struct rules_host *prev;
	struct rules_hostent *ent;
};

struct rules_hostent {
	struct rules_key key;		/* (NULL, name) */
	const struct rules_host *def;	/* NULL: undefined again (a failed load) */
	char name[];
};

struct rules {
	struct rules_arena arena;
	struct rules_table index;	/* rules_node */
	struct rules_table hosts;	/* name -> rules_hostent */
	struct rules_table ident;	/* rules_alias (rules-ident.c) */
	struct rules_table flagged;	/* rules-flags.c's, by program head */
	char *path;			/* rules_set_path's directories */
	size_t nrules;
	struct rules_vec profiles;	/* rules_profile_def (rules-profile.c) */
	rules_report_fn *report;	/* rules_set_report */
	void *report_arg;
	bool codex;			/* rules_set_codex */
};

/* A table entry of size bytes followed by its own copy of a (malloc'd). */
struct rules_key *rules_key_new(size_t size, const struct rules_key *parent,
    const char *a);

/* --- rules-ident.c: what files the rules' paths and names are ---------- */

/* Look the set's program paths and names up anew; 0, or -1 (ENOMEM) with
 * r as it was. */
int rules_ident_rebuild(struct rules *r);
void rules_ident_free(struct rules *r);
/* Is f the file path names (the same path, real path or inode)? */
bool rules_ident_same(const struct rules *r, const char *path,
    const struct rules_file *f);
/* path as looked up at load (r's copy), if it was a file then; or NULL. */
const char *rules_ident_known(const struct rules *r, const char *path);
/* Call fn with every program path or name that was f's file at load. */
void rules_ident_heads(const struct rules *r, const struct rules_file *f,
    void (*fn)(void *arg, const char *head), void *arg);

/* --- rules-match.c ------------------------------------------------------ */

/* A rule's rank in strictness (rules-match.c explains the order). */
int rules_rank(const struct rules_rule *rule);
/* A rule is filed under every path its alternatives spell: is n the one
 * of its first alternatives (so each rule is seen once)? */
bool rules_first_filing(const struct rules_node *n,
    const struct rules_rule *rule);

/* Do pattern elements from on match args (argv[1..]) from from - 1 on? */
bool rules_match_args(const struct rules_rule *rule, size_t from,
    const char *const *args, size_t nargs);
/* May rules written for name match f?  Not when a host_executable for
 * name lists paths and f is none of them. */
bool rules_host_allows(const struct rules *r, const char *name,
    const struct rules_file *f);
/* Does a rule's program head name f by its path or file name (not by
 * what f was at load: rules_ident_heads)? */
bool rules_head_matches(const struct rules *r, const char *head,
    const struct rules_file *f);
/* The program name a head stands for, whose options before a subcommand
 * rules-global.c may know; NULL for the wildcard. */
const char *rules_head_name(const char *head);

/* Does rule match [program, args...]?  The target is not looked at. */
bool rules_rule_matches(const struct rules *r, const struct rules_rule *rule,
    const char *program, const char *const *args, size_t nargs);

/* --- rules-global.c: options before a subcommand ----------------------- */

/* Does the program called name have options before its subcommand that
 * rules-global.c knows? */
bool rules_global_known(const char *name);
/* Call fn with every index start > 0 of args where, past the program
 * name's leading options, its subcommand may start (more than one where
 * an option is not known to take a value or not).  Nothing for a name it
 * does not know. */
void rules_global_each(const char *name, const char *const *args,
    size_t nargs, void (*fn)(void *arg, size_t start), void *arg);

/* --- rules-flags.c: short options however spelled --------------------- */

/* Does prompt or deny rule match args (argv[1..]), its elements of short
 * options matched by the options set from there on (rules-flags.c)?
 * name: the program's name, for its long options (NULL: none). */
bool rules_flags_match(const struct rules_rule *rule, const char *name,
    const char *const *args, size_t nargs);
/* The prompt and deny rules with an element of short options, by program
 * head, into t (empty); 0 or -1 (ENOMEM).  Built by rules_ident_rebuild. */
int rules_flags_build(const struct rules *r, struct rules_table *t);
void rules_flags_free(struct rules_table *t);
/* fn for each rule of r->flagged filed by head. */
void rules_flags_each(const struct rules *r, const char *head,
    void (*fn)(void *arg, const struct rules_rule *rule), void *arg);

/* --- rules-load.c: one load in progress, undone on error ---------------- */

/* A match or not_match example, checked once the whole file is read. */
struct rules_example {
	const struct rules_rule *rule;
	const char *const *tok;
	size_t ntok;
	bool match;
	struct rules_pos pos;	/* the literal in the text, for the message */
	size_t end;
};

struct rules_load {
	struct rules *r;
	struct rules_arena_mark mark;
	size_t first_seq;
	struct rules_vec rules;		/* rules_rule added by this load */
	struct rules_vec hosts;		/* rules_host defined by this load */
	struct rules_vec examples;	/* rules_example */
	size_t nsuggest;		/* programs "did you mean" was sought for */
	size_t nprofiles;		/* r->profiles.n before the load */
};

int rules_load_add_rule(struct rules_load *ld, struct rules_rule *rule);
int rules_load_add_host(struct rules_load *ld, const char *name,
    struct rules_host *def);

/* --- rules-lex.c -------------------------------------------------------- */

enum rules_tok_kind {
	RULES_TOK_EOF,
	RULES_TOK_NEWLINE,
	RULES_TOK_NAME,
	RULES_TOK_STRING,
	RULES_TOK_NUMBER,
	RULES_TOK_LPAREN,
	RULES_TOK_RPAREN,
	RULES_TOK_LBRACK,
	RULES_TOK_RBRACK,
	RULES_TOK_COMMA,
	RULES_TOK_EQUALS,
	RULES_TOK_SEMI,
};

struct rules_tok {
	enum rules_tok_kind kind;
	struct rules_pos pos;
	size_t end;		/* just past the token */
	const char *str;	/* STRING: decoded (lexer's buffer, valid until
				 * the next token), NUL-terminated */
	size_t len;
};

#define RULES_LEX_OPENERS	32	/* open brackets whose place is kept */

struct rules_lexer {
	const char *name;	/* file name, for errors and rule sources */
	const char *text;
	size_t len;
	struct rules_pos at;	/* where lexing resumes */
	int depth;		/* open ( and [: newlines inside are blanks */
	struct rules_pos opener[RULES_LEX_OPENERS];	/* where they opened */
	struct rules_buf buf;	/* the decoded string */
	struct rules_error *err;	/* the first error */
	const struct rules *r;		/* its report function, or NULL */
	int nerrors;
	bool failed;		/* this statement has reported its error */
	bool example;		/* what is reported is an example's result */
};

void rules_lex_init(struct rules_lexer *lx, const char *name, const char *text,
    size_t len, struct rules_error *err);
void rules_lex_free(struct rules_lexer *lx);
/* After an error: resume at the next line that starts with a name in
 * column 1 (a statement), outside any bracket.  false at the end. */
bool rules_lex_recover(struct rules_lexer *lx);
/* The next byte that is not a blank or a comment (newlines are blanks
 * inside brackets), or -1: for telling "NAME =" from a NAME value. */
int rules_lex_peek_char(const struct rules_lexer *lx);
int rules_lex_next(struct rules_lexer *lx, struct rules_tok *t);
/* 1-based column of pos: characters (UTF-8 lead bytes) since the line start. */
int rules_lex_column(const struct rules_lexer *lx, const struct rules_pos *pos);
/* Fill *lx->err for pos (first error only); returns -1. */
int rules_fail(struct rules_lexer *lx, const struct rules_pos *pos,
    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int rules_vfail(struct rules_lexer *lx, const struct rules_pos *pos,
    const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
/*
 * An error that is not at a place in a text (line and column 0): *err for
 * name with msg, or when msg is NULL the text of e ("not a regular file"
 * for EINVAL, "file too large" for EFBIG, else strerror); sets errno to e
 * and returns -1.
 */
int rules_fail_plain(struct rules_error *err, const char *name, int e,
    const char *msg);
/* A warning or a passed example at pos: reported, the load goes on. */
void rules_note(struct rules_lexer *lx, const struct rules_pos *pos,
    enum rules_severity sev, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* "')'", "a string", "end of file", ... for error messages. */
const char *rules_tok_describe(enum rules_tok_kind kind);

/* --- rules-parse.c: statements and the shapes of values ---------------- */

struct rules_call;

struct rules_var;

struct rules_parser {
	struct rules_lexer lx;
	struct rules_tok tok;		/* the current token */
	size_t prev_end;		/* just past the token before it */
	struct rules_load *ld;
	struct rules_arena *arena;
	struct rules_vec vars;		/* rules_var: this file's assignments */
	const struct rules_tok *replay;	/* a variable's tokens being read */
	size_t nreplay;
	struct rules_tok at;		/* where the variable is used */
};

int rules_parse(struct rules_parser *p);
int rules_advance(struct rules_parser *p);
int rules_expect(struct rules_parser *p, enum rules_tok_kind kind,
    const char *what);
/* The current token as an arena string; what names the argument in errors. */
int rules_parse_string(struct rules_parser *p, const char *what,
    const char **out, size_t *len);
/* A list: opens with '[', calls item per element, allows a trailing comma. */
int rules_parse_list(struct rules_parser *p, const char *what,
    int (*item)(struct rules_parser *, void *), void *arg, size_t *count);
/* A list of strings, copied into the arena. */
int rules_parse_strings(struct rules_parser *p, const char *what,
    const char *const **out, size_t *n, struct rules_pos **pos);

/* --- rules-builtin.c: prefix_rule() and host_executable() --------------- */

/* One call's arguments as they are parsed. */
struct rules_call {
	struct rules_pos pos;		/* the function's name */
	/* prefix_rule */
	const struct rules_elem *pat;
	const struct rules_pos *const *pat_pos;	/* [npat][nalt]: each alternative */
	size_t npat;
	enum rules_decision decision;
	const char *decision_word;	/* as written ("allow"), or NULL */
	struct rules_pos decision_pos;
	unsigned target;
	bool exact;			/* exact=True */
	const char *justification;
	const char *const *argv0;	/* argv0 = [...] */
	size_t nargv0;
	struct rules_vec examples;	/* rules_example, rule not set yet */
	/* host_executable */
	const char *name;
	struct rules_pos name_pos;
	const char *const *paths;
	size_t npaths;
	bool has_paths;
	struct rules_pos *path_pos;
	const struct rules_profile *profile;	/* prefix_rule's profile = */
	struct rules_pos profile_pos;
	/* sandbox_profile (name, name_pos as host_executable's) */
	const char *const *writable;
	size_t nwritable;
	struct rules_pos *writable_pos;
	const char *const *sockets;
	size_t nsockets;
	bool network, has_network;
	/* network_rule */
	const char *protocol;
	bool has_decision;		/* prefix_rule and network_rule: given */
};


struct rules_param {
	const char *name;
	bool positional;	/* may be given without its name */
	int (*parse)(struct rules_parser *, struct rules_call *);
};

struct rules_builtin {
	const char *name;
	const struct rules_param *params;
	size_t nparams;
	int (*finish)(struct rules_parser *, struct rules_call *);
};

/* An unknown value s of what, with a guess among the n known and the
 * list of them; returns -1. */
int rules_builtin_unknown(struct rules_parser *p, const struct rules_pos *at,
    const char *what, const char *s, const char *const *known, size_t n);
int rules_parse_justification(struct rules_parser *p, struct rules_call *c);
/* An absolute path ("~/" expanded, cleaned) in *s, or -1 (what: in the
 * message). */
int rules_builtin_path(struct rules_parser *p, const char **s,
    const struct rules_pos *pos, const char *what);

/* rules-network.c: network_rule()'s parameters, and its end (a warning). */
#define RULES_NETWORK_NPARAMS	4
extern const struct rules_param rules_network_params[RULES_NETWORK_NPARAMS];
int rules_network_finish(struct rules_parser *p, struct rules_call *c);

/* rules-profile.c: sandbox_profile()'s parameters and end, and
 * prefix_rule's profile = "NAME". */
#define RULES_PROFILE_NPARAMS	4
extern const struct rules_param rules_profile_params[RULES_PROFILE_NPARAMS];
int rules_profile_finish(struct rules_parser *p, struct rules_call *c);
int rules_parse_profile(struct rules_parser *p, struct rules_call *c);
/* prefix_rule's profile = is for rules that escalate or prompt: 0 or -1. */
int rules_profile_check_rule(struct rules_parser *p, const struct rules_call *c);
/* A sandbox_profile() as kept in the set. */
struct rules_profile_def {
	struct rules_profile pub;
	char file[256];
	int line, column;
};
/* Warn of profiles no rule uses (rules_lint's part); how many. */
size_t rules_profile_lint(const struct rules *r);

/* The builtin called name (length len), or NULL. */
const struct rules_builtin *rules_builtin_find(const char *name, size_t len);
/* A fresh call of b, its name at pos; freed by rules_call_free. */
struct rules_call *rules_call_new(const struct rules_builtin *b,
    const struct rules_pos *pos);
void rules_call_free(struct rules_call *c);

/* --- rules-var.c: top-level assignments (NAME = value) ---------------- */

/* NAME '=' value at the start of a statement (the current token is NAME). */
int rules_var_assign(struct rules_parser *p);
/* Is the current token a variable used as a value?  Then start reading
 * its tokens in its place (true). */
bool rules_var_expand(struct rules_parser *p);

/* --- rules-diag.c: diagnostics ----------------------------------------- */

/* Report e through r's report function, if any. */
void rules_report(const struct rules *r, const struct rules_error *e);
/* Fill e->text with the line of text at pos (shellesc-rules(5) ERRORS). */
void rules_diag_line(struct rules_error *e, const char *text, size_t len,
    const struct rules_pos *pos);
/* The candidate closest to word (len bytes) by edit distance, if close
 * enough to be a likely misspelling; NULL otherwise. */
const char *rules_suggest(const char *word, size_t len,
    const char *const *cands, size_t n);
/* " (did you mean 'X'?)" for word among cands, or "", in buf. */
const char *rules_did_you_mean(char *buf, size_t size, const char *word,
    size_t len, const char *const *cands, size_t n);
/* " (did you mean 'X'?)" for a program name among the files of the
 * absolute directories of dirs, or "", in buf. */
const char *rules_did_you_mean_program(char *buf, size_t size,
    const char *name, const char *dirs);

/* --- rules-lint.c: warnings about one rule, and about examples -------- */

/* Warn of what in c (a prefix_rule about to be added) is likely not what
 * its author meant (shellesc-rules(5), LINT).  Nothing fails. */
void rules_lint_call(struct rules_parser *p, const struct rules_call *c);
/* Warn when ex, whose program is a name, would go the other way for the
 * file that name is in the set's PATH (after the set's ident rebuild). */
void rules_lint_example(struct rules_parser *p, const struct rules_example *ex);

/* --- rules-split.c: words, paths, bytes -------------------------------- */

/* Split s into words like a POSIX shell (quotes, backslashes, # comments);
 * words are arena strings pushed onto words.  0, or -1 with *why set. */
int rules_split(struct rules_arena *a, const char *s, struct rules_vec *words,
    const char **why);
/* path with a leading "~/" replaced by $HOME, in the arena; NULL when HOME
 * is unset or relative (*why set) or out of memory (*why NULL). */
char *rules_path_expand(struct rules_arena *a, const char *path,
    const char **why);

#endif /* SHELLESC_RULES_INT_H */
