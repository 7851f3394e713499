/*
 * test_rdmap_qp: the RDMAP queue pair (RFC 5040) end to end over the
 * in-memory LLP: every opcode, ORD/IRD, ordering of completions, Terminate
 * for each error path (first error wins), and what goes on the wire.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include <ddp/rdmap.h>

#include "memllp.h"

#define MAXWC 64

struct side {
	ddp_rdmap_qp *qp;
	ddp_rdmap_wc wc[MAXWC];
	size_t nwc;
	ddp_rdmap_term term;
	int nterm, term_sent, term_null;
	int freed, after_free; /* freed in its own callback; callbacks after */
};

struct fx {
	memllp *m;
	ddp_ctx *ctx[2];
	ddp_rdmap_dev *dev[2];
	struct side sd[2];
	uint8_t rbuf[4][256];
};

static int free_in_complete = 1; /* 1: not tried; else what the free returned */

static void on_complete(ddp_rdmap_qp *qp, const ddp_rdmap_wc *wc, void *user)
{
	struct side *s = user;
	if (s->freed)
		s->after_free++;
	if (free_in_complete == 0) {
		s->freed = 1;
		s->qp = NULL;
		free_in_complete = ddp_rdmap_qp_free(qp); /* allowed: silences it */
	}
	assert_true(s->nwc < MAXWC);
	s->wc[s->nwc++] = *wc;
}

static void on_term(ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent, void *user)
{
	struct side *s = user;
	if (s->freed)
		s->after_free++;
	s->nterm++;
	s->term_sent = sent;
	s->term_null = t == NULL;
	if (t)
		s->term = *t;
}

static const ddp_rdmap_callbacks qcb = { on_complete, on_term };

/* ird/ord per side; pending: sends complete only when pumped */
static struct fx *fx_new(uint32_t ird0, uint32_t ord0, uint32_t ird1, uint32_t ord1, int pending)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	static ddp_callbacks dcb;
	ddp_rdmap_dev_callbacks(&dcb);
	memllp_cfg cfg = { .seed = 7, .mulpdu = 100, .pending = pending, .max_piece = 13 };
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ddp_ctx_new(NULL, &f->ctx[i]), 0);
		assert_int_equal(ddp_rdmap_dev_new(f->ctx[i], NULL, NULL, &f->dev[i]), 0);
		cfg.ctx[i] = f->ctx[i];
		cfg.cb[i] = &dcb;
		cfg.user[i] = f->dev[i];
	}
	assert_int_equal(memllp_new(&cfg, &f->m), 0);
	ddp_rdmap_config c0 = { .ird = ird0, .ord = ord0 }, c1 = { .ird = ird1, .ord = ord1 };
	assert_int_equal(ddp_rdmap_qp_new(f->dev[0], memllp_session(f->m, 0), 0, &c0, &qcb,
					  &f->sd[0], &f->sd[0].qp), 0);
	assert_int_equal(ddp_rdmap_qp_new(f->dev[1], memllp_session(f->m, 1), 0, &c1, &qcb,
					  &f->sd[1], &f->sd[1].qp), 0);
	return f;
}

static void fx_free(struct fx *f)
{
	ddp_rdmap_qp_free(f->sd[0].qp);
	ddp_rdmap_qp_free(f->sd[1].qp);
	memllp_free(f->m);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ddp_rdmap_dev_free(f->dev[i]), 0);
		assert_int_equal(ddp_ctx_free(f->ctx[i]), 0);
	}
	free(f);
}

static uint32_t reg(struct fx *f, int side, void *buf, size_t len, unsigned access)
{
	ddp_mr_attr a = { .addr = buf, .len = len, .access = access,
			  .session = memllp_session(f->m, side), .stream = 0 };
	uint32_t stag;
	assert_int_equal(ddp_stag_register(f->ctx[side], &a, &stag), 0);
	return stag;
}

