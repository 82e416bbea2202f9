/*
 * test-sandbox.c: suite sandbox -- the library's sandbox builder
 * (shellesc_sandbox_*, server/lib/sandbox*.c) through its public API: the
 * step, errno and path it reports for what it cannot build, and a child
 * that entered it writing only beneath its writable root, refused the
 * terminal injection ioctl, and given a listener with the exec
 * notification; a writable root's .git read-only (as root, and as an
 * unprivileged uid: a mount namespace, then with a user namespace), unless
 * the layer keeps it writable.  The cli_sandbox and sandbox_seccomp suites test the same
 * builder through the command and through a BPF interpreter.
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/base.h"
#include "shellesc.h"

TestSuite(sandbox);

static char dir[] = "/tmp/shellesc-sandbox-XXXXXX";

static void
mkroot(void)
{
	cr_assert_not_null(mkdtemp(dir));
}

/* Build one layer with writable w; the return value, *why filled. */
static int
build(char *const *w, struct shellesc_sandbox **sb, struct shellesc_sandbox_fault *why)
{
	struct shellesc_sandbox_layer l = { .writable = w };
	/* entered without a listener: no gate (test-trust-unix.c tests it) */
	struct shellesc_sandbox_config cfg = { .layers = &l, .n_layers = 1,
	    .flags = SHELLESC_SANDBOX_NO_SOCKET_GATE };

	return shellesc_sandbox_new(&cfg, sb, why);
}

/* Skip where the kernel has no Landlock (the builder says so). */
static void
need_landlock(int r, const struct shellesc_sandbox_fault *why)
{
	if (r != 0 && why->step == SHELLESC_SANDBOX_LANDLOCK_MISSING)
		cr_skip_test("this kernel has no Landlock (%s)", strerror(why->err));
}

Test(sandbox, writable_missing_named)
{
	char *w[] = { "/nonexistent/shellesc-sandbox", NULL };
	struct shellesc_sandbox_fault why;
	struct shellesc_sandbox *sb;
	int r = build(w, &sb, &why);

	need_landlock(r, &why);
	cr_assert_eq(r, -ENOENT);
	cr_assert_null(sb);
	cr_assert_eq(why.step, SHELLESC_SANDBOX_WRITABLE);
	cr_assert_eq(why.err, ENOENT);
	cr_assert_str_eq(why.path, w[0]);
}

Test(sandbox, writable_file_is_not_a_directory)
{
	char *w[] = { "/etc/hostname", NULL };
	struct shellesc_sandbox_fault why;
	struct shellesc_sandbox *sb;
	int r = build(w, &sb, &why);

	need_landlock(r, &why);
	cr_assert_eq(r, -ENOTDIR);
	cr_assert_eq(why.step, SHELLESC_SANDBOX_NOT_DIR);
	cr_assert_str_eq(why.path, "/etc/hostname");
}

Test(sandbox, too_many_layers)
{
	struct shellesc_sandbox_layer l[SHELLESC_SANDBOX_MAX_LAYERS + 1] = { { 0 } };
	struct shellesc_sandbox_config cfg = { .layers = l,
	    .n_layers = SHELLESC_SANDBOX_MAX_LAYERS + 1 };
	struct shellesc_sandbox_fault why;
	struct shellesc_sandbox *sb;

	cr_assert_eq(shellesc_sandbox_new(&cfg, &sb, &why), -EINVAL);
	cr_assert_null(sb);
}

