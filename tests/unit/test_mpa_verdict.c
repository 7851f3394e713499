/* MPA receive: the one FPDU verdict (CRC, marker, length; RFC 5044 §4.3,
 * §4.4, §8) reached by every way the deframer hands an FPDU up: whole in
 * the read-ahead ring, staged through the stage buffer, header-first, and
 * header-first with scatter reads. Edge cases: a read boundary inside the
 * CRC field, PAD lengths 0..3, a marker inside a DDP header or the
 * trailer. */
#include "dfr_harness.h"

/* The hand-up ways under test. */
enum way { WAY_HDR_FIRST, WAY_SCATTER, WAY_STAGED, WAY_RING, NWAYS };

/* Reader that ends a read at each of a few stream positions (and
 * otherwise returns as much as asked): places a read boundary exactly. */
struct cutter {
	const uint8_t *b;
	size_t n, off;
	size_t cut[4];
	int ncut;
	unsigned calls;
};

static size_t cut_room(const struct cutter *c, size_t want)
{
	if (c->n - c->off < want)
		want = c->n - c->off;
	for (int i = 0; i < c->ncut; i++)
		if (c->cut[i] > c->off && c->cut[i] - c->off < want)
			want = c->cut[i] - c->off;
	return want;
}

static ssize_t cut_read(void *io, void *dst, size_t n)
{
	struct cutter *c = io;
	c->calls++;
	if (c->off == c->n)
		return DDP_ERR_CLOSED;
	size_t k = cut_room(c, n);
	memcpy(dst, c->b + c->off, k);
	c->off += k;
	if (g_area && (uint8_t *)dst >= g_area && (uint8_t *)dst < g_area + AREA)
		g_direct += k;
	return (ssize_t)k;
}

static ssize_t cut_readv(void *io, const struct iovec *iov, int cnt)
{
	struct cutter *c = io;
	size_t want = 0;
	for (int i = 0; i < cnt; i++)
		want += iov[i].iov_len;
	c->calls++;
	if (c->off == c->n)
		return DDP_ERR_CLOSED;
	size_t k = cut_room(c, want), done = 0;
	for (int i = 0; i < cnt && done < k; i++) {
		size_t m = k - done < iov[i].iov_len ? k - done : iov[i].iov_len;
		memcpy(iov[i].iov_base, c->b + c->off + done, m);
		done += m;
	}
	c->off += k;
	return (ssize_t)k;
}

static int run_cut(mpa_deframer *d, struct cutter *c)
{
	int rc;
	do
		rc = mpa_dfr_run(d, cut_read, c);
	while (rc == DDP_ERR_NEED_MORE);
	return rc;
}

/* A deframer set up for one way; *ring is freed by the caller. */
static void setup(mpa_deframer *d, enum way w, int markers, int crc, struct sink *k,
                  uint8_t **ring)
{
	*ring = NULL;
	switch (w) {
	case WAY_HDR_FIRST:
		mpa_dfr_init(d, markers, crc, 0, &sink_ops, k);
		break;
	case WAY_SCATTER:
		mpa_dfr_init(d, markers, crc, 0, &scatter_ops, k);
		mpa_dfr_set_readv(d, cut_readv);
		break;
	case WAY_STAGED:
		mpa_dfr_init(d, markers, crc, 0, &stage_scatter_ops, k);
		mpa_dfr_set_stage_max(d, 1024);
		break;
	default:
		mpa_dfr_init(d, markers, crc, 0, &stage_scatter_ops, k);
		*ring = malloc(MPA_RING_ALLOC);
		assert_non_null(*ring);
		mpa_dfr_set_ring(d, *ring);
		mpa_dfr_set_stage_max(d, 16384);
		break;
	}
}

/* Payload lengths cycling through ULPDU_Length mod 4 = 0..3 (PAD 0..3)
 * whatever the header length, the first few identical. */
static void pad_cycle(size_t *pl, int n, size_t base)
{
	for (int i = 0; i < n; i++)
		pl[i] = base + (size_t)i % 4;
}

/* RFC 5044 §4.4: a CRC mismatch is found whichever octet of the CRC field
 * a read ends at (the field split over two reads, or its first or last
 * octet alone), on every way and PAD length; nothing of that FPDU or after
 * it reaches DDP, the FPDUs before it do. */
