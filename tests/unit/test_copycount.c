/*
 * test_copycount: the receive contract (docs/style.md): the header-first path
 * places payload straight into the ULP buffer and leaves
 * ddp_session_copied_bytes at 0; the whole-segment path counts exactly the
 * payload octets it copied.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "chopper.h"
#include "ddpwire.h"
#include "memllp.h"

struct fx {
	memllp *m;
	ddp_session *rx;
	uint8_t tbuf[4096];
	uint8_t ubuf[8][512];
	uint32_t stag;
};

static void fx_new(struct fx *f, int hdr_first, int ooo)
{
	memllp_cfg cfg = { .seed = 31, .hdr_first = hdr_first,
			   .out_of_order = ooo, .reorder_pct = ooo ? 50 : 0,
			   .mulpdu = 200, .share_ctx = 1 };
	ddp_mr_attr a;

	memset(f, 0, sizeof(*f));
	assert_int_equal(memllp_new(&cfg, &f->m), 0);
	f->rx = memllp_session(f->m, 1);
	a = (ddp_mr_attr){ .addr = f->tbuf, .len = sizeof(f->tbuf),
			   .access = DDP_ACCESS_REMOTE_WRITE,
			   .session = f->rx, .stream = 0 };
	assert_int_equal(ddp_stag_register(ddp_session_ctx(f->rx), &a,
					   &f->stag), 0);
	for (int i = 0; i < 8; i++)
		assert_int_equal(ddp_post_recv(f->rx, 0, 0, f->ubuf[i], 512,
					       NULL), 0);
}

/* Send 4 tagged + 4 untagged messages; returns the payload octets. */
static uint64_t traffic(struct fx *f)
{
	static uint8_t msg[512];
	uint64_t total = 0;

	memset(msg, 0x3C, sizeof(msg));
	for (int i = 0; i < 4; i++) {
		struct iovec iov = { msg, (size_t)(100 * i + 57) };

		assert_int_equal(ddp_send_tagged(memllp_session(f->m, 0), 0,
						 f->stag, 600 * (uint64_t)i, 0,
						 &iov, 1, NULL), 0);
		total += iov.iov_len;
		iov.iov_len = (size_t)(120 * i + 3);
		assert_int_equal(ddp_send_untagged(memllp_session(f->m, 0), 0,
						   0, 0, &iov, 1, NULL), 0);
		total += iov.iov_len;
	}
	memllp_pump(f->m);
	assert_int_equal(f->m->side[1].nerr, 0);
	assert_int_equal(f->m->side[1].ndlv, 8);
	return total;
}

/* Receive contract: header-first placement copies nothing itself, in order
 * and out of order. */
static void test_header_first_path_copies_nothing(void **state)
{
	for (int ooo = 0; ooo < 2; ooo++) {
		struct fx f;

		fx_new(&f, 1, ooo);
		assert_true(traffic(&f) > 0);
		assert_true(f.m->side[1].rx_verdicts[DDP_RX_PLACE] > 8);
		assert_true(ddp_session_copied_bytes(f.rx) == 0);
		memllp_free(f.m);
	}
}

/* The whole-segment entry counts exactly the payload it copied. */
static void test_whole_segment_path_counts_payload(void **state)
{
	for (int ooo = 0; ooo < 2; ooo++) {
		struct fx f;

		fx_new(&f, 0, ooo);
		uint64_t total = traffic(&f);
		assert_true(ddp_session_copied_bytes(f.rx) == total);
		memllp_free(f.m);
	}
}

/* Refused and dropped segments copy nothing; zero-length ones neither;
 * ddp_llp_count_copy adds what an adapter staged. */
static void test_rejected_segments_are_not_counted(void **state)
{
	struct fx f;
	uint8_t seg[128], p[50];
	size_t n;

	memset(p, 1, sizeof(p));
	fx_new(&f, 0, 0);
	n = tw_tagged(seg, 1, 1, 0, f.stag, 10, p, 50);
	assert_int_equal(memllp_inject(f.m, 1, 0, DDP_LLP_INORDER, seg, n, 0),
			 0);
	assert_true(ddp_session_copied_bytes(f.rx) == 50);
	n = tw_tagged(seg, 1, 1, 0, f.stag, 10, p, 0);
	assert_int_equal(memllp_inject(f.m, 1, 0, DDP_LLP_INORDER, seg, n, 0),
			 0);
	assert_true(ddp_session_copied_bytes(f.rx) == 50);
	n = tw_tagged(seg, 1, 1, 0, f.stag ^ 1, 10, p, 50); /* bad key */
	assert_int_equal(memllp_inject(f.m, 1, 0, DDP_LLP_INORDER, seg, n, 0),
			 0);
	assert_int_equal(f.m->side[1].nerr, 1);
	assert_true(ddp_session_copied_bytes(f.rx) == 50);
	n = tw_tagged(seg, 1, 1, 0, f.stag, 10, p, 50); /* dropped now */
	assert_int_equal(memllp_inject(f.m, 1, 0, DDP_LLP_INORDER, seg, n, 0),
			 0);
	assert_true(ddp_session_copied_bytes(f.rx) == 50);
	ddp_llp_count_copy(f.rx, 1000);
	assert_true(ddp_session_copied_bytes(f.rx) == 1050);
	memllp_free(f.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_header_first_path_copies_nothing),
		cmocka_unit_test(test_whole_segment_path_counts_payload),
		cmocka_unit_test(test_rejected_segments_are_not_counted),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
