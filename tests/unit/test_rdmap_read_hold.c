/*
 * test_rdmap_read_hold: a Read Response that waits for the LLP keeps its
 * source buffer. The responder (side 1) answers a Read of a guard-page
 * buffer over the in-memory LLP whose queue holds only a few segments, so
 * most of the Response waits in DDP, reading the buffer as room appears.
 * The STag is then invalidated (by the application, or by the peer's Send
 * with Invalidate): the buffer may be freed only when the region's
 * released callback runs. The callback overwrites the buffer and makes it
 * inaccessible (PROT_NONE): a Response still reading it would crash or
 * carry the wrong octets; the requester must receive the original ones.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <ddp/rdmap.h>

#include "guardbuf.h"
#include "memllp.h"

#define LEN 5000 /* about 60 segments at MULPDU 100 */

struct side {
	ddp_rdmap_qp *qp;
	ddp_rdmap_wc wc[8];
	int nwc;
	int nterm;
};

struct fx {
	memllp *m;
	ddp_ctx *ctx[2];
	ddp_rdmap_dev *dev[2];
	struct side sd[2];
	guardbuf src;
	uint8_t sink[LEN], want[LEN], rbuf[64];
	uint32_t src_stag, sink_stag;
	int released;
	uint64_t queued_at_release; /* side 1's untransmitted octets then */
	int released_at_recv;	    /* at the Send with Invalidate's RECV */
};

static void on_complete(ddp_rdmap_qp *qp, const ddp_rdmap_wc *wc, void *user)
{
	struct side *s = user;
	assert_true(s->nwc < 8);
	s->wc[s->nwc++] = *wc;
}

static void on_term(ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent, void *user)
{
	((struct side *)user)->nterm++;
}

static const ddp_rdmap_callbacks qcb = { on_complete, on_term };

/* The application frees the buffer the moment the library gives it back. */
static void on_released(ddp_ctx *ctx, uint32_t stag, void *addr, void *user)
{
	struct fx *f = user;
	assert_ptr_equal(addr, f->src.p);
	f->released++;
	f->queued_at_release = ddp_stream_queued(memllp_session(f->m, 1), 0, NULL);
	memset(f->src.p, 0xEE, LEN);
	assert_int_equal(mprotect(f->src.map, f->src.map_len, PROT_NONE), 0);
}

static struct fx *fx_new(void)
{
	struct fx *f = calloc(1, sizeof(*f));
	assert_non_null(f);
	static ddp_callbacks dcb;
	ddp_rdmap_dev_callbacks(&dcb);
	memllp_cfg cfg = { .seed = 11, .mulpdu = 100, .queue_cap = 4, .max_piece = 17 };
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ddp_ctx_new(NULL, &f->ctx[i]), 0);
		assert_int_equal(ddp_rdmap_dev_new(f->ctx[i], NULL, NULL, &f->dev[i]), 0);
		cfg.ctx[i] = f->ctx[i];
		cfg.cb[i] = &dcb;
		cfg.user[i] = f->dev[i];
	}
	assert_int_equal(memllp_new(&cfg, &f->m), 0);
	ddp_rdmap_config c = { .ird = 1, .ord = 1 };
	for (int i = 0; i < 2; i++)
		assert_int_equal(ddp_rdmap_qp_new(f->dev[i], memllp_session(f->m, i), 0, &c, &qcb,
						  &f->sd[i], &f->sd[i].qp), 0);
	assert_int_equal(guardbuf_new(&f->src, LEN), 0);
	for (size_t i = 0; i < LEN; i++)
		f->want[i] = f->src.p[i] = (uint8_t)(i * 13 + (i >> 8));
	ddp_mr_attr a = { .addr = f->src.p, .len = LEN, .access = DDP_ACCESS_REMOTE_READ,
			  .session = memllp_session(f->m, 1), .released = on_released,
			  .released_user = f };
	assert_int_equal(ddp_stag_register(f->ctx[1], &a, &f->src_stag), 0);
	ddp_mr_attr k = { .addr = f->sink, .len = LEN, .access = DDP_ACCESS_REMOTE_WRITE,
			  .session = memllp_session(f->m, 0) };
	assert_int_equal(ddp_stag_register(f->ctx[0], &k, &f->sink_stag), 0);
	return f;
}

static void fx_free(struct fx *f)
{
	for (int i = 0; i < 2; i++)
		assert_int_equal(ddp_rdmap_qp_free(f->sd[i].qp), 0);
	ddp_stag_invalidate(f->ctx[0], f->sink_stag);
	ddp_stag_invalidate(f->ctx[1], f->src_stag); /* NOENT unless still valid */
	memllp_free(f->m);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(ddp_rdmap_dev_free(f->dev[i]), 0);
		assert_int_equal(ddp_ctx_free(f->ctx[i]), 0); /* no region left behind */
	}
	guardbuf_free(&f->src);
	free(f);
}

