/* MPA connection state machine over in-memory byte pipes, with two real
 * DDP sessions on top (RFC 5044 §7 start-up, §4 FPDUs; RFC 6581). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <ddp/ddp.h>
#include <ddp/llp.h>
#include "mpa/mpa_proto.h"

#define PIPE_CAP (1 << 20)

struct pipe {
	uint8_t *b;
	size_t head, tail; /* tail: write index */
	size_t window;	   /* max octets in flight (partial writes) */
	int fin;
};

struct end;
struct end {
	struct pipe *in, *out;
	mpa_proto *c;
	ddp_session *s;
	int want_write, stop_read;
	int ev[16];
	int nev;
	int last_err;
	uint8_t last_ecode;
	uint32_t seed;
	int decide; /* responder: 1 accept, -1 reject, 0 defer */
	int shut, aborted;
	/* DDP side */
	int ndlv, nerr, nsd;
	ddp_delivery dlv[128];
	ddp_error_info err;
	int evcount[4];
};

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

static ssize_t e_read(void *io, void *dst, size_t n)
{
	struct end *e = io;
	struct pipe *p = e->in;
	size_t avail = p->tail - p->head;
	if (avail == 0)
		return p->fin ? DDP_ERR_CLOSED : 0;
	size_t k = 1 + rnd(&e->seed) % 700;
	if (k > avail)
		k = avail;
	if (k > n)
		k = n;
	memcpy(dst, p->b + p->head, k);
	p->head += k;
	return (ssize_t)k;
}

static ssize_t e_writev(void *io, const struct iovec *iov, int cnt)
{
	struct end *e = io;
	struct pipe *p = e->out;
	size_t room = p->window - (p->tail - p->head);
	size_t w = 0;
	if (p->fin)
		return DDP_ERR_CLOSED;
	for (int i = 0; i < cnt && room > 0; i++) {
		size_t k = iov[i].iov_len < room ? iov[i].iov_len : room;
		assert_true(p->tail + k <= PIPE_CAP);
		memcpy(p->b + p->tail, iov[i].iov_base, k);
		p->tail += k;
		room -= k;
		w += k;
	}
	return (ssize_t)w;
}

static void e_shutdown(void *io, int abortive)
{
	struct end *e = io;
	e->shut = 1;
	e->aborted |= abortive;
	e->out->fin = 1;
}

static void e_event(void *io, enum mpa_proto_event ev, int err, uint8_t ecode)
{
	struct end *e = io;
	if (ev == MPA_CEV_WANT_WRITE) {
		e->want_write = err;
		return;
	}
	if (ev == MPA_CEV_STOP_READ) {
		e->stop_read = 1;
		return;
	}
	assert_true(e->nev < 16);
	e->ev[e->nev++] = ev;
	e->last_err = err;
	e->last_ecode = ecode;
	if (ev == MPA_CEV_REQUEST && e->decide == 1)
		assert_int_equal(mpa_proto_accept(e->c, "ok", 2), 0);
	if (ev == MPA_CEV_REQUEST && e->decide == -1)
		assert_int_equal(mpa_proto_reject(e->c, "no", 2), 0);
}

static const mpa_proto_io io_ops = {
	.read = e_read, .writev = e_writev, .shutdown = e_shutdown, .event = e_event,
};

static void d_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct end *e = user;
	if (d->status != 0)
		return; /* posted buffer flushed by teardown */
	assert_true(e->ndlv < 128);
	e->dlv[e->ndlv++] = *d;
}

static void d_error(ddp_session *s, const ddp_error_info *i, void *user)
{
	struct end *e = user;
	e->nerr++;
	e->err = *i;
}

static void d_send_done(ddp_session *s, uint32_t st, void *ctx, int status,
			void *user)
{
	struct end *e = user;
	if (status == 0)
		e->nsd++;
}

static void d_stream_event(ddp_session *s, uint32_t st,
			   enum ddp_stream_event ev, int status, void *user)
{
	struct end *e = user;
	e->evcount[ev]++;
}

static const ddp_callbacks cbs = {
	.deliver = d_deliver, .send_done = d_send_done, .error = d_error,
	.stream_event = d_stream_event,
};

struct pair {
	ddp_ctx *ctx;
	ddp_pd *pd;
	struct pipe ab, ba;
	struct end a, b; /* a: initiator, b: responder */
};

