/* MPA receive read-ahead (mpa_readahead.c with the deframer): the tail FPDU
 * read along with a large payload, and the receive ring for runs of small
 * FPDUs (RFC 5044 §4.4: CRC before DDP sees anything). */
#include "dfr_harness.h"

/* Large messages with a small tail segment (64 KiB over a 64768-octet
 * MULPDU, scaled down): once the deframer has seen the pattern, the read
 * of a large payload also takes the tail FPDU whole, which is then handed
 * to DDP from the read-ahead buffer (CRC checked first): one read per
 * message. */
static void test_deframer_reads_tail_fpdu_with_large_payload(void **state)
{
	size_t pl[42];
	struct stream st;
	struct sink *k;
	mpa_deframer d;
	for (int per_msg = 2; per_msg <= 3; per_msg++) {
		for (int i = 0; i < 42; i++)
			pl[i] = (i + 1) % per_msg == 0 ? 300 : 4000;
		int nmsg = 42 / per_msg;
		make_stream_pl(&st, 0, 1, 42, 77, 0, pl, per_msg);
		k = new_sink();
		mpa_dfr_init(&d, 0, 1, 0, &stage_scatter_ops, k);
		mpa_dfr_set_stage_max(&d, 1024);
		mpa_dfr_set_readv(&d, chop_readv);
		struct chop c = { st.wire, st.len, 0, 1, AREA, 0, 0 };
		g_copied = 0;
		assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
		check_all_delivered(&st, k);
		assert_int_equal(k->nstaged, nmsg);
		/* the first message learns where its tail is, then one read
		 * per large FPDU, + EOF */
		assert_true(c.calls <= (unsigned)(nmsg * (per_msg - 1)) + per_msg + 3);
		/* tails handed over in place: no copy of ours beyond the first
		 * tail and the few octets after a 14-octet header that came
		 * along in the read-ahead */
		assert_true(g_copied <= 300 + 42 * 8);
		free_sink(k);
		free_stream(&st);
	}

	/* the same with every bit of a tail FPDU's CRC-covered octets
	 * flipped in turn: caught, nothing of it or after it delivered */
	for (int i = 0; i < 8; i++)
		pl[i] = (i & 1) ? 300 : 4000;
	make_stream_pl(&st, 0, 1, 8, 78, 0, pl, 2);
	for (size_t bit = 0; bit < (st.fpdu_len[5] - 4) * 8; bit += 7) {
		uint8_t *w = st.wire + st.fpdu_off[5] + bit / 8;
		*w ^= (uint8_t)(1u << (bit % 8));
		k = new_sink();
		mpa_dfr_init(&d, 0, 1, 0, &stage_scatter_ops, k);
		mpa_dfr_set_stage_max(&d, 1024);
		mpa_dfr_set_readv(&d, chop_readv);
		struct chop c2 = { st.wire, st.len, 0, 1, AREA, 0, 0 };
		run_chopped(&d, &c2);
		if (bit >= 16) { /* past ULPDU_Length: a CRC error */
			assert_int_equal(k->nerr, 1);
			assert_int_equal(k->code, DDP_MPA_ECODE_CRC);
			assert_int_equal(k->nseg, 5);
		}
		*w ^= (uint8_t)(1u << (bit % 8));
		free_sink(k);
	}
	free_stream(&st);
}

/* A deframer as an MPA connection sets it up: ring, default switch point,
 * scatter reads (ring NULL: no ring). */
static void ring_deframer(mpa_deframer *d, struct sink *k, uint8_t *ring)
{
	mpa_dfr_init(d, 0, 1, 0, &stage_scatter_ops, k);
	mpa_dfr_set_ring(d, ring);
	mpa_dfr_set_stage_max(d, MPA_RING_SWITCH);
	mpa_dfr_set_readv(d, chop_readv);
}

/* The receive ring (mpa_readahead.h): where TCP's MSS bounds MULPDU (1454
 * octets at MTU 1500), a run of small FPDUs is read in chunks of up to
 * MPA_RING_LEN octets instead of one read per FPDU; each FPDU's CRC is
 * checked before its ULPDU reaches DDP, and its payload is copied to its
 * place from the ring (counted by the core; the deframer's own copies are
 * only the FPDU cut at the end of a chunk). FPDUs above the switch point
 * still go header-first, straight into their place. */
