/*
 * test-user.c: suite user -- the unprivileged user of the attack tests
 * (tests/helpers/user.h) really is one: it cannot write where only root
 * may, and a file of the closed build tree is reachable through its copy.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/user.h"

static void
need_user(struct tu_user *u)
{
	const char *why = NULL;

	if (tu_user(u, &why) != 0)
		cr_skip_test("%s", why);
}

/*
 * A directory only root may write: a fresh one of root's when this run made
 * the account, else "/" (a caller that is not root cannot make one), when it
 * is root's, closed to others and on a writable filesystem (a read-only one
 * refuses everyone with EROFS).
 */
static const char *
root_only_dir(const struct tu_user *u, char *fresh)
{
	struct statvfs fs;
	struct stat st;

	if (u->created) {
		cr_assert_not_null(mkdtemp(fresh));
		cr_assert_eq(chmod(fresh, 0755), 0);
		return fresh;
	}
	cr_assert_eq(stat("/", &st), 0);
	cr_assert_eq(statvfs("/", &fs), 0);
	if (st.st_uid != 0 || (st.st_mode & 022) != 0 || (fs.f_flag & ST_RDONLY))
		cr_skip_test("not run as root, and / is not a writable directory only root may write");
	return "/";
}

Test(user, cannot_write_where_only_root_may)
{
	struct tu_user u;
	char fresh[] = "/tmp/shellesc-tu-XXXXXX";
	const char *dir;
	pid_t pid;
	int st;

	need_user(&u);
	cr_assert_neq(u.uid, 0);
	dir = root_only_dir(&u, fresh);
	if ((pid = fork()) == 0) {
		char f[64];
		int fd;

		if (tu_become(&u) != 0 || getuid() != u.uid || geteuid() != u.uid)
			_exit(2);
		snprintf(f, sizeof(f), "%s/shellesc-tu-%ld", strcmp(dir, "/") ? dir : "",
		    (long)getpid());
		if ((fd = open(f, O_WRONLY | O_CREAT | O_EXCL, 0600)) >= 0) {
			unlink(f);
			_exit(1);
		}
		_exit(errno == EACCES ? 0 : 3);
	}
	cr_assert_gt(pid, 0);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	if (u.created)
		rmdir(fresh);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s could write in %s (status %#x)",
	    u.name, dir, st);
}

Test(user, closed_files_are_reached_through_a_copy)
{
	struct tu_user u;
	char dir[] = "/tmp/shellesc-tu-XXXXXX", file[64];
	const char *r;
	int fd;

	need_user(&u);
	cr_assert_not_null(mkdtemp(dir));	/* mode 0700: closed to others */
	snprintf(file, sizeof(file), "%s/prog", dir);
	cr_assert_geq(fd = open(file, O_WRONLY | O_CREAT, 0755), 0);
	close(fd);
	r = tu_reachable(&u, file);
	cr_assert_not_null(r);
	if (u.created)
		cr_expect_str_neq(r, file, "a copy outside the closed directory");
	else
		cr_expect_str_eq(r, file, "the caller reaches its own files");
	unlink(file);
	rmdir(dir);
}