/* the i-th segment side 0 / 1 handed to the LLP */
static const uint8_t *sent(struct fx *f, int side, size_t i)
{
	assert_true(i < f->m->side[side].nsent);
	return f->m->side[side].sent[i].data;
}

/* RFC 5040 §4.2/§4.3: RV=1 and the opcode in the untagged RsvdULP, QN 0;
 * Send with SE / Invalidate completes at the receiver with its kind, and
 * the STag is invalid when the Send is delivered (RFC 5040 §5.1). */
static void test_rdmap_send_variants_deliver_in_order(void **state)
{
	struct fx *f = fx_new(1, 1, 1, 1, 0);
	uint8_t tgt[32];
	uint32_t victim = reg(f, 1, tgt, sizeof(tgt), DDP_ACCESS_REMOTE_WRITE);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ddp_rdmap_post_recv(f->sd[1].qp, f->rbuf[i], 256, f->rbuf[i]), 0);
	const char *msg[4] = { "plain", "solicited", "invalidate", "se+inv" };
	for (unsigned fl = 0; fl < 4; fl++) {
		struct iovec v = { (void *)msg[fl], strlen(msg[fl]) };
		assert_int_equal(ddp_rdmap_post_send(f->sd[0].qp, fl, fl >= 2 ? victim : 0, &v, 1,
						     (void *)(uintptr_t)(fl + 1)), 0);
		if (fl == 2)
			memllp_pump(f->m);
		if (fl == 3) /* the second invalidate of the same STag is refused */
			break;
	}
	memllp_pump(f->m);
	/* wire: untagged header octet 1 is the RDMAP control: 0x43 0x45 0x44 */
	assert_int_equal(sent(f, 0, 0)[1], 0x43);
	assert_int_equal(sent(f, 0, 1)[1], 0x45);
	assert_int_equal(sent(f, 0, 2)[1], 0x44);
	assert_int_equal(sent(f, 0, 2)[5], (uint8_t)victim); /* Inv STag low octet */
	struct side *r = &f->sd[1];
	assert_true(r->nwc >= 3);
	assert_int_equal(r->wc[0].opcode, DDP_RDMAP_OP_SEND);
	assert_int_equal(r->wc[1].opcode, DDP_RDMAP_OP_SEND_SE);
	assert_true(r->wc[1].solicited);
	assert_int_equal(r->wc[2].opcode, DDP_RDMAP_OP_SEND_INV);
	assert_true(r->wc[2].invalidated);
	assert_int_equal(r->wc[2].inv_stag, victim);
	assert_memory_equal(r->wc[2].buf, "invalidate", 10);
	assert_int_equal(ddp_stag_invalidate(f->ctx[1], victim), DDP_ERR_NOENT);
	/* 4th: the STag is already invalid -> (0, 2, 0x09) */
	assert_int_equal(r->nterm, 1);
	assert_true(r->term_sent);
	assert_int_equal(r->term.etype, DDP_RDMAP_ETYPE_OPERATION);
	assert_int_equal(r->term.code, DDP_RDMAP_ECODE_CANNOT_INVALIDATE);
	assert_int_equal(f->sd[0].nterm, 1);
	assert_false(f->sd[0].term_sent);
	assert_int_equal(f->sd[0].term.code, DDP_RDMAP_ECODE_CANNOT_INVALIDATE);
	/* sender's completions: all four, in order */
	assert_int_equal(f->sd[0].nwc, 4);
	for (size_t i = 0; i < 4; i++)
		assert_ptr_equal(f->sd[0].wc[i].wr_ctx, (void *)(uintptr_t)(i + 1));
	fx_free(f);
}

/* RFC 5040 §5.3 / §4.8: Send with Invalidate naming an STag of another
 * stream: (RDMAP, remote protection, 0x09); the STag stays valid. */
