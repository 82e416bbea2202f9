/* cli-helpers.c: running the shellesc command for the cli suites. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers/cli.h"
#include "helpers/base.h"
#include "helpers/user.h"

extern char **environ;

/* The prompt's last line, which asks for the answer. */
#define TC_ASK "Allow it? "

static char *tc_paths[64];
static size_t tc_npaths;

void
tc_init(struct tc *t, const char *rules)
{
	const char *keep[] = { "ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS=" };
	size_t n = 0, k = 0;

	memset(t, 0, sizeof(*t));
	t->dir = th_tmpdir();
	cr_assert(asprintf(&t->owned[k++], "HOME=%s", t->dir) > 0);
	cr_assert(asprintf(&t->owned[k++], "XDG_CONFIG_HOME=%s/xdg", t->dir) > 0);
	for (size_t i = 0; i < k; i++)
		t->env[n++] = t->owned[i];
	t->env[n++] = "PATH=/usr/bin:/bin";
	t->env[n++] = SHELLESC_ENV_PROXY_PATH "=" TEST_WRAPPER;
	t->env[n++] = "SHELLESC_PRELOAD=" TEST_PRELOAD;
	for (char **v = environ; *v; v++)
		for (size_t i = 0; i < sizeof(keep) / sizeof(keep[0]); i++)
			if (strncmp(*v, keep[i], strlen(keep[i])) == 0)
				t->env[n++] = *v;
	if (rules != NULL)
		tc_file(t, "t.rules", rules);
}

static void
tc_json_drop(struct tc *t)
{
	json_decref(t->json);
	t->json = NULL;
	for (size_t i = 0; i < t->nlines; i++)
		json_decref(t->lines[i]);
	free(t->lines);
	t->lines = NULL;
	t->nlines = 0;
}

/* A pty program a failed test left running: hang it up, end it, reap it. */
static void
tc_pty_drop(struct tc *t)
{
	struct tc_pty *p = t->pty;

	if (p == NULL || p->out == NULL)
		return;
	close(p->master);
	kill(p->pid, SIGKILL);
	waitpid(p->pid, NULL, 0);
	free(p->out);
	p->out = NULL;
}

void
tc_fini(struct tc *t, struct tc_res *r)
{
	if (r != NULL)
		tc_res_free(r);
	tc_pty_drop(t);
	tc_json_drop(t);
	for (size_t i = 0; i < sizeof(t->owned) / sizeof(t->owned[0]); i++)
		free(t->owned[i]);
	for (size_t i = 0; i < sizeof(t->dirs) / sizeof(t->dirs[0]) && t->dirs[i]; i++)
		th_rmtree(t->dirs[i]);
	free(t->pathvar);
	while (tc_npaths > 0)
		free(tc_paths[--tc_npaths]);
	th_rmtree(t->dir);
	memset(t, 0, sizeof(*t));
}

const char *
tc_tmpdir(struct tc *t)
{
	size_t i = 0;

	while (i < sizeof(t->dirs) / sizeof(t->dirs[0]) && t->dirs[i])
		i++;
	cr_assert_lt(i, sizeof(t->dirs) / sizeof(t->dirs[0]), "more than 4 tc_tmpdir");
	return t->dirs[i] = th_tmpdir();
}

/* Where t->env holds entry's NAME=, else where its NULL is. */
static size_t
tc_env_at(const struct tc *t, const char *entry)
{
	size_t n = 0, name = strcspn(entry, "=") + 1;

	while (t->env[n] && strncmp(t->env[n], entry, name) != 0)
		n++;
	return n;
}

void
tc_setpath(struct tc *t, const char *path)
{
	size_t i = tc_env_at(t, "PATH="), n;

	for (n = i; t->env[n]; n++)
		continue;
	free(t->pathvar);
	t->pathvar = NULL;
	if (path != NULL) {
		cr_assert(asprintf(&t->pathvar, "PATH=%s", path) > 0);
		t->env[i] = t->pathvar;
		return;
	}
	if (i < n)	/* the NULL at n moves down too */
		memmove(t->env + i, t->env + i + 1, (n - i) * sizeof(char *));
}

const char *
tc_path(struct tc *t, const char *name)
{
	cr_assert_lt(tc_npaths, sizeof(tc_paths) / sizeof(tc_paths[0]));
	return tc_paths[tc_npaths++] = th_path(t->dir, name);
}

const char *
tc_file(struct tc *t, const char *name, const char *text)
{
	const char *path = tc_path(t, name);

	th_write_file(path, text);
	return path;
}

/* name as the tests' PATH (/usr/bin:/bin) finds it. */
const char *
tc_which(const char *name)
{
	static const char *const dirs[] = { "/usr/bin", "/bin" };

	for (size_t i = 0; i < 2; i++) {
		char *p = th_path(dirs[i], name);

		if (access(p, X_OK) == 0) {
			cr_assert_lt(tc_npaths, sizeof(tc_paths) / sizeof(tc_paths[0]));
			return tc_paths[tc_npaths++] = p;
		}
		free(p);
	}
	cr_assert_fail("%s is in neither /usr/bin nor /bin", name);
	return NULL;
}

