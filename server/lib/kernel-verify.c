/*
 * kernel-verify.c: what the kernel runs is what was decided.
 *
 * A run answer to a seccomp notification is SECCOMP_USER_NOTIF_FLAG_CONTINUE,
 * after which the kernel reads the path and argv again from the caller's
 * memory, where another thread, a process sharing that memory or one
 * writing it could have changed them since the server read them.  So the
 * answer is the verifier's: it makes itself the calling thread's tracer
 * (PTRACE_SEIZE, PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL), continues the
 * call, and interrupts the thread (PTRACE_INTERRUPT).  The thread then
 * stops once more, either at the exec event -- the new image loaded, not
 * one instruction of it run -- or, when the exec failed, on its way back
 * to its own code.  At the exec event the file loaded (/proc/PID/exe, by
 * device and inode) and the argv the kernel copied (/proc/PID/cmdline)
 * must be what was decided, or the process is killed there (SIGKILL).
 * Either way it is let go (PTRACE_DETACH).
 *
 * Why a thread of its own: ptrace's requests belong to the tracer
 * *thread*, its stops are seen only by waitid(2), which epoll cannot
 * watch, and the library puts no SIGCHLD handler in its embedder.  The
 * thread forks nothing and waits with __WNOTHREAD, so what it waits for
 * is only ever its tracee.  It verifies one exec at a time; the loop
 * thread goes on serving clients meanwhile.
 *
 * A tracee that is the embedder's own child (the session's program) is
 * never reaped here: its exit is looked at (WNOWAIT) and left to the
 * embedder's waitpid.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

#define KVERIFY_POLL_NS	100000	/* tid != tgid: how often both are looked at */
/* What #! lines add in front of a script's argv: the kernel reads 256
 * bytes of each, interpreter and argument, through at most 5 levels. */
#define KVERIFY_SCRIPT_ARGS	(5 * 256)
#define KVERIFY_GRACE_S	1	/* at the end, for the exec being verified */

void
kverify_job_free(struct kverify_job *j)
{
	if (j == NULL)
		return;
	if (j->fd >= 0)
		close(j->fd);
	free(j->want);
	free(j->wrapper);
	free(j->file);
	free(j);
}

/* Up to max bytes of a /proc file into buf; the length, or -errno. */
static ssize_t
kverify_read(const char *path, char *buf, size_t max)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -errno;
	while (len < max && ((n = read(fd, buf + len, max - len)) > 0 || (n < 0 && errno == EINTR)))
		len += n > 0 ? (size_t)n : 0;
	n = n < 0 ? -errno : (ssize_t)len;
	close(fd);
	return n;
}

/* Is the new image of pid what j decided?  NULL, or why not. */
static const char *
kverify_check(const struct kverify_job *j, pid_t pid)
{
	char path[64], *buf;
	struct stat st;
	ssize_t n;
	size_t max;
	const char *why = NULL;

	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	if (!j->known)
		return "the server could not tell which file would run";
	if (stat(path, &st) != 0)
		return "cannot see the file it runs";
	if (st.st_dev != j->dev || st.st_ino != j->ino)
		return "the file it runs is not the one decided";
	max = j->len + (j->whole ? 1 : KVERIFY_SCRIPT_ARGS);
	if ((buf = malloc(max)) == NULL)
		return "out of memory";
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	n = kverify_read(path, buf, max);
	if (n < 0)
		why = "cannot read its arguments";
	else if ((size_t)n == max)
		why = "its arguments are longer than the ones decided";
	else if (j->whole ? (size_t)n != j->len || memcmp(buf, j->want, j->len) != 0 :
	    (size_t)n <= j->len || buf[n - 1 - j->len] != '\0' ||
	    memcmp(buf + n - j->len, j->want, j->len) != 0)
		why = "its arguments are not the ones decided";
	free(buf);
	return why;
}

/* At the exec event: let it go on (true), or kill it before it runs. */
static bool
kverify_exec(struct kverify *v, const struct kverify_job *j, pid_t pid)
{
	const char *why = kverify_check(j, pid);

	if (why == NULL && ptrace(PTRACE_DETACH, pid, 0, 0) == 0)
		return true;
	kill(pid, SIGKILL);
	loop_log(v->l, SHELLESC_LOG_ERROR, "process %ld killed at its exec: %s", (long)pid,
	    why ? why : strerror(errno));
	return false;
}

/*
 * The next event of j's thread, known as tid before its exec and as tgid
 * after (an exec from another thread than the leader takes the leader's
 * pid): looked at, not consumed (WNOWAIT).  0 or -errno.
 */
static int
kverify_wait(const struct kverify_job *j, siginfo_t *si)
{
	const int f = WEXITED | WSTOPPED | WNOWAIT | __WALL | __WNOTHREAD;
	struct timespec tick = { 0, KVERIFY_POLL_NS };
	int a, b;

	memset(si, 0, sizeof(*si));
	if (j->tid == j->tgid) {
		while (waitid(P_PID, (id_t)j->tid, si, f) != 0)
			if (errno != EINTR)
				return -errno;
		return 0;
	}
	for (;;) {	/* rare: no one wait can cover both pids */
		if ((a = waitid(P_PID, (id_t)j->tgid, si, f | WNOHANG)) == 0 && si->si_pid != 0)
			return 0;
		if ((b = waitid(P_PID, (id_t)j->tid, si, f | WNOHANG)) == 0 && si->si_pid != 0)
			return 0;
		if (a != 0 && b != 0 && errno != EINTR)
			return -errno;	/* neither is a tracee any more */
		nanosleep(&tick, NULL);
	}
}

