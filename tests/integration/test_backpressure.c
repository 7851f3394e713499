/*
 * Backpressure on the wire: a client pipelines more messages than its send
 * queue holds (ddp_session_config.max_tx_queued messages, or
 * max_tx_octets octets: the same limit on both LLPs). Each send
 * refused with DDP_ERR_LIMIT arms the writable callback; the client stops
 * and resumes from it. Every message arrives, in order, on both LLPs; the
 * queued-octets query and the counters agree with what was sent.
 * Real TCP sockets and real usrsctp associations on 127.0.0.1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <event2/event.h>
#include <netinet/in.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>

#include "net_helpers.h"

#define NBUF 64
#define MAXSZ 65536

struct end {
	struct event_base *base;
	ddp_session *s;
	int is_client;
	size_t size;   /* message size */
	unsigned total; /* messages to send */
	unsigned sent, got, limits, writables, bad, done;
	uint64_t peak; /* client: most octets queued at once */
	uint8_t *rbuf;  /* server: NBUF buffers of size */
};

static struct end srv, cli;
static uint8_t sbuf[MAXSZ];

static void pump(struct end *e)
{
	while (e->sent < e->total) {
		struct iovec iov = { sbuf, e->size };
		int rc = ddp_send_untagged(e->s, 0, 0, e->sent, &iov, 1, NULL);
		if (rc == DDP_ERR_LIMIT) {
			e->limits++; /* the writable callback resumes */
			return;
		}
		assert_int_equal(rc, 0);
		e->sent++;
		uint64_t q = ddp_stream_queued(e->s, 0, NULL);
		if (q > e->peak)
			e->peak = q;
	}
}

static void on_writable(ddp_session *s, uint32_t stream, void *user)
{
	struct end *e = user;
	(void)s;
	assert_int_equal(stream, 0);
	e->writables++;
	pump(e);
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct end *e = user;
	if (d->status)
		return;
	if (d->rsvdulp != e->got || d->len != e->size)
		e->bad++;
	e->got++;
	ddp_post_recv(s, 0, 0, d->buf, d->buf_len, NULL);
	if (e->got == e->total)
		event_base_loopbreak(e->base);
}

static const ddp_callbacks cbs = {
	.deliver = on_deliver, .writable = on_writable,
};

static void post_all(struct end *e)
{
	for (unsigned i = 0; i < NBUF; i++)
		assert_int_equal(ddp_post_recv(e->s, 0, 0, e->rbuf + i * e->size, e->size, NULL), 0);
}

static void setup_ends(struct event_base *base, size_t size, unsigned total)
{
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	srv.base = cli.base = base;
	srv.size = cli.size = size;
	srv.total = cli.total = total;
	cli.is_client = 1;
	srv.rbuf = malloc(NBUF * size);
	assert_non_null(srv.rbuf);
}

static void check_ends(void)
{
	ddp_stats st;
	assert_int_equal(cli.sent, cli.total);
	assert_true(cli.limits > 0);	 /* the queue did fill */
	assert_int_equal(cli.writables, cli.limits); /* one call per refusal */
	assert_int_equal(srv.got, srv.total);
	assert_int_equal(srv.bad, 0);
	assert_int_equal(ddp_stream_get_stats(srv.s, 0, &st), 0);
	assert_int_equal(st.msgs_rx, srv.total);
	assert_int_equal(st.octets_rx, (uint64_t)srv.total * srv.size);
	assert_int_equal(ddp_stream_get_stats(cli.s, 0, &st), 0);
	assert_int_equal(st.msgs_tx + st.queued_msgs, cli.total);
	assert_int_equal(ddp_stream_queued(cli.s, 0, NULL), st.queued_octets);
	free(srv.rbuf);
}

/* --------------------------------------------------------------- MPA */

static ddp_mpa_conn *mconn[2];

static void m_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct end *e = user;
	(void)err, (void)code;
	mconn[e->is_client] = c;
	if (ev != DDP_MPA_CONNECTED) {
		e->done = 1;
		event_base_loopbreak(e->base);
		return;
	}
	e->s = ddp_mpa_session(c);
	if (e->is_client)
		pump(e);
	else
		post_all(e);
}

