/*
 * test_rx_placed: an untagged message is delivered only when every octet
 * of it was placed, once (src/uq.c uq_rx_segment). Crafted segments
 * through the in-memory LLP, in order (MPA-like) and with SCTP-like
 * ordering numbers placed out of order, with duplicates. A segment that
 * would leave octets of its message unplaced, or place some twice, stops
 * the stream with an invalid MO (2, 0x04); the buffer's earlier contents
 * (a previous peer's data) are never delivered.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "ddpwire.h"
#include "memllp.h"

#define BUFLEN 65536
#define STALE 0xEE

struct fx {
	memllp *m;
	ddp_session *rx;
	uint8_t *buf; /* posted on (0, 0), filled with STALE */
	int hdr_first, ordered;
};

static void fx_new(struct fx *f, int hdr_first, int ordered)
{
	memllp_cfg cfg = { .seed = 9, .hdr_first = hdr_first, .out_of_order = !ordered };

	memset(f, 0, sizeof(*f));
	f->hdr_first = hdr_first;
	f->ordered = ordered;
	cfg.scfg[1].reorder_window = 16;
	assert_int_equal(memllp_new(&cfg, &f->m), 0);
	f->rx = memllp_session(f->m, 1);
	f->buf = malloc(BUFLEN);
	assert_non_null(f->buf);
	memset(f->buf, STALE, BUFLEN); /* what a previous peer left there */
	assert_int_equal(ddp_post_recv(f->rx, 0, 0, f->buf, BUFLEN, NULL), 0);
}

static void fx_free(struct fx *f)
{
	memllp_free(f->m);
	free(f->buf);
}

/* Segment seq of MSN 1 on QN 0: plen octets of value v at mo. */
static int inj(struct fx *f, uint32_t seq, uint32_t mo, size_t plen, uint8_t v, int last)
{
	static uint8_t seg[18 + 256], pay[256];
	memset(pay, v, sizeof(pay));
	size_t n = tw_untagged(seg, last, 1, 0x77, 0, 1, mo, pay, plen);
	return memllp_inject(f->m, 1, 0, f->ordered ? DDP_LLP_INORDER : seq, seg, n, f->hdr_first);
}

static void assert_invalid_mo(struct fx *f, uint32_t mo)
{
	memllp_side *sd = &f->m->side[1];
	assert_int_equal(sd->ndlv, 0);
	assert_int_equal(sd->nerr, 1);
	assert_int_equal(sd->err[0].layer, DDP_LAYER_DDP);
	assert_int_equal(sd->err[0].etype, DDP_ETYPE_UNTAGGED);
	assert_int_equal(sd->err[0].code, DDP_ECODE_U_INVALID_MO);
	tw_hdr h;
	assert_int_equal(tw_decode(sd->err[0].hdr, sd->err[0].hdr_len, &h), 0);
	assert_int_equal(h.mo, mo); /* the segment that broke the count */
}

/* DDP-SEG-9, DDP-SEG-10: a message made of one zero-length L=1 segment at
 * MO 65536 would be 65,536 octets of whatever the buffer held. */
static void test_zero_length_last_segment_alone_delivers_nothing(void **state)
{
	(void)state;
	for (int hf = 0; hf < 2; hf++)
		for (int ordered = 0; ordered < 2; ordered++) {
			struct fx f;
			fx_new(&f, hf, ordered);
			assert_int_equal(inj(&f, 0, BUFLEN, 0, 0, 1), 0);
			assert_invalid_mo(&f, BUFLEN);
			fx_free(&f);
		}
}

/* DDP-SEG-9: a gap (octets 10..19 never sent) or an overlap (octets
 * 5..9 sent twice, so the count would reach the length with 15..19
 * missing) is refused when the segment comes in order; over an in-order
 * LLP it places nothing. */
static void test_gap_or_overlap_in_order_is_refused(void **state)
{
	(void)state;
	for (int hf = 0; hf < 2; hf++)
		for (int overlap = 0; overlap < 2; overlap++) {
			struct fx f;
			fx_new(&f, hf, 1);
			uint32_t mo = overlap ? 5 : 20;
			assert_int_equal(inj(&f, 0, 0, 10, 0x11, 0), 0);
			assert_int_equal(inj(&f, 1, mo, 10, 0x22, 1), 0);
			assert_invalid_mo(&f, mo);
			for (size_t i = 0; i < 30; i++) /* the refused segment placed nothing */
				assert_int_equal(f.buf[i], i < 10 ? 0x11 : STALE);
			fx_free(&f);
		}
}

