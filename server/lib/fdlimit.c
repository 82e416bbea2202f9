/*
 * fdlimit.c: the process's fd limit, raised for the server and given back
 * to the commands it starts.
 *
 * Every request stream a client hands over becomes an fd of the embedding
 * process, so the common soft limit of 1024 is a few hundred requests in
 * flight: a session raises the soft RLIMIT_NOFILE to the hard limit when
 * it starts (unless the embedder says not to).  Programs the library
 * starts get the soft limit the process had before the first raise: some
 * still use select(2), which breaks past fd 1023, and some close every fd
 * up to the limit, which a limit of a million makes slow.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <sys/resource.h>

#include "server.h"

static pthread_mutex_t fdlimit_mu = PTHREAD_MUTEX_INITIALIZER;
static struct rlimit fdlimit_before;	/* as the first raise found it */
static bool fdlimit_raised;

int
fdlimit_raise(void)
{
	struct rlimit rl;
	int r = 0;

	pthread_mutex_lock(&fdlimit_mu);
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		r = -errno;
	else if (rl.rlim_cur < rl.rlim_max) {
		struct rlimit up = { rl.rlim_max, rl.rlim_max };

		if (setrlimit(RLIMIT_NOFILE, &up) != 0)
			r = -errno;
		else if (!fdlimit_raised) {
			fdlimit_before = rl;
			fdlimit_raised = true;
		}
	}
	pthread_mutex_unlock(&fdlimit_mu);
	return r;
}

long
fdlimit_current(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur > (rlim_t)1 << 30)
		return 1L << 30;
	return (long)rl.rlim_cur;
}

bool
fdlimit_for_children(struct rlimit *out)
{
	bool raised;

	pthread_mutex_lock(&fdlimit_mu);
	raised = fdlimit_raised && getrlimit(RLIMIT_NOFILE, out) == 0;
	/* the old soft limit under today's hard one, which may have moved */
	if (raised && fdlimit_before.rlim_cur < out->rlim_max)
		out->rlim_cur = fdlimit_before.rlim_cur;
	pthread_mutex_unlock(&fdlimit_mu);
	return raised;
}
