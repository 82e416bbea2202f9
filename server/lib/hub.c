/*
 * hub.c: the mailbox between whoever answers requests (any thread) and the
 * loop thread.  It outlives the session while a policy still holds a
 * request, so a late answer finds a dead hub instead of freed memory.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "server.h"

struct hub *
hub_new(void)
{
	struct hub *h = calloc(1, sizeof(*h));

	if (h == NULL)
		return NULL;
	if ((h->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
		free(h);
		return NULL;
	}
	pthread_mutex_init(&h->mu, NULL);
	h->refs = 1;
	h->tail = &h->head;
	return h;
}

void
hub_unref(struct hub *h)
{
	int left;

	pthread_mutex_lock(&h->mu);
	left = --h->refs;
	pthread_mutex_unlock(&h->mu);
	if (left > 0)
		return;
	close(h->efd);
	pthread_mutex_destroy(&h->mu);
	free(h);
}

static void
hub_wake(struct hub *h)
{
	uint64_t one = 1;

	/* EAGAIN means the counter is already non-zero: the loop will wake. */
	while (write(h->efd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

void
hub_poke(struct hub *h, bool quit, bool kill_all)
{
	pthread_mutex_lock(&h->mu);
	h->quit |= quit;
	h->kill_all |= kill_all;
	pthread_mutex_unlock(&h->mu);
	hub_wake(h);
}

struct shellesc_request *
hub_take(struct hub *h, bool *quit, bool *kill_all)
{
	struct shellesc_request *q;
	uint64_t n;

	while (read(h->efd, &n, sizeof(n)) < 0 && errno == EINTR)
		;
	pthread_mutex_lock(&h->mu);
	q = h->head;
	h->head = NULL;
	h->tail = &h->head;
	*quit = h->quit;
	*kill_all = h->kill_all;
	h->kill_all = false;
	pthread_mutex_unlock(&h->mu);
	return q;
}

void
hub_kill(struct hub *h)
{
	struct shellesc_request *q, *next;

	pthread_mutex_lock(&h->mu);
	h->dead = true;
	q = h->head;
	h->head = NULL;
	h->tail = &h->head;
	pthread_mutex_unlock(&h->mu);
	for (; q; q = next) {
		next = q->next;
		q->conn = NULL;
		request_free(q);
	}
}

/* The request whose policy callback runs on this thread now, or NULL. */
static __thread struct shellesc_request *hub_inline;

void
hub_inline_begin(struct shellesc_request *req)
{
	hub_inline = req;
}

void
hub_inline_end(void)
{
	hub_inline = NULL;
}

void
shellesc_request_decide(struct shellesc_request *req,
    const struct shellesc_decision *d)
{
	struct hub *h = req->hub;
	bool dead;

	req->d = *d;
	req->d.reason = d->reason ? strdup(d->reason) : NULL;
	if (req == hub_inline) {	/* the loop is waiting right below us */
		hub_inline = NULL;
		req->decided_inline = true;
		hub_unref(h);
		return;
	}
	pthread_mutex_lock(&h->mu);
	if (!(dead = h->dead)) {
		req->next = NULL;
		*h->tail = req;
		h->tail = &req->next;
	}
	pthread_mutex_unlock(&h->mu);
	if (dead) {
		req->conn = NULL;
		request_free(req);
	} else
		hub_wake(h);
	hub_unref(h);		/* the policy's reference */
}
