/*
 * test_session_reentry: a ULP that calls back into the library from its
 * own callbacks (llp.h: the core may call ops->send from inside a receive
 * entry point): it reposts and answers inside deliver, aborts the stream
 * there while completed messages wait in the ordering window, or closes
 * the session there.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "memllp.h"

struct reent {
	memllp *m;
	int side;
	int mode;	/* 0: reply + repost, 1: abort the stream, 2: close */
	int replies;
	uint8_t bufs[64][16];
	int nbuf;
};

static void reent_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct reent *r = user;
	memllp_side *sd = &r->m->side[r->side];

	memllp_recorder.deliver(s, d, sd);
	if (d->status != 0)
		return;
	switch (r->mode) {
	case 0:
		/* post a fresh buffer and answer at once (inside rx) */
		if (r->nbuf < 64)
			assert_int_equal(ddp_post_recv(s, d->stream, 0,
						       r->bufs[r->nbuf++], 16,
						       NULL), 0);
		if (r->replies-- > 0) {
			uint8_t b[4] = { 1, 2, 3, 4 };
			struct iovec iov = { b, 4 };

			assert_int_equal(ddp_send_untagged(s, d->stream, 0, 0,
							   &iov, 1, NULL), 0);
		}
		break;
	case 1:
		assert_int_equal(ddp_stream_abort(s, d->stream), 0);
		break;
	default:
		assert_int_equal(ddp_session_close(s, 0), 0);
		break;
	}
}

static void reent_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct reent *r = user;

	memllp_recorder.error(s, e, &r->m->side[r->side]);
}

static void reent_done(ddp_session *s, uint32_t stream, void *msg_ctx,
		       int status, void *user)
{
	struct reent *r = user;

	memllp_recorder.send_done(s, stream, msg_ctx, status,
				  &r->m->side[r->side]);
}

static void reent_event(ddp_session *s, uint32_t stream,
			enum ddp_stream_event ev, int status, void *user)
{
	struct reent *r = user;

	memllp_recorder.stream_event(s, stream, ev, status,
				     &r->m->side[r->side]);
}

static const ddp_callbacks reent_cb = {
	.deliver = reent_deliver,
	.send_done = reent_done,
	.error = reent_error,
	.stream_event = reent_event,
};

static memllp *reent_pair(struct reent r[2], int mode, int ooo, int hf)
{
	memllp_cfg cfg = { .seed = 12, .out_of_order = ooo, .hdr_first = hf,
			   .reorder_pct = ooo ? 70 : 0 };
	memllp *m = NULL;

	memset(r, 0, 2 * sizeof(*r));
	for (int i = 0; i < 2; i++) {
		r[i].side = i;
		r[i].mode = mode;
		cfg.cb[i] = &reent_cb;
		cfg.user[i] = &r[i];
	}
	assert_int_equal(memllp_new(&cfg, &m), 0);
	r[0].m = r[1].m = m;
	return m;
}

/* llp.h: the core may call ops->send from inside a receive entry point; a
 * ULP that reposts and answers from its deliver callback works (ping-pong
 * of 40 messages), in order and out of order, both entry points. */
static void test_ulp_replies_and_reposts_inside_deliver(void **state)
{
	for (int v = 0; v < 4; v++) {
		struct reent r[2];
		memllp *m = reent_pair(r, 0, v & 1, v >> 1);
		uint8_t b[4] = { 9, 9, 9, 9 };
		struct iovec iov = { b, 4 };

		r[0].replies = r[1].replies = 20;
		for (int i = 0; i < 2; i++)
			assert_int_equal(ddp_post_recv(memllp_session(m, i), 0, 0,
						       r[i].bufs[r[i].nbuf++],
						       16, NULL), 0);
		assert_int_equal(ddp_send_untagged(memllp_session(m, 0), 0, 0,
						   0, &iov, 1, NULL), 0);
		memllp_pump(m);
		assert_int_equal(m->side[0].nerr + m->side[1].nerr, 0);
		assert_int_equal(m->side[1].ndlv, 21);
		assert_int_equal(m->side[0].ndlv, 20);
		for (size_t i = 0; i < m->side[1].ndlv; i++)
			assert_int_equal(m->side[1].dlv[i].d.msn, i + 1);
		memllp_free(m);
	}
}

/* A ULP that aborts the stream from inside deliver while more completed
 * messages wait in the ordering window: no further delivery with status 0,
 * every posted buffer comes back exactly once. */
static void test_ulp_aborts_inside_deliver(void **state)
{
	for (int hf = 0; hf < 2; hf++) {
		struct reent r[2];
		memllp *m = reent_pair(r, 1, 1, hf);
		uint8_t b[4] = { 7, 7, 7, 7 };
		struct iovec iov = { b, 4 };
		ddp_session *rx = memllp_session(m, 1);

		for (int i = 0; i < 5; i++) {
			assert_int_equal(ddp_post_recv(rx, 0, 0, r[1].bufs[i], 16,
						       NULL), 0);
			assert_int_equal(ddp_send_untagged(memllp_session(m, 0),
							   0, 0, 0, &iov, 1,
							   NULL), 0);
		}
		/* hand seq 1..4 first (held), then seq 0 releases them */
		memllp_seg *first = m->side[0].q_head;
		m->side[0].q_head = first->next;
		m->side[0].q_len--;
		memllp_pump(m);
		assert_int_equal(m->side[1].ndlv, 0);
		memllp_inject(m, 1, 0, first->seq, first->data, first->len, hf);
		free(first->data);
		free(first);
		memllp_side *sd = &m->side[1];
		size_t ok = 0, aborted = 0;
		for (size_t i = 0; i < sd->ndlv; i++) {
			if (sd->dlv[i].d.status == 0)
				ok++;
			else
				aborted++;
		}
		assert_int_equal(ok, 1);
		assert_int_equal(ok + aborted, 5);
		for (size_t i = 0; i < sd->ndlv; i++)
			for (size_t k = i + 1; k < sd->ndlv; k++)
				assert_ptr_not_equal(sd->dlv[i].d.buf,
						     sd->dlv[k].d.buf);
		memllp_free(m);
	}
}

/* A ULP that closes the session from inside deliver: the close is
 * graceful, the peer sees the half-close, nothing breaks. */
static void test_ulp_closes_inside_deliver(void **state)
{
	struct reent r[2];
	memllp *m = reent_pair(r, 2, 0, 1);
	uint8_t b[4] = { 7, 7, 7, 7 };
	struct iovec iov = { b, 4 };

	assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, r[1].bufs[0],
				       16, NULL), 0);
	assert_int_equal(ddp_send_untagged(memllp_session(m, 0), 0, 0, 0, &iov,
					   1, NULL), 0);
	memllp_pump(m);
	assert_int_equal(m->side[1].ndlv, 1);
	assert_true(m->side[1].ncloses >= 1);
	const memllp_side *peer = &m->side[0];
	size_t half = 0; /* the peer saw the half-close, once */
	for (size_t i = 0; i < peer->nev; i++)
		half += peer->ev[i].stream == 0 && peer->ev[i].ev == DDP_EV_HALF_CLOSED;
	assert_int_equal(half, 1);
	assert_int_equal(m->side[0].nerr + m->side[1].nerr, 0);
	memllp_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ulp_replies_and_reposts_inside_deliver),
		cmocka_unit_test(test_ulp_aborts_inside_deliver),
		cmocka_unit_test(test_ulp_closes_inside_deliver),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