bool
tc_exists(struct tc *t, const char *name)
{
	return access(tc_path(t, name), F_OK) == 0;
}

char *
tc_read(struct tc *t, const char *name)
{
	const char *path = tc_path(t, name);

	return access(path, F_OK) == 0 ? th_read_file(path, NULL) : NULL;
}

/* argv: pre (if not NULL), shellesc, then args. */
static char **
tc_argv(const char *pre, char *const args[])
{
	size_t n = 0, k = 0;
	char **v;

	while (args[n])
		n++;
	cr_assert_not_null(v = calloc(n + 3, sizeof(char *)));
	if (pre != NULL)
		v[k++] = (char *)pre;
	v[k++] = (char *)TEST_SHELLESC;
	memcpy(v + k, args, (n + 1) * sizeof(char *));
	return v;
}

/*
 * In a session of its own, so that no prompt reaches the tester's
 * terminal: setsid(1) execs shellesc in place (the child of a fork is no
 * group leader), so the pid and the status are shellesc's.
 */
void
tc_start(struct tc *t, struct ts_proc *p, char *const args[])
{
	char **argv = tc_argv("setsid", args);

	ts_proc_start(p, t->dir, t->env, "/usr/bin/setsid", argv);
	free(argv);
}

void
tc_run(struct tc *t, struct tc_res *r, const char *in, char *const args[])
{
	struct ts_proc p;

	tc_start(t, &p, args);
	if (in != NULL)
		th_write(p.in, in, strlen(in));
	r->status = ts_proc_wait(&p, &r->out, &r->outlen, &r->err);
}

void
tc_env_set(struct tc *t, char *entry)
{
	size_t n = tc_env_at(t, entry);

	cr_assert_lt(n + 1, sizeof(t->env) / sizeof(t->env[0]));
	t->env[n] = entry;
}

/* argv on a new 24x80 pty, in the test's directory, as u (NULL: us). */
static pid_t
tc_pty_fork(struct tc *t, const struct tu_user *u, char *const argv[], int *master)
{
	struct winsize ws = { .ws_row = 24, .ws_col = 80 };
	pid_t pid = forkpty(master, NULL, NULL, &ws);

	cr_assert(pid >= 0, "forkpty: %s", strerror(errno));
	if (pid == 0) {
		ts_child_signals();
		if (chdir(t->dir) == 0 && (u == NULL || tu_become(u) == 0))
			execve(argv[0], argv, t->env);
		dprintf(2, "tc_pty: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(121);
	}
	return pid;
}

/* When the answer due now is to be typed (ms, monotonic). */
static int64_t
tc_pty_due(const char *answer, int64_t asked_at)
{
	return strncmp(answer, TC_LATE, strlen(TC_LATE)) == 0 ? asked_at + TC_LATE_MS : asked_at;
}

static void
tc_pty_type(int master, const char *answer)
{
	if (strncmp(answer, TC_LATE, strlen(TC_LATE)) == 0)
		answer += strlen(TC_LATE);
	if (strncmp(answer, TC_RAW, strlen(TC_RAW)) == 0) {
		answer += strlen(TC_RAW);
		th_write(master, answer, strlen(answer));
		return;
	}
	th_write(master, answer, strlen(answer));
	th_write(master, "\n", 1);
}

/* Everything from the pty master until the other side is gone. */
static int
tc_pty_talk(int master, struct tc_res *r, const char *const answers[])
{
	int64_t until = clock_now_ms() + 40000, due = -1;
	size_t len = 0, asked = 0, seen = 0;
	const char *pending = NULL;
	char buf[4096];

	r->out = strdup("");
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };
		int64_t now = clock_now_ms(), left = (pending ? due : until) - now;
		ssize_t k;
		int n;

		cr_assert(now < until, "the pty went quiet: %s", r->out);
		if (pending && left <= 0) {
			tc_pty_type(master, pending);
			pending = NULL;
			continue;
		}
		n = poll(&p, 1, (int)left);
		cr_assert(n >= 0, "poll: %s", strerror(errno));
		if (n == 0)
			continue;
		if ((k = read(master, buf, sizeof(buf))) <= 0)
			break;	/* EIO: every slave fd is closed */
		cr_assert_not_null(r->out = realloc(r->out, len + (size_t)k + 1));
		memcpy(r->out + len, buf, (size_t)k);
		r->out[len += (size_t)k] = '\0';
		for (char *q = r->out + seen; (q = strstr(q, TC_ASK)) != NULL; q++, asked++) {
			seen = (size_t)(q - r->out) + 1;
			cr_assert_not_null(answers[asked], "an unexpected prompt: %s", r->out);
			cr_assert_null(pending, "a prompt before the last was answered: %s", r->out);
			if (strcmp(answers[asked], TC_SILENT) == 0)
				continue;
			pending = answers[asked];
			due = tc_pty_due(pending, clock_now_ms());
		}
	}
	r->outlen = len;
	return (int)asked;
}

