/*
 * test_order: out-of-order placement with in-order, at-most-once delivery
 * (RFC 5041 §5.3/§5.4) for LLPs that pass an ordering number (SCTP-like):
 * the reorder window, duplicates, far-outside sequence numbers, rx_skip.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "chopper.h"
#include "ddpwire.h"
#include "memllp.h"

#define WIN 16

struct fx {
	memllp *m;
	ddp_session *rx;
	uint8_t tbuf[256];
	uint8_t ubuf[4][32];
	uint32_t stag;
	int hdr_first;
};

static void fx_new(struct fx *f, int hdr_first)
{
	memllp_cfg cfg = { .seed = 5, .hdr_first = hdr_first,
			   .out_of_order = 1, .share_ctx = 1 };
	ddp_mr_attr a;

	memset(f, 0, sizeof(*f));
	memset(f->tbuf, 0xCC, sizeof(f->tbuf));
	memset(f->ubuf, 0xCC, sizeof(f->ubuf));
	f->hdr_first = hdr_first;
	cfg.scfg[1].reorder_window = WIN;
	assert_int_equal(memllp_new(&cfg, &f->m), 0);
	f->rx = memllp_session(f->m, 1);
	a = (ddp_mr_attr){ .addr = f->tbuf, .len = sizeof(f->tbuf),
			   .access = DDP_ACCESS_REMOTE_WRITE,
			   .session = f->rx, .stream = 0 };
	assert_int_equal(ddp_stag_register(ddp_session_ctx(f->rx), &a,
					   &f->stag), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ddp_post_recv(f->rx, 0, 0, f->ubuf[i], 32,
					       NULL), 0);
}

static void fx_free(struct fx *f)
{
	memllp_free(f->m);
}

static int inj(struct fx *f, uint32_t seq, const uint8_t *seg, size_t n)
{
	return memllp_inject(f->m, 1, 0, seq, seg, n, f->hdr_first);
}

/* untagged, one segment, MSN msn, payload 4 x val */
static size_t useg(uint8_t *seg, uint32_t msn, uint8_t val)
{
	uint8_t p[4];

	memset(p, val, 4);
	return tw_untagged(seg, 1, 1, msn, 0, msn, 0, p, 4);
}

/* DDP-DLV-1, DDP-ORD-3, DDP-ORD-5, DDP-LLP-5: RFC 5041 §5.4: a later
 * message is placed at once but delivered only after every earlier one. */
static void test_dlv1_ord3_later_message_placed_but_held(void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		uint8_t seg[64], p[8];
		size_t n;

		fx_new(&f, hf);
		memllp_side *sd = &f.m->side[1];
		memset(p, 0x77, 8);
		/* seq 2: tagged write, L=1 (its own message) */
		n = tw_tagged(seg, 1, 1, 5, f.stag, 100, p, 8);
		assert_int_equal(inj(&f, 2, seg, n), 0);
		assert_memory_equal(f.tbuf + 100, p, 8); /* placed (ORD-3) */
		assert_int_equal(sd->ndlv, 0);		 /* not delivered */
		/* seq 1: untagged MSN 2 */
		n = useg(seg, 2, 0x22);
		assert_int_equal(inj(&f, 1, seg, n), 0);
		assert_int_equal(f.ubuf[1][0], 0x22);
		assert_int_equal(sd->ndlv, 0);
		/* seq 0: untagged MSN 1 releases all three, in order */
		n = useg(seg, 1, 0x11);
		assert_int_equal(inj(&f, 0, seg, n), 0);
		assert_int_equal(sd->nerr, 0);
		assert_int_equal(sd->ndlv, 3);
		assert_int_equal(sd->dlv[0].d.msn, 1);
		assert_int_equal(sd->dlv[0].d.tagged, 0);
		assert_int_equal(sd->dlv[1].d.msn, 2);
		assert_int_equal(sd->dlv[2].d.tagged, 1);
		assert_int_equal(sd->dlv[2].d.len, 8);
		assert_true(sd->dlv[2].d.to == 100);
		fx_free(&f);
	}
}

/* DDP-DLV-1: a multi-segment message is delivered only when all its
 * segments are placed, whatever order they come in. */
