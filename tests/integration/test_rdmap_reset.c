/*
 * test_rdmap_reset: a lost connection is not a received Terminate. Over
 * real MPA/TCP on 127.0.0.1, side 0 asks side 1 for an RDMA Read of 16 MiB;
 * once side 1 has queued the Response (side 0's loop is not run, so its
 * socket is not read and the Response stays in the middle of its way),
 * side 0's connection is freed: its socket is closed with SO_LINGER 0, a
 * TCP reset. Side 1's queue pair must then report the end with t = NULL
 * (ddp/rdmap.h: the LLP failed), never a Terminate the peer did not send.
 * Repeated with side 0 reading for 0..2 ms first, so the reset lands at
 * different points of the Response; bounded in count and time (alarm).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/mpa.h>
#include <ddp/rdmap.h>

#include "net_helpers.h"

#define LEN    (16u << 20)
#define ROUNDS 40
#define MAX_S  15.0

/* One end, on its own event loop (side 0's is not run while side 1
 * queues the Response). */
struct side {
	ddp_mpa_conn *conn; /* one per round */
	ddp_session *s;
	ddp_rdmap_qp *qp;
	int nterm, term_null, term_rx, term_tx; /* the terminate callback */
	int failed;                             /* its MPA connection ended */
	struct event_base *base;                /* for the whole test */
	ddp_ctx *ctx;
	ddp_rdmap_dev *dev;
};

static struct {
	struct side sd[2];
	ddp_mpa_listener *lst;
	ddp_callbacks cb; /* the RDMAP dispatcher's (ddp_rdmap_dev_callbacks) */
	uint8_t *src, *sink;
} P;

/* Both ends: MPA revision 2, one Read each way at a time. */
static const ddp_mpa_config mcfg = {.revision = 2, .ird = 1, .ord = 1};

static struct side *side_of_dev(void *dev)
{
	return dev == P.sd[0].dev ? &P.sd[0] : &P.sd[1];
}

static void on_complete(ddp_rdmap_qp *qp, const ddp_rdmap_wc *wc, void *user)
{
	(void)qp, (void)wc, (void)user;
}

static void on_term(ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent, void *user)
{
	struct side *s = user;
	(void)qp;
	s->nterm++;
	if (!t)
		s->term_null++;
	else if (sent)
		s->term_tx++;
	else
		s->term_rx++;
}

static const ddp_rdmap_callbacks qcb = {on_complete, on_term};

static void mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct side *s = side_of_dev(user);
	(void)err, (void)code;
	if (ev != DDP_MPA_CONNECTED) {
		s->failed = 1; /* freed by the round that made it */
		return;
	}
	s->conn = c;
	s->s = ddp_mpa_session(c);
	ddp_rdmap_config rc = {.ird = 1, .ord = 1};
	assert_int_equal(ddp_rdmap_qp_new(s->dev, s->s, 0, &rc, &qcb, s, &s->qp), 0);
}

/* Turns of half a millisecond for the loop of each side in mask (bit i:
 * side i) until done() holds or secs passed. Returns done(). */
static int run(int mask, int (*done)(void), double secs)
{
	double end = net_now_s() + secs;
	while (!(done && done()) && net_now_s() < end)
		for (int i = 0; i < 2; i++)
			if (mask & (1 << i))
				net_run_for(P.sd[i].base, 0.0005);
	return done ? done() : 1;
}

static int qps_up(void)
{
	return P.sd[0].qp && P.sd[1].qp;
}
static int resp_queued(void)
{
	return ddp_stream_queued(P.sd[1].s, 0, NULL) > 0;
}
static int side1_ended(void)
{
	return P.sd[1].nterm > 0;
}

/* One round: connect, Read, reset in the middle of the Response. Returns
 * 1 when the reset came while side 1 still had Response octets queued. */
