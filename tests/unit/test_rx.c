/*
 * test_rx: sink-side validation (RFC 5041 §7.1) with the exact (EType, Code)
 * of §7.2, through both receive entry points (whole segment and
 * header-first). Hostile segments are injected with memllp_inject(); every
 * buffer sits in an arena of canary bytes so a wrong write is caught.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "ddpwire.h"
#include "memllp.h"

#define CANARY 0xCC
#define FILL 0x5A
#define TBASE 0x1000ULL
#define TOFF 64	 /* tagged region: arena[64, 128) */
#define TLEN 64
#define U1OFF 192 /* untagged buffer MSN 1: arena[192, 224) */
#define U2OFF 256 /* untagged buffer MSN 2: arena[256, 288) */
#define ULEN 32
#define WRAPBASE (UINT64_MAX - 63) /* stag_wrap: same region, TO near 2^64 */

enum { S_GOOD, S_RO, S_OTHERPD, S_OTHERSTREAM, S_WRAP, S_UNKNOWN, S_BADKEY,
       S_REVOKED, S_NONE };

struct fx {
	ddp_ctx *ctx;
	ddp_pd *pda, *pdb;
	memllp *m;
	ddp_session *rx; /* side 1 */
	uint8_t arena[512];
	uint32_t stag[S_NONE];
	int hdr_first;
};

static uint32_t reg(struct fx *f, ddp_pd *pd, ddp_session *s, uint32_t stream,
		    uint64_t base, unsigned access)
{
	ddp_mr_attr a = { .addr = f->arena + TOFF, .len = TLEN,
			  .to_base = base, .access = access, .pd = pd,
			  .session = s, .stream = stream };
	uint32_t st = 0;

	assert_int_equal(ddp_stag_register(f->ctx, &a, &st), 0);
	return st;
}

static int registered(struct fx *f, uint32_t st)
{
	for (int i = 0; i < S_UNKNOWN; i++)
		if ((f->stag[i] >> 8) == (st >> 8))
			return 1;
	return 0;
}

static void fx_new(struct fx *f, int hdr_first)
{
	memllp_cfg cfg = { .seed = 11, .hdr_first = hdr_first };

	memset(f, 0, sizeof(*f));
	memset(f->arena, CANARY, sizeof(f->arena));
	f->hdr_first = hdr_first;
	assert_int_equal(ddp_ctx_new(NULL, &f->ctx), 0);
	assert_int_equal(ddp_pd_new(f->ctx, &f->pda), 0);
	assert_int_equal(ddp_pd_new(f->ctx, &f->pdb), 0);
	cfg.ctx[0] = cfg.ctx[1] = f->ctx;
	cfg.scfg[1].nstreams = 2;
	cfg.scfg[1].pd = f->pda;
	cfg.scfg[0].nstreams = 2;
	cfg.scfg[0].pd = f->pdb;
	assert_int_equal(memllp_new(&cfg, &f->m), 0);
	f->rx = memllp_session(f->m, 1);
	f->stag[S_GOOD] = reg(f, f->pda, NULL, 0, TBASE,
			      DDP_ACCESS_REMOTE_WRITE);
	f->stag[S_RO] = reg(f, f->pda, NULL, 0, TBASE, DDP_ACCESS_REMOTE_READ);
	f->stag[S_OTHERPD] = reg(f, f->pdb, NULL, 0, TBASE,
				 DDP_ACCESS_REMOTE_WRITE);
	f->stag[S_OTHERSTREAM] = reg(f, NULL, f->rx, 1, TBASE,
				     DDP_ACCESS_REMOTE_WRITE);
	f->stag[S_WRAP] = reg(f, f->pda, NULL, 0, WRAPBASE,
			      DDP_ACCESS_REMOTE_WRITE);
	f->stag[S_REVOKED] = reg(f, f->pda, NULL, 0, TBASE,
				 DDP_ACCESS_REMOTE_WRITE);
	assert_int_equal(ddp_stag_invalidate(f->ctx, f->stag[S_REVOKED]), 0);
	/* an index nobody registered, and the good index with a wrong key */
	uint32_t u = f->stag[S_GOOD] ^ 0x100;
	while (registered(f, u))
		u += 0x100;
	f->stag[S_UNKNOWN] = u;
	f->stag[S_BADKEY] = f->stag[S_GOOD] ^ 0x01;
	assert_int_equal(ddp_post_recv(f->rx, 0, 0, f->arena + U1OFF, ULEN,
				       (void *)1), 0);
	assert_int_equal(ddp_post_recv(f->rx, 0, 0, f->arena + U2OFF, ULEN,
				       (void *)2), 0);
}

static void fx_free(struct fx *f)
{
	static const int live[] = { S_GOOD, S_RO, S_OTHERPD, S_WRAP };

	for (size_t i = 0; i < sizeof(live) / sizeof(live[0]); i++)
		assert_int_equal(ddp_stag_invalidate(f->ctx, f->stag[live[i]]),
				 0);
	memllp_free(f->m);
	assert_int_equal(ddp_pd_free(f->pda), 0);
	assert_int_equal(ddp_pd_free(f->pdb), 0);
	assert_int_equal(ddp_ctx_free(f->ctx), 0);
}

