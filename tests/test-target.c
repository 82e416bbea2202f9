/*
 * test-target.c: suite target -- shellesc_request_target() is the
 * server's own look at the file: the client's flags change nothing, the
 * facts are the file's, the writable roots make it writable, and an
 * escalated command runs the file that was opened even when the path is
 * pointed at another one before the exec.  Also shellesc_path_writable().
 */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "client.h"
#include "helpers/base.h"
#include "helpers/session.h"
#include "shellesc.h"

/* The policy: copies the target, optionally swaps a file over another,
 * then answers with action. */
struct pol {
	enum shellesc_action action;
	const char *swap_from, *swap_to;	/* rename(from, to) before answering */
	int error;
	unsigned facts;
	char path[4096], why[4096], loader[4096];
	dev_t dev;
	ino_t ino;
	size_t argc;
	char argv0[256];
	char cmd[1024];		/* argv, joined by spaces */
	char chain[1024];	/* each link: "path: argv|" */
};

static void
join(char *buf, size_t n, char *const *argv)
{
	size_t k = strlen(buf);

	for (size_t i = 0; argv[i] != NULL; i++)
		k += snprintf(buf + k, k < n ? n - k : 0, "%s%s", i ? " " : "", argv[i]);
}

static struct pol pol;
static struct shellesc_session *s;
static char *dir;

static void
policy(void *arg, struct shellesc_request *req)
{
	struct pol *p = arg;
	const struct shellesc_target *t = shellesc_request_target(req);
	struct shellesc_decision d = { .action = p->action };

	p->error = t->error;
	p->facts = t->facts;
	snprintf(p->path, sizeof(p->path), "%s", t->path ? t->path : "(none)");
	snprintf(p->why, sizeof(p->why), "%s", t->writable ? t->writable : "");
	snprintf(p->loader, sizeof(p->loader), "%s", t->loader ? t->loader : "");
	snprintf(p->argv0, sizeof(p->argv0), "%s", t->argv[0]);
	p->argc = t->argc;
	p->cmd[0] = p->chain[0] = '\0';
	join(p->cmd, sizeof(p->cmd), t->argv);
	for (size_t i = 0; i < t->ninterp; i++) {
		size_t k = strlen(p->chain);

		snprintf(p->chain + k, sizeof(p->chain) - k, "%s: ",
		    t->interp[i].path ? t->interp[i].path : "(none)");
		join(p->chain, sizeof(p->chain), t->interp[i].argv);
		k = strlen(p->chain);
		snprintf(p->chain + k, sizeof(p->chain) - k, "|");
	}
	p->dev = t->dev;
	p->ino = t->ino;
	if (p->swap_from != NULL && rename(p->swap_from, p->swap_to) != 0)
		d.action = SHELLESC_DENY;
	shellesc_request_decide(req, &d);
}

static void
start(char *const *writable)
{
	struct shellesc_config cfg = { .policy = policy, .policy_arg = &pol,
	    .intercept = SHELLESC_INTERCEPT_WRAPPER, .wrapper_path = TEST_WRAPPER,
	    .writable = writable };

	cr_assert_eq(shellesc_session_start(&cfg, &s), 0);
}

static void
setup(void)
{
	memset(&pol, 0, sizeof(pol));
	dir = th_tmpdir();
	s = NULL;
}

static void
teardown(void)
{
	if (s != NULL)
		shellesc_session_end(s);
	th_rmtree(dir);
}

TestSuite(target, .init = setup, .fini = teardown, .timeout = TS_TIMEOUT);

/* Ask about file, claiming flags; returns the action. */
static int
ask(const char *file, char *const argv[], unsigned flags, struct client_req *req)
{
	struct msg_exec_out e = { .file = file, .argv = argv, .env = TS_V("X=1"),
	    .pid = getpid(), .flags = flags };
	int r = client_ask(shellesc_session_client_fd(s), &e, req);

	cr_assert_eq(r, 0, "%s", client_strerror(r));
	return req->action;
}

static const char *
in_dir(const char *name)
{
	return th_at(dir, name);
}

