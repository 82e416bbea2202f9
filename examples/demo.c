/*
 * shellesc-demo: a whole shellesc session in one program, embedding
 * libshellesc the way an agent harness would.
 *
 * Its policy: programs named rm are denied, id is escalated (run by the
 * server, outside any sandbox), everything else runs in place.  It runs a
 * bash script in the session and prints each decision and the script's
 * output.  The script calls the exec wrapper itself, exactly as a patched
 * shell does for every command ("$EXEC_WRAPPER" /path/to/prog prog args...),
 * so a stock bash shows the gate.
 *
 * Usage: shellesc-demo [-w WRAPPER] [-c SCRIPT]
 */
#include "config.h"

#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shellesc.h"

static const char demo_script[] =
    "gate() { \"$EXEC_WRAPPER\" \"$(type -P \"$1\")\" \"$@\"; }\n"
    "gate echo 'hello from inside the session'\n"
    "echo \"echo: exit $?\"\n"
    "gate id -un\n"
    "echo \"id: exit $?\"\n"
    "gate rm -rf /tmp/shellesc-demo-does-not-matter\n"
    "echo \"rm: exit $?\"\n";

static const char *const demo_verdict[] = { "run", "escalate", "deny" };

static void
demo_policy(void *arg, struct shellesc_request *req)
{
	const char *prog = shellesc_request_program(req);
	const char *base = strrchr(prog, '/') + 1;
	struct shellesc_decision d = { .action = SHELLESC_RUN };

	if (strcmp(base, "rm") == 0) {
		d.action = SHELLESC_DENY;
		d.reason = "the demo policy forbids rm";
	} else if (strcmp(base, "id") == 0)
		d.action = SHELLESC_ESCALATE;
	printf("[policy] pid %ld: %s -> %s\n", (long)shellesc_request_pid(req),
	    prog, demo_verdict[d.action]);
	fflush(stdout);
	shellesc_request_decide(req, &d);
}

int
main(int argc, char **argv)
{
	/* The build tree's wrapper, so the demo runs before make install. */
	struct shellesc_config cfg = { .policy = demo_policy,
	    .intercept = SHELLESC_INTERCEPT_WRAPPER, .wrapper_path = DEMO_WRAPPER };
	struct shellesc_exec_params p = { .command = demo_script, .timeout_ms = 30000 };
	struct shellesc_exec_result res;
	struct shellesc_session *s;
	char cwd[4096];
	int opt, r;

	while ((opt = getopt(argc, argv, "w:c:h")) != -1) {
		if (opt == 'w')
			cfg.wrapper_path = optarg;
		else if (opt == 'c')
			p.command = optarg;
		else {
			fprintf(stderr, "usage: shellesc-demo [-w WRAPPER] [-c SCRIPT]\n");
			return opt == 'h' ? 0 : 2;
		}
	}
	if (getcwd(cwd, sizeof(cwd)) == NULL)
		return perror("shellesc-demo: getcwd"), 1;
	p.workdir = cwd;
	if ((r = shellesc_session_start(&cfg, &s)) != 0)
		return fprintf(stderr, "shellesc-demo: %s\n", strerror(-r)), 1;
	r = shellesc_session_exec(s, &p, &res);
	shellesc_session_end(s);
	if (r != 0)
		return fprintf(stderr, "shellesc-demo: %s\n", strerror(-r)), 1;
	printf("--- the script's stdout\n%s--- its stderr\n%s--- bash exited %d%s\n", res.out, res.err,
	    res.exit_code, res.timed_out ? " (timed out)" : "");
	shellesc_exec_result_free(&res);
	return 0;
}
