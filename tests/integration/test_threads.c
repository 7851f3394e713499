/* Threads. NTHREADS threads, each with its own
 * event_base and ddp_ctx (as ddp.h allows), each with an MPA listener and
 * an SCTP endpoint, connect in a ring (thread i to thread i+1 over both
 * LLPs) and send NMSG self-checking messages over each; every message is
 * verified on arrival. ROUNDS rounds of create / traffic / free, all
 * threads at once. usrsctp is one process-wide stack: before the library
 * serialised its calls this died in most runs (glibc malloc assertions,
 * SIGSEGV; ASan: heap-buffer-overflow in sctp_inpcb_alloc under
 * ddp_sctp_listen). Runs under ASan (make check-sanitize) and TSan
 * (make check-tsan). Ports: all ephemeral. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include "msgcheck.h"
#include "net_helpers.h"

#ifndef NTHREADS
#define NTHREADS 4
#endif
#ifndef ROUNDS
#define ROUNDS 100
#endif
#define NMSG 8
#define MAXLEN 3000
#define ROUND_S 20.0 /* one round's traffic, at most */

enum { L_MPA, L_SCTP, NLLP };

struct thr {
	int id;
	pthread_t tid;
	struct event_base *base;
	struct event *tick;
	ddp_ctx *ctx;
	ddp_mpa_listener *ml;
	ddp_sctp_ep *se;
	_Atomic int mpa_port, sctp_port; /* published for the previous thread */
	/* client side (to the next thread) */
	ddp_mpa_conn *mc;
	ddp_sctp_assoc *sc;
	ddp_session *sc_s;
	int sc_sent;
	/* server side (from the previous thread) */
	ddp_mpa_conn *ms;
	ddp_sctp_assoc *ss;
	ddp_session *ss_s;
	unsigned round;
	int rx[NLLP], tx_done[NLLP];
	int teardown;
	uint8_t txbuf[NLLP][NMSG][MAXLEN];
	uint8_t rxbuf[NLLP][NMSG][MAXLEN];
	char err[256];
	long msgs;
};

static struct thr T[NTHREADS];
static pthread_barrier_t bar;
static atomic_uint finished; /* threads done with their round's traffic */

static void note_fail(struct thr *t, const char *what, int v)
{
	if (!t->err[0])
		snprintf(t->err, sizeof(t->err), "thread %d round %u: %s (%d)", t->id, t->round,
		         what, v);
}

static uint32_t tag(const struct thr *t, int llp)
{
	return (uint32_t)(t->id * 16 + llp);
}

static size_t msg_len(unsigned round, int k)
{
	return MSGCHECK_MIN + msgcheck_mix(round * 64 + (unsigned)k) % (MAXLEN - MSGCHECK_MIN);
}

/* The receiver checks what the previous thread made: its id. */
static void check_delivery(struct thr *t, int llp, const ddp_delivery *d)
{
	int prev = (t->id + NTHREADS - 1) % NTHREADS;
	int k = t->rx[llp];
	if (d->status < 0) {
		if (!t->teardown)
			note_fail(t, llp == L_MPA ? "MPA buffer returned" : "SCTP buffer returned",
			     d->status);
		return;
	}
	if (k >= NMSG || d->len != msg_len(t->round, k) ||
	    !msgcheck_ok(d->buf, d->len, (uint32_t)(prev * 16 + llp), t->round * NMSG + (unsigned)k)) {
		note_fail(t, llp == L_MPA ? "MPA message corrupt" : "SCTP message corrupt", k);
		return;
	}
	t->rx[llp]++;
	t->msgs++;
}

static void mpa_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s;
	check_delivery(user, L_MPA, d);
}

static void sctp_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s;
	check_delivery(user, L_SCTP, d);
}

static void send_done(struct thr *t, int llp, int status)
{
	if (status < 0) {
		if (!t->teardown)
			note_fail(t, "send failed", status);
		return;
	}
	t->tx_done[llp]++;
}

static void mpa_send_done(ddp_session *s, uint32_t st, void *mc, int status, void *user)
{
	(void)s;
	(void)st;
	(void)mc;
	send_done(user, L_MPA, status);
}

static void sctp_send_done(ddp_session *s, uint32_t st, void *mc, int status, void *user)
{
	(void)s;
	(void)st;
	(void)mc;
	send_done(user, L_SCTP, status);
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	(void)s;
	(void)e;
	if (!((struct thr *)user)->teardown)
		note_fail(user, "DDP error", 0);
}

static const ddp_callbacks mpa_cbs = {
	.deliver = mpa_deliver, .send_done = mpa_send_done, .error = on_error};

