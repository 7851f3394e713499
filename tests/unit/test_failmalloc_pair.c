/*
 * test_failmalloc_pair: the failmalloc rerun (see test_failmalloc.c) through
 * the memllp pair, on the header-first and out-of-order paths: every
 * allocation of the core may fail (ddp_debug_fail_alloc lets the first n
 * succeed). For every n a whole scenario runs: each call
 * returns 0 or DDP_ERR_NOMEM (a failed allocation on the receive path is a
 * reported local catastrophic error, RFC 5041 §7.2 (0x0, 0x00)), and
 * everything can still be freed: ddp_ctx_free() must succeed at the end, so
 * no object is left behind (leaks are caught by make check-valgrind /
 * check-sanitize).
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "ddp_debug.h"

#include "memllp.h"

static int ok_or_nomem(int rc, int *failed)
{
	if (rc == DDP_ERR_NOMEM) {
		*failed = 1;
		return 0;
	}
	assert_int_equal(rc, 0);
	return 1;
}

/* Runs the scenario with n allocations allowed; returns 1 when nothing
 * failed (then n is large enough and the loop may stop). */
static int scenario(long n, int ooo)
{
	static uint8_t tbuf[256], ubuf[12][200], msg[200];
	ddp_ctx *ctx = NULL;
	ddp_pd *pd = NULL;
	memllp *m = NULL;
	uint32_t stag = 0;
	int have_stag = 0, failed = 0;

	ddp_debug_fail_alloc(n);
	if (!ok_or_nomem(ddp_ctx_new(NULL, &ctx), &failed))
		goto out;
	if (!ok_or_nomem(ddp_pd_new(ctx, &pd), &failed))
		goto out;
	memllp_cfg cfg = { .seed = (uint64_t)n, .out_of_order = ooo,
			   .reorder_pct = ooo ? 60 : 0, .mulpdu = 64,
			   .hdr_first = (int)(n & 1) };
	cfg.ctx[0] = cfg.ctx[1] = ctx;
	cfg.scfg[1].pd = pd;
	if (!ok_or_nomem(memllp_new(&cfg, &m), &failed)) {
		m = NULL;
		goto out;
	}
	ddp_session *rx = memllp_session(m, 1), *tx = memllp_session(m, 0);
	ddp_mr_attr a = { .addr = tbuf, .len = sizeof(tbuf), .pd = pd,
			  .access = DDP_ACCESS_REMOTE_WRITE };
	have_stag = ok_or_nomem(ddp_stag_register(ctx, &a, &stag), &failed);
	for (int i = 0; i < 12; i++)
		ok_or_nomem(ddp_post_recv(rx, 0, 0, ubuf[i], 200, NULL),
			    &failed);
	for (int i = 0; i < 6; i++) {
		struct iovec iov = { msg, 20 + 30 * (size_t)i };

		if (i & 1)
			ok_or_nomem(ddp_send_tagged(tx, 0, stag, 0, 0, &iov, 1,
						    NULL), &failed);
		else
			ok_or_nomem(ddp_send_untagged(tx, 0, 0, 0, &iov, 1,
						      NULL), &failed);
	}
	int failed_before = failed;
	memllp_pump(m);
	for (size_t i = 0; i < m->side[1].nerr; i++) {
		/* with every buffer posted and every message sent, only an
		 * allocation failure may stop the stream */
		if (!failed_before && m->side[1].err[i].etype)
			print_error("n=%ld err (%d,%d,%d)\n", n,
				    m->side[1].err[i].layer,
				    m->side[1].err[i].etype,
				    m->side[1].err[i].code);
		if (!failed_before)
			assert_int_equal(m->side[1].err[i].etype,
					 DDP_ETYPE_CATASTROPHIC);
		failed = 1;
	}
	if (!failed) {
		assert_int_equal(m->side[1].nerr, 0);
		assert_true(m->side[1].ndlv >= 6 ||
			    !have_stag); /* tagged ones need the STag */
	}
out:
	ddp_debug_fail_alloc(-1);
	memllp_free(m);
	if (have_stag)
		assert_int_equal(ddp_stag_invalidate(ctx, stag), 0);
	if (pd)
		assert_int_equal(ddp_pd_free(pd), 0);
	if (ctx)
		assert_int_equal(ddp_ctx_free(ctx), 0);
	return !failed;
}

static void test_every_allocation_failure_is_handled_in_order(void **state)
{
	long n;

	for (n = 0; n < 500; n++)
		if (scenario(n, 0))
			break;
	assert_true(n > 3 && n < 500); /* the core does allocate */
}

static void test_every_allocation_failure_is_handled_out_of_order(
	void **state)
{
	long n;

	for (n = 0; n < 500; n++)
		if (scenario(n, 1))
			break;
	assert_true(n > 3 && n < 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(
			test_every_allocation_failure_is_handled_in_order),
		cmocka_unit_test(
			test_every_allocation_failure_is_handled_out_of_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
