/*
 * cli-prompt.c: the prompt thread.  Requests the rules say to prompt for
 * wait in a queue and are asked about one at a time -- a person can answer
 * one question at a time -- while the session's loop keeps deciding every
 * other request.  Stopping (once the session has ended, so nothing more is
 * pushed) interrupts the question being asked through the wake pipe and
 * denies whatever is still queued.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"

struct cli_prompt_item {
	struct shellesc_request *req;
	struct cli_verdict v;
	struct cli_prompt_item *next;
};

struct cli_prompt {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct cli_prompt_item *head, **tail;
	bool quit, running;
	int wake[2];		/* readable once quitting */
	pthread_t thread;
};

/* When a question asked now must have been answered (ms, monotonic). */
int64_t
cli_prompt_deadline(const struct cli *c)
{
	return clock_now_ms() + (int64_t)c->o.prompt_timeout * 1000;
}

/*
 * Wait for p[0..n) until the deadline, unless the wake pipe (the session
 * ending) comes first.  p's revents are set on CLI_WAIT_READY.
 */
enum cli_wait
cli_prompt_poll(struct pollfd *p, size_t n, int wake, int64_t deadline)
{
	struct pollfd all[n + 1];
	int64_t left = deadline - clock_now_ms();
	int k;

	if (left <= 0)
		return CLI_WAIT_TIMEOUT;
	memcpy(all, p, n * sizeof(*p));
	all[n] = (struct pollfd){ .fd = wake, .events = POLLIN };
	if ((k = poll(all, n + 1, left > INT_MAX ? INT_MAX : (int)left)) < 0)
		return errno == EINTR ? CLI_WAIT_READY : CLI_WAIT_ERROR;
	if (all[n].revents)
		return CLI_WAIT_WOKEN;
	memcpy(p, all, n * sizeof(*p));
	return k == 0 ? CLI_WAIT_TIMEOUT : CLI_WAIT_READY;
}

static void
cli_prompt_deny(struct cli *c, struct shellesc_request *req, struct cli_verdict *v,
    const char *why)
{
	cli_verdict_deny(v, NULL, "%s", why);
	cli_policy_answer(c, req, v, SHELLESC_DENY);
}

/* The next item, or NULL once quitting. */
static struct cli_prompt_item *
cli_prompt_next(struct cli_prompt *p)
{
	struct cli_prompt_item *it = NULL;

	pthread_mutex_lock(&p->mu);
	while (!p->quit && p->head == NULL)
		pthread_cond_wait(&p->cv, &p->mu);
	if (!p->quit && (it = p->head) != NULL && (p->head = it->next) == NULL)
		p->tail = &p->head;
	pthread_mutex_unlock(&p->mu);
	return it;
}

/* An "always" answered while this one waited may have settled it. */
static bool
cli_prompt_settled(struct cli *c, struct cli_prompt_item *it)
{
	struct shellesc_request *req = it->req;
	struct cli_verdict v = { .ask = it->v.ask };

	cli_rules_decide_request(c, req, &v);
	/* what the caller asked for still only asks (an unknown name: denied) */
	if (v.ask != NULL && cli_profile_requested(c, &v, v.ask->profile) != 0)
		v.effective = RULES_DENY;
	if (v.effective == RULES_PROMPT) {
		cli_verdict_free(&v);
		return false;
	}
	v.answered = it->v.answered;
	v.answered_arg = it->v.answered_arg;
	cli_verdict_free(&it->v);
	it->v = v;
	cli_policy_answer(c, req, &it->v, v.effective == RULES_ESCALATE ? SHELLESC_ESCALATE :
	    v.effective == RULES_RUN ? SHELLESC_RUN : SHELLESC_DENY);
	return true;
}

/* Rules combine by strictness: an added run or escalate rule could never
 * outweigh a prompt rule that matches too, so always is only for no rule
 * matched. */
bool
cli_prompt_always_ok(struct cli *c, const struct cli_verdict *v)
{
	bool ok;

	cli_rules_always_file(c, &ok);
	return v->rule == RULES_NONE && ok;
}

static void
cli_prompt_one(struct cli *c, struct cli_prompt_item *it)
{
	struct shellesc_request *req = it->req;
	enum shellesc_action a = SHELLESC_DENY;
	enum cli_always always = CLI_ALWAYS_NO;
	int r;

	if (shellesc_request_cancelled(req)) {
		cli_prompt_deny(c, req, &it->v, "the caller went away before it was asked about");
		return;
	}
	if (cli_prompt_settled(c, it))
		return;
	if (c->o.approver)
		r = cli_approver_ask(c, req, &it->v, c->prompt->wake[0], &a, &always);
	else
		r = cli_tty_ask(c, req, &it->v, c->prompt->wake[0], &a, &always);
	if (r != 0)
		a = SHELLESC_DENY;
	/* a rule that cannot be written still lets this one command run */
	if (r == 0 && always != CLI_ALWAYS_NO)
		cli_rules_always(c, req, always, a == SHELLESC_RUN ? RULES_RUN : RULES_ESCALATE,
		    it->v.profile);
	cli_policy_answer(c, req, &it->v, a);
}

static void *
cli_prompt_main(void *arg)
{
	struct cli *c = arg;
	struct cli_prompt_item *it;
	sigset_t set;

	/* Taking the terminal's foreground (cli-tty.c) must not stop us. */
	sigemptyset(&set);
	sigaddset(&set, SIGTTOU);
	sigaddset(&set, SIGTTIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	while ((it = cli_prompt_next(c->prompt)) != NULL) {
		cli_prompt_one(c, it);
		free(it);
	}
	return NULL;
}

int
cli_prompt_start(struct cli *c)
{
	struct cli_prompt *p = calloc(1, sizeof(*p));
	int r;

	if ((c->prompt = p) == NULL)
		return cli_oom();
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	p->tail = &p->head;
	if (pipe2(p->wake, O_CLOEXEC) != 0) {
		p->wake[0] = p->wake[1] = -1;
		cli_warn("pipe");
		return -1;
	}
	if ((r = pthread_create(&p->thread, NULL, cli_prompt_main, c)) != 0) {
		cli_warnx("cannot start the prompt thread: %s", strerror(r));
		return -1;
	}
	p->running = true;
	return 0;
}

/* Loop thread: queue req for the prompt thread (v is taken over). */
void
cli_prompt_push(struct cli *c, struct shellesc_request *req, struct cli_verdict *v)
{
	struct cli_prompt *p = c->prompt;
	struct cli_prompt_item *it = calloc(1, sizeof(*it));

	if (it == NULL) {
		cli_prompt_deny(c, req, v, "out of memory to ask for approval");
		return;
	}
	it->req = req;
	it->v = *v;
	pthread_mutex_lock(&p->mu);
	*p->tail = it;
	p->tail = &it->next;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

/* After the session ended: no more pushes, and answers are discarded. */
void
cli_prompt_stop(struct cli *c)
{
	struct cli_prompt *p = c->prompt;
	struct cli_prompt_item *it;

	if (p == NULL)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_signal(&p->cv);
	pthread_mutex_unlock(&p->mu);
	if (p->wake[1] >= 0 && write(p->wake[1], "", 1) < 0)
		cli_warn("cannot interrupt the prompt");
	if (p->running)
		pthread_join(p->thread, NULL);
	while ((it = p->head) != NULL) {
		p->head = it->next;
		cli_prompt_deny(c, it->req, &it->v, "the session ended before it was asked about");
		free(it);
	}
	for (int i = 0; i < 2; i++)
		if (p->wake[i] >= 0)
			close(p->wake[i]);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p);
	c->prompt = NULL;
}
