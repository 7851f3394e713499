/*
 * The callback rule of ddp.h ("Callbacks"), proven on both LLPs: every
 * public call that can reach a live connection, session, stream, STag or
 * queue pair runs here with a marker naming it, and every callback checks
 * the marker against one table, the rule encoded once
 * (tests/support/callback_rule.h): a callback inside a call the table does
 * not allow it for fails the test. Each LLP's own calls are in
 * test_callback_rule_llp. The same ULP runs
 * over MPA/TCP and over SCTP (usrsctp, UDP-encapsulated) on 127.0.0.1
 * through the one adapter model, with RDMAP queue pairs on some of the
 * connections. Also: closing every session of a list in a loop without
 * saving `next` first (down() frees the node) uses no freed memory (run
 * it under ASan: make check-sanitize).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/rdmap.h>
#include <ddp/sctp.h>

#include "net_helpers.h"

#include "callback_rule.h"

/* ------------------------------------------------------------ the ULP */

#define NCONN   9          /* connections per LLP */
#define NLOOPED 4          /* of them, closed in the list loop */
#define BIG     (1u << 20) /* a message that keeps MPA's queue busy */

/* A connection's end, listed while it is up; down() unlinks and frees it. */
struct end {
	struct end *next, *prev;
	ddp_session *s;
	int client, idx;
	uint8_t buf[4][256];
};

static struct {
	struct event_base *base;
	ddp_ctx *ctx;
	struct end *srv; /* server ends up now */
	struct end *cli[NCONN];
	int ncli, nsrv, opens, downs, delivered, sent, writables, released, errors;
	ddp_listener *ls;
	/* RDMAP over the one adapter model */
	ddp_rdmap_dev *dev;
	ddp_rdmap_qp *qp[2];
	ddp_session *qs[2];
	int qopens, qdowns, completes;
} T;

static uint8_t payload[BIG];
static uint8_t tagged_buf[4096];

static void unlink_end(struct end *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else if (T.srv == e)
		T.srv = e->next;
	if (e->next)
		e->next->prev = e->prev;
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)user;
	saw(CB_DELIVER);
	if (d->status == 0)
		T.delivered++;
}

static void send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	(void)s, (void)stream, (void)ctx, (void)status, (void)user;
	saw(CB_SEND_DONE);
	T.sent++;
}

static void error_cb(ddp_session *s, const ddp_error_info *e, void *user)
{
	(void)s, (void)e, (void)user;
	saw(CB_ERROR);
	T.errors++;
}

static void stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev, int status,
                         void *user)
{
	(void)status, (void)user;
	saw(CB_STREAM_EVENT);
	if (ev == DDP_EV_HALF_CLOSED)
		CALL("ddp_stream_close", ddp_stream_close(s, stream));
}

static void writable(ddp_session *s, uint32_t stream, void *user)
{
	(void)s, (void)stream, (void)user;
	saw(CB_WRITABLE);
	T.writables++;
}

static void up(ddp_session *s, void *user)
{
	saw(CB_UP);
	if (user) { /* a client: its end exists already */
		((struct end *)user)->s = s;
		return;
	}
	struct end *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	e->s = s;
	e->idx = T.nsrv++;
	e->next = T.srv;
	if (T.srv)
		T.srv->prev = e;
	T.srv = e;
	VCALL("ddp_session_set_user_data", ddp_session_set_user_data(s, e));
}

static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	struct end *e = user ? user : ddp_session_user_data(s);
	saw(CB_STREAM_OPEN);
	T.opens++;
	for (int i = 0; i < 4; i++)
		assert_int_equal(CALL("ddp_post_recv", ddp_post_recv(s, stream, 0, e->buf[i],
		                                                     sizeof(e->buf[i]), NULL)),
		                 0);
}

static void down(ddp_session *s, int status, void *user)
{
	(void)status;
	saw(CB_DOWN);
	T.downs++;
	if (user) {
		((struct end *)user)->s = NULL;
		return;
	}
	struct end *e = s ? ddp_session_user_data(s) : NULL;
	if (e) {
		unlink_end(e);
		memset(e, 0xdb, sizeof(*e)); /* a use after this is visible */
		free(e);
	}
}

