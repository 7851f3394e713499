/*
 * The fair share of the context's out-of-order budget (src/order.c
 * ooo_charge, docs/fairness.md), on sessions over the
 * receive-only nullllp: segments go in through ddp_llp_rx_segment with an
 * explicit ordering number, as an out-of-order LLP (SCTP, RFC 5043) hands
 * them up.
 *
 * The budget holds 40 rings (reorder_window 64: 64 slots each). Five
 * hostile sessions hold one segment ahead on every one of their 32 streams
 * (160 rings wanted); a sixth session then receives two segments out of
 * order and must get both, in order (RFC 5041 §5.3 DDP-ORD-1, DDP-DLV-1).
 * RFC 5041 §8 DDP-SEC-12 (fair share; over-consumption detected and
 * reported). Refused streams get RFC 5041 §7.2 Local Catastrophic (layer DDP, type 0,
 * code 0x00) on their own session only.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include <ddp/ddp.h>
#include <ddp/llp.h>

#include "core.h" /* struct order_slot: the size of one ring */
#include "ddpwire.h"
#include "nullllp.h"

#define NS 6
#define NST 32
#define WIN 64
#define RINGS 40

struct sess {
	ddp_session *s;
	nullllp llp;
	int nerr[NST];
	ddp_error_info err[NST];
	unsigned ndlv[NST];
	uint32_t msn[NST][2];
	uint8_t buf[NST][2][32];
};

static struct sess S[NS];

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct sess *x = user;
	(void)s;
	if (d->status || d->stream >= NST)
		return;
	if (x->ndlv[d->stream] < 2)
		x->msn[d->stream][x->ndlv[d->stream]] = d->msn;
	x->ndlv[d->stream]++;
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct sess *x = user;
	(void)s;
	if (x->nerr[e->stream]++ == 0)
		x->err[e->stream] = *e;
}

static void seg(struct sess *x, uint32_t stream, uint32_t seq, uint32_t msn)
{
	uint8_t b[DDP_UNTAGGED_HDR_LEN + 8], pay[8] = {0};
	size_t n = tw_untagged(b, 1, 1, 0, 0, msn, 0, pay, sizeof pay);
	assert_int_equal(ddp_llp_rx_segment(x->s, stream, seq, b, n), 0);
}

static int held(const struct sess *x)
{
	int n = 0;
	for (int i = 0; i < NST; i++)
		n += x->nerr[i] == 0;
	return n;
}

static void setup(ddp_ctx **ctx, int nsessions)
{
	ddp_ctx_config cc = {.max_reorder_bytes = (uint64_t)RINGS * WIN * sizeof(struct order_slot)};
	assert_int_equal(ddp_ctx_new(&cc, ctx), 0);
	memset(S, 0, sizeof S);
	ddp_callbacks cb = {.deliver = on_deliver, .error = on_error};
	ddp_session_config sc = {.nstreams = NST, .nqueues = 1, .reorder_window = WIN};
	for (int i = 0; i < nsessions; i++) {
		assert_int_equal(
		    ddp_session_new(*ctx, &sc, &nullllp_ops, &S[i].llp, &cb, &S[i], &S[i].s), 0);
		for (int st = 0; st < NST; st++)
			for (int b = 0; b < 2; b++)
				assert_int_equal(ddp_post_recv(S[i].s, st, 0, S[i].buf[st][b], 32, NULL),
				                 0);
	}
}

static void teardown(ddp_ctx *ctx, int nsessions)
{
	for (int i = 0; i < nsessions; i++)
		ddp_session_free(S[i].s); /* NULL: already gone */
	assert_int_equal(ddp_ctx_free(ctx), 0);
}

static struct sess *late_session(ddp_ctx *ctx, int i)
{
	ddp_callbacks cb = {.deliver = on_deliver, .error = on_error};
	ddp_session_config sc = {.nstreams = NST, .nqueues = 1, .reorder_window = WIN};
	struct sess *g = &S[i];
	assert_int_equal(ddp_session_new(ctx, &sc, &nullllp_ops, &g->llp, &cb, g, &g->s), 0);
	for (int b = 0; b < 2; b++)
		assert_int_equal(ddp_post_recv(g->s, 0, 0, g->buf[0][b], 32, NULL), 0);
	return g;
}

/* two segments out of order on stream 0: both delivered, in order */
static void reorders(struct sess *g)
{
	seg(g, 0, 1, 2); /* the second segment first */
	seg(g, 0, 0, 1);
	assert_int_equal(g->nerr[0], 0);
	assert_int_equal(g->ndlv[0], 2);
	assert_int_equal(g->msn[0][0], 1);
	assert_int_equal(g->msn[0][1], 2);
}

static void assert_refusals_are_local_catastrophic(const struct sess *x)
{
	for (int st = 0; st < NST; st++)
		if (x->nerr[st]) {
			assert_int_equal(x->err[st].layer, DDP_LAYER_DDP);
			assert_int_equal(x->err[st].etype, DDP_ETYPE_CATASTROPHIC);
			assert_int_equal(x->err[st].code, 0);
		}
}

/* 5 hostile sessions pin at the same time (stream by stream, session by
 * session): each is held to its share, (40 - 5) / 5 = 7 rings, and gets
 * the error on its other streams; a 6th session that comes afterwards
 * still reorders (its first ring comes from the headroom). */
