/* MPA receive deframer (RFC 5044 §4): segmentation, markers, CRC, errors.
 * The DDP core is replaced by a recording sink. */
#include "dfr_harness.h"

#include "common/crc32c.h"
#include "cursor.h"

/* RFC 5044 §4: receivers MUST find FPDUs from ULPDU_Length whatever the
 * segmentation; markers routed around (§4.3), CRC checked (§4.4). */
static void test_deframer_survives_random_pieces_all_modes(void **state)
{
	for (int mode = 0; mode < 4; mode++) {
		int markers = mode & 1, crc = (mode >> 1) & 1;
		for (uint32_t seed = 1; seed <= 40; seed++) {
			struct stream st;
			make_stream(&st, markers, crc, 30, seed * 7919, 1500);
			struct sink *k = new_sink();
			mpa_deframer d;
			mpa_dfr_init(&d, markers, crc, 0, &sink_ops, k);
			struct chop c = { st.wire, st.len, 0, seed,
					  seed % 3 == 0 ? 1 : 1 + seed * 37,
					  (int)(seed % 5) + 2, 0 };
			g_area = k->area;
			g_direct = 0;
			assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
			g_area = NULL;
			check_all_delivered(&st, k);
			/* header-first: every payload octet was read by the
			 * reader straight into its destination, none through
			 * a buffer of the deframer */
			assert_int_equal(g_direct, st.ptotal);
			assert_int_equal(d.fpdus, 30);
			assert_int_equal(d.state, MPA_DFR_LEN);
			assert_int_equal(mpa_dfr_abort(&d), 0);
			free_sink(k);
			free_stream(&st);
		}
	}
}

static void test_deframer_survives_one_byte_pieces(void **state)
{
	struct stream st;
	make_stream(&st, 1, 1, 12, 42, 2000);
	struct sink *k = new_sink();
	mpa_deframer d;
	mpa_dfr_init(&d, 1, 1, 0, &sink_ops, k);
	struct chop c = { st.wire, st.len, 0, 1, 1, 0, 0 };
	assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
	check_all_delivered(&st, k);
	free_sink(k);
	free_stream(&st);
}

/* RFC 5044 §4.4 / §8: a CRC mismatch is code 2, the segment does not count
 * and no later FPDU is passed up. Every single-bit flip is caught. */
static void test_deframer_catches_every_crc_flip(void **state)
{
	for (int markers = 0; markers <= 1; markers++) {
		struct stream st;
		make_stream(&st, markers, 1, 6, 99 + (uint32_t)markers, 700);
		for (size_t bit = 0; bit < st.len * 8; bit += 7) {
			size_t byte = bit / 8;
			int victim = 0;
			while (victim + 1 < st.nfpdu &&
			       st.fpdu_off[victim + 1] <= byte)
				victim++;
			st.wire[byte] ^= (uint8_t)(1u << (bit % 8));
			struct sink *k = new_sink();
			mpa_deframer d;
			mpa_dfr_init(&d, markers, 1, 0, &sink_ops, k);
			struct chop c = { st.wire, st.len, 0, (uint32_t)bit, 300, 0, 0 };
			run_chopped(&d, &c);
			st.wire[byte] ^= (uint8_t)(1u << (bit % 8));
			/* an error was reported, or (a flip that grew
			 * ULPDU_Length) the stream ended inside an FPDU */
			if (k->nerr == 0)
				assert_int_equal(mpa_dfr_abort(&d), 1);
			assert_true(k->nerr <= 1);
			assert_int_equal(d.state, MPA_DFR_ERROR);
			/* FPDUs before the victim intact and ok */
			for (int i = 0; i < victim && i < k->nseg; i++)
				assert_true(k->seg[i].ok);
			/* nothing at or after the victim counts */
			for (int i = victim; i < k->nseg; i++)
				assert_false(k->seg[i].ended && k->seg[i].ok);
			assert_true(k->nseg <= victim + 1);
			assert_false(k->open);
			free_sink(k);
		}
		free_stream(&st);
	}
}

