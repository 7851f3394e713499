/*
 * test_session: session and stream life (RFC 5041 §6): graceful and
 * abortive teardown, half-close, LLP failures and errors, source
 * completions, and API misuse. A ULP that calls back into the library
 * from its callbacks: test_session_reentry.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "ddpwire.h"
#include "memllp.h"

static memllp *pair_cfg(memllp_cfg *cfg)
{
	memllp *m = NULL;

	assert_int_equal(memllp_new(cfg, &m), 0);
	return m;
}

static memllp *pair(void)
{
	memllp_cfg cfg = { .seed = 8 };

	return pair_cfg(&cfg);
}

static int send_u(memllp *m, int side, uint32_t stream, const void *p,
		  size_t n, void *ctx)
{
	struct iovec iov = { (void *)p, n };

	return ddp_send_untagged(memllp_session(m, side), stream, 0, 0, &iov,
				 n ? 1 : 0, ctx);
}

static size_t count_ev(const memllp_side *sd, uint32_t stream,
		       enum ddp_stream_event ev)
{
	size_t n = 0;

	for (size_t i = 0; i < sd->nev; i++)
		if (sd->ev[i].stream == stream && sd->ev[i].ev == ev)
			n++;
	return n;
}

static int closed_abortively(const memllp_side *sd, uint32_t stream)
{
	for (size_t i = 0; i < sd->ncloses; i++)
		if (sd->closes[i].abortive &&
		    (sd->closes[i].stream == stream ||
		     sd->closes[i].stream == UINT32_MAX))
			return 1;
	return 0;
}

static void noop_deliver(ddp_session *s, const ddp_delivery *d, void *u)
{
}

/* API misuse: NULL and out-of-range arguments give DDP_ERR_INVAL. */
static void test_api_misuse_is_refused(void **state)
{
	ddp_ctx *c = NULL;
	ddp_session *s = NULL;
	ddp_callbacks cb = { .deliver = noop_deliver }, nocb = { 0 };
	ddp_session_config cfg = { 0 };
	uint8_t b[8];
	struct iovec iov = { b, 8 };

	assert_int_equal(ddp_ctx_new(NULL, &c), 0);
	assert_int_equal(ddp_ctx_new(NULL, NULL), DDP_ERR_INVAL);
	assert_int_equal(ddp_session_new(NULL, NULL, &memllp_ops, NULL, &cb,
					 NULL, &s), DDP_ERR_INVAL);
	assert_int_equal(ddp_session_new(c, NULL, NULL, NULL, &cb, NULL, &s),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_session_new(c, NULL, &memllp_ops, NULL, NULL,
					 NULL, &s), DDP_ERR_INVAL);
	assert_int_equal(ddp_session_new(c, NULL, &memllp_ops, NULL, &nocb,
					 NULL, &s), DDP_ERR_INVAL);
	assert_int_equal(ddp_session_new(c, NULL, &memllp_ops, NULL, &cb,
					 NULL, NULL), DDP_ERR_INVAL);
	cfg.nstreams = 65536;
	assert_int_equal(ddp_session_new(c, &cfg, &memllp_ops, NULL, &cb, NULL,
					 &s), DDP_ERR_INVAL);
	cfg.nstreams = 1;
	cfg.reorder_window = 32769;
	assert_int_equal(ddp_session_new(c, &cfg, &memllp_ops, NULL, &cb, NULL,
					 &s), DDP_ERR_INVAL);
	assert_int_equal(ddp_ctx_free(c), 0);

	memllp *m = pair();
	ddp_session *a = memllp_session(m, 0);
	assert_int_equal(ddp_session_nstreams(a), 1);
	assert_int_equal(ddp_session_mulpdu(a), 1500);
	assert_ptr_equal(ddp_session_ctx(a), m->side[0].ctx);
	assert_int_equal(ddp_post_recv(NULL, 0, 0, b, 8, NULL), DDP_ERR_INVAL);
	assert_int_equal(ddp_post_recv(a, 0, 0, NULL, 8, NULL), DDP_ERR_INVAL);
	assert_int_equal(ddp_post_recv(a, 1, 0, b, 8, NULL), DDP_ERR_INVAL);
	assert_int_equal(ddp_post_recv(a, 0, 3, b, 8, NULL), DDP_ERR_INVAL);
	assert_int_equal(ddp_send_untagged(NULL, 0, 0, 0, &iov, 1, NULL),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_send_untagged(a, 1, 0, 0, &iov, 1, NULL),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_send_untagged(a, 0, 3, 0, &iov, 1, NULL),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_send_untagged(a, 0, 0, 0, &iov, -1, NULL),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_send_untagged(a, 0, 0, 0, NULL, 1, NULL),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_send_tagged(NULL, 0, 1, 0, 0, &iov, 1, NULL),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_send_tagged(a, 1, 1, 0, 0, &iov, 1, NULL),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_send_tagged(a, 0, 1, 0, 0, &iov, -1, NULL),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_stream_close(NULL, 0), DDP_ERR_INVAL);
	assert_int_equal(ddp_stream_close(a, 1), DDP_ERR_INVAL);
	assert_int_equal(ddp_stream_abort(a, 1), DDP_ERR_INVAL);
	assert_int_equal(ddp_session_close(NULL, 0), DDP_ERR_INVAL);
	assert_int_equal(m->side[0].nsent, 0);
	ddp_session_free(NULL);
	memllp_free(m);
}