static int inject(struct fx *f, uint32_t stream, const uint8_t *seg,
		  size_t len)
{
	return memllp_inject(f->m, 1, stream, DDP_LLP_INORDER, seg, len,
			     f->hdr_first);
}

static int arena_untouched(const struct fx *f)
{
	for (size_t i = 0; i < sizeof(f->arena); i++)
		if (f->arena[i] != CANARY)
			return 0;
	return 1;
}

/* One row of the §7.1 table. want_etype < 0: accepted. */
struct row {
	const char *id;
	int tagged;
	uint8_t dv;
	int stag;	/* S_* */
	uint64_t to;	/* absolute TO */
	uint32_t qn, msn, mo;
	size_t plen;
	int last;
	int want_etype, want_code, alt_code;
};

#define ACCEPT -1, 0, -1

static const struct row rows[] = {
	/* untagged, RFC 5041 §7.1 + the lead's fixed mapping */
	{ "DDP-VAL-U1 QN == nqueues", 0, 1, 0, 0, 3, 1, 0, 4, 1, 0x2, 0x01, -1 },
	{ "DDP-VAL-U1 QN 2^32-1", 0, 1, 0, 0, UINT32_MAX, 1, 0, 4, 1, 0x2, 0x01, -1 },
	{ "DDP-VAL-U2 DDP-ERR-7 no buffer on QN 1", 0, 1, 0, 0, 1, 1, 0, 4, 1, 0x2, 0x02, -1 },
	/* RFC 5041 §7.2: ahead of the posted buffers is "no buffer available"
	 * (0x02), before the first available one "MSN range" (0x03) */
	{ "DDP-VAL-U2 MSN one past last posted", 0, 1, 0, 0, 0, 3, 0, 4, 1, 0x2, 0x02, -1 },
	{ "DDP-VAL-U2 MSN far past last posted", 0, 1, 0, 0, 0, 1000, 0, 4, 1, 0x2, 0x02, -1 },
	{ "DDP-VAL-U2 MSN 1 on a QN with nothing posted", 0, 1, 0, 0, 1, 1, 0, 4, 1, 0x2, 0x02, -1 },
	{ "DDP-VAL-U5 MSN 0 on a QN with nothing posted", 0, 1, 0, 0, 1, 0, 0, 4, 1, 0x2, 0x03, -1 },
	{ "DDP-VAL-U5 MSN 0 before first", 0, 1, 0, 0, 0, 0, 0, 4, 1, 0x2, 0x03, -1 },
	{ "DDP-VAL-U5 MSN 2^32-1", 0, 1, 0, 0, 0, UINT32_MAX, 0, 4, 1, 0x2, 0x03, -1 },
	{ "DDP-VAL-U3 MO == buffer len", 0, 1, 0, 0, 0, 1, ULEN, 1, 1, 0x2, 0x04, -1 },
	{ "DDP-VAL-U3 MO 2^32-1", 0, 1, 0, 0, 0, 1, UINT32_MAX, 1, 1, 0x2, 0x04, -1 },
	{ "DDP-VAL-U4 MO+len one past", 0, 1, 0, 0, 0, 1, ULEN - 3, 4, 1, 0x2, 0x05, -1 },
	{ "DDP-VAL-U4 len > buffer", 0, 1, 0, 0, 0, 2, 0, ULEN + 1, 1, 0x2, 0x05, -1 },
	{ "DDP-HDR-8 untagged DV 2", 0, 2, 0, 0, 0, 1, 0, 4, 1, 0x2, 0x06, -1 },
	{ "DDP-HDR-8 untagged DV 0", 0, 0, 0, 0, 0, 1, 0, 4, 1, 0x2, 0x06, -1 },
	{ "DDP-HDR-8 untagged DV 3", 0, 3, 0, 0, 0, 1, 0, 4, 1, 0x2, 0x06, -1 },
	{ "DDP-ERR-8 zero-length untagged, no buffer", 0, 1, 0, 0, 1, 1, 0, 0, 1, 0x2, 0x02, -1 },
	/* DDP-SEG-9: a segment at MO > 0 with no octet of its message placed
	 * before it would complete a message with octets nobody placed */
	{ "DDP-SEG-9 last octet alone, MO ULEN-1", 0, 1, 0, 0, 0, 1, ULEN - 1, 1, 1, 0x2, 0x04, -1 },
	{ "DDP-SEG-9 L=0 alone at MO 1", 0, 1, 0, 0, 0, 1, 1, 4, 0, 0x2, 0x04, -1 },
	/* MSN 2 placed before MSN 1 completed (L=0: with an in-order LLP a
	 * completed MSN 2 ahead of MSN 1 is a peer error at delivery) */
	{ "untagged whole buffer", 0, 1, 0, 0, 0, 2, 0, ULEN, 0, ACCEPT },
	{ "DDP-ERR-8 zero-length untagged L=0 at MO 0", 0, 1, 0, 0, 0, 1, 0, 0, 0, ACCEPT },
	{ "DDP-SEG-9 zero-length untagged at MO 0xFFFFFFF0", 0, 1, 0, 0, 0, 1, 0xFFFFFFF0u, 0, 0, 0x2, 0x04, -1 },
	/* tagged */
	{ "DDP-VAL-T1 unknown STag", 1, 1, S_UNKNOWN, TBASE, 0, 0, 0, 4, 1, 0x1, 0x00, -1 },
	{ "DDP-VAL-T1 key mismatch", 1, 1, S_BADKEY, TBASE, 0, 0, 0, 4, 1, 0x1, 0x00, -1 },
	{ "DDP-VAL-T1 revoked STag", 1, 1, S_REVOKED, TBASE, 0, 0, 0, 4, 1, 0x1, 0x00, -1 },
	{ "DDP-VAL-T2 no remote write", 1, 1, S_RO, TBASE, 0, 0, 0, 4, 1, 0x1, 0x00, -1 },
	{ "DDP-VAL-T3 TO below base", 1, 1, S_GOOD, TBASE - 1, 0, 0, 0, 1, 1, 0x1, 0x01, -1 },
	{ "DDP-VAL-T3 TO at end", 1, 1, S_GOOD, TBASE + TLEN, 0, 0, 0, 1, 1, 0x1, 0x01, -1 },
	{ "DDP-VAL-T3 TO 0", 1, 1, S_GOOD, 0, 0, 0, 0, 1, 1, 0x1, 0x01, -1 },
	{ "DDP-VAL-T4 TO+len one past", 1, 1, S_GOOD, TBASE + TLEN - 4, 0, 0, 0, 5, 1, 0x1, 0x01, -1 },
	{ "DDP-VAL-T4 len > region", 1, 1, S_GOOD, TBASE, 0, 0, 0, TLEN + 1, 1, 0x1, 0x01, -1 },
	{ "DDP-VAL-T5 TO+len wraps 2^64 inside range", 1, 1, S_WRAP, UINT64_MAX - 3, 0, 0, 0, 8, 1, 0x1, 0x03, -1 },
	{ "DDP-VAL-T5 TO 2^64-1 far outside", 1, 1, S_GOOD, UINT64_MAX, 0, 0, 0, 2, 1, 0x1, 0x03, 0x01 },
	{ "DDP-VAL-T6 other PD", 1, 1, S_OTHERPD, TBASE, 0, 0, 0, 4, 1, 0x1, 0x02, -1 },
	{ "DDP-VAL-T6 other stream", 1, 1, S_OTHERSTREAM, TBASE, 0, 0, 0, 4, 1, 0x1, 0x02, -1 },
	{ "DDP-HDR-8 tagged DV 2", 1, 2, S_GOOD, TBASE, 0, 0, 0, 4, 1, 0x1, 0x04, -1 },
	{ "DDP-HDR-8 tagged DV 0", 1, 0, S_GOOD, TBASE, 0, 0, 0, 4, 1, 0x1, 0x04, -1 },
	{ "DDP-SEG-8 zero-length tagged, bogus STag/TO", 1, 1, S_UNKNOWN, UINT64_MAX, 0, 0, 0, 0, 1, ACCEPT },
	{ "DDP-SEG-8 zero-length tagged, read-only STag", 1, 1, S_RO, 7, 0, 0, 0, 0, 1, ACCEPT },
	{ "tagged first octet", 1, 1, S_GOOD, TBASE, 0, 0, 0, 1, 1, ACCEPT },
	{ "tagged last octet", 1, 1, S_GOOD, TBASE + TLEN - 1, 0, 0, 0, 1, 1, ACCEPT },
	{ "tagged whole region", 1, 1, S_GOOD, TBASE, 0, 0, 0, TLEN, 1, ACCEPT },
	{ "DDP-VAL-T5 last octets below 2^64", 1, 1, S_WRAP, UINT64_MAX - 3, 0, 0, 0, 3, 1, ACCEPT },
	{ "DDP-VAL-T5 last octet is TO 2^64-1", 1, 1, S_WRAP, UINT64_MAX - 3, 0, 0, 0, 4, 1, ACCEPT },
	{ "DDP-VAL-T4 first TO of the top region", 1, 1, S_WRAP, WRAPBASE, 0, 0, 0, TLEN, 1, ACCEPT },
	{ "DDP-HDR-6 reserved bits ignored", 1, 0x3d, S_GOOD, TBASE, 0, 0, 0, 4, 1, ACCEPT },
};

