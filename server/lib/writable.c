/*
 * writable.c: could the session's side have written or replaced a file?
 *
 * A program that the sandboxed side can change is a program of its
 * choosing, whatever its name; escalating it would run the sandbox's code
 * outside the sandbox.  It could change it when
 *
 *   - it lies beneath one of the sandbox's writable roots (the embedder
 *     says which: shellesc_config.writable), or
 *   - by plain Unix permissions, for the peer's uid and groups: the file
 *     is writable (or owned: its owner may chmod it), or a directory on
 *     its path is, so an entry can be renamed away and another put in its
 *     place -- unless the directory is sticky and the uid owns neither it
 *     nor the entry.  A group-writable mode with an ACL attached counts as
 *     writable: the bits are then the ACL's mask, and a named entry may
 *     grant the uid write.
 *
 * Root passes every permission check, so for uid 0 only the roots bound
 * what it can change; without roots, a root peer could change any file.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>

#include "path.h"
#include "server.h"

static bool
writable_in_groups(const struct writer *wr, gid_t gid)
{
	if (gid == wr->gid)
		return true;
	for (size_t i = 0; i < wr->ngroups; i++)
		if (wr->groups[i] == gid)
			return true;
	return false;
}

/* May wr write to the file or directory at path (stat st)? */
static bool
writable_mode(const struct writer *wr, const char *path, const struct stat *st)
{
	if (st->st_uid == wr->uid || (st->st_mode & S_IWOTH))
		return true;
	if (!(st->st_mode & S_IWGRP))
		return false;
	return writable_in_groups(wr, st->st_gid) ||
	    lgetxattr(path, "system.posix_acl_access", NULL, 0) > 0;
}

/* The root path lies beneath, or NULL. */
static const char *
writable_root(const char *const *roots, const char *path)
{
	for (size_t i = 0; roots != NULL && roots[i] != NULL; i++) {
		size_t n = strlen(roots[i]);

		if (strcmp(roots[i], "/") == 0 || (strncmp(path, roots[i], n) == 0 &&
		    (path[n] == '/' || path[n] == '\0')))
			return roots[i];
	}
	return NULL;
}

/* "WHAT can be changed by uid N" into *why (if why); returns 1. */
static int
writable_why(char **why, const char *what, const char *path, uid_t uid)
{
	if (why != NULL && asprintf(why, "%s%s can be changed by uid %lu", what, path,
	    (unsigned long)uid) < 0)
		return -ENOMEM;
	return 1;
}

/* Each directory from the top down, then the file itself. */
static int
writable_walk(const struct writer *wr, const char *path, char **why)
{
	char prefix[PATH_MAX];
	struct stat dir, st;
	size_t n = strlen(path), at = 1;

	if (n >= sizeof(prefix) || lstat("/", &dir) != 0)
		return n >= sizeof(prefix) ? -ENAMETOOLONG : -errno;
	strcpy(prefix, "/");
	while (at < n) {
		size_t end = at + strcspn(path + at, "/");

		memcpy(prefix, path, end);
		prefix[end] = '\0';
		if (lstat(prefix, &st) != 0)
			return -errno;
		prefix[at > 1 ? at - 1 : 1] = '\0';
		if (writable_mode(wr, prefix, &dir) && (!(dir.st_mode & S_ISVTX) ||
		    dir.st_uid == wr->uid || st.st_uid == wr->uid))
			return writable_why(why, "the directory ", prefix, wr->uid);
		dir = st;
		at = end + 1;
	}
	if (writable_mode(wr, path, &dir))
		return writable_why(why, "", path, wr->uid);
	return 0;
}

int
writable_check(const struct writer *wr, const char *path, char **why)
{
	const char *root = writable_root(wr->roots, path);

	if (why != NULL)
		*why = NULL;
	if (root != NULL) {
		if (why != NULL && asprintf(why, "it lies beneath the writable directory %s", root) < 0)
			return -ENOMEM;
		return 1;
	}
	if (wr->uid == 0)
		return 0;
	return writable_walk(wr, path, why);
}

int
shellesc_path_writable(const char *path, uid_t uid, const gid_t *groups,
    size_t ngroups, char *const *roots, char **why)
{
	struct writer wr = { .uid = uid, .gid = (gid_t)-1, .groups = groups, .ngroups = ngroups };
	char *real = path ? realpath(path, NULL) : NULL, **canon = NULL;
	int r;

	if (why != NULL)
		*why = NULL;
	if (real == NULL)
		return path ? -errno : -EINVAL;
	if ((r = writable_roots(roots, &canon)) == 0) {
		wr.roots = (const char *const *)canon;
		r = writable_check(&wr, real, why);
	}
	writable_roots_free(canon);
	free(real);
	return r;
}

/* roots made canonical: real paths where they exist, cleaned otherwise. */
int
writable_roots(char *const *roots, char ***out)
{
	size_t n = 0;
	char **v;

	*out = NULL;
	while (roots != NULL && roots[n] != NULL)
		n++;
	if ((v = calloc(n + 1, sizeof(char *))) == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		if ((v[i] = realpath(roots[i], NULL)) == NULL && (v[i] = strdup(roots[i])) != NULL)
			path_clean(v[i]);
		if (v[i] == NULL) {
			writable_roots_free(v);
			return -ENOMEM;
		}
	}
	*out = v;
	return 0;
}

void
writable_roots_free(char **roots)
{
	for (size_t i = 0; roots != NULL && roots[i] != NULL; i++)
		free(roots[i]);
	free(roots);
}