/* ddp_post_recv beyond max_posted gives DDP_ERR_LIMIT. */
static void test_post_recv_limit(void **state)
{
	memllp_cfg cfg = { .seed = 1 };
	uint8_t b[4];

	cfg.scfg[1].max_posted = 3;
	memllp *m = pair_cfg(&cfg);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, b, 4,
					       NULL), 0);
	assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, b, 4,
				       NULL), DDP_ERR_LIMIT);
	/* other QNs count separately */
	assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 1, b, 4,
				       NULL), 0);
	memllp_free(m);
}

/* DDP-DLV-4: source completion means the LLP took every segment: with a
 * PENDING LLP not before ddp_llp_tx_done(), in submission order. */
static void test_dlv4_send_done_after_llp_accepts(void **state)
{
	memllp_cfg cfg = { .seed = 2, .pending = 1, .mulpdu = 100 };
	memllp *m = pair_cfg(&cfg);
	uint8_t msg[300], r[2][300];
	int c1, c2;

	for (int i = 0; i < 2; i++)
		assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, r[i],
					       300, NULL), 0);
	assert_int_equal(send_u(m, 0, 0, msg, 300, &c1), 0);
	assert_int_equal(send_u(m, 0, 0, msg, 10, &c2), 0);
	assert_int_equal(m->side[0].nsent, 5);
	assert_int_equal(m->side[0].ndone, 0);
	/* complete all but the last segment of message 1 */
	for (int i = 0; i < 3; i++) {
		m->side[0].pending_n[0]--;
		ddp_llp_tx_done(memllp_session(m, 0), 0);
	}
	assert_int_equal(m->side[0].ndone, 0);
	m->side[0].pending_n[0]--;
	ddp_llp_tx_done(memllp_session(m, 0), 0);
	assert_int_equal(m->side[0].ndone, 1);
	assert_ptr_equal(m->side[0].done[0].msg_ctx, &c1);
	assert_int_equal(m->side[0].done[0].status, 0);
	memllp_pump(m);
	assert_int_equal(m->side[0].ndone, 2);
	assert_ptr_equal(m->side[0].done[1].msg_ctx, &c2);
	assert_int_equal(m->side[1].ndlv, 2);
	memllp_free(m);

	/* an LLP that copies (returns 0) completes without any peer action */
	m = pair();
	assert_int_equal(send_u(m, 0, 0, msg, 300, &c1), 0);
	assert_int_equal(m->side[0].ndone, 1);
	assert_int_equal(m->side[0].done[0].status, 0);
	memllp_free(m);
}