static size_t build(const struct fx *f, const struct row *r, uint8_t *seg)
{
	static uint8_t pay[128];
	uint8_t dv = r->dv & 3;
	size_t n;

	memset(pay, FILL, sizeof(pay));
	if (r->tagged)
		n = tw_tagged(seg, r->last, dv, 0x42, f->stag[r->stag], r->to,
			      pay, r->plen);
	else
		n = tw_untagged(seg, r->last, dv, 0x4243444546ULL, r->qn,
				r->msn, r->mo, pay, r->plen);
	seg[0] |= (uint8_t)(r->dv & TW_RSVD); /* DDP-HDR-6 rows */
	return n;
}

/* Expected written range of an accepted row: [*lo, *hi) in the arena. */
static void accepted_range(const struct row *r, size_t *lo, size_t *hi)
{
	if (r->plen == 0) {
		*lo = *hi = 0;
	} else if (r->tagged) {
		uint64_t base = r->stag == S_WRAP ? WRAPBASE : TBASE;

		*lo = TOFF + (size_t)(r->to - base);
		*hi = *lo + r->plen;
	} else {
		*lo = (r->msn == 1 ? U1OFF : U2OFF) + r->mo;
		*hi = *lo + r->plen;
	}
}

/* DDP-ERR-5, DDP-ERR-1, DDP-ERR-2, DDP-SEC-10, DDP-SEC-9, DDP-SEC-2:
 * RFC 5041 §7.1/§7.2: every row gives exactly its (EType, Code), places
 * nothing, and reports header + segment length; accepted rows place exactly
 * their bytes. */