static void test_verdict_crc_split_by_read_boundary(void **state)
{
	size_t pl[12];
	pad_cycle(pl, 12, 600);
	for (int w = 0; w < NWAYS; w++) {
		for (int markers = 0; markers <= 1; markers++) {
			struct stream st;
			make_stream_pl(&st, markers, 1, 12, 5 + (uint32_t)w, 0, pl, 0);
			for (int v = 4; v < 8; v++) { /* PAD 0..3 among these */
				size_t crc_at = st.fpdu_off[v] + st.fpdu_len[v] - MPA_CRC_LEN;
				for (size_t cut = 0; cut <= MPA_CRC_LEN; cut++) {
					st.wire[crc_at + 1] ^= 0x20;
					struct sink *k = new_sink();
					mpa_deframer d;
					uint8_t *ring;
					setup(&d, (enum way)w, markers, 1, k, &ring);
					/* cut == 4: the read ends after the CRC */
					struct cutter c = {st.wire, st.len, 0, {crc_at + cut}, 1, 0};
					run_cut(&d, &c);
					st.wire[crc_at + 1] ^= 0x20;
					assert_int_equal(k->nerr, 1);
					assert_int_equal(k->layer, DDP_LAYER_LLP);
					assert_int_equal(k->etype, 0);
					assert_int_equal(k->code, DDP_MPA_ECODE_CRC);
					assert_int_equal(d.crc_errors, 1);
					assert_int_equal(d.fpdus, v);
					assert_true(k->nseg <= v + 1);
					for (int i = 0; i < k->nseg; i++)
						assert_true(k->seg[i].ended && k->seg[i].ok == (i < v));
					assert_false(k->open);
					assert_int_equal(d.state, MPA_DFR_ERROR);
					free(ring);
					free_sink(k);
				}
			}
			free_stream(&st);
		}
	}
}

/* PAD lengths 0..3 (RFC 5044 §4.5: PAD makes the ULPDU a multiple of
 * four), each with CRCs on and off, markers on and off: every way delivers
 * every FPDU intact, in one piece or one octet at a time. */
static void test_verdict_pad_lengths(void **state)
{
	size_t pl[16];
	pad_cycle(pl, 16, 97);
	for (int w = 0; w < NWAYS; w++) {
		for (int mode = 0; mode < 8; mode++) {
			int markers = mode & 1, crc = (mode >> 1) & 1, bytewise = mode >> 2;
			struct stream st;
			make_stream_pl(&st, markers, crc, 16, 40 + (uint32_t)mode, 0, pl, 0);
			int pads[4] = {0};
			for (int i = 0; i < 16; i++)
				pads[mpa_pad_len(st.hl[i] + st.pl[i])]++;
			for (int p = 0; p < 4; p++)
				assert_true(pads[p] > 0);
			struct sink *k = new_sink();
			mpa_deframer d;
			uint8_t *ring;
			setup(&d, (enum way)w, markers, crc, k, &ring);
			struct cutter c = {st.wire, st.len, 0, {0}, 0, 0};
			int rc;
			if (bytewise) {
				struct chop ch = {st.wire, st.len, 0, 1, 1, 0, 0};
				if (w == WAY_SCATTER)
					mpa_dfr_set_readv(&d, chop_readv);
				rc = run_chopped(&d, &ch);
			} else {
				rc = run_cut(&d, &c);
			}
			assert_int_equal(rc, DDP_ERR_CLOSED);
			check_all_delivered(&st, k);
			assert_int_equal(d.fpdus, 16);
			if (w >= WAY_STAGED)
				assert_int_equal(k->nstaged, 16);
			free(ring);
			free_sink(k);
			free_stream(&st);
		}
	}
}

/* Where markers (every 512 stream octets, RFC 5044 §4.3) fall: inside a
 * DDP header (after ULPDU_Length), or in the trailer (inside PAD or right
 * before the CRC). */
static void marker_places(const struct stream *st, int *in_hdr, int *in_trailer)
{
	*in_hdr = *in_trailer = 0;
	for (int i = 0; i < st->nfpdu; i++) {
		size_t s = st->fpdu_off[i], e = s + st->fpdu_len[i];
		for (size_t m = (s / 512 + 1) * 512; m < e; m += 512) {
			if (m > s + MPA_LEN_FIELD && m < s + MPA_LEN_FIELD + st->hl[i])
				*in_hdr = 1;
			if (m + 4 + 3 + MPA_CRC_LEN >= e && m + MPA_CRC_LEN <= e - MPA_CRC_LEN)
				*in_trailer = 1;
		}
	}
}

/* A marker inside a DDP header or inside the trailer is routed around on
 * every way; a wrong FPDUPTR there is (2, 0, 3) with CRCs off, and with
 * CRCs on a CRC error (markers are CRC-covered, §4.4: the CRC first). */
