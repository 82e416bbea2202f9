/*
 * kernel-verify.c: what the kernel runs is what was decided.
 *
 * A run answer to a seccomp notification is SECCOMP_USER_NOTIF_FLAG_CONTINUE,
 * after which the kernel reads the path and argv again from the caller's
 * memory, where another thread, a process sharing that memory or one
 * writing it could have changed them since the server read them.  So the
 * answer is the verifier's: it makes itself the calling thread's tracer
 * (PTRACE_SEIZE, PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL), asks it to stop
 * (PTRACE_INTERRUPT), and only then continues the call.  The thread then
 * stops once more, either at the exec event -- the new image loaded, not
 * one instruction of it run -- or, when the exec failed, on its way back
 * to its own code.  The stop must be asked for first: asked for after
 * the answer, a failed exec (ENOENT, as a shell or execvp searching PATH
 * meets in a row) could be back in its code and in its next exec before
 * the stop came, still traced by this thread -- the next exec's verifier
 * could not trace it (EACCES for an exec that should have run or failed
 * with ENOENT), or the late stop ended the next exec's wait before the
 * server had it, and that exec was made and asked again.  Asked for
 * first, the stop waits for the answer, as the listener's waits are
 * killable once the server has the exec (SECCOMP_FILTER_FLAG_WAIT_
 * KILLABLE_RECV, Linux 5.19).  Where they are not, the stop ends the wait
 * and the exec is made again: seen once (the answer finds no caller
 * waiting, yet the thread stops alive), the verifier asks for the stop
 * after the answer from then on (kernel_verify.late_stop), as before.
 *
 * At the exec event the file loaded (/proc/PID/exe, by device and inode)
 * and the argv the kernel copied (/proc/PID/cmdline) must be what was
 * decided, or the process is killed there (SIGKILL).
 * Either way it is let go (PTRACE_DETACH).
 *
 * Why threads of their own: ptrace's requests belong to the tracer
 * *thread*, its stops are seen only by waitid(2), which epoll cannot
 * watch, and the library puts no SIGCHLD handler in its embedder.  A
 * verifier thread forks nothing and waits with __WNOTHREAD, so what it
 * waits for is only ever its own tracee.  Each verifies one exec at a
 * time, and an exec can stay in the kernel as long as its caller likes
 * (its strings on a userfaultfd page never filled, its file on a FUSE
 * mount it serves): so a job finds a thread of its own whenever none is
 * idle, up to KERNEL_VERIFY_THREADS, and one stalled exec holds up only
 * itself.  Threads once started wait for the next job (execs come in
 * bursts); the loop thread goes on serving clients meanwhile.
 *
 * A tracee that is the embedder's own child (the session's program) is
 * never reaped here: its exit is looked at (WNOWAIT) and left to the
 * embedder's waitpid.
 */
#include "config.h"

#include <errno.h>
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

#define KERNEL_VERIFY_POLL_NS	100000	/* tid != tgid: how often both are looked at */
#define KERNEL_VERIFY_GRACE_S	1	/* at the end, for the exec being verified */

void
kernel_verify_job_free(struct kernel_verify_job *j)
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

int
kernel_verify_reason(char *why, size_t n, int err, const char *msg)
{
	snprintf(why, n, "%s", msg);
	return err;
}

/* Does pid run the file j decided?  0, or -errno with why (n bytes). */
static int
kernel_verify_image(const struct kernel_verify_job *j, pid_t pid, char *why, size_t n)
{
	struct stat st;
	int r;

	if (!j->known)
		return kernel_verify_reason(why, n, -EACCES,
		    "the server could not tell which file would run");
	if ((r = proc_stat(pid, "exe", &st)) != 0)
		return kernel_verify_reason(why, n, r, "cannot see the file it runs");
	if (st.st_dev != j->dev || st.st_ino != j->ino)
		return kernel_verify_reason(why, n, -EACCES,
		    "the file it runs is not the one decided");
	return 0;
}

/* Is the argv the kernel copied for pid, whole, the one j decided (a
 * script's with its #! lines' words)?  0, or -errno with why (n bytes). */
static int
kernel_verify_argv(const struct kernel_verify_job *j, pid_t pid, char *why, size_t n)
{
	size_t max = j->len + 1;
	char *buf = malloc(max);
	ssize_t len;
	int r = 0;

	if (buf == NULL)
		return kernel_verify_reason(why, n, -ENOMEM, "out of memory");
	if ((len = proc_read(pid, "cmdline", buf, max)) < 0)
		r = kernel_verify_reason(why, n, (int)len, "cannot read its arguments");
	else if ((size_t)len == max)
		r = kernel_verify_reason(why, n, -E2BIG,
		    "its arguments are longer than the ones decided");
	else if ((size_t)len != j->len || memcmp(buf, j->want, j->len) != 0)
		r = kernel_verify_reason(why, n, -EACCES, "its arguments are not the ones decided");
	free(buf);
	return r;
}

