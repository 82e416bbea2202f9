/*
 * rules-ident.c: which files the rules' program paths and names are.
 *
 * A rule for /usr/bin/rm is meant for that program, however a caller
 * reaches it: /bin/rm where /bin is a link to /usr/bin, a hard link, a
 * symbolic link named ls.  So after each load every program path the rules
 * name (and every host_executable path) is looked up once -- its device
 * and inode, and its real path -- and every program name is looked up in
 * the directories of rules_set_path.  One table (r->ident) holds three
 * kinds of entry, told apart by the key's parent:
 *
 *   (ident_ns_path, PATH)      what PATH was: its inode and real path;
 *   (ident_ns_inode, "D:I")    the paths and names that were inode I of
 *                              device D;
 *   (ident_ns_real, REAL)      the paths and names whose real path was REAL.
 *
 * Deciding on a file then asks for its inode and its real path, and
 * considers the rules of each path and name found.  The table is built
 * aside and swapped in whole, so a failed build leaves the set as it was;
 * so is rules-flags.c's list of rules with short options, at the same time.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "path.h"
#include "rules-int.h"

static const struct rules_key ident_ns_path, ident_ns_inode, ident_ns_real;

struct rules_alias {
	struct rules_key key;
	struct rules_vec heads;		/* const char *: index tokens, host paths */
	bool known;			/* ns_path: dev and ino are the path's */
	dev_t dev;
	ino_t ino;
	char *real;			/* ns_path: its real path, or NULL */
};

static void
ident_free_alias(struct rules_key *k)
{
	struct rules_alias *a = (struct rules_alias *)k;

	rules_vec_free(&a->heads);
	free(a->real);
	free(a);
}

void
rules_ident_free(struct rules *r)
{
	rules_table_free(&r->ident, ident_free_alias);
	rules_flags_free(&r->flagged);
}

int
rules_set_path(struct rules *r, const char *path)
{
	char *copy = path ? strdup(path) : NULL;

	if (path != NULL && copy == NULL)
		return -1;
	free(r->path);
	r->path = copy;
	return 0;
}

static void
ident_inode_key(char *buf, size_t size, dev_t dev, ino_t ino)
{
	snprintf(buf, size, "%" PRIxMAX ":%" PRIxMAX, (uintmax_t)dev, (uintmax_t)ino);
}

static struct rules_alias *
ident_get(struct rules_table *t, const struct rules_key *ns, const char *a, bool make)
{
	struct rules_key *k = rules_table_get(t, ns, a);

	if (k != NULL || !make)
		return (struct rules_alias *)k;
	if ((k = rules_key_new(sizeof(struct rules_alias), ns, a)) == NULL)
		return NULL;
	if (rules_table_add(t, k) != 0) {
		free(k);
		return NULL;
	}
	return (struct rules_alias *)k;
}

/* head answers to the file of inode st and real path real (NULL: none). */
static int
ident_add(struct rules_table *t, const char *head, const struct stat *st, const char *real)
{
	char key[64];
	struct rules_alias *a;

	ident_inode_key(key, sizeof(key), st->st_dev, st->st_ino);
	if ((a = ident_get(t, &ident_ns_inode, key, true)) == NULL ||
	    rules_vec_push(&a->heads, (void *)head) != 0)
		return -1;
	if (real != NULL && ((a = ident_get(t, &ident_ns_real, real, true)) == NULL ||
	    rules_vec_push(&a->heads, (void *)head) != 0))
		return -1;
	return 0;
}

/* Look an absolute path up; as a program head, the rules of head follow
 * its file. */
static int
ident_path(struct rules_table *t, const char *path, const char *head)
{
	struct rules_alias *a = ident_get(t, &ident_ns_path, path, false);
	struct stat st;

	if (a == NULL) {
		if ((a = ident_get(t, &ident_ns_path, path, true)) == NULL)
			return -1;
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
			a->known = true;
			a->dev = st.st_dev;
			a->ino = st.st_ino;
			a->real = realpath(path, NULL);	/* NULL: fine, it is gone */
		}
	}
	if (head == NULL || !a->known)
		return 0;
	st.st_dev = a->dev;
	st.st_ino = a->ino;
	return ident_add(t, head, &st, a->real);
}

