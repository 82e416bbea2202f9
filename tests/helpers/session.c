/* session-helpers.c: a scriptable policy, sessions, and clients inside the test process. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "frame.h"
#include "handshake.h"
#include "helpers/base.h"
#include "msg.h"
#include "helpers/session.h"

/* --- the policy --------------------------------------------------------- */

static char **
ts_strv_dup(char *const *v, size_t *n)
{
	size_t k = 0;
	char **out;

	while (v[k])
		k++;
	cr_assert_not_null(out = calloc(k + 1, sizeof(char *)));
	for (size_t i = 0; i < k; i++)
		cr_assert_not_null(out[i] = strdup(v[i]));
	if (n)
		*n = k;
	return out;
}

static void
ts_strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static void
ts_forget(struct tpol *tp)
{
	free(tp->program);
	free(tp->file);
	free(tp->cwd);
	ts_strv_free(tp->argv);
	ts_strv_free(tp->env);
	tp->program = tp->file = tp->cwd = NULL;
	tp->argv = tp->env = NULL;
}

/* Append "program\n" to the history (growing it by doubling: suites make 10 000s of requests). */
static void
ts_remember(struct tpol *tp, const char *program)
{
	size_t n = strlen(program);

	if (tp->history_len + n + 2 > tp->history_cap) {
		tp->history_cap = 2 * (tp->history_cap + n + 2);
		cr_assert_not_null(tp->history = realloc(tp->history, tp->history_cap));
	}
	memcpy(tp->history + tp->history_len, program, n);
	memcpy(tp->history + tp->history_len + n, "\n", 2);
	tp->history_len += n + 1;
}

static void
ts_record(struct tpol *tp, const struct shellesc_request *req)
{
	pthread_mutex_lock(&tp->mu);
	ts_forget(tp);
	ts_remember(tp, shellesc_request_program(req));
	tp->flags = shellesc_request_flags(req);
	tp->facts = shellesc_request_target(req)->facts;
	tp->program = strdup(shellesc_request_program(req));
	tp->file = strdup(shellesc_request_file(req));
	tp->cwd = strdup(shellesc_request_cwd(req));
	tp->argv = ts_strv_dup(shellesc_request_argv(req), &tp->argc);
	tp->env = ts_strv_dup(shellesc_request_env(req), NULL);
	tp->pid = shellesc_request_pid(req);
	tp->seen++;
	pthread_cond_broadcast(&tp->cv);
	pthread_mutex_unlock(&tp->mu);
}

/* The deny rule, else TEST_ACTION=run|escalate|deny in the request's environment, else the default. */
static enum shellesc_action
ts_action(const struct tpol *tp, const struct shellesc_request *req)
{
	static const char *const names[] = { "run", "escalate", "deny" };
	const char *program = shellesc_request_program(req), *base = strrchr(program, '/');

	if (tp->deny_name && strcmp(base ? base + 1 : program, tp->deny_name) == 0)
		return SHELLESC_DENY;
	for (char *const *e = shellesc_request_env(req); *e; e++)
		for (int a = 0; strncmp(*e, "TEST_ACTION=", 12) == 0 && a < 3; a++)
			if (strcmp(*e + 12, names[a]) == 0)
				return (enum shellesc_action)a;
	return tp->action;
}

struct ts_late {
	struct tpol *tp;
	struct shellesc_request *req;
	struct shellesc_decision d;
	int delay_ms;
};

static void *
ts_late_main(void *arg)
{
	struct ts_late *l = arg;

	int cancelled;

	poll(NULL, 0, l->delay_ms);
	cancelled = shellesc_request_cancelled(l->req);
	shellesc_request_decide(l->req, &l->d);
	pthread_mutex_lock(&l->tp->mu);
	l->tp->cancelled = cancelled;
	l->tp->decided++;
	pthread_cond_broadcast(&l->tp->cv);
	pthread_mutex_unlock(&l->tp->mu);
	free(l);
	return NULL;
}