static const ddp_conn_callbacks ulp = {
    .ddp = {.deliver = deliver,
            .send_done = send_done,
            .error = error_cb,
            .stream_event = stream_event,
            .writable = writable},
    .up = up,
    .stream_open = stream_open,
    .down = down,
};

static void released(ddp_ctx *ctx, uint32_t stag, void *addr, void *user)
{
	(void)ctx, (void)stag, (void)addr, (void)user;
	saw(CB_RELEASED);
	T.released++;
}

/* ------------------------------------------------------------ RDMAP */

static void q_complete(ddp_rdmap_qp *qp, const ddp_rdmap_wc *wc, void *user)
{
	(void)qp, (void)wc, (void)user;
	saw(CB_COMPLETE);
	T.completes++;
}

static void q_terminate(ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent, void *user)
{
	(void)qp, (void)t, (void)sent, (void)user;
	saw(CB_TERMINATE);
}

static const ddp_rdmap_callbacks qcb = {q_complete, q_terminate};

/* The one adapter model's callbacks with libddp-rdmap on the data path:
 * user is the dispatcher. Side 0 connects, side 1 listens. */
static int q_side(ddp_session *s)
{
	return s == T.qs[0] ? 0 : 1;
}

static void q_up(ddp_session *s, void *user)
{
	(void)user;
	saw(CB_UP);
	T.qs[T.qs[0] ? 1 : 0] = s;
}

static uint8_t q_rbuf[2][4][256];