/* RFC 5044 §4.4: with CRCs off the field is not checked */
static void test_deframer_ignores_crc_field_when_off(void **state)
{
	struct stream st;
	make_stream(&st, 0, 0, 5, 7, 100);
	for (int i = 0; i < st.nfpdu; i++)
		st.wire[st.fpdu_off[i] + st.fpdu_len[i] - 1] = 0xAB;
	struct sink *k = new_sink();
	mpa_deframer d;
	mpa_dfr_init(&d, 0, 0, 0, &sink_ops, k);
	struct chop c = { st.wire, st.len, 0, 3, 50, 0, 0 };
	assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
	check_all_delivered(&st, k);
	free_sink(k);
	free_stream(&st);
}

/* RFC 5044 §4.3 / §8: FPDUPTR disagreeing with ULPDU_Length -> code 3 */
static void test_deframer_reports_wrong_marker(void **state)
{
	struct stream st;
	make_stream(&st, 1, 0, 10, 11, 600);
	assert_true(st.len > 1024);
	st.wire[512 + 3] ^= 0x04; /* FPDUPTR of the second marker */
	struct sink *k = new_sink();
	mpa_deframer d;
	mpa_dfr_init(&d, 1, 0, 0, &sink_ops, k);
	struct chop c = { st.wire, st.len, 0, 5, 64, 0, 0 };
	run_chopped(&d, &c);
	assert_int_equal(k->nerr, 1);
	assert_int_equal(k->layer, DDP_LAYER_LLP);
	assert_int_equal(k->etype, 0);
	assert_int_equal(k->code, DDP_MPA_ECODE_MARKER);
	assert_false(k->seg[k->nseg - 1].ok);
	free_sink(k);
	free_stream(&st);

	/* the very first marker must be 0 */
	make_stream(&st, 1, 1, 2, 12, 10);
	st.wire[3] = 4;
	k = new_sink();
	mpa_dfr_init(&d, 1, 0, 0, &sink_ops, k);
	struct chop c2 = { st.wire, st.len, 0, 5, 64, 0, 0 };
	run_chopped(&d, &c2);
	assert_int_equal(k->code, DDP_MPA_ECODE_MARKER);
	assert_int_equal(k->nseg, 0); /* the FPDU's start is in doubt: not begun */
	free_sink(k);
	free_stream(&st);
}

/* ULPDU_Length beyond our limit, or shorter than a DDP header, stops the
 * stream before anything is handed to DDP. CRCs off: there is no CRC
 * verdict to wait for, the length error comes at once (with CRCs on:
 * test_deframer_crc_verdict_before_length_errors). */
static void test_deframer_stops_on_bad_ulpdu_length(void **state)
{
	uint8_t b[64] = { 0 };
	struct sink *k = new_sink();
	mpa_deframer d;

	b[0] = 0x05; /* 1300 > 1000 */
	b[1] = 0x14;
	mpa_dfr_init(&d, 0, 0, 1000, &sink_ops, k);
	struct chop c = { b, sizeof b, 0, 1, 8, 0, 0 };
	run_chopped(&d, &c);
	assert_int_equal(k->nerr, 1);
	assert_int_equal(k->layer, DDP_LAYER_DDP);
	assert_int_equal(k->etype, DDP_ETYPE_LLP);
	assert_int_equal(k->code, DDP_ECODE_LLP_OVERSIZE);
	assert_int_equal(k->nseg, 0);
	free_sink(k);

	k = new_sink();
	b[0] = 0;
	b[1] = 13; /* shorter than any header */
	mpa_dfr_init(&d, 0, 0, 0, &sink_ops, k);
	struct chop c2 = { b, sizeof b, 0, 1, 8, 0, 0 };
	run_chopped(&d, &c2);
	assert_int_equal(k->code, DDP_ECODE_LLP_SHORT);
	assert_int_equal(k->nseg, 0);
	free_sink(k);

	k = new_sink();
	b[1] = 16; /* untagged ctrl needs 18 */
	b[2] = 0x41;
	mpa_dfr_init(&d, 0, 0, 0, &sink_ops, k);
	struct chop c3 = { b, sizeof b, 0, 1, 8, 0, 0 };
	run_chopped(&d, &c3);
	assert_int_equal(k->code, DDP_ECODE_LLP_SHORT);
	assert_int_equal(k->nseg, 0);
	free_sink(k);
}

