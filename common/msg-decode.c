/* msg-decode.c: table-driven, allocation-free decoding of protocol messages. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "msg.h"

enum field_kind { K_INT, K_BYTES, K_BOOL, K_LIST, K_FDS };

struct field {
	const char *key;
	enum field_kind kind;
	size_t off;		/* into struct msg */
	int64_t min, max;	/* K_INT: value; K_BYTES: length */
};

#define F(k, kind, member, lo, hi) { k, kind, offsetof(struct msg, member), lo, hi }
static const struct field msg_fields[] = {
	F("type", K_INT, type, SHELLESC_MSG_EXEC, SHELLESC_MSG_STOPPED),
	F("file", K_BYTES, file, 1, SHELLESC_FRAME_MAX),
	F("argv", K_LIST, argv, 0, 0),
	F("cwd", K_BYTES, cwd, 1, SHELLESC_FRAME_MAX),
	F("env", K_LIST, env, 0, 0),
	F("pid", K_INT, pid, 0, INT32_MAX),
	F("flags", K_INT, flags, 0, 0xffff),
	F("action", K_INT, action, SHELLESC_ACT_RUN, SHELLESC_ACT_DENY),
	F("reason", K_BYTES, reason, 0, SHELLESC_REASON_MAX),
	F("fds", K_FDS, dest, 0, SHELLESC_FD_DEST_MAX),
	F("signal", K_INT, signal, 1, 64),
	F("exit_code", K_INT, exit_code, 0, 255),
	F("core", K_BOOL, core, 0, 0),
	F("error", K_BYTES, error, 0, SHELLESC_REASON_MAX),
	F("message", K_BYTES, message, 0, SHELLESC_REASON_MAX),
	F("follow_stops", K_BOOL, follow_stops, 0, 0),
};
#undef F
#define NFIELDS (sizeof(msg_fields) / sizeof(msg_fields[0]))

#define BIT(i) (1u << (i))
static uint32_t
msg_bits(const char *const *keys)
{
	uint32_t bits = 0;

	for (; *keys; keys++)
		for (size_t i = 0; i < NFIELDS; i++)
			if (strcmp(msg_fields[i].key, *keys) == 0)
				bits |= BIT(i);
	return bits;
}

/* Keys each message type must carry ("signal" and "exit_code" of a result are checked apart). */
static const char *const *const msg_required[] = {
	[SHELLESC_MSG_EXEC] = (const char *const[]){ "type", "file", "argv", "cwd", "env", "pid", NULL },
	[SHELLESC_MSG_DECISION] = (const char *const[]){ "type", "action", NULL },
	[SHELLESC_MSG_HANDOVER] = (const char *const[]){ "type", "fds", NULL },
	[SHELLESC_MSG_SIGNAL] = (const char *const[]){ "type", "signal", NULL },
	[SHELLESC_MSG_RESULT] = (const char *const[]){ "type", NULL },
	[SHELLESC_MSG_ERROR] = (const char *const[]){ "type", "message", NULL },
	[SHELLESC_MSG_STOPPED] = (const char *const[]){ "type", "signal", NULL },
};

static const struct field *
msg_field_find(const char *key, uint32_t len, size_t *idx)
{
	for (size_t i = 0; i < NFIELDS; i++)
		if (strlen(msg_fields[i].key) == len &&
		    memcmp(msg_fields[i].key, key, len) == 0)
			return (*idx = i), &msg_fields[i];
	return NULL;
}

static int
msg_get_bytes(struct mpr *r, const struct field *f, struct msg_bytes *b)
{
	int e = mpr_bytes(r, &b->p, &b->len);

	if (e != 0)
		return e;
	if (memchr(b->p, '\0', b->len) != NULL)
		return SE_ERR_NUL;
	if (b->len < f->min || b->len > f->max)
		return SE_ERR_RANGE;
	return 0;
}

/* An array of byte strings: validate every element now, keep a cursor. */
static int
msg_get_list(struct mpr *r, struct msg_list *l)
{
	struct msg_bytes b;
	static const struct field any = { "", K_BYTES, 0, 0, SHELLESC_FRAME_MAX };
	int e;

	if ((e = mpr_array(r, &l->n)) != 0)
		return e;
	l->at = *r;
	for (uint32_t i = 0; i < l->n; i++)
		if ((e = msg_get_bytes(r, &any, &b)) != 0)
			return e;
	return 0;
}

static int
msg_get_int(struct mpr *r, const struct field *f, int64_t *v)
{
	int e = mpr_int(r, v);

	if (e == 0 && (*v < f->min || *v > f->max))
		e = SE_ERR_RANGE;
	return e;
}

/* Destination fd numbers: at most SHELLESC_MAX_FDS, in range, distinct. */
static int
msg_get_fds(struct mpr *r, const struct field *f, struct msg *m)
{
	uint32_t n;
	int64_t v;
	int e;

	if ((e = mpr_array(r, &n)) != 0)
		return e;
	if (n > SHELLESC_MAX_FDS)
		return SE_ERR_TOO_MANY_FDS;
	for (m->ndest = 0; m->ndest < n; m->ndest++) {
		if ((e = msg_get_int(r, f, &v)) != 0)
			return e;
		for (size_t j = 0; j < m->ndest; j++)
			if (m->dest[j] == v)
				return SE_ERR_RANGE;
		m->dest[m->ndest] = (int)v;
	}
	return 0;
}