/* The Read Request reaches the responder; its Response fills the LLP's
 * queue (4 segments) and the rest waits in DDP: the "peer" takes nothing
 * more until the test pumps side 1. */
static void read_queued(struct fx *f)
{
	assert_int_equal(ddp_rdmap_post_read(f->sd[0].qp, f->sink_stag, 0, f->src_stag, 0, LEN,
					     (void *)1), 0);
	while (memllp_queued(f->m, 0))
		memllp_pump_one(f->m, 0);
	assert_true(ddp_stream_queued(memllp_session(f->m, 1), 0, NULL) > LEN / 2);
}

/* Pump both ways; the Read completes with the buffer's octets as they were
 * when it was asked for, and the region was released only after its
 * Response had left (nothing queued then). */
static void finish_read(struct fx *f)
{
	memllp_pump(f->m);
	assert_true(f->sd[0].nwc >= 1);
	assert_int_equal(f->sd[0].wc[0].kind, DDP_RDMAP_WC_READ);
	assert_int_equal(f->sd[0].wc[0].status, 0);
	assert_memory_equal(f->sink, f->want, LEN);
	assert_int_equal(f->released, 1);
	assert_int_equal(f->queued_at_release, 0);
	assert_int_equal(f->sd[0].nterm + f->sd[1].nterm, 0);
}

/* RFC 5040 §5.3 / ddp/ddp.h: the application invalidates the source STag
 * while the Response is queued: the STag is invalid at once, the buffer
 * stays in use (DDP_STAG_IN_USE) until the Response was sent. */
static void test_rdmap_invalidate_waits_for_queued_read_response(void **state)
{
	struct fx *f = fx_new();
	read_queued(f);
	int rc = ddp_stag_invalidate(f->ctx[1], f->src_stag);
	finish_read(f);
	assert_int_equal(f->sd[0].nwc, 1);
	assert_int_equal(rc, DDP_STAG_IN_USE);
	fx_free(f);
}

/* RFC 5040 §5.1: the peer's Send with Invalidate makes the STag invalid
 * before the Send is delivered; a Response of ours still reading it keeps
 * the buffer until it was sent. */
static void test_rdmap_peer_send_inv_waits_for_queued_read_response(void **state)
{
	struct fx *f = fx_new();
	assert_int_equal(ddp_rdmap_post_recv(f->sd[1].qp, f->rbuf, sizeof(f->rbuf), (void *)7), 0);
	read_queued(f);
	struct iovec v = { "inv", 3 };
	assert_int_equal(ddp_rdmap_post_send(f->sd[0].qp, DDP_RDMAP_SEND_INV, f->src_stag, &v, 1,
					     (void *)2), 0);
	while (memllp_queued(f->m, 0))
		memllp_pump_one(f->m, 0);
	assert_int_equal(f->sd[1].nwc, 1);
	assert_true(f->sd[1].wc[0].invalidated);
	assert_int_equal(f->sd[1].wc[0].inv_stag, f->src_stag);
	f->released_at_recv = f->released;
	assert_int_equal(ddp_stag_invalidate(f->ctx[1], f->src_stag), DDP_ERR_NOENT);
	finish_read(f);
	assert_int_equal(f->released_at_recv, 0);
	assert_int_equal(f->sd[0].nwc, 2); /* then the Send (RFC 5040 §5.5) */
	assert_int_equal(f->sd[0].wc[1].kind, DDP_RDMAP_WC_SEND);
	assert_int_equal(f->sd[0].wc[1].status, 0);
	fx_free(f);
}

/* Freeing the responder's queue pair with the Response still queued drops
 * it and releases the region inside the free: no leak, no wait. */
static void test_rdmap_qp_free_releases_queued_read_response(void **state)
{
	struct fx *f = fx_new();
	read_queued(f);
	assert_int_equal(ddp_stag_invalidate(f->ctx[1], f->src_stag), DDP_STAG_IN_USE);
	assert_int_equal(f->released, 0);
	assert_int_equal(ddp_rdmap_qp_free(f->sd[1].qp), 0);
	f->sd[1].qp = NULL;
	assert_int_equal(f->released, 1);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rdmap_invalidate_waits_for_queued_read_response),
		cmocka_unit_test(test_rdmap_peer_send_inv_waits_for_queued_read_response),
		cmocka_unit_test(test_rdmap_qp_free_releases_queued_read_response),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