/* DDP-TRD-2: RFC 5041 §6: after a graceful close the messages already
 * submitted go out first (also those the LLP pushed back), the LLP is told
 * to close, and later sends fail with DDP_ERR_CLOSED. DDP-LLP-9, DDP-TRD-4:
 * the peer learns of the half-close. */
static void test_trd2_close_sends_pending_then_refuses(void **state)
{
	memllp_cfg cfg = { .seed = 3, .queue_cap = 1, .mulpdu = 40 };
	memllp *m = pair_cfg(&cfg);
	uint8_t msg[100], r[3][100];

	memset(msg, 0x61, sizeof(msg));
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, r[i],
					       100, NULL), 0);
		assert_int_equal(send_u(m, 0, 0, msg, 100, NULL), 0);
	}
	assert_int_equal(ddp_stream_close(memllp_session(m, 0), 0), 0);
	assert_int_equal(send_u(m, 0, 0, msg, 1, NULL), DDP_ERR_CLOSED);
	memllp_pump(m);
	assert_int_equal(m->side[1].ndlv, 3);
	assert_int_equal(m->side[1].nerr, 0);
	assert_int_equal(m->side[0].ndone, 3);
	assert_true(m->side[0].ncloses >= 1);
	assert_int_equal(m->side[0].closes[0].abortive, 0);
	assert_int_equal(count_ev(&m->side[1], 0, DDP_EV_HALF_CLOSED), 1);
	assert_int_equal(send_u(m, 0, 0, msg, 1, NULL), DDP_ERR_CLOSED);
	memllp_free(m);
}

/* DDP-TRD-4, DDP-TRD-5, DDP-LLP-9: after the peer's half-close the ULP keeps
 * sending, the closer keeps receiving; when the ULP closes too the LLP is
 * told and both ends see the stream closed. */
static void test_trd4_trd5_half_close_both_directions(void **state)
{
	memllp *m = pair();
	uint8_t msg[50], r0[50], r1[50];

	memset(msg, 0x62, sizeof(msg));
	assert_int_equal(ddp_post_recv(memllp_session(m, 0), 0, 0, r0, 50,
				       NULL), 0);
	assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, r1, 50,
				       NULL), 0);
	assert_int_equal(ddp_stream_close(memllp_session(m, 0), 0), 0);
	memllp_pump(m);
	assert_int_equal(count_ev(&m->side[1], 0, DDP_EV_HALF_CLOSED), 1);
	/* TRD-4: side 1 still sends; TRD-5: side 0 still receives */
	assert_int_equal(send_u(m, 1, 0, msg, 50, NULL), 0);
	memllp_pump(m);
	assert_int_equal(m->side[0].ndlv, 1);
	assert_int_equal(m->side[0].dlv[0].d.status, 0);
	assert_memory_equal(r0, msg, 50);
	assert_int_equal(m->side[1].ncloses, 0);
	/* side 1 closes: the LLP is told (graceful) */
	assert_int_equal(ddp_stream_close(memllp_session(m, 1), 0), 0);
	assert_true(m->side[1].ncloses >= 1);
	assert_int_equal(m->side[1].closes[0].abortive, 0);
	memllp_pump(m);
	assert_int_equal(count_ev(&m->side[0], 0, DDP_EV_CLOSED), 1);
	assert_int_equal(count_ev(&m->side[1], 0, DDP_EV_CLOSED), 1);
	assert_int_equal(count_ev(&m->side[0], 0, DDP_EV_ABORTED), 0);
	assert_int_equal(m->side[0].nerr + m->side[1].nerr, 0);
	memllp_free(m);
}

/* DDP-TRD-3: RFC 5041 §6: data after the LLP reported a graceful close is
 * an error (EType 0x3, DDP_ECODE_LLP_AFTER_CLOSE) and leads to an abortive
 * teardown; nothing is placed. */