static void post_all(struct thr *t, ddp_session *s, int llp, uint32_t stream)
{
	for (int k = 0; k < NMSG; k++) {
		int rc = ddp_post_recv(s, stream, 0, t->rxbuf[llp][k], MAXLEN, NULL);
		if (rc)
			note_fail(t, "post_recv", rc);
	}
}

static void send_all(struct thr *t, ddp_session *s, int llp, uint32_t stream)
{
	for (int k = 0; k < NMSG; k++) {
		size_t n = msg_len(t->round, k);
		struct iovec iov = {t->txbuf[llp][k], n};
		int rc;
		msgcheck_make(t->txbuf[llp][k], tag(t, llp), t->round * NMSG + (unsigned)k, n);
		rc = ddp_send_untagged(s, stream, 0, 0, &iov, 1, NULL);
		if (rc)
			note_fail(t, "send_untagged", rc);
	}
}

/* ---------------------------------------------------------------- MPA */

static void mpa_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct thr *t = user;
	int rc;
	(void)req;
	if (t->ms) {
		note_fail(t, "second MPA connection", 0);
		ddp_mpa_reject(c, NULL, 0);
		return;
	}
	t->ms = c;
	post_all(t, ddp_mpa_session(c), L_MPA, 0);
	rc = ddp_mpa_accept(c, NULL, 0);
	if (rc)
		note_fail(t, "mpa_accept", rc);
}

static void mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct thr *t = user;
	(void)c;
	(void)code;
	if (ev != DDP_MPA_CONNECTED && !t->teardown)
		note_fail(t, "MPA connection failed", err);
}

/* ---------------------------------------------------------------- SCTP */

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct thr *t = user;
	if (status < 0) {
		if (!t->teardown)
			note_fail(t, "SCTP association down", status);
		if (a == t->sc)
			t->sc = NULL, t->sc_s = NULL;
		if (a == t->ss)
			t->ss = NULL, t->ss_s = NULL;
		return;
	}
	if (a == t->sc) {
		int rc;
		t->sc_s = s;
		rc = ddp_sctp_initiate(a, 0, "ring", 4);
		if (rc)
			note_fail(t, "sctp_initiate", rc);
	} else if (!t->ss) {
		t->ss = a;
		t->ss_s = s;
	} else {
		note_fail(t, "second SCTP association", 0);
	}
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                   const void *pd, size_t len, void *user)
{
	struct thr *t = user;
	(void)pd;
	(void)len;
	if (ev == DDP_SCTP_INITIATE && a == t->ss) {
		int rc;
		post_all(t, t->ss_s, L_SCTP, stream);
		rc = ddp_sctp_accept(a, stream, NULL, 0);
		if (rc)
			note_fail(t, "sctp_accept", rc);
	} else if (ev == DDP_SCTP_ACCEPTED && a == t->sc && !t->sc_sent) {
		t->sc_sent = 1;
		send_all(t, t->sc_s, L_SCTP, stream);
	} else if (!t->teardown) {
		note_fail(t, "unexpected session control event", (int)ev * 1000 + status);
	}
}

/* ---------------------------------------------------------------- round */

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
}

static void round_setup(struct thr *t)
{
	ddp_sctp_config sc;
	struct sockaddr_in sa = net_lo(0);
	struct timeval ms5 = {0, 5000};
	int rc;
	memset(t->rx, 0, sizeof(t->rx));
	memset(t->tx_done, 0, sizeof(t->tx_done));
	t->mc = t->ms = NULL;
	t->sc = t->ss = NULL;
	t->sc_s = t->ss_s = NULL;
	t->sc_sent = 0;
	t->teardown = 0;
	t->base = event_base_new();
	/* wakes the loop now and then so the round's end is seen */
	t->tick = event_new(t->base, -1, EV_PERSIST, tick_cb, NULL);
	event_add(t->tick, &ms5);
	if ((rc = ddp_ctx_new(NULL, &t->ctx)))
		note_fail(t, "ctx_new", rc);
	rc = ddp_mpa_listen(t->base, t->ctx, (struct sockaddr *)&sa, sizeof(sa), NULL, &mpa_cbs,
	                    mpa_accept, mpa_event, t, &t->ml);
	if (rc)
		note_fail(t, "mpa_listen", rc);
	memset(&sc, 0, sizeof(sc));
	sc.port = -1;
	sc.nstreams = 4;
	sc.ctx = t->ctx;
	sc.ddp.deliver = sctp_deliver;
	sc.ddp.send_done = sctp_send_done;
	sc.ddp.error = on_error;
	sc.sctp.assoc = on_assoc;
	sc.sctp.session_ctl = on_ctl;
	sc.user = t;
	if ((rc = ddp_sctp_ep_new(t->base, &sc, &t->se)))
		note_fail(t, "sctp_ep_new", rc);
	else if ((rc = ddp_sctp_listen(t->se)))
		note_fail(t, "sctp_listen", rc);
	atomic_store(&t->mpa_port, t->ml ? ddp_mpa_listener_port(t->ml) : 0);
	atomic_store(&t->sctp_port, t->se ? ddp_sctp_ep_port(t->se) : 0);
}

