/* fuzzfix: receive-side fixture with canaries for fuzz targets. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzfix.h"

#include "core.h" /* struct rx_held: a held segment's own memory */

#define GAP 16

static void die(const char *what)
{
	fprintf(stderr, "fuzzfix: %s\n", what);
	abort();
}

static uint32_t ff_random(void *user)
{
	uint32_t *x = user;

	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static ff_region *find_buf(fuzzfix *f, const void *buf)
{
	for (int i = 0; i < f->nreg; i++)
		if (f->reg[i].stag_idx < 0 && f->arena + f->reg[i].off == buf)
			return &f->reg[i];
	return NULL;
}

static void unwritable(fuzzfix *f, ff_region *r)
{
	r->writable = 0;
	memset(f->arena + r->off, FF_CANARY, r->len);
}

static void cb_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	fuzzfix *f = user;

	f->ndlv++;
	if (d->stream >= 2)
		die("delivery on a stream that does not exist");
	if (d->tagged) {
		if (d->status != 0)
			die("tagged delivery with a status");
		return;
	}
	ff_region *r = find_buf(f, d->buf);
	if (!r || !r->writable)
		die("untagged delivery of a buffer that is not posted");
	if (r->stream != d->stream || r->qn != d->qn)
		die("buffer given back on the wrong (stream, QN)");
	if (d->status == 0) {
		if (d->qn >= 3)
			die("delivery on a bad QN");
		if (!f->allow_msn_gaps &&
		    d->msn != f->next_msn[d->stream][d->qn])
			die("untagged delivery out of MSN order");
		f->next_msn[d->stream][d->qn] = d->msn + 1;
	}
	unwritable(f, r);
}

static void cb_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	fuzzfix *f = user;

	f->nerr++;
	if (e->hdr_len > DDP_MAX_HDR_LEN)
		die("error report with a bad header length");
}

static void cb_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev,
		     int status, void *user)
{
	fuzzfix *f = user;

	f->nevents++;
}

static const ddp_callbacks ff_cb = {
	.deliver = cb_deliver,
	.error = cb_error,
	.stream_event = cb_event,
};

static size_t next_off(fuzzfix *f)
{
	if (!f->nreg)
		return GAP;
	ff_region *p = &f->reg[f->nreg - 1];
	return p->off + p->len + GAP;
}

static void add_stag(fuzzfix *f, int idx, size_t len, uint64_t base,
		     unsigned access, ddp_pd *pd, ddp_session *s,
		     uint32_t stream, int writable)
{
	ff_region *r = &f->reg[f->nreg];
	ddp_mr_attr a = { .len = len, .to_base = base, .access = access,
			  .pd = pd, .session = s, .stream = stream };

	r->off = next_off(f);
	r->len = len;
	r->stag_idx = idx;
	r->writable = writable;
	a.addr = f->arena + r->off;
	if (ddp_stag_register(f->ctx, &a, &f->stag[idx]))
		die("stag_register");
	f->stag_live[idx] = 1;
	f->nreg++;
}

static void add_buf(fuzzfix *f, uint32_t stream, uint32_t qn, size_t len)
{
	ff_region *r = &f->reg[f->nreg];

	r->off = next_off(f);
	r->len = len;
	r->stag_idx = -1;
	r->writable = 1;
	r->stream = stream;
	r->qn = qn;
	if (ddp_post_recv(f->s, stream, qn, f->arena + r->off, len, NULL))
		die("post_recv");
	f->nreg++;
}

void ff_init(fuzzfix *f, uint32_t window)
{
	ddp_ctx_config cc = { .random = ff_random };
	ddp_session_config sc = { .nstreams = 2, .reorder_window = window };

	memset(f, 0, sizeof(*f));
	memset(f->arena, FF_CANARY, sizeof(f->arena));
	f->rnd = 0x12345678;
	cc.random_user = &f->rnd;
	for (int i = 0; i < 2; i++)
		for (int q = 0; q < 3; q++)
			f->next_msn[i][q] = 1;
	if (ddp_ctx_new(&cc, &f->ctx) || ddp_pd_new(f->ctx, &f->pda) ||
	    ddp_pd_new(f->ctx, &f->pdb))
		die("ctx/pd");
	sc.pd = f->pda;
	f->llp.mulpdu = 1500;
	if (ddp_session_new(f->ctx, &sc, &nullllp_ops, &f->llp, &ff_cb, f,
			    &f->s))
		die("session_new");
	add_stag(f, 0, 64, 0, DDP_ACCESS_REMOTE_WRITE, f->pda, NULL, 0, 1);
	add_stag(f, 1, 64, UINT64_MAX - 63, DDP_ACCESS_REMOTE_WRITE, f->pda,
		 NULL, 0, 1);
	add_stag(f, 2, 32, 0x1000, DDP_ACCESS_REMOTE_WRITE, NULL, f->s, 1, 1);
	add_stag(f, 3, 32, 0, DDP_ACCESS_REMOTE_READ, f->pda, NULL, 0, 0);
	add_stag(f, 4, 32, 0, DDP_ACCESS_REMOTE_WRITE, f->pdb, NULL, 0, 0);
	add_buf(f, 0, 0, 32);
	add_buf(f, 0, 0, 32);
	add_buf(f, 0, 0, 16);
	add_buf(f, 0, 1, 16);
	add_buf(f, 1, 0, 32);
	add_buf(f, 1, 2, 8);
	if (next_off(f) > FF_ARENA)
		die("arena too small");
}