static void run_table(int hdr_first)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct fx f;
		uint8_t seg[256];
		size_t n, lo, hi;

		fx_new(&f, hdr_first);
		n = build(&f, r, seg);
		print_message("row %zu (%s) %s\n", i, r->id,
			      hdr_first ? "header-first" : "whole");
		assert_int_equal(inject(&f, 0, seg, n), 0);
		memllp_side *sd = &f.m->side[1];
		if (r->want_etype >= 0) {
			assert_int_equal(sd->nerr, 1);
			assert_int_equal(sd->err[0].layer, DDP_LAYER_DDP);
			assert_int_equal(sd->err[0].etype, r->want_etype);
			if (r->alt_code >= 0 &&
			    sd->err[0].code == r->alt_code)
				;
			else
				assert_int_equal(sd->err[0].code,
						 r->want_code);
			assert_int_equal(sd->err[0].stream, 0);
			assert_true(sd->err[0].have_segment);
			assert_int_equal(sd->err[0].hdr_len,
					 r->tagged ? 14 : 18);
			assert_memory_equal(sd->err[0].hdr, seg,
					    r->tagged ? 14 : 18);
			assert_int_equal(sd->err[0].seg_len, n);
			assert_true(arena_untouched(&f));
			assert_int_equal(sd->ndlv, 0);
			if (hdr_first)
				assert_int_equal(sd->rx_verdicts[DDP_RX_ERROR],
						 1);
		} else {
			if (sd->nerr)
				print_error("unexpected error (%d,%d,%d)\n",
					    sd->err[0].layer, sd->err[0].etype,
					    sd->err[0].code);
			assert_int_equal(sd->nerr, 0);
			accepted_range(r, &lo, &hi);
			for (size_t k = 0; k < sizeof(f.arena); k++)
				assert_int_equal(f.arena[k],
						 k >= lo && k < hi ? FILL
								   : CANARY);
			if (hdr_first)
				assert_int_equal(sd->rx_verdicts[DDP_RX_PLACE],
						 1);
		}
		fx_free(&f);
	}
}

static void test_val_err5_table_whole_segment(void **state)
{
	run_table(0);
}

static void test_val_err5_table_header_first(void **state)
{
	run_table(1);
}

/* DDP-ERR-3, DDP-ERR-1: RFC 5041 §7.1: after the first error every later
 * segment of the stream is dropped silently (verdict DROP, nothing placed,
 * no second report); DDP-ERR-4/DDP-TRD-8: the ULP may still send exactly
 * one more message and the stream is not torn down by DDP. */
