/* tests/helpers/trust.c: the world of a trust test (trust.h). */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helpers/base.h"
#include "helpers/trust.h"

char *
tt_reachable(struct tt *w, const char *file)
{
	const char *p = tu_reachable(&w->u, file);

	cr_assert_not_null(p, "%s: %s", file, strerror(errno));
	return strdup(p);
}

/* t.env's entry NAME=... becomes NAME=value (owned by *slot). */
static void
tt_set_env(struct tt *w, const char *name, const char *value, char **slot)
{
	size_t n = strlen(name);

	cr_assert(asprintf(slot, "%s=%s", name, value) > 0);
	for (size_t i = 0; w->t.env[i] != NULL; i++)
		if (strncmp(w->t.env[i], name, n) == 0 && w->t.env[i][n] == '=')
			w->t.env[i] = *slot;
}

void
tt_setup(struct tt *w)
{
	const char *why = NULL;

	tc_init(&w->t, NULL);
	w->sbx = th_tmpdir();
	w->out = th_tmpdir();
	if (tu_user(&w->u, &why) != 0)
		return;
	/* u writes in SBX; in OUT only Landlock can stop it */
	cr_assert_eq(chown(w->sbx, w->u.uid, w->u.gid), 0);
	cr_assert_eq(chmod(w->sbx, 0755), 0);
	cr_assert_eq(chmod(w->out, 01777), 0);
	w->wrapper = tt_reachable(w, TEST_WRAPPER);
	w->forge = tt_reachable(w, TEST_FORGE_ASK);
	if (access(TEST_PRELOAD, R_OK) == 0)
		w->preload = tt_reachable(w, TEST_PRELOAD);
	if (access(TEST_RAW_EXEC_STATIC, X_OK) == 0)
		w->raw = tt_reachable(w, TEST_RAW_EXEC_STATIC);
	tt_set_env(w, "SHELLESC_WRAPPER", w->wrapper, &w->env_wrapper);
	if (w->preload)
		tt_set_env(w, "SHELLESC_PRELOAD", w->preload, &w->env_preload);
}

void
tt_teardown(struct tt *w)
{
	if (w->sbx == NULL)
		return;		/* already: a skipped test */
	th_rmtree(w->sbx);
	th_rmtree(w->out);
	free(w->wrapper);
	free(w->preload);
	free(w->forge);
	free(w->raw);
	free(w->env_wrapper);
	free(w->env_preload);
	tc_fini(&w->t, &w->r);
	*w = (struct tt){ .u = w->u };
}

void
tt_skip(struct tt *w, const char *why)
{
	tt_teardown(w);
	cr_skip_test("%s", why);
	abort();	/* cr_skip_test does not return */
}

void
tt_need_sandbox(struct tt *w)
{
	const char *why = NULL;

	if (tc_landlock_abi() < 1)
		tt_skip(w, "needs Landlock; this kernel has none");
	if (tu_user(&w->u, &why) != 0)
		tt_skip(w, why);
}

const char *
tt_sbx_file(struct tt *w, const char *name, const char *text)
{
	static char path[4096];
	char body[4096];
	const char *at = strstr(text, "@OUT@");

	if (at != NULL)
		snprintf(body, sizeof(body), "%.*s%s%s", (int)(at - text), text, w->out, at + 5);
	else
		snprintf(body, sizeof(body), "%s", text);
	snprintf(path, sizeof(path), "%s/%s", w->sbx, name);
	th_write_file(path, body);
	cr_assert_eq(chmod(path, 0755), 0);
	cr_assert_eq(chown(path, w->u.uid, w->u.gid), 0);
	return path;
}

struct tt tt_world;

void
tt_suite_init(void)
{
	tt_setup(&tt_world);
}

void
tt_suite_fini(void)
{
	tt_teardown(&tt_world);
}

void
tt_run(struct tt *w, const char *const *opts, const char *cmd)
{
	char uid[32], gid[32], *args[48];
	size_t n = 0;

	snprintf(uid, sizeof(uid), "--reuid=%ld", (long)w->u.uid);
	snprintf(gid, sizeof(gid), "--regid=%ld", (long)w->u.gid);
	for (; *opts != NULL && n < 32; opts++)
		args[n++] = (char *)*opts;
	args[n++] = "--";
	if (w->u.created)
		for (const char *a[] = { "/usr/bin/setpriv", uid, gid, "--clear-groups", NULL },
		    **p = a; *p; p++)
			args[n++] = (char *)*p;
	args[n++] = "/bin/bash";
	args[n++] = "-c";
	args[n++] = (char *)cmd;
	args[n] = NULL;
	tc_run(&w->t, &w->r, NULL, args);
}

const char *
tt_loader(void)
{
	static const char *const cands[] = {
		"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1",
		"/lib/ld-linux-armhf.so.3", "/lib/ld-linux.so.2", "/lib64/ld64.so.2",
		"/lib/ld-linux-riscv64-lp64d.so.1",
	};

	for (size_t i = 0; i < sizeof(cands) / sizeof(cands[0]); i++)
		if (access(cands[i], X_OK) == 0)
			return cands[i];
	return NULL;
}
