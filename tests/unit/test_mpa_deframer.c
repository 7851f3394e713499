/* MPA receive deframer (RFC 5044 §4): segmentation, markers, CRC, errors.
 * The DDP core is replaced by a recording sink. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <ddp/ddp.h>
#include "mpa/mpa_fpdu.h"

#define MAXSEG 256
#define AREA (1 << 20)

struct seg {
	uint8_t hdr[18];
	size_t hdr_len, payload_len, off;
	int ended, ok;
};

struct sink {
	struct seg seg[MAXSEG];
	int nseg, open;
	uint8_t *area;
	size_t used;
	int nerr;
	uint8_t layer, etype, code;
	size_t revoke_at; /* dst() returns NULL from this payload offset on */
	int verdict;
	int nstaged;
};

static int s_begin(void *ctx, const uint8_t *hdr, size_t hl, size_t pl,
		   ddp_rx *rx)
{
	struct sink *k = ctx;
	assert_false(k->open);
	assert_true(k->nseg < MAXSEG);
	struct seg *s = &k->seg[k->nseg++];
	memcpy(s->hdr, hdr, hl);
	s->hdr_len = hl;
	s->payload_len = pl;
	s->off = k->used;
	k->used += pl;
	assert_true(k->used <= AREA);
	memset(rx, 0, sizeof(*rx));
	rx->verdict = (enum ddp_rx_verdict)k->verdict;
	rx->dst = k->area + s->off;
	rx->payload_len = pl;
	k->open = 1;
	return 0;
}

static void *s_dst(void *ctx, ddp_rx *rx, size_t off)
{
	struct sink *k = ctx;
	if (k->revoke_at && off >= k->revoke_at)
		return NULL;
	return (uint8_t *)rx->dst + off;
}

static int s_end(void *ctx, ddp_rx *rx, int ok)
{
	struct sink *k = ctx;
	assert_true(k->open);
	k->open = 0;
	k->seg[k->nseg - 1].ended = 1;
	k->seg[k->nseg - 1].ok = ok;
	return 0;
}

static void s_error(void *ctx, uint8_t layer, uint8_t etype, uint8_t code)
{
	struct sink *k = ctx;
	k->nerr++;
	k->layer = layer;
	k->etype = etype;
	k->code = code;
}

static const mpa_rx_sink sink_ops = { s_begin, s_dst, s_end, NULL, s_error, NULL };

/* staging sink: whole small ULPDUs, recorded like header-first ones */
static int s_segment(void *ctx, const uint8_t *seg, size_t len)
{
	struct sink *k = ctx;
	size_t hl = ddp_hdr_len(seg[0]);
	assert_true(len >= hl);
	ddp_rx rx;
	s_begin(ctx, seg, hl, len - hl, &rx);
	memcpy(rx.dst, seg + hl, len - hl);
	k->nstaged++;
	return s_end(ctx, &rx, 1);
}

static const mpa_rx_sink stage_ops = { s_begin, s_dst, s_end, s_segment,
				       s_error, NULL };

/* chopper reader: seeded PRNG, 1..max octet pieces, 0 = "no data now"
 * every few calls, DDP_ERR_CLOSED at the end */
struct chop {
	const uint8_t *b;
	size_t n, off;
	uint32_t seed;
	size_t max;
	int dry_every;
	unsigned calls;
};

static ssize_t chop_read_raw(struct chop *c, void *dst, size_t n);

