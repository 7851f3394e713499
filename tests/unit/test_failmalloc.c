/*
 * failmalloc: a full core scenario (context, PDs, two sessions, STags, posted
 * buffers, multi-segment tagged and untagged messages delivered out of order
 * through the ordering window, teardown) is rerun with the Nth core
 * allocation failing, for every N until the scenario no longer hits a
 * failure. Each run must end cleanly: every API either succeeds or returns
 * DDP_ERR_NOMEM, nothing crashes, and (under ASan/valgrind) nothing leaks.
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

#include "ddp_debug.h"

struct qseg {
	size_t len;
	uint8_t data[1600];
};
struct wire {
	struct qseg q[64];
	int n;
	uint16_t seq;
	ddp_session *peer;
};

static int w_send(void *llp, uint32_t st, const struct iovec *v, int n, size_t len, unsigned fl)
{
	struct wire *w = llp;
	if (w->n == 64 || len > sizeof(w->q[0].data))
		return DDP_ERR_AGAIN;
	size_t off = 0;
	for (int i = 0; i < n; i++) {
		memcpy(w->q[w->n].data + off, v[i].iov_base, v[i].iov_len);
		off += v[i].iov_len;
	}
	w->q[w->n++].len = len;
	return 0;
}
static uint32_t w_mulpdu(void *llp)
{
	return 1500;
}
static void w_close(void *llp, int abortive)
{
}
static const ddp_llp_ops ops = { .send = w_send, .mulpdu = w_mulpdu, .close = w_close };

/* Deliver the queue in reverse order with DDP-SSN style numbers. */
static void pump(struct wire *w)
{
	uint16_t base = w->seq;
	for (int i = w->n - 1; i >= 0; i--)
		ddp_llp_rx_segment(w->peer, 0, (uint16_t)(base + i), w->q[i].data, w->q[i].len);
	w->seq = (uint16_t)(base + w->n);
	w->n = 0;
}

struct counts {
	int delivered, errors;
};
static void on_deliver(ddp_session *s, const ddp_delivery *d, void *u)
{
	if (!d->status)
		((struct counts *)u)->delivered++;
}
static void on_error(ddp_session *s, const ddp_error_info *e, void *u)
{
	((struct counts *)u)->errors++;
}

/* Returns 1 when it ran to the end with every call succeeding. */
static int scenario(void)
{
	ddp_ctx *ctx = NULL;
	ddp_pd *pd = NULL;
	ddp_session *a = NULL, *b = NULL;
	struct wire wa = { 0 }, wb = { 0 };
	struct counts ca = { 0 }, cb = { 0 };
	ddp_callbacks cba = { .deliver = on_deliver, .error = on_error };
	static uint8_t tbuf[8192], ubuf[4][4096], src[4000];
	uint32_t stag = 0;
	int ok = 0, r;

	if ((r = ddp_ctx_new(NULL, &ctx)))
		goto out_rc;
	if ((r = ddp_pd_new(ctx, &pd)))
		goto out_rc;
	ddp_session_config cfg = { .nstreams = 1, .pd = pd, .reorder_window = 64 };
	if ((r = ddp_session_new(ctx, &cfg, &ops, &wa, &cba, &ca, &a)))
		goto out_rc;
	if ((r = ddp_session_new(ctx, &cfg, &ops, &wb, &cba, &cb, &b)))
		goto out_rc;
	wa.peer = b;
	wb.peer = a;
	ddp_mr_attr mr = { .addr = tbuf, .len = sizeof(tbuf), .access = DDP_ACCESS_REMOTE_WRITE,
			   .pd = pd };
	if ((r = ddp_stag_register(ctx, &mr, &stag)))
		goto out_rc;
	for (int i = 0; i < 4; i++)
		if ((r = ddp_post_recv(b, 0, 0, ubuf[i], sizeof(ubuf[i]), NULL)))
			goto out_rc;
	struct iovec v = { src, sizeof(src) };
	for (int m = 0; m < 3; m++) {
		if ((r = ddp_send_untagged(a, 0, 0, 1, &v, 1, NULL)))
			goto out_rc;
		if ((r = ddp_send_tagged(a, 0, stag, 16, 2, &v, 1, NULL)))
			goto out_rc;
		pump(&wa);
	}
	/* an allocation failure inside receive is reported as an error */
	ok = cb.errors == 0 && cb.delivered == 6;
	if (cb.errors == 0)
		assert_int_equal(cb.delivered, 6);
	goto out;
out_rc:
	assert_int_equal(r, DDP_ERR_NOMEM);
out:
	ddp_debug_fail_alloc(-1); /* cleanup must not be failed */
	if (stag)
		ddp_stag_invalidate(ctx, stag);
	ddp_session_free(a);
	ddp_session_free(b);
	assert_int_equal(ddp_pd_free(pd), 0);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	return ok;
}

static void test_every_allocation_failure_is_survived(void **state)
{
	ddp_debug_fail_alloc(-1);
	assert_true(scenario()); /* baseline: it works without failures */
	long n;
	for (n = 0; n < 10000; n++) {
		ddp_debug_fail_alloc(n);
		if (scenario())
			break;
	}
	print_message("scenario needs %ld core allocations\n", n);
	assert_true(n > 5 && n < 10000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_allocation_failure_is_survived),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
