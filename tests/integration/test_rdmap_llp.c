/*
 * test_rdmap_llp: libddp-rdmap (RFC 5040) over the real transports on
 * 127.0.0.1 under one event_base: MPA/TCP (IRD/ORD from the RFC 6581
 * enhanced word) and, with usrsctp, DDP/SCTP (IRD/ORD from the Enhanced
 * Initiate/Accept). Every case runs over both LLPs: every opcode with its
 * data checked, the ordering rules of RFC 5040 §5.5 / §5.1, and the error
 * paths (Terminate layer/type/code and offending header, flushed
 * completions). Side 0 connects, side 1 listens. Bounded by alarm().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/mpa.h>
#include <ddp/rdmap.h>
#if HAVE_USRSCTP
#include <ddp/sctp.h>
#endif

enum llp { LLP_MPA, LLP_SCTP };
#define MAXWC 64
#define BIG (256 * 1024)

struct side {
	ddp_ctx *ctx;
	ddp_rdmap_dev *dev;
	ddp_rdmap_qp *qp;
	ddp_session *s;
	uint32_t ird, ord;     /* asked for */
	uint32_t n_ird, n_ord; /* negotiated */
	uint32_t ord_override; /* != 0: ignore the negotiated ORD */
	ddp_rdmap_wc wc[MAXWC];
	int nwc;
	ddp_rdmap_term term;
	int nterm, term_sent;
	/* RFC 5040 §5.1: set in the RECV completion of a Send with
	 * Invalidate: 1 when the STag was already invalid right then */
	uint32_t watch_stag;
	int watch_invalid_at_recv;
	/* RFC 5040 §5.5: at the READ completion, the sink held the data */
	const uint8_t *rd_sink, *rd_src;
	size_t rd_len;
	int rd_ok_at_completion;
	ddp_mpa_conn *conn;
#if HAVE_USRSCTP
	ddp_sctp_ep *ep;
	ddp_sctp_assoc *a;
#endif
};

static struct {
	enum llp llp;
	struct event_base *base;
	struct side sd[2];
	ddp_mpa_listener *lst;
} P;

static struct side *side_of_dev(void *dev)
{
	return dev == P.sd[0].dev ? &P.sd[0] : &P.sd[1];
}

static void on_complete(ddp_rdmap_qp *qp, const ddp_rdmap_wc *wc, void *user)
{
	struct side *s = user;
	assert_true(s->nwc < MAXWC);
	s->wc[s->nwc++] = *wc;
	if (wc->kind == DDP_RDMAP_WC_RECV && wc->invalidated && wc->inv_stag == s->watch_stag)
		s->watch_invalid_at_recv = ddp_stag_invalidate(s->ctx, s->watch_stag) ==
					   DDP_ERR_NOENT;
	if (wc->kind == DDP_RDMAP_WC_READ && wc->status == 0 && s->rd_sink)
		s->rd_ok_at_completion = !memcmp(s->rd_sink, s->rd_src, s->rd_len);
}

static void on_term(ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent, void *user)
{
	struct side *s = user;
	s->nterm++;
	s->term_sent = sent;
	if (t)
		s->term = *t;
}

static const ddp_rdmap_callbacks qcb = { on_complete, on_term };

static void qp_start(struct side *s, ddp_session *sess, uint32_t ird, uint32_t ord)
{
	s->s = sess;
	s->n_ird = ird;
	s->n_ord = ord;
	ddp_rdmap_config c = { .ird = ird, .ord = s->ord_override ? s->ord_override : ord };
	assert_int_equal(ddp_rdmap_qp_new(s->dev, sess, 0, &c, &qcb, s, &s->qp), 0);
}

/* ------------------------------------------------------------ MPA */

static void mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct side *s = side_of_dev(user);
	if (ev != DDP_MPA_CONNECTED)
		return; /* the connection is freed at the end of the test */
	ddp_mpa_info i;
	assert_int_equal(ddp_mpa_get_info(c, &i), 0);
	assert_true(i.enhanced); /* RFC 6581: the IRD/ORD word both ways */
	s->conn = c;
	qp_start(s, ddp_mpa_session(c), i.ird, i.ord);
}

