/*
 * user.c: the run's unprivileged user (user.h).  The account is made in the
 * runner before the first test and removed after the last, by Criterion's
 * report hooks; its name carries the runner's pid so that two runs at once
 * do not share one, and so that a run killed before its last hook leaves an
 * account the next run can tell is stale (its runner is gone) and remove.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <criterion/hooks.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/user.h"

#define TU_ENV		"SHELLESC_TEST_USER"	/* the account, for the tests */
#define TU_STAGE_ENV	"SHELLESC_TEST_STAGE"	/* copies u can reach */

/* Run argv quietly; its exit status, or -1. */
static int
tu_run(char *const argv[])
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0) {
			dup2(null, 1);
			dup2(null, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Remove the accounts (and staged copies) of runners that are gone. */
static void
tu_sweep(void)
{
	char stage[64];
	struct passwd *pw;
	char *names[64];
	size_t n = 0;
	long pid;

	setpwent();
	while ((pw = getpwent()) != NULL && n < 64)
		if (sscanf(pw->pw_name, "shellesc-t%ld", &pid) == 1 && pid > 0 &&
		    kill((pid_t)pid, 0) != 0 && errno == ESRCH)
			names[n++] = strdup(pw->pw_name);
	endpwent();
	for (size_t i = 0; i < n; i++) {
		if (names[i] == NULL)
			continue;
		sscanf(names[i], "shellesc-t%ld", &pid);
		snprintf(stage, sizeof(stage), "/tmp/shellesc-tu-%ld", pid);
		tu_run((char *[]){ "/usr/sbin/userdel", names[i], NULL });
		tu_run((char *[]){ "/bin/rm", "-rf", stage, NULL });
		free(names[i]);
	}
}

ReportHook(PRE_ALL)(struct criterion_test_set *set)
{
	char name[64];

	(void)set;
	snprintf(name, sizeof(name), "/tmp/shellesc-tu-%ld", (long)getpid());
	setenv(TU_STAGE_ENV, name, 1);
	if (geteuid() != 0)
		return;
	tu_sweep();
	snprintf(name, sizeof(name), "shellesc-t%ld", (long)getpid());
	if (tu_run((char *[]){ "/usr/sbin/useradd", "--system", "--no-create-home",
	    "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
	    "--user-group", name, NULL }) == 0)
		setenv(TU_ENV, name, 1);
}

ReportHook(POST_ALL)(struct criterion_global_stats *stats)
{
	const char *name = getenv(TU_ENV), *stage = getenv(TU_STAGE_ENV);

	(void)stats;
	if (name != NULL && geteuid() == 0)
		tu_run((char *[]){ "/usr/sbin/userdel", (char *)name, NULL });
	if (stage != NULL)
		tu_run((char *[]){ "/bin/rm", "-rf", (char *)stage, NULL });
}

int
tu_user(struct tu_user *u, const char **why)
{
	const char *name = getenv(TU_ENV);
	struct passwd *pw;

	memset(u, 0, sizeof(*u));
	if (geteuid() != 0) {
		u->uid = geteuid();
		u->gid = getegid();
		snprintf(u->name, sizeof(u->name), "uid %ld", (long)u->uid);
		return 0;
	}
	if (name == NULL || (pw = getpwnam(name)) == NULL) {
		*why = "run as root, but no test account could be made (useradd)";
		return -1;
	}
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	u->created = 1;
	snprintf(u->name, sizeof(u->name), "%s", name);
	return 0;
}

int
tu_become(const struct tu_user *u)
{
	if (!u->created)
		return 0;
	if (setgroups(0, NULL) != 0 || setresgid(u->gid, u->gid, u->gid) != 0 ||
	    setresuid(u->uid, u->uid, u->uid) != 0)
		return -1;
	return 0;
}

/* Can u read and execute file?  Asked in a child that becomes u. */
static int
tu_can_reach(const struct tu_user *u, const char *file)
{
	pid_t pid;
	int st;

	if (!u->created)
		return access(file, R_OK | X_OK) == 0;
	if ((pid = fork()) < 0)
		return 0;
	if (pid == 0)
		_exit(tu_become(u) == 0 && access(file, R_OK | X_OK) == 0 ? 0 : 1);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 0;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

const char *
tu_reachable(const struct tu_user *u, const char *file)
{
	static char copy[4096];
	const char *base = strrchr(file, '/'), *stage = getenv(TU_STAGE_ENV);

	if (tu_can_reach(u, file))
		return file;
	if (stage == NULL) {
		errno = ENOENT;
		return NULL;
	}
	if (mkdir(stage, 0755) != 0 && errno != EEXIST)
		return NULL;
	if (chmod(stage, 0755) != 0)
		return NULL;
	snprintf(copy, sizeof(copy), "%s/%s", stage, base ? base + 1 : file);
	if (tu_run((char *[]){ "/bin/cp", "-f", (char *)file, copy, NULL }) != 0 ||
	    chmod(copy, 0755) != 0) {
		errno = EIO;
		return NULL;
	}
	return copy;
}