static void test_err3_err4_after_error_stream_drops_and_allows_one_send(
	void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		uint8_t seg[128], pay[4] = { 1, 2, 3, 4 };
		struct iovec iov = { pay, 4 };
		size_t n;

		fx_new(&f, hf);
		memllp_side *sd = &f.m->side[1];
		n = tw_untagged(seg, 1, 1, 0, 7, 1, 0, pay, 4); /* bad QN */
		assert_int_equal(inject(&f, 0, seg, n), 0);
		assert_int_equal(sd->nerr, 1);
		/* a perfectly valid tagged and untagged segment: dropped */
		n = tw_tagged(seg, 1, 1, 0, f.stag[S_GOOD], TBASE, pay, 4);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		n = tw_untagged(seg, 1, 1, 0, 0, 1, 0, pay, 4);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		/* and another hostile one: still no second report */
		n = tw_tagged(seg, 1, 2, 0, 0, 0, pay, 4);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		assert_int_equal(sd->nerr, 1);
		assert_int_equal(sd->ndlv, 0);
		assert_true(arena_untouched(&f));
		if (hf)
			assert_int_equal(sd->rx_verdicts[DDP_RX_DROP], 3);
		/* DDP-TRD-1/DDP-TRD-8: DDP started no teardown */
		assert_int_equal(sd->ncloses, 0);
		/* the other stream is unaffected */
		n = tw_tagged(seg, 1, 1, 0, f.stag[S_OTHERSTREAM], TBASE, pay,
			      4);
		assert_int_equal(inject(&f, 1, seg, n), 0);
		assert_int_equal(sd->nerr, 1);
		assert_memory_equal(f.arena + TOFF, pay, 4);
		/* DDP-ERR-4: one more message (the Terminate), then STREAM */
		assert_int_equal(ddp_send_untagged(f.rx, 0, 2, 0, &iov, 1,
						   NULL), 0);
		assert_int_equal(ddp_send_untagged(f.rx, 0, 2, 0, &iov, 1,
						   NULL), DDP_ERR_STREAM);
		assert_int_equal(ddp_send_tagged(f.rx, 0, 1, 0, 0, &iov, 1,
						 NULL), DDP_ERR_STREAM);
		/* stream 1 may still send normally */
		assert_int_equal(ddp_send_untagged(f.rx, 1, 0, 0, &iov, 1,
						   NULL), 0);
		assert_int_equal(ddp_send_untagged(f.rx, 1, 0, 0, &iov, 1,
						   NULL), 0);
		fx_free(&f);
	}
}

/* LLP framing: a whole segment shorter than its header is layer 1,
 * EType 0x3, DDP_ECODE_LLP_SHORT (libddp mapping; RFC 5041 §7.2 reserves
 * EType 3 for the LLP). */
static void test_short_segment_is_llp_short_error(void **state)
{
	static const size_t lens[] = { 0, 1, 13 };

	for (size_t i = 0; i < 3; i++) {
		struct fx f;
		uint8_t seg[32];

		fx_new(&f, 0);
		tw_tagged(seg, 1, 1, 0, f.stag[S_GOOD], TBASE, NULL, 0);
		assert_int_equal(inject(&f, 0, seg, lens[i]), 0);
		memllp_side *sd = &f.m->side[1];
		assert_int_equal(sd->nerr, 1);
		assert_int_equal(sd->err[0].layer, DDP_LAYER_DDP);
		assert_int_equal(sd->err[0].etype, DDP_ETYPE_LLP);
		assert_int_equal(sd->err[0].code, DDP_ECODE_LLP_SHORT);
		assert_true(arena_untouched(&f));
		fx_free(&f);
	}
	/* untagged: 17 octets */
	struct fx f;
	uint8_t seg[32];

	fx_new(&f, 0);
	tw_untagged(seg, 1, 1, 0, 0, 1, 0, NULL, 0);
	assert_int_equal(inject(&f, 0, seg, 17), 0);
	assert_int_equal(f.m->side[1].nerr, 1);
	assert_int_equal(f.m->side[1].err[0].etype, DDP_ETYPE_LLP);
	assert_int_equal(f.m->side[1].err[0].code, DDP_ECODE_LLP_SHORT);
	fx_free(&f);
}

/* The receive entry points refuse misuse with DDP_ERR_INVAL (no report). */
static void test_rx_entry_points_refuse_misuse(void **state)
{
	struct fx f;
	uint8_t seg[64];
	ddp_rx rx, rx2;

	fx_new(&f, 1);
	tw_tagged(seg, 1, 1, 0, f.stag[S_GOOD], TBASE, NULL, 0);
	memset(&rx, 0, sizeof(rx));
	assert_int_equal(ddp_llp_rx_begin(NULL, 0, DDP_LLP_INORDER, seg, 14,
					  0, &rx), DDP_ERR_INVAL);
	assert_int_equal(ddp_llp_rx_begin(f.rx, 0, DDP_LLP_INORDER, NULL, 14,
					  0, &rx), DDP_ERR_INVAL);
	assert_int_equal(ddp_llp_rx_begin(f.rx, 0, DDP_LLP_INORDER, seg, 14,
					  0, NULL), DDP_ERR_INVAL);
	assert_int_equal(ddp_llp_rx_begin(f.rx, 2, DDP_LLP_INORDER, seg, 14,
					  0, &rx), DDP_ERR_INVAL);
	assert_int_equal(ddp_llp_rx_begin(f.rx, 0, DDP_LLP_INORDER, seg, 18,
					  0, &rx), DDP_ERR_INVAL);
	assert_int_equal(ddp_llp_rx_begin(f.rx, 0, DDP_LLP_INORDER, seg, 13,
					  0, &rx), DDP_ERR_INVAL);
	assert_int_equal(ddp_llp_rx_segment(NULL, 0, DDP_LLP_INORDER, seg, 14),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_llp_rx_segment(f.rx, 5, DDP_LLP_INORDER, seg, 14),
			 DDP_ERR_INVAL);
	/* a second ticket while one is open */
	tw_tagged(seg, 1, 1, 0, f.stag[S_GOOD], TBASE, NULL, 0);
	assert_int_equal(ddp_llp_rx_begin(f.rx, 0, DDP_LLP_INORDER, seg, 14, 4,
					  &rx), 0);
	assert_int_equal(rx.verdict, DDP_RX_PLACE);
	memset(&rx2, 0, sizeof(rx2));
	assert_int_equal(ddp_llp_rx_begin(f.rx, 1, DDP_LLP_INORDER, seg, 14, 4,
					  &rx2), DDP_ERR_INVAL);
	assert_int_equal(ddp_llp_rx_segment(f.rx, 1, DDP_LLP_INORDER, seg, 18),
			 DDP_ERR_INVAL);
	uint8_t *dst = ddp_llp_rx_dst(f.rx, &rx, 0);
	assert_ptr_equal(dst, f.arena + TOFF);
	memcpy(dst, "abcd", 4);
	assert_int_equal(ddp_llp_rx_end(f.rx, &rx, 1), 0);
	assert_int_equal(f.m->side[1].nerr, 0);
	assert_int_equal(f.m->side[1].ndlv, 1);
	/* ending a ticket twice */
	assert_int_equal(ddp_llp_rx_end(f.rx, &rx, 1), DDP_ERR_INVAL);
	assert_int_equal(f.m->side[1].ndlv, 1);
	fx_free(&f);
}