static void mpa_up(void)
{
	ddp_callbacks cb;
	ddp_rdmap_dev_callbacks(&cb);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	ddp_mpa_config c1 = { .revision = 2, .ird = (uint16_t)P.sd[1].ird,
			      .ord = (uint16_t)P.sd[1].ord };
	assert_int_equal(ddp_mpa_listen(P.base, P.sd[1].ctx, (struct sockaddr *)&sa, sizeof(sa),
					 &c1, &cb, NULL, mpa_event, P.sd[1].dev, &P.lst), 0);
	sa.sin_port = htons((uint16_t)ddp_mpa_listener_port(P.lst));
	ddp_mpa_config c0 = { .revision = 2, .ird = (uint16_t)P.sd[0].ird,
			      .ord = (uint16_t)P.sd[0].ord };
	ddp_mpa_conn *c;
	assert_int_equal(ddp_mpa_connect(P.base, P.sd[0].ctx, (struct sockaddr *)&sa, sizeof(sa),
					 &c0, &cb, mpa_event, P.sd[0].dev, &c), 0);
	P.sd[0].conn = c;
}

/* ------------------------------------------------------------ SCTP */
#if HAVE_USRSCTP
static uint32_t min_u32(uint32_t a, uint32_t b) { return a < b ? a : b; }

static void sctp_assoc(ddp_sctp_assoc *a, ddp_session *sess, int status, void *user)
{
	struct side *s = side_of_dev(user);
	if (status == 0) {
		s->a = a;
		if (s == &P.sd[0]) {
			ddp_sctp_ird_ord io = { .ird = (uint16_t)s->ird, .ord = (uint16_t)s->ord };
			assert_int_equal(ddp_sctp_initiate_enhanced(a, 0, &io, NULL, 0), 0);
		}
		return;
	}
	ddp_rdmap_qp_free(s->qp); /* before the association's session goes */
	s->qp = NULL;
	s->a = NULL;
}

static void sctp_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		     const void *pd, size_t pd_len, void *user)
{
	struct side *s = side_of_dev(user);
	ddp_sctp_ird_ord peer;
	assert_int_equal(ddp_sctp_peer_ird_ord(a, stream, &peer), 0);
	/* RFC 6581 §9.1: our ORD is at most the peer's IRD */
	uint32_t ord = min_u32(s->ord, peer.ird);
	if (ev == DDP_SCTP_INITIATE) {
		ddp_sctp_ird_ord io = { .ird = (uint16_t)s->ird, .ord = (uint16_t)ord };
		qp_start(s, ddp_sctp_session(a), s->ird, ord);
		assert_int_equal(ddp_sctp_accept_enhanced(a, stream, &io, NULL, 0), 0);
	} else {
		assert_int_equal(ev, DDP_SCTP_ACCEPTED);
		qp_start(s, ddp_sctp_session(a), s->ird, ord);
	}
}

static void sctp_up(void)
{
	for (int i = 0; i < 2; i++) {
		ddp_sctp_config c = { .port = -1, .nstreams = 1, .ctx = P.sd[i].ctx,
				      .user = P.sd[i].dev };
		ddp_rdmap_dev_callbacks(&c.ddp);
		c.sctp.assoc = sctp_assoc;
		c.sctp.session_ctl = sctp_ctl;
		assert_int_equal(ddp_sctp_ep_new(P.base, &c, &P.sd[i].ep), 0);
	}
	assert_int_equal(ddp_sctp_listen(P.sd[1].ep), 0);
	ddp_sctp_assoc *a;
	assert_int_equal(ddp_sctp_connect(P.sd[0].ep, "127.0.0.1", ddp_sctp_ep_port(P.sd[1].ep),
					  &a), 0);
}
#endif

/* ------------------------------------------------------------ harness */

static int run_until(const int *a, int want, int ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (*a < want) {
		struct timeval tv = { 0, 2000 };
		event_base_loopexit(P.base, &tv);
		event_base_dispatch(P.base);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > ms)
			break;
	}
	return *a >= want;
}