/* max_txq messages or max_octets octets per stream */
static void mpa_pipeline(size_t size, unsigned total, uint32_t max_txq, uint64_t max_octets)
{
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	setup_ends(base, size, total);
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_config cfg = { .revision = 2 };
	cfg.session.max_tx_queued = max_txq;
	cfg.session.max_tx_octets = max_octets;
	ddp_mpa_listener *l;
	assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg, &cbs,
					NULL, m_event, &srv, &l),
			 0);
	sa = net_lo(ddp_mpa_listener_port(l));
	ddp_mpa_conn *c;
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg, &cbs,
					 m_event, &cli, &c),
			 0);
	net_run_for(base, 20);
	check_ends();
	ddp_mpa_listener_free(l);
	ddp_mpa_conn_free(c);
	ddp_mpa_conn_free(mconn[0]);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

static void test_mpa_pipeline_past_the_queue(void **state)
{
	(void)state;
	/* the case: 5,000 requests; a queue of 64 messages makes
	 * the refusals certain whatever the socket buffers take */
	mpa_pipeline(256, 5000, 64, 0);
}

/* The octet limit: 16 KiB messages against 256 KiB per stream. Before
 * it, only the message count bounded a sender (4,096 x 16 KiB = 64 MiB
 * of the caller's memory queued over MPA). */
static void test_mpa_octet_limit(void **state)
{
	(void)state;
	mpa_pipeline(16384, 2000, 0, 256 << 10);
	print_message("MPA: peak queued %llu octets, %u refusals\n",
		      (unsigned long long)cli.peak, cli.limits);
	/* the oldest message, < 256 KiB behind it and the one that crossed */
	assert_true(cli.peak <= (256 << 10) - 1 + 2 * 16384);
}

/* A small message behind a large one is taken: an 8 MiB tagged write
 * (twice the default max_tx_octets) goes on the empty queue, and the
 * 64-octet notification posted right after it must be queued too, not
 * refused with DDP_ERR_LIMIT (write-then-notify needs no wait queue for
 * one reply). The send after that is refused: the limit still bounds what
 * is queued. Both messages arrive, the write's octets in place. */
#define BIG (8u << 20)
static struct {
	ddp_session *s[2];
	ddp_mpa_conn *c[2];
	int tagged, untagged, bad;
} W;

static void w_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	int i = (int)(intptr_t)user;
	(void)err, (void)code;
	W.c[i] = c;
	if (ev == DDP_MPA_CONNECTED)
		W.s[i] = ddp_mpa_session(c);
}

static void w_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)user;
	if (d->status)
		return;
	if (d->tagged)
		W.tagged += d->len == BIG ? 1 : 0;
	else if (d->len == 64 && d->rsvdulp == 7 && ((uint8_t *)d->buf)[63] == 0x5a)
		W.untagged++;
	else
		W.bad++;
}

static void run_until(struct event_base *base, const int *flag, double secs)
{
	double end = net_now_s() + secs;
	while (!*flag && net_now_s() < end)
		net_run_for(base, 0.01);
}

