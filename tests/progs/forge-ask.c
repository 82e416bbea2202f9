/*
 * forge-ask FLAGS FILE ARGV0 [ARG...]: a client that lies, as any program
 * in a session could.  It asks the session (SHELLESC_ESCALATE_SOCKET)
 * about FILE with the request flags FLAGS (a number: 2 claims set-id),
 * whatever FILE really is, and with $FORGE_CWD as its cwd when set.  It never executes FILE: for run it prints
 * "run" and exits 0, for deny "deny: REASON" and exits 126; for escalate
 * it hands its stdio over and ends as the escalated command did.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "client.h"

extern char **environ;

int
main(int argc, char **argv)
{
	struct msg_exec_out e = { .env = environ, .pid = getpid() };
	struct client_result res;
	struct client_req req;
	int fd, r;

	if (argc < 4) {
		fprintf(stderr, "usage: forge-ask FLAGS FILE ARGV0 [ARG...]\n");
		return 2;
	}
	e.flags = (unsigned)strtoul(argv[1], NULL, 0);
	e.file = argv[2];
	e.argv = argv + 3;
	e.cwd = getenv("FORGE_CWD");	/* NULL: the real one */
	if ((r = client_session_fd(environ, &fd)) != 0 || (r = client_ask(fd, &e, &req)) != 0) {
		fprintf(stderr, "forge-ask: %s\n", req.refused ? req.reason : client_strerror(r));
		return 2;
	}
	if (req.action == SHELLESC_ACT_RUN)
		return puts("run") == EOF;
	if (req.action != SHELLESC_ACT_ESCALATE) {
		printf("deny: %s\n", req.reason);
		return 126;
	}
	if (client_escalate(&req, &res) != 0)
		return 2;
	client_exit_like(&res);
}