static void
ts_policy(void *arg, struct shellesc_request *req)
{
	struct tpol *tp = arg;
	struct shellesc_decision d = { ts_action(tp, req), tp->mode, tp->profile, tp->reason };
	struct ts_late *l;
	pthread_t t;

	ts_record(tp, req);
	if (tp->delay_ms <= 0) {
		shellesc_request_decide(req, &d);
		return;
	}
	cr_assert_not_null(l = malloc(sizeof(*l)));
	*l = (struct ts_late){ tp, req, d, tp->delay_ms };
	cr_assert_eq(pthread_create(&t, NULL, ts_late_main, l), 0);
	pthread_detach(t);
}

static int
ts_prepare(void *arg, const struct shellesc_request *req,
    const struct shellesc_decision *d, struct shellesc_prepared *p)
{
	struct tpol *tp = arg;

	pthread_mutex_lock(&tp->mu);
	tp->prepared++;
	tp->prep_mode = d->mode;
	tp->prep_profile = d->profile;
	pthread_mutex_unlock(&tp->mu);
	if (tp->redirect) {
		p->path = tp->redirect[0];
		p->argv = tp->redirect;
	}
	return 0;
}

static void
ts_release(void *arg, struct shellesc_prepared *p)
{
	struct tpol *tp = arg;

	pthread_mutex_lock(&tp->mu);
	tp->released++;
	pthread_mutex_unlock(&tp->mu);
}

static void
ts_ended(void *arg, const struct shellesc_request *req, int code, int sig, double secs)
{
	struct tpol *tp = arg;

	pthread_mutex_lock(&tp->mu);
	tp->ended++;
	tp->ended_code = code;
	tp->ended_sig = sig;
	pthread_cond_broadcast(&tp->cv);
	pthread_mutex_unlock(&tp->mu);
}

struct shellesc_session *
ts_start(struct tpol *tp, const struct shellesc_config *cfg)
{
	struct shellesc_config c = { 0 };
	struct shellesc_session *s = NULL;
	int r;

	if (cfg)
		c = *cfg;
	else
		c.intercept = SHELLESC_INTERCEPT_WRAPPER;	/* no preload library in tests */
	pthread_mutex_init(&tp->mu, NULL);
	pthread_cond_init(&tp->cv, NULL);
	c.policy = ts_policy;
	c.policy_arg = tp;
	c.prepare = ts_prepare;
	c.release = ts_release;
	c.prepare_arg = tp;
	c.ended = ts_ended;
	c.ended_arg = tp;
	if (c.wrapper_path == NULL)
		c.wrapper_path = TEST_WRAPPER;
	r = shellesc_session_start(&c, &s);
	cr_assert_eq(r, 0, "session: %s", strerror(-r));
	return s;
}

void
ts_end(struct shellesc_session *s, struct tpol *tp)
{
	shellesc_session_end(s);
	ts_forget(tp);
	free(tp->history);
	tp->history = NULL;
	tp->history_len = tp->history_cap = 0;
}

void
ts_wait(struct tpol *tp, const int *counter, int n, int ms)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ms / 1000;
	until.tv_nsec += (ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&tp->mu);
	while (*counter < n && pthread_cond_timedwait(&tp->cv, &tp->mu, &until) == 0)
		;
	pthread_mutex_unlock(&tp->mu);
	cr_assert_geq(*counter, n, "only %d of %d events came", *counter, n);
}

bool
ts_req_env_has(struct tpol *tp, const char *entry)
{
	size_t len = strlen(entry);
	bool name_only = entry[len - 1] == '=';

	for (char **e = tp->env; e && *e; e++)
		if (name_only ? strncmp(*e, entry, len) == 0 : strcmp(*e, entry) == 0)
			return true;
	return false;
}

int
ts_history_count(struct tpol *tp, const char *program)
{
	size_t n = strlen(program);
	int count = 0;

	pthread_mutex_lock(&tp->mu);
	for (const char *l = tp->history; l && *l; l = strchr(l, '\n') + 1)
		count += strncmp(l, program, n) == 0 && l[n] == '\n';
	pthread_mutex_unlock(&tp->mu);
	return count;
}