static void test_dlv1_message_waits_for_every_segment(void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		uint8_t seg[64], p[10];
		size_t n;

		fx_new(&f, hf);
		memllp_side *sd = &f.m->side[1];
		memset(p, 0x31, 10);
		/* message = seq 0 (MO 0), 1 (MO 10), 2 (MO 20, L=1) */
		n = tw_untagged(seg, 1, 1, 9, 0, 1, 20, p, 10);
		assert_int_equal(inj(&f, 2, seg, n), 0);
		n = tw_untagged(seg, 0, 1, 9, 0, 1, 0, p, 10);
		assert_int_equal(inj(&f, 0, seg, n), 0);
		assert_int_equal(sd->ndlv, 0);
		n = tw_untagged(seg, 0, 1, 9, 0, 1, 10, p, 10);
		assert_int_equal(inj(&f, 1, seg, n), 0);
		assert_int_equal(sd->ndlv, 1);
		assert_int_equal(sd->dlv[0].d.len, 30);
		assert_int_equal(sd->nerr, 0);
		fx_free(&f);
	}
}

/* DDP-LLP-11, DDP-ORD-4, DDP-ORD-3: duplicates inside the window and of
 * already consumed numbers are harmless: nothing delivered twice, no
 * error. */
static void test_llp11_ord4_duplicates_are_harmless(void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		uint8_t seg[64];
		size_t n;

		fx_new(&f, hf);
		memllp_side *sd = &f.m->side[1];
		n = useg(seg, 2, 0x22);
		assert_int_equal(inj(&f, 1, seg, n), 0);
		assert_int_equal(inj(&f, 1, seg, n), 0); /* in-window dup */
		n = useg(seg, 1, 0x11);
		assert_int_equal(inj(&f, 0, seg, n), 0);
		assert_int_equal(sd->ndlv, 2);
		assert_int_equal(inj(&f, 0, seg, n), 0); /* consumed dup */
		n = useg(seg, 2, 0x22);
		assert_int_equal(inj(&f, 1, seg, n), 0);
		assert_int_equal(sd->ndlv, 2);
		assert_int_equal(sd->nerr, 0);
		/* the stream still works: seq 2 is MSN 3 */
		n = useg(seg, 3, 0x33);
		assert_int_equal(inj(&f, 2, seg, n), 0);
		assert_int_equal(sd->ndlv, 3);
		assert_int_equal(sd->dlv[2].d.msn, 3);
		assert_int_equal(sd->nerr, 0);
		fx_free(&f);
	}
}

/* DDP-LLP-5: a sequence number at or beyond the window is an LLP error
 * (EType 0x3, DDP_ECODE_LLP_BAD_SSN) and places nothing. */
static void test_llp5_seq_outside_window_is_bad_ssn(void **state)
{
	static const uint32_t seqs[] = { WIN, WIN + 1, 0x7FFF };

	for (int hf = 0; hf < 2; hf++) {
		for (size_t i = 0; i < 3; i++) {
			struct fx f;
			uint8_t seg[64], p[4] = { 9, 9, 9, 9 };
			size_t n;

			fx_new(&f, hf);
			memllp_side *sd = &f.m->side[1];
			n = tw_tagged(seg, 1, 1, 0, f.stag, 0, p, 4);
			assert_int_equal(inj(&f, seqs[i], seg, n), 0);
			assert_int_equal(sd->nerr, 1);
			assert_int_equal(sd->err[0].etype, DDP_ETYPE_LLP);
			assert_int_equal(sd->err[0].code,
					 DDP_ECODE_LLP_BAD_SSN);
			assert_int_equal(f.tbuf[0], 0xCC);
			assert_int_equal(sd->ndlv, 0);
			fx_free(&f);
		}
	}
}

/* The last number inside the window is accepted and placed. */
static void test_seq_at_window_edge_is_accepted(void **state)
{
	struct fx f;
	uint8_t seg[64], p[4] = { 9, 9, 9, 9 };
	size_t n;

	fx_new(&f, 1);
	n = tw_tagged(seg, 1, 1, 0, f.stag, 0, p, 4);
	assert_int_equal(inj(&f, WIN - 1, seg, n), 0);
	assert_int_equal(f.m->side[1].nerr, 0);
	assert_memory_equal(f.tbuf, p, 4);
	assert_int_equal(f.m->side[1].ndlv, 0);
	fx_free(&f);
}

/* DDP-LLP-11: a number older than the window base (already consumed) is
 * dropped silently, also across the 16-bit wrap. */