/* DDP-DLV-2, DDP-DLV-3, DDP-UNT-1, DDP-TAG-1, DDP-TAG-2, DDP-SEG-10:
 * delivery reports length, RsvdULP, STag, TO, QN, MSN, the buffer. */
static void test_dlv2_dlv3_delivery_reports_fields(void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		uint8_t seg[128], pay[20];
		size_t n;

		memset(pay, 0x11, sizeof(pay));
		fx_new(&f, hf);
		memllp_side *sd = &f.m->side[1];
		/* untagged message in two segments: MO 10 (L=0), then MO 0 */
		n = tw_untagged(seg, 0, 1, 0xAABBCCDDEEULL, 0, 1, 0, pay, 10);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		n = tw_untagged(seg, 1, 1, 0xAABBCCDDEEULL, 0, 1, 10, pay, 6);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		assert_int_equal(sd->ndlv, 1);
		const ddp_delivery *d = &sd->dlv[0].d;
		assert_int_equal(d->status, 0);
		assert_int_equal(d->tagged, 0);
		assert_int_equal(d->len, 16); /* MO + len of L=1 */
		assert_true(d->rsvdulp == 0xAABBCCDDEEULL);
		assert_int_equal(d->qn, 0);
		assert_int_equal(d->msn, 1);
		assert_int_equal(d->stream, 0);
		assert_ptr_equal(d->buf, f.arena + U1OFF);
		assert_int_equal(d->buf_len, ULEN);
		assert_ptr_equal(d->buf_ctx, (void *)1);
		/* tagged message in two segments */
		n = tw_tagged(seg, 0, 1, 0x99, f.stag[S_GOOD], TBASE + 2, pay,
			      7);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		assert_int_equal(sd->ndlv, 1); /* not yet: L=0 */
		n = tw_tagged(seg, 1, 1, 0x99, f.stag[S_GOOD], TBASE + 9, pay,
			      5);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		assert_int_equal(sd->ndlv, 2);
		d = &sd->dlv[1].d;
		assert_int_equal(d->tagged, 1);
		assert_int_equal(d->len, 12); /* sum of payloads */
		assert_true(d->to == TBASE + 9); /* TO of the L=1 segment */
		assert_int_equal(d->stag, f.stag[S_GOOD]);
		assert_true(d->rsvdulp == 0x99);
		assert_int_equal(sd->nerr, 0);
		fx_free(&f);
	}
}


/* A buffer posted with more than UINT32_MAX octets: the delivery reports
 * buf_len as posted (no silent clamp), and a segment reaching past 2^32
 * (a message must be shorter, RFC 5041 §5.3, MO is 32 bits) is refused
 * as too long (DDP-VAL-U4) before anything is written. */
static void test_post_recv_over_4gib_keeps_len_and_bounds_mo(void **state)
{
	struct fx f;
	uint8_t seg[64], pay[10];
	size_t n;
	const size_t huge = (size_t)UINT32_MAX + 4097;

	if (sizeof(size_t) < 8)
		skip();
	memset(pay, 0x5a, sizeof(pay));
	fx_new(&f, 0);
	memllp_side *sd = &f.m->side[1];
	/* only the first octets are ever written: the rest is a claim */
	assert_int_equal(ddp_post_recv(f.rx, 1, 0, f.arena, huge, NULL), 0);
	assert_int_equal(ddp_post_recv(f.rx, 1, 0, f.arena + 64, huge, NULL), 0);
	n = tw_untagged(seg, 1, 1, 0, 0, 1, 0, pay, sizeof(pay));
	assert_int_equal(inject(&f, 1, seg, n), 0);
	assert_int_equal(sd->ndlv, 1);
	assert_int_equal(sd->dlv[0].d.len, sizeof(pay));
	assert_true(sd->dlv[0].d.buf_len == huge);
	assert_memory_equal(f.arena, pay, sizeof(pay));
	n = tw_untagged(seg, 1, 1, 0, 0, 2, UINT32_MAX - 5, pay, sizeof(pay));
	assert_int_equal(inject(&f, 1, seg, n), 0);
	assert_int_equal(sd->nerr, 1);
	assert_int_equal(sd->err[0].etype, DDP_ETYPE_UNTAGGED);
	assert_int_equal(sd->err[0].code, DDP_ECODE_U_TOO_LONG);
	fx_free(&f);
}