Test(target, claims_are_not_facts)
{
	struct client_req req;
	char real[4096];
	struct stat st;

	start(NULL);
	pol.action = SHELLESC_RUN;
	ask("/bin/true", TS_V("true"), SHELLESC_TARGET_STATIC | SHELLESC_TARGET_SETID, &req);
	cr_assert_eq(pol.error, 0);
	cr_assert_eq(pol.facts & (SHELLESC_TARGET_STATIC | SHELLESC_TARGET_SETID), 0,
	    "facts %#x", pol.facts);
	cr_assert_not_null(realpath("/bin/true", real));
	cr_assert_str_eq(pol.path, real);
	cr_assert_eq(stat(real, &st), 0);
	cr_assert(pol.dev == st.st_dev && pol.ino == st.st_ino);
}

Test(target, facts_of_the_file)
{
	struct client_req req;
	struct statvfs vfs;

	start(NULL);
	pol.action = SHELLESC_RUN;
	ask(TEST_STATIC_PROBE, TS_V("static-probe"), 0, &req);
	cr_expect_eq(pol.facts & SHELLESC_TARGET_STATIC, SHELLESC_TARGET_STATIC, "%#x", pol.facts);
	th_copy_file("/bin/true", in_dir("suid"), 04755);
	ask(in_dir("suid"), TS_V("suid"), 0, &req);
	if (statvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_NOSUID))
		cr_log_info("%s is mounted nosuid: set-id bits count for nothing there", dir);
	else
		cr_expect_eq(pol.facts & SHELLESC_TARGET_SETID, SHELLESC_TARGET_SETID, "%#x",
		    pol.facts);
	th_copy_file("/bin/true", in_dir("sgid-nox"), 02745);	/* mandatory locking, not set-gid */
	ask(in_dir("sgid-nox"), TS_V("x"), 0, &req);
	cr_expect_eq(pol.facts & SHELLESC_TARGET_SETID, 0, "%#x", pol.facts);
	th_write_file(in_dir("script"), "#!" TEST_STATIC_PROBE "\n");
	cr_assert_eq(chmod(in_dir("script"), 0755), 0);
	ask(in_dir("script"), TS_V("script"), 0, &req);
	cr_expect_eq(pol.facts & (SHELLESC_TARGET_SCRIPT | SHELLESC_TARGET_STATIC),
	    SHELLESC_TARGET_SCRIPT | SHELLESC_TARGET_STATIC, "%#x", pol.facts);
	/* a #! line without a name fails with ENOEXEC, as a file without #!
	 * does: no script (common/binfmt.h) */
	th_write_file(in_dir("noname"), "#!  \necho hi\n");
	cr_assert_eq(chmod(in_dir("noname"), 0755), 0);
	ask(in_dir("noname"), TS_V("noname"), 0, &req);
	cr_expect_eq(pol.facts & SHELLESC_TARGET_SCRIPT, 0, "%#x", pol.facts);
}

Test(target, beneath_a_writable_root)
{
	struct client_req req;

	start(TS_V(dir));
	pol.action = SHELLESC_RUN;
	th_copy_file("/bin/true", in_dir("t"), 0755);
	ask(in_dir("t"), TS_V("t"), 0, &req);
	cr_expect(pol.facts & SHELLESC_TARGET_WRITABLE, "%#x", pol.facts);
	cr_expect_not_null(strstr(pol.why, "beneath the writable directory"), "%s", pol.why);
	ask("/bin/true", TS_V("true"), 0, &req);
	cr_expect_eq(pol.facts & SHELLESC_TARGET_WRITABLE, 0, "%#x", pol.facts);
}

Test(target, missing_file)
{
	struct client_req req;

	start(NULL);
	pol.action = SHELLESC_RUN;
	ask(in_dir("nothing"), TS_V("nothing"), 0, &req);
	cr_expect_eq(pol.error, ENOENT);
}

/* The loader run directly: the target is the program it loads. */
Test(target, loader_stands_for_its_program)
{
	static const char *const ld = "/lib64/ld-linux-x86-64.so.2";
	struct client_req req;
	char real[4096];

	if (access(ld, X_OK) != 0)
		cr_skip_test("no %s here", ld);
	start(NULL);
	pol.action = SHELLESC_RUN;
	ask(ld, TS_V("ld.so", "--argv0", "x", "/bin/true", "a"), 0, &req);
	cr_assert_not_null(realpath("/bin/true", real));
	cr_expect_str_eq(pol.path, real);
	/* PROGRAM's own name, not --argv0's: argv[0] picks what a program does */
	cr_expect_str_eq(pol.argv0, "true");
	cr_expect_eq(pol.argc, 2);
	cr_expect_neq(pol.loader[0], '\0');
	cr_expect_eq(pol.facts & SHELLESC_TARGET_LOADER_OPTIONS, 0);
	ask(ld, TS_V("ld.so", "--preload", "/x.so", "/bin/true"), 0, &req);
	cr_expect(pol.facts & SHELLESC_TARGET_LOADER_OPTIONS);
	ask(ld, TS_V("ld.so", "true"), 0, &req);
	cr_expect_eq(pol.error, ENOEXEC);
	ask(ld, TS_V("ld.so", "--version"), 0, &req);	/* runs nothing else */
	cr_expect_eq(pol.error, 0);
	cr_expect_str_eq(pol.loader, "");
}

