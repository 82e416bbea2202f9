/*
 * test-user.c: suite test_user -- the unprivileged user of the attack tests
 * (tests/helpers/user.h) really is one: it cannot write where only root
 * may, and a file of the closed build tree is reachable through its copy.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
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

Test(test_user, cannot_write_where_only_root_may)
{
	struct tu_user u;
	char dir[] = "/tmp/shellesc-tu-XXXXXX";
	pid_t pid;
	int st;

	need_user(&u);
	if (!u.created)
		cr_skip_test("not run as root: the caller is the unprivileged user");
	cr_assert_not_null(mkdtemp(dir));
	cr_assert_eq(chmod(dir, 0755), 0);
	cr_assert_neq(u.uid, 0);
	if ((pid = fork()) == 0) {
		char f[64];

		if (tu_become(&u) != 0 || getuid() != u.uid || geteuid() != u.uid)
			_exit(2);
		snprintf(f, sizeof(f), "%s/x", dir);
		_exit(open(f, O_WRONLY | O_CREAT, 0600) < 0 && errno == EACCES ? 0 : 1);
	}
	cr_assert_gt(pid, 0);
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	rmdir(dir);
	cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x", st);
}

Test(test_user, closed_files_are_reached_through_a_copy)
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