static void round_connect(struct thr *t)
{
	struct thr *n = &T[(t->id + 1) % NTHREADS];
	struct sockaddr_in sa = net_lo(atomic_load(&n->mpa_port));
	int rc;
	if (t->err[0])
		return;
	rc = ddp_mpa_connect(t->base, t->ctx, (struct sockaddr *)&sa, sizeof(sa), NULL, &mpa_cbs,
	                     mpa_event, t, &t->mc);
	if (rc) {
		note_fail(t, "mpa_connect", rc);
		return;
	}
	/* held until full operation */
	send_all(t, ddp_mpa_session(t->mc), L_MPA, 0);
	rc = ddp_sctp_connect(t->se, "127.0.0.1", atomic_load(&n->sctp_port), &t->sc);
	if (rc)
		note_fail(t, "sctp_connect", rc);
}

static int round_done(const struct thr *t)
{
	for (int l = 0; l < NLLP; l++)
		if (t->rx[l] < NMSG || t->tx_done[l] < NMSG)
			return 0;
	return 1;
}

static void round_traffic(struct thr *t)
{
	double end = net_now_s() + ROUND_S;
	while (!t->err[0] && !round_done(t) && net_now_s() < end)
		event_base_loop(t->base, EVLOOP_ONCE);
	if (!t->err[0] && !round_done(t))
		note_fail(t, "round timed out", t->rx[0] * 1000 + t->rx[1]);
}

static void round_free(struct thr *t)
{
	int rc;
	t->teardown = 1;
	ddp_mpa_conn_free(t->mc);
	ddp_mpa_conn_free(t->ms);
	ddp_mpa_listener_free(t->ml);
	ddp_sctp_ep_free(t->se);
	t->mc = t->ms = NULL;
	t->ml = NULL;
	t->se = NULL;
	if ((rc = ddp_ctx_free(t->ctx)))
		note_fail(t, "ctx_free", rc);
	t->ctx = NULL;
	event_free(t->tick);
	event_base_free(t->base);
	t->base = NULL;
}

static void *thread_main(void *arg)
{
	struct thr *t = arg;
	for (unsigned r = 0; r < ROUNDS; r++) {
		t->round = r;
		round_setup(t);
		pthread_barrier_wait(&bar); /* every port is published */
		round_connect(t);
		round_traffic(t);
		/* every message arrived. Keep the loop running meanwhile: the
		 * others' traffic may still need this thread (usrsctp is one
		 * stack; another thread's call into it can leave packets and
		 * wake-ups for this thread's endpoint, served by its loop) */
		t->teardown = 1; /* the others may free theirs now */
		atomic_fetch_add(&finished, 1);
		while (atomic_load(&finished) < (r + 1) * NTHREADS)
			event_base_loop(t->base, EVLOOP_ONCE);
		round_free(t);
		pthread_barrier_wait(&bar);
	}
	return NULL;
}

static void test_threads_ring_of_mpa_and_sctp_endpoints(void **st)
{
	double t0 = net_now_s();
	long total = 0;
	(void)st;
	pthread_barrier_init(&bar, NULL, NTHREADS);
	atomic_store(&finished, 0);
	for (int i = 0; i < NTHREADS; i++) {
		memset(&T[i], 0, sizeof(T[i]));
		T[i].id = i;
	}
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_create(&T[i].tid, NULL, thread_main, &T[i]), 0);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(T[i].tid, NULL);
	pthread_barrier_destroy(&bar);
	for (int i = 0; i < NTHREADS; i++) {
		if (T[i].err[0])
			print_message("%s\n", T[i].err);
		total += T[i].msgs;
	}
	print_message("%d threads x %d rounds: %ld messages verified in %.1f s\n", NTHREADS,
	              ROUNDS, total, net_now_s() - t0);
	for (int i = 0; i < NTHREADS; i++)
		assert_string_equal(T[i].err, "");
	assert_int_equal(total, (long)NTHREADS * ROUNDS * NLLP * NMSG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_threads_ring_of_mpa_and_sctp_endpoints),
	};
	alarm(120);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
