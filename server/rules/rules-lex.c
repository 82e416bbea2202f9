/*
 * rules-lex.c: the lexer of the rules language, and error reporting.
 *
 * Starlark's lexical rules, cut down to what the subset uses: names,
 * strings ('...', "...", triple-quoted, r-prefixed raw), punctuation, and
 * newlines that end statements.  As in Starlark, newlines inside brackets
 * are blanks, '#' starts a comment, a statement cannot be indented, and a
 * backslash in a string must start one of the known escapes.  Strings are
 * bytes, as in starlark-go: a byte that is not UTF-8 stands for itself,
 * and \xNN and \NNN give any byte (see shellesc-rules(5)).  NUL is refused
 * everywhere: no argv string can contain it, so such a token would only
 * look like a rule.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "rules-int.h"

void
rules_lex_init(struct rules_lexer *lx, const char *name, const char *text,
    size_t len, struct rules_error *err)
{
	memset(lx, 0, sizeof(*lx));
	lx->name = name;
	lx->text = text;
	lx->len = len;
	lx->at.line = 1;
	lx->err = err;
}

void
rules_lex_free(struct rules_lexer *lx)
{
	rules_buf_free(&lx->buf);
}

int
rules_lex_column(const struct rules_lexer *lx, const struct rules_pos *pos)
{
	int col = 1;

	for (size_t i = pos->bol; i < pos->off && i < lx->len; i++)
		if (((unsigned char)lx->text[i] & 0xc0) != 0x80)
			col++;
	return col;
}

static bool lex_is_name(int c, bool first);

/* Step over the '\n' at the current place. */
static void
lex_newline(struct rules_lexer *lx)
{
	lx->at.off++;
	lx->at.line++;
	lx->at.bol = lx->at.off;
}

bool
rules_lex_recover(struct rules_lexer *lx)
{
	const char *nl;

	lx->depth = 0;
	lx->failed = false;
	if (lx->at.off == lx->at.bol && lx->at.off < lx->len &&
	    lex_is_name(lx->text[lx->at.off], true))
		return true;
	while (lx->at.off < lx->len) {
		nl = memchr(lx->text + lx->at.off, '\n', lx->len - lx->at.off);
		if (nl == NULL)
			break;
		lx->at.off = (size_t)(nl - lx->text);
		lex_newline(lx);
		if (lx->at.off < lx->len && lex_is_name(lx->text[lx->at.off], true))
			return true;
	}
	lx->at.off = lx->len;
	return false;
}

const char *
rules_tok_describe(enum rules_tok_kind kind)
{
	static const char *const names[] = {
		[RULES_TOK_EOF] = "end of file",
		[RULES_TOK_NEWLINE] = "end of line",
		[RULES_TOK_NAME] = "a name",
		[RULES_TOK_STRING] = "a string",
		[RULES_TOK_NUMBER] = "a number",
		[RULES_TOK_LPAREN] = "'('",
		[RULES_TOK_RPAREN] = "')'",
		[RULES_TOK_LBRACK] = "a list",
		[RULES_TOK_RBRACK] = "']'",
		[RULES_TOK_COMMA] = "','",
		[RULES_TOK_EQUALS] = "'='",
		[RULES_TOK_SEMI] = "';'",
	};

	return names[kind];
}

/* The byte k ahead of the current place, or -1 past the end. */
static int
lex_peek(const struct rules_lexer *lx, size_t k)
{
	if (lx->len - lx->at.off <= k)
		return -1;
	return (unsigned char)lx->text[lx->at.off + k];
}

/* Blanks and comments; newlines too inside brackets. */
static int
lex_skip(struct rules_lexer *lx)
{
	bool bol = lx->at.off == lx->at.bol && lx->depth == 0;
	size_t start = lx->at.off;
	int c;

	for (;;) {
		c = lex_peek(lx, 0);
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f')
			lx->at.off++;
		else if (c == '#')
			while ((c = lex_peek(lx, 0)) >= 0 && c != '\n')
				lx->at.off++;
		else if (c == '\n' && lx->depth > 0)
			lex_newline(lx);
		else
			break;
	}
	if (bol && lx->at.off > start && c >= 0 && c != '\n')
		return rules_fail(lx, &lx->at,
		    "unexpected indentation: a statement starts in column 1");
	return 0;
}

/* Add one literal byte of a string. */
static int
lex_byte(struct rules_lexer *lx)
{
	int c = lex_peek(lx, 0);

	if (c == 0)
		return rules_fail(lx, &lx->at, "NUL byte in a string");
	if (rules_buf_addc(&lx->buf, c) != 0)
		return rules_fail(lx, &lx->at, "out of memory");
	if (c == '\n')
		lex_newline(lx);
	else
		lx->at.off++;
	return 0;
}

static int
lex_hexdigit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))
		return (c | 0x20) - 'a' + 10;
	return -1;
}

