/*
 * test_stag: the STag table and protection domains (RFC 5041 §8):
 * 24-bit index | 8-bit key, random start, exact byte ranges, access
 * rights, PD / stream association, revocation that takes effect at once
 * (also for a header-first placement already in progress).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "ddpwire.h"
#include "memllp.h"

static ddp_ctx *ctx_new(void)
{
	ddp_ctx *c = NULL;

	assert_int_equal(ddp_ctx_new(NULL, &c), 0);
	return c;
}

static uint32_t reg_pd(ddp_ctx *c, ddp_pd *pd, void *addr, size_t len,
		       uint64_t base, unsigned access)
{
	ddp_mr_attr a = { .addr = addr, .len = len, .to_base = base,
			  .access = access, .pd = pd };
	uint32_t st = 0;

	assert_int_equal(ddp_stag_register(c, &a, &st), 0);
	return st;
}

/* Register API: every documented DDP_ERR_INVAL case; DDP-SEC-3: an STag
 * must be bound to a PD or a stream (neither is refused). */
static void test_stag_register_refuses_bad_attributes(void **state)
{
	ddp_ctx *c = ctx_new();
	ddp_pd *pd = NULL;
	uint8_t buf[16];
	uint32_t st;
	memllp *m = NULL;
	memllp_cfg cfg = { .ctx = { c, c } };

	assert_int_equal(ddp_pd_new(c, &pd), 0);
	assert_int_equal(memllp_new(&cfg, &m), 0);
	ddp_mr_attr a = { .addr = buf, .len = 16,
			  .access = DDP_ACCESS_REMOTE_WRITE, .pd = pd };
	assert_int_equal(ddp_stag_register(NULL, &a, &st), DDP_ERR_INVAL);
	assert_int_equal(ddp_stag_register(c, NULL, &st), DDP_ERR_INVAL);
	assert_int_equal(ddp_stag_register(c, &a, NULL), DDP_ERR_INVAL);
	a.len = 0;
	assert_int_equal(ddp_stag_register(c, &a, &st), DDP_ERR_INVAL);
	a.len = 16;
	a.pd = NULL; /* neither binding */
	assert_int_equal(ddp_stag_register(c, &a, &st), DDP_ERR_INVAL);
	a.pd = pd;
	a.session = memllp_session(m, 0); /* both */
	assert_int_equal(ddp_stag_register(c, &a, &st), DDP_ERR_INVAL);
	a.pd = NULL;
	a.stream = 1; /* only one stream */
	assert_int_equal(ddp_stag_register(c, &a, &st), DDP_ERR_INVAL);
	a.session = NULL;
	a.pd = pd;
	a.stream = 0;
	a.addr = (void *)(UINTPTR_MAX - 7); /* addr + len wraps */
	assert_int_equal(ddp_stag_register(c, &a, &st), DDP_ERR_INVAL);
	a.addr = NULL;
	assert_int_equal(ddp_stag_register(c, &a, &st), DDP_ERR_INVAL);
	memllp_free(m);
	assert_int_equal(ddp_pd_free(pd), 0);
	assert_int_equal(ddp_ctx_free(c), 0);
}

/* DDP-SEC-4/DDP-SEC-5: STag = 24-bit index | 8-bit key; values are unique,
 * and an invalidated value is not handed out again before its key has
 * cycled. */
static void test_sec5_stag_values_unique_and_not_reused(void **state)
{
	ddp_ctx *c = ctx_new();
	ddp_pd *pd = NULL;
	uint8_t buf[8];
	uint32_t seen[240];
	size_t n = 0;

	assert_int_equal(ddp_pd_new(c, &pd), 0);
	for (int i = 0; i < 120; i++) {
		uint32_t a = reg_pd(c, pd, buf, 8, 0, DDP_ACCESS_REMOTE_WRITE);
		uint32_t b = reg_pd(c, pd, buf, 8, 0, DDP_ACCESS_REMOTE_WRITE);

		assert_int_not_equal(a >> 8, b >> 8); /* live: other index */
		for (size_t k = 0; k < n; k++) {
			assert_int_not_equal(seen[k], a);
			assert_int_not_equal(seen[k], b);
		}
		seen[n++] = a;
		seen[n++] = b;
		assert_int_equal(ddp_stag_invalidate(c, a), 0);
		assert_int_equal(ddp_stag_invalidate(c, b), 0);
		assert_int_equal(ddp_stag_invalidate(c, a), DDP_ERR_NOENT);
	}
	assert_int_equal(ddp_pd_free(pd), 0);
	assert_int_equal(ddp_ctx_free(c), 0);
}

