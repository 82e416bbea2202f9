/*
 * shellesc-profile-demo: an embedder's profiles (SHELLESC_MODE_PROFILE).
 *
 * The shell runs in a Landlock sandbox that may write only its working
 * directory and has no network.  The policy escalates touch into a
 * profile of the embedder's own -- "touch may also write DIR" -- by
 * answering SHELLESC_MODE_PROFILE with a pointer to it; the session hands
 * that pointer, untouched, to the prepare callback, which builds the
 * sandbox the profile means (the shell's, widened by DIR) and sets
 * shellesc_prepared.sandbox: the escalated touch enters it between fork
 * and exec, and release frees it.  The script's touch of DIR then works,
 * and its touch of anything else outside the working directory fails,
 * escalated or not.
 *
 * Usage: shellesc-profile-demo [-w WRAPPER] DIR
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shellesc.h"

/* What the embedder means by a profile: the library never looks inside. */
struct demo_profile {
	const char *name;
	char *writable[3];		/* the shell's directory, DIR, NULL */
	int network;
};

static void
demo_policy(void *arg, struct shellesc_request *req)
{
	const char *prog = shellesc_request_program(req);
	struct shellesc_decision d = { .action = SHELLESC_RUN };

	if (strcmp(strrchr(prog, '/') + 1, "touch") == 0) {
		d.action = SHELLESC_ESCALATE;
		d.mode = SHELLESC_MODE_PROFILE;
		d.profile = arg;	/* lives as long as the session */
	}
	printf("[policy] %s -> %s\n", prog, d.action == SHELLESC_RUN ? "run" :
	    "escalate into the profile");
	fflush(stdout);
	shellesc_request_decide(req, &d);
}

/* The profile's sandbox, built for this one command. */
static int
demo_prepare(void *arg, const struct shellesc_request *req,
    const struct shellesc_decision *d, struct shellesc_prepared *p)
{
	const struct demo_profile *pr = d->profile;
	struct shellesc_sandbox_layer layer;
	/* An escalated command has no session listener to gate its socket
	 * connects: say so, or entering the sandbox fails (libshellesc(3)). */
	struct shellesc_sandbox_config cfg = { .layers = &layer, .n_layers = 1,
	    .flags = SHELLESC_SANDBOX_NO_SOCKET_GATE };
	struct shellesc_sandbox_fault why;
	struct shellesc_sandbox *sb;
	int r;

	(void)arg;
	(void)req;
	if (d->mode != SHELLESC_MODE_PROFILE)
		return 0;		/* unsandboxed, as the policy said */
	layer = (struct shellesc_sandbox_layer){ .writable = pr->writable,
	    .no_network = !pr->network };
	if ((r = shellesc_sandbox_new(&cfg, &sb, &why)) != 0) {
		/* a profile that cannot be built must not run unsandboxed */
		fprintf(stderr, "profile %s: step %d: %s\n", pr->name, (int)why.step,
		    strerror(-r));
		return r;
	}
	p->sandbox = sb;
	return 0;
}

static void
demo_release(void *arg, struct shellesc_prepared *p)
{
	(void)arg;
	shellesc_sandbox_free((struct shellesc_sandbox *)p->sandbox);
}

static int
demo_run(struct shellesc_config *cfg, struct shellesc_exec_params *p,
    struct shellesc_sandbox_layer *shell_layer)
{
	struct shellesc_sandbox_config scfg = { .layers = shell_layer, .n_layers = 1 };
	struct shellesc_sandbox_fault why;
	struct shellesc_exec_result res;
	struct shellesc_session *s;
	struct shellesc_sandbox *sb;
	int r;

	if ((r = shellesc_sandbox_new(&scfg, &sb, &why)) != 0)
		return fprintf(stderr, "shellesc-profile-demo: the shell's sandbox: "
		    "step %d: %s\n", (int)why.step, strerror(-r)), 1;
	p->sandbox = sb;
	if ((r = shellesc_session_start(cfg, &s)) == 0) {
		r = shellesc_session_exec(s, p, &res);
		shellesc_session_end(s);
	}
	shellesc_sandbox_free(sb);
	if (r != 0)
		return fprintf(stderr, "shellesc-profile-demo: %s\n", strerror(-r)), 1;
	printf("--- the script's output\n%s%s--- bash exited %d\n", res.out, res.err,
	    res.exit_code);
	shellesc_exec_result_free(&res);
	return 0;
}

int
main(int argc, char **argv)
{
	static char cwd[4096], script[8192];
	struct demo_profile pr = { .name = "touch-dir" };
	char *shell_dirs[] = { cwd, NULL };
	struct shellesc_sandbox_layer shell_layer = { .writable = shell_dirs, .no_network = 1 };
	struct shellesc_config cfg = { .policy = demo_policy, .policy_arg = &pr,
	    .prepare = demo_prepare, .release = demo_release,
	    .intercept = SHELLESC_INTERCEPT_WRAPPER, .wrapper_path = DEMO_WRAPPER,
	    .writable = shell_dirs };
	struct shellesc_exec_params p = { .command = script, .timeout_ms = 30000 };
	int opt;

	while ((opt = getopt(argc, argv, "w:h")) != -1) {
		if (opt != 'w')
			return fprintf(stderr, "usage: shellesc-profile-demo [-w WRAPPER] DIR\n"),
			    opt == 'h' ? 0 : 2;
		cfg.wrapper_path = optarg;
	}
	if (optind + 1 != argc || argv[optind][0] != '/')
		return fprintf(stderr, "usage: shellesc-profile-demo [-w WRAPPER] DIR "
		    "(absolute)\n"), 2;
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return perror("shellesc-profile-demo: getcwd"), 1;
	pr.writable[0] = cwd;
	pr.writable[1] = argv[optind];
	snprintf(script, sizeof(script),
	    "gate() { \"$EXEC_WRAPPER\" \"$(type -P \"$1\")\" \"$@\"; }\n"
	    "gate touch '%s/by-profile'; echo \"touch DIR: exit $?\"\n"
	    "gate touch /tmp/shellesc-profile-demo-outside; echo \"touch /tmp: exit $?\"\n",
	    argv[optind]);
	p.workdir = cwd;
	return demo_run(&cfg, &p, &shell_layer);
}