static void test_mpa_small_message_behind_a_large_one(void **state)
{
	(void)state;
	static const ddp_callbacks wcb = { .deliver = w_deliver };
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	memset(&W, 0, sizeof(W));
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	uint8_t *src = malloc(BIG), *dst = calloc(1, BIG), note[64], rbuf[256];
	assert_true(src && dst);
	for (size_t i = 0; i < BIG; i++)
		src[i] = (uint8_t)(i * 13 + (i >> 12));
	memset(note, 0x5a, sizeof(note));
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_config cfg = { .revision = 2 }; /* default max_tx_octets: 4 MiB */
	ddp_mpa_listener *l;
	assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg, &wcb,
					NULL, w_event, (void *)0, &l),
			 0);
	sa = net_lo(ddp_mpa_listener_port(l));
	ddp_mpa_conn *c;
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg, &wcb,
					 w_event, (void *)1, &c),
			 0);
	for (double end = net_now_s() + 5; !(W.s[0] && W.s[1]) && net_now_s() < end;)
		net_run_for(base, 0.01);
	assert_true(W.s[0] && W.s[1]);
	assert_int_equal(ddp_post_recv(W.s[0], 0, 0, rbuf, sizeof(rbuf), NULL), 0);
	ddp_mr_attr a = { .addr = dst, .len = BIG, .access = DDP_ACCESS_REMOTE_WRITE,
			  .session = W.s[0] };
	uint32_t stag;
	assert_int_equal(ddp_stag_register(ctx, &a, &stag), 0);

	struct iovec big = { src, BIG }, small = { note, sizeof(note) };
	assert_int_equal(ddp_send_tagged(W.s[1], 0, stag, 0, 0, &big, 1, NULL), 0);
	assert_true(ddp_stream_queued(W.s[1], 0, NULL) >= BIG); /* not completed yet */
	assert_int_equal(ddp_send_untagged(W.s[1], 0, 0, 7, &small, 1, NULL), 0);
	/* behind the oldest message: the limit counts from here on */
	assert_int_equal(ddp_send_tagged(W.s[1], 0, stag, 0, 0, &big, 1, NULL), 0);
	assert_int_equal(ddp_send_untagged(W.s[1], 0, 0, 8, &small, 1, NULL), DDP_ERR_LIMIT);

	run_until(base, &W.untagged, 20);
	assert_int_equal(W.untagged, 1);
	for (double end = net_now_s() + 20; W.tagged < 2 && net_now_s() < end;)
		net_run_for(base, 0.01);
	assert_int_equal(W.tagged, 2);
	assert_int_equal(W.bad, 0);
	assert_memory_equal(dst, src, BIG);
	assert_int_equal(ddp_stag_invalidate(ctx, stag), 0);
	ddp_mpa_listener_free(l);
	ddp_mpa_conn_free(W.c[1]);
	ddp_mpa_conn_free(W.c[0]);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
	free(src);
	free(dst);
}

/* -------------------------------------------------------------- SCTP */

static void s_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct end *e = user;
	if (status == 0) {
		e->s = s;
		if (e->is_client)
			assert_int_equal(ddp_sctp_initiate(a, 0, NULL, 0), 0);
	}
}

static void s_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		  const void *pd, size_t n, void *user)
{
	struct end *e = user;
	(void)status, (void)pd, (void)n;
	if (ev == DDP_SCTP_INITIATE) {
		post_all(e);
		assert_int_equal(ddp_sctp_accept(a, stream, NULL, 0), 0);
	} else if (ev == DDP_SCTP_ACCEPTED) {
		pump(e);
	}
}

static void sctp_pipeline(size_t size, unsigned total, uint32_t max_txq, uint64_t max_octets)
{
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	setup_ends(base, size, total);
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	ddp_sctp_config sc = { .port = -1, .nstreams = 1, .ctx = ctx, .ddp = cbs, .user = &srv };
	sc.session.max_tx_queued = max_txq;
	sc.session.max_tx_octets = max_octets;
	sc.sctp.assoc = s_assoc;
	sc.sctp.session_ctl = s_ctl;
	ddp_sctp_ep *se, *ce;
	assert_int_equal(ddp_sctp_ep_new(base, &sc, &se), 0);
	assert_int_equal(ddp_sctp_listen(se), 0);
	sc.user = &cli;
	assert_int_equal(ddp_sctp_ep_new(base, &sc, &ce), 0);
	ddp_sctp_assoc *a;
	assert_int_equal(ddp_sctp_connect(ce, "127.0.0.1", ddp_sctp_ep_port(se), &a), 0);
	net_run_for(base, 30);
	check_ends();
	ddp_sctp_ep_free(ce);
	ddp_sctp_ep_free(se);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

static void test_sctp_pipeline_past_the_queue(void **state)
{
	(void)state;
	/* 64 KiB messages: usrsctp's send buffer fills (DDP_ERR_AGAIN in
	 * the core), then the queue of 16 messages does */
	sctp_pipeline(65536, 600, 16, 0);
}

static void test_sctp_octet_limit(void **state)
{
	(void)state;
	sctp_pipeline(16384, 2000, 0, 256 << 10);
	print_message("SCTP: peak queued %llu octets, %u refusals\n",
		      (unsigned long long)cli.peak, cli.limits);
	assert_true(cli.peak <= (256 << 10) - 1 + 2 * 16384);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpa_pipeline_past_the_queue),
		cmocka_unit_test(test_sctp_pipeline_past_the_queue),
		cmocka_unit_test(test_mpa_octet_limit),
		cmocka_unit_test(test_sctp_octet_limit),
		cmocka_unit_test(test_mpa_small_message_behind_a_large_one),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