/* DDP-SEC-5: random start: two contexts do not hand out the same first
 * STag (the chance of a false failure is 2^-32). */
static void test_sec5_first_stag_is_random(void **state)
{
	ddp_ctx *c1 = ctx_new(), *c2 = ctx_new();
	ddp_pd *p1 = NULL, *p2 = NULL;
	uint8_t buf[8];

	assert_int_equal(ddp_pd_new(c1, &p1), 0);
	assert_int_equal(ddp_pd_new(c2, &p2), 0);
	uint32_t a = reg_pd(c1, p1, buf, 8, 0, DDP_ACCESS_REMOTE_WRITE);
	uint32_t b = reg_pd(c2, p2, buf, 8, 0, DDP_ACCESS_REMOTE_WRITE);
	assert_int_not_equal(a, b);
	assert_int_equal(ddp_stag_invalidate(c1, a), 0);
	assert_int_equal(ddp_stag_invalidate(c2, b), 0);
	assert_int_equal(ddp_pd_free(p1), 0);
	assert_int_equal(ddp_pd_free(p2), 0);
	assert_int_equal(ddp_ctx_free(c1), 0);
	assert_int_equal(ddp_ctx_free(c2), 0);
}

static uint32_t counter_random(void *user)
{
	uint32_t *n = user;

	return (*n)++ * 2654435761u;
}

/* The configured random source is used (tests may make it deterministic):
 * two contexts with the same generator hand out the same STags. */
static void test_stag_uses_configured_random_source(void **state)
{
	uint32_t n1 = 1, n2 = 1, v[2][4];
	uint8_t buf[8];

	for (int k = 0; k < 2; k++) {
		ddp_ctx_config cfg = { .random = counter_random,
				       .random_user = k ? &n2 : &n1 };
		ddp_ctx *c = NULL;
		ddp_pd *pd = NULL;

		assert_int_equal(ddp_ctx_new(&cfg, &c), 0);
		assert_int_equal(ddp_pd_new(c, &pd), 0);
		for (int i = 0; i < 4; i++)
			v[k][i] = reg_pd(c, pd, buf, 8, 0,
					 DDP_ACCESS_REMOTE_WRITE);
		for (int i = 0; i < 4; i++)
			assert_int_equal(ddp_stag_invalidate(c, v[k][i]), 0);
		assert_int_equal(ddp_pd_free(pd), 0);
		assert_int_equal(ddp_ctx_free(c), 0);
	}
	assert_true(n1 > 1);
	assert_memory_equal(v[0], v[1], sizeof(v[0]));
}

/* Limits: max_stags and max_pds give DDP_ERR_LIMIT; a PD in use is BUSY,
 * a context with objects is BUSY. */
