/*
 * vfork-leak COUNT PROGRAM: COUNT times vfork + execve PROGRAM (which must
 * exit 0) with a fresh environment, as CPython's subprocess does, then
 * print "grew=N" where N is how many KiB the process's resident anonymous
 * memory (RssAnon) grew meanwhile.  A vfork child shares its parent's
 * memory: whatever it maps and leaves mapped when its exec succeeds stays
 * in the parent, once per child.  Exits 1 if a child failed.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static long
leak_rss_anon(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (strncmp(line, "RssAnon:", 8) == 0)
			kb = atol(line + 8);
	if (f)
		fclose(f);
	return kb;
}

int
main(int argc, char **argv)
{
	char *env[] = { (char *)"LEAK_FRESH=1", NULL };
	int count = argc == 3 ? atoi(argv[1]) : 0, st;
	long before;

	if (count <= 0)
		return 2;
	before = leak_rss_anon();
	for (int i = 0; i < count; i++) {
		pid_t pid = vfork();

		if (pid == 0) {
			execve(argv[2], (char *[]){ argv[2], NULL }, env);
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0)
			return 1;
	}
	printf("grew=%ld\n", leak_rss_anon() - before);
	return 0;
}