static void test_ooo_budget_five_pinning_together_held_to_shares(void **state)
{
	(void)state;
	ddp_ctx *ctx;
	setup(&ctx, NS - 1);
	for (int st = 0; st < NST; st++)
		for (int i = 0; i < NS - 1; i++)
			seg(&S[i], st, 5, 1); /* 5 ahead of the next expected (0) */
	for (int i = 0; i < NS - 1; i++) {
		print_message("hostile %d holds %d rings\n", i, held(&S[i]));
		assert_int_equal(held(&S[i]), (RINGS - RINGS / 8) / (NS - 1));
		assert_refusals_are_local_catastrophic(&S[i]);
	}
	reorders(late_session(ctx, NS - 1));
	teardown(ctx, NS);
}

/* 5 hostile sessions pin one after the other: the first borrows what no
 * one else claims, the next ones get what is left; the headroom stays for
 * first rings, so a 6th session that comes afterwards still reorders. */
static void test_ooo_budget_five_pinning_in_turn_late_session_reorders(void **state)
{
	(void)state;
	ddp_ctx *ctx;
	setup(&ctx, NS - 1);
	int total = 0;
	for (int i = 0; i < NS - 1; i++) {
		for (int st = 0; st < NST; st++)
			seg(&S[i], st, 5, 1);
		total += held(&S[i]);
		print_message("hostile %d holds %d rings\n", i, held(&S[i]));
		assert_refusals_are_local_catastrophic(&S[i]);
	}
	/* tier 2 stops at 7/8; each later one got its first ring beyond */
	assert_true(total <= RINGS - RINGS / 8 + (NS - 1));
	assert_true(total < (NS - 1) * NST);
	reorders(late_session(ctx, NS - 1));
	teardown(ctx, NS);
}

/* What a borrower holds comes back when its session goes: then the other
 * session is served again. */
static void test_ooo_budget_borrowed_rings_come_back(void **state)
{
	(void)state;
	ddp_ctx *ctx;
	setup(&ctx, 2);
	for (int st = 0; st < NST; st++)
		seg(&S[0], st, 5, 1);
	assert_int_equal(held(&S[0]), NST); /* alone: borrows beyond a half */
	for (int st = 0; st < NST / 2; st++)
		seg(&S[1], st, 5, 1);
	int before = 0;
	for (int st = 0; st < NST / 2; st++)
		before += S[1].nerr[st] == 0;
	assert_int_equal(before, RINGS - RINGS / 8 - NST); /* what was left */
	ddp_session_free(S[0].s);
	S[0].s = NULL;
	int after = 0;
	for (int st = NST / 2; st < NST; st++) {
		seg(&S[1], st, 5, 1);
		after += S[1].nerr[st] == 0;
	}
	print_message("second session: %d rings beside the borrower, %d more after it left\n",
	              before, after);
	assert_int_equal(after, NST / 2);
	teardown(ctx, 2);
}

/* Two sessions take what they can; each of the four others still gets
 * its first ring from the headroom. */
static void test_ooo_budget_first_ring_served_from_headroom(void **state)
{
	(void)state;
	ddp_ctx *ctx;
	setup(&ctx, NS);
	for (int st = 0; st < NST; st++)
		seg(&S[0], st, 5, 1);
	for (int st = 0; st < NST; st++)
		seg(&S[1], st, 5, 1);
	for (int i = 2; i < NS; i++) {
		seg(&S[i], 0, 5, 1);
		assert_int_equal(S[i].nerr[0], 0);
	}
	teardown(ctx, NS);
}

/* A session under its share is served as long as there is room, even when
 * others' unused shares would not leave room for it to borrow: the unused
 * shares are kept free from borrowers, not from the sessions they belong
 * to. Budget 800 (headroom 100, limit 700): A reorders alone and takes 400
 * (its share then is the whole 700); B and C each take a first ring of
 * 50; the share is now 233. B asks 50 more: within its share, 550 of 700
 * used, served (the old rule kept C's unused 183 free and refused B). B
 * then asks 150 more, past its share: refused, C's claim stays free. */
static void test_ooo_budget_within_share_needs_only_room(void **state)
{
	(void)state;
	struct ooo_budget b = {.max = 800};
	struct ooo_acct a, bb, c;
	ooo_join(&b, &a);
	ooo_join(&b, &bb);
	ooo_join(&b, &c);
	assert_int_equal(ooo_charge(&b, &a, 100), 0);
	assert_int_equal(ooo_charge(&b, &a, 300), 0);
	assert_int_equal(ooo_charge(&b, &bb, 50), 0);
	assert_int_equal(ooo_charge(&b, &c, 50), 0);
	assert_int_equal(ooo_charge(&b, &bb, 50), 0);
	assert_int_equal(bb.used, 100);
	assert_int_equal(ooo_charge(&b, &bb, 150), DDP_ERR_LIMIT);
	assert_int_equal(b.used, 550);
	ooo_refund(&b, &a, 400);
	ooo_refund(&b, &bb, 100);
	ooo_refund(&b, &c, 50);
	assert_int_equal(b.nactive, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ooo_budget_five_pinning_together_held_to_shares),
	    cmocka_unit_test(test_ooo_budget_five_pinning_in_turn_late_session_reorders),
	    cmocka_unit_test(test_ooo_budget_borrowed_rings_come_back),
	    cmocka_unit_test(test_ooo_budget_first_ring_served_from_headroom),
	    cmocka_unit_test(test_ooo_budget_within_share_needs_only_room),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