static void test_trd3_data_after_peer_close_is_error(void **state)
{
	memllp *m = pair();
	uint8_t seg[64], r[32], p[4] = { 1, 2, 3, 4 };
	size_t n;

	memset(r, 0xCC, sizeof(r));
	assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, r, 32,
				       NULL), 0);
	ddp_llp_peer_closed(memllp_session(m, 1), 0);
	assert_int_equal(count_ev(&m->side[1], 0, DDP_EV_HALF_CLOSED), 1);
	n = tw_untagged(seg, 1, 1, 0, 0, 1, 0, p, 4);
	assert_int_equal(memllp_inject(m, 1, 0, DDP_LLP_INORDER, seg, n, 1), 0);
	memllp_side *sd = &m->side[1];
	assert_int_equal(sd->nerr, 1);
	assert_int_equal(sd->err[0].etype, DDP_ETYPE_LLP);
	assert_int_equal(sd->err[0].code, DDP_ECODE_LLP_AFTER_CLOSE);
	assert_int_equal(r[0], 0xCC);
	for (size_t i = 0; i < sd->ndlv; i++)
		assert_int_not_equal(sd->dlv[i].d.status, 0);
	assert_true(closed_abortively(sd, 0));
	memllp_free(m);
}

/* DDP-TRD-6, DDP-TRD-7: a lost connection is reported and every
 * outstanding request completes in error. */
static void test_trd6_trd7_llp_failure_completes_everything(void **state)
{
	memllp_cfg cfg = { .seed = 4, .pending = 1 };
	memllp *m = pair_cfg(&cfg);
	uint8_t msg[10], r[2][16];
	int ctxs[2];

	for (int i = 0; i < 2; i++) {
		assert_int_equal(ddp_post_recv(memllp_session(m, 0), 0, 0, r[i],
					       16, &ctxs[i]), 0);
		assert_int_equal(send_u(m, 0, 0, msg, 10, &ctxs[i]), 0);
	}
	assert_int_equal(m->side[0].ndone, 0);
	ddp_llp_failed(memllp_session(m, 0), UINT32_MAX, DDP_ERR_LLP);
	memllp_side *sd = &m->side[0];
	assert_int_equal(sd->ndone, 2);
	for (int i = 0; i < 2; i++) {
		assert_ptr_equal(sd->done[i].msg_ctx, &ctxs[i]);
		assert_int_equal(sd->done[i].status, DDP_ERR_LLP);
	}
	assert_int_equal(sd->ndlv, 2);
	for (int i = 0; i < 2; i++) {
		assert_true(sd->dlv[i].d.status < 0);
		assert_ptr_equal(sd->dlv[i].d.buf, r[i]);
		assert_ptr_equal(sd->dlv[i].d.buf_ctx, &ctxs[i]);
	}
	assert_int_equal(count_ev(sd, 0, DDP_EV_ABORTED), 1);
	assert_true(send_u(m, 0, 0, msg, 1, NULL) < 0);
	/* the pending segments finishing late change nothing */
	memset(sd->pending_n, 0, sizeof(uint32_t));
	memllp_free(m);
}

/* DDP-ERR-6, DDP-LLP-6: an LLP error (MPA CRC) is reported once with its
 * layer/type/code; the damaged segment is not delivered; first error wins. */
static int crc_fail(memllp *m, int to, memllp_seg *seg, void *user)
{
	int *n = user;

	return (*n)++ == 1 ? MEMLLP_BADCRC : MEMLLP_PASS;
}

