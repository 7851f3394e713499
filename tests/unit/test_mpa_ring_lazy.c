/* The receive ring on demand (mpa_readahead.h, mpa_ra_set_ring_lazy /
 * mpa_ra_release): allocated when an FPDU would go through it, given back
 * when the connection is quiet (MPA glue: a liveness period without a
 * read), and nothing is lost or misplaced when that happens between any
 * two reads (the deframer's state survives; an FPDU being staged keeps
 * its ring until its CRC passed). */
#include "dfr_harness.h"

#include "mpa/mpa_readahead.h"

/* The policy alone: when a ring comes and what it changes. */
static void test_ra_ring_comes_when_wanted_and_goes_when_empty(void **state)
{
	mpa_readahead r;
	mpa_ra_init(&r);
	mpa_ra_set_stage_max(&r, MPA_RING_SWITCH);
	/* without a ring only what the inline stage holds is staged */
	assert_int_equal(r.stage_max, MPA_STAGE_MAX);
	assert_int_equal(mpa_ra_classify(&r, 1454, 0x40, 1), 0);
	assert_null(r.ring);
	mpa_ra_set_ring_lazy(&r, 1);
	/* an FPDU above the inline stage: the ring comes, it is staged */
	assert_int_equal(mpa_ra_classify(&r, 1454, 0x40, 1), 1);
	assert_non_null(r.ring);
	assert_int_equal(r.stage_max, MPA_RING_SWITCH);
	/* octets read ahead: kept */
	r.len = 10;
	assert_int_equal(mpa_ra_release(&r), 0);
	assert_non_null(r.ring);
	r.len = 0;
	assert_int_equal(mpa_ra_release(&r), 1);
	assert_null(r.ring);
	assert_int_equal(r.stage_max, MPA_STAGE_MAX);
	assert_ptr_equal(r.buf, r.small_buf);
	assert_ptr_equal(r.stage, r.small_stage);
	assert_int_equal(mpa_ra_release(&r), 0); /* nothing to give back */
	/* one small FPDU is no run: no ring; the second one starts it */
	assert_int_equal(mpa_ra_classify(&r, 100, 0x40, 1), 1);
	assert_null(r.ring);
	assert_int_equal(mpa_ra_classify(&r, 100, 0x40, 1), 1);
	assert_non_null(r.ring);
	/* a large FPDU (header-first) wants none */
	assert_int_equal(mpa_ra_release(&r), 1);
	assert_int_equal(mpa_ra_classify(&r, 20000, 0x40, 1), 0);
	assert_null(r.ring);
	/* a caller's ring is never given back by release */
	static uint8_t mine[MPA_RING_ALLOC];
	mpa_ra_set_ring(&r, mine);
	assert_int_equal(mpa_ra_release(&r), 0);
	assert_ptr_equal(r.ring, mine);
	mpa_ra_fini(&r);
	mpa_ra_init(&r);
	mpa_ra_set_ring_lazy(&r, 1);
	mpa_ra_set_stage_max(&r, MPA_RING_SWITCH);
	assert_int_equal(mpa_ra_classify(&r, 5000, 0x40, 1), 1);
	mpa_ra_fini(&r); /* frees ours (ASan / valgrind would see a leak) */
	assert_null(r.ring);
}

/* A stream of small and mid-sized FPDUs in random pieces with "no data
 * now" every few reads; at every such pause the ring is given back if it
 * can be (as mpa_proto_quiet does). Every payload arrives intact and in
 * order, and the ring came back each time it was needed. */
static void test_deframer_ring_given_back_between_reads_loses_nothing(void **state)
{
	enum { N = 200 };
	size_t pl[N];
	for (uint32_t seed = 1; seed <= 6; seed++) {
		uint32_t s = seed;
		for (int i = 0; i < N; i++)
			pl[i] = 1 + rnd(&s) % (i % 3 == 0 ? 3000 : 600);
		struct stream st;
		make_stream_pl(&st, seed & 1, 1, N, seed, 0, pl, 0);
		struct sink *k = new_sink();
		mpa_deframer d;
		mpa_dfr_init(&d, seed & 1, 1, 0, &stage_scatter_ops, k);
		mpa_ra_set_ring_lazy(&d.ra, 1);
		mpa_dfr_set_stage_max(&d, MPA_RING_SWITCH);
		mpa_dfr_set_readv(&d, chop_readv);
		struct chop c = {st.wire, st.len, 0, seed, 2000, 2, 0};
		int rc, released = 0, staged_kept = 0;
		do {
			rc = mpa_dfr_run(&d, chop_read, &c);
			if (rc != DDP_ERR_NEED_MORE)
				break;
			/* an FPDU being staged (STAGE, TRAILER) lives in the
			 * ring's stage area: giving it back now loses it */
			if (d.staged)
				staged_kept += d.ra.ring != NULL;
			else
				released += mpa_ra_release(&d.ra);
		} while (1);
		assert_int_equal(rc, DDP_ERR_CLOSED);
		check_all_delivered(&st, k);
		assert_int_equal(k->nerr, 0);
		print_message("seed %u: ring given back %d times, kept %d times for a staged FPDU\n", seed, released, staged_kept);
		assert_true(released >= 2);
		mpa_ra_fini(&d.ra);
		free_sink(k);
		free_stream(&st);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ra_ring_comes_when_wanted_and_goes_when_empty),
	    cmocka_unit_test(test_deframer_ring_given_back_between_reads_loses_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
