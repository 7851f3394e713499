/*
 * test_stag_hold: a region read by an outgoing Read Response is held
 * (ddp_stag_hold_read): invalidation makes the STag invalid at once but
 * releases the buffer only when the last hold is dropped; the released
 * callback says when the buffer is the application's again, exactly once
 * per registration (ddp/ddp.h, "Memory handed to the library").
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include <ddp/ddp.h>

#include "nullllp.h"

struct rel {
	int n;
	uint32_t stag;
	void *addr;
};

static void on_released(ddp_ctx *ctx, uint32_t stag, void *addr, void *user)
{
	struct rel *r = user;
	(void)ctx;
	r->n++;
	r->stag = stag;
	r->addr = addr;
}

struct fx {
	ddp_ctx *ctx;
	ddp_session *s;
	uint8_t buf[256];
	struct rel rel;
	uint32_t stag;
	nullllp llp;
};

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s;
	(void)d;
	(void)user;
}

static const ddp_callbacks cb = { .deliver = on_deliver };

static void fx_up(struct fx *f, unsigned access)
{
	memset(f, 0, sizeof(*f));
	assert_int_equal(ddp_ctx_new(NULL, &f->ctx), 0);
	assert_int_equal(ddp_session_new(f->ctx, NULL, &nullllp_ops, &f->llp, &cb, NULL, &f->s), 0);
	ddp_mr_attr a = { .addr = f->buf, .len = sizeof(f->buf), .access = access,
			  .session = f->s, .released = on_released, .released_user = &f->rel };
	assert_int_equal(ddp_stag_register(f->ctx, &a, &f->stag), 0);
}

static void fx_down(struct fx *f)
{
	assert_int_equal(ddp_session_free(f->s), 0);
	assert_int_equal(ddp_ctx_free(f->ctx), 0);
}

/* Nothing reads it: invalidation releases at once, inside the call. */
static void test_stag_invalidate_unheld_releases_at_once(void **state)
{
	struct fx f;
	fx_up(&f, DDP_ACCESS_REMOTE_READ);
	assert_int_equal(ddp_stag_invalidate(f.ctx, f.stag), 0);
	assert_int_equal(f.rel.n, 1);
	assert_int_equal(f.rel.stag, f.stag);
	assert_ptr_equal(f.rel.addr, f.buf);
	fx_down(&f);
	assert_int_equal(f.rel.n, 1);
}

/* Held by two readers: the STag is invalid at once (no new hold, no
 * second invalidation), the region lives until the second unhold; the
 * context refuses to go while it does. */
static void test_stag_held_region_released_by_last_unhold(void **state)
{
	struct fx f;
	fx_up(&f, DDP_ACCESS_REMOTE_READ);
	void *p1, *p2;
	ddp_stag_hold *h1, *h2;
	assert_int_equal(ddp_stag_hold_read(f.ctx, f.s, 0, f.stag, 16, 32, &p1, &h1), 0);
	assert_int_equal(ddp_stag_hold_read(f.ctx, f.s, 0, f.stag, 0, 256, &p2, &h2), 0);
	assert_ptr_equal(p1, f.buf + 16);
	assert_int_equal(ddp_stag_invalidate(f.ctx, f.stag), DDP_STAG_IN_USE);
	assert_int_equal(f.rel.n, 0);
	void *p3;
	ddp_stag_hold *h3;
	assert_int_equal(ddp_stag_hold_read(f.ctx, f.s, 0, f.stag, 0, 1, &p3, &h3), DDP_ERR_NOENT);
	assert_int_equal(ddp_stag_invalidate(f.ctx, f.stag), DDP_ERR_NOENT);
	ddp_ctx_live live;
	assert_int_equal(ddp_ctx_live_objects(f.ctx, &live), 0);
	assert_int_equal(live.stags, 1);
	ddp_stag_unhold(f.ctx, h1);
	assert_int_equal(f.rel.n, 0);
	assert_int_equal(ddp_session_free(f.s), 0); /* the session's end is no release */
	assert_int_equal(f.rel.n, 0);
	assert_int_equal(ddp_ctx_free(f.ctx), DDP_ERR_BUSY);
	ddp_stag_unhold(f.ctx, h2);
	assert_int_equal(f.rel.n, 1);
	assert_ptr_equal(f.rel.addr, f.buf);
	assert_int_equal(ddp_ctx_free(f.ctx), 0);
}

/* The peer's invalidation (Send with Invalidate) and the session's end
 * follow the same rule. */
static void test_stag_remote_invalidate_and_session_end_wait_for_holds(void **state)
{
	struct fx f;
	fx_up(&f, DDP_ACCESS_REMOTE_READ);
	void *p;
	ddp_stag_hold *h;
	assert_int_equal(ddp_stag_hold_read(f.ctx, f.s, 0, f.stag, 0, 8, &p, &h), 0);
	assert_int_equal(ddp_stag_invalidate_remote(f.ctx, f.s, 0, f.stag), DDP_STAG_IN_USE);
	assert_int_equal(f.rel.n, 0);
	ddp_stag_unhold(f.ctx, h);
	assert_int_equal(f.rel.n, 1);
	/* a second region, held when its session is freed */
	struct rel rel2 = { 0 };
	uint8_t b2[8];
	ddp_mr_attr a = { .addr = b2, .len = sizeof(b2), .access = DDP_ACCESS_REMOTE_READ,
			  .session = f.s, .released = on_released, .released_user = &rel2 };
	uint32_t st2;
	assert_int_equal(ddp_stag_register(f.ctx, &a, &st2), 0);
	assert_int_equal(ddp_stag_hold_read(f.ctx, f.s, 0, st2, 0, 8, &p, &h), 0);
	assert_int_equal(ddp_session_free(f.s), 0);
	assert_int_equal(rel2.n, 0);
	ddp_stag_unhold(f.ctx, h);
	assert_int_equal(rel2.n, 1);
	assert_int_equal(ddp_ctx_free(f.ctx), 0);
}

/* A hold checks what a resolve checks; a failed hold holds nothing. */
static void test_stag_hold_checks_access_and_bounds(void **state)
{
	struct fx f;
	fx_up(&f, DDP_ACCESS_REMOTE_WRITE);
	void *p;
	ddp_stag_hold *h = NULL;
	assert_int_equal(ddp_stag_hold_read(f.ctx, f.s, 0, f.stag, 0, 8, &p, &h), DDP_ERR_ACCESS);
	assert_int_equal(ddp_stag_set_access(f.ctx, f.stag, DDP_ACCESS_REMOTE_READ), 0);
	assert_int_equal(ddp_stag_hold_read(f.ctx, f.s, 0, f.stag, 250, 7, &p, &h), DDP_ERR_INVAL);
	assert_int_equal(ddp_stag_hold_read(f.ctx, f.s, 0, f.stag, 0, 8, &p, NULL), DDP_ERR_INVAL);
	assert_null(h);
	assert_int_equal(ddp_stag_invalidate(f.ctx, f.stag), 0); /* nothing held */
	assert_int_equal(f.rel.n, 1);
	ddp_stag_unhold(f.ctx, NULL); /* no-op */
	fx_down(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stag_invalidate_unheld_releases_at_once),
		cmocka_unit_test(test_stag_held_region_released_by_last_unhold),
		cmocka_unit_test(test_stag_remote_invalidate_and_session_end_wait_for_holds),
		cmocka_unit_test(test_stag_hold_checks_access_and_bounds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