/* In the child: enter sb, then write inside and outside, and TIOCSTI. */
static int
confined(void *arg)
{
	struct shellesc_sandbox_fault why;
	char in[64], out[] = "/tmp/shellesc-sandbox-outside-XXXXXX";
	char c = 'x';
	int fd;

	if (shellesc_sandbox_enter(arg, NULL, &why) != 0)
		return 1;
	snprintf(in, sizeof(in), "%s/in", dir);
	if ((fd = open(in, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0)
		return 2;
	close(fd);
	if (mkstemp(out) >= 0 || errno != EACCES)
		return 3;
	/* refused by the filter whatever fd 0 is */
	if (ioctl(0, TIOCSTI, &c) == 0 || errno != EPERM)
		return 4;
	return 0;
}

Test(sandbox, entered_writes_only_beneath_its_root)
{
	struct shellesc_sandbox_fault why;
	struct shellesc_sandbox *sb;
	char *w[] = { dir, NULL }, in[64];
	int r;

	mkroot();
	r = build(w, &sb, &why);
	need_landlock(r, &why);
	cr_assert_eq(r, 0, "step %d: %s", why.step, strerror(why.err));
	th_reap(th_spawn(confined, sb));
	shellesc_sandbox_free(sb);
	snprintf(in, sizeof(in), "%s/in", dir);
	cr_assert_eq(unlink(in), 0);
	cr_assert_eq(rmdir(dir), 0);
}

/* In the child: enter with the exec notification; a listener, or why not. */
static int
listening(void *arg)
{
	struct shellesc_sandbox_fault why;
	int fd = -2;

	if (shellesc_sandbox_enter(arg, &fd, &why) != 0)
		return 1;
	if (fd >= 0)
		return fcntl(fd, F_GETFD) == FD_CLOEXEC ? 0 : 2;
	return fd == -1 && why.step == SHELLESC_SANDBOX_NO_LISTENER ? 0 : 3;
}

Test(sandbox, exec_notify_gives_a_listener_or_says_why)
{
	struct shellesc_sandbox_config cfg = {
		.flags = SHELLESC_SANDBOX_EXEC_NOTIFY | SHELLESC_SANDBOX_NOTIFY_FALLBACK };
	struct shellesc_sandbox_fault why;
	struct shellesc_sandbox *sb;

	if (!shellesc_sandbox_kernel_avail())
		cr_skip_test("this kernel lacks seccomp user notification with CONTINUE");
	cr_assert_eq(shellesc_sandbox_new(&cfg, &sb, &why), 0);
	th_reap(th_spawn(listening, sb));
	shellesc_sandbox_free(sb);
}

/* In the child: a Landlock sandbox entered without a listener (its socket
 * gate would have none to serve it) fails, saying why. */
static int
gateless(void *arg)
{
	struct shellesc_sandbox_fault why;

	if (shellesc_sandbox_enter(arg, NULL, &why) == 0)
		return 1;
	return why.step == SHELLESC_SANDBOX_NO_GATE ? 0 : 2;
}

Test(sandbox, landlock_without_a_listener_is_refused)
{
	struct shellesc_sandbox_layer l = { .writable = (char *[]){ "/tmp", NULL } };
	struct shellesc_sandbox_config cfg = { .layers = &l, .n_layers = 1 };
	struct shellesc_sandbox_fault why;
	struct shellesc_sandbox *sb;

	if (shellesc_sandbox_new(&cfg, &sb, &why) != 0)
		cr_skip_test("no Landlock sandbox here (step %d)", (int)why.step);
	th_reap(th_spawn(gateless, sb));
	shellesc_sandbox_free(sb);
}

/*
 * A writable root's .git: read-only to the child (EROFS), unless the
 * layer keeps it writable; the rest of the root writable either way.
 * Built and entered as an unprivileged uid when the suite runs as root,
 * so the user-namespace route is the one taken (as root, both are tried).
 * Exit 77: no mount namespace to be had (the builder said so).
 */
static int
git_child(bool writable_git)
{
	struct shellesc_sandbox_layer l = { .writable = (char *[]){ dir, NULL },
	    .writable_git = writable_git };
	struct shellesc_sandbox_config cfg = { .layers = &l, .n_layers = 1,
	    .flags = SHELLESC_SANDBOX_NO_SOCKET_GATE };
	struct shellesc_sandbox_fault why;
	struct shellesc_sandbox *sb;
	char git[128], top[128];
	int fd, e;

	if (shellesc_sandbox_new(&cfg, &sb, &why) != 0)
		return 10 + why.step;
	if (why.step == SHELLESC_SANDBOX_GIT_WRITABLE)
		return 77;
	if (shellesc_sandbox_enter(sb, NULL, &why) != 0)
		return 2;
	snprintf(git, sizeof(git), "%s/.git/config", dir);
	snprintf(top, sizeof(top), "%s/top.%ld", dir, (long)getpid());
	if ((fd = open(top, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) < 0)
		return 3;
	close(fd);
	fd = open(git, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	e = errno;
	if (fd >= 0)
		close(fd);
	return writable_git ? (fd >= 0 ? 0 : 4) : (fd < 0 && e == EROFS ? 0 : 5);
}

/* As 65534 (when root), dumpable again as an exec of it would be: else
 * its /proc/self files stay root's and it cannot map its user namespace. */
static int
git_as_user(void *arg)
{
	if (geteuid() == 0 && (setgroups(0, NULL) != 0 || setresgid(65534, 65534, 65534) != 0 ||
	    setresuid(65534, 65534, 65534) != 0 || prctl(PR_SET_DUMPABLE, 1) != 0))
		return 6;
	return git_child(arg != NULL);
}

static int
git_status(int (*fn)(void *), void *arg)
{
	int st;
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0)
		_exit(fn(arg));
	cr_assert_eq(waitpid(pid, &st, 0), pid);
	cr_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static int
git_as_root(void *arg)
{
	return git_child(arg != NULL);
}

Test(sandbox, writable_roots_git_is_read_only)
{
	char git[128];
	int r;

	mkroot();
	snprintf(git, sizeof(git), "%s/.git", dir);
	cr_assert_eq(mkdir(git, 0777), 0);
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_assert_eq(chmod(git, 0777), 0);
	r = git_status(git_as_root, NULL);
	if (r == 10 + SHELLESC_SANDBOX_LANDLOCK_MISSING) {
		th_rmtree(strdup(dir));
		cr_skip_test("this kernel has no Landlock");
	}
	cr_assert(r == 0 || (r == 77 && geteuid() != 0), "as ourselves: %d", r);
	r = git_status(git_as_user, NULL);
	if (r == 77) {
		th_rmtree(strdup(dir));
		cr_skip_test("no unprivileged mount namespace here");
	}
	cr_assert_eq(r, 0, "read-only .git: %d", r);
	cr_assert_eq(git_status(git_as_user, "w"), 0, "writable_git");
	th_rmtree(strdup(dir));
}