/* One FPDU at stream position 0 built by hand (RFC 5044 §4), whatever its
 * ULPDU_Length, so lengths no framer would send can be tried: ULPDU_Length
 * ulen, a ULPDU of ulen octets starting with ctrl, PAD, and the CRC32c over
 * all of it (flipped when !good). With markers, a marker at every 512 raw
 * octets: FPDUPTR 0 for the first, before ULPDU_Length, then the distance
 * from ULPDU_Length (§4.3); markers are CRC-covered (§4.4). `trail` zero
 * octets follow (what a peer might send next). Returns the raw length. */
static size_t craft_fpdu(uint8_t *out, size_t cap, uint16_t ulen, uint8_t ctrl,
			 int markers, int good, size_t trail)
{
	size_t cov = MPA_LEN_FIELD + (size_t)ulen + mpa_pad_len(ulen);
	size_t start = markers ? MPA_MARKER_LEN : 0; /* raw pos of ULPDU_Length */
	struct wcur w = wc_init(out, cap);
	for (size_t i = 0; i <= cov; i++) {
		size_t raw = (size_t)(w.p - out);
		if (markers && raw % MPA_MARKER_INTERVAL == 0) {
			wc_put_be(&w, 2, 0);
			wc_put_be(&w, 2, raw == 0 ? 0 : raw - start);
		}
		if (i == 0)
			wc_put_be(&w, MPA_LEN_FIELD, ulen);
		else if (i == 2 && ulen > 0)
			wc_put_be(&w, 1, ctrl);
		else if (i >= 2 && i < cov)
			wc_put_be(&w, 1, i < MPA_LEN_FIELD + (size_t)ulen ?
						 (uint8_t)(i * 7) : 0);
	}
	size_t raw = (size_t)(w.p - out);
	uint32_t crc = ddp_crc32c(0, out, raw);
	wc_put_le(&w, MPA_CRC_LEN, good ? crc : crc ^ 0x10);
	wc_zero(&w, trail);
	assert_false(w.overflow);
	return (size_t)(w.p - out);
}

/* RFC 5044 §4.4, §6, §8 (spec/mpa.md §3, §7): the receiver MUST verify the
 * CRC before anything else of an FPDU counts, so an FPDU whose ULPDU_Length
 * no DDP segment can have (shorter than the DDP header its control octet
 * announces, 0..17, or above the limit, up to 65535) and whose CRC is bad
 * is a CRC error (2, 0, 0x02); with a good CRC the length error is
 * reported: (1, 3, SHORT) / (1, 3, OVERSIZE). The end of such an FPDU is
 * known from ULPDU_Length, so the verdict waits for its CRC; CRCs off: at
 * once. Nothing reaches DDP in any case. Header-first sink (no staging):
 * the deframer's own checks. */
static void test_deframer_crc_verdict_before_length_errors(void **state)
{
	static const struct {
		uint16_t ulen;
		uint8_t ctrl;
		uint32_t max;
		uint8_t code;
	} cases[] = {
		{ 0, 0x41, 0, DDP_ECODE_LLP_SHORT },
		{ 1, 0x41, 0, DDP_ECODE_LLP_SHORT },
		{ 2, 0xc1, 0, DDP_ECODE_LLP_SHORT },
		{ 3, 0xc1, 0, DDP_ECODE_LLP_SHORT },
		{ 13, 0xc1, 0, DDP_ECODE_LLP_SHORT },
		{ 14, 0x41, 0, DDP_ECODE_LLP_SHORT },  /* untagged needs 18 */
		{ 15, 0x41, 0, DDP_ECODE_LLP_SHORT },
		{ 17, 0x41, 0, DDP_ECODE_LLP_SHORT },
		{ 1001, 0xc1, 1000, DDP_ECODE_LLP_OVERSIZE },
		{ 64769, 0xc1, 0, DDP_ECODE_LLP_OVERSIZE },
		{ 65535, 0x41, 0, DDP_ECODE_LLP_OVERSIZE },
	};
	static uint8_t b[70000];
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		for (int v = 0; v < 8; v++) {
			int markers = v & 1, good = (v >> 1) & 1, crc = !(v >> 2);
			size_t n = craft_fpdu(b, sizeof b, cases[i].ulen,
					      cases[i].ctrl, markers, good, 40);
			struct sink *k = new_sink();
			mpa_deframer d;
			mpa_dfr_init(&d, markers, crc, cases[i].max, &sink_ops, k);
			struct chop c = { b, n, 0, (uint32_t)(i * 8 + (size_t)v),
					  i < 8 ? 7 : 3000, 5, 0 };
			run_chopped(&d, &c);
			print_message("ulen %u markers %d crc %s -> %d/%d/%d\n",
				      cases[i].ulen, markers,
				      !crc ? "off" : good ? "good" : "bad",
				      k->layer, k->etype, k->code);
			assert_int_equal(k->nerr, 1);
			assert_int_equal(k->nseg, 0);
			if (crc && !good) {
				assert_int_equal(k->layer, DDP_LAYER_LLP);
				assert_int_equal(k->etype, 0);
				assert_int_equal(k->code, DDP_MPA_ECODE_CRC);
				assert_int_equal(d.crc_errors, 1);
			} else {
				assert_int_equal(k->layer, DDP_LAYER_DDP);
				assert_int_equal(k->etype, DDP_ETYPE_LLP);
				assert_int_equal(k->code, cases[i].code);
			}
			free_sink(k);
		}
	}
}