static void test_llp11_old_seq_dropped_silently(void **state)
{
	struct fx f;
	uint8_t seg[64];
	size_t n;

	fx_new(&f, 0);
	memllp_side *sd = &f.m->side[1];
	n = useg(seg, 1, 0x11);
	assert_int_equal(inj(&f, 0, seg, n), 0);
	assert_int_equal(sd->ndlv, 1);
	n = useg(seg, 2, 0x22);
	assert_int_equal(inj(&f, 0xFFFF, seg, n), 0); /* base - 2 */
	assert_int_equal(inj(&f, 0, seg, n), 0);      /* base - 1 */
	assert_int_equal(sd->nerr, 0);
	assert_int_equal(sd->ndlv, 1);
	assert_int_equal(f.ubuf[1][0], 0xCC);
	fx_free(&f);
}

/* ddp_llp_rx_skip: a consumed number that is no DDP segment lets the
 * window advance (SCTP session-control chunks). */
static void test_rx_skip_advances_window(void **state)
{
	struct fx f;
	uint8_t seg[64];
	size_t n;

	fx_new(&f, 1);
	memllp_side *sd = &f.m->side[1];
	n = useg(seg, 1, 0x11);
	assert_int_equal(inj(&f, 1, seg, n), 0);
	assert_int_equal(sd->ndlv, 0);
	assert_int_equal(ddp_llp_rx_skip(f.rx, 0, 0), 0);
	assert_int_equal(sd->ndlv, 1);
	/* skip ahead of base, then the hole before it */
	assert_int_equal(ddp_llp_rx_skip(f.rx, 0, 3), 0);
	n = useg(seg, 2, 0x22);
	assert_int_equal(inj(&f, 2, seg, n), 0);
	assert_int_equal(sd->ndlv, 2);
	n = useg(seg, 3, 0x33);
	assert_int_equal(inj(&f, 4, seg, n), 0);
	assert_int_equal(sd->ndlv, 3);
	assert_int_equal(sd->nerr, 0);
	assert_int_equal(ddp_llp_rx_skip(NULL, 0, 0), DDP_ERR_INVAL);
	assert_int_equal(ddp_llp_rx_skip(f.rx, 9, 0), DDP_ERR_INVAL);
	fx_free(&f);
}

/* A skip that cannot be recorded (the context's out-of-order memory is
 * used up: max_reorder_bytes) stops the stream with a local catastrophic
 * error (RFC 5041 §7.2, DDP-ERR-1) and returns DDP_ERR_LIMIT. Before, it
 * answered DDP_ERR_NOMEM and left the stream running: the skipped number
 * was never marked, so the stream stalled silently behind it. */
static void test_rx_skip_out_of_memory_stops_stream(void **state)
{
	memllp_cfg cfg = { .seed = 5, .hdr_first = 1, .out_of_order = 1 };
	ddp_ctx_config cc;
	ddp_ctx *ctx;
	memllp *m;
	uint8_t seg[64], p[4] = { 1, 2, 3, 4 };
	size_t n;

	(void)state;
	memset(&cc, 0, sizeof(cc));
	cc.max_reorder_bytes = 1; /* no reorder ring fits */
	assert_int_equal(ddp_ctx_new(&cc, &ctx), 0);
	cfg.ctx[0] = cfg.ctx[1] = ctx;
	cfg.scfg[1].reorder_window = WIN;
	assert_int_equal(memllp_new(&cfg, &m), 0);
	ddp_session *rx = memllp_session(m, 1);
	memllp_side *sd = &m->side[1];
	uint8_t ub[32];
	assert_int_equal(ddp_post_recv(rx, 0, 0, ub, sizeof(ub), NULL), 0);
	/* in order: needs no memory */
	assert_int_equal(ddp_llp_rx_skip(rx, 0, 0), 0);
	assert_int_equal(sd->nerr, 0);
	/* ahead of the hole at 1: has to be held, and cannot be */
	assert_int_equal(ddp_llp_rx_skip(rx, 0, 2), DDP_ERR_LIMIT);
	assert_int_equal(sd->nerr, 1);
	assert_int_equal(sd->err[0].stream, 0);
	assert_int_equal(sd->err[0].layer, DDP_LAYER_DDP);
	assert_int_equal(sd->err[0].etype, DDP_ETYPE_CATASTROPHIC);
	/* DDP-ERR-3: the stream is stopped, later segments are dropped */
	n = tw_untagged(seg, 1, 1, 0, 0, 1, 0, p, sizeof(p));
	assert_int_equal(memllp_inject(m, 1, 0, 1, seg, n, 1), 0);
	assert_int_equal(sd->ndlv, 0);
	assert_int_equal(sd->nerr, 1);
	memllp_free(m);
	assert_int_equal(ddp_ctx_free(ctx), 0);
}