bool
kverify_next(const struct kverify_job *j, struct kverify_stop *st)
{
	siginfo_t si;

	while (kverify_wait(j, &si) == 0) {
		st->pid = si.si_pid;
		if (si.si_code == CLD_EXITED || si.si_code == CLD_KILLED || si.si_code == CLD_DUMPED) {
			/* gone; the embedder's own child is its to reap */
			if (!(st->pid == j->tgid && j->ppid == getpid()))
				waitid(P_PID, (id_t)st->pid, &si, WEXITED | __WALL | __WNOTHREAD);
			return false;
		}
		/* a stop is taken (ptrace refuses a tracee whose exec changed its
		 * pid until its event has been waited for) */
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)st->pid, &si, WSTOPPED | WNOHANG | __WALL | __WNOTHREAD) != 0 ||
		    si.si_pid == 0)
			continue;	/* killed meanwhile: its end comes next */
		st->event = si.si_code == CLD_TRAPPED ? (si.si_status >> 8) & 0xff : 0;
		st->sig = si.si_code == CLD_TRAPPED && st->event == 0 ? si.si_status & 0xff : 0;
		return true;
	}
	return false;
}

/* Follow j's thread to its next stop and act on it; until it is let go. */
static void
kverify_follow(struct kverify *v, const struct kverify_job *j)
{
	struct kverify_stop st;

	while (kverify_next(j, &st)) {
		if (st.event == PTRACE_EVENT_EXEC && !kverify_exec(v, j, st.pid))
			continue;	/* killed: wait for its end */
		if (st.event != PTRACE_EVENT_EXEC)	/* back in its code: the exec failed */
			ptrace(PTRACE_DETACH, st.pid, 0, st.sig);
		return;
	}
}

/* Trace the thread, continue its call, follow it to its exec. */
static void
kverify_one(struct kverify *v, const struct kverify_job *j)
{
	if (ptrace(PTRACE_SEIZE, j->tid, 0, PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) != 0) {
		loop_log(v->l, SHELLESC_LOG_ERROR, "exec of process %ld refused: it cannot be "
		    "verified (it is traced by another, or may not be): %s", (long)j->tid,
		    strerror(errno));
		kernel_answer(&v->l->kernel, j->id, EACCES);
		return;
	}
	kernel_answer(&v->l->kernel, j->id, 0);
	/* Either the exec event comes first, or this stop on the way back. */
	if (ptrace(PTRACE_INTERRUPT, j->tid, 0, 0) != 0) {
		ptrace(PTRACE_DETACH, j->tid, 0, 0);
		return;			/* gone */
	}
	kverify_follow(v, j);
}

static void *
kverify_main(void *arg)
{
	struct kverify *v = arg;
	struct kverify_job *j;

	pthread_mutex_lock(&v->mu);
	for (;;) {
		while (v->head == NULL && !v->stop)
			pthread_cond_wait(&v->cv, &v->mu);
		if ((j = v->head) == NULL)
			break;
		if ((v->head = j->next) == NULL)
			v->tail = &v->head;
		v->busy = j->tgid;
		pthread_mutex_unlock(&v->mu);
		if (j->escalate)
			kescalate_one(v, j);
		else
			kverify_one(v, j);
		kverify_job_free(j);
		pthread_mutex_lock(&v->mu);
		v->busy = 0;
	}
	pthread_mutex_unlock(&v->mu);
	return NULL;
}

int
kverify_start(struct kverify *v, struct loop *l)
{
	sigset_t all, old;
	int r;

	memset(v, 0, sizeof(*v));
	v->l = l;
	v->tail = &v->head;
	pthread_mutex_init(&v->mu, NULL);
	pthread_cond_init(&v->cv, NULL);
	/* The thread takes no signals: they belong to the embedder. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = -pthread_create(&v->thread, NULL, kverify_main, v);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	v->started = r == 0;
	return r;
}

void
kverify_submit(struct kverify *v, struct kverify_job *j)
{
	j->next = NULL;
	pthread_mutex_lock(&v->mu);
	*v->tail = j;
	v->tail = &j->next;
	pthread_cond_signal(&v->cv);
	pthread_mutex_unlock(&v->mu);
}

void
kverify_stop(struct kverify *v)
{
	struct kverify_job *j, *next;
	struct timespec until;

	if (!v->started)
		return;
	pthread_mutex_lock(&v->mu);
	v->stop = true;
	for (j = v->head; j; j = next) {	/* unanswered: they fail with the listener */
		next = j->next;
		kverify_job_free(j);
	}
	v->head = NULL;
	v->tail = &v->head;
	pthread_cond_signal(&v->cv);
	pthread_mutex_unlock(&v->mu);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += KVERIFY_GRACE_S;
	if (pthread_timedjoin_np(v->thread, NULL, &until) != 0) {
		pthread_mutex_lock(&v->mu);
		if (v->busy > 0)
			kill(v->busy, SIGKILL);	/* an exec that stalls cannot hold the end */
		pthread_mutex_unlock(&v->mu);
		pthread_join(v->thread, NULL);
	}
	pthread_mutex_destroy(&v->mu);
	pthread_cond_destroy(&v->cv);
	v->started = false;
}