/* RFC 5044 §4.3, §8 code 3 (spec/mpa.md §5, §7): markers were negotiated
 * for this direction (our frame had M=1) but the peer sends none. The first
 * octets of the stream MUST be a marker with FPDUPTR 0; here they are
 * ULPDU_Length and the DDP control octet (FPDUPTR >= 0x100: DV=1). The FPDU
 * start, hence its length and end, cannot be established, so no CRC
 * verdict is possible: the marker error (2, 0, 0x03) at once, nothing
 * handed to DDP. Was (1, 3, SHORT/OVERSIZE) from the misread length. */
static void test_deframer_missing_markers_are_a_marker_error(void **state)
{
	for (int crc = 0; crc < 2; crc++) {
		for (uint32_t seed = 1; seed <= 8; seed++) {
			struct stream st;
			make_stream(&st, 0, crc, 6, seed, 700); /* no markers */
			struct sink *k = new_sink();
			mpa_deframer d;
			mpa_dfr_init(&d, 1, crc, 0, &sink_ops, k);
			struct chop c = { st.wire, st.len, 0, seed, 64, 7, 0 };
			run_chopped(&d, &c);
			assert_int_equal(k->nerr, 1);
			assert_int_equal(k->layer, DDP_LAYER_LLP);
			assert_int_equal(k->etype, 0);
			assert_int_equal(k->code, DDP_MPA_ECODE_MARKER);
			assert_int_equal(k->nseg, 0);
			assert_int_equal(d.marker_errors, 1);
			free_sink(k);
			free_stream(&st);
		}
	}
	/* a later FPDU's leading marker (its start on a 512 boundary) that is
	 * not 0: the same verdict; the FPDU before it was delivered */
	size_t fixed[2] = { 488, 20 }; /* 4 + 2 + 14 + 488 + 4 = 512 */
	for (int crc = 0; crc < 2; crc++) {
		struct stream st;
		make_stream_pl(&st, 1, crc, 2, 77, 0, fixed, 0);
		if (st.hl[0] != DDP_TAGGED_HDR_LEN) {
			free_stream(&st);
			continue; /* the seed picks the header type */
		}
		assert_int_equal(st.fpdu_off[1], 512);
		st.wire[512 + 3] = 0x10; /* FPDUPTR 16, MUST be 0 here */
		struct sink *k = new_sink();
		mpa_deframer d;
		mpa_dfr_init(&d, 1, crc, 0, &sink_ops, k);
		struct chop c = { st.wire, st.len, 0, 9, 64, 7, 0 };
		run_chopped(&d, &c);
		assert_int_equal(k->nerr, 1);
		assert_int_equal(k->layer, DDP_LAYER_LLP);
		assert_int_equal(k->code, DDP_MPA_ECODE_MARKER);
		assert_int_equal(k->nseg, 1);
		assert_true(k->seg[0].ok);
		free_sink(k);
		free_stream(&st);
	}
}

/* a stream cut in the middle of an FPDU: ticket closed with ok = 0 */
static void test_deframer_truncated_fpdu_is_not_delivered(void **state)
{
	struct stream st;
	make_stream(&st, 1, 1, 3, 21, 900);
	for (size_t cut = 1; cut < st.fpdu_len[0]; cut += 13) {
		struct sink *k = new_sink();
		mpa_deframer d;
		mpa_dfr_init(&d, 1, 1, 0, &sink_ops, k);
		struct chop c = { st.wire, cut, 0, (uint32_t)cut, 100, 0, 0 };
		assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
		assert_int_equal(mpa_dfr_abort(&d), 1);
		assert_false(k->open);
		for (int i = 0; i < k->nseg; i++)
			assert_false(k->seg[i].ok);
		assert_int_equal(k->nerr, 0);
		free_sink(k);
	}
	free_stream(&st);
}