static void test_err6_llp_crc_error_reported_once(void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		int count = 0;
		memllp_cfg cfg = { .seed = 5, .hdr_first = hf,
				   .mutate = crc_fail, .hook_user = &count };
		memllp *m = pair_cfg(&cfg);
		uint8_t msg[10], r[3][16];

		for (int i = 0; i < 3; i++) {
			assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0,
						       0, r[i], 16, NULL), 0);
			assert_int_equal(send_u(m, 0, 0, msg, 10, NULL), 0);
		}
		memllp_pump(m);
		memllp_side *sd = &m->side[1];
		assert_int_equal(sd->nerr, 1);
		assert_int_equal(sd->err[0].layer, DDP_LAYER_LLP);
		assert_int_equal(sd->err[0].etype, 0);
		assert_int_equal(sd->err[0].code, DDP_MPA_ECODE_CRC);
		size_t ok = 0;
		for (size_t i = 0; i < sd->ndlv; i++)
			ok += sd->dlv[i].d.status == 0;
		assert_int_equal(ok, 1); /* only the first message */
		memllp_free(m);
	}
}

/* DDP-LLP-8, DDP-TRD-8: after an error the stream stays up until the ULP
 * asks; ddp_stream_abort then flushes posted buffers with
 * DDP_ERR_ABORTED, stops the stream at the LLP and refuses sends.
 * DDP-LLP-10: once every stream is down the connection is torn down. */
static void test_llp8_llp10_abort_after_error(void **state)
{
	memllp_cfg cfg = { .seed = 6 };

	cfg.scfg[0].nstreams = cfg.scfg[1].nstreams = 2;
	memllp *m = pair_cfg(&cfg);
	ddp_session *s = memllp_session(m, 1);
	uint8_t seg[32], r[16], b[4] = { 0 };
	int bctx;
	size_t n;

	assert_int_equal(ddp_post_recv(s, 0, 1, r, 16, &bctx), 0);
	n = tw_untagged(seg, 1, 1, 0, 9, 1, 0, b, 4); /* bad QN */
	assert_int_equal(memllp_inject(m, 1, 0, DDP_LLP_INORDER, seg, n, 0), 0);
	memllp_side *sd = &m->side[1];
	assert_int_equal(sd->nerr, 1);
	assert_int_equal(sd->ncloses, 0); /* DDP-TRD-1/8: no self teardown */
	assert_int_equal(ddp_stream_abort(s, 0), 0);
	assert_true(closed_abortively(sd, 0));
	assert_int_equal(sd->ndlv, 1);
	assert_int_equal(sd->dlv[0].d.status, DDP_ERR_ABORTED);
	assert_ptr_equal(sd->dlv[0].d.buf_ctx, &bctx);
	assert_true(send_u(m, 1, 0, b, 4, NULL) < 0);
	assert_int_equal(send_u(m, 1, 1, b, 4, NULL), 0); /* stream 1 ok */
	assert_int_equal(ddp_stream_abort(s, 1), 0);
	assert_true(closed_abortively(sd, 1));
	/* DDP-LLP-10: every stream is down: the connection is torn down */
	assert_int_equal(sd->closes[sd->ncloses - 1].stream, UINT32_MAX);
	memllp_free(m);
}

/* DDP-LLP-8: with an LLP that cannot close one stream (close_stream NULL),
 * a stream stopped by an error carries nothing more once the ULP asked for
 * teardown; the connection (its only stream) is closed abortively. */
static void test_llp8_single_stream_llp_without_close_stream(void **state)
{
	memllp_cfg cfg = { .seed = 6, .no_close_stream = 1 };
	memllp *m = pair_cfg(&cfg);
	ddp_session *s = memllp_session(m, 1);
	uint8_t seg[32], b[4] = { 0 };
	size_t n;

	n = tw_tagged(seg, 1, 2, 0, 0, 0, b, 4); /* bad DV */
	assert_int_equal(memllp_inject(m, 1, 0, DDP_LLP_INORDER, seg, n, 0), 0);
	memllp_side *sd = &m->side[1];
	assert_int_equal(sd->nerr, 1);
	assert_int_equal(sd->ncloses, 0);
	/* DDP-ERR-4: the one extra message (the Terminate) goes out */
	assert_int_equal(send_u(m, 1, 0, b, 4, NULL), 0);
	size_t sent = sd->nsent;
	assert_int_equal(ddp_stream_abort(s, 0), 0);
	assert_int_equal(sd->ncloses, 1);
	assert_int_equal(sd->closes[0].stream, UINT32_MAX);
	assert_int_equal(sd->closes[0].abortive, 1);
	assert_true(send_u(m, 1, 0, b, 4, NULL) < 0);
	assert_int_equal(sd->nsent, sent);
	memllp_free(m);
}

