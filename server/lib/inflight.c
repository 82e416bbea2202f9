/*
 * inflight.c: requests in flight per client process.
 *
 * A client process is known by what the kernel recorded on the stream it
 * handed over (SO_PEERCRED: the uid and pid of the process that made the
 * pair), never by anything it sends.  The loop admits a new stream only
 * while its process and the session are under their bounds (loop.c), so a
 * process handing over the same stream end again and again holds a few
 * slots, not the server's fd table.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>

#include "server.h"

static size_t
inflight_bucket(uid_t uid, pid_t pid)
{
	uint64_t k = ((uint64_t)uid << 32 | (uint32_t)pid) * 0x9e3779b97f4a7c15ULL;

	return (size_t)(k >> 56) % INFLIGHT_BUCKETS;
}

struct inflight *
inflight_find(struct inflight_table *t, uid_t uid, pid_t pid)
{
	struct inflight *p = t->bucket[inflight_bucket(uid, pid)];

	while (p && (p->uid != uid || p->pid != pid))
		p = p->next;
	return p;
}

struct inflight *
inflight_get(struct inflight_table *t, uid_t uid, pid_t pid)
{
	struct inflight *p = inflight_find(t, uid, pid);

	if (p == NULL) {
		size_t b = inflight_bucket(uid, pid);

		if ((p = calloc(1, sizeof(*p))) == NULL)
			return NULL;
		p->uid = uid;
		p->pid = pid;
		p->next = t->bucket[b];
		t->bucket[b] = p;
	}
	return p;
}

void
inflight_put(struct inflight_table *t, struct inflight *p)
{
	struct inflight **at;

	if (p == NULL || p->streams > 0)
		return;
	for (at = &t->bucket[inflight_bucket(p->uid, p->pid)]; *at != p; at = &(*at)->next)
		;
	*at = p->next;
	free(p);
}

void
inflight_clear(struct inflight_table *t)
{
	struct inflight *p, *next;

	for (size_t b = 0; b < INFLIGHT_BUCKETS; b++) {
		for (p = t->bucket[b]; p; p = next) {
			next = p->next;
			free(p);
		}
		t->bucket[b] = NULL;
	}
}