static uint32_t g_stage_max; /* 0: default staging of small FPDUs */
static size_t g_tx_cap;	     /* 0: default queue cap */

static void setup_pair(struct pair *p, const mpa_local *la,
		       const mpa_local *lb, size_t window, int decide)
{
	memset(p, 0, sizeof(*p));
	assert_int_equal(ddp_ctx_new(NULL, &p->ctx), 0);
	assert_int_equal(ddp_pd_new(p->ctx, &p->pd), 0);
	p->ab.b = malloc(PIPE_CAP);
	p->ba.b = malloc(PIPE_CAP);
	p->ab.window = p->ba.window = window;
	p->a.in = &p->ba;
	p->a.out = &p->ab;
	p->b.in = &p->ab;
	p->b.out = &p->ba;
	p->a.seed = 17;
	p->b.seed = 29;
	p->b.decide = decide;
	struct end *ends[2] = { &p->a, &p->b };
	const mpa_local *ls[2] = { la, lb };
	for (int i = 0; i < 2; i++) {
		mpa_proto_config cfg = { .initiator = i == 0, .local = *ls[i],
					.emss = 1460, .stage_max = g_stage_max,
					.tx_cap = g_tx_cap };
		assert_int_equal(mpa_proto_new(&cfg, &io_ops, ends[i], &ends[i]->c), 0);
		ddp_session_config sc = { .pd = p->pd };
		assert_int_equal(ddp_session_new(p->ctx, &sc, &mpa_proto_llp_ops,
						 ends[i]->c, &cbs, ends[i],
						 &ends[i]->s), 0);
		assert_int_equal(mpa_proto_attach(ends[i]->c, ends[i]->s), 0);
	}
	assert_int_equal(mpa_proto_start(p->b.c), 0);
	assert_int_equal(mpa_proto_start(p->a.c), 0);
}

static void teardown_pair(struct pair *p)
{
	ddp_session_free(p->a.s);
	ddp_session_free(p->b.s);
	mpa_proto_free(p->a.c);
	mpa_proto_free(p->b.c);
	assert_int_equal(ddp_pd_free(p->pd), 0);
	assert_int_equal(ddp_ctx_free(p->ctx), 0);
	free(p->ab.b);
	free(p->ba.b);
}

/* one "event loop" pass per side until nothing moves */
static void run(struct pair *p)
{
	for (int iter = 0; iter < 100000; iter++) {
		int moved = 0;
		struct end *ends[2] = { &p->a, &p->b };
		for (int i = 0; i < 2; i++) {
			struct end *e = ends[i];
			size_t h = e->out->tail;
			int fin = e->out->fin;
			if (e->want_write)
				mpa_proto_on_writable(e->c);
			if (e->out->tail != h || e->out->fin != fin)
				moved = 1; /* octets, or a FIN from a flush */
			size_t before = e->in->head;
			if (!e->stop_read && (e->in->tail > e->in->head ||
					      e->in->fin))
				mpa_proto_on_readable(e->c);
			if (e->in->head != before)
				moved = 1;
		}
		if (!moved)
			return;
	}
	fail_msg("no quiescence");
}

static int has_ev(const struct end *e, int ev)
{
	for (int i = 0; i < e->nev; i++)
		if (e->ev[i] == ev)
			return 1;
	return 0;
}

/* RFC 5044 §7.1: Request/Reply exchange, then FPDUs both ways; the
 * Responder sends only after the Initiator's first FPDU (§7.1.4). */
