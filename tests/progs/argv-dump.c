/*
 * argv-dump: write every argument, argv[0] included, to stdout, each
 * followed by a NUL byte -- so tests can check arguments byte for byte.
 */
#include "config.h"

#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	for (int i = 0; i < argc; i++)
		if (write(STDOUT_FILENO, argv[i], strlen(argv[i]) + 1) < 0)
			return 1;
	return 0;
}
