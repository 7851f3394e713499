/* Shared by the MPA deframer tests (test_mpa_deframer.c, test_mpa_readahead.c):
 * a recording sink standing in for the DDP core, a chopping reader (plain
 * and scatter), and a builder of FPDU streams. Static functions: each test
 * file uses what it needs. */
#ifndef DDP_TEST_DFR_HARNESS_H
#define DDP_TEST_DFR_HARNESS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <ddp/ddp.h>
#include "mpa/mpa_deframer.h"

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

static inline int s_begin(void *ctx, const uint8_t *hdr, size_t hl, size_t pl,
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

static inline void *s_dst(void *ctx, ddp_rx *rx, size_t off)
{
	struct sink *k = ctx;
	if (k->revoke_at && off >= k->revoke_at)
		return NULL;
	return (uint8_t *)rx->dst + off;
}

static inline int s_end(void *ctx, ddp_rx *rx, int ok)
{
	struct sink *k = ctx;
	assert_true(k->open);
	k->open = 0;
	k->seg[k->nseg - 1].ended = 1;
	k->seg[k->nseg - 1].ok = ok;
	return 0;
}

static inline void s_error(void *ctx, uint8_t layer, uint8_t etype, uint8_t code)
{
	struct sink *k = ctx;
	k->nerr++;
	k->layer = layer;
	k->etype = etype;
	k->code = code;
}

static const mpa_rx_sink sink_ops = { s_begin, s_dst, s_end, NULL, s_error, NULL };

/* staging sink: whole small ULPDUs, recorded like header-first ones */
static inline int s_segment(void *ctx, const uint8_t *seg, size_t len)
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

static inline ssize_t chop_read_raw(struct chop *c, void *dst, size_t n);

static inline uint32_t rnd(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* octets the reader wrote straight into the sink's placement area */
static uint8_t *g_area;
static size_t g_direct;

static inline ssize_t chop_read(void *io, void *dst, size_t n)
{
	struct chop *c = io;
	ssize_t got = chop_read_raw(c, dst, n);
	if (got > 0 && g_area && (uint8_t *)dst >= g_area &&
	    (uint8_t *)dst < g_area + AREA)
		g_direct += (size_t)got;
	return got;
}

static inline ssize_t chop_read_raw(struct chop *c, void *dst, size_t n)
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
static inline void make_stream_pl(struct stream *st, int markers, int crc, int n,
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

static inline void make_stream(struct stream *st, int markers, int crc, int n,
			uint32_t seed, size_t maxpl)
{
	make_stream_pl(st, markers, crc, n, seed, maxpl, NULL, 0);
}

static inline void free_stream(struct stream *st)
{
	free(st->wire);
	free(st->payload);
}

static inline struct sink *new_sink(void)
{
	struct sink *k = calloc(1, sizeof(*k));
	assert_non_null(k);
	k->area = calloc(1, AREA);
	assert_non_null(k->area);
	k->verdict = DDP_RX_PLACE;
	return k;
}

static inline void free_sink(struct sink *k)
{
	free(k->area);
	free(k);
}

static inline void check_all_delivered(const struct stream *st, const struct sink *k)
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

static inline int run_chopped(mpa_deframer *d, struct chop *c)
{
	int rc;
	do
		rc = mpa_dfr_run(d, chop_read, c);
	while (rc == DDP_ERR_NEED_MORE);
	return rc;
}

/* Scatter reader: one random-sized piece per call spread over iov[] in
 * order (a recvmsg); counts the octets that land in the placement area. */
static size_t g_copied;

static inline void s_copied(void *ctx, size_t n)
{
	g_copied += n;
}

static const mpa_rx_sink scatter_ops = { s_begin, s_dst, s_end, NULL,
					 s_error, s_copied };

static inline ssize_t chop_readv(void *io, const struct iovec *iov, int cnt)
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

static const mpa_rx_sink stage_scatter_ops = { s_begin, s_dst, s_end,
					       s_segment, s_error, s_copied };

#endif