static void test_conn_startup_then_untagged_and_tagged_both_ways(void **state)
{
	for (int mode = 0; mode < 16; mode++) {
		/* never staged, or staged up to the inline stage buffer (only
		 * tails; the ring policy has its own tests in
		 * test_mpa_deframer.c) */
		g_stage_max = mode >= 8 ? UINT32_MAX : MPA_STAGE_MAX;
		mpa_local la = { .rev = (mode & 4) ? 2 : 1, .markers = mode & 1,
				 .crc = (mode >> 1) & 1, .ird = 4, .ord = 4,
				 .priv = (const uint8_t *)"hello", .priv_len = 5 };
		mpa_local lb = la;
		lb.markers = !(mode & 1);
		lb.priv = NULL;
		lb.priv_len = 0;
		struct pair p;
		setup_pair(&p, &la, &lb, 3000, 1);
		static uint8_t rbuf_b[3][5000], rbuf_a[5000], tbuf[20000];
		static uint8_t msg[20000];
		for (size_t i = 0; i < sizeof msg; i++)
			msg[i] = (uint8_t)(i * 31 + (size_t)mode);
		for (int i = 0; i < 3; i++)
			assert_int_equal(ddp_post_recv(p.b.s, 0, 0, rbuf_b[i], 5000, NULL), 0);
		assert_int_equal(ddp_post_recv(p.a.s, 0, 0, rbuf_a, 5000, NULL), 0);
		ddp_mr_attr mr = { .addr = tbuf, .len = sizeof tbuf,
				   .access = DDP_ACCESS_REMOTE_WRITE, .pd = p.pd };
		uint32_t stag;
		assert_int_equal(ddp_stag_register(p.ctx, &mr, &stag), 0);

		/* the responder's ULP sends first: held until the
		 * initiator's first FPDU arrived */
		struct iovec rv = { msg, 3000 };
		assert_int_equal(ddp_send_untagged(p.b.s, 0, 0, 0, &rv, 1, NULL), 0);
		run(&p);
		assert_true(has_ev(&p.a, MPA_CEV_UP));
		assert_true(has_ev(&p.b, MPA_CEV_REQUEST));
		assert_true(has_ev(&p.b, MPA_CEV_UP));
		const mpa_frame *pf = mpa_proto_peer_frame(p.b.c);
		assert_non_null(pf);
		assert_int_equal(pf->priv_len, 5);
		assert_memory_equal(pf->priv, "hello", 5);
		assert_int_equal(mpa_proto_peer_frame(p.a.c)->priv_len, 2);
		assert_int_equal(p.a.ndlv, 0); /* still held */
		assert_int_equal(mpa_proto_result(p.a.c)->crc,
				 mpa_proto_result(p.b.c)->crc);
		assert_int_equal(mpa_proto_result(p.a.c)->tx_markers,
				 mpa_proto_result(p.b.c)->rx_markers);

		struct iovec v1 = { msg, 4000 };
		assert_int_equal(ddp_send_untagged(p.a.s, 0, 0, 0, &v1, 1, NULL), 0);
		struct iovec v2[2] = { { msg + 100, 7000 }, { msg + 9000, 9000 } };
		assert_int_equal(ddp_send_tagged(p.a.s, 0, stag, 0, 0, v2, 2, NULL), 0);
		struct iovec v3 = { msg + 5, 1 };
		assert_int_equal(ddp_send_untagged(p.a.s, 0, 0, 0, &v3, 1, NULL), 0);
		run(&p);
		assert_int_equal(p.b.nerr, 0);
		assert_int_equal(p.a.nerr, 0);
		assert_int_equal(p.b.ndlv, 3);
		assert_int_equal(p.b.dlv[0].len, 4000);
		assert_memory_equal(rbuf_b[0], msg, 4000);
		assert_true(p.b.dlv[1].tagged);
		assert_int_equal(p.b.dlv[1].len, 16000);
		assert_memory_equal(tbuf, msg + 100, 7000);
		assert_memory_equal(tbuf + 7000, msg + 9000, 9000);
		assert_int_equal(p.b.dlv[2].len, 1);
		assert_int_equal(rbuf_b[1][0], msg[5]);
		assert_int_equal(p.a.ndlv, 1);
		assert_memory_equal(rbuf_a, msg, 3000);
		assert_int_equal(p.a.nsd, 3);
		assert_int_equal(p.b.nsd, 1);
		/* header-first path: no payload copies; with staging only
		 * the small tail FPDUs are copied */
		if (g_stage_max == UINT32_MAX) {
			assert_int_equal(ddp_session_copied_bytes(p.a.s), 0);
			assert_int_equal(ddp_session_copied_bytes(p.b.s), 0);
		} else {
			assert_true(ddp_session_copied_bytes(p.a.s) <= MPA_STAGE_MAX);
			assert_true(ddp_session_copied_bytes(p.b.s) <= 2 * MPA_STAGE_MAX);
			assert_true(ddp_session_copied_bytes(p.b.s) > 0);
		}
		assert_int_equal(ddp_stag_invalidate(p.ctx, stag), 0);
		teardown_pair(&p);
	}
	g_stage_max = 0;
}