/* At the exec event: let it go on (true), or kill it before it runs. */
static bool
kernel_verify_at_exec(struct kernel_verify *v, const struct kernel_verify_job *j, pid_t pid)
{
	char why[128];
	int r;

	if ((r = kernel_verify_image(j, pid, why, sizeof(why))) == 0 &&
	    (r = kernel_verify_argv(j, pid, why, sizeof(why))) == 0) {
		if (ptrace(PTRACE_DETACH, pid, 0, 0) == 0)
			return true;
		snprintf(why, sizeof(why), "%s", strerror(errno));
	}
	kill(pid, SIGKILL);
	loop_log(v->l, SHELLESC_LOG_ERROR, "process %ld killed at its exec: %s", (long)pid, why);
	return false;
}

/*
 * The next event of j's thread, known as tid before its exec and as tgid
 * after (an exec from another thread than the leader takes the leader's
 * pid): looked at, not consumed (WNOWAIT).  0 or -errno.
 */
static int
kernel_verify_wait(const struct kernel_verify_job *j, siginfo_t *si)
{
	const int f = WEXITED | WSTOPPED | WNOWAIT | __WALL | __WNOTHREAD;
	struct timespec tick = { 0, KERNEL_VERIFY_POLL_NS };
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
kernel_verify_next(const struct kernel_verify_job *j, struct kernel_verify_trap *st)
{
	siginfo_t si;

	while (kernel_verify_wait(j, &si) == 0) {
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

/* The stop asked for before the answer ended the caller's wait instead
 * (withdrawn: the answer found none): the listener's waits are not
 * killable.  The exec is made again; from now on the stop comes after. */
static void
kernel_verify_wait_not_killable(struct kernel_verify *v)
{
	if (!atomic_exchange(&v->late_stop, true))
		loop_log(v->l, SHELLESC_LOG_WARN, "the kernel layer's waits are not killable "
		    "(Linux 5.19, SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV): a thread's exec "
		    "right after one that failed may be refused or asked twice");
}

/* Follow j's thread to its next stop and act on it; until it is let go.
 * withdrawn: the answer found no caller waiting. */
static void
kernel_verify_follow(struct kernel_verify *v, const struct kernel_verify_job *j,
    bool withdrawn)
{
	struct kernel_verify_trap st;

	while (kernel_verify_next(j, &st)) {
		if (st.event == PTRACE_EVENT_EXEC && !kernel_verify_at_exec(v, j, st.pid))
			continue;	/* killed: wait for its end */
		if (st.event != PTRACE_EVENT_EXEC) {	/* back in its code: the exec failed */
			if (withdrawn)
				kernel_verify_wait_not_killable(v);
			ptrace(PTRACE_DETACH, st.pid, 0, st.sig);
		}
		return;
	}
}

/* Trace the thread, ask it to stop, continue its call, follow it to its
 * exec (or, late_stop, ask for the stop after the answer). */
static void
kernel_verify_one(struct kernel_verify *v, const struct kernel_verify_job *j)
{
	bool early = !atomic_load(&v->late_stop);
	int r;

	if (ptrace(PTRACE_SEIZE, j->tid, 0, PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL) != 0) {
		loop_log(v->l, SHELLESC_LOG_ERROR, "exec of process %ld refused: it cannot be "
		    "verified (it is traced by another, or may not be): %s", (long)j->tid,
		    strerror(errno));
		kernel_answer(&v->l->kernel, j->id, -EACCES);
		return;
	}
	/* Either the exec event comes first, or this stop on the way back. */
	if (early && ptrace(PTRACE_INTERRUPT, j->tid, 0, 0) != 0) {
		ptrace(PTRACE_DETACH, j->tid, 0, 0);
		kernel_answer(&v->l->kernel, j->id, -EACCES);
		return;			/* gone */
	}
	r = kernel_answer(&v->l->kernel, j->id, 0);
	if (!early && ptrace(PTRACE_INTERRUPT, j->tid, 0, 0) != 0) {
		ptrace(PTRACE_DETACH, j->tid, 0, 0);
		return;			/* gone */
	}
	kernel_verify_follow(v, j, early && r == -ENOENT);
}

static void *
kernel_verify_main(void *arg)
{
	struct kernel_verify_thread *t = arg;
	struct kernel_verify *v = t->v;
	struct kernel_verify_job *j;

	pthread_mutex_lock(&v->mu);
	for (;;) {
		while (v->head == NULL && !v->stop) {
			v->idle++;
			pthread_cond_wait(&v->cv, &v->mu);
			v->idle--;
		}
		if ((j = v->head) == NULL)
			break;
		if ((v->head = j->next) == NULL)
			v->tail = &v->head;
		v->queued--;
		t->busy = j->tgid;
		pthread_mutex_unlock(&v->mu);
		if (j->escalate)
			kernel_escalate_one(v, j);
		else
			kernel_verify_one(v, j);
		kernel_verify_job_free(j);
		pthread_mutex_lock(&v->mu);
		t->busy = 0;
	}
	pthread_mutex_unlock(&v->mu);
	return NULL;
}

/* One more thread (v->mu held); 0 or -errno. */
static int
kernel_verify_spawn(struct kernel_verify *v)
{
	struct kernel_verify_thread *t = &v->th[v->nthreads];
	struct sigaction sa;
	sigset_t all, old;
	int r;

	t->v = v;
	t->busy = 0;
	/* The thread takes no signals: they belong to the embedder.  But for
	 * SIGCHLD at its default (ignored), which every stop of a tracee sends
	 * to its tracer, this thread: blocked here, the kernel would queue it
	 * for the process and wake a thread of the embedder's that does not
	 * block it (the CLI's main thread, once per exec: a context switch and
	 * a restarted poll each time); not blocked, it drops it at once. */
	sigfillset(&all);
	if (sigaction(SIGCHLD, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL)
		sigdelset(&all, SIGCHLD);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&t->thread, NULL, kernel_verify_main, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (r == 0)
		v->nthreads++;
	return -r;
}

int
kernel_verify_start(struct kernel_verify *v, struct loop *l)
{
	int r;

	memset(v, 0, sizeof(*v));
	atomic_init(&v->late_stop, false);
	v->l = l;
	v->tail = &v->head;
	pthread_mutex_init(&v->mu, NULL);
	pthread_cond_init(&v->cv, NULL);
	pthread_mutex_lock(&v->mu);
	r = kernel_verify_spawn(v);
	pthread_mutex_unlock(&v->mu);
	if (r != 0) {
		pthread_mutex_destroy(&v->mu);
		pthread_cond_destroy(&v->cv);
	}
	v->started = r == 0;
	return r;
}

void
kernel_verify_submit(struct kernel_verify *v, struct kernel_verify_job *j)
{
	j->next = NULL;
	pthread_mutex_lock(&v->mu);
	if (v->stop) {		/* unanswered: it fails with the listener */
		pthread_mutex_unlock(&v->mu);
		kernel_verify_job_free(j);
		return;
	}
	*v->tail = j;
	v->tail = &j->next;
	/* every thread busy, maybe stalled: this one gets its own (if none
	 * can be made, it waits for a thread to be done) */
	if (++v->queued > v->idle && v->nthreads < KERNEL_VERIFY_THREADS &&
	    kernel_verify_spawn(v) != 0)
		loop_log(v->l, SHELLESC_LOG_WARN, "exec of process %ld waits for a verifier: "
		    "no thread could be made", (long)j->tid);
	pthread_cond_signal(&v->cv);
	pthread_mutex_unlock(&v->mu);
}

void
kernel_verify_stop(struct kernel_verify *v)
{
	struct kernel_verify_job *j, *next;
	struct timespec until;

	if (!v->started)
		return;
	pthread_mutex_lock(&v->mu);
	v->stop = true;
	for (j = v->head; j; j = next) {	/* unanswered: they fail with the listener */
		next = j->next;
		kernel_verify_job_free(j);
	}
	v->head = NULL;
	v->tail = &v->head;
	v->queued = 0;
	pthread_cond_broadcast(&v->cv);
	pthread_mutex_unlock(&v->mu);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += KERNEL_VERIFY_GRACE_S;
	for (size_t i = 0; i < v->nthreads; i++) {
		if (pthread_timedjoin_np(v->th[i].thread, NULL, &until) == 0)
			continue;
		pthread_mutex_lock(&v->mu);
		if (v->th[i].busy > 0)
			kill(v->th[i].busy, SIGKILL);	/* an exec that stalls cannot hold the end */
		pthread_mutex_unlock(&v->mu);
		pthread_join(v->th[i].thread, NULL);
	}
	pthread_mutex_destroy(&v->mu);
	pthread_cond_destroy(&v->cv);
	v->started = false;
}