static void test_stag_pd_limits_and_busy(void **state)
{
	ddp_ctx_config cfg = { .max_stags = 3, .max_pds = 2 };
	ddp_ctx *c = NULL;
	ddp_pd *p1 = NULL, *p2 = NULL, *p3 = NULL;
	uint8_t buf[8];
	uint32_t st[3], extra;

	assert_int_equal(ddp_ctx_new(&cfg, &c), 0);
	assert_int_equal(ddp_pd_new(c, &p1), 0);
	assert_int_equal(ddp_pd_new(c, &p2), 0);
	assert_int_equal(ddp_pd_new(c, &p3), DDP_ERR_LIMIT);
	for (int i = 0; i < 3; i++)
		st[i] = reg_pd(c, p1, buf, 8, 0, DDP_ACCESS_REMOTE_WRITE);
	ddp_mr_attr a = { .addr = buf, .len = 8, .pd = p1,
			  .access = DDP_ACCESS_REMOTE_WRITE };
	assert_int_equal(ddp_stag_register(c, &a, &extra), DDP_ERR_LIMIT);
	assert_int_equal(ddp_pd_free(p1), DDP_ERR_BUSY);
	assert_int_equal(ddp_ctx_free(c), DDP_ERR_BUSY);
	assert_int_equal(ddp_stag_invalidate(c, st[0]), 0);
	assert_int_equal(ddp_stag_register(c, &a, &st[0]), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ddp_stag_invalidate(c, st[i]), 0);
	assert_int_equal(ddp_pd_free(p1), 0);
	assert_int_equal(ddp_pd_free(p2), 0);
	assert_int_equal(ddp_pd_free(NULL), 0);
	assert_int_equal(ddp_ctx_free(c), 0);
	assert_int_equal(ddp_ctx_free(NULL), 0);
	cfg.max_stags = 1u << 24; /* more than 2^24 - 1 */
	assert_int_equal(ddp_ctx_new(&cfg, &c), DDP_ERR_INVAL);
}

/* ---- end-to-end with a pair: side 1 owns the buffers */

struct fx {
	ddp_ctx *ctx;
	ddp_pd *pd;
	memllp *m;
	ddp_session *rx;
	uint8_t arena[256];
	int hdr_first;
	size_t hook_off;
	uint32_t hook_stag;
};

static void fx_new(struct fx *f, int hdr_first)
{
	memllp_cfg cfg = { .seed = 21, .hdr_first = hdr_first };

	memset(f, 0, sizeof(*f));
	memset(f->arena, 0xCC, sizeof(f->arena));
	f->hdr_first = hdr_first;
	f->ctx = ctx_new();
	assert_int_equal(ddp_pd_new(f->ctx, &f->pd), 0);
	cfg.ctx[0] = cfg.ctx[1] = f->ctx;
	cfg.scfg[1].pd = f->pd;
	cfg.scfg[1].nstreams = 2;
	cfg.scfg[0].nstreams = 2;
	assert_int_equal(memllp_new(&cfg, &f->m), 0);
	f->rx = memllp_session(f->m, 1);
}

static void fx_free(struct fx *f)
{
	memllp_free(f->m);
	assert_int_equal(ddp_pd_free(f->pd), 0);
	assert_int_equal(ddp_ctx_free(f->ctx), 0);
}

static int write_to(struct fx *f, uint32_t stream, uint32_t stag,
		    uint64_t to, const void *p, size_t n)
{
	uint8_t seg[300];
	size_t len = tw_tagged(seg, 1, 1, 0, stag, to, p, n);

	return memllp_inject(f->m, 1, stream, DDP_LLP_INORDER, seg, len,
			     f->hdr_first);
}

static int untouched(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0xCC)
			return 0;
	return 1;
}

/* DDP-SEC-5, DDP-SEC-9: after invalidation a write gets (1, 0x00) and the
 * memory is untouched; a stale STag value does not reach a new
 * registration. */
static void test_sec5_sec9_invalidated_stag_cannot_write(void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		uint8_t p[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

		fx_new(&f, hf);
		uint32_t a = reg_pd(f.ctx, f.pd, f.arena, 64, 0,
				    DDP_ACCESS_REMOTE_WRITE);
		assert_int_equal(ddp_stag_invalidate(f.ctx, a), 0);
		uint32_t b = reg_pd(f.ctx, f.pd, f.arena + 64, 64, 0,
				    DDP_ACCESS_REMOTE_WRITE);
		assert_int_not_equal(a, b);
		assert_int_equal(write_to(&f, 0, a, 0, p, 8), 0);
		memllp_side *sd = &f.m->side[1];
		assert_int_equal(sd->nerr, 1);
		assert_int_equal(sd->err[0].etype, DDP_ETYPE_TAGGED);
		assert_int_equal(sd->err[0].code, DDP_ECODE_T_INVALID_STAG);
		assert_true(untouched(f.arena, sizeof(f.arena)));
		assert_int_equal(ddp_stag_invalidate(f.ctx, b), 0);
		fx_free(&f);
	}
}

