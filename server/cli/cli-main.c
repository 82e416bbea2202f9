/*
 * cli-main.c: shellesc's main(): its standard fds, the options, and the
 * command they name.  The helpers every command uses are in cli-util.c.
 */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"

/*
 * Open 0, 1 and 2 on /dev/null if they are closed, as OpenSSH does: a
 * pipe or file we open must never land there and be taken by a child
 * (PROGRAM, an approver) as its stdio.
 */
static void
cli_stdfds(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR)) >= 0 && fd <= STDERR_FILENO)
		;
	if (fd > STDERR_FILENO)
		close(fd);
}

int
main(int argc, char **argv)
{
	struct cli c = { 0 };
	int r;

	cli_stdfds();
	if ((r = cli_options(&c.o, argc, argv)) != 0) {
		cli_options_free(&c.o);
		return r < 0 ? CLI_EXIT_FAIL : 0;
	}
	if (c.o.cmd == CLI_RUN)
		r = cli_run(&c);
	else if (c.o.cmd == CLI_CHECK)
		r = cli_check(&c);
	else if (c.o.cmd == CLI_MCP)
		r = cli_mcp(&c);
	else if (c.o.cmd == CLI_AUDIT)
		r = cli_log(&c);
	else
		r = cli_exec(&c);
	cli_options_free(&c.o);
	return r;
}