/* Sequence numbers wrap at 2^16: a long run crosses the wrap. */
static void test_seq_wraps_at_16_bits(void **state)
{
	memllp_cfg cfg = { .seed = 77, .out_of_order = 1, .reorder_pct = 50,
			   .mulpdu = 40 };
	memllp *m = NULL;
	static uint8_t rbuf[64];
	uint8_t msg[22];
	uint32_t count = 70000;

	assert_int_equal(memllp_new(&cfg, &m), 0);
	memset(msg, 0x44, sizeof(msg)); /* 22 + 18 = one 40-octet segment */
	for (uint32_t i = 0; i < count; i++) {
		struct iovec iov = { msg, sizeof(msg) };

		assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0,
					       rbuf, sizeof(rbuf), NULL), 0);
		assert_int_equal(ddp_send_untagged(memllp_session(m, 0), 0, 0,
						   0, &iov, 1, NULL), 0);
		if (i % 256 == 255)
			memllp_pump(m);
	}
	memllp_pump(m);
	assert_int_equal(m->side[1].nerr, 0);
	assert_int_equal(m->side[1].ndlv, count);
	for (uint32_t i = 0; i < count; i++)
		assert_int_equal(m->side[1].dlv[i].d.msn, i + 1);
	memllp_free(m);
}

/* DDP-ORD-4, DDP-ORD-5, DDP-DLV-1, DDP-LLP-4, DDP-LLP-11, DDP-ORD-3:
 * random traffic over an LLP that reorders, duplicates and delays: every
 * message arrives once, in order, with its bytes. */
static void test_ord5_random_reorder_dup_drop_delivers_in_order(void **state)
{
	for (int round = 0; round < 8; round++) {
		memllp_cfg cfg = { .seed = 100 + (uint64_t)round,
				   .hdr_first = round & 1, .out_of_order = 1,
				   .reorder_pct = 60, .dup_pct = 15,
				   .drop_pct = 15, .mulpdu = 64,
				   .share_ctx = 1 };
		enum { NMSG = 40 };
		static uint8_t tbuf[NMSG * 100], ubuf[NMSG][200];
		uint8_t msg[NMSG][200];
		size_t len[NMSG];
		int tagged[NMSG];
		memllp *m = NULL;
		uint32_t stag;
		chopper c;

		chopper_seed(&c, (uint64_t)round);
		assert_int_equal(memllp_new(&cfg, &m), 0);
		ddp_session *rx = memllp_session(m, 1);
		ddp_mr_attr a = { .addr = tbuf, .len = sizeof(tbuf),
				  .to_base = 1ULL << 40,
				  .access = DDP_ACCESS_REMOTE_WRITE,
				  .session = rx, .stream = 0 };
		assert_int_equal(ddp_stag_register(ddp_session_ctx(rx), &a,
						   &stag), 0);
		memset(tbuf, 0, sizeof(tbuf));
		for (int i = 0; i < NMSG; i++) {
			struct iovec iov;

			len[i] = (size_t)chopper_below(&c, 101);
			tagged[i] = (int)chopper_below(&c, 2);
			chopper_fill(&c, msg[i], len[i]);
			iov.iov_base = msg[i];
			iov.iov_len = len[i];
			if (tagged[i]) {
				assert_int_equal(
					ddp_send_tagged(memllp_session(m, 0),
							0, stag,
							(1ULL << 40) +
								100 * (uint64_t)i,
							(uint8_t)i, &iov, 1,
							NULL),
					0);
			} else {
				assert_int_equal(ddp_post_recv(rx, 0, 0,
							       ubuf[i], 200,
							       NULL), 0);
				assert_int_equal(
					ddp_send_untagged(memllp_session(m, 0),
							  0, 0, (uint64_t)i,
							  &iov, 1, NULL),
					0);
			}
		}
		memllp_pump(m);
		memllp_side *sd = &m->side[1];
		assert_int_equal(sd->nerr, 0);
		assert_int_equal(sd->ndlv, NMSG);
		uint32_t msn = 1;
		for (int i = 0; i < NMSG; i++) {
			const ddp_delivery *d = &sd->dlv[i].d;

			assert_int_equal(d->tagged, tagged[i]);
			assert_int_equal(d->len, len[i]);
			assert_true(d->rsvdulp == (uint64_t)i);
			if (tagged[i]) {
				if (len[i])
					assert_memory_equal(tbuf + 100 * i,
							    msg[i], len[i]);
			} else {
				assert_int_equal(d->msn, msn++);
				assert_ptr_equal(d->buf, ubuf[i]);
				if (len[i])
					assert_memory_equal(ubuf[i], msg[i],
							    len[i]);
			}
		}
		memllp_free(m);
	}
}