static int qp_count;
static void count_qps(void) { qp_count = (P.sd[0].qp != NULL) + (P.sd[1].qp != NULL); }

/* Connect with (ird, ord) per side; ord_override0: side 0's queue pair
 * ignores the negotiated ORD (a misbehaving requester). */
static void pair_up(uint32_t ird0, uint32_t ord0, uint32_t ird1, uint32_t ord1,
		    uint32_t ord_override0)
{
	P.sd[0].ird = ird0;
	P.sd[0].ord = ord0;
	P.sd[1].ird = ird1;
	P.sd[1].ord = ord1;
	P.sd[0].ord_override = ord_override0;
	if (P.llp == LLP_MPA)
		mpa_up();
#if HAVE_USRSCTP
	else
		sctp_up();
#endif
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (count_qps(); qp_count < 2; count_qps()) {
		run_until(&qp_count, 3, 5);
		clock_gettime(CLOCK_MONOTONIC, &t);
		assert_true(t.tv_sec - t0.tv_sec < 10);
	}
}

static int setup(void **st)
{
	memset(&P, 0, sizeof(P));
	P.llp = (enum llp)(intptr_t)*st;
	alarm(30);
	P.base = event_base_new();
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ddp_ctx_new(NULL, &P.sd[i].ctx), 0);
		assert_int_equal(ddp_rdmap_dev_new(P.sd[i].ctx, NULL, NULL, &P.sd[i].dev), 0);
	}
	return P.base ? 0 : -1;
}

static int teardown(void **st)
{
	for (int i = 0; i < 2; i++) {
		ddp_rdmap_qp_free(P.sd[i].qp);
		P.sd[i].qp = NULL;
	}
	for (int i = 0; i < 2; i++) {
		ddp_mpa_conn_free(P.sd[i].conn);
#if HAVE_USRSCTP
		ddp_sctp_ep_free(P.sd[i].ep);
#endif
	}
	ddp_mpa_listener_free(P.lst);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ddp_rdmap_dev_free(P.sd[i].dev), 0);
		assert_int_equal(ddp_ctx_free(P.sd[i].ctx), 0);
	}
	event_base_free(P.base);
	alarm(0);
	return 0;
}

static uint32_t reg(int side, void *buf, size_t len, unsigned access)
{
	ddp_mr_attr a = { .addr = buf, .len = len, .access = access, .session = P.sd[side].s };
	uint32_t stag;
	assert_int_equal(ddp_stag_register(P.sd[side].ctx, &a, &stag), 0);
	return stag;
}

static void fill(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed * 131u + i * 7u + (i >> 9));
}