static void test_deframer_ring_reads_small_fpdus_in_large_chunks(void **state)
{
	enum { N = 240, PER_MSG = 45, SMALL = 1454 - 18, LARGE = 20000 };
	size_t pl[N];
	uint8_t *ring = malloc(MPA_RING_ALLOC);
	assert_non_null(ring);
	for (int large_tail = 0; large_tail <= 1; large_tail++) {
		/* 64 KiB messages over a 1500-octet MTU; with large_tail the
		 * last 10 FPDUs are 20000-octet ones (above the switch) */
		for (int i = 0; i < N; i++)
			pl[i] = large_tail && i >= N - 10 ? LARGE : SMALL;
		struct stream st;
		make_stream_pl(&st, 0, 1, N, 4242, 0, pl, PER_MSG);
		for (uint32_t seed = 0; seed <= 6; seed++) {
			struct sink *k = new_sink();
			mpa_deframer d;
			ring_deframer(&d, k, ring);
			/* seed 0: the reader returns all it is asked for;
			 * others: random pieces and dry spells */
			struct chop c = { st.wire, st.len, 0, seed,
					  seed ? 1 + seed * 9973 : 4 * AREA,
					  seed ? (int)seed + 1 : 0, 0 };
			g_area = k->area;
			g_direct = 0;
			g_copied = 0;
			assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
			g_area = NULL;
			check_all_delivered(&st, k);
			assert_int_equal(k->nstaged, large_tail ? N - 10 : N);
			if (seed == 0) {
				size_t small_len = st.fpdu_off[large_tail ? N - 10 : N - 1];
				/* a read per MPA_RING_LEN octets (+ the FPDU
				 * cut at its end, the start and EOF) instead
				 * of one per FPDU */
				/* (+ 5: the run's read-ahead grows from 4 KiB) */
				unsigned chunks = (unsigned)(small_len / MPA_RING_LEN) + 6;
				assert_true(c.calls <= 2 * chunks + 4 + (large_tail ? 10 : 0));
				/* our copies: the FPDUs cut at a chunk's end,
				 * and large payload that came along in the last
				 * chunk; the rest of the large FPDUs went
				 * straight to their place */
				assert_true(g_copied <= chunks * (size_t)SMALL +
							      (large_tail ? MPA_RING_LEN : 0));
				if (large_tail)
					assert_true(g_direct >= 5 * (size_t)LARGE);
			}
			free_sink(k);
		}
		free_stream(&st);
	}

	/* a flipped bit inside an FPDU that sits in the middle of a chunk:
	 * CRC error, nothing of it or after it reaches DDP (RFC 5044 §4.4) */
	for (int i = 0; i < 60; i++)
		pl[i] = SMALL;
	struct stream st;
	make_stream_pl(&st, 0, 1, 60, 4243, 0, pl, PER_MSG);
	st.wire[st.fpdu_off[37] + 700] ^= 0x10;
	struct sink *k = new_sink();
	mpa_deframer d;
	ring_deframer(&d, k, ring);
	struct chop c = { st.wire, st.len, 0, 0, 4 * AREA, 0, 0 };
	run_chopped(&d, &c);
	assert_int_equal(k->nerr, 1);
	assert_int_equal(k->layer, DDP_LAYER_LLP);
	assert_int_equal(k->code, DDP_MPA_ECODE_CRC);
	assert_int_equal(k->nseg, 37);
	free_sink(k);
	free_stream(&st);

	/* without a ring the stage buffer is the inline one: a 1454-octet
	 * ULPDU is not staged whatever stage_max asks */
	k = new_sink();
	ring_deframer(&d, k, NULL);
	for (int i = 0; i < 4; i++)
		pl[i] = SMALL;
	make_stream_pl(&st, 0, 1, 4, 4244, 0, pl, 0);
	struct chop c2 = { st.wire, st.len, 0, 0, 4 * AREA, 0, 0 };
	assert_int_equal(run_chopped(&d, &c2), DDP_ERR_CLOSED);
	check_all_delivered(&st, k);
	assert_int_equal(k->nstaged, 0);
	free_sink(k);
	free_stream(&st);
	free(ring);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deframer_reads_tail_fpdu_with_large_payload),
		cmocka_unit_test(test_deframer_ring_reads_small_fpdus_in_large_chunks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