/* DROP verdict and revoked destination: payload is discarded, never
 * written, and the stream goes on */
static void test_deframer_discards_dropped_and_revoked_payload(void **state)
{
	struct stream st;
	make_stream(&st, 1, 1, 8, 31, 1200);
	struct sink *k = new_sink();
	k->verdict = DDP_RX_DROP;
	mpa_deframer d;
	mpa_dfr_init(&d, 1, 1, 0, &sink_ops, k);
	struct chop c = { st.wire, st.len, 0, 9, 200, 0, 0 };
	assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
	assert_int_equal(k->nseg, 8);
	for (size_t i = 0; i < st.ptotal; i++)
		assert_int_equal(k->area[i], 0);
	free_sink(k);

	k = new_sink();
	k->revoke_at = 1;
	mpa_dfr_init(&d, 1, 1, 0, &sink_ops, k);
	struct chop c2 = { st.wire, st.len, 0, 9, 1, 0, 0 };
	assert_int_equal(run_chopped(&d, &c2), DDP_ERR_CLOSED);
	assert_int_equal(k->nseg, 8);
	assert_int_equal(k->nerr, 0);
	free_sink(k);
	free_stream(&st);
}

/* small FPDUs staged: CRC checked before DDP sees anything (RFC 5044
 * §4.4), large ones header-first; any segmentation */
static void test_deframer_stages_small_fpdus_crc_first(void **state)
{
	for (int markers = 0; markers <= 1; markers++) {
		for (uint32_t seed = 1; seed <= 10; seed++) {
			struct stream st;
			make_stream(&st, markers, 1, 30, seed * 31, 2000);
			struct sink *k = new_sink();
			mpa_deframer d;
			mpa_dfr_init(&d, markers, 1, 0, &stage_ops, k);
			mpa_dfr_set_stage_max(&d, 1024);
			struct chop c = { st.wire, st.len, 0, seed, 1 + seed * 13, 3, 0 };
			assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
			check_all_delivered(&st, k);
			int small = 0;
			for (int i = 0; i < st.nfpdu; i++)
				small += st.hl[i] + st.pl[i] <= 1024;
			assert_int_equal(k->nstaged, small);
			assert_true(small > 0 && small < st.nfpdu);
			free_sink(k);
			free_stream(&st);
		}
	}
	/* a flipped bit in a staged FPDU's header: nothing reaches DDP */
	struct stream st;
	make_stream(&st, 0, 1, 1, 5, 50);
	st.wire[2 + 8] ^= 0x01;
	struct sink *k = new_sink();
	mpa_deframer d;
	mpa_dfr_init(&d, 0, 1, 0, &stage_ops, k);
	mpa_dfr_set_stage_max(&d, 1024);
	struct chop c = { st.wire, st.len, 0, 1, 9, 0, 0 };
	run_chopped(&d, &c);
	assert_int_equal(k->nseg, 0);
	assert_int_equal(k->nerr, 1);
	assert_int_equal(k->code, DDP_MPA_ECODE_CRC);
	free_sink(k);
	free_stream(&st);
}

/* zero-length tagged (ULPDU = 14, the shortest FPDU) and untagged
 * segments, both paths, markers on, 1..3 octet pieces */