static int one_round(int read_ms)
{
	struct side *a = &P.sd[0], *b = &P.sd[1];
	for (int i = 0; i < 2; i++) {
		struct side *s = &P.sd[i];
		s->qp = NULL;
		s->s = NULL;
		s->conn = NULL;
		s->nterm = s->failed = 0;
	}
	struct sockaddr_in sa = net_lo(ddp_mpa_listener_port(P.lst));
	ddp_mpa_conn *conn;
	assert_int_equal(ddp_mpa_connect(a->base, a->ctx, (struct sockaddr *)&sa, sizeof(sa), &mcfg,
	                                 &P.cb, mpa_event, a->dev, &conn),
	                 0);
	a->conn = conn;
	assert_true(run(3, qps_up, 5));

	uint32_t src_stag, sink_stag;
	ddp_mr_attr m = {
	    .addr = P.src, .len = LEN, .access = DDP_ACCESS_REMOTE_READ, .session = b->s};
	assert_int_equal(ddp_stag_register(b->ctx, &m, &src_stag), 0);
	ddp_mr_attr k = {
	    .addr = P.sink, .len = LEN, .access = DDP_ACCESS_REMOTE_WRITE, .session = a->s};
	assert_int_equal(ddp_stag_register(a->ctx, &k, &sink_stag), 0);
	assert_int_equal(ddp_rdmap_post_read(a->qp, sink_stag, 0, src_stag, 0, LEN, NULL), 0);
	assert_true(run(3, resp_queued, 5));
	run(3, NULL, read_ms / 1000.0); /* side 0 takes some of it */
	run(2, NULL, 0.002);
	int mid = resp_queued();

	/* side 0 goes away: SO_LINGER 0 and close, a TCP reset */
	ddp_rdmap_qp_free(a->qp);
	a->qp = NULL;
	ddp_mpa_conn_free(a->conn);
	a->conn = NULL;
	assert_true(run(2, side1_ended, 5));
	assert_int_equal(b->nterm, 1);

	ddp_rdmap_qp_free(b->qp);
	b->qp = NULL;
	ddp_stag_invalidate(b->ctx, src_stag);
	ddp_stag_invalidate(a->ctx, sink_stag);
	ddp_mpa_conn_free(b->conn);
	b->conn = NULL;
	run(3, NULL, 0.001);
	return mid;
}

static void test_rdmap_reset_mid_read_response_reports_no_terminate(void **st)
{
	(void)st;
	memset(&P, 0, sizeof(P));
	alarm(60);
	P.src = malloc(LEN);
	P.sink = calloc(1, LEN);
	assert_true(P.src && P.sink);
	memset(P.src, 0xA5, LEN);
	ddp_rdmap_dev_callbacks(&P.cb);
	for (int i = 0; i < 2; i++) {
		P.sd[i].base = event_base_new();
		assert_non_null(P.sd[i].base);
		assert_int_equal(ddp_ctx_new(NULL, &P.sd[i].ctx), 0);
		assert_int_equal(ddp_rdmap_dev_new(P.sd[i].ctx, NULL, NULL, &P.sd[i].dev), 0);
	}
	struct sockaddr_in lo = net_lo(0);
	assert_int_equal(ddp_mpa_listen(P.sd[1].base, P.sd[1].ctx, (struct sockaddr *)&lo,
	                                sizeof(lo), &mcfg, &P.cb, NULL, mpa_event, P.sd[1].dev,
	                                &P.lst),
	                 0);

	double t0 = net_now_s();
	int rounds = 0, mid = 0, null = 0, rx = 0, tx = 0;
	while (rounds < ROUNDS && net_now_s() - t0 < MAX_S) {
		mid += one_round(rounds % 3);
		null += P.sd[1].term_null;
		rx += P.sd[1].term_rx;
		tx += P.sd[1].term_tx;
		P.sd[1].term_null = P.sd[1].term_rx = P.sd[1].term_tx = 0;
		rounds++;
	}
	print_message("%d rounds in %.0f ms, %d reset mid-Response: %d ended with t = NULL, "
	              "%d with a received Terminate, %d with one sent\n",
	              rounds, (net_now_s() - t0) * 1000, mid, null, rx, tx);
	assert_true(rounds >= 10);
	assert_true(mid >= rounds / 2); /* the case under test did happen */
	assert_int_equal(rx, 0);        /* no Terminate the peer never sent */
	assert_int_equal(tx, 0);        /* nor one of ours: there is no peer left */
	assert_int_equal(null, rounds);

	ddp_mpa_listener_free(P.lst);
	for (int i = 0; i < 2; i++) {
		event_base_loop(P.sd[i].base, EVLOOP_NONBLOCK);
		assert_int_equal(ddp_rdmap_dev_free(P.sd[i].dev), 0);
		assert_int_equal(ddp_ctx_free(P.sd[i].ctx), 0);
		event_base_free(P.sd[i].base);
	}
	free(P.src);
	free(P.sink);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rdmap_reset_mid_read_response_reports_no_terminate),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