/* DDP-ERR-8, DDP-SEG-7: a zero-length untagged message still takes its
 * (QN, MSN) buffer: it is delivered with length 0 and the next message
 * uses the next buffer. */
static void test_err8_zero_length_untagged_consumes_a_buffer(void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		uint8_t seg[32], p[4] = { 1, 2, 3, 4 };
		size_t n;

		fx_new(&f, hf);
		memllp_side *sd = &f.m->side[1];
		n = tw_untagged(seg, 1, 1, 0, 0, 1, 0, NULL, 0);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		assert_int_equal(sd->ndlv, 1);
		assert_int_equal(sd->dlv[0].d.len, 0);
		assert_int_equal(sd->dlv[0].d.msn, 1);
		assert_ptr_equal(sd->dlv[0].d.buf, f.arena + U1OFF);
		n = tw_untagged(seg, 1, 1, 0, 0, 2, 0, p, 4);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		assert_int_equal(sd->ndlv, 2);
		assert_ptr_equal(sd->dlv[1].d.buf, f.arena + U2OFF);
		assert_memory_equal(f.arena + U2OFF, p, 4);
		assert_true(arena_untouched(&f) == 0);
		assert_int_equal(f.arena[U1OFF], CANARY);
		/* no buffer left: the next zero-length message is (2, 0x02) */
		n = tw_untagged(seg, 1, 1, 0, 0, 3, 0, NULL, 0);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		assert_int_equal(sd->nerr, 1);
		assert_int_equal(sd->err[0].etype, DDP_ETYPE_UNTAGGED);
		assert_int_equal(sd->err[0].code, DDP_ECODE_U_MSN_NOBUF);
		fx_free(&f);
	}
}

/* DDP-LLP-7: DDP has no length field; the payload length is what the LLP
 * says. DDP-SEG-9: the sink does not verify that a whole tagged message
 * arrived (each cut is delivered with what was placed); an untagged message
 * whose only segment is the L=1 one at MO 10 would be delivered with 10
 * octets nobody placed (DDP-SEG-10: its length is MO + payload), so it is
 * refused as an invalid MO (2, 0x04) and places nothing. */
static void test_llp7_seg9_length_comes_from_the_llp(void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		uint8_t seg[64], p[40];
		size_t n;

		memset(p, 0x21, sizeof(p));
		fx_new(&f, hf);
		memllp_side *sd = &f.m->side[1];
		n = tw_tagged(seg, 1, 1, 0, f.stag[S_GOOD], TBASE, p, 40);
		for (size_t cut = 0; cut < 3; cut++) {
			assert_int_equal(inject(&f, 0, seg, n - 10 * cut), 0);
			assert_int_equal(sd->ndlv, cut + 1);
			assert_int_equal(sd->dlv[cut].d.len, 40 - 10 * cut);
		}
		n = tw_untagged(seg, 1, 1, 0, 0, 1, 10, p, 6);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		assert_int_equal(sd->ndlv, 3);
		assert_int_equal(f.arena[U1OFF + 9], CANARY);
		assert_int_equal(f.arena[U1OFF + 10], CANARY);
		assert_int_equal(sd->nerr, 1);
		assert_int_equal(sd->err[0].etype, DDP_ETYPE_UNTAGGED);
		assert_int_equal(sd->err[0].code, DDP_ECODE_U_INVALID_MO);
		fx_free(&f);
	}
}

struct abort_hook {
	size_t off;
	int reset; /* 0: ddp_stream_abort, 1: ddp_llp_stream_reset */
};

static void abort_mid_payload(memllp *m, int to_side, ddp_rx *rx, size_t off,
			      void *user)
{
	struct abort_hook *h = user;

	if (h->off == 0) {
		h->off = off;
		if (h->reset)
			assert_int_equal(ddp_llp_stream_reset(
						 memllp_session(m, to_side), 0),
					 0);
		else
			assert_int_equal(ddp_stream_abort(
						 memllp_session(m, to_side), 0),
					 0);
	}
}

/* A posted buffer given back (DDP_ERR_ABORTED) while a header-first payload
 * is being read into it is never written again: ddp_llp_rx_dst answers NULL,
 * nothing is delivered with status 0. */
