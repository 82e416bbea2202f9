/*
 * cli-sandbox.c: the command's side of the library's sandbox builder
 * (shellesc_sandbox_* in shellesc.h): its layers (struct cli_layer, which
 * own their strings) handed over, and what went wrong said in the
 * command's words.  --sandbox landlock is one layer; mcp stacks its
 * command line's and its client's.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "cli.h"

/* The message for a failed shellesc_sandbox_new. */
static void
cli_sandbox_warn(const struct shellesc_sandbox_fault *f)
{
	errno = f->err;
	switch (f->step) {
	case SHELLESC_SANDBOX_LANDLOCK_MISSING:
		cli_warnx("--sandbox landlock: this kernel %s Landlock (Linux 5.13 or later, "
		    "with landlock in the lsm= list)", f->err == ENOSYS ? "lacks" : "has disabled");
		break;
	case SHELLESC_SANDBOX_LANDLOCK_QUERY:
		cli_warn("--sandbox landlock: cannot query Landlock");
		break;
	case SHELLESC_SANDBOX_LANDLOCK_ABI:
		cli_warnx("--no-network: this kernel's Landlock ABI is %d; TCP rules need "
		    "ABI 4 (Linux 6.7 or later)", f->abi);
		break;
	case SHELLESC_SANDBOX_LANDLOCK_CREATE:
		cli_warn("--sandbox landlock: cannot create a ruleset");
		break;
	case SHELLESC_SANDBOX_NOT_DIR:
		cli_warnx("--writable %s: not a directory", f->path);
		break;
	case SHELLESC_SANDBOX_WRITABLE:
		cli_warn("--writable %s", f->path);
		break;
	case SHELLESC_SANDBOX_DEVICE:
		cli_warn("%s", f->path);
		break;
	case SHELLESC_SANDBOX_ADD_RULE:
		cli_warn("Landlock: cannot add a rule for %s", f->path);
		break;
	case SHELLESC_SANDBOX_SECCOMP_BUILD:
		cli_warnx("cannot build the session's seccomp filter");
		break;
	case SHELLESC_SANDBOX_GIT_WRITABLE:
		cli_warn("--sandbox landlock: cannot make %s read-only", f->path);
		break;
	default:
		cli_oom();
	}
}

/* n layers (at most SHELLESC_SANDBOX_MAX_LAYERS) as the library takes them. */
static void
cli_sandbox_layers(const struct cli_layer *in, size_t n, struct shellesc_sandbox_layer *out)
{
	static char *const none[] = { NULL };

	for (size_t i = 0; i < n; i++)
		out[i] = (struct shellesc_sandbox_layer){
			.writable = in[i].writable.v ? in[i].writable.v : none,
			.no_network = in[i].no_network,
			/* an empty list still means nothing runs in place */
			.exec_allowed = !in[i].no_exec ? NULL :
			    in[i].exec_allowed.v ? in[i].exec_allowed.v : none,
			.writable_git = in[i].writable_git,
		};
}

struct shellesc_sandbox *
cli_sandbox_new(const struct cli_layer *layers, size_t n, unsigned flags,
    const struct cli_strv *allow, int verbose)
{
	struct shellesc_sandbox_layer l[SHELLESC_SANDBOX_MAX_LAYERS];
	struct shellesc_sandbox_config cfg = { .layers = l, .n_layers = n, .flags = flags,
	    .allow_sockets = allow ? (const char *const *)allow->v : NULL };
	struct shellesc_sandbox_fault why;
	struct shellesc_sandbox *sb;

	if (n > SHELLESC_SANDBOX_MAX_LAYERS) {
		cli_warnx("more than %d sandbox layers", SHELLESC_SANDBOX_MAX_LAYERS);
		return NULL;
	}
	cli_sandbox_layers(layers, n, l);
	if (shellesc_sandbox_new(&cfg, &sb, &why) != 0) {
		cli_sandbox_warn(&why);
		return NULL;
	}
	errno = why.err;
	if (verbose && why.step == SHELLESC_SANDBOX_GIT_WRITABLE)
		cli_warn("--sandbox landlock: %s stays writable (no mount namespace to make it "
		    "read-only)", why.path);
	return sb;
}