uint32_t ff_stag(const fuzzfix *f, unsigned sel)
{
	return f->stag[sel % FF_NSTAG];
}

void ff_invalidate(fuzzfix *f, unsigned sel)
{
	int idx = (int)(sel % FF_NSTAG);

	if (!f->stag_live[idx])
		return;
	if (ddp_stag_invalidate(f->ctx, f->stag[idx]))
		die("invalidate of a live STag failed");
	f->stag_live[idx] = 0;
	for (int i = 0; i < f->nreg; i++)
		if (f->reg[i].stag_idx == idx)
			unwritable(f, &f->reg[i]);
}

static int dst_ok(const fuzzfix *f, const uint8_t *p, size_t n)
{
	if (p < f->arena || p > f->arena + FF_ARENA)
		return 0;
	size_t off = (size_t)(p - f->arena);
	for (int i = 0; i < f->nreg; i++) {
		const ff_region *r = &f->reg[i];

		if (r->writable && off >= r->off && n <= r->len &&
		    off - r->off <= r->len - n)
			return 1;
	}
	return 0;
}

/* A segment the core holds until its turn (src/rx.c hold_untagged) is
 * read into the core's own copy: dst must lie inside it. */
static int held_ok(const ddp_rx *rx, const uint8_t *dst, size_t n)
{
	const struct rx_held *hd = rx->slot_;
	return hd && dst >= hd->data && n <= hd->len &&
	       (size_t)(dst - hd->data) <= hd->len - n;
}

void ff_feed(fuzzfix *f, uint32_t stream, uint32_t seq, const uint8_t *seg,
	     size_t len, int hdr_first, size_t piece, int revoke)
{
	if (!hdr_first || len < 1 || len < ddp_hdr_len(seg[0])) {
		(void)ddp_llp_rx_segment(f->s, stream, seq, seg, len);
		return;
	}
	size_t hl = ddp_hdr_len(seg[0]), plen = len - hl, off = 0;
	ddp_rx rx;

	if (ddp_llp_rx_begin(f->s, stream, seq, seg, hl, plen, &rx))
		return; /* misuse (bad stream): nothing to end */
	if (rx.verdict == DDP_RX_PLACE) {
		if (piece == 0)
			piece = 1;
		while (off < plen) {
			uint8_t *dst = ddp_llp_rx_dst(f->s, &rx, off);
			size_t n = plen - off < piece ? plen - off : piece;

			if (!dst)
				break;
			if (!dst_ok(f, dst, n) && !held_ok(&rx, dst, n))
				die("header-first destination outside a "
				    "writable region");
			memcpy(dst, seg + hl + off, n);
			off += n;
			if (revoke >= 0) {
				ff_invalidate(f, (unsigned)revoke);
				revoke = -1;
			}
		}
	}
	if (ddp_llp_rx_end(f->s, &rx, 1))
		die("rx_end refused an open ticket");
}

void ff_check(const fuzzfix *f)
{
	size_t pos = 0;

	for (int i = 0; i <= f->nreg; i++) {
		size_t end = i < f->nreg ? f->reg[i].off : FF_ARENA;

		for (; pos < end; pos++)
			if (f->arena[pos] != FF_CANARY)
				die("octet outside every buffer changed");
		if (i == f->nreg)
			break;
		if (!f->reg[i].writable)
			for (size_t k = 0; k < f->reg[i].len; k++)
				if (f->arena[f->reg[i].off + k] != FF_CANARY)
					die("octet of a non-writable buffer "
					    "changed");
		pos = f->reg[i].off + f->reg[i].len;
	}
}

void ff_fini(fuzzfix *f)
{
	ff_check(f);
	if (f->llp.violations)
		die("ops->send contract broken");
	ddp_session_free(f->s);
	for (int i = 0; i < f->nreg; i++)
		if (f->reg[i].stag_idx < 0 && f->reg[i].writable)
			die("posted buffer not given back by session_free");
	/* the stream-bound STag went with the session */
	if (f->stag_live[2] &&
	    ddp_stag_invalidate(f->ctx, f->stag[2]) != DDP_ERR_NOENT)
		die("session_free left a stream-bound STag valid");
	f->stag_live[2] = 0;
	for (int i = 0; i < FF_NSTAG; i++)
		if (f->stag_live[i] && ddp_stag_invalidate(f->ctx, f->stag[i]))
			die("invalidate at the end failed");
	if (ddp_pd_free(f->pda) || ddp_pd_free(f->pdb) || ddp_ctx_free(f->ctx))
		die("pd/ctx still busy after everything was freed");
}