static void test_buffer_returned_mid_payload_is_not_written(void **state)
{
	for (int reset = 0; reset < 2; reset++) {
		struct abort_hook h = { 0, reset };
		memllp_cfg cfg = { .seed = 13, .hdr_first = 1, .max_piece = 4,
				   .piece_hook = abort_mid_payload,
				   .hook_user = &h };
		memllp *m = NULL;
		uint8_t buf[64], msg[40];
		struct iovec iov = { msg, sizeof(msg) };

		memset(buf, CANARY, sizeof(buf));
		memset(msg, FILL, sizeof(msg));
		assert_int_equal(memllp_new(&cfg, &m), 0);
		assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, buf,
					       sizeof(buf), NULL), 0);
		assert_int_equal(ddp_send_untagged(memllp_session(m, 0), 0, 0,
						   0, &iov, 1, NULL), 0);
		memllp_pump(m);
		memllp_side *sd = &m->side[1];
		assert_true(h.off > 0 && h.off <= 4);
		assert_int_equal(sd->ndlv, 1);
		assert_int_equal(sd->dlv[0].d.status, DDP_ERR_ABORTED);
		for (size_t i = h.off; i < sizeof(buf); i++)
			assert_int_equal(buf[i], CANARY);
		memllp_free(m);
	}
}

/* Header-first tickets with absurd payload lengths are refused by the
 * bounds checks, never wrapped into a small range (DDP-SEC-10). */
static void test_rx_huge_payload_len_is_refused(void **state)
{
	static const struct {
		int tagged;
		size_t plen;
		int etype, code;
	} cases[] = {
		{ 1, SIZE_MAX, 0x1, 0x03 }, /* TO 0x1000 + 2^64-1 wraps */
		{ 1, (size_t)1 << 32, 0x1, 0x01 },
		{ 0, SIZE_MAX, 0x2, 0x05 },
		{ 0, ((size_t)1 << 32) + 4, 0x2, 0x05 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct fx f;
		uint8_t seg[18];
		ddp_rx rx;

		fx_new(&f, 1);
		if (cases[i].tagged)
			tw_tagged(seg, 1, 1, 0, f.stag[S_GOOD], TBASE, NULL, 0);
		else
			tw_untagged(seg, 1, 1, 0, 0, 1, 0, NULL, 0);
		memset(&rx, 0, sizeof(rx));
		assert_int_equal(ddp_llp_rx_begin(f.rx, 0, DDP_LLP_INORDER, seg,
						  cases[i].tagged ? 14 : 18,
						  cases[i].plen, &rx), 0);
		assert_int_equal(rx.verdict, DDP_RX_ERROR);
		assert_null(ddp_llp_rx_dst(f.rx, &rx, 0));
		assert_int_equal(ddp_llp_rx_end(f.rx, &rx, 1), 0);
		assert_int_equal(f.m->side[1].nerr, 1);
		assert_int_equal(f.m->side[1].err[0].etype, cases[i].etype);
		assert_int_equal(f.m->side[1].err[0].code, cases[i].code);
		assert_true(arena_untouched(&f));
		fx_free(&f);
	}
}

/* DDP-SEG-10 vs DDP-ERR-8: a zero-length untagged L=1 segment is not MO
 * checked by §7.1, but its MO alone sets the delivered message length.
 * Delivering len > buf_len would hand the ULP a length its buffer does not
 * have: the core reports (2,0x04) Invalid MO instead. */
static void test_seg10_zero_length_last_segment_cannot_overstate_len(
	void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		uint8_t seg[18];
		size_t n;

		fx_new(&f, hf);
		n = tw_untagged(seg, 1, 1, 0, 0, 1, 1000, NULL, 0);
		assert_int_equal(inject(&f, 0, seg, n), 0);
		memllp_side *sd = &f.m->side[1];
		assert_int_equal(sd->nerr, 1);
		assert_int_equal(sd->err[0].etype, DDP_ETYPE_UNTAGGED);
		assert_int_equal(sd->err[0].code, DDP_ECODE_U_INVALID_MO);
		assert_int_equal(sd->ndlv, 0);
		fx_free(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_val_err5_table_whole_segment),
		cmocka_unit_test(test_val_err5_table_header_first),
		cmocka_unit_test(
			test_err3_err4_after_error_stream_drops_and_allows_one_send),
		cmocka_unit_test(test_short_segment_is_llp_short_error),
		cmocka_unit_test(test_rx_entry_points_refuse_misuse),
		cmocka_unit_test(test_dlv2_dlv3_delivery_reports_fields),
		cmocka_unit_test(test_post_recv_over_4gib_keeps_len_and_bounds_mo),
		cmocka_unit_test(test_rx_huge_payload_len_is_refused),
		cmocka_unit_test(test_buffer_returned_mid_payload_is_not_written),
		cmocka_unit_test(test_llp7_seg9_length_comes_from_the_llp),
		cmocka_unit_test(
			test_err8_zero_length_untagged_consumes_a_buffer),
		cmocka_unit_test(
			test_seg10_zero_length_last_segment_cannot_overstate_len),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