/* DDP-LLP-10, DDP-LLP-9: two streams closed gracefully by both ends: each
 * end closes the connection gracefully once the last stream is closed. */
static void test_llp10_all_streams_closed_ends_connection(void **state)
{
	memllp_cfg cfg = { .seed = 6 };

	cfg.scfg[0].nstreams = cfg.scfg[1].nstreams = 2;
	memllp *m = pair_cfg(&cfg);
	for (int side = 0; side < 2; side++)
		for (uint32_t st = 0; st < 2; st++)
			assert_int_equal(ddp_stream_close(memllp_session(m, side),
							  st), 0);
	memllp_pump(m);
	for (int side = 0; side < 2; side++) {
		memllp_side *sd = &m->side[side];
		int conn = 0;

		for (size_t i = 0; i < sd->ncloses; i++) {
			assert_int_equal(sd->closes[i].abortive, 0);
			conn += sd->closes[i].stream == UINT32_MAX;
		}
		assert_int_equal(conn, 1);
		assert_int_equal(count_ev(sd, 0, DDP_EV_CLOSED), 1);
		assert_int_equal(count_ev(sd, 1, DDP_EV_CLOSED), 1);
		assert_int_equal(sd->nerr, 0);
	}
	memllp_free(m);
}

/* ddp_session_close: every stream is closed and the LLP asked to end. */
static void test_session_close_graceful_and_abortive(void **state)
{
	for (int ab = 0; ab < 2; ab++) {
		memllp_cfg cfg = { .seed = 7 };

		cfg.scfg[0].nstreams = cfg.scfg[1].nstreams = 2;
		memllp *m = pair_cfg(&cfg);
		uint8_t b[4] = { 0 }, r[4];

		assert_int_equal(ddp_post_recv(memllp_session(m, 0), 1, 0, r, 4,
					       NULL), 0);
		assert_int_equal(ddp_session_close(memllp_session(m, 0), ab),
				 0);
		assert_true(m->side[0].ncloses >= 1);
		for (size_t i = 0; i < m->side[0].ncloses; i++)
			assert_int_equal(m->side[0].closes[i].abortive, ab);
		assert_true(send_u(m, 0, 0, b, 4, NULL) < 0);
		assert_true(send_u(m, 0, 1, b, 4, NULL) < 0);
		if (ab) {
			/* abortive: the posted buffer is flushed at once */
			assert_int_equal(m->side[0].ndlv, 1);
			assert_int_equal(m->side[0].dlv[0].d.status,
					 DDP_ERR_ABORTED);
		}
		memllp_pump(m);
		if (!ab) {
			assert_int_equal(count_ev(&m->side[1], 0,
						  DDP_EV_HALF_CLOSED), 1);
			assert_int_equal(count_ev(&m->side[1], 1,
						  DDP_EV_HALF_CLOSED), 1);
		} else {
			assert_int_equal(count_ev(&m->side[1], 0,
						  DDP_EV_ABORTED), 1);
		}
		memllp_free(m);
	}
}

/* ddp_session_free flushes: outstanding sends complete with
 * DDP_ERR_ABORTED, posted buffers come back with DDP_ERR_ABORTED. */
