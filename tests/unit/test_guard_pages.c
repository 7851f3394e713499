/*
 * Memory safety under hostile segments (DDP-SEC-4, DDP-SEC-10, RFC 5041 §7.1
 * "before any byte is placed"): every tagged and untagged buffer sits
 * between PROT_NONE guard pages, and every buffer the stream must never
 * write (read-only STag, other PD, other stream, revoked) is mapped
 * read-only. Random and edge-biased segments go through both receive entry
 * points; a single stray write would kill the test with SIGSEGV.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ddp/ddp.h>
#include <ddp/llp.h>
#include <stdlib.h>
#include <string.h>

#include "guardbuf.h"

enum { T_GOOD, T_RO, T_OTHERPD, T_OTHERSTREAM, T_REVOKED, T_TINY, T_TOP, NT };
#define TLEN 4096
#define NPOST 6

struct fx {
	ddp_ctx *ctx;
	ddp_pd *pda, *pdb;
	ddp_session *s;
	guardbuf tb[NT], ub[NPOST];
	uint32_t stag[NT];
	uint64_t tobase[NT];
	unsigned long errors, placed, delivered, aborted;
	uint64_t rng;
};

static uint32_t rnd(struct fx *f)
{
	f->rng ^= f->rng << 13;
	f->rng ^= f->rng >> 7;
	f->rng ^= f->rng << 17;
	return (uint32_t)(f->rng >> 11);
}

static int l_send(void *llp, uint32_t st, const struct iovec *v, int n, size_t len, unsigned fl)
{
	return 0;
}
static uint32_t l_mulpdu(void *llp)
{
	return 1500;
}
static void l_close(void *llp, int abortive)
{
}
static const ddp_llp_ops ops = { .send = l_send, .mulpdu = l_mulpdu, .close = l_close };

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct fx *f = user;
	if (d->status)
		f->aborted++;
	else
		f->delivered++;
	if (!d->tagged) { /* give the buffer straight back */
		int rc = ddp_post_recv(s, d->stream, d->qn, d->buf, d->buf_len, NULL);
		/* only a session being freed refuses it */
		assert_true(rc == 0 || (d->status && rc == DDP_ERR_CLOSED));
	}
}
static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	((struct fx *)user)->errors++;
}

static uint32_t reg(struct fx *f, int i, ddp_pd *pd, ddp_session *s, uint32_t stream, unsigned acc,
		    uint64_t tobase, size_t len)
{
	uint32_t stag;
	assert_int_equal(guardbuf_new(&f->tb[i], len), 0);
	ddp_mr_attr a = { .addr = f->tb[i].p, .len = len, .to_base = tobase, .access = acc,
			  .pd = pd, .session = s, .stream = stream };
	assert_int_equal(ddp_stag_register(f->ctx, &a, &stag), 0);
	f->tobase[i] = tobase;
	return stag;
}

static void setup_fx(struct fx *f, uint64_t seed)
{
	memset(f, 0, sizeof(*f));
	f->rng = seed * 0x9E3779B97F4A7C15ull + 1;
	assert_int_equal(ddp_ctx_new(NULL, &f->ctx), 0);
	assert_int_equal(ddp_pd_new(f->ctx, &f->pda), 0);
	assert_int_equal(ddp_pd_new(f->ctx, &f->pdb), 0);
	ddp_callbacks cb = { .deliver = on_deliver, .error = on_error };
	ddp_session_config cfg = { .nstreams = 2, .pd = f->pda, .reorder_window = 64 };
	assert_int_equal(ddp_session_new(f->ctx, &cfg, &ops, NULL, &cb, f, &f->s), 0);
	f->stag[T_GOOD] = reg(f, T_GOOD, f->pda, NULL, 0, DDP_ACCESS_REMOTE_WRITE, 0x10000, TLEN);
	f->stag[T_RO] = reg(f, T_RO, f->pda, NULL, 0, DDP_ACCESS_REMOTE_READ, 0x20000, TLEN);
	f->stag[T_OTHERPD] = reg(f, T_OTHERPD, f->pdb, NULL, 0, DDP_ACCESS_REMOTE_WRITE, 0, TLEN);
	f->stag[T_OTHERSTREAM] =
		reg(f, T_OTHERSTREAM, NULL, f->s, 1, DDP_ACCESS_REMOTE_WRITE, 0x30000, TLEN);
	f->stag[T_REVOKED] = reg(f, T_REVOKED, f->pda, NULL, 0, DDP_ACCESS_REMOTE_WRITE, 0, TLEN);
	assert_int_equal(ddp_stag_invalidate(f->ctx, f->stag[T_REVOKED]), 0);
	f->stag[T_TINY] = reg(f, T_TINY, f->pda, NULL, 0, DDP_ACCESS_REMOTE_WRITE, 5, 1);
	f->stag[T_TOP] = reg(f, T_TOP, f->pda, NULL, 0, DDP_ACCESS_REMOTE_WRITE,
			     UINT64_MAX - (TLEN - 1), TLEN);
	/* forbidden to this stream: any write must fault */
	for (int i = T_RO; i <= T_REVOKED; i++)
		assert_int_equal(guardbuf_protect(&f->tb[i], 0), 0);
	for (int i = 0; i < NPOST; i++) {
		size_t len = (size_t)(1 + i * 700); /* 1 .. 3501 octets */
		assert_int_equal(guardbuf_new(&f->ub[i], len), 0);
		assert_int_equal(ddp_post_recv(f->s, 0, (uint32_t)(i % 2), f->ub[i].p, len, NULL), 0);
	}
}