static void test_deframer_zero_length_segments(void **state)
{
	for (int staged = 0; staged <= 1; staged++) {
		mpa_tx_stream t = { .markers = 1, .crc = 1 };
		uint8_t wire[4096];
		size_t len = 0;
		for (int i = 0; i < 40; i++) {
			uint8_t h[18] = { 0 };
			h[0] = (i & 1) ? 0xc1 : 0x41;
			h[5] = (uint8_t)i;
			struct iovec iov = { h, (i & 1) ? 14u : 18u };
			mpa_fpdu *f;
			assert_int_equal(mpa_fpdu_build(&t, &iov, 1, iov.iov_len, &f), 0);
			for (int k = 0; k < f->iovcnt; k++) {
				memcpy(wire + len, f->iov[k].iov_base, f->iov[k].iov_len);
				len += f->iov[k].iov_len;
			}
			free(f);
		}
		struct sink *k = new_sink();
		mpa_deframer d;
		mpa_dfr_init(&d, 1, 1, 0, staged ? &stage_ops : &sink_ops, k);
		mpa_dfr_set_stage_max(&d, staged ? 1024 : 0);
		struct chop c = { wire, len, 0, 77, 3, 4, 0 };
		assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
		assert_int_equal(k->nerr, 0);
		assert_int_equal(k->nseg, 40);
		for (int i = 0; i < 40; i++) {
			assert_int_equal(k->seg[i].hdr_len, (i & 1) ? 14 : 18);
			assert_int_equal(k->seg[i].hdr[5], i);
			assert_int_equal(k->seg[i].payload_len, 0);
			assert_true(k->seg[i].ok);
		}
		assert_int_equal(k->nstaged, staged ? 40 : 0);
		free_sink(k);
	}
}

/* With a scatter reader the last read of each payload also takes the
 * trailer and the next header: whatever the segmentation every FPDU
 * arrives intact, payload octets go straight to their place except the
 * few (<= 4 per FPDU) that follow a 14-octet header inside the read-ahead,
 * and unchopped input costs one read per FPDU. */
static void test_deframer_scatter_reads(void **state)
{
	for (int mode = 0; mode < 8; mode++) {
		int markers = mode & 1, crc = (mode >> 1) & 1, whole = mode >> 2;
		for (uint32_t seed = 1; seed <= 20; seed++) {
			struct stream st;
			make_stream(&st, markers, crc, 30, seed * 104729,
				    whole ? 6000 : 1500);
			struct sink *k = new_sink();
			mpa_deframer d;
			mpa_dfr_init(&d, markers, crc, 0, &scatter_ops, k);
			mpa_dfr_set_readv(&d, chop_readv);
			struct chop c = { st.wire, st.len, 0, seed,
					  whole ? AREA : 1 + seed * 53,
					  whole ? 0 : (int)(seed % 5) + 2, 0 };
			g_area = k->area;
			g_direct = 0;
			g_copied = 0;
			assert_int_equal(run_chopped(&d, &c), DDP_ERR_CLOSED);
			g_area = NULL;
			check_all_delivered(&st, k);
			assert_int_equal(g_direct + g_copied, st.ptotal);
			assert_true(g_copied <= 4 * 30);
			/* one read per FPDU, + the first header (two for an
			 * 18-octet one) and EOF; an
			 * FPDU whose payload fits in the read-ahead (<= 4
			 * octets) needs its own read for PAD + CRC */
			unsigned tiny = 0;
			for (int i = 0; i < 30; i++)
				tiny += st.pl[i] <= 4;
			if (whole && !markers)
				assert_true(c.calls <= 30 + 3 + tiny);
			assert_int_equal(d.fpdus, 30);
			free_sink(k);
			free_stream(&st);
		}
	}
}


static void test_deframer_state_names(void **state)
{
	assert_string_equal(mpa_dfr_state_name(MPA_DFR_PAYLOAD), "PAYLOAD");
	assert_string_equal(mpa_dfr_state_name(MPA_DFR_NSTATES), "?");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_deframer_survives_random_pieces_all_modes),
		cmocka_unit_test(test_deframer_survives_one_byte_pieces),
		cmocka_unit_test(test_deframer_catches_every_crc_flip),
		cmocka_unit_test(test_deframer_ignores_crc_field_when_off),
		cmocka_unit_test(test_deframer_reports_wrong_marker),
		cmocka_unit_test(test_deframer_stops_on_bad_ulpdu_length),
		cmocka_unit_test(test_deframer_crc_verdict_before_length_errors),
		cmocka_unit_test(test_deframer_missing_markers_are_a_marker_error),
		cmocka_unit_test(test_deframer_truncated_fpdu_is_not_delivered),
		cmocka_unit_test(test_deframer_discards_dropped_and_revoked_payload),
		cmocka_unit_test(test_deframer_stages_small_fpdus_crc_first),
		cmocka_unit_test(test_deframer_zero_length_segments),
		cmocka_unit_test(test_deframer_scatter_reads),
		cmocka_unit_test(test_deframer_state_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