static void test_rdmap_send_inv_foreign_stag_terminates(void **state)
{
	struct fx *f = fx_new(1, 1, 1, 1, 0);
	uint8_t other[16];
	ddp_pd *pd;
	assert_int_equal(ddp_pd_new(f->ctx[1], &pd), 0);
	ddp_mr_attr a = { .addr = other, .len = sizeof(other), .access = DDP_ACCESS_REMOTE_WRITE,
			  .pd = pd };
	uint32_t foreign;
	assert_int_equal(ddp_stag_register(f->ctx[1], &a, &foreign), 0);
	assert_int_equal(ddp_rdmap_post_recv(f->sd[1].qp, f->rbuf[0], 256, NULL), 0);
	struct iovec v = { "x", 1 };
	assert_int_equal(ddp_rdmap_post_send(f->sd[0].qp, DDP_RDMAP_SEND_INV, foreign, &v, 1, NULL), 0);
	memllp_pump(f->m);
	assert_int_equal(f->sd[1].term.layer, DDP_LAYER_RDMAP);
	assert_int_equal(f->sd[1].term.etype, DDP_RDMAP_ETYPE_PROTECTION);
	assert_int_equal(f->sd[1].term.code, DDP_RDMAP_ECODE_CANNOT_INVALIDATE);
	assert_int_equal(f->sd[0].term.code, DDP_RDMAP_ECODE_CANNOT_INVALIDATE);
	assert_true(f->sd[0].term.d);
	assert_int_equal(f->sd[0].term.ddp_hdr_len, DDP_UNTAGGED_HDR_LEN);
	assert_int_equal(f->sd[0].term.ddp_hdr[1], 0x44);
	assert_int_equal(ddp_stag_invalidate(f->ctx[1], foreign), 0); /* still valid */
	assert_int_equal(ddp_rdmap_post_send(f->sd[0].qp, 0, 0, &v, 1, NULL), DDP_ERR_STREAM);
	assert_int_equal(ddp_pd_free(pd), 0);
	fx_free(f);
}

/* RFC 5040 §4.3: RDMA Write is tagged (control 0x40), places data, and
 * completes only at the source. */
static void test_rdmap_write_places_and_completes_at_source(void **state)
{
	struct fx *f = fx_new(1, 1, 1, 1, 0);
	uint8_t sink[300] = { 0 }, src[250];
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i * 7);
	uint32_t st = reg(f, 1, sink, sizeof(sink), DDP_ACCESS_REMOTE_WRITE);
	struct iovec v = { src, sizeof(src) };
	assert_int_equal(ddp_rdmap_post_write(f->sd[0].qp, st, 50, &v, 1, src), 0);
	memllp_pump(f->m);
	assert_memory_equal(sink + 50, src, sizeof(src));
	assert_int_equal(sent(f, 0, 0)[0] & 0x80, 0x80);
	assert_int_equal(sent(f, 0, 0)[1], 0x40);
	assert_int_equal(f->sd[0].nwc, 1);
	assert_int_equal(f->sd[0].wc[0].kind, DDP_RDMAP_WC_WRITE);
	assert_int_equal(f->sd[0].wc[0].status, 0);
	assert_int_equal(f->sd[1].nwc, 0);
	fx_free(f);
}

/* RFC 5041 §7.2 via RFC 5040 §7.2: a Write past the sink's bounds is a DDP
 * tagged error (1, 1, 0x01); the Terminate carries the DDP header. */
static void test_rdmap_write_past_bounds_terminates_with_ddp_header(void **state)
{
	struct fx *f = fx_new(1, 1, 1, 1, 0);
	uint8_t sink[64], src[80] = { 0 };
	uint32_t st = reg(f, 1, sink, sizeof(sink), DDP_ACCESS_REMOTE_WRITE);
	struct iovec v = { src, sizeof(src) };
	assert_int_equal(ddp_rdmap_post_write(f->sd[0].qp, st, 0, &v, 1, NULL), 0);
	memllp_pump(f->m);
	struct side *a = &f->sd[0], *b = &f->sd[1];
	assert_int_equal(b->nterm, 1);
	assert_true(b->term_sent);
	assert_int_equal(a->nterm, 1);
	assert_int_equal(a->term.layer, DDP_LAYER_DDP);
	assert_int_equal(a->term.etype, DDP_ETYPE_TAGGED);
	assert_int_equal(a->term.code, DDP_ECODE_T_BOUNDS);
	assert_true(a->term.m && a->term.d);
	assert_int_equal(a->term.ddp_hdr_len, DDP_TAGGED_HDR_LEN);
	assert_int_equal(a->term.ddp_hdr[1], 0x40);
	assert_false(a->term.swapped);
	fx_free(f);
}