/* Reposting in deliver works over an out-of-order LLP as over MPA: an
 * untagged message that overtakes earlier ones before its buffer is posted
 * waits (held, charged to the reorder budget) and is checked when its turn
 * comes. Here MSN 6 arrives first, with buffers for MSN 1..4 only; the ULP
 * posts two more before the earlier messages arrive; all six are delivered
 * in order, MSN 6 with its bytes. Before: (2, 0x03) MSN range at once. */
static void test_untagged_ahead_of_its_buffer_waits_for_its_turn(void **state)
{
	(void)state;
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		uint8_t seg[64], more[2][32];
		fx_new(&f, hf);
		memllp_side *sd = &f.m->side[1];
		size_t n = useg(seg, 6, 0x66);
		assert_int_equal(inj(&f, 5, seg, n), 0);
		assert_int_equal(sd->nerr, 0);
		assert_int_equal(sd->ndlv, 0);
		for (int i = 0; i < 2; i++)
			assert_int_equal(ddp_post_recv(f.rx, 0, 0, more[i], 32, NULL), 0);
		for (uint32_t k = 0; k < 5; k++) {
			n = useg(seg, k + 1, (uint8_t)(0x11 * (k + 1)));
			assert_int_equal(inj(&f, k, seg, n), 0);
		}
		assert_int_equal(sd->nerr, 0);
		assert_int_equal(sd->ndlv, 6);
		for (uint32_t k = 0; k < 6; k++)
			assert_int_equal(sd->dlv[k].d.msn, k + 1);
		assert_ptr_equal(sd->dlv[5].d.buf, more[1]);
		uint8_t want[4];
		memset(want, 0x66, 4);
		assert_memory_equal(more[1], want, 4);
		fx_free(&f);
	}
}

/* A held message whose buffer is still missing when its turn comes gets
 * the error an in-order LLP reports for it: (2, 0x02) no buffer, with its
 * header, after every earlier message was delivered. */
static void test_held_untagged_without_buffer_at_its_turn_is_reported(void **state)
{
	(void)state;
	struct fx f;
	uint8_t seg[64];
	fx_new(&f, 1);
	memllp_side *sd = &f.m->side[1];
	size_t n = useg(seg, 5, 0x55);
	assert_int_equal(inj(&f, 4, seg, n), 0);
	assert_int_equal(sd->nerr, 0);
	for (uint32_t k = 0; k < 4; k++) {
		n = useg(seg, k + 1, 0x10);
		assert_int_equal(inj(&f, k, seg, n), 0);
	}
	assert_int_equal(sd->ndlv, 4);
	assert_int_equal(sd->nerr, 1);
	assert_int_equal(sd->err[0].etype, DDP_ETYPE_UNTAGGED);
	assert_int_equal(sd->err[0].code, DDP_ECODE_U_MSN_NOBUF);
	assert_int_equal(tw_get32(sd->err[0].hdr + 10), 5); /* MSN of the header */
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dlv1_ord3_later_message_placed_but_held),
		cmocka_unit_test(test_dlv1_message_waits_for_every_segment),
		cmocka_unit_test(test_llp11_ord4_duplicates_are_harmless),
		cmocka_unit_test(test_llp5_seq_outside_window_is_bad_ssn),
		cmocka_unit_test(test_seq_at_window_edge_is_accepted),
		cmocka_unit_test(test_llp11_old_seq_dropped_silently),
		cmocka_unit_test(test_rx_skip_advances_window),
		cmocka_unit_test(test_rx_skip_out_of_memory_stops_stream),
		cmocka_unit_test(test_seq_wraps_at_16_bits),
		cmocka_unit_test(test_untagged_ahead_of_its_buffer_waits_for_its_turn),
		cmocka_unit_test(test_held_untagged_without_buffer_at_its_turn_is_reported),
		cmocka_unit_test(
			test_ord5_random_reorder_dup_drop_delivers_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