/* many small sends in one loop iteration leave in one writev */
static void test_conn_batches_small_sends_into_one_writev(void **state)
{
	mpa_local l = { .rev = 1, .crc = 1 };
	struct pair p;
	setup_pair(&p, &l, &l, PIPE_CAP, 1);
	static uint8_t rb[100][8];
	for (int i = 0; i < 100; i++)
		assert_int_equal(ddp_post_recv(p.b.s, 0, 0, rb[i], 8, NULL), 0);
	run(&p);
	uint64_t before = mpa_proto_writev_calls(p.a.c);
	static uint8_t vals[100];
	for (int i = 0; i < 100; i++) {
		vals[i] = (uint8_t)i;
		struct iovec iov = { &vals[i], 1 }; /* valid until send_done */
		assert_int_equal(ddp_send_untagged(p.a.s, 0, 0, 0, &iov, 1, NULL), 0);
	}
	assert_true(mpa_proto_queued(p.a.c) > 0);
	assert_int_equal(mpa_proto_on_writable(p.a.c), 0);
	assert_int_equal(mpa_proto_writev_calls(p.a.c) - before, 1);
	run(&p);
	assert_int_equal(p.b.ndlv, 100);
	for (int i = 0; i < 100; i++)
		assert_int_equal(rb[i][0], i);
	teardown_pair(&p);
}

/* RFC 6581 §9.2-9.3: peer-to-peer, the RTR is sent first and consumed by
 * MPA (DDP never sees it), for each RTR kind */
static void test_conn_p2p_rtr_is_sent_and_consumed(void **state)
{
	unsigned kinds[3] = { MPA_RTR_SEND, MPA_RTR_WRITE, MPA_RTR_READ };
	for (int k = 0; k < 3; k++) {
		mpa_local la = { .rev = 2, .crc = 1, .p2p = 1, .rtr = kinds[k],
				 .ird = 1, .ord = 1 };
		mpa_local lb = { .rev = 2, .crc = 1, .rtr = MPA_RTR_ALL,
				 .ird = 1, .ord = 1 };
		struct pair p;
		setup_pair(&p, &la, &lb, 100000, 1);
		static uint8_t rb[64];
		assert_int_equal(ddp_post_recv(p.a.s, 0, 0, rb, sizeof rb, NULL), 0);
		struct iovec v = { "from-responder", 14 };
		assert_int_equal(ddp_send_untagged(p.b.s, 0, 0, 0, &v, 1, NULL), 0);
		run(&p);
		assert_int_equal(mpa_proto_result(p.a.c)->rtr, kinds[k]);
		assert_int_equal(p.b.nerr, 0);
		assert_int_equal(p.b.ndlv, 0); /* RTR not delivered */
		assert_int_equal(mpa_proto_deframer(p.b.c)->fpdus, 1);
		assert_int_equal(p.a.ndlv, 1); /* responder unblocked by the RTR */
		assert_memory_equal(rb, "from-responder", 14);
		teardown_pair(&p);
	}
}

/* RFC 6581 §9.3: in peer-to-peer mode a first FPDU that is no RTR is an
 * error (layer 2, type 0, code 7) */
static void test_conn_p2p_first_fpdu_not_rtr_is_code_7(void **state)
{
	mpa_local la = { .rev = 2, .crc = 0, .p2p = 1, .rtr = MPA_RTR_WRITE,
			 .ird = 1, .ord = 1 };
	mpa_local lb = { .rev = 2, .crc = 0, .rtr = MPA_RTR_WRITE,
			 .ird = 1, .ord = 1 };
	for (int staged = 0; staged <= 1; staged++) {
		struct pair p;
		setup_pair(&p, &la, &lb, 100000, 1);
		mpa_proto_on_readable(p.b.c); /* Request in, accepted, Reply out */
		mpa_proto_on_readable(p.a.c); /* Reply in: RTR queued, not sent */
		assert_true(has_ev(&p.a, MPA_CEV_UP));
		/* inject a plain Send instead of the RTR */
		static uint8_t payload[2000];
		uint8_t h[18] = { 0x41, 0x43 };
		h[13] = 1;
		mpa_tx_stream t = { .markers = 0, .crc = 0 };
		struct iovec iov[2] = { { h, 18 }, { payload, staged ? 10 : 2000 } };
		mpa_fpdu *f;
		assert_int_equal(mpa_fpdu_build(&t, iov, 2, 18 + iov[1].iov_len, &f), 0);
		for (int i = 0; i < f->iovcnt; i++) {
			memcpy(p.ab.b + p.ab.tail, f->iov[i].iov_base, f->iov[i].iov_len);
			p.ab.tail += f->iov[i].iov_len;
		}
		free(f);
		static uint8_t rb[4000];
		assert_int_equal(ddp_post_recv(p.b.s, 0, 0, rb, sizeof rb, NULL), 0);
		mpa_proto_on_readable(p.b.c);
		assert_int_equal(p.b.nerr, 1);
		assert_int_equal(p.b.err.layer, DDP_LAYER_LLP);
		assert_int_equal(p.b.err.etype, 0);
		assert_int_equal(p.b.err.code, DDP_MPA_ECODE_NO_RTR);
		assert_int_equal(p.b.ndlv, 0);
		teardown_pair(&p);
	}
}