/* argv[0] is the program's own name; a program that picks what it does by
 * argv[0] has that spelled out in its arguments. */
Test(target, argv0_is_spelled_out)
{
	static const struct { const char *file, *argv0, *want; } cases[] = {
		{ "/bin/true", "anything", "true a" },
		{ "/usr/bin/git", "git-archive", "git archive a" },
		{ "/usr/bin/git", "/x/git", "git a" },
		{ "/usr/bin/xz", "unxz", "xz --decompress a" },
		{ "/usr/bin/xz", "xzcat", "xz --decompress --stdout a" },
		{ "/usr/bin/gzip", "zcat", "gzip -d -c a" },
		{ "/usr/bin/gzip", "gunzip", "gzip -d a" },
		{ "/usr/bin/bzip2", "bunzip2", "bzip2 -d a" },
		{ "/usr/bin/sudo", "sudoedit", "sudo -e a" },
		{ "/usr/bin/systemctl", "reboot", "systemctl reboot a" },
		{ "/usr/bin/busybox", "rm", "busybox rm a" },
	};
	struct client_req req;
	char real[4096];

	start(NULL);
	pol.action = SHELLESC_RUN;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (realpath(cases[i].file, real) == NULL)
			continue;
		ask(cases[i].file, TS_V((char *)cases[i].argv0, "a"), 0, &req);
		if (strcmp(strrchr(real, '/') + 1, strrchr(cases[i].file, '/') + 1) != 0)
			continue;	/* installed under another name */
		cr_expect_str_eq(pol.cmd, cases[i].want, "%s as %s", cases[i].file, cases[i].argv0);
	}
	/* a script called zcat is no gzip (Debian's is a script) */
	th_write_file(in_dir("zcat"), "#!/bin/sh\n");
	cr_assert_eq(chmod(in_dir("zcat"), 0755), 0);
	ask(in_dir("zcat"), TS_V("gunzip", "a"), 0, &req);
	cr_expect_str_eq(pol.cmd, "zcat a");
}

/* A script's #! chain: each program with the argv the kernel gives it. */
Test(target, shebang_chain)
{
	static const char *const ld = "/lib64/ld-linux-x86-64.so.2";
	char text[256], want[8400], rm[4096];
	struct client_req req;

	cr_assert_not_null(realpath("/bin/rm", rm));
	th_write_file(in_dir("s"), "#!/bin/rm -f\n");
	cr_assert_eq(chmod(in_dir("s"), 0755), 0);
	start(NULL);
	pol.action = SHELLESC_RUN;
	ask(in_dir("s"), TS_V("s", "x"), 0, &req);
	snprintf(want, sizeof(want), "%s: /bin/rm -f %s x|", rm, in_dir("s"));
	cr_expect_str_eq(pol.chain, want);
	if (access(ld, X_OK) != 0)
		return;
	snprintf(text, sizeof(text), "#!%s /bin/rm\n", ld);
	th_write_file(in_dir("l"), text);
	cr_assert_eq(chmod(in_dir("l"), 0755), 0);
	ask(in_dir("l"), TS_V("l", "x"), 0, &req);
	cr_expect_not_null(strstr(pol.chain, "|"), "%s", pol.chain);
	snprintf(want, sizeof(want), "%s: /bin/rm %s x|", rm, in_dir("l"));
	cr_expect_not_null(strstr(pol.chain, want), "%s", pol.chain);
}