struct criterion_test_params
ts_indexes(size_t n)
{
	static size_t idx[256];

	cr_assert_leq(n, 256);
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	return cr_make_param_array(size_t, idx, n);
}

/* --- in-process clients -------------------------------------------------- */

int
ts_ask(int session_fd, const char *file, char *const argv[], char *const env[],
    struct client_req *req)
{
	struct msg_exec_out e = { .file = file, .argv = argv, .env = env, .pid = getpid() };

	return client_ask(session_fd, &e, req);
}

void
ts_good_request(struct shellesc_session *s)
{
	struct client_req req;
	int r = ts_ask(shellesc_session_client_fd(s), "/bin/true", TS_V("true"),
	    TS_V("TEST_ACTION=run"), &req);

	cr_assert_eq(r, 0, "a good request failed: %s (%s)", client_strerror(r), req.reason);
	cr_assert_eq(req.action, SHELLESC_ACT_RUN);
}

/* --- raw protocol ------------------------------------------------------- */

int
ts_raw_exec(int session_fd, const char *action, const char *file, char *const argv[],
    const char *cwd)
{
	char env[64];
	struct msg_exec_out e = { .file = file, .cwd = cwd, .argv = argv,
	    .env = TS_V(env), .pid = getpid() };
	int stream = handshake_connect(session_fd), r;

	snprintf(env, sizeof(env), "TEST_ACTION=%s", action);
	cr_assert_geq(stream, 0, "handshake: %s", se_strerror(stream));
	cr_assert_eq(r = msg_send_exec(stream, &e), 0, "exec: %s", se_strerror(r));
	return stream;
}

void
ts_raw_expect(int stream, int type, struct msg *m)
{
	struct frame_rx rx;
	int r = th_recv_msg(stream, &rx, 0, m);

	cr_assert_eq(r, 0, "receive: %s", se_strerror(r));
	cr_assert_eq(m->type, type, "message type %d, expected %d", (int)m->type, type);
	frame_rx_reset(&rx);	/* m's views are only read as numbers afterwards */
}

void
ts_raw_refused(int stream, const char *why)
{
	struct frame_rx rx;
	struct msg m;
	int r = th_recv_msg(stream, &rx, 0, &m);

	if (why != NULL) {
		cr_assert_eq(r, 0, "no error frame: %s", se_strerror(r));
		cr_assert_eq(m.type, SHELLESC_MSG_ERROR, "message type %d", (int)m.type);
		cr_assert(memmem(m.message.p, m.message.len, why, strlen(why)) != NULL,
		    "'%.*s' does not say '%s'", (int)m.message.len, m.message.p, why);
		frame_rx_reset(&rx);
		r = th_recv_msg(stream, &rx, 0, &m);
	}
	/* ECONNRESET: the server closed with our bytes still unread. */
	cr_assert(r == SE_ERR_EOF_HEADER || (r == SE_ERR_SYSTEM && errno == ECONNRESET),
	    "the server did not close: %s", se_strerror(r));
	frame_rx_reset(&rx);
	close(stream);
}

void
ts_hold_policy(void *arg, struct shellesc_request *req)
{
	struct ts_hold *h = arg;
	bool hold = !h->only || strcmp(shellesc_request_argv(req)[0], h->only) == 0;
	enum shellesc_action a = hold ? SHELLESC_DENY : SHELLESC_RUN;

	pthread_mutex_lock(&h->mu);
	if (hold && atomic_load(&h->n) < TS_HOLD_MAX) {
		h->held[atomic_load(&h->n)] = req;
		atomic_fetch_add(&h->n, 1);
		req = NULL;
	}
	pthread_mutex_unlock(&h->mu);
	if (req != NULL)
		shellesc_request_decide(req, &(struct shellesc_decision){ .action = a });
}

void
ts_hold_decide(struct ts_hold *h, enum shellesc_action action)
{
	pthread_mutex_lock(&h->mu);
	for (int i = 0; i < atomic_load(&h->n); i++)
		shellesc_request_decide(h->held[i], &(struct shellesc_decision){
		    .action = action, .reason = "test" });
	atomic_store(&h->n, 0);
	pthread_mutex_unlock(&h->mu);
}