static int send_buf(int side, unsigned flags, uint32_t inv, const void *buf, size_t len,
		    intptr_t ctx)
{
	struct iovec v = { (void *)buf, len };
	return ddp_rdmap_post_send(P.sd[side].qp, flags, inv, &v, 1, (void *)ctx);
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* ------------------------------------------------------------ cases */

static uint8_t rx[8][4096], msg[8][600];
static uint8_t wsrc[65536], wdst[65536], rsrc[BIG], rsink[BIG], ib[2][64];

/* Every opcode (RFC 5040 §4.3) with IRD/ORD negotiated (RFC 6581 §9.1:
 * ORD <= the peer's IRD); completions in posting order (§5.5) with the
 * Read's data placed when it completes and a Send after the Read after it;
 * a Send with Invalidate invalidates before the Send is delivered (§5.1),
 * so a later Write to that STag is refused (RFC 5041 §7.2 (1, 0x00)). */
static void test_rdmap_every_opcode(void **st)
{
	pair_up(2, 4, 3, 1, 0);
	struct side *a = &P.sd[0], *b = &P.sd[1];
	assert_int_equal(a->n_ord, 3); /* min(4, peer IRD 3) */
	assert_int_equal(b->n_ord, 1);
	for (int i = 0; i < 6; i++)
		assert_int_equal(ddp_rdmap_post_recv(b->qp, rx[i], sizeof(rx[i]),
						     (void *)(intptr_t)(100 + i)), 0);
	memset(wdst, 0, sizeof(wdst));
	memset(rsink, 0, sizeof(rsink));
	fill(wsrc, sizeof(wsrc), 3);
	fill(rsrc, sizeof(rsrc), 5);
	for (int i = 0; i < 8; i++)
		fill(msg[i], sizeof(msg[i]), 10u + (unsigned)i);
	uint32_t w = reg(1, wdst, sizeof(wdst), DDP_ACCESS_REMOTE_WRITE);
	uint32_t r = reg(1, rsrc, sizeof(rsrc), DDP_ACCESS_REMOTE_READ);
	uint32_t i0 = reg(1, ib[0], sizeof(ib[0]), DDP_ACCESS_REMOTE_WRITE);
	uint32_t i1 = reg(1, ib[1], sizeof(ib[1]), DDP_ACCESS_REMOTE_WRITE);
	uint32_t k = reg(0, rsink, sizeof(rsink), DDP_ACCESS_REMOTE_WRITE);
	b->watch_stag = i0;
	a->rd_sink = rsink;
	a->rd_src = rsrc;
	a->rd_len = sizeof(rsrc);
	struct iovec wv = { wsrc, sizeof(wsrc) };
	assert_int_equal(send_buf(0, 0, 0, msg[0], 1, 1), 0);
	assert_int_equal(send_buf(0, DDP_RDMAP_SEND_SE, 0, msg[1], 600, 2), 0);
	assert_int_equal(ddp_rdmap_post_write(a->qp, w, 0, &wv, 1, (void *)3), 0);
	assert_int_equal(send_buf(0, DDP_RDMAP_SEND_INV, i0, msg[2], 17, 4), 0);
	assert_int_equal(ddp_rdmap_post_read(a->qp, k, 0, r, 0, BIG, (void *)5), 0);
	assert_int_equal(send_buf(0, 0, 0, msg[3], 0, 6), 0);
	assert_int_equal(send_buf(0, DDP_RDMAP_SEND_SE | DDP_RDMAP_SEND_INV, i1, msg[4], 64, 7), 0);
	assert_true(run_until(&b->nwc, 5, 10000));
	assert_true(run_until(&a->nwc, 7, 10000));
	static const enum ddp_rdmap_wc_kind kinds[7] = {
		DDP_RDMAP_WC_SEND, DDP_RDMAP_WC_SEND, DDP_RDMAP_WC_WRITE, DDP_RDMAP_WC_SEND,
		DDP_RDMAP_WC_READ, DDP_RDMAP_WC_SEND, DDP_RDMAP_WC_SEND
	};
	for (int i = 0; i < 7; i++) {
		assert_int_equal(a->wc[i].kind, kinds[i]);
		assert_int_equal((intptr_t)a->wc[i].wr_ctx, i + 1);
		assert_int_equal(a->wc[i].status, 0);
	}
	assert_int_equal(a->wc[4].len, BIG);
	assert_true(a->rd_ok_at_completion);
	assert_memory_equal(wdst, wsrc, sizeof(wsrc));
	static const uint8_t ops[5] = { DDP_RDMAP_OP_SEND, DDP_RDMAP_OP_SEND_SE,
					DDP_RDMAP_OP_SEND_INV, DDP_RDMAP_OP_SEND,
					DDP_RDMAP_OP_SEND_SE_INV };
	static const uint32_t lens[5] = { 1, 600, 17, 0, 64 };
	static const int mi[5] = { 0, 1, 2, 3, 4 };
	for (int i = 0; i < 5; i++) {
		const ddp_rdmap_wc *c = &b->wc[i];
		assert_int_equal(c->kind, DDP_RDMAP_WC_RECV);
		assert_int_equal(c->status, 0);
		assert_int_equal((intptr_t)c->wr_ctx, 100 + i);
		assert_int_equal(c->opcode, ops[i]);
		assert_int_equal(c->len, lens[i]);
		if (lens[i])
			assert_memory_equal(c->buf, msg[mi[i]], lens[i]);
		assert_int_equal(c->solicited, ops[i] == DDP_RDMAP_OP_SEND_SE ||
						       ops[i] == DDP_RDMAP_OP_SEND_SE_INV);
		assert_int_equal(c->invalidated, i == 2 || i == 4);
	}
	assert_int_equal(b->wc[2].inv_stag, i0);
	assert_int_equal(b->wc[4].inv_stag, i1);
	assert_true(b->watch_invalid_at_recv); /* §5.1: invalid at delivery */
	assert_int_equal(ddp_stag_invalidate(b->ctx, i1), DDP_ERR_NOENT);
	/* the invalidated STag takes no Write: (DDP, tagged, invalid STag) */
	struct iovec iv = { msg[5], 8 };
	assert_int_equal(ddp_rdmap_post_write(a->qp, i0, 0, &iv, 1, (void *)8), 0);
	assert_true(run_until(&a->nterm, 1, 10000));
	assert_int_equal(a->term.layer, DDP_LAYER_DDP);
	assert_int_equal(a->term.etype, DDP_ETYPE_TAGGED);
	assert_int_equal(a->term.code, DDP_ECODE_T_INVALID_STAG);
	assert_int_equal(be32(a->term.ddp_hdr + 2), i0);
	assert_int_equal(b->term_sent, 1);
	assert_memory_not_equal(ib[0], msg[5], 8);
	/* stopped: the stream takes no more work */
	assert_int_equal(send_buf(0, 0, 0, msg[0], 1, 9), DDP_ERR_STREAM);
	ddp_stag_invalidate(b->ctx, w);
	ddp_stag_invalidate(b->ctx, r);
	ddp_stag_invalidate(a->ctx, k);
}

/* RFC 5040 §4.8: a Read of a region without remote-read access: (RDMAP,
 * remote protection, 0x02) with the DDP header (QN 1) and the Read
 * Request header; the Read is flushed and the Send posted after it
 * completes after it (§5.5). */
static void test_rdmap_read_without_access_terminates(void **st)
{
	pair_up(1, 1, 1, 1, 0);
	struct side *a = &P.sd[0], *b = &P.sd[1];
	assert_int_equal(ddp_rdmap_post_recv(b->qp, rx[0], sizeof(rx[0]), (void *)100), 0);
	uint32_t r = reg(1, rsrc, 4096, DDP_ACCESS_REMOTE_WRITE);
	uint32_t k = reg(0, rsink, 4096, DDP_ACCESS_REMOTE_WRITE);
	assert_int_equal(ddp_rdmap_post_read(a->qp, k, 0, r, 0, 4096, (void *)1), 0);
	assert_int_equal(send_buf(0, 0, 0, msg[0], 10, 2), 0);
	assert_true(run_until(&a->nwc, 2, 10000));
	assert_int_equal(a->nterm, 1);
	assert_int_equal(a->term_sent, 0);
	assert_int_equal(b->term_sent, 1);
	assert_int_equal(a->term.layer, DDP_LAYER_RDMAP);
	assert_int_equal(a->term.etype, DDP_RDMAP_ETYPE_PROTECTION);
	assert_int_equal(a->term.code, DDP_RDMAP_ECODE_ACCESS);
	assert_true(a->term.d && a->term.r);
	assert_int_equal(a->term.ddp_hdr_len, 18);
	assert_int_equal(be32(a->term.ddp_hdr + 6), DDP_RDMAP_QN_READ);
	assert_int_equal(a->term.rdmap_hdr_len, 28);
	assert_int_equal(be32(a->term.rdmap_hdr), k);      /* Data Sink STag */
	assert_int_equal(be32(a->term.rdmap_hdr + 16), r); /* Data Source STag */
	assert_int_equal(a->wc[0].kind, DDP_RDMAP_WC_READ);
	assert_int_equal(a->wc[0].status, DDP_ERR_ABORTED);
	assert_int_equal(a->wc[1].kind, DDP_RDMAP_WC_SEND);
	/* the Send reached the responder after its Terminate: flushed */
	assert_true(run_until(&b->nwc, 1, 10000));
	assert_int_equal(b->wc[0].kind, DDP_RDMAP_WC_RECV);
	assert_int_equal(b->wc[0].status, DDP_ERR_ABORTED);
	assert_int_equal((intptr_t)b->wc[0].wr_ctx, 100);
	assert_ptr_equal(b->wc[0].buf, rx[0]);
	assert_int_equal(b->wc[0].len, 0); /* ddp/rdmap.h: nothing delivered */
	ddp_stag_invalidate(b->ctx, r);
	ddp_stag_invalidate(a->ctx, k);
}

/* RFC 5040 §5.3 / RFC 6581 §9.1: a requester that ignores the negotiated
 * ORD (the responder's IRD of 1) finds no QN 1 buffer: RFC 5041 §7.2
 * (DDP, untagged, 0x02) with the DDP header; the unanswered Reads flush. */
static void test_rdmap_read_beyond_ird_terminates(void **st)
{
	enum { NRD = 16 };
	pair_up(1, NRD, 1, 1, NRD);
	struct side *a = &P.sd[0], *b = &P.sd[1];
	assert_int_equal(a->n_ord, 1);
	/* Responses too large to be taken by the LLP at once, so the QN 1
	 * buffer is not posted again before the next Request arrives */
	enum { RDLEN = 8 << 20 };
	uint8_t *src = calloc(1, RDLEN), *sink = calloc(1, RDLEN);
	assert_true(src && sink);
	uint32_t r = reg(1, src, RDLEN, DDP_ACCESS_REMOTE_READ);
	uint32_t k = reg(0, sink, RDLEN, DDP_ACCESS_REMOTE_WRITE);
	for (int i = 0; i < NRD; i++)
		assert_int_equal(ddp_rdmap_post_read(a->qp, k, 0, r, 0, RDLEN,
						     (void *)(intptr_t)(i + 1)), 0);
	assert_true(run_until(&a->nwc, NRD, 10000));
	assert_int_equal(a->nterm, 1);
	assert_int_equal(b->term_sent, 1);
	assert_int_equal(a->term.layer, DDP_LAYER_DDP);
	assert_int_equal(a->term.etype, DDP_ETYPE_UNTAGGED);
	assert_int_equal(a->term.code, DDP_ECODE_U_MSN_NOBUF);
	assert_true(a->term.d);
	assert_int_equal(be32(a->term.ddp_hdr + 6), DDP_RDMAP_QN_READ);
	for (int i = 0; i < NRD; i++) {
		assert_int_equal(a->wc[i].kind, DDP_RDMAP_WC_READ);
		assert_int_equal((intptr_t)a->wc[i].wr_ctx, i + 1);
	}
	assert_int_equal(a->wc[NRD - 1].status, DDP_ERR_ABORTED);
	ddp_rdmap_qp_free(a->qp); /* nothing may still point into src/sink */
	ddp_rdmap_qp_free(b->qp);
	a->qp = b->qp = NULL;
	ddp_stag_invalidate(b->ctx, r);
	ddp_stag_invalidate(a->ctx, k);
	free(src);
	free(sink);
}

/* RFC 5040 §5.1 / §4.8: a Send with Invalidate of an STag not bound to
 * this stream: (RDMAP, remote protection, 0x09) with the DDP header that
 * names the STag; the STag stays valid; the receive completes in error. */
static void test_rdmap_send_inv_foreign_stag_terminates(void **st)
{
	pair_up(1, 1, 1, 1, 0);
	struct side *a = &P.sd[0], *b = &P.sd[1];
	ddp_pd *pd;
	assert_int_equal(ddp_pd_new(b->ctx, &pd), 0);
	ddp_mr_attr at = { .addr = ib[0], .len = sizeof(ib[0]),
			   .access = DDP_ACCESS_REMOTE_WRITE, .pd = pd };
	uint32_t f;
	assert_int_equal(ddp_stag_register(b->ctx, &at, &f), 0);
	assert_int_equal(ddp_rdmap_post_recv(b->qp, rx[0], sizeof(rx[0]), (void *)100), 0);
	assert_int_equal(send_buf(0, DDP_RDMAP_SEND_INV, f, msg[0], 33, 1), 0);
	assert_true(run_until(&a->nterm, 1, 10000));
	assert_int_equal(b->nwc, 1);
	assert_int_equal(b->wc[0].status, DDP_ERR_ACCESS);
	assert_int_equal(b->wc[0].invalidated, 0);
	assert_int_equal(b->term_sent, 1);
	assert_int_equal(a->term.layer, DDP_LAYER_RDMAP);
	assert_int_equal(a->term.etype, DDP_RDMAP_ETYPE_PROTECTION);
	assert_int_equal(a->term.code, DDP_RDMAP_ECODE_CANNOT_INVALIDATE);
	assert_true(a->term.d);
	assert_int_equal(be32(a->term.ddp_hdr + 2), f);	/* Invalidate STag */
	assert_int_equal(be32(a->term.ddp_hdr + 6), DDP_RDMAP_QN_SEND);
	assert_int_equal(ddp_stag_invalidate(b->ctx, f), 0); /* was still valid */
	assert_int_equal(ddp_pd_free(pd), 0);
}

/* RFC 5041 §7.2 / RFC 5040 §7.2: an RDMA Write past the sink's bounds:
 * (DDP, tagged, 0x01) with the segment's DDP header; nothing placed. */
static void test_rdmap_write_past_bounds_terminates(void **st)
{
	pair_up(1, 1, 1, 1, 0);
	struct side *a = &P.sd[0], *b = &P.sd[1];
	memset(wdst, 0, 4096);
	uint32_t w = reg(1, wdst, 4096, DDP_ACCESS_REMOTE_WRITE);
	fill(wsrc, 100, 9);
	struct iovec v = { wsrc, 100 };
	assert_int_equal(ddp_rdmap_post_write(a->qp, w, 4050, &v, 1, (void *)1), 0);
	assert_true(run_until(&a->nterm, 1, 10000));
	assert_int_equal(b->term_sent, 1);
	assert_int_equal(a->term.layer, DDP_LAYER_DDP);
	assert_int_equal(a->term.etype, DDP_ETYPE_TAGGED);
	assert_int_equal(a->term.code, DDP_ECODE_T_BOUNDS);
	assert_true(a->term.d && a->term.m);
	assert_int_equal(a->term.ddp_hdr_len, 14);
	assert_int_equal(be32(a->term.ddp_hdr + 2), w);
	for (int i = 0; i < 4096; i++)
		assert_int_equal(wdst[i], 0);
	assert_true(run_until(&a->nwc, 1, 10000));
	assert_int_equal(a->wc[0].kind, DDP_RDMAP_WC_WRITE);
	ddp_stag_invalidate(b->ctx, w);
}

#define BOTH(t)                                                                              \
	cmocka_unit_test_prestate_setup_teardown(t, setup, teardown, (void *)LLP_MPA)
#define BOTH_SCTP(t)                                                                         \
	cmocka_unit_test_prestate_setup_teardown(t, setup, teardown, (void *)LLP_SCTP)

int main(void)
{
	const struct CMUnitTest mpa[] = {
		BOTH(test_rdmap_every_opcode),
		BOTH(test_rdmap_read_without_access_terminates),
		BOTH(test_rdmap_read_beyond_ird_terminates),
		BOTH(test_rdmap_send_inv_foreign_stag_terminates),
		BOTH(test_rdmap_write_past_bounds_terminates),
	};
	int rc = cmocka_run_group_tests_name("rdmap over MPA/TCP", mpa, NULL, NULL);
#if HAVE_USRSCTP
	const struct CMUnitTest sctp[] = {
		BOTH_SCTP(test_rdmap_every_opcode),
		BOTH_SCTP(test_rdmap_read_without_access_terminates),
		BOTH_SCTP(test_rdmap_read_beyond_ird_terminates),
		BOTH_SCTP(test_rdmap_send_inv_foreign_stag_terminates),
		BOTH_SCTP(test_rdmap_write_past_bounds_terminates),
	};
	rc += cmocka_run_group_tests_name("rdmap over DDP/SCTP", sctp, NULL, NULL);
#endif
	return rc;
}