static void q_open(ddp_session *s, uint32_t stream, void *user)
{
	saw(CB_STREAM_OPEN);
	int k = q_side(s);
	ddp_rdmap_config c = {.ird = 2, .ord = 2};
	assert_int_equal(
	    CALL("ddp_rdmap_qp_new", ddp_rdmap_qp_new(user, s, stream, &c, &qcb, NULL, &T.qp[k])),
	    0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(CALL("ddp_rdmap_post_recv",
		                      ddp_rdmap_post_recv(T.qp[k], q_rbuf[k][i], 256, NULL)),
		                 0);
	T.qopens++;
}

static void q_down(ddp_session *s, int status, void *user)
{
	(void)status, (void)user;
	saw(CB_DOWN);
	T.qdowns++;
	for (int k = 0; k < 2; k++)
		if (s && s == T.qs[k] && T.qp[k]) {
			/* the queue pair goes before its session (rdmap.h) */
			CALL("ddp_rdmap_qp_free", ddp_rdmap_qp_free(T.qp[k]));
			T.qp[k] = NULL;
		}
}

/* ------------------------------------------------------------ helpers */

static void run_until(const int *v, int want, double secs)
{
	double end = net_now_s() + secs;
	while (*v < want && net_now_s() < end)
		net_run_for(T.base, 0.01);
}

static const ddp_sctp_config sctp_cfg = {.nstreams = 1};

static int listen_on(enum llp l, const ddp_conn_callbacks *cb, void *user, ddp_listener **out)
{
	int rc = l == MPA
	             ? CALL("ddp_mpa_listen_on",
	                    ddp_mpa_listen_on(T.base, T.ctx, "127.0.0.1", 0, NULL, cb, user, out))
	             : CALL("ddp_sctp_listen_on", ddp_sctp_listen_on(T.base, T.ctx, "127.0.0.1", 0,
	                                                             &sctp_cfg, cb, user, out));
	assert_int_equal(rc, 0);
	return CALL("ddp_listener_port", ddp_listener_port(*out));
}

static void connect_to(enum llp l, int port, const ddp_conn_callbacks *cb, void *user)
{
	int rc = l == MPA
	             ? CALL("ddp_mpa_connect_to",
	                    ddp_mpa_connect_to(T.base, T.ctx, "127.0.0.1", port, NULL, cb, user))
	             : CALL("ddp_sctp_connect_to", ddp_sctp_connect_to(T.base, T.ctx, "127.0.0.1",
	                                                               port, &sctp_cfg, cb, user));
	assert_int_equal(rc, 0);
}

/* A peer that never answers: a TCP listener that never speaks MPA, a UDP
 * socket that never reads (no ICMP either). Returns its fd. */
static int silent_peer(enum llp l, int *port)
{
	if (l == MPA) {
		int fd = net_raw_listener(port);
		assert_true(fd >= 0);
		return fd;
	}
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in sa = net_lo(0);
	socklen_t sl = sizeof(sa);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* A connect given up at once and one given up while under way (a peer
 * that never answers: it would end in down() much later): nothing calls
 * back, in the call or later. */
static void cancelled_connects(enum llp l)
{
	int port;
	int fd = silent_peer(l, &port);
	struct sockaddr_in sa = net_lo(port);
	ddp_connecting *h = NULL;
	for (int i = 0; i < 2; i++) {
		int rc = l == MPA
		             ? CALL("ddp_mpa_connect_addr",
		                    ddp_mpa_connect_addr(T.base, T.ctx, (struct sockaddr *)&sa,
		                                         sizeof(sa), NULL, &ulp, NULL, &h))
		             : CALL("ddp_sctp_connect_addr",
		                    ddp_sctp_connect_addr(T.base, T.ctx, (struct sockaddr *)&sa,
		                                          sizeof(sa), &sctp_cfg, &ulp, NULL, &h));
		assert_int_equal(rc, 0);
		if (i)
			net_run_for(T.base, 0.05);
		VCALL("ddp_connect_cancel", ddp_connect_cancel(h));
	}
	net_run_for(T.base, 0.02);
	close(fd);
}

/* ------------------------------------------------------------ the run */

static void run_llp(enum llp l)
{
	memset(&T, 0, sizeof(T));
	memset(allowed_hits, 0, sizeof(allowed_hits));
	violations = 0;
	cur = l;
	T.base = event_base_new();
	assert_non_null(T.base);
	assert_int_equal(CALL("ddp_ctx_new", ddp_ctx_new(NULL, &T.ctx)), 0);

	/* set up NCONN connections, plus one with RDMAP queue pairs */
	int port = listen_on(l, &ulp, NULL, &T.ls);
	for (int i = 0; i < NCONN; i++) {
		T.cli[i] = calloc(1, sizeof(struct end));
		assert_non_null(T.cli[i]);
		T.cli[i]->client = 1;
		T.cli[i]->idx = i;
		connect_to(l, port, &ulp, T.cli[i]);
	}
	cancelled_connects(l);
	assert_int_equal(CALL("ddp_rdmap_dev_new", ddp_rdmap_dev_new(T.ctx, NULL, NULL, &T.dev)),
	                 0);
	ddp_conn_callbacks qulp = {.up = q_up, .stream_open = q_open, .down = q_down};
	VCALL("ddp_rdmap_dev_callbacks", ddp_rdmap_dev_callbacks(&qulp.ddp));
	ddp_listener *qls;
	int qport = listen_on(l, &qulp, T.dev, &qls);
	connect_to(l, qport, &qulp, T.dev);
	run_until(&T.opens, 2 * NCONN, 20);
	run_until(&T.qopens, 2, 20);
	assert_int_equal(T.opens, 2 * NCONN);
	assert_int_equal(T.qopens, 2);
	no_violation("set-up");

	/* the data path: sends, posts, a tagged write, STags */
	uint32_t stag;
	struct end *se = T.srv;
	ddp_mr_attr mr = {.addr = tagged_buf,
	                  .len = sizeof(tagged_buf),
	                  .access = DDP_ACCESS_REMOTE_WRITE,
	                  .session = se->s,
	                  .released = released};
	assert_int_equal(CALL("ddp_stag_register", ddp_stag_register(T.ctx, &mr, &stag)), 0);
	struct iovec v = {payload, 100};
	int want = T.delivered;
	for (int i = 0; i < NCONN; i++) {
		ddp_session *s = T.cli[i]->s;
		assert_int_equal(
		    CALL("ddp_send_untagged", ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL)), 0);
		want++;
		char a[64];
		ddp_stats st;
		assert_int_equal(CALL("ddp_session_addr", ddp_session_addr(s, 1, a, sizeof(a))), 0);
		assert_int_equal(CALL("ddp_stream_get_stats", ddp_stream_get_stats(s, 0, &st)), 0);
		assert_int_equal(CALL("ddp_session_get_stats", ddp_session_get_stats(s, &st)), 0);
		(void)CALL("ddp_stream_queued", ddp_stream_queued(s, 0, NULL));
	}
	run_until(&T.delivered, want, 10);
	assert_int_equal(T.delivered, want);
	/* a tagged write from the client whose peer is bound to the STag */
	char peer[64], local[64];
	ddp_session *tc = NULL;
	assert_int_equal(ddp_session_addr(se->s, 1, peer, sizeof(peer)), 0);
	for (int i = 0; i < NCONN && !tc; i++)
		if (ddp_session_addr(T.cli[i]->s, 0, local, sizeof(local)) == 0 &&
		    !strcmp(strrchr(local, ':'), strrchr(peer, ':'))) /* the port */
			tc = T.cli[i]->s;
	assert_non_null(tc);
	struct iovec tv = {payload, 64};
	int sent0 = T.sent;
	assert_int_equal(CALL("ddp_send_tagged", ddp_send_tagged(tc, 0, stag, 0, 0, &tv, 1, NULL)),
	                 0);
	run_until(&T.sent, sent0 + 1, 10);
	assert_int_equal(
	    CALL("ddp_stag_set_access", ddp_stag_set_access(T.ctx, stag, DDP_ACCESS_REMOTE_WRITE)),
	    0);
	assert_int_equal(CALL("ddp_stag_invalidate", ddp_stag_invalidate(T.ctx, stag)), 0);
	assert_int_equal(T.released, 1); /* inside the call, as the table allows */

	/* backpressure: a big message, then ask for writable */
	struct iovec bv = {payload, BIG};
	ddp_session *c0 = T.cli[0]->s;
	assert_int_equal(CALL("ddp_send_untagged", ddp_send_untagged(c0, 0, 1, 0, &bv, 1, NULL)),
	                 0);
	int wr = CALL("ddp_stream_notify_writable", ddp_stream_notify_writable(c0, 0, 0));
	assert_true(wr == 0 || wr == 1);
	if (wr == 0)
		run_until(&T.writables, 1, 10);

	/* RDMAP: a Send and a Write each way, then a Read */
	uint32_t qstag;
	static uint8_t qbuf[4096];
	ddp_mr_attr qmr = {.addr = qbuf,
	                   .len = sizeof(qbuf),
	                   .access = DDP_ACCESS_REMOTE_WRITE | DDP_ACCESS_REMOTE_READ,
	                   .session = T.qs[1],
	                   .released = released};
	assert_int_equal(CALL("ddp_stag_register", ddp_stag_register(T.ctx, &qmr, &qstag)), 0);
	uint32_t sink;
	static uint8_t sinkbuf[4096];
	ddp_mr_attr smr = {.addr = sinkbuf,
	                   .len = sizeof(sinkbuf),
	                   .access = DDP_ACCESS_REMOTE_WRITE,
	                   .session = T.qs[0],
	                   .released = released};
	assert_int_equal(CALL("ddp_stag_register", ddp_stag_register(T.ctx, &smr, &sink)), 0);
	int c_before = T.completes;
	/* both ways: over MPA the Responder's first FPDU waits for the
	 * Initiator's (RFC 5044 §7.1.4), and either end may be qp[0] */
	for (int k = 0; k < 2; k++)
		assert_int_equal(
		    CALL("ddp_rdmap_post_send", ddp_rdmap_post_send(T.qp[k], 0, 0, &tv, 1, NULL)),
		    0);
	run_until(&T.completes, c_before + 4, 10); /* 2 sends, 2 receives */
	assert_int_equal(T.completes, c_before + 4);
	c_before = T.completes;
	assert_int_equal(
	    CALL("ddp_rdmap_post_write", ddp_rdmap_post_write(T.qp[0], qstag, 0, &tv, 1, NULL)), 0);
	assert_int_equal(
	    CALL("ddp_rdmap_post_read", ddp_rdmap_post_read(T.qp[0], sink, 0, qstag, 0, 64, NULL)),
	    0);
	(void)CALL("ddp_rdmap_qp_failed", ddp_rdmap_qp_failed(T.qp[0]));
	run_until(&T.completes, c_before + 2, 10); /* write, read */
	assert_int_equal(T.completes, c_before + 2);
	no_violation("data path");

	/* the ends, one call each, on connections with work queued */
	for (int i = 0; i < 5; i++)
		assert_int_equal(
		    CALL("ddp_send_untagged", ddp_send_untagged(T.cli[i]->s, 0, 0, 0, &v, 1, NULL)),
		    0);
	assert_int_equal(CALL("ddp_session_close(s, 0)", ddp_session_close(T.cli[0]->s, 0)), 0);
	assert_int_equal(CALL("ddp_session_close(s, 1)", ddp_session_close(T.cli[1]->s, 1)), 0);
	assert_int_equal(CALL("ddp_stream_abort", ddp_stream_abort(T.cli[2]->s, 0)), 0);
	assert_int_equal(
	    CALL("ddp_session_close_deadline", ddp_session_close_deadline(T.cli[3]->s, 50)), 0);
	assert_int_equal(CALL("ddp_stream_close", ddp_stream_close(T.cli[4]->s, 0)), 0);
	run_until(&T.downs, 10, 20);
	assert_int_equal(T.downs, 10);
	no_violation("ends");

	/* the listener goes while connections live on */
	VCALL("ddp_listener_free", ddp_listener_free(T.ls));
	T.ls = NULL;

	/* every server session in the list closed in a loop, `next` read
	 * after the close: down() frees the node, so a down() inside the
	 * close would make this a use after free */
	assert_int_equal(T.nsrv, NCONN);
	int looped = 0;
	for (struct end *e = T.srv; e; e = e->next) {
		assert_int_equal(CALL("ddp_session_close(s, 1)", ddp_session_close(e->s, 1)), 0);
		looped++;
	}
	assert_int_equal(looped, NLOOPED);
	run_until(&T.downs, 2 * NCONN, 20);
	assert_int_equal(T.downs, 2 * NCONN);
	no_violation("list loop");

	/* RDMAP ends: one queue pair freed with work queued (its flush runs
	 * inside, as the table allows), the other's session aborted with
	 * work queued (the queue pair reports the flush inside the close);
	 * down() frees that one */
	assert_int_equal(
	    CALL("ddp_rdmap_post_send", ddp_rdmap_post_send(T.qp[1], 0, 0, &bv, 1, NULL)), 0);
	assert_int_equal(CALL("ddp_rdmap_qp_free", ddp_rdmap_qp_free(T.qp[1])), 0);
	T.qp[1] = NULL;
	int qc = allowed_hits[CB_COMPLETE];
	assert_int_equal(
	    CALL("ddp_rdmap_post_send", ddp_rdmap_post_send(T.qp[0], 0, 0, &bv, 1, NULL)), 0);
	assert_int_equal(CALL("ddp_session_close(s, 1)", ddp_session_close(T.qs[0], 1)), 0);
	assert_true(allowed_hits[CB_COMPLETE] > qc);
	run_until(&T.qdowns, 2, 20);
	assert_int_equal(T.qdowns, 2);
	VCALL("ddp_listener_free", ddp_listener_free(qls));
	assert_int_equal(CALL("ddp_rdmap_dev_free", ddp_rdmap_dev_free(T.dev)), 0);
	no_violation("RDMAP ends");

	print_message("%s: allowed callbacks seen inside calls: deliver %d, send_done %d, "
	              "stream_event %d, released %d, complete %d\n",
	              llp_name[l], allowed_hits[CB_DELIVER], allowed_hits[CB_SEND_DONE],
	              allowed_hits[CB_STREAM_EVENT], allowed_hits[CB_RELEASED],
	              allowed_hits[CB_COMPLETE]);
	/* the table's allowances are exercised, not vacuous */
	assert_true(allowed_hits[CB_DELIVER] > 0);
	assert_true(allowed_hits[CB_SEND_DONE] > 0);
	assert_true(allowed_hits[CB_STREAM_EVENT] > 0);
	assert_true(allowed_hits[CB_RELEASED] > 0);

	for (int i = 0; i < NCONN; i++)
		free(T.cli[i]);
	net_run_for(T.base, 0.05); /* the adapters' deferred frees */
	assert_int_equal(CALL("ddp_ctx_free", ddp_ctx_free(T.ctx)), 0);
	event_base_free(T.base);
}

static void test_no_callback_inside_a_call_the_rule_forbids_mpa(void **state)
{
	(void)state;
	run_llp(MPA);
}

static void test_no_callback_inside_a_call_the_rule_forbids_sctp(void **state)
{
	(void)state;
	run_llp(SCTP);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(payload); i++)
		payload[i] = (uint8_t)i;
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_callback_inside_a_call_the_rule_forbids_mpa),
	    cmocka_unit_test(test_no_callback_inside_a_call_the_rule_forbids_sctp),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