/* n hex digits at offset k ahead; -1 unless all are hex. */
static long
lex_hex(const struct rules_lexer *lx, size_t k, size_t n)
{
	long v = 0;
	int d;

	for (size_t i = 0; i < n; i++) {
		if ((d = lex_hexdigit(lex_peek(lx, k + i))) < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* Up to three octal digits at offset k ahead; *n gets how many. */
static long
lex_octal(const struct rules_lexer *lx, size_t k, size_t *n)
{
	long v = 0;
	int c;

	for (*n = 0; *n < 3 && (c = lex_peek(lx, k + *n)) >= '0' && c <= '7';
	    (*n)++)
		v = v * 8 + (c - '0');
	return v;
}

static int
lex_put_utf8(struct rules_buf *b, long cp)
{
	unsigned char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | cp >> 6);
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | cp >> 12);
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | cp >> 18);
		n = 4;
	}
	for (size_t i = 1; i < n; i++)
		u[i] = (unsigned char)(0x80 | ((cp >> (6 * (n - 1 - i))) & 0x3f));
	return rules_buf_add(b, u, n);
}

/* \x, \u, \U and octal escapes: the value, or -1 (lx->err filled). */
static long
lex_numeric_escape(struct rules_lexer *lx, int c, size_t *used)
{
	static const struct { int c; size_t digits; long max; } forms[] = {
		{ 'x', 2, 0xff }, { 'u', 4, 0x10ffff }, { 'U', 8, 0x10ffff },
	};
	long v;

	if (c >= '0' && c <= '7') {
		v = lex_octal(lx, 1, used);
		*used += 1;
		if (v > 0xff)
			return rules_fail(lx, &lx->at, "octal escape above \\377");
		return v;
	}
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (forms[i].c != c)
			continue;
		*used = 2 + forms[i].digits;
		if ((v = lex_hex(lx, 2, forms[i].digits)) < 0)
			return rules_fail(lx, &lx->at, "\\%c needs %zu hex digits",
			    c, forms[i].digits);
		if (v > forms[i].max || (c != 'x' && v >= 0xd800 && v < 0xe000))
			return rules_fail(lx, &lx->at, "\\%c escape is not a "
			    "Unicode code point", c);
		return v;
	}
	return rules_fail(lx, &lx->at, c > 0x20 && c < 0x7f ?
	    "invalid escape sequence \\%c" : "invalid escape sequence", c);
}

/* A backslash in a string that is not raw. */
static int
lex_escape(struct rules_lexer *lx)
{
	static const char simple[] = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
	int c = lex_peek(lx, 1);
	size_t used = 2;
	long v;

	if (c == '\n') {	/* a line continuation: nothing */
		lx->at.off++;
		lex_newline(lx);
		return 0;
	}
	for (size_t i = 0; c > 0 && simple[i] != '\0'; i += 2)
		if (simple[i] == c) {
			lx->at.off += 2;
			return rules_buf_addc(&lx->buf, simple[i + 1]) == 0 ? 0 :
			    rules_fail(lx, &lx->at, "out of memory");
		}
	if ((v = lex_numeric_escape(lx, c, &used)) < 0)
		return -1;
	if (v == 0)
		return rules_fail(lx, &lx->at, "NUL byte in a string");
	if ((c == 'u' || c == 'U' ? lex_put_utf8(&lx->buf, v) :
	    rules_buf_addc(&lx->buf, (int)v)) != 0)
		return rules_fail(lx, &lx->at, "out of memory");
	lx->at.off += used;
	return 0;
}

/* In a raw string a backslash stays, and keeps the next byte literal. */
static int
lex_raw_escape(struct rules_lexer *lx)
{
	if (rules_buf_addc(&lx->buf, '\\') != 0)
		return rules_fail(lx, &lx->at, "out of memory");
	lx->at.off++;
	return lex_peek(lx, 0) < 0 ? 0 : lex_byte(lx);
}

/* A string literal at the current place (after any r prefix). */
static int
lex_string(struct rules_lexer *lx, struct rules_tok *t, bool raw)
{
	int q = lex_peek(lx, 0), c;
	bool triple = lex_peek(lx, 1) == q && lex_peek(lx, 2) == q;
	int r;

	lx->buf.n = 0;
	if (rules_buf_add(&lx->buf, "", 0) != 0)
		return rules_fail(lx, &t->pos, "out of memory");
	lx->at.off += triple ? 3 : 1;
	for (;;) {
		if ((c = lex_peek(lx, 0)) < 0 || (c == '\n' && !triple))
			return rules_fail(lx, &t->pos, "unterminated string");
		if (c == q && (!triple ||
		    (lex_peek(lx, 1) == q && lex_peek(lx, 2) == q)))
			break;
		r = c != '\\' ? lex_byte(lx) :
		    raw ? lex_raw_escape(lx) : lex_escape(lx);
		if (r != 0)
			return -1;
	}
	lx->at.off += triple ? 3 : 1;
	t->kind = RULES_TOK_STRING;
	t->str = lx->buf.p;
	t->len = lx->buf.n;
	return 0;
}

