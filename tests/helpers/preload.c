/* preload-helpers.c: running real programs with and without the preload. */
#include "config.h"

#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "binfmt.h"
#include "helpers/base.h"
#include "helpers/preload.h"

void
tp_require_preload(void)
{
#ifdef TEST_SANITIZERS
	cr_skip_test("sanitizer build: libshellesc_preload.so links ASan-instrumented code, "
	    "which cannot be preloaded into uninstrumented programs, nor ahead of the ASan "
	    "runtime into the instrumented helper programs");
#endif
}

bool
tp_is_static(const char *path)
{
	struct binfmt b;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r;

	if (fd < 0)
		return false;
	r = binfmt_read(fd, &b);
	close(fd);
	return r == 0 && b.kind == BINFMT_ELF && !b.interp;	/* a script is not */
}

void
tp_need(const char *path)
{
	if (strcmp(path, TP_T) == 0)
		return;
	if (access(path, X_OK) != 0)
		cr_skip_test("%s is not installed (./bootstrap installs it)", path);
	if (tp_is_static(path))
		cr_skip_test("%s is statically linked: no preload loads into it", path);
}

struct shellesc_session *
tp_start(struct tpol *tp, enum shellesc_action action, unsigned intercept)
{
	struct shellesc_config cfg = { .intercept = SHELLESC_INTERCEPT_PRELOAD | intercept,
	    .preload_path = TEST_PRELOAD };

	tp_require_preload();
	tp->action = action;
	tp->reason = TP_REASON;
	return ts_start(tp, &cfg);
}

const char *
tp_action_name(enum shellesc_action a)
{
	static const char *const names[] = { "run", "escalate", "deny" };

	return names[a];
}

char *
tp_subst(const char *s)
{
	return th_subst(s, TP_T, TEST_EXEC_PROBE);
}

char **
tp_env(struct shellesc_session *s, bool preload, const char *action)
{
	char act[64], sock[64], **env;
	size_t i = 0, k = 0;

	snprintf(act, sizeof(act), "TEST_ACTION=%s", action);
	snprintf(sock, sizeof(sock), "TP_SOCK=%d", shellesc_session_client_fd(s));
	env = ts_env(s, act, "TP_TARGET=" TEST_EXEC_PROBE, sock, NULL);
	for (; env[i]; i++)
		if (!preload && strncmp(env[i], "LD_PRELOAD=", 11) == 0)
			free(env[i]);
		else
			env[k++] = env[i];
	env[k] = NULL;
	return env;
}

void
tp_run(struct shellesc_session *s, bool preload, const char *action,
    const char *cwd, const char *in, const char *const argv[], struct tp_out *o)
{
	char **env = tp_env(s, preload, action), *v[32];
	struct ts_proc p;
	size_t n = 0;

	for (; argv[n]; n++) {
		cr_assert_lt(n, 31);
		v[n] = tp_subst(argv[n]);
	}
	v[n] = NULL;
	ts_proc_start(&p, cwd, env, v[0], v);
	if (in)
		th_write(p.in, in, strlen(in));
	o->status = ts_proc_wait(&p, &o->out, NULL, &o->err);
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	shellesc_env_free(env);
}

void
tp_out_free(struct tp_out *o)
{
	free(o->out);
	free(o->err);
	o->out = o->err = NULL;
}

void
tp_check(const struct tp_out *o, int code, int sig, const char *out,
    const char *err_has, const char *what)
{
	int st = o->status;

	if (sig > 0)
		cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == sig,
		    "%s: status %#x, expected death by signal %d; stderr: %s", what, st, sig, o->err);
	else
		cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == code,
		    "%s: status %#x, expected exit %d; stderr: %s", what, st, code, o->err);
	if (out)
		cr_assert_str_eq(o->out, out, "%s: stdout", what);
	if (err_has && err_has[0] == '\0')
		cr_assert_str_empty(o->err, "%s: stderr", what);
	else if (err_has)
		cr_assert_not_null(strstr(o->err, err_has), "%s: stderr lacks '%s': %s",
		    what, err_has, o->err);
}