/* RFC 5044 §7.1.2-3: a rejection (R=1) with private data leaves MPA */
static void test_conn_reject_reaches_initiator_with_private_data(void **state)
{
	mpa_local l = { .rev = 2, .crc = 1, .ird = 3, .ord = 2 };
	struct pair p;
	setup_pair(&p, &l, &l, 100000, -1);
	run(&p);
	assert_true(has_ev(&p.b, MPA_CEV_REJECTED));
	assert_true(has_ev(&p.a, MPA_CEV_REJECTED));
	assert_false(has_ev(&p.a, MPA_CEV_UP));
	const mpa_frame *f = mpa_proto_peer_frame(p.a.c);
	assert_non_null(f);
	assert_true(f->flags & MPA_FLAG_R);
	assert_int_equal(f->priv_len, 2);
	assert_memory_equal(f->priv, "no", 2);
	assert_int_equal(mpa_proto_result(p.a.c)->peer_ird, 3);
	struct iovec v = { "x", 1 };
	assert_int_equal(ddp_send_untagged(p.a.s, 0, 0, 0, &v, 1, NULL), 0);
	run(&p);
	teardown_pair(&p);
}

/* deferred decision: bytes arriving while the ULP decides are a protocol
 * error (spec §2); the timeout fails a start-up that never ends */
static void test_conn_deferred_decision_and_timeout(void **state)
{
	mpa_local l = { .rev = 1, .crc = 1 };
	struct pair p;
	setup_pair(&p, &l, &l, 100000, 0);
	run(&p);
	assert_true(has_ev(&p.b, MPA_CEV_REQUEST));
	assert_true(mpa_proto_starting(p.b.c));
	assert_string_equal(mpa_proto_phase_name(p.b.c), "DECIDE");
	mpa_proto_on_timeout(p.a.c);
	assert_true(has_ev(&p.a, MPA_CEV_FAILED));
	assert_int_equal(p.a.last_err, DDP_ERR_TIMEOUT);
	assert_int_equal(mpa_proto_accept(p.b.c, NULL, 0), 0);
	assert_false(mpa_proto_starting(p.b.c));
	teardown_pair(&p);

	setup_pair(&p, &l, &l, 100000, 0);
	run(&p);
	p.ab.b[p.ab.tail++] = 0; /* a stray octet */
	run(&p);
	assert_true(has_ev(&p.b, MPA_CEV_FAILED));
	assert_int_equal(p.b.last_ecode, DDP_MPA_ECODE_BAD_FRAME);
	assert_int_equal(mpa_proto_accept(p.b.c, NULL, 0), DDP_ERR_STATE);
	teardown_pair(&p);
}

/* initiator/initiator start-up detected by the key (RFC 5044 §7.1.1) */
static void test_conn_initiator_initiator_fails_with_code_4(void **state)
{
	mpa_local l = { .rev = 1, .crc = 1 };
	struct pair p;
	setup_pair(&p, &l, &l, 100000, 1);
	/* replace b by a second initiator */
	ddp_session_free(p.b.s);
	mpa_proto_free(p.b.c);
	p.ab.head = p.ab.tail = 0;
	mpa_proto_config cfg = { .initiator = 1, .local = l };
	assert_int_equal(mpa_proto_new(&cfg, &io_ops, &p.b, &p.b.c), 0);
	ddp_session_config sc = { .pd = p.pd };
	assert_int_equal(ddp_session_new(p.ctx, &sc, &mpa_proto_llp_ops, p.b.c,
					 &cbs, &p.b, &p.b.s), 0);
	mpa_proto_attach(p.b.c, p.b.s);
	/* a's request is still in the a->b pipe? it was cleared: resend */
	assert_int_equal(mpa_proto_start(p.b.c), 0);
	run(&p);
	assert_true(has_ev(&p.a, MPA_CEV_FAILED));
	assert_int_equal(p.a.last_ecode, DDP_MPA_ECODE_BAD_FRAME);
	teardown_pair(&p);
}