/* RFC 5040 §4.4/§4.5: Read Request on QN 1 (28 octets), Response tagged
 * into the sink STag with control 0x42; RFC 5040 §5.5: a Send posted after
 * the Read completes after it. */
static void test_rdmap_read_then_send_complete_in_order(void **state)
{
	struct fx *f = fx_new(1, 1, 1, 1, 0);
	uint8_t src[200], sink[200] = { 0 };
	for (size_t i = 0; i < sizeof(src); i++)
		src[i] = (uint8_t)(i ^ 0x5a);
	uint32_t s_src = reg(f, 1, src, sizeof(src), DDP_ACCESS_REMOTE_READ);
	uint32_t s_sink = reg(f, 0, sink, sizeof(sink), DDP_ACCESS_REMOTE_WRITE);
	assert_int_equal(ddp_rdmap_post_recv(f->sd[1].qp, f->rbuf[0], 256, NULL), 0);
	assert_int_equal(ddp_rdmap_post_read(f->sd[0].qp, s_sink, 0, s_src, 0, 200, (void *)1), 0);
	struct iovec v = { "after", 5 };
	assert_int_equal(ddp_rdmap_post_send(f->sd[0].qp, 0, 0, &v, 1, (void *)2), 0);
	memllp_pump(f->m);
	const uint8_t *rq = sent(f, 0, 0);
	assert_int_equal(rq[1], 0x41);
	assert_int_equal(rq[9], DDP_RDMAP_QN_READ); /* QN low octet */
	assert_int_equal(f->m->side[0].sent[0].len, DDP_UNTAGGED_HDR_LEN + 28);
	assert_int_equal(sent(f, 1, 0)[1], 0x42);
	assert_memory_equal(sink, src, sizeof(src));
	struct side *a = &f->sd[0];
	assert_int_equal(a->nwc, 2);
	assert_int_equal(a->wc[0].kind, DDP_RDMAP_WC_READ);
	assert_int_equal(a->wc[0].len, 200);
	assert_ptr_equal(a->wc[0].wr_ctx, (void *)1);
	assert_int_equal(a->wc[1].kind, DDP_RDMAP_WC_SEND);
	assert_int_equal(f->sd[1].nwc, 1);
	fx_free(f);
}

/* RFC 5040 §5.5 / RFC 6581: ORD 1 -> the second Read Request waits for the
 * first Response. */
static void test_rdmap_ord_limits_outstanding_reads(void **state)
{
	struct fx *f = fx_new(4, 1, 4, 4, 0);
	uint8_t src[40], sink[40];
	memset(src, 9, sizeof(src));
	uint32_t s_src = reg(f, 1, src, sizeof(src), DDP_ACCESS_REMOTE_READ);
	uint32_t s_sink = reg(f, 0, sink, sizeof(sink), DDP_ACCESS_REMOTE_WRITE);
	assert_int_equal(ddp_rdmap_post_read(f->sd[0].qp, s_sink, 0, s_src, 0, 20, NULL), 0);
	assert_int_equal(ddp_rdmap_post_read(f->sd[0].qp, s_sink, 20, s_src, 20, 20, NULL), 0);
	assert_int_equal(f->m->side[0].nsent, 1);
	memllp_pump(f->m);
	assert_int_equal(f->m->side[0].nsent, 2);
	assert_int_equal(f->sd[0].nwc, 2);
	assert_int_equal(f->sd[0].wc[1].status, 0);
	assert_int_equal(f->sd[0].nterm, 0);
	fx_free(f);
}