static uint32_t rnd(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* octets the reader wrote straight into the sink's placement area */
static uint8_t *g_area;
static size_t g_direct;

static ssize_t chop_read(void *io, void *dst, size_t n)
{
	struct chop *c = io;
	ssize_t got = chop_read_raw(c, dst, n);
	if (got > 0 && g_area && (uint8_t *)dst >= g_area &&
	    (uint8_t *)dst < g_area + AREA)
		g_direct += (size_t)got;
	return got;
}

static ssize_t chop_read_raw(struct chop *c, void *dst, size_t n)
{
	c->calls++;
	if (c->dry_every && c->calls % (unsigned)c->dry_every == 0)
		return 0;
	if (c->off == c->n)
		return DDP_ERR_CLOSED;
	size_t k = 1 + rnd(&c->seed) % c->max;
	if (k > n)
		k = n;
	if (k > c->n - c->off)
		k = c->n - c->off;
	memcpy(dst, c->b + c->off, k);
	c->off += k;
	return (ssize_t)k;
}

/* a test stream of FPDUs */
struct stream {
	uint8_t *wire;
	size_t len;
	int nfpdu;
	size_t fpdu_off[MAXSEG], fpdu_len[MAXSEG];
	uint8_t hdr[MAXSEG][18];
	size_t hl[MAXSEG], pl[MAXSEG];
	uint8_t *payload; /* concatenated payloads */
	size_t ptotal;
};

/* FPDUs with random headers and payloads; payload i is fixed[i] octets
 * long when fixed is given, else random up to maxpl; with per_msg > 0 the
 * FPDUs form DDP messages of per_msg segments (L=1 on each last one), else
 * every FPDU is a whole message */
static void make_stream_pl(struct stream *st, int markers, int crc, int n,
			   uint32_t seed, size_t maxpl, const size_t *fixed,
			   int per_msg)
{
	mpa_tx_stream t = { .markers = markers, .crc = crc };
	memset(st, 0, sizeof(*st));
	st->wire = malloc(AREA);
	st->payload = malloc(AREA);
	assert_non_null(st->wire);
	assert_non_null(st->payload);
	for (int i = 0; i < n; i++) {
		int tagged = rnd(&seed) & 1;
		size_t hl = tagged ? 14 : 18;
		size_t pl = rnd(&seed) % (maxpl + 1);
		if (fixed)
			pl = fixed[i];
		uint8_t *h = st->hdr[i];
		for (size_t j = 0; j < hl; j++)
			h[j] = (uint8_t)rnd(&seed);
		h[0] = tagged ? 0xc1 : 0x41;
		if (per_msg > 0 && (i + 1) % per_msg != 0)
			h[0] &= (uint8_t)~0x40; /* not the last segment */
		uint8_t *p = st->payload + st->ptotal;
		for (size_t j = 0; j < pl; j++)
			p[j] = (uint8_t)rnd(&seed);
		struct iovec iov[2] = { { h, hl }, { p, pl } };
		mpa_fpdu *f;
		assert_int_equal(mpa_fpdu_build(&t, iov, 2, hl + pl, &f), 0);
		st->fpdu_off[i] = st->len;
		st->fpdu_len[i] = f->wire_len;
		for (int k = 0; k < f->iovcnt; k++) {
			memcpy(st->wire + st->len, f->iov[k].iov_base,
			       f->iov[k].iov_len);
			st->len += f->iov[k].iov_len;
		}
		free(f);
		st->hl[i] = hl;
		st->pl[i] = pl;
		st->ptotal += pl;
	}
	st->nfpdu = n;
}

static void make_stream(struct stream *st, int markers, int crc, int n,
			uint32_t seed, size_t maxpl)
{
	make_stream_pl(st, markers, crc, n, seed, maxpl, NULL, 0);
}

static void free_stream(struct stream *st)
{
	free(st->wire);
	free(st->payload);
}

static struct sink *new_sink(void)
{
	struct sink *k = calloc(1, sizeof(*k));
	assert_non_null(k);
	k->area = calloc(1, AREA);
	assert_non_null(k->area);
	k->verdict = DDP_RX_PLACE;
	return k;
}

static void free_sink(struct sink *k)
{
	free(k->area);
	free(k);
}

static void check_all_delivered(const struct stream *st, const struct sink *k)
{
	assert_int_equal(k->nerr, 0);
	assert_int_equal(k->nseg, st->nfpdu);
	for (int i = 0; i < st->nfpdu; i++) {
		assert_int_equal(k->seg[i].hdr_len, st->hl[i]);
		assert_memory_equal(k->seg[i].hdr, st->hdr[i], st->hl[i]);
		assert_int_equal(k->seg[i].payload_len, st->pl[i]);
		assert_true(k->seg[i].ended);
		assert_true(k->seg[i].ok);
	}
	assert_int_equal(k->used, st->ptotal);
	if (st->ptotal)
		assert_memory_equal(k->area, st->payload, st->ptotal);
}

static int run_chopped(mpa_deframer *d, struct chop *c)
{
	int rc;
	do
		rc = mpa_dfr_run(d, chop_read, c);
	while (rc == DDP_ERR_NEED_MORE);
	return rc;
}

/* RFC 5044 §4: receivers MUST find FPDUs from ULPDU_Length whatever the
 * segmentation; markers routed around (§4.3), CRC checked (§4.4). */
static void test_deframer_survives_random_pieces_all_modes(void **state)
{
	for (int mode = 0; mode < 4; mode++) {
		int markers = mode & 1, crc = (mode >> 1) & 1;
		for (uint32_t seed = 1; seed <= 40; seed++) {
			struct stream st;
			make_stream(&st, markers, crc, 30, seed * 7919, 1500);
			struct sink *k = new_sink();
			mpa_deframer d;
			mpa_dfr_init(&d, markers, crc, 0, &sink_ops, k);
			struct chop c = { st.wire, st.len, 0, seed,
					  seed % 3 == 0 ? 1 : 1 + seed * 37,
					  (int)(seed % 5) + 2, 0 };
			g_area = k->area;
			g_direct = 0;
			assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
			g_area = NULL;
			check_all_delivered(&st, k);
			/* header-first: every payload octet was read by the
			 * reader straight into its destination, none through
			 * a buffer of the deframer */
			assert_int_equal(g_direct, st.ptotal);
			assert_int_equal(d.fpdus, 30);
			assert_int_equal(d.state, MPA_DFR_LEN);
			assert_int_equal(mpa_dfr_abort(&d), 0);
			free_sink(k);
			free_stream(&st);
		}
	}
}

static void test_deframer_survives_one_byte_pieces(void **state)
{
	struct stream st;
	make_stream(&st, 1, 1, 12, 42, 2000);
	struct sink *k = new_sink();
	mpa_deframer d;
	mpa_dfr_init(&d, 1, 1, 0, &sink_ops, k);
	struct chop c = { st.wire, st.len, 0, 1, 1, 0, 0 };
	assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
	check_all_delivered(&st, k);
	free_sink(k);
	free_stream(&st);
}

/* RFC 5044 §4.4 / §8: a CRC mismatch is code 2, the segment does not count
 * and no later FPDU is passed up. Every single-bit flip is caught. */
static void test_deframer_catches_every_crc_flip(void **state)
{
	for (int markers = 0; markers <= 1; markers++) {
		struct stream st;
		make_stream(&st, markers, 1, 6, 99 + (uint32_t)markers, 700);
		for (size_t bit = 0; bit < st.len * 8; bit += 7) {
			size_t byte = bit / 8;
			int victim = 0;
			while (victim + 1 < st.nfpdu &&
			       st.fpdu_off[victim + 1] <= byte)
				victim++;
			st.wire[byte] ^= (uint8_t)(1u << (bit % 8));
			struct sink *k = new_sink();
			mpa_deframer d;
			mpa_dfr_init(&d, markers, 1, 0, &sink_ops, k);
			struct chop c = { st.wire, st.len, 0, (uint32_t)bit, 300, 0, 0 };
			run_chopped(&d, &c);
			st.wire[byte] ^= (uint8_t)(1u << (bit % 8));
			/* an error was reported, or (a flip that grew
			 * ULPDU_Length) the stream ended inside an FPDU */
			if (k->nerr == 0)
				assert_int_equal(mpa_dfr_abort(&d), 1);
			assert_true(k->nerr <= 1);
			assert_int_equal(d.state, MPA_DFR_ERROR);
			/* FPDUs before the victim intact and ok */
			for (int i = 0; i < victim && i < k->nseg; i++)
				assert_true(k->seg[i].ok);
			/* nothing at or after the victim counts */
			for (int i = victim; i < k->nseg; i++)
				assert_false(k->seg[i].ended && k->seg[i].ok);
			assert_true(k->nseg <= victim + 1);
			assert_false(k->open);
			free_sink(k);
		}
		free_stream(&st);
	}
}

/* RFC 5044 §4.4: with CRCs off the field is not checked */
static void test_deframer_ignores_crc_field_when_off(void **state)
{
	struct stream st;
	make_stream(&st, 0, 0, 5, 7, 100);
	for (int i = 0; i < st.nfpdu; i++)
		st.wire[st.fpdu_off[i] + st.fpdu_len[i] - 1] = 0xAB;
	struct sink *k = new_sink();
	mpa_deframer d;
	mpa_dfr_init(&d, 0, 0, 0, &sink_ops, k);
	struct chop c = { st.wire, st.len, 0, 3, 50, 0, 0 };
	assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
	check_all_delivered(&st, k);
	free_sink(k);
	free_stream(&st);
}

/* RFC 5044 §4.3 / §8: FPDUPTR disagreeing with ULPDU_Length -> code 3 */
static void test_deframer_reports_wrong_marker(void **state)
{
	struct stream st;
	make_stream(&st, 1, 0, 10, 11, 600);
	assert_true(st.len > 1024);
	st.wire[512 + 3] ^= 0x04; /* FPDUPTR of the second marker */
	struct sink *k = new_sink();
	mpa_deframer d;
	mpa_dfr_init(&d, 1, 0, 0, &sink_ops, k);
	struct chop c = { st.wire, st.len, 0, 5, 64, 0, 0 };
	run_chopped(&d, &c);
	assert_int_equal(k->nerr, 1);
	assert_int_equal(k->layer, DDP_LAYER_LLP);
	assert_int_equal(k->etype, 0);
	assert_int_equal(k->code, DDP_MPA_ECODE_MARKER);
	assert_false(k->seg[k->nseg - 1].ok);
	free_sink(k);
	free_stream(&st);

	/* the very first marker must be 0 */
	make_stream(&st, 1, 1, 2, 12, 10);
	st.wire[3] = 4;
	k = new_sink();
	mpa_dfr_init(&d, 1, 0, 0, &sink_ops, k);
	struct chop c2 = { st.wire, st.len, 0, 5, 64, 0, 0 };
	run_chopped(&d, &c2);
	assert_int_equal(k->code, DDP_MPA_ECODE_MARKER);
	assert_int_equal(k->nseg, 1);
	assert_false(k->seg[0].ok);
	free_sink(k);
	free_stream(&st);
}

/* ULPDU_Length beyond our limit, or shorter than a DDP header, stops the
 * stream before anything is handed to DDP. */
static void test_deframer_stops_on_bad_ulpdu_length(void **state)
{
	uint8_t b[64] = { 0 };
	struct sink *k = new_sink();
	mpa_deframer d;

	b[0] = 0x05; /* 1300 > 1000 */
	b[1] = 0x14;
	mpa_dfr_init(&d, 0, 1, 1000, &sink_ops, k);
	struct chop c = { b, sizeof b, 0, 1, 8, 0, 0 };
	run_chopped(&d, &c);
	assert_int_equal(k->nerr, 1);
	assert_int_equal(k->layer, DDP_LAYER_DDP);
	assert_int_equal(k->etype, DDP_ETYPE_LLP);
	assert_int_equal(k->code, DDP_ECODE_LLP_OVERSIZE);
	assert_int_equal(k->nseg, 0);
	free_sink(k);

	k = new_sink();
	b[0] = 0;
	b[1] = 13; /* shorter than any header */
	mpa_dfr_init(&d, 0, 1, 0, &sink_ops, k);
	struct chop c2 = { b, sizeof b, 0, 1, 8, 0, 0 };
	run_chopped(&d, &c2);
	assert_int_equal(k->code, DDP_ECODE_LLP_SHORT);
	assert_int_equal(k->nseg, 0);
	free_sink(k);

	k = new_sink();
	b[1] = 16; /* untagged ctrl needs 18 */
	b[2] = 0x41;
	mpa_dfr_init(&d, 0, 1, 0, &sink_ops, k);
	struct chop c3 = { b, sizeof b, 0, 1, 8, 0, 0 };
	run_chopped(&d, &c3);
	assert_int_equal(k->code, DDP_ECODE_LLP_SHORT);
	assert_int_equal(k->nseg, 0);
	free_sink(k);
}

/* a stream cut in the middle of an FPDU: ticket closed with ok = 0 */
static void test_deframer_truncated_fpdu_is_not_delivered(void **state)
{
	struct stream st;
	make_stream(&st, 1, 1, 3, 21, 900);
	for (size_t cut = 1; cut < st.fpdu_len[0]; cut += 13) {
		struct sink *k = new_sink();
		mpa_deframer d;
		mpa_dfr_init(&d, 1, 1, 0, &sink_ops, k);
		struct chop c = { st.wire, cut, 0, (uint32_t)cut, 100, 0, 0 };
		assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
		assert_int_equal(mpa_dfr_abort(&d), 1);
		assert_false(k->open);
		for (int i = 0; i < k->nseg; i++)
			assert_false(k->seg[i].ok);
		assert_int_equal(k->nerr, 0);
		free_sink(k);
	}
	free_stream(&st);
}

/* DROP verdict and revoked destination: payload is discarded, never
 * written, and the stream goes on */
static void test_deframer_discards_dropped_and_revoked_payload(void **state)
{
	struct stream st;
	make_stream(&st, 1, 1, 8, 31, 1200);
	struct sink *k = new_sink();
	k->verdict = DDP_RX_DROP;
	mpa_deframer d;
	mpa_dfr_init(&d, 1, 1, 0, &sink_ops, k);
	struct chop c = { st.wire, st.len, 0, 9, 200, 0, 0 };
	assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
	assert_int_equal(k->nseg, 8);
	for (size_t i = 0; i < st.ptotal; i++)
		assert_int_equal(k->area[i], 0);
	free_sink(k);

	k = new_sink();
	k->revoke_at = 1;
	mpa_dfr_init(&d, 1, 1, 0, &sink_ops, k);
	struct chop c2 = { st.wire, st.len, 0, 9, 1, 0, 0 };
	assert_int_equal(run_chopped(&d, &c2), DDP_ERR_CLOSED);
	assert_int_equal(k->nseg, 8);
	assert_int_equal(k->nerr, 0);
	free_sink(k);
	free_stream(&st);
}

/* small FPDUs staged: CRC checked before DDP sees anything (RFC 5044
 * §4.4), large ones header-first; any segmentation */
static void test_deframer_stages_small_fpdus_crc_first(void **state)
{
	for (int markers = 0; markers <= 1; markers++) {
		for (uint32_t seed = 1; seed <= 10; seed++) {
			struct stream st;
			make_stream(&st, markers, 1, 30, seed * 31, 2000);
			struct sink *k = new_sink();
			mpa_deframer d;
			mpa_dfr_init(&d, markers, 1, 0, &stage_ops, k);
			mpa_dfr_set_stage_max(&d, 1024);
			struct chop c = { st.wire, st.len, 0, seed, 1 + seed * 13, 3, 0 };
			assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
			check_all_delivered(&st, k);
			int small = 0;
			for (int i = 0; i < st.nfpdu; i++)
				small += st.hl[i] + st.pl[i] <= 1024;
			assert_int_equal(k->nstaged, small);
			assert_true(small > 0 && small < st.nfpdu);
			free_sink(k);
			free_stream(&st);
		}
	}
	/* a flipped bit in a staged FPDU's header: nothing reaches DDP */
	struct stream st;
	make_stream(&st, 0, 1, 1, 5, 50);
	st.wire[2 + 8] ^= 0x01;
	struct sink *k = new_sink();
	mpa_deframer d;
	mpa_dfr_init(&d, 0, 1, 0, &stage_ops, k);
	mpa_dfr_set_stage_max(&d, 1024);
	struct chop c = { st.wire, st.len, 0, 1, 9, 0, 0 };
	run_chopped(&d, &c);
	assert_int_equal(k->nseg, 0);
	assert_int_equal(k->nerr, 1);
	assert_int_equal(k->code, DDP_MPA_ECODE_CRC);
	free_sink(k);
	free_stream(&st);
}

/* zero-length tagged (ULPDU = 14, the shortest FPDU) and untagged
 * segments, both paths, markers on, 1..3 octet pieces */
static void test_deframer_zero_length_segments(void **state)
{
	for (int staged = 0; staged <= 1; staged++) {
		mpa_tx_stream t = { .markers = 1, .crc = 1 };
		uint8_t wire[4096];
		size_t len = 0;
		for (int i = 0; i < 40; i++) {
			uint8_t h[18] = { 0 };
			h[0] = (i & 1) ? 0xc1 : 0x41;
			h[5] = (uint8_t)i;
			struct iovec iov = { h, (i & 1) ? 14u : 18u };
			mpa_fpdu *f;
			assert_int_equal(mpa_fpdu_build(&t, &iov, 1, iov.iov_len, &f), 0);
			for (int k = 0; k < f->iovcnt; k++) {
				memcpy(wire + len, f->iov[k].iov_base, f->iov[k].iov_len);
				len += f->iov[k].iov_len;
			}
			free(f);
		}
		struct sink *k = new_sink();
		mpa_deframer d;
		mpa_dfr_init(&d, 1, 1, 0, staged ? &stage_ops : &sink_ops, k);
		mpa_dfr_set_stage_max(&d, staged ? 1024 : 0);
		struct chop c = { wire, len, 0, 77, 3, 4, 0 };
		assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
		assert_int_equal(k->nerr, 0);
		assert_int_equal(k->nseg, 40);
		for (int i = 0; i < 40; i++) {
			assert_int_equal(k->seg[i].hdr_len, (i & 1) ? 14 : 18);
			assert_int_equal(k->seg[i].hdr[5], i);
			assert_int_equal(k->seg[i].payload_len, 0);
			assert_true(k->seg[i].ok);
		}
		assert_int_equal(k->nstaged, staged ? 40 : 0);
		free_sink(k);
	}
}

/* Scatter reader: one random-sized piece per call spread over iov[] in
 * order (a recvmsg); counts the octets that land in the placement area. */
static size_t g_copied;

static void s_copied(void *ctx, size_t n)
{
	g_copied += n;
}

static const mpa_rx_sink scatter_ops = { s_begin, s_dst, s_end, NULL,
					 s_error, s_copied };

static ssize_t chop_readv(void *io, const struct iovec *iov, int cnt)
{
	struct chop *c = io;
	size_t want = 0;
	for (int i = 0; i < cnt; i++)
		want += iov[i].iov_len;
	static uint8_t tmp[2 * MPA_RING_ALLOC];
	assert_true(want <= sizeof(tmp));
	ssize_t got = chop_read_raw(c, tmp, want);
	size_t off = 0;
	for (int i = 0; got > 0 && i < cnt && off < (size_t)got; i++) {
		size_t k = (size_t)got - off < iov[i].iov_len ?
				   (size_t)got - off : iov[i].iov_len;
		memcpy(iov[i].iov_base, tmp + off, k);
		if (g_area && (uint8_t *)iov[i].iov_base >= g_area &&
		    (uint8_t *)iov[i].iov_base < g_area + AREA)
			g_direct += k;
		off += k;
	}
	return got;
}

/* With a scatter reader the last read of each payload also takes the
 * trailer and the next header: whatever the segmentation every FPDU
 * arrives intact, payload octets go straight to their place except the
 * few (<= 4 per FPDU) that follow a 14-octet header inside the read-ahead,
 * and unchopped input costs one read per FPDU. */
static void test_deframer_scatter_reads(void **state)
{
	for (int mode = 0; mode < 8; mode++) {
		int markers = mode & 1, crc = (mode >> 1) & 1, whole = mode >> 2;
		for (uint32_t seed = 1; seed <= 20; seed++) {
			struct stream st;
			make_stream(&st, markers, crc, 30, seed * 104729,
				    whole ? 6000 : 1500);
			struct sink *k = new_sink();
			mpa_deframer d;
			mpa_dfr_init(&d, markers, crc, 0, &scatter_ops, k);
			mpa_dfr_set_readv(&d, chop_readv);
			struct chop c = { st.wire, st.len, 0, seed,
					  whole ? AREA : 1 + seed * 53,
					  whole ? 0 : (int)(seed % 5) + 2, 0 };
			g_area = k->area;
			g_direct = 0;
			g_copied = 0;
			assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
			g_area = NULL;
			check_all_delivered(&st, k);
			assert_int_equal(g_direct + g_copied, st.ptotal);
			assert_true(g_copied <= 4 * 30);
			/* one read per FPDU, + the first header (two for an
			 * 18-octet one) and EOF; an
			 * FPDU whose payload fits in the read-ahead (<= 4
			 * octets) needs its own read for PAD + CRC */
			unsigned tiny = 0;
			for (int i = 0; i < 30; i++)
				tiny += st.pl[i] <= 4;
			if (whole && !markers)
				assert_true(c.calls <= 30 + 3 + tiny);
			assert_int_equal(d.fpdus, 30);
			free_sink(k);
			free_stream(&st);
		}
	}
}

static const mpa_rx_sink stage_scatter_ops = { s_begin, s_dst, s_end,
					       s_segment, s_error, s_copied };

/* Large messages with a small tail segment (64 KiB over a 64768-octet
 * MULPDU, scaled down): once the deframer has seen the pattern, the read
 * of a large payload also takes the tail FPDU whole, which is then handed
 * to DDP from the read-ahead buffer (CRC checked first): one read per
 * message. */
static void test_deframer_reads_tail_fpdu_with_large_payload(void **state)
{
	size_t pl[42];
	struct stream st;
	struct sink *k;
	mpa_deframer d;
	for (int per_msg = 2; per_msg <= 3; per_msg++) {
		for (int i = 0; i < 42; i++)
			pl[i] = (i + 1) % per_msg == 0 ? 300 : 4000;
		int nmsg = 42 / per_msg;
		make_stream_pl(&st, 0, 1, 42, 77, 0, pl, per_msg);
		k = new_sink();
		mpa_dfr_init(&d, 0, 1, 0, &stage_scatter_ops, k);
		mpa_dfr_set_stage_max(&d, 1024);
		mpa_dfr_set_readv(&d, chop_readv);
		struct chop c = { st.wire, st.len, 0, 1, AREA, 0, 0 };
		g_copied = 0;
		assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
		check_all_delivered(&st, k);
		assert_int_equal(k->nstaged, nmsg);
		/* the first message learns where its tail is, then one read
		 * per large FPDU, + EOF */
		assert_true(c.calls <= (unsigned)(nmsg * (per_msg - 1)) + per_msg + 3);
		/* tails handed over in place: no copy of ours beyond the first
		 * tail and the few octets after a 14-octet header that came
		 * along in the read-ahead */
		assert_true(g_copied <= 300 + 42 * 8);
		free_sink(k);
		free_stream(&st);
	}

	/* the same with every bit of a tail FPDU's CRC-covered octets
	 * flipped in turn: caught, nothing of it or after it delivered */
	for (int i = 0; i < 8; i++)
		pl[i] = (i & 1) ? 300 : 4000;
	make_stream_pl(&st, 0, 1, 8, 78, 0, pl, 2);
	for (size_t bit = 0; bit < (st.fpdu_len[5] - 4) * 8; bit += 7) {
		uint8_t *w = st.wire + st.fpdu_off[5] + bit / 8;
		*w ^= (uint8_t)(1u << (bit % 8));
		k = new_sink();
		mpa_dfr_init(&d, 0, 1, 0, &stage_scatter_ops, k);
		mpa_dfr_set_stage_max(&d, 1024);
		mpa_dfr_set_readv(&d, chop_readv);
		struct chop c2 = { st.wire, st.len, 0, 1, AREA, 0, 0 };
		run_chopped(&d, &c2);
		if (bit >= 16) { /* past ULPDU_Length: a CRC error */
			assert_int_equal(k->nerr, 1);
			assert_int_equal(k->code, DDP_MPA_ECODE_CRC);
			assert_int_equal(k->nseg, 5);
		}
		*w ^= (uint8_t)(1u << (bit % 8));
		free_sink(k);
	}
	free_stream(&st);
}

/* A deframer as an MPA connection sets it up: ring, default switch point,
 * scatter reads (ring NULL: no ring). */
static void ring_deframer(mpa_deframer *d, struct sink *k, uint8_t *ring)
{
	mpa_dfr_init(d, 0, 1, 0, &stage_scatter_ops, k);
	mpa_dfr_set_ring(d, ring);
	mpa_dfr_set_stage_max(d, MPA_RING_SWITCH);
	mpa_dfr_set_readv(d, chop_readv);
}

/* The receive ring (mpa_readahead.h): where TCP's MSS bounds MULPDU (1454
 * octets at MTU 1500), a run of small FPDUs is read in chunks of up to
 * MPA_RING_LEN octets instead of one read per FPDU; each FPDU's CRC is
 * checked before its ULPDU reaches DDP, and its payload is copied to its
 * place from the ring (counted by the core; the deframer's own copies are
 * only the FPDU cut at the end of a chunk). FPDUs above the switch point
 * still go header-first, straight into their place. */
static void test_deframer_ring_reads_small_fpdus_in_large_chunks(void **state)
{
	enum { N = 240, PER_MSG = 45, SMALL = 1454 - 18, LARGE = 20000 };
	size_t pl[N];
	uint8_t *ring = malloc(MPA_RING_ALLOC);
	assert_non_null(ring);
	for (int large_tail = 0; large_tail <= 1; large_tail++) {
		/* 64 KiB messages over a 1500-octet MTU; with large_tail the
		 * last 10 FPDUs are 20000-octet ones (above the switch) */
		for (int i = 0; i < N; i++)
			pl[i] = large_tail && i >= N - 10 ? LARGE : SMALL;
		struct stream st;
		make_stream_pl(&st, 0, 1, N, 4242, 0, pl, PER_MSG);
		for (uint32_t seed = 0; seed <= 6; seed++) {
			struct sink *k = new_sink();
			mpa_deframer d;
			ring_deframer(&d, k, ring);
			/* seed 0: the reader returns all it is asked for;
			 * others: random pieces and dry spells */
			struct chop c = { st.wire, st.len, 0, seed,
					  seed ? 1 + seed * 9973 : 4 * AREA,
					  seed ? (int)seed + 1 : 0, 0 };
			g_area = k->area;
			g_direct = 0;
			g_copied = 0;
			assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
			g_area = NULL;
			check_all_delivered(&st, k);
			assert_int_equal(k->nstaged, large_tail ? N - 10 : N);
			if (seed == 0) {
				size_t small_len = st.fpdu_off[large_tail ? N - 10 : N - 1];
				/* a read per MPA_RING_LEN octets (+ the FPDU
				 * cut at its end, the start and EOF) instead
				 * of one per FPDU */
				/* (+ 5: the run's read-ahead grows from 4 KiB) */
				unsigned chunks = (unsigned)(small_len / MPA_RING_LEN) + 6;
				assert_true(c.calls <= 2 * chunks + 4 + (large_tail ? 10 : 0));
				/* our copies: the FPDUs cut at a chunk's end,
				 * and large payload that came along in the last
				 * chunk; the rest of the large FPDUs went
				 * straight to their place */
				assert_true(g_copied <= chunks * (size_t)SMALL +
							      (large_tail ? MPA_RING_LEN : 0));
				if (large_tail)
					assert_true(g_direct >= 5 * (size_t)LARGE);
			}
			free_sink(k);
		}
		free_stream(&st);
	}

	/* a flipped bit inside an FPDU that sits in the middle of a chunk:
	 * CRC error, nothing of it or after it reaches DDP (RFC 5044 §4.4) */
	for (int i = 0; i < 60; i++)
		pl[i] = SMALL;
	struct stream st;
	make_stream_pl(&st, 0, 1, 60, 4243, 0, pl, PER_MSG);
	st.wire[st.fpdu_off[37] + 700] ^= 0x10;
	struct sink *k = new_sink();
	mpa_deframer d;
	ring_deframer(&d, k, ring);
	struct chop c = { st.wire, st.len, 0, 0, 4 * AREA, 0, 0 };
	run_chopped(&d, &c);
	assert_int_equal(k->nerr, 1);
	assert_int_equal(k->layer, DDP_LAYER_LLP);
	assert_int_equal(k->code, DDP_MPA_ECODE_CRC);
	assert_int_equal(k->nseg, 37);
	free_sink(k);
	free_stream(&st);

	/* without a ring the stage buffer is the inline one: a 1454-octet
	 * ULPDU is not staged whatever stage_max asks */
	k = new_sink();
	ring_deframer(&d, k, NULL);
	for (int i = 0; i < 4; i++)
		pl[i] = SMALL;
	make_stream_pl(&st, 0, 1, 4, 4244, 0, pl, 0);
	struct chop c2 = { st.wire, st.len, 0, 0, 4 * AREA, 0, 0 };
	assert_int_equal(run_chopped(&d, &c2), DDP_ERR_CLOSED);
	check_all_delivered(&st, k);
	assert_int_equal(k->nstaged, 0);
	free_sink(k);
	free_stream(&st);
	free(ring);
}

static void test_deframer_state_names(void **state)
{
	assert_string_equal(mpa_dfr_state_name(MPA_DFR_PAYLOAD), "PAYLOAD");
	assert_string_equal(mpa_dfr_state_name(MPA_DFR_NSTATES), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deframer_survives_random_pieces_all_modes),
		cmocka_unit_test(test_deframer_survives_one_byte_pieces),
		cmocka_unit_test(test_deframer_catches_every_crc_flip),
		cmocka_unit_test(test_deframer_ignores_crc_field_when_off),
		cmocka_unit_test(test_deframer_reports_wrong_marker),
		cmocka_unit_test(test_deframer_stops_on_bad_ulpdu_length),
		cmocka_unit_test(test_deframer_truncated_fpdu_is_not_delivered),
		cmocka_unit_test(test_deframer_discards_dropped_and_revoked_payload),
		cmocka_unit_test(test_deframer_stages_small_fpdus_crc_first),
		cmocka_unit_test(test_deframer_zero_length_segments),
		cmocka_unit_test(test_deframer_scatter_reads),
		cmocka_unit_test(test_deframer_reads_tail_fpdu_with_large_payload),
		cmocka_unit_test(test_deframer_ring_reads_small_fpdus_in_large_chunks),
		cmocka_unit_test(test_deframer_state_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