int
tc_pty_run(struct tc *t, struct tc_res *r, const struct tu_user *u,
    const char *const answers[], char *const argv[])
{
	int master, asked;
	pid_t pid = tc_pty_fork(t, u, argv, &master);

	asked = tc_pty_talk(master, r, answers);
	close(master);
	cr_assert_eq(waitpid(pid, &r->status, 0), pid);
	r->err = strdup("");
	return asked;
}

int
tc_run_pty(struct tc *t, struct tc_res *r, const char *const answers[],
    char *const args[])
{
	char **argv = tc_argv(NULL, args);
	int asked = tc_pty_run(t, r, NULL, answers, argv);

	free(argv);
	return asked;
}

void
tc_pty_start(struct tc *t, struct tc_pty *p, const struct tu_user *u, char *const argv[])
{
	memset(p, 0, sizeof(*p));
	p->pid = tc_pty_fork(t, u, argv, &p->master);
	cr_assert_not_null(p->out = strdup(""));
	t->pty = p;
}

/* Read what is there within ms: 1, 0 when nothing came, -1 at the end. */
static int
tc_pty_read(struct tc_pty *p, int ms)
{
	struct pollfd pf = { .fd = p->master, .events = POLLIN };
	char buf[4096];
	ssize_t k;

	if (poll(&pf, 1, ms) <= 0)
		return 0;
	if ((k = read(p->master, buf, sizeof(buf))) <= 0)
		return -1;
	cr_assert_not_null(p->out = realloc(p->out, p->len + (size_t)k + 1));
	memcpy(p->out + p->len, buf, (size_t)k);
	p->out[p->len += (size_t)k] = '\0';
	return 1;
}

bool
tc_pty_wait(struct tc_pty *p, const char *text, int ms)
{
	int64_t until = clock_now_ms() + ms * th_slowdown();
	char *at;

	while ((at = strstr(p->out + p->mark, text)) == NULL) {
		int64_t left = until - clock_now_ms();

		if (left <= 0)
			return false;
		cr_assert_geq(tc_pty_read(p, (int)left), 0,
		    "the pty closed before \"%s\" showed:\n%s", text, p->out);
	}
	p->mark = (size_t)(at - p->out) + strlen(text);
	return true;
}

void
tc_pty_expect(struct tc_pty *p, const char *text, int ms)
{
	cr_assert(tc_pty_wait(p, text, ms), "\"%s\" did not show within %d ms; the pty showed:\n%s",
	    text, ms, p->out);
}

void
tc_pty_send(struct tc_pty *p, const char *s)
{
	th_write(p->master, s, strlen(s));
}

int
tc_pty_end(struct tc_pty *p, int ms)
{
	int64_t until = clock_now_ms() + ms * th_slowdown();
	int st;

	while (tc_pty_read(p, 100) >= 0)
		cr_assert(clock_now_ms() < until, "the pty stayed open; it showed:\n%s", p->out);
	close(p->master);
	cr_assert_eq(waitpid(p->pid, &st, 0), p->pid);
	free(p->out);
	p->out = NULL;
	return st;
}

int
tc_code(const struct tc_res *r)
{
	cr_assert(WIFEXITED(r->status), "shellesc did not exit (status %#x); stderr: %s",
	    r->status, r->err);
	return WEXITSTATUS(r->status);
}

void
tc_res_free(struct tc_res *r)
{
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof(*r));
}

json_t *
tc_json(struct tc *t, const char *text)
{
	json_error_t e;

	tc_json_drop(t);
	t->json = json_loads(text, 0, &e);
	cr_assert_not_null(t->json, "not JSON (%s): %s", e.text, text);
	return t->json;
}

json_t **
tc_json_lines(struct tc *t, const char *text, size_t *n)
{
	const char *p = text;

	tc_json_drop(t);
	while (*p) {
		const char *end = strchrnul(p, '\n');
		json_error_t e;
		json_t *j;

		if (*p == '{') {
			j = json_loadb(p, (size_t)(end - p), 0, &e);
			cr_assert_not_null(j, "a line is not JSON (%s): %.*s", e.text,
			    (int)(end - p), p);
			t->lines = realloc(t->lines, (t->nlines + 1) * sizeof(json_t *));
			cr_assert_not_null(t->lines);
			t->lines[t->nlines++] = j;
		}
		p = *end ? end + 1 : end;
	}
	*n = t->nlines;
	return t->lines;
}

const char *
tc_jstr(json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));

	cr_assert_not_null(s, "no string \"%s\" in the JSON", key);
	return s;
}

json_int_t
tc_jint(json_t *j, const char *key)
{
	json_t *v = json_object_get(j, key);

	cr_assert(json_is_integer(v), "no integer \"%s\" in the JSON", key);
	return json_integer_value(v);
}

int
tc_landlock_abi(void)
{
	long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1U);

	return abi < 0 ? 0 : (int)abi;
}

void
tc_need_landlock(struct tc *t, struct tc_res *r, int abi)
{
	int have = tc_landlock_abi();

	if (have < abi)
		TC_SKIP(t, r, "needs Landlock ABI %d; this kernel has %s %d", abi,
		    have ? "ABI" : "none, ABI", have);
}