static void test_session_free_flushes_everything(void **state)
{
	memllp_cfg cfg = { .seed = 9, .pending = 1 };
	memllp *m = pair_cfg(&cfg);
	uint8_t b[8], r[8];
	int c1, c2;

	assert_int_equal(send_u(m, 0, 0, b, 8, &c1), 0);
	assert_int_equal(ddp_post_recv(memllp_session(m, 0), 0, 2, r, 8, &c2),
			 0);
	memllp_side *sd = &m->side[0];
	ddp_session_free(sd->s);
	sd->s = NULL;
	memset(sd->pending_n, 0, sizeof(uint32_t));
	assert_int_equal(sd->ndone, 1);
	assert_int_equal(sd->done[0].status, DDP_ERR_ABORTED);
	assert_ptr_equal(sd->done[0].msg_ctx, &c1);
	assert_int_equal(sd->ndlv, 1);
	assert_int_equal(sd->dlv[0].d.status, DDP_ERR_ABORTED);
	assert_ptr_equal(sd->dlv[0].d.buf_ctx, &c2);
	assert_int_equal(sd->dlv[0].d.qn, 2);
	memllp_free(m);
}

/* ddp_llp_stream_reset: MSNs back to 1, error state cleared, posted
 * buffers returned with DDP_ERR_ABORTED. */
static void test_stream_reset_restarts_stream(void **state)
{
	memllp *m = pair();
	ddp_session *s = memllp_session(m, 1);
	uint8_t seg[32], r[2][16], b[4] = { 5, 6, 7, 8 };
	size_t n;

	assert_int_equal(ddp_post_recv(s, 0, 0, r[0], 16, NULL), 0);
	n = tw_untagged(seg, 1, 2, 0, 0, 1, 0, b, 4); /* bad DV */
	assert_int_equal(memllp_inject(m, 1, 0, DDP_LLP_INORDER, seg, n, 0), 0);
	assert_int_equal(m->side[1].nerr, 1);
	assert_int_equal(ddp_llp_stream_reset(s, 0), 0);
	assert_int_equal(m->side[1].ndlv, 1);
	assert_int_equal(m->side[1].dlv[0].d.status, DDP_ERR_ABORTED);
	assert_int_equal(ddp_post_recv(s, 0, 0, r[1], 16, NULL), 0);
	n = tw_untagged(seg, 1, 1, 0, 0, 1, 0, b, 4);
	assert_int_equal(memllp_inject(m, 1, 0, DDP_LLP_INORDER, seg, n, 0), 0);
	assert_int_equal(m->side[1].nerr, 1);
	assert_int_equal(m->side[1].ndlv, 2);
	assert_int_equal(m->side[1].dlv[1].d.status, 0);
	assert_int_equal(m->side[1].dlv[1].d.msn, 1);
	assert_memory_equal(r[1], b, 4);
	/* and the sender side numbers from 1 again */
	assert_int_equal(send_u(m, 1, 0, b, 4, NULL), 0);
	assert_int_equal(send_u(m, 1, 0, b, 4, NULL), 0);
	assert_int_equal(ddp_llp_stream_reset(s, 0), 0);
	assert_int_equal(send_u(m, 1, 0, b, 4, NULL), 0);
	tw_hdr h;
	assert_int_equal(tw_decode(m->side[1].sent[2].data,
				   m->side[1].sent[2].len, &h), 0);
	assert_int_equal(h.msn, 1);
	assert_int_equal(ddp_llp_stream_reset(s, 4), DDP_ERR_INVAL);
	memllp_free(m);
}

/* A stream aborted, then reset for a new session (SCTP re-initiate) and
 * closed gracefully: the connection ends gracefully (RFC 5041 §3 item 10,
 * DDP-LLP-10), not abortively because of the old session's abort. */