static void invalidate_hook(memllp *m, int to_side, ddp_rx *rx, size_t off,
			    void *user)
{
	struct fx *f = user;

	if (f->hook_off == 0) {
		f->hook_off = off;
		assert_int_equal(ddp_stag_invalidate(f->ctx, f->hook_stag), 0);
	}
}

/* DDP-SEC-5: RFC 5041 §8: revocation takes effect at once, even for a
 * header-first placement whose payload is being read right now: the next
 * ddp_llp_rx_dst() answers NULL, no later byte lands, the segment gets
 * (1, 0x00) and nothing is delivered. */
static void test_sec5_invalidate_during_header_first_placement(void **state)
{
	struct fx f;
	memllp_cfg cfg = { .seed = 4, .hdr_first = 1, .max_piece = 5,
			   .piece_hook = invalidate_hook };
	uint8_t p[100];

	memset(&f, 0, sizeof(f));
	memset(f.arena, 0xCC, sizeof(f.arena));
	f.ctx = ctx_new();
	assert_int_equal(ddp_pd_new(f.ctx, &f.pd), 0);
	cfg.ctx[0] = cfg.ctx[1] = f.ctx;
	cfg.scfg[1].pd = f.pd;
	cfg.hook_user = &f;
	assert_int_equal(memllp_new(&cfg, &f.m), 0);
	f.rx = memllp_session(f.m, 1);
	f.hook_stag = reg_pd(f.ctx, f.pd, f.arena, 100, 0,
			     DDP_ACCESS_REMOTE_WRITE);
	memset(p, 0x5A, sizeof(p));
	f.hdr_first = 1;
	assert_int_equal(write_to(&f, 0, f.hook_stag, 0, p, 100), 0);
	assert_true(f.hook_off > 0 && f.hook_off <= 5);
	for (size_t i = 0; i < f.hook_off; i++)
		assert_int_equal(f.arena[i], 0x5A);
	assert_true(untouched(f.arena + f.hook_off,
			      sizeof(f.arena) - f.hook_off));
	memllp_side *sd = &f.m->side[1];
	assert_int_equal(sd->ndlv, 0);
	assert_int_equal(sd->nerr, 1);
	assert_int_equal(sd->err[0].etype, DDP_ETYPE_TAGGED);
	assert_int_equal(sd->err[0].code, DDP_ECODE_T_INVALID_STAG);
	fx_free(&f);
}

/* DDP-SEC-5 at the ticket level: rx_dst is NULL after invalidation. */
static void test_sec5_rx_dst_null_after_invalidate(void **state)
{
	struct fx f;
	uint8_t seg[14];
	ddp_rx rx;

	fx_new(&f, 1);
	uint32_t st = reg_pd(f.ctx, f.pd, f.arena, 64, 0,
			     DDP_ACCESS_REMOTE_WRITE);
	tw_tagged(seg, 1, 1, 0, st, 8, NULL, 0);
	memset(&rx, 0, sizeof(rx));
	assert_int_equal(ddp_llp_rx_begin(f.rx, 0, DDP_LLP_INORDER, seg, 14,
					  16, &rx), 0);
	assert_int_equal(rx.verdict, DDP_RX_PLACE);
	assert_ptr_equal(rx.dst, f.arena + 8);
	assert_ptr_equal(ddp_llp_rx_dst(f.rx, &rx, 4), f.arena + 12);
	assert_int_equal(ddp_stag_invalidate(f.ctx, st), 0);
	assert_null(ddp_llp_rx_dst(f.rx, &rx, 4));
	assert_int_equal(ddp_llp_rx_end(f.rx, &rx, 1), 0);
	assert_int_equal(f.m->side[1].ndlv, 0);
	assert_int_equal(f.m->side[1].nerr, 1);
	assert_int_equal(f.m->side[1].err[0].code, DDP_ECODE_T_INVALID_STAG);
	fx_free(&f);
}