/* RFC 5040 §5.3 (IRD): a requester that ignores our IRD of 1 finds no QN 1
 * buffer for its second Request: Terminate (DDP, untagged, 0x02). */
static void test_rdmap_read_beyond_ird_terminates(void **state)
{
	struct fx *f = fx_new(1, 2, 1, 1, 1);
	uint8_t src[40], sink[40];
	uint32_t s_src = reg(f, 1, src, sizeof(src), DDP_ACCESS_REMOTE_READ);
	uint32_t s_sink = reg(f, 0, sink, sizeof(sink), DDP_ACCESS_REMOTE_WRITE);
	assert_int_equal(ddp_rdmap_post_read(f->sd[0].qp, s_sink, 0, s_src, 0, 10, NULL), 0);
	assert_int_equal(ddp_rdmap_post_read(f->sd[0].qp, s_sink, 10, s_src, 10, 10, NULL), 0);
	/* both Requests reach side 1 before its first Response completes */
	memllp_pump_one(f->m, 0);
	memllp_pump_one(f->m, 0);
	memllp_pump(f->m);
	struct side *b = &f->sd[1], *a = &f->sd[0];
	assert_int_equal(b->nterm, 1);
	assert_true(b->term_sent);
	assert_int_equal(a->term.layer, DDP_LAYER_DDP);
	assert_int_equal(a->term.etype, DDP_ETYPE_UNTAGGED);
	assert_int_equal(a->term.code, DDP_ECODE_U_MSN_NOBUF);
	assert_int_equal(a->term.ddp_hdr[9], DDP_RDMAP_QN_READ);
	/* the unanswered Read is flushed */
	assert_int_equal(a->wc[a->nwc - 1].kind, DDP_RDMAP_WC_READ);
	assert_int_equal(a->wc[a->nwc - 1].status, DDP_ERR_ABORTED);
	fx_free(f);
}

/* RFC 5040 §4.8: Read of a region without remote-read access: (RDMAP,
 * remote protection, access rights) with the DDP and RDMAP headers; bounds
 * and invalid STag get their own codes. */
static void read_error(unsigned access, uint64_t to, uint32_t len, int bad_stag, uint8_t code)
{
	struct fx *f = fx_new(1, 1, 1, 1, 0);
	uint8_t src[40], sink[40];
	uint32_t s_src = reg(f, 1, src, sizeof(src), access);
	uint32_t s_sink = reg(f, 0, sink, sizeof(sink), DDP_ACCESS_REMOTE_WRITE);
	assert_int_equal(ddp_rdmap_post_read(f->sd[0].qp, s_sink, 0, bad_stag ? s_src ^ 0x55 : s_src,
					     to, len, NULL), 0);
	memllp_pump(f->m);
	struct side *a = &f->sd[0];
	assert_int_equal(a->nterm, 1);
	assert_int_equal(a->term.layer, DDP_LAYER_RDMAP);
	assert_int_equal(a->term.etype, DDP_RDMAP_ETYPE_PROTECTION);
	assert_int_equal(a->term.code, code);
	assert_true(a->term.d && a->term.r);
	assert_int_equal(a->term.rdmap_hdr_len, 28);
	assert_int_equal(a->term.rdmap_hdr[3], (uint8_t)s_sink);
	assert_int_equal(a->nwc, 1);
	assert_int_equal(a->wc[0].status, DDP_ERR_ABORTED);
	fx_free(f);
}
static void test_rdmap_read_without_read_access_terminates(void **state)
{
	read_error(DDP_ACCESS_REMOTE_WRITE, 0, 10, 0, DDP_RDMAP_ECODE_ACCESS);
}
static void test_rdmap_read_past_bounds_terminates(void **state)
{
	read_error(DDP_ACCESS_REMOTE_READ, 30, 11, 0, DDP_RDMAP_ECODE_BOUNDS);
}
static void test_rdmap_read_invalid_stag_terminates(void **state)
{
	read_error(DDP_ACCESS_REMOTE_READ, 0, 10, 1, DDP_RDMAP_ECODE_INVALID_STAG);
}
static void test_rdmap_read_to_wrap_terminates(void **state)
{
	read_error(DDP_ACCESS_REMOTE_READ, UINT64_MAX - 3, 10, 0, DDP_RDMAP_ECODE_TO_WRAP);
}