static void test_stream_reset_forgets_old_abort(void **state)
{
	memllp_cfg cfg = { .seed = 9 };

	cfg.scfg[0].nstreams = cfg.scfg[1].nstreams = 2;
	memllp *m = pair_cfg(&cfg);
	ddp_session *s = memllp_session(m, 0);
	assert_int_equal(ddp_stream_abort(s, 0), 0);
	memllp_pump(m);
	/* both ends start a new session on stream 0 */
	for (int side = 0; side < 2; side++)
		assert_int_equal(ddp_llp_stream_reset(memllp_session(m, side), 0), 0);
	m->side[0].ncloses = 0; /* the abort's close_stream */
	/* stream 1 ends first; the end of stream 0 then ends the connection */
	for (int side = 0; side < 2; side++)
		assert_int_equal(ddp_stream_close(memllp_session(m, side), 1), 0);
	memllp_pump(m);
	for (int side = 0; side < 2; side++)
		assert_int_equal(ddp_stream_close(memllp_session(m, side), 0), 0);
	memllp_pump(m);
	int conn = 0;
	for (size_t i = 0; i < m->side[0].ncloses; i++) {
		assert_int_equal(m->side[0].closes[i].abortive, 0);
		conn += m->side[0].closes[i].stream == UINT32_MAX;
	}
	assert_int_equal(conn, 1);
	memllp_free(m);
}

/* DDP-LLP-3, DDP-TRD-6, DDP-TRD-7: a segment the LLP refuses with a fatal
 * error is never silently lost: the message and the ones queued after it
 * complete in error and the stream is reported aborted. */
static void test_llp3_fatal_send_error_completes_in_error(void **state)
{
	memllp_cfg cfg = { .seed = 10, .mulpdu = 40, .fail_send_at = 3 };
	memllp *m = pair_cfg(&cfg);
	uint8_t msg[50];
	int c[3];

	memset(msg, 1, sizeof(msg));
	assert_int_equal(send_u(m, 0, 0, msg, 20, &c[0]), 0); /* 1 seg */
	int rc = send_u(m, 0, 0, msg, 50, &c[1]);	      /* 3 segs */
	assert_true(rc == 0 || rc == DDP_ERR_LLP);
	int rc2 = send_u(m, 0, 0, msg, 5, &c[2]);
	memllp_side *sd = &m->side[0];
	assert_true(sd->ndone >= 1);
	assert_ptr_equal(sd->done[0].msg_ctx, &c[0]);
	assert_int_equal(sd->done[0].status, 0);
	/* message 2 failed: completed in error (or refused at the call) */
	if (rc == 0) {
		assert_true(sd->ndone >= 2);
		assert_ptr_equal(sd->done[1].msg_ctx, &c[1]);
		assert_true(sd->done[1].status < 0);
	}
	/* message 3 never went out with success */
	for (size_t i = 0; i < sd->ndone; i++)
		if (sd->done[i].msg_ctx == &c[2])
			assert_true(sd->done[i].status < 0);
	assert_true(rc2 < 0 || sd->ndone == 3);
	assert_int_equal(count_ev(sd, 0, DDP_EV_ABORTED), 1);
	memllp_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_api_misuse_is_refused),
		cmocka_unit_test(test_post_recv_limit),
		cmocka_unit_test(test_dlv4_send_done_after_llp_accepts),
		cmocka_unit_test(test_trd2_close_sends_pending_then_refuses),
		cmocka_unit_test(test_trd4_trd5_half_close_both_directions),
		cmocka_unit_test(test_trd3_data_after_peer_close_is_error),
		cmocka_unit_test(test_trd6_trd7_llp_failure_completes_everything),
		cmocka_unit_test(test_err6_llp_crc_error_reported_once),
		cmocka_unit_test(test_llp8_llp10_abort_after_error),
		cmocka_unit_test(
			test_llp8_single_stream_llp_without_close_stream),
		cmocka_unit_test(test_llp10_all_streams_closed_ends_connection),
		cmocka_unit_test(test_session_close_graceful_and_abortive),
		cmocka_unit_test(test_llp3_fatal_send_error_completes_in_error),
		cmocka_unit_test(test_session_free_flushes_everything),
		cmocka_unit_test(test_stream_reset_restarts_stream),
		cmocka_unit_test(test_stream_reset_forgets_old_abort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