/* DDP-SEC-6: write access can be revoked and given back; the error for a
 * missing right is (1, 0x00). */
static void test_sec6_access_rights_toggle(void **state)
{
	struct fx f;
	uint8_t p[4] = { 1, 2, 3, 4 };

	fx_new(&f, 0);
	uint32_t st = reg_pd(f.ctx, f.pd, f.arena, 64, 0,
			     DDP_ACCESS_REMOTE_WRITE);
	assert_int_equal(ddp_stag_set_access(f.ctx, st,
					     DDP_ACCESS_REMOTE_READ), 0);
	assert_int_equal(write_to(&f, 0, st, 0, p, 4), 0);
	assert_int_equal(f.m->side[1].nerr, 1);
	assert_int_equal(f.m->side[1].err[0].etype, DDP_ETYPE_TAGGED);
	assert_int_equal(f.m->side[1].err[0].code, DDP_ECODE_T_INVALID_STAG);
	assert_true(untouched(f.arena, 64));
	assert_int_equal(ddp_stag_invalidate(f.ctx, st), 0);
	fx_free(&f);

	fx_new(&f, 1);
	st = reg_pd(f.ctx, f.pd, f.arena, 64, 0, DDP_ACCESS_REMOTE_READ);
	assert_int_equal(ddp_stag_set_access(f.ctx, st,
					     DDP_ACCESS_REMOTE_WRITE), 0);
	assert_int_equal(write_to(&f, 0, st, 0, p, 4), 0);
	assert_int_equal(f.m->side[1].nerr, 0);
	assert_memory_equal(f.arena, p, 4);
	assert_int_equal(ddp_stag_set_access(f.ctx, st ^ 1,
					     DDP_ACCESS_REMOTE_WRITE),
			 DDP_ERR_NOENT);
	assert_int_equal(ddp_stag_set_access(f.ctx, st, 0x100), DDP_ERR_INVAL);
	assert_int_equal(ddp_stag_invalidate(f.ctx, st), 0);
	assert_int_equal(ddp_stag_set_access(f.ctx, st,
					     DDP_ACCESS_REMOTE_WRITE),
			 DDP_ERR_NOENT);
	fx_free(&f);
}

/* DDP-SEC-1, DDP-SEC-2, DDP-SEC-7: both association methods: PD (STag PD
 * == stream PD) and stream id; a mismatch is (1, 0x02) and places
 * nothing; a stream-bound STag works on its stream only. */