/* DDP-ORD-5, DDP-LLP-11: segments placed out of order and repeated (the
 * LLP's duplicates, dropped) still count once each: the message is
 * delivered once, whole. */
static void test_out_of_order_with_duplicates_is_delivered_whole(void **state)
{
	(void)state;
	static const int order[] = { 2, 0, 2, 3, 0, 1, 3, 1 };
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		fx_new(&f, hf, 0);
		memllp_side *sd = &f.m->side[1];
		for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
			int k = order[i];
			assert_int_equal(inj(&f, (uint32_t)k, 10u * k, 10, (uint8_t)(0x30 + k), k == 3),
					 0);
		}
		assert_int_equal(sd->nerr, 0);
		assert_int_equal(sd->ndlv, 1);
		assert_int_equal(sd->dlv[0].d.len, 40);
		for (size_t i = 0; i < 40; i++)
			assert_int_equal(sd->dlv[0].data[i], 0x30 + i / 10);
		fx_free(&f);
	}
}

/* DDP-SEG-9 with out-of-order placement: a segment at the wrong MO placed
 * ahead of its turn is found when its turn comes (the ordering window's
 * order is the order the peer sent), whatever order they arrive in; the
 * message is never delivered. Covers a gap and a repeated offset sent
 * under a new ordering number (not an LLP duplicate). */
static void test_out_of_order_gap_or_repeat_is_refused(void **state)
{
	(void)state;
	static const int orders[][3] = { { 2, 1, 0 }, { 1, 2, 0 }, { 0, 2, 1 } };
	for (int hf = 0; hf < 2; hf++)
		for (int repeat = 0; repeat < 2; repeat++)
			for (size_t o = 0; o < 3; o++) {
				struct fx f;
				fx_new(&f, hf, 0);
				uint32_t mo1 = repeat ? 0 : 20; /* the one that breaks it */
				uint32_t mo[3] = { 0, mo1, mo1 + 10 };
				for (int i = 0; i < 3; i++) {
					int k = orders[o][i];
					assert_int_equal(inj(&f, (uint32_t)k, mo[k], 10, 0x40, k == 2), 0);
				}
				assert_invalid_mo(&f, mo1);
				fx_free(&f);
			}
}

/* DDP-SEG-9 for a segment that arrived early and before its buffer was
 * posted (it waits in the ordering window, src/rx.c hold_untagged): it is
 * checked when its turn comes, its MO included: MSN 2's only segment at
 * MO 5 stops the stream with (2, 0x04) once MSN 1 was delivered, and
 * leaves MSN 2's buffer as it was. */
static void test_held_segment_is_checked_at_its_turn(void **state)
{
	(void)state;
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		fx_new(&f, hf, 0);
		memllp_side *sd = &f.m->side[1];
		uint8_t seg[18 + 8], pay[8], later[64];
		memset(pay, 0x55, sizeof(pay));
		memset(later, STALE, sizeof(later));
		size_t n = tw_untagged(seg, 1, 1, 0x77, 0, 2, 5, pay, sizeof(pay));
		assert_int_equal(memllp_inject(f.m, 1, 0, 1, seg, n, hf), 0); /* held */
		assert_int_equal(ddp_post_recv(f.rx, 0, 0, later, sizeof(later), NULL), 0);
		assert_int_equal(inj(&f, 0, 0, 10, 0x11, 1), 0); /* MSN 1, whole */
		assert_int_equal(sd->ndlv, 1);
		assert_int_equal(sd->dlv[0].d.msn, 1);
		assert_int_equal(sd->nerr, 1);
		assert_int_equal(sd->err[0].etype, DDP_ETYPE_UNTAGGED);
		assert_int_equal(sd->err[0].code, DDP_ECODE_U_INVALID_MO);
		for (size_t i = 0; i < sizeof(later); i++)
			assert_int_equal(later[i], STALE);
		fx_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zero_length_last_segment_alone_delivers_nothing),
		cmocka_unit_test(test_gap_or_overlap_in_order_is_refused),
		cmocka_unit_test(test_out_of_order_with_duplicates_is_delivered_whole),
		cmocka_unit_test(test_out_of_order_gap_or_repeat_is_refused),
		cmocka_unit_test(test_held_segment_is_checked_at_its_turn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