/* A program name, in each absolute directory of path. */
static int
ident_name(struct rules_table *t, const char *dirs, const char *name)
{
	char file[PATH_MAX];
	struct path_iter it;

	path_iter_init(&it, dirs, name, PATH_ABSOLUTE);
	while (path_next(&it, file, sizeof(file)))
		if (ident_path(t, file, name) != 0)
			return -1;
	return 0;
}

/* The program heads of the index: its top-level tokens. */
static int
ident_heads(const struct rules *r, struct rules_table *t)
{
	for (size_t i = 0; i < r->index.cap; i++) {
		const struct rules_key *k = r->index.slot[i];
		const char *head = k ? k->a : NULL;
		int ret = 0;

		if (k == NULL || k->parent != NULL || strcmp(head, RULES_WILDCARD) == 0)
			continue;
		if (head[0] == '/')
			ret = ident_path(t, head, head);
		else if (strchr(head, '/') == NULL)
			ret = ident_name(t, r->path, head);
		if (ret != 0)
			return -1;
	}
	return 0;
}

/* host_executable paths: only what they are, for rules_ident_same. */
static int
ident_hosts(const struct rules *r, struct rules_table *t)
{
	for (size_t i = 0; i < r->hosts.cap; i++) {
		const struct rules_hostent *e = (const struct rules_hostent *)r->hosts.slot[i];

		for (size_t k = 0; e != NULL && e->def != NULL && k < e->def->npaths; k++)
			if (e->def->paths[k][0] == '/' &&
			    ident_path(t, e->def->paths[k], NULL) != 0)
				return -1;
	}
	return 0;
}

int
rules_ident_rebuild(struct rules *r)
{
	struct rules_table t = { 0 }, flagged = { 0 };

	if (ident_heads(r, &t) != 0 || ident_hosts(r, &t) != 0 ||
	    rules_flags_build(r, &flagged) != 0) {
		rules_table_free(&t, ident_free_alias);
		rules_flags_free(&flagged);
		errno = ENOMEM;
		return -1;
	}
	rules_ident_free(r);
	r->ident = t;
	r->flagged = flagged;
	return 0;
}

bool
rules_ident_same(const struct rules *r, const char *path, const struct rules_file *f)
{
	const struct rules_alias *a;

	if (strcmp(path, f->path) == 0)
		return true;
	if ((a = ident_get((struct rules_table *)&r->ident, &ident_ns_path, path, false)) == NULL)
		return false;
	return (a->real != NULL && strcmp(a->real, f->path) == 0) ||
	    (f->known && a->known && a->dev == f->dev && a->ino == f->ino);
}

static void
ident_each(const struct rules_alias *a, void (*fn)(void *, const char *), void *arg)
{
	for (size_t i = 0; a != NULL && i < a->heads.n; i++)
		fn(arg, a->heads.v[i]);
}

void
rules_ident_heads(const struct rules *r, const struct rules_file *f,
    void (*fn)(void *arg, const char *head), void *arg)
{
	struct rules_table *t = (struct rules_table *)&r->ident;
	char key[64];

	if (f->path[0] == '/')
		ident_each(ident_get(t, &ident_ns_real, f->path, false), fn, arg);
	if (f->known) {
		ident_inode_key(key, sizeof(key), f->dev, f->ino);
		ident_each(ident_get(t, &ident_ns_inode, key, false), fn, arg);
	}
}

const char *
rules_ident_known(const struct rules *r, const char *path)
{
	const struct rules_alias *a;

	a = ident_get((struct rules_table *)&r->ident, &ident_ns_path, path, false);
	return a != NULL && a->known ? a->key.a : NULL;
}