static void test_sec1_sec7_pd_and_stream_association(void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		struct fx f;
		ddp_pd *other = NULL;
		uint8_t p[4] = { 1, 2, 3, 4 };

		fx_new(&f, hf);
		memllp_side *sd = &f.m->side[1];
		assert_int_equal(ddp_pd_new(f.ctx, &other), 0);
		uint32_t in_pd = reg_pd(f.ctx, f.pd, f.arena, 32, 0,
					DDP_ACCESS_REMOTE_WRITE);
		ddp_mr_attr a = { .addr = f.arena + 32, .len = 32,
				  .access = DDP_ACCESS_REMOTE_WRITE,
				  .session = f.rx, .stream = 1 };
		uint32_t on_s1;
		assert_int_equal(ddp_stag_register(f.ctx, &a, &on_s1), 0);
		/* stream 1 placed by its own STag and the PD STag */
		assert_int_equal(write_to(&f, 1, on_s1, 0, p, 4), 0);
		assert_int_equal(write_to(&f, 1, in_pd, 0, p, 4), 0);
		assert_int_equal(sd->nerr, 0);
		assert_memory_equal(f.arena, p, 4);
		assert_memory_equal(f.arena + 32, p, 4);
		/* stream 0 may not use stream 1's STag */
		memset(f.arena, 0xCC, sizeof(f.arena));
		assert_int_equal(write_to(&f, 0, on_s1, 0, p, 4), 0);
		assert_int_equal(sd->nerr, 1);
		assert_int_equal(sd->err[0].code, DDP_ECODE_T_NOT_ASSOCIATED);
		assert_int_equal(sd->err[0].stream, 0);
		assert_true(untouched(f.arena, sizeof(f.arena)));
		/* an STag of another PD is not usable on stream 1 */
		uint32_t in_other = reg_pd(f.ctx, other, f.arena + 64, 32, 0,
					   DDP_ACCESS_REMOTE_WRITE);
		assert_int_equal(write_to(&f, 1, in_other, 0, p, 4), 0);
		assert_int_equal(sd->nerr, 2);
		assert_int_equal(sd->err[1].etype, DDP_ETYPE_TAGGED);
		assert_int_equal(sd->err[1].code, DDP_ECODE_T_NOT_ASSOCIATED);
		assert_int_equal(sd->err[1].stream, 1);
		assert_true(untouched(f.arena, sizeof(f.arena)));
		/* the sender side (no PD) cannot use side 1's PD STag */
		uint8_t seg[32];
		size_t n = tw_tagged(seg, 1, 1, 0, in_pd, 0, p, 4);
		assert_int_equal(memllp_inject(f.m, 0, 0, DDP_LLP_INORDER, seg,
					       n, hf), 0);
		assert_int_equal(f.m->side[0].nerr, 1);
		assert_int_equal(f.m->side[0].err[0].etype, DDP_ETYPE_TAGGED);
		assert_int_equal(f.m->side[0].err[0].code,
				 DDP_ECODE_T_NOT_ASSOCIATED);
		assert_true(untouched(f.arena, sizeof(f.arena)));
		assert_int_equal(ddp_stag_invalidate(f.ctx, in_pd), 0);
		assert_int_equal(ddp_stag_invalidate(f.ctx, in_other), 0);
		memllp_free(f.m);
		/* DDP-SEC-7: freeing the session invalidated on_s1 */
		assert_int_equal(ddp_stag_invalidate(f.ctx, on_s1),
				 DDP_ERR_NOENT);
		assert_int_equal(ddp_pd_free(other), 0);
		assert_int_equal(ddp_pd_free(f.pd), 0);
		assert_int_equal(ddp_ctx_free(f.ctx), 0);
	}
}

/* DDP-SEC-1: ddp_stream_set_pd binds one stream to another PD, before the
 * stream's traffic only. */
static void test_stream_set_pd_binds_stream(void **state)
{
	struct fx f;
	ddp_pd *other = NULL;
	uint8_t p[4] = { 1, 2, 3, 4 };

	fx_new(&f, 0);
	assert_int_equal(ddp_pd_new(f.ctx, &other), 0);
	assert_int_equal(ddp_stream_set_pd(f.rx, 1, other), 0);
	assert_int_equal(ddp_pd_free(other), DDP_ERR_BUSY);
	uint32_t st = reg_pd(f.ctx, other, f.arena, 32, 0,
			     DDP_ACCESS_REMOTE_WRITE);
	assert_int_equal(write_to(&f, 1, st, 0, p, 4), 0);
	assert_int_equal(f.m->side[1].nerr, 0);
	assert_memory_equal(f.arena, p, 4);
	/* the binding is fixed once the stream has had traffic: a change
	 * now would judge later segments of the same messages differently */
	assert_int_equal(ddp_stream_set_pd(f.rx, 1, f.pd), DDP_ERR_STATE);
	assert_int_equal(ddp_stream_set_pd(f.rx, 1, NULL), DDP_ERR_STATE);
	assert_int_equal(write_to(&f, 1, st, 4, p, 4), 0);
	assert_int_equal(f.m->side[1].nerr, 0);
	assert_memory_equal(f.arena + 4, p, 4);
	assert_int_equal(ddp_stream_set_pd(f.rx, 2, other), DDP_ERR_INVAL);
	assert_int_equal(ddp_stream_set_pd(NULL, 0, other), DDP_ERR_INVAL);
	assert_int_equal(ddp_stag_invalidate(f.ctx, st), 0);
	memllp_free(f.m);
	assert_int_equal(ddp_pd_free(other), 0);
	assert_int_equal(ddp_pd_free(f.pd), 0);
	assert_int_equal(ddp_ctx_free(f.ctx), 0);
}