/* Raw segments: RFC 5040 §4.2 RV must be 1, §4.8 opcodes must fit the QN. */
static void inject_untagged(struct fx *f, uint8_t ctl, uint32_t qn)
{
	uint8_t h[DDP_UNTAGGED_HDR_LEN + 4] = { 0x41, ctl };
	h[9] = (uint8_t)qn;
	h[13] = 1; /* MSN 1 */
	memllp_inject(f->m, 1, 0, UINT32_MAX, h, sizeof(h), 0);
	memllp_pump(f->m);
}
static void test_rdmap_bad_version_and_opcode_terminate(void **state)
{
	struct fx *f = fx_new(1, 1, 1, 1, 0);
	assert_int_equal(ddp_rdmap_post_recv(f->sd[1].qp, f->rbuf[0], 256, f->rbuf[0]), 0);
	inject_untagged(f, 0x83, 0); /* RV 2 */
	assert_int_equal(f->sd[0].term.code, DDP_RDMAP_ECODE_VERSION);
	assert_int_equal(f->sd[0].term.etype, DDP_RDMAP_ETYPE_OPERATION);
	/* first error wins: a second bad message changes nothing */
	inject_untagged(f, 0x40, 0);
	assert_int_equal(f->sd[1].nterm, 1);
	assert_int_equal(f->sd[0].term.code, DDP_RDMAP_ECODE_VERSION);
	fx_free(f);

	f = fx_new(1, 1, 1, 1, 0);
	assert_int_equal(ddp_rdmap_post_recv(f->sd[1].qp, f->rbuf[0], 256, f->rbuf[0]), 0);
	inject_untagged(f, 0x40, 0); /* RDMA Write opcode on QN 0 */
	assert_int_equal(f->sd[0].term.code, DDP_RDMAP_ECODE_OPCODE);
	fx_free(f);
}

/* A Terminate in siw's layout (Layer in the low nibble, Hdrct in the low
 * bits) is decoded and reported; the queue pair stops, and its posted
 * buffer comes back flushed when it is freed. */
static void test_rdmap_siw_terminate_received_and_flushed(void **state)
{
	struct fx *f = fx_new(1, 1, 1, 1, 0);
	assert_int_equal(ddp_rdmap_post_recv(f->sd[1].qp, f->rbuf[0], 256, f->rbuf[0]), 0);
	uint8_t h[DDP_UNTAGGED_HDR_LEN + 4] = { 0x41, 0x47 };
	h[9] = DDP_RDMAP_QN_TERM;
	h[13] = 1;
	memcpy(h + DDP_UNTAGGED_HDR_LEN, "\x02\x02\x00\x00", 4); /* LLP CRC error */
	memllp_inject(f->m, 1, 0, UINT32_MAX, h, sizeof(h), 0);
	struct side *b = &f->sd[1];
	assert_int_equal(b->nterm, 1);
	assert_false(b->term_sent);
	assert_true(b->term.swapped);
	assert_int_equal(b->term.layer, DDP_LAYER_LLP);
	assert_int_equal(b->term.code, DDP_MPA_ECODE_CRC);
	assert_true(ddp_rdmap_qp_failed(b->qp));
	assert_int_equal(b->nwc, 0);
	ddp_rdmap_qp_free(b->qp);
	b->qp = NULL;
	assert_int_equal(b->nwc, 1);
	assert_int_equal(b->wc[0].kind, DDP_RDMAP_WC_RECV);
	assert_int_equal(b->wc[0].status, DDP_ERR_ABORTED);
	assert_int_equal(f->m->side[1].nsent, 0); /* no Terminate back */
	fx_free(f);
}