/* Escalate: what runs is the file opened, though the path now names another. */
static void
escalate_swapped(char *const *writable, const char *what)
{
	struct client_result res;
	struct client_req req;

	start(writable);
	pol.action = SHELLESC_ESCALATE;
	pol.swap_from = in_dir("other");
	pol.swap_to = in_dir("prog");
	cr_assert_eq(ask(in_dir("prog"), TS_V("prog"), 0, &req), SHELLESC_ACT_ESCALATE);
	cr_assert_eq(client_escalate(&req, &res), 0);
	cr_assert_eq(res.exit_code, 0, "%s: the swapped-in file ran (%d) %s", what,
	    res.exit_code, res.error);
}

Test(target, escalation_runs_the_opened_binary)
{
	th_copy_file("/bin/true", in_dir("prog"), 0755);
	th_copy_file("/bin/false", in_dir("other"), 0755);
	escalate_swapped(NULL, "a binary");
}

/* A script the session's side could change runs from its fd, /dev/fd/N. */
Test(target, escalation_runs_the_opened_writable_script)
{
	th_write_file(in_dir("prog"), "#!/bin/sh\ncase $0 in /dev/fd/*) exit 0;; esac; exit 3\n");
	th_write_file(in_dir("other"), "#!/bin/sh\nexit 4\n");
	cr_assert_eq(chmod(in_dir("prog"), 0755), 0);
	cr_assert_eq(chmod(in_dir("other"), 0755), 0);
	escalate_swapped(TS_V(dir), "a writable script");
}

/* One it cannot change runs by its real path, as scripts expect. */
Test(target, escalated_script_is_named_by_its_path)
{
	struct client_result res;
	struct client_req req;
	char body[8192], *real = realpath(dir, NULL);

	cr_assert_not_null(real);
	snprintf(body, sizeof(body), "#!/bin/sh\n[ \"$0\" = %s/prog ]\n", real);
	free(real);
	th_write_file(in_dir("prog"), body);
	cr_assert_eq(chmod(in_dir("prog"), 0755), 0);
	start(NULL);
	pol.action = SHELLESC_ESCALATE;
	cr_assert_eq(ask(in_dir("prog"), TS_V("prog"), 0, &req), SHELLESC_ACT_ESCALATE);
	cr_assert_eq(client_escalate(&req, &res), 0);
	if (geteuid() != 0)	/* our own file: we could change it */
		cr_assert_eq(res.exit_code, 1, "a writable script ran by its name");
	else
		cr_assert_eq(res.exit_code, 0, "$0 was not the script's path");
}

/* --- shellesc_path_writable ---------------------------------------------- */

Test(target, path_writable)
{
	char *why = NULL;
	uid_t other = geteuid() == 0 ? 54321 : geteuid();

	cr_expect_eq(shellesc_path_writable("/usr/bin/true", other, NULL, 0, NULL, NULL), 0);
	cr_expect_eq(shellesc_path_writable("/usr/bin/true", 0, NULL, 0, TS_V("/usr"), &why), 1);
	cr_expect_not_null(why && strstr(why, "beneath the writable directory /usr"), "%s", why);
	free(why);
	cr_expect_eq(shellesc_path_writable("/usr/bin/true", 0, NULL, 0, NULL, NULL), 0,
	    "uid 0 is bounded by the roots alone");
	cr_expect_eq(shellesc_path_writable("/nonexistent/x", 0, NULL, 0, NULL, NULL), -ENOENT);
	th_write_file(in_dir("f"), "");
	cr_assert_eq(chmod(dir, 0755), 0);
	if (geteuid() == 0)
		cr_assert_eq(chown(in_dir("f"), other, (gid_t)-1), 0);
	cr_expect_eq(shellesc_path_writable(in_dir("f"), other, NULL, 0, NULL, &why), 1);
	cr_expect_not_null(why && strstr(why, "can be changed by uid"), "%s", why);
	free(why);
}

/* In a sticky directory, another uid's entry cannot be replaced. */
Test(target, sticky_directory)
{
	uid_t other = 54321;

	if (geteuid() != 0)
		cr_skip_test("needs root to make files of another uid");
	cr_assert_eq(chmod(dir, 01777), 0);
	th_write_file(in_dir("f"), "");
	cr_assert_eq(chmod(in_dir("f"), 0755), 0);
	cr_expect_eq(shellesc_path_writable(in_dir("f"), other, NULL, 0, NULL, NULL), 0);
	cr_assert_eq(chmod(dir, 0777), 0);
	cr_expect_eq(shellesc_path_writable(in_dir("f"), other, NULL, 0, NULL, NULL), 1);
}