/* ddp_stag_resolve_read: validity, binding, REMOTE_READ right, exact
 * bounds (DDP-SEC-4) and TO wrap. */
static void test_sec4_resolve_read_checks_everything(void **state)
{
	struct fx f;
	void *ptr = NULL;

	fx_new(&f, 0);
	uint32_t rd = reg_pd(f.ctx, f.pd, f.arena, 64, 1000,
			     DDP_ACCESS_REMOTE_READ);
	uint32_t wr = reg_pd(f.ctx, f.pd, f.arena, 64, 1000,
			     DDP_ACCESS_REMOTE_WRITE);
	ddp_session *s = f.rx;

	assert_int_equal(ddp_stag_resolve_read(f.ctx, s, 0, rd, 1000, 64,
					       &ptr), 0);
	assert_ptr_equal(ptr, f.arena);
	assert_int_equal(ddp_stag_resolve_read(f.ctx, s, 0, rd, 1063, 1,
					       &ptr), 0);
	assert_ptr_equal(ptr, f.arena + 63);
	assert_int_equal(ddp_stag_resolve_read(f.ctx, s, 0, rd, 999, 1, &ptr),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_stag_resolve_read(f.ctx, s, 0, rd, 1064, 1,
					       &ptr), DDP_ERR_INVAL);
	assert_int_equal(ddp_stag_resolve_read(f.ctx, s, 0, rd, 1001, 64,
					       &ptr), DDP_ERR_INVAL);
	assert_int_equal(ddp_stag_resolve_read(f.ctx, s, 0, rd, UINT64_MAX, 2,
					       &ptr), DDP_ERR_INVAL);
	assert_int_equal(ddp_stag_resolve_read(f.ctx, s, 0, rd, 1000,
					       UINT64_MAX, &ptr),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_stag_resolve_read(f.ctx, s, 0, wr, 1000, 4, &ptr),
			 DDP_ERR_ACCESS);
	/* side 0 has no PD */
	assert_int_equal(ddp_stag_resolve_read(f.ctx, memllp_session(f.m, 0),
					       0, rd, 1000, 4, &ptr),
			 DDP_ERR_ACCESS);
	assert_int_equal(ddp_stag_resolve_read(f.ctx, s, 0, rd ^ 0x80, 1000, 4,
					       &ptr), DDP_ERR_NOENT);
	assert_int_equal(ddp_stag_invalidate(f.ctx, rd), 0);
	assert_int_equal(ddp_stag_resolve_read(f.ctx, s, 0, rd, 1000, 4, &ptr),
			 DDP_ERR_NOENT);
	assert_int_equal(ddp_stag_invalidate(f.ctx, wr), 0);
	fx_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stag_register_refuses_bad_attributes),
		cmocka_unit_test(test_sec5_stag_values_unique_and_not_reused),
		cmocka_unit_test(test_sec5_first_stag_is_random),
		cmocka_unit_test(test_stag_uses_configured_random_source),
		cmocka_unit_test(test_stag_pd_limits_and_busy),
		cmocka_unit_test(test_sec5_sec9_invalidated_stag_cannot_write),
		cmocka_unit_test(
			test_sec5_invalidate_during_header_first_placement),
		cmocka_unit_test(test_sec5_rx_dst_null_after_invalidate),
		cmocka_unit_test(test_sec6_access_rights_toggle),
		cmocka_unit_test(test_sec1_sec7_pd_and_stream_association),
		cmocka_unit_test(test_stream_set_pd_binds_stream),
		cmocka_unit_test(test_sec4_resolve_read_checks_everything),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