static void test_verdict_marker_in_header_and_trailer(void **state)
{
	size_t pl[40];
	int seen_hdr = 0, seen_trailer = 0;
	for (size_t base = 300; base < 300 + 64 && !(seen_hdr && seen_trailer); base++) {
		for (int i = 0; i < 40; i++)
			pl[i] = base + (size_t)(i * 7) % 23;
		struct stream st;
		make_stream_pl(&st, 1, 1, 40, (uint32_t)base, 0, pl, 0);
		int in_hdr, in_trailer;
		marker_places(&st, &in_hdr, &in_trailer);
		if (!in_hdr && !in_trailer) {
			free_stream(&st);
			continue;
		}
		seen_hdr |= in_hdr;
		seen_trailer |= in_trailer;
		for (int w = 0; w < NWAYS; w++) {
			for (int crc = 0; crc <= 1; crc++) {
				struct stream s2;
				make_stream_pl(&s2, 1, crc, 40, (uint32_t)base, 0, pl, 0);
				struct sink *k = new_sink();
				mpa_deframer d;
				uint8_t *ring;
				setup(&d, (enum way)w, 1, crc, k, &ring);
				struct chop ch = {s2.wire, s2.len, 0, (uint32_t)base, 37, 0, 0};
				if (w == WAY_SCATTER)
					mpa_dfr_set_readv(&d, chop_readv);
				assert_int_equal(run_chopped(&d, &ch), DDP_ERR_CLOSED);
				check_all_delivered(&s2, k);
				free(ring);
				free_sink(k);

				/* the first marker inside a header or trailer gets
				 * a wrong FPDUPTR */
				size_t at = 0;
				int victim = -1;
				for (int i = 0; i < s2.nfpdu && victim < 0; i++) {
					size_t s = s2.fpdu_off[i], e = s + s2.fpdu_len[i];
					for (size_t m = (s / 512 + 1) * 512; m < e; m += 512)
						if ((m > s + 2 && m < s + 2 + s2.hl[i]) ||
						    m + 10 >= e) {
							at = m;
							victim = i;
							break;
						}
				}
				assert_true(victim >= 0);
				s2.wire[at + 3] ^= 0x04;
				k = new_sink();
				setup(&d, (enum way)w, 1, crc, k, &ring);
				struct chop c2 = {s2.wire, s2.len, 0, 3, 37, 0, 0};
				if (w == WAY_SCATTER)
					mpa_dfr_set_readv(&d, chop_readv);
				run_chopped(&d, &c2);
				assert_int_equal(k->nerr, 1);
				assert_int_equal(k->layer, DDP_LAYER_LLP);
				assert_int_equal(k->code,
				                 crc ? DDP_MPA_ECODE_CRC : DDP_MPA_ECODE_MARKER);
				assert_int_equal(d.fpdus, victim);
				for (int i = 0; i < k->nseg; i++)
					assert_true(k->seg[i].ok == (i < victim));
				free(ring);
				free_sink(k);
				free_stream(&s2);
			}
		}
		free_stream(&st);
	}
	assert_true(seen_hdr);
	assert_true(seen_trailer);
}

/* In a run through the ring, a whole FPDU with a bad CRC is stopped from
 * the ring itself: the FPDUs before it were handed up in place (no copy of
 * ours), it and those after it not at all. */
static void test_verdict_ring_in_place(void **state)
{
	size_t pl[30];
	pad_cycle(pl, 30, 1400);
	struct stream st;
	make_stream_pl(&st, 0, 1, 30, 9, 0, pl, 0);
	for (int good = 0; good <= 1; good++) {
		if (!good)
			st.wire[st.fpdu_off[20] + 40] ^= 0x01;
		struct sink *k = new_sink();
		mpa_deframer d;
		uint8_t *ring;
		setup(&d, WAY_RING, 0, 1, k, &ring);
		struct cutter c = {st.wire, st.len, 0, {0}, 0, 0};
		g_copied = 0;
		run_cut(&d, &c);
		if (!good)
			st.wire[st.fpdu_off[20] + 40] ^= 0x01;
		if (good) {
			check_all_delivered(&st, k);
			/* two FPDUs start the run (staged through the stage
			 * buffer), then each fill of the ring (growing 4 KiB,
			 * 8 KiB, ...) hands its whole FPDUs up in place and
			 * stages at most the one cut at its end */
			assert_true(c.calls <= 7);
			assert_true(g_copied <= (2 + c.calls) * 1420);
			assert_true(g_copied < st.ptotal / 4);
		} else {
			assert_int_equal(k->nerr, 1);
			assert_int_equal(k->code, DDP_MPA_ECODE_CRC);
			assert_int_equal(k->nseg, 20);
			assert_int_equal(d.fpdus, 20);
		}
		free(ring);
		free_sink(k);
	}
	free_stream(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_verdict_crc_split_by_read_boundary),
	    cmocka_unit_test(test_verdict_pad_lengths),
	    cmocka_unit_test(test_verdict_marker_in_header_and_trailer),
	    cmocka_unit_test(test_verdict_ring_in_place),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