static bool
lex_is_name(int c, bool first)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (!first && c >= '0' && c <= '9');
}

/* A name, a number (only to name it in errors) or a raw string. */
static int
lex_word(struct rules_lexer *lx, struct rules_tok *t)
{
	bool name = lex_is_name(lex_peek(lx, 0), true);
	int c = lex_peek(lx, 0), q = lex_peek(lx, 1);

	if ((c == 'r' || c == 'R') && (q == '"' || q == '\'')) {
		lx->at.off++;
		return lex_string(lx, t, true);
	}
	while (lex_is_name(lex_peek(lx, 0), false) ||
	    (!name && lex_peek(lx, 0) == '.'))
		lx->at.off++;
	t->kind = name ? RULES_TOK_NAME : RULES_TOK_NUMBER;
	t->str = lx->text + t->pos.off;
	t->len = lx->at.off - t->pos.off;
	return 0;
}

static int
lex_punct(struct rules_lexer *lx, struct rules_tok *t, int c)
{
	static const struct {
		char c;
		enum rules_tok_kind kind;
		int depth;
	} puncts[] = {
		{ '(', RULES_TOK_LPAREN, 1 }, { ')', RULES_TOK_RPAREN, -1 },
		{ '[', RULES_TOK_LBRACK, 1 }, { ']', RULES_TOK_RBRACK, -1 },
		{ ',', RULES_TOK_COMMA, 0 }, { '=', RULES_TOK_EQUALS, 0 },
		{ ';', RULES_TOK_SEMI, 0 },
	};

	for (size_t i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++) {
		if (puncts[i].c != c)
			continue;
		t->kind = puncts[i].kind;
		if (puncts[i].depth > 0 && lx->depth < RULES_LEX_OPENERS)
			lx->opener[lx->depth] = lx->at;
		if (lx->depth + puncts[i].depth >= 0)
			lx->depth += puncts[i].depth;
		lx->at.off++;
		return 0;
	}
	if (c > 0x20 && c < 0x7f)
		return rules_fail(lx, &lx->at, "unexpected character '%c'", c);
	return rules_fail(lx, &lx->at, "unexpected byte 0x%02x", (unsigned)c);
}

/*
 * A bracket still open at the end of the file, or when a call starts in
 * column 1 (which only a statement does): the error is where it opened,
 * not where the file ran out.
 */
static int
lex_unclosed(struct rules_lexer *lx)
{
	int i = lx->depth > RULES_LEX_OPENERS ? RULES_LEX_OPENERS - 1 :
	    lx->depth - 1;
	int c = (unsigned char)lx->text[lx->opener[i].off];

	return rules_fail(lx, &lx->opener[i], "'%c' is not closed", c);
}

/* A name in column 1 followed by '(' inside brackets: a new statement. */
static bool
lex_call_in_column1(const struct rules_lexer *lx, const struct rules_tok *t)
{
	size_t k = 0;

	if (lx->depth == 0 || t->kind != RULES_TOK_NAME || t->pos.off != t->pos.bol)
		return false;
	while (lex_peek(lx, k) == ' ' || lex_peek(lx, k) == '\t')
		k++;
	return lex_peek(lx, k) == '(';
}

int
rules_lex_peek_char(const struct rules_lexer *lx)
{
	struct rules_lexer tmp = *lx;

	tmp.r = NULL;
	tmp.err = NULL;
	tmp.failed = true;	/* lex_skip reports nothing */
	lex_skip(&tmp);
	return lex_peek(&tmp, 0);
}

int
rules_lex_next(struct rules_lexer *lx, struct rules_tok *t)
{
	int c, r;

	if (lex_skip(lx) != 0)
		return -1;
	memset(t, 0, sizeof(*t));
	t->pos = lx->at;
	c = lex_peek(lx, 0);
	r = 0;
	if (c < 0)
		t->kind = RULES_TOK_EOF;
	else if (c == '\n') {
		t->kind = RULES_TOK_NEWLINE;
		lex_newline(lx);
	} else if (c == '"' || c == '\'')
		r = lex_string(lx, t, false);
	else if (lex_is_name(c, false))
		r = lex_word(lx, t);
	else
		r = lex_punct(lx, t, c);
	t->end = lx->at.off;
	if (r == 0 && lx->depth > 0 && c < 0)
		return lex_unclosed(lx);
	if (r == 0 && lex_call_in_column1(lx, t)) {
		lx->at = t->pos;	/* the statement is read after the error */
		return lex_unclosed(lx);
	}
	return r;
}
