/*
 * The fair share of the context's out-of-order budget (src/order.c
 * ooo_charge, docs/fairness.md; issue 15 finding 2), on sessions over the
 * receive-only nullllp: segments go in through ddp_llp_rx_segment with an
 * explicit ordering number, as an out-of-order LLP (SCTP, RFC 5043) hands
 * them up.
 *
 * The budget holds 40 rings (reorder_window 64: 64 slots each). Five
 * hostile sessions hold one segment ahead on every one of their 32 streams
 * (160 rings wanted); a sixth session then receives two segments out of
 * order and must get both, in order (RFC 5041 §5.3 DDP-ORD-1, DDP-DLV-1).
 * Refused streams get RFC 5041 §7.2 Local Catastrophic (layer DDP, type 0,
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
		ddp_session_free(S[i].s);
	assert_int_equal(ddp_ctx_free(ctx), 0);
}

/* 5 hostile sessions pin what they can, one after the other; a 6th one
 * that arrives afterwards still reorders. */
static void test_ooo_budget_late_session_reorders_beside_five_pinning(void **state)
{
	(void)state;
	ddp_ctx *ctx;
	setup(&ctx, NS - 1);
	for (int i = 0; i < NS - 1; i++)
		for (int st = 0; st < NST; st++)
			seg(&S[i], st, 5, 1); /* 5 ahead of the next expected (0) */
	int total = 0;
	for (int i = 0; i < NS - 1; i++) {
		total += held(&S[i]);
		print_message("hostile %d holds %d rings\n", i, held(&S[i]));
		/* every one wanted more than the budget allowed it */
		assert_true(held(&S[i]) < NST);
		for (int st = 0; st < NST; st++)
			if (S[i].nerr[st]) {
				assert_int_equal(S[i].err[st].layer, DDP_LAYER_DDP);
				assert_int_equal(S[i].err[st].etype, DDP_ETYPE_CATASTROPHIC);
				assert_int_equal(S[i].err[st].code, 0);
			}
	}
	assert_true(total <= RINGS - RINGS / 8); /* the headroom stayed free */

	ddp_callbacks cb = {.deliver = on_deliver, .error = on_error};
	ddp_session_config sc = {.nstreams = NST, .nqueues = 1, .reorder_window = WIN};
	struct sess *g = &S[NS - 1];
	assert_int_equal(ddp_session_new(ctx, &sc, &nullllp_ops, &g->llp, &cb, g, &g->s), 0);
	for (int b = 0; b < 2; b++)
		assert_int_equal(ddp_post_recv(g->s, 0, 0, g->buf[0][b], 32, NULL), 0);
	seg(g, 0, 1, 2); /* the second segment first */
	seg(g, 0, 0, 1);
	assert_int_equal(g->nerr[0], 0);
	assert_int_equal(g->ndlv[0], 2);
	assert_int_equal(g->msn[0][0], 1);
	assert_int_equal(g->msn[0][1], 2);
	teardown(ctx, NS);
}

/* With two sessions, each one's share is (40 - 5) / 2 rings: the first
 * to pin gets no more than that, so the second is served up to its own
 * share afterwards (no borrowing: a ring lent cannot be called back). */
static void test_ooo_budget_pinner_capped_other_served_up_to_share(void **state)
{
	(void)state;
	ddp_ctx *ctx;
	setup(&ctx, 2);
	int share = (RINGS - RINGS / 8) / 2; /* 17 whole rings */
	for (int st = 0; st < NST; st++)
		seg(&S[0], st, 5, 1);
	print_message("pinner holds %d of %d rings (share %d)\n", held(&S[0]), RINGS, share);
	assert_int_equal(held(&S[0]), share);
	for (int st = 0; st < share; st++)
		seg(&S[1], st, 5, 1);
	assert_int_equal(held(&S[1]), NST); /* its whole share: no error */
	seg(&S[1], share, 5, 1);	      /* one more: over its share */
	assert_int_equal(S[1].nerr[share], 1);
	assert_int_equal(S[1].err[share].etype, DDP_ETYPE_CATASTROPHIC);
	teardown(ctx, 2);
}

/* Two sessions take their whole share; each of the four others still
 * gets its first ring. */
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ooo_budget_late_session_reorders_beside_five_pinning),
	    cmocka_unit_test(test_ooo_budget_pinner_capped_other_served_up_to_share),
	    cmocka_unit_test(test_ooo_budget_first_ring_served_from_headroom),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