static void teardown_fx(struct fx *f)
{
	ddp_session_free(f->s);
	for (int i = 0; i < NT; i++) {
		if (i != T_REVOKED && i != T_OTHERSTREAM)
			ddp_stag_invalidate(f->ctx, f->stag[i]);
		guardbuf_free(&f->tb[i]);
	}
	for (int i = 0; i < NPOST; i++)
		guardbuf_free(&f->ub[i]);
	assert_int_equal(ddp_pd_free(f->pda), 0);
	assert_int_equal(ddp_pd_free(f->pdb), 0);
	assert_int_equal(ddp_ctx_free(f->ctx), 0);
}

/* An edge-biased 64-bit value around `center`. */
static uint64_t near(struct fx *f, uint64_t center, uint64_t span)
{
	switch (rnd(f) % 6) {
	case 0: return center;
	case 1: return center + span;
	case 2: return center + span - 1 - (rnd(f) % 4);
	case 3: return center - 1 - (rnd(f) % 4);
	case 4: return rnd(f) % 4 ? center + rnd(f) % span : ((uint64_t)rnd(f) << 32) | rnd(f);
	default: return center + rnd(f) % (span + 8);
	}
}

static size_t make_segment(struct fx *f, uint8_t *seg, size_t cap)
{
	size_t plen;
	switch (rnd(f) % 5) {
	case 0: plen = 0; break;
	case 1: plen = 1 + rnd(f) % 4; break;
	case 2: plen = TLEN - 2 + rnd(f) % 5; break;
	default: plen = rnd(f) % (2 * TLEN); break;
	}
	uint8_t ctrl = (uint8_t)(rnd(f) % 16 == 0 ? rnd(f) : ((rnd(f) & 0x40) | 0x01));
	size_t hl;
	memset(seg, 0, DDP_MAX_HDR_LEN);
	if (rnd(f) & 1) {
		ctrl |= 0x80;
		hl = DDP_TAGGED_HDR_LEN;
		static const int pick[] = { T_GOOD, T_GOOD, T_GOOD, T_TINY, T_TOP, T_TOP };
		int t = rnd(f) & 1 ? pick[rnd(f) % 6] : (int)(rnd(f) % NT);
		uint32_t stag = f->stag[t];
		if (rnd(f) % 8 == 0)
			stag ^= 1u << (rnd(f) % 32); /* stale key / other index */
		uint64_t to = near(f, f->tobase[t], f->tb[t].len);
		seg[1] = (uint8_t)rnd(f);
		for (int i = 0; i < 4; i++)
			seg[2 + i] = (uint8_t)(stag >> (24 - 8 * i));
		for (int i = 0; i < 8; i++)
			seg[6 + i] = (uint8_t)(to >> (56 - 8 * i));
	} else {
		ctrl &= 0x7f;
		hl = DDP_UNTAGGED_HDR_LEN;
		uint32_t qn = rnd(f) % 8 == 0 ? rnd(f) : rnd(f) % 3;
		uint32_t msn = (uint32_t)near(f, 1, 4);
		uint32_t mo = (uint32_t)near(f, 0, 3501);
		for (int i = 0; i < 4; i++) {
			seg[6 + i] = (uint8_t)(qn >> (24 - 8 * i));
			seg[10 + i] = (uint8_t)(msn >> (24 - 8 * i));
			seg[14 + i] = (uint8_t)(mo >> (24 - 8 * i));
		}
	}
	seg[0] = ctrl;
	if (hl + plen > cap)
		plen = cap - hl;
	memset(seg + hl, 0xA5, plen);
	return hl + plen;
}

static void drive(struct fx *f, unsigned long iters)
{
	static uint8_t seg[2 * TLEN + 64];
	for (unsigned long it = 0; it < iters; it++) {
		size_t n = make_segment(f, seg, sizeof(seg));
		size_t hl = ddp_hdr_len(seg[0]);
		unsigned long before = f->errors;
		if (rnd(f) & 1) {
			assert_int_equal(ddp_llp_rx_segment(f->s, 0, DDP_LLP_INORDER, seg, n), 0);
		} else {
			ddp_rx rx;
			assert_int_equal(ddp_llp_rx_begin(f->s, 0, DDP_LLP_INORDER, seg, hl, n - hl, &rx), 0);
			size_t off = 0;
			while (off < n - hl) {
				size_t piece = 1 + rnd(f) % 1500;
				if (piece > n - hl - off)
					piece = n - hl - off;
				uint8_t *d = ddp_llp_rx_dst(f->s, &rx, off);
				if (!d)
					break;
				memcpy(d, seg + hl + off, piece);
				off += piece;
			}
			if (rx.verdict == DDP_RX_PLACE)
				f->placed++;
			assert_int_equal(ddp_llp_rx_end(f->s, &rx, 1), 0);
		}
		if (f->errors != before) /* start a fresh stream session and go on */
			assert_int_equal(ddp_llp_stream_reset(f->s, 0), 0);
	}
}

static void test_hostile_segments_never_write_outside_registered_buffers(void **state)
{
	const char *env = getenv("DDP_GUARD_ITERS");
	unsigned long iters = env ? strtoul(env, NULL, 0) : 400000;
	for (uint64_t seed = 1; seed <= 4; seed++) {
		struct fx f;
		setup_fx(&f, seed);
		drive(&f, iters / 4);
		print_message("seed %llu: %lu placed, %lu errors, %lu delivered, %lu flushed\n",
			      (unsigned long long)seed, f.placed, f.errors, f.delivered, f.aborted);
		/* the generator reached both outcomes: placements and errors */
		assert_true(f.placed > 0);
		assert_true(f.errors > 0);
		assert_true(f.delivered > 0);
		teardown_fx(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_segments_never_write_outside_registered_buffers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