/* FIN: peer_closed to DDP; graceful close of both sides */
static void test_conn_graceful_close_both_sides(void **state)
{
	mpa_local l = { .rev = 1, .crc = 1, .markers = 1 };
	struct pair p;
	setup_pair(&p, &l, &l, 5000, 1);
	static uint8_t rb[100];
	assert_int_equal(ddp_post_recv(p.b.s, 0, 0, rb, sizeof rb, NULL), 0);
	struct iovec v = { "bye", 3 };
	assert_int_equal(ddp_send_untagged(p.a.s, 0, 0, 0, &v, 1, NULL), 0);
	assert_int_equal(ddp_session_close(p.a.s, 0), 0);
	run(&p);
	assert_int_equal(p.b.ndlv, 1);
	assert_true(p.a.shut);
	assert_false(p.a.aborted);
	assert_int_equal(p.b.evcount[DDP_EV_HALF_CLOSED], 1);
	assert_int_equal(ddp_session_close(p.b.s, 0), 0);
	run(&p);
	assert_true(has_ev(&p.a, MPA_CEV_CLOSED));
	assert_true(has_ev(&p.b, MPA_CEV_CLOSED));
	teardown_pair(&p);
}

/* FIN in the middle of an FPDU: connection failure, nothing delivered */
static void test_conn_fin_inside_fpdu_fails_stream(void **state)
{
	mpa_local l = { .rev = 1, .crc = 1 };
	struct pair p;
	setup_pair(&p, &l, &l, 100000, 1);
	static uint8_t rb[100];
	assert_int_equal(ddp_post_recv(p.b.s, 0, 0, rb, sizeof rb, NULL), 0);
	run(&p);
	struct iovec v = { "truncated", 9 };
	assert_int_equal(ddp_send_untagged(p.a.s, 0, 0, 0, &v, 1, NULL), 0);
	mpa_proto_on_writable(p.a.c);
	p.ab.tail -= 3;
	p.ab.fin = 1;
	run(&p);
	assert_int_equal(p.b.ndlv, 0);
	assert_true(has_ev(&p.b, MPA_CEV_FAILED));
	assert_int_equal(p.b.evcount[DDP_EV_ABORTED], 1);
	teardown_pair(&p);
}

/* a flipped bit is caught (RFC 5044 §4.4): error code 2, nothing more */
static void test_conn_crc_error_reaches_ddp_error_callback(void **state)
{
	mpa_local l = { .rev = 1, .crc = 1 };
	struct pair p;
	setup_pair(&p, &l, &l, 100000, 1);
	static uint8_t rb[4][100];
	for (int i = 0; i < 4; i++)
		assert_int_equal(ddp_post_recv(p.b.s, 0, 0, rb[i], 100, NULL), 0);
	run(&p);
	for (int i = 0; i < 3; i++) {
		struct iovec v = { "payload-bytes", 13 };
		assert_int_equal(ddp_send_untagged(p.a.s, 0, 0, 0, &v, 1, NULL), 0);
	}
	mpa_proto_on_writable(p.a.c);
	size_t fpdu = 2 + 18 + 13 + 3 + 4;
	p.ab.b[p.ab.head + fpdu + 25] ^= 0x10; /* second FPDU's payload */
	run(&p);
	assert_int_equal(p.b.ndlv, 1);
	assert_int_equal(p.b.nerr, 1);
	assert_int_equal(p.b.err.layer, DDP_LAYER_LLP);
	assert_int_equal(p.b.err.etype, 0);
	assert_int_equal(p.b.err.code, DDP_MPA_ECODE_CRC);
	assert_int_equal(mpa_proto_deframer(p.b.c)->crc_errors, 1);
	teardown_pair(&p);
}

/* the queue cap turns into DDP_ERR_AGAIN and ddp_llp_writable later; the
 * message still arrives whole and completes once */