static int
msg_get_field(struct mpr *r, const struct field *f, struct msg *m)
{
	void *dst = (char *)m + f->off;

	switch (f->kind) {
	case K_INT:
		return msg_get_int(r, f, dst);
	case K_BYTES:
		return msg_get_bytes(r, f, dst);
	case K_BOOL:
		return mpr_bool(r, dst);
	case K_LIST:
		return msg_get_list(r, dst);
	case K_FDS:
		return msg_get_fds(r, f, m);
	}
	return SE_ERR_TYPE;
}

/* Every required key is present, and a result says exactly one way it ended. */
static int
msg_check_required(struct msg *m)
{
	uint32_t need = msg_bits(msg_required[m->type]);
	uint32_t ended = msg_bits((const char *const[]){ "exit_code", "signal", NULL });

	for (size_t i = 0; i < NFIELDS; i++)
		if ((need & BIT(i)) && !(m->present & BIT(i)))
			return (m->bad_field = msg_fields[i].key), SE_ERR_MISSING;
	if (m->type == SHELLESC_MSG_RESULT) {
		uint32_t got = m->present & ended;

		if (got == 0)
			return (m->bad_field = "exit_code"), SE_ERR_MISSING;
		if (got == ended)
			return (m->bad_field = "signal"), SE_ERR_RANGE;
	}
	return 0;
}

/* One key/value pair of the top-level map. */
static int
msg_decode_pair(struct mpr *r, struct msg *m)
{
	const struct field *f;
	const char *key;
	uint32_t klen;
	size_t idx;
	int e;

	if ((e = mpr_bytes(r, &key, &klen)) == SE_ERR_TYPE) {
		if ((e = mpr_skip(r)) != 0)	/* non-string key: unknown */
			return e;
		return mpr_skip(r);
	}
	if (e != 0)
		return e;
	if ((f = msg_field_find(key, klen, &idx)) == NULL)
		return mpr_skip(r);
	m->bad_field = f->key;
	if (m->present & BIT(idx))
		return SE_ERR_MALFORMED;	/* duplicate key */
	if ((e = msg_get_field(r, f, m)) != 0)
		return e;
	m->present |= BIT(idx);
	m->bad_field = NULL;
	return 0;
}

int
msg_decode(const void *buf, size_t len, struct msg *m)
{
	struct mpr r;
	uint32_t n;
	int e;

	memset(m, 0, sizeof(*m));
	mpr_init(&r, buf, len);
	if ((e = mpr_map(&r, &n)) != 0)
		return e;
	for (uint32_t i = 0; i < n; i++)
		if ((e = msg_decode_pair(&r, m)) != 0)
			return e;
	if (!mpr_done(&r))
		return SE_ERR_TRAILING;
	if (m->type == 0)
		return (m->bad_field = "type"), SE_ERR_MISSING;
	return msg_check_required(m);
}

bool
msg_has(const struct msg *m, const char *key)
{
	size_t idx;

	return msg_field_find(key, (uint32_t)strlen(key), &idx) &&
	    (m->present & BIT(idx));
}

void
msg_list_next(struct msg_list *l, const char **p, uint32_t *len)
{
	(void)mpr_bytes(&l->at, p, len);	/* validated by msg_get_list */
}

/* Copy n strings of list l into v[], their bytes at *blob. */
static void
msg_exec_copy_list(struct msg_list l, char **v, char **blob)
{
	const char *p;
	uint32_t len;

	for (uint32_t i = 0; i < l.n; i++) {
		msg_list_next(&l, &p, &len);
		v[i] = *blob;
		memcpy(*blob, p, len);
		(*blob)[len] = '\0';
		*blob += len + 1;
	}
	v[l.n] = NULL;
}

static char *
msg_exec_copy(struct msg_bytes b, char **blob)
{
	char *s = *blob;

	memcpy(s, b.p, b.len);
	s[b.len] = '\0';
	*blob += b.len + 1;
	return s;
}

/*
 * Each string of length L took at least L + 1 bytes of the frame, so a blob
 * the size of the frame's strings plus one NUL each is bounded by the frame.
 */
int
msg_exec_take(const struct msg *m, struct msg_exec *e)
{
	size_t size = (size_t)m->file.len + m->cwd.len + 2;
	struct msg_list l;
	const char *p;
	uint32_t len;
	char *blob;

	memset(e, 0, sizeof(*e));
	for (int k = 0; k < 2; k++)
		for (l = k ? m->env : m->argv; l.n > 0; l.n--) {
			msg_list_next(&l, &p, &len);
			size += len + 1;
		}
	e->blob_ = malloc(size);
	e->argv = calloc(m->argv.n + 1, sizeof(char *));
	e->env = calloc(m->env.n + 1, sizeof(char *));
	if (!e->blob_ || !e->argv || !e->env) {
		msg_exec_free(e);
		return SE_ERR_NOMEM;
	}
	blob = e->blob_;
	e->file = msg_exec_copy(m->file, &blob);
	e->cwd = msg_exec_copy(m->cwd, &blob);
	msg_exec_copy_list(m->argv, e->argv, &blob);
	msg_exec_copy_list(m->env, e->env, &blob);
	e->argc = m->argv.n;
	e->envc = m->env.n;
	e->pid = (pid_t)m->pid;
	e->flags = (unsigned)m->flags;
	return 0;
}

void
msg_exec_free(struct msg_exec *e)
{
	free(e->blob_);
	free(e->argv);
	free(e->env);
	memset(e, 0, sizeof(*e));
}