/* The peer closes its sending half (FIN, SCTP stream reset) with work
 * outstanding: nothing more can arrive, so the queue pair ends: the
 * terminate callback runs once with t = NULL and the receive that can
 * never complete is flushed (rping's client ends its
 * last iteration with exactly such a disconnect). */
static void test_rdmap_peer_half_close_ends_the_qp(void **state)
{
	struct fx *f = fx_new(1, 1, 1, 1, 0);
	struct side *b = &f->sd[1];
	assert_int_equal(ddp_rdmap_post_recv(b->qp, f->rbuf[0], 256, f->rbuf[0]), 0);
	ddp_llp_peer_closed(memllp_session(f->m, 1), 0);
	assert_int_equal(b->nterm, 1);
	assert_true(b->term_null);
	assert_true(ddp_rdmap_qp_failed(b->qp));
	ddp_rdmap_qp_free(b->qp);
	b->qp = NULL;
	assert_int_equal(b->nwc, 1); /* the receive, flushed */
	assert_int_equal(b->wc[0].kind, DDP_RDMAP_WC_RECV);
	assert_true(b->wc[0].status < 0);
	fx_free(f);
}

/* The lifetime rule (ddp.h): a queue pair freed inside its own completion
 * callback is freed (0) and silent at once: with more work completing in
 * the same pump, its side sees no completion or terminate after the one
 * it freed in; the memory goes when the frame unwinds (ASan/valgrind). */
static void test_rdmap_qp_free_inside_its_callback_silences_it(void **state)
{
	(void)state;
	struct fx *f = fx_new(1, 1, 1, 1, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ddp_rdmap_post_recv(f->sd[1].qp, f->rbuf[i], 256, f->rbuf[i]), 0);
	struct iovec v = { "x", 1 };
	for (int i = 0; i < 4; i++)
		assert_int_equal(ddp_rdmap_post_send(f->sd[0].qp, 0, 0, &v, 1, NULL), 0);
	free_in_complete = 0;
	memllp_pump(f->m);
	assert_int_equal(free_in_complete, 0);
	free_in_complete = 1;
	struct side *freed = f->sd[0].freed ? &f->sd[0] : &f->sd[1];
	assert_true(freed->freed);
	assert_null(freed->qp);
	assert_int_equal(freed->nwc, 1); /* the one it freed in, no more */
	assert_int_equal(freed->after_free, 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_rdmap_qp_free_inside_its_callback_silences_it),
		cmocka_unit_test(test_rdmap_send_variants_deliver_in_order),
		cmocka_unit_test(test_rdmap_send_inv_foreign_stag_terminates),
		cmocka_unit_test(test_rdmap_write_places_and_completes_at_source),
		cmocka_unit_test(test_rdmap_write_past_bounds_terminates_with_ddp_header),
		cmocka_unit_test(test_rdmap_read_then_send_complete_in_order),
		cmocka_unit_test(test_rdmap_ord_limits_outstanding_reads),
		cmocka_unit_test(test_rdmap_read_beyond_ird_terminates),
		cmocka_unit_test(test_rdmap_read_without_read_access_terminates),
		cmocka_unit_test(test_rdmap_read_past_bounds_terminates),
		cmocka_unit_test(test_rdmap_read_invalid_stag_terminates),
		cmocka_unit_test(test_rdmap_read_to_wrap_terminates),
		cmocka_unit_test(test_rdmap_bad_version_and_opcode_terminate),
		cmocka_unit_test(test_rdmap_siw_terminate_received_and_flushed),
		cmocka_unit_test(test_rdmap_peer_half_close_ends_the_qp),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