static void test_conn_tx_cap_backpressure(void **state)
{
	mpa_local l = { .rev = 1, .crc = 0 };
	struct pair p;
	g_tx_cap = 4000;
	setup_pair(&p, &l, &l, 2000, 1);
	g_tx_cap = 0;
	run(&p);
	static uint8_t big[200000], rb[200000];
	assert_int_equal(ddp_post_recv(p.b.s, 0, 0, rb, sizeof rb, NULL), 0);
	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)(i ^ (i >> 9));
	struct iovec v = { big, sizeof big };
	assert_int_equal(ddp_send_untagged(p.a.s, 0, 0, 0, &v, 1, NULL), 0);
	/* the cap holds: never more than cap + one FPDU queued */
	assert_true(mpa_proto_queued(p.a.c) <= 4000 + 1460 + 16);
	assert_true(mpa_proto_again_count(p.a.c) > 0);
	run(&p);
	assert_true(mpa_proto_again_count(p.a.c) > 10);
	assert_int_equal(p.b.ndlv, 1);
	assert_int_equal(p.b.dlv[0].len, sizeof big);
	assert_memory_equal(rb, big, sizeof big);
	assert_int_equal(p.a.nsd, 1);
	assert_int_equal(mpa_proto_queued(p.a.c), 0);
	teardown_pair(&p);
}

/* a transport that takes a few octets per write: start-up frames and FPDUs
 * are written in many partial writes and still arrive intact */
static void test_conn_partial_writes_everywhere(void **state)
{
	mpa_local la = { .rev = 2, .crc = 1, .markers = 1, .p2p = 1,
			 .ird = 1, .ord = 1, .priv = (const uint8_t *)"abcdefgh",
			 .priv_len = 8 };
	mpa_local lb = { .rev = 2, .crc = 1, .markers = 1, .ird = 1, .ord = 1 };
	struct pair p;
	setup_pair(&p, &la, &lb, 13, 1);
	static uint8_t rb[2][6000], msg[6000];
	for (size_t i = 0; i < sizeof msg; i++)
		msg[i] = (uint8_t)(i * 7);
	assert_int_equal(ddp_post_recv(p.b.s, 0, 0, rb[0], 6000, NULL), 0);
	assert_int_equal(ddp_post_recv(p.a.s, 0, 0, rb[1], 6000, NULL), 0);
	struct iovec v = { msg, sizeof msg };
	assert_int_equal(ddp_send_untagged(p.a.s, 0, 0, 0, &v, 1, NULL), 0);
	assert_int_equal(ddp_send_untagged(p.b.s, 0, 0, 0, &v, 1, NULL), 0);
	run(&p);
	assert_int_equal(p.a.nerr + p.b.nerr, 0);
	assert_int_equal(p.b.ndlv, 1);
	assert_int_equal(p.a.ndlv, 1);
	assert_memory_equal(rb[0], msg, sizeof msg);
	assert_memory_equal(rb[1], msg, sizeof msg);
	assert_true(mpa_proto_writev_calls(p.a.c) > 6000 / 13);
	teardown_pair(&p);
}

static void test_conn_set_emss_changes_mulpdu(void **state)
{
	mpa_local l = { .rev = 1, .crc = 1, .markers = 1 };
	struct pair p;
	setup_pair(&p, &l, &l, 100000, 1);
	run(&p);
	assert_int_equal(mpa_proto_mulpdu(p.a.c), 1442);
	mpa_proto_set_emss(p.a.c, 8960);
	assert_int_equal(mpa_proto_mulpdu(p.a.c), 8882);
	assert_int_equal(ddp_session_mulpdu(p.a.s), 8882);
	teardown_pair(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conn_startup_then_untagged_and_tagged_both_ways),
		cmocka_unit_test(test_conn_batches_small_sends_into_one_writev),
		cmocka_unit_test(test_conn_p2p_rtr_is_sent_and_consumed),
		cmocka_unit_test(test_conn_p2p_first_fpdu_not_rtr_is_code_7),
		cmocka_unit_test(test_conn_reject_reaches_initiator_with_private_data),
		cmocka_unit_test(test_conn_deferred_decision_and_timeout),
		cmocka_unit_test(test_conn_initiator_initiator_fails_with_code_4),
		cmocka_unit_test(test_conn_graceful_close_both_sides),
		cmocka_unit_test(test_conn_fin_inside_fpdu_fails_stream),
		cmocka_unit_test(test_conn_crc_error_reaches_ddp_error_callback),
		cmocka_unit_test(test_conn_tx_cap_backpressure),
		cmocka_unit_test(test_conn_partial_writes_everywhere),
		cmocka_unit_test(test_conn_set_emss_changes_mulpdu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
