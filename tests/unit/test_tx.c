/*
 * test_tx: send-side segmentation (RFC 5041 §4, §5.2) seen through the
 * in-memory LLP: every segment handed to ops->send is logged byte-exact.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "ddp_debug.h"

#include "chopper.h"
#include "ddpwire.h"
#include "memllp.h"
#include "nullllp.h"

static memllp *pair(uint32_t mulpdu, int hdr_first)
{
	memllp_cfg cfg = { .seed = 1, .mulpdu = mulpdu,
			   .hdr_first = hdr_first };
	memllp *m = NULL;

	assert_int_equal(memllp_new(&cfg, &m), 0);
	assert_non_null(m);
	return m;
}

static void fill_pattern(uint8_t *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(i * 31 + seed);
}

static int send_u(memllp *m, uint32_t qn, uint64_t rsvd, const void *p,
		  size_t n)
{
	struct iovec iov = { (void *)p, n };

	return ddp_send_untagged(memllp_session(m, 0), 0, qn, rsvd, &iov,
				 n ? 1 : 0, NULL);
}

static int send_t(memllp *m, uint32_t stag, uint64_t to, uint8_t rsvd,
		  const void *p, size_t n)
{
	struct iovec iov = { (void *)p, n };

	return ddp_send_tagged(memllp_session(m, 0), 0, stag, to, rsvd, &iov,
			       n ? 1 : 0, NULL);
}

static tw_hdr sent_hdr(memllp *m, size_t i)
{
	tw_hdr h;

	assert_true(i < m->side[0].nsent);
	assert_int_equal(tw_decode(m->side[0].sent[i].data,
				   m->side[0].sent[i].len, &h), 0);
	return h;
}

/* DDP-SEG-4: RFC 5041 §5.2 example: 2048 octets untagged over MULPDU 1500
 * → MO 0 with 1482 octets, then MO 1482 with 566 octets and L=1. */
static void test_seg4_untagged_2048_over_1500_splits_exactly(void **state)
{
	memllp *m = pair(1500, 0);
	uint8_t msg[2048], rbuf[4096];
	tw_hdr h;

	fill_pattern(msg, sizeof(msg), 3);
	assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, rbuf,
				       sizeof(rbuf), NULL), 0);
	assert_int_equal(send_u(m, 0, 0, msg, sizeof(msg)), 0);
	memllp_pump(m);
	assert_int_equal(m->side[0].nsent, 2);
	h = sent_hdr(m, 0);
	assert_int_equal(m->side[0].sent[0].len, 1500);
	assert_int_equal(h.payload_len, 1482);
	assert_int_equal(h.mo, 0);
	assert_int_equal(h.last, 0);
	assert_int_equal(h.msn, 1);
	h = sent_hdr(m, 1);
	assert_int_equal(h.payload_len, 566);
	assert_int_equal(h.mo, 1482);
	assert_int_equal(h.last, 1);
	assert_int_equal(h.msn, 1);
	assert_int_equal(m->side[0].violations, 0);
	/* and it arrives whole */
	assert_int_equal(m->side[1].ndlv, 1);
	assert_int_equal(m->side[1].dlv[0].d.len, 2048);
	assert_memory_equal(rbuf, msg, sizeof(msg));
	memllp_free(m);
}

/* DDP-SEG-5: RFC 5041 §5.2: tagged 2048 octets at TO 16384, MULPDU 1500
 * → TO 16384 with 1486 octets, TO 17870 with 562 octets (L=1). */
static void test_seg5_tagged_2048_over_1500_splits_exactly(void **state)
{
	memllp *m = pair(1500, 0);
	uint8_t msg[2048];
	tw_hdr h;

	fill_pattern(msg, sizeof(msg), 5);
	assert_int_equal(send_t(m, 0x01020304, 16384, 0x77, msg, sizeof(msg)),
			 0);
	assert_int_equal(m->side[0].nsent, 2);
	h = sent_hdr(m, 0);
	assert_int_equal(h.tagged, 1);
	assert_true(h.to == 16384);
	assert_int_equal(h.payload_len, 1486);
	assert_int_equal(h.last, 0);
	h = sent_hdr(m, 1);
	assert_true(h.to == 17870);
	assert_int_equal(h.payload_len, 562);
	assert_int_equal(h.last, 1);
	assert_memory_equal(m->side[0].sent[0].data + 14, msg, 1486);
	assert_memory_equal(m->side[0].sent[1].data + 14, msg + 1486, 562);
	memllp_free(m);
}

/* DDP-SEG-1, DDP-HDR-3, DDP-HDR-4, DDP-HDR-5, DDP-UNT-4, DDP-UNT-2,
 * DDP-ORD-2, DDP-SEG-3: for random sizes and MULPDUs every segment fits,
 * only the last has L=1 and is posted last, MOs are the payload offsets in
 * increasing order (first 0, last highest), QN/MSN are the same in every
 * segment, and every octet arrives. */
static void test_seg1_hdr3_hdr4_hdr5_unt4_random_untagged_segmentation(
	void **state)
{
	chopper c;

	chopper_seed(&c, 7);
	for (int round = 0; round < 60; round++) {
		uint32_t mulpdu = 19 + (uint32_t)chopper_below(&c, 300);
		size_t n = (size_t)chopper_below(&c, 3000);
		memllp *m = pair(mulpdu, round & 1);
		uint8_t *msg = malloc(n + 1), *rbuf = malloc(n + 1);
		size_t off = 0;

		fill_pattern(msg, n, (unsigned)round);
		assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, rbuf,
					       n + 1, NULL), 0);
		assert_int_equal(send_u(m, 0, 0, msg, n), 0);
		memllp_pump(m);
		assert_int_equal(m->side[0].violations, 0);
		assert_true(m->side[0].nsent >= 1);
		for (size_t i = 0; i < m->side[0].nsent; i++) {
			tw_hdr h = sent_hdr(m, i);
			int last = i + 1 == m->side[0].nsent;

			assert_true(m->side[0].sent[i].len <= mulpdu);
			assert_int_equal(h.last, last);
			assert_int_equal(!!(m->side[0].sent[i].flags &
					    DDP_LLP_SEG_LAST), last);
			assert_int_equal(h.mo, off);
			assert_int_equal(h.msn, 1);
			assert_int_equal(h.qn, 0);
			assert_int_equal(h.dv, 1);
			assert_int_equal(h.rsvd, 0);
			off += h.payload_len;
		}
		assert_int_equal(off, n);
		assert_int_equal(m->side[1].ndlv, 1);
		assert_int_equal(m->side[1].dlv[0].d.len, n);
		if (n)
			assert_memory_equal(rbuf, msg, n);
		free(msg);
		free(rbuf);
		memllp_free(m);
	}
}

/* DDP-SEG-5, DDP-SEG-6, DDP-TAG-1, DDP-TAG-2, DDP-TAG-3: the ULP's STag and
 * RsvdULP are in every segment; TO = start TO + offset from the ULP's
 * non-zero start TO. */
static void test_tag1_tag2_tag3_tagged_segments_share_stag_rsvdulp(
	void **state)
{
	memllp *m = pair(100, 0);
	uint8_t msg[1000];
	uint64_t to0 = 0x123456789ULL;
	size_t off = 0;

	fill_pattern(msg, sizeof(msg), 9);
	assert_int_equal(send_t(m, 0xA5A5A5A5, to0, 0xC3, msg, sizeof(msg)),
			 0);
	assert_true(m->side[0].nsent > 1);
	for (size_t i = 0; i < m->side[0].nsent; i++) {
		tw_hdr h = sent_hdr(m, i);

		assert_int_equal(h.tagged, 1);
		assert_int_equal(h.stag, 0xA5A5A5A5);
		assert_int_equal(h.rsvdulp, 0xC3);
		assert_true(h.to == to0 + off);
		assert_int_equal(h.last, i + 1 == m->side[0].nsent);
		assert_true(m->side[0].sent[i].flags & DDP_LLP_SEG_TAGGED);
		assert_memory_equal(h.payload, msg + off, h.payload_len);
		off += h.payload_len;
	}
	assert_int_equal(off, sizeof(msg));
	memllp_free(m);
}

/* DDP-SEG-7, DDP-HDR-9: a zero-length message is exactly one header-only
 * segment with L=1 (18 octets untagged, 14 tagged). */
static void test_seg7_zero_length_message_is_one_header_only_segment(
	void **state)
{
	memllp *m = pair(1500, 0);
	tw_hdr h;

	assert_int_equal(send_u(m, 1, 0x0102030405ULL, NULL, 0), 0);
	assert_int_equal(m->side[0].nsent, 1);
	assert_int_equal(m->side[0].sent[0].len, 18);
	h = sent_hdr(m, 0);
	assert_int_equal(h.last, 1);
	assert_int_equal(h.mo, 0);
	assert_int_equal(h.qn, 1);
	assert_true(h.rsvdulp == 0x0102030405ULL); /* DDP-UNT-1 */

	assert_int_equal(send_t(m, 9, 99, 1, NULL, 0), 0);
	assert_int_equal(m->side[0].nsent, 2);
	assert_int_equal(m->side[0].sent[1].len, 14);
	h = sent_hdr(m, 1);
	assert_int_equal(h.tagged, 1);
	assert_int_equal(h.last, 1);
	memllp_free(m);
}

/* DDP-UNT-3, DDP-UNT-5: MSNs count 1, 2, 3 per (stream, QN),
 * independently for every QN. */
static void test_unt3_unt5_msn_starts_at_one_per_queue(void **state)
{
	memllp *m = pair(1500, 0);
	static const uint32_t qns[] = { 0, 0, 1, 0, 2, 1, 2, 2 };
	static const uint32_t want[] = { 1, 2, 1, 3, 1, 2, 2, 3 };
	uint8_t b[4] = { 1, 2, 3, 4 };

	for (size_t i = 0; i < 8; i++)
		assert_int_equal(send_u(m, qns[i], 0, b, sizeof(b)), 0);
	assert_int_equal(m->side[0].nsent, 8);
	for (size_t i = 0; i < 8; i++) {
		tw_hdr h = sent_hdr(m, i);

		assert_int_equal(h.qn, qns[i]);
		assert_int_equal(h.msn, want[i]);
	}
	memllp_free(m);
}

/* DDP-UNT-3: RFC 5041 §4.3: after MSN 0xFFFFFFFF the next MSN is 0 (not
 * 1), on both the sending and the receiving side. */
static void test_unt3_msn_wraps_to_zero(void **state)
{
	memllp *m = pair(1500, 1);
	uint8_t b[3] = { 7, 8, 9 }, r[3][8];

	assert_int_equal(ddp_debug_set_msn(memllp_session(m, 0), 0, 0,
					   UINT32_MAX, 1), 0);
	assert_int_equal(ddp_debug_set_msn(memllp_session(m, 1), 0, 0, 1,
					   UINT32_MAX), 0);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, r[i],
					       8, NULL), 0);
		assert_int_equal(send_u(m, 0, 0, b, 3), 0);
	}
	assert_int_equal(sent_hdr(m, 0).msn, UINT32_MAX);
	assert_int_equal(sent_hdr(m, 1).msn, 0);
	assert_int_equal(sent_hdr(m, 2).msn, 1);
	memllp_pump(m);
	assert_int_equal(m->side[1].nerr, 0);
	assert_int_equal(m->side[1].ndlv, 3);
	assert_int_equal(m->side[1].dlv[0].d.msn, UINT32_MAX);
	assert_int_equal(m->side[1].dlv[1].d.msn, 0);
	assert_int_equal(m->side[1].dlv[2].d.msn, 1);
	assert_ptr_equal(m->side[1].dlv[1].d.buf, r[1]);
	memllp_free(m);
}

/* DDP-SEG-1 with a multi-iovec message: segments may cut inside and across
 * iovecs; the bytes on the wire are the concatenation. */
static void test_seg1_multi_iovec_payload_is_concatenated(void **state)
{
	memllp *m = pair(50, 1);
	uint8_t a[37], b[1], c[100], all[138], rbuf[200];
	struct iovec iov[4] = { { a, 37 }, { b, 1 }, { NULL, 0 }, { c, 100 } };

	fill_pattern(a, sizeof(a), 1);
	fill_pattern(b, sizeof(b), 2);
	fill_pattern(c, sizeof(c), 3);
	memcpy(all, a, 37);
	memcpy(all + 37, b, 1);
	memcpy(all + 38, c, 100);
	assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, rbuf,
				       sizeof(rbuf), NULL), 0);
	assert_int_equal(ddp_send_untagged(memllp_session(m, 0), 0, 0, 0, iov,
					   4, NULL), 0);
	memllp_pump(m);
	assert_int_equal(m->side[0].violations, 0);
	assert_int_equal(m->side[1].ndlv, 1);
	assert_int_equal(m->side[1].dlv[0].d.len, sizeof(all));
	assert_memory_equal(rbuf, all, sizeof(all));
	memllp_free(m);
}

/* DDP-SEG-2: RFC 5041 §5.2: a message of 2^32 octets or more is refused
 * (the iovec lengths add up to 2^32; nothing is read or sent). */
static void test_seg2_message_of_2_32_octets_is_refused(void **state)
{
	memllp *m = pair(1500, 0);
	uint8_t tiny[1];
	struct iovec iov[2] = { { tiny, (size_t)1 << 31 },
				{ tiny, (size_t)1 << 31 } };
	struct iovec big[1] = { { tiny, SIZE_MAX } };

	assert_int_equal(ddp_send_untagged(memllp_session(m, 0), 0, 0, 0, iov,
					   2, NULL), DDP_ERR_TOOBIG);
	assert_int_equal(ddp_send_tagged(memllp_session(m, 0), 0, 1, 0, 0, iov,
					 2, NULL), DDP_ERR_TOOBIG);
	/* lengths whose size_t sum wraps must not sneak through */
	struct iovec wrap[2] = { { tiny, SIZE_MAX }, { tiny, 2 } };
	assert_int_equal(ddp_send_untagged(memllp_session(m, 0), 0, 0, 0, wrap,
					   2, NULL), DDP_ERR_TOOBIG);
	assert_int_equal(ddp_send_untagged(memllp_session(m, 0), 0, 0, 0, big,
					   1, NULL), DDP_ERR_TOOBIG);
	assert_int_equal(m->side[0].nsent, 0);
	memllp_free(m);
}

/* ddp_send_tagged: TO + length wrapping 2^64 is refused. */
static void test_tagged_send_refuses_to_wrap(void **state)
{
	memllp *m = pair(1500, 0);
	uint8_t b[16] = { 0 };

	assert_int_equal(send_t(m, 1, UINT64_MAX - 7, 0, b, 16),
			 DDP_ERR_INVAL);
	assert_int_equal(m->side[0].nsent, 0);
	assert_int_equal(send_t(m, 1, UINT64_MAX, 0, b, 2), DDP_ERR_INVAL);
	assert_int_equal(m->side[0].nsent, 0);
	assert_int_equal(send_t(m, 1, UINT64_MAX - 100, 0, b, 16), 0);
	memllp_free(m);
}

/* DDP-UNT-1: RsvdULP is 40 bits: larger values are refused. */
static void test_unt1_rsvdulp_over_40_bits_refused(void **state)
{
	memllp *m = pair(1500, 0);
	uint8_t b[1] = { 0 };

	assert_int_equal(send_u(m, 0, 1ULL << 40, b, 1), DDP_ERR_INVAL);
	assert_int_equal(send_u(m, 0, (1ULL << 40) - 1, b, 1), 0);
	assert_int_equal(m->side[0].nsent, 1);
	memllp_free(m);
}

/* DDP-LLP-2, DDP-LLP-1: segments the LLP already took are delivered
 * unchanged after the MULPDU shrinks; later segments use the new MULPDU. */
static void test_llp2_shrinking_mulpdu_does_not_resegment(void **state)
{
	memllp *m = pair(1000, 0);
	uint8_t msg[3000], rbuf[6000];
	size_t before;

	fill_pattern(msg, sizeof(msg), 4);
	assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, rbuf, 3000,
				       NULL), 0);
	assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0,
				       rbuf + 3000, 3000, NULL), 0);
	assert_int_equal(send_u(m, 0, 0, msg, sizeof(msg)), 0);
	before = m->side[0].nsent;
	assert_int_equal(before, 4); /* 982 * 3 + 54 */
	memllp_set_mulpdu(m, 0, 300);
	assert_int_equal(ddp_session_mulpdu(memllp_session(m, 0)), 300);
	assert_int_equal(send_u(m, 0, 0, msg, sizeof(msg)), 0);
	memllp_pump(m);
	assert_int_equal(m->side[0].violations, 0);
	for (size_t i = 0; i < before; i++)
		assert_true(m->side[0].sent[i].len <= 1000);
	for (size_t i = before; i < m->side[0].nsent; i++)
		assert_true(m->side[0].sent[i].len <= 300);
	assert_int_equal(m->side[1].ndlv, 2);
	assert_memory_equal(rbuf, msg, 3000);
	assert_memory_equal(rbuf + 3000, msg, 3000);
	memllp_free(m);
}

/* DDP-ORD-1: messages leave in submission order even when the LLP pushes
 * back (DDP_ERR_AGAIN) and completes later (DDP_LLP_PENDING). */
static void test_ord1_backpressure_keeps_submission_order(void **state)
{
	memllp_cfg cfg = { .seed = 3, .mulpdu = 64, .queue_cap = 2,
			   .pending = 1 };
	memllp *m = NULL;
	uint8_t msg[10][100], rbuf[10][100];
	int tags[10];

	assert_int_equal(memllp_new(&cfg, &m), 0);
	for (int i = 0; i < 10; i++) {
		struct iovec iov = { msg[i], sizeof(msg[i]) };

		memset(msg[i], 'a' + i, sizeof(msg[i]));
		assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0,
					       rbuf[i], sizeof(rbuf[i]), NULL),
				 0);
		assert_int_equal(ddp_send_untagged(memllp_session(m, 0), 0, 0,
						   0, &iov, 1, &tags[i]), 0);
	}
	assert_true(m->side[0].nagain > 0);
	memllp_pump(m);
	assert_int_equal(m->side[0].violations, 0);
	assert_int_equal(m->side[1].ndlv, 10);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(m->side[1].dlv[i].d.msn, i + 1);
		assert_memory_equal(rbuf[i], msg[i], sizeof(msg[i]));
	}
	/* DDP-DLV-4: completions in submission order, all successful */
	assert_int_equal(m->side[0].ndone, 10);
	for (int i = 0; i < 10; i++) {
		assert_ptr_equal(m->side[0].done[i].msg_ctx, &tags[i]);
		assert_int_equal(m->side[0].done[i].status, 0);
	}
	memllp_free(m);
}

/* Backpressure in octets (ddp_session_config.max_tx_octets): an empty
 * queue takes any one message, however large, and the limit counts the
 * octets behind the oldest message: a small message behind a large one is
 * taken; a message is taken while those octets are below the limit (the
 * one that crosses it too) and refused with DDP_ERR_LIMIT after. */
static void test_tx_octet_limit_counts_behind_the_oldest(void **state)
{
	(void)state;
	memllp_cfg cfg = { .seed = 5, .mulpdu = 1500, .pending = 1 };
	cfg.scfg[0].max_tx_octets = 1000;
	memllp *m = NULL;
	static uint8_t big[5000], small[400];
	assert_int_equal(memllp_new(&cfg, &m), 0);
	ddp_session *s = memllp_session(m, 0);
	struct iovec b = { big, sizeof(big) }, v = { small, sizeof(small) };
	assert_int_equal(ddp_send_untagged(s, 0, 0, 0, &b, 1, NULL), 0); /* empty: taken */
	assert_int_equal(ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL), 0); /* 0 behind it */
	assert_int_equal(ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL), 0); /* 400 */
	assert_int_equal(ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL), 0); /* 800: crosses */
	assert_int_equal(ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL), DDP_ERR_LIMIT); /* 1200 */
	assert_int_equal(ddp_stream_queued(s, 0, NULL), sizeof(big) + 3 * sizeof(small));
	memllp_free(m);

	memllp *m2 = NULL;
	assert_int_equal(memllp_new(&cfg, &m2), 0);
	s = memllp_session(m2, 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL), 0);
	assert_int_equal(ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL), DDP_ERR_LIMIT);
	assert_int_equal(ddp_stream_queued(s, 0, NULL), 4 * sizeof(small));
	memllp_free(m2);
}

/* DDP-SEG-1 at the smallest MULPDU (header + 1 octet): every segment
 * carries one untagged or five tagged octets; a MULPDU that cannot hold a
 * header and one octet is refused (session_new) or ignored (change). */
static void test_seg1_smallest_mulpdu_one_octet_per_segment(void **state)
{
	memllp *m = pair(1500, 1);
	uint8_t msg[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 }, rbuf[16];

	memllp_set_mulpdu(m, 0, 19);
	assert_int_equal(ddp_session_mulpdu(memllp_session(m, 0)), 19);
	assert_int_equal(ddp_post_recv(memllp_session(m, 1), 0, 0, rbuf,
				       sizeof(rbuf), NULL), 0);
	assert_int_equal(send_u(m, 0, 0, msg, 10), 0);
	assert_int_equal(m->side[0].nsent, 10);
	for (size_t i = 0; i < 10; i++) {
		assert_int_equal(m->side[0].sent[i].len, 19);
		assert_int_equal(sent_hdr(m, i).mo, i);
	}
	assert_int_equal(send_t(m, 5, 0, 0, msg, 10), 0);
	assert_int_equal(m->side[0].nsent, 12); /* 2 x (14 + 5) */
	ddp_llp_mulpdu_changed(memllp_session(m, 0), 18);
	assert_int_equal(ddp_session_mulpdu(memllp_session(m, 0)), 19);
	memllp_pump(m);
	assert_int_equal(m->side[0].violations, 0);
	assert_int_equal(m->side[1].ndlv, 1);
	assert_memory_equal(rbuf, msg, 10);
	memllp_free(m);

	memllp_cfg cfg = { .mulpdu = 18 };
	m = NULL;
	assert_int_equal(memllp_new(&cfg, &m), DDP_ERR_INVAL);
	assert_null(m);
}

/* DDP-DLV-4 with an LLP that accepts every segment at once (nullllp, like
 * SCTP): a ULP that sends the next message from send_done gets its
 * completions one after the other, not nested inside each other (20,000
 * nested send_done calls would take megabytes of stack). Order is kept. */
struct chain {
	ddp_session *s;
	unsigned depth, max_depth, done, next_ctx, bad_order;
};

static void chain_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	struct chain *c = user;
	static const uint8_t one = 1;
	struct iovec v = { (void *)&one, 1 };
	c->depth++;
	if (c->depth > c->max_depth)
		c->max_depth = c->depth;
	if ((uintptr_t)ctx != c->done + 1 || status)
		c->bad_order++;
	c->done++;
	if (c->next_ctx < 20000) {
		c->next_ctx++;
		assert_int_equal(ddp_send_untagged(s, stream, 0, 0, &v, 1,
						   (void *)(uintptr_t)c->next_ctx), 0);
	}
	c->depth--;
}

static void chain_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
}

static void chain_error(ddp_session *s, const ddp_error_info *e, void *user)
{
}

static void test_dlv4_send_done_does_not_nest(void **state)
{
	(void)state;
	ddp_ctx *ctx;
	ddp_pd *pd;
	nullllp nl;
	struct chain c;
	memset(&nl, 0, sizeof(nl));
	memset(&c, 0, sizeof(c));
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	assert_int_equal(ddp_pd_new(ctx, &pd), 0);
	ddp_callbacks cb = { .deliver = chain_deliver, .error = chain_error, .send_done = chain_done };
	ddp_session_config cfg = { .nstreams = 1, .pd = pd };
	assert_int_equal(ddp_session_new(ctx, &cfg, &nullllp_ops, &nl, &cb, &c, &c.s), 0);
	static const uint8_t one = 1;
	struct iovec v = { (void *)&one, 1 };
	c.next_ctx = 1;
	assert_int_equal(ddp_send_untagged(c.s, 0, 0, 0, &v, 1, (void *)(uintptr_t)1), 0);
	assert_int_equal(c.done, 20000);
	assert_int_equal(nl.nsent, 20000);
	assert_int_equal(c.bad_order, 0);
	assert_int_equal(c.max_depth, 1);
	ddp_session_free(c.s);
	assert_int_equal(ddp_pd_free(pd), 0);
	assert_int_equal(ddp_ctx_free(ctx), 0);
}

/* llp.h: a send error other than DDP_ERR_AGAIN is fatal for the stream and
 * reported with the LLP's own code (DDP-TRD-7: requests complete in error),
 * not replaced by DDP_ERR_LLP. */
struct fail_rec {
	int ndone, status, nerr;
};

static void fail_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	struct fail_rec *r = user;
	r->ndone++;
	r->status = status;
}

static void fail_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct fail_rec *r = user;
	r->nerr++;
}

static void fail_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
}

static void test_llp_send_error_keeps_the_llps_code(void **state)
{
	(void)state;
	static const int codes[] = { DDP_ERR_CLOSED, DDP_ERR_TOOBIG, DDP_ERR_NOMEM };
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		ddp_ctx *ctx;
		ddp_pd *pd;
		ddp_session *s;
		nullllp nl;
		struct fail_rec r = { 0 };
		memset(&nl, 0, sizeof(nl));
		nl.send_rc = codes[i];
		assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
		assert_int_equal(ddp_pd_new(ctx, &pd), 0);
		ddp_callbacks cb = { .deliver = fail_deliver, .send_done = fail_done,
				     .error = fail_error };
		ddp_session_config cfg = { .nstreams = 1, .pd = pd };
		assert_int_equal(ddp_session_new(ctx, &cfg, &nullllp_ops, &nl, &cb, &r, &s), 0);
		static const uint8_t one = 1;
		struct iovec v = { (void *)&one, 1 };
		ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL);
		assert_int_equal(r.ndone, 1);
		assert_int_equal(r.status, codes[i]);
		ddp_session_free(s);
		assert_int_equal(ddp_pd_free(pd), 0);
		assert_int_equal(ddp_ctx_free(ctx), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seg4_untagged_2048_over_1500_splits_exactly),
		cmocka_unit_test(test_seg5_tagged_2048_over_1500_splits_exactly),
		cmocka_unit_test(
			test_seg1_hdr3_hdr4_hdr5_unt4_random_untagged_segmentation),
		cmocka_unit_test(
			test_tag1_tag2_tag3_tagged_segments_share_stag_rsvdulp),
		cmocka_unit_test(
			test_seg7_zero_length_message_is_one_header_only_segment),
		cmocka_unit_test(test_unt3_unt5_msn_starts_at_one_per_queue),
		cmocka_unit_test(test_unt3_msn_wraps_to_zero),
		cmocka_unit_test(test_seg1_multi_iovec_payload_is_concatenated),
		cmocka_unit_test(test_seg2_message_of_2_32_octets_is_refused),
		cmocka_unit_test(test_tagged_send_refuses_to_wrap),
		cmocka_unit_test(
			test_seg1_smallest_mulpdu_one_octet_per_segment),
		cmocka_unit_test(test_unt1_rsvdulp_over_40_bits_refused),
		cmocka_unit_test(test_llp2_shrinking_mulpdu_does_not_resegment),
		cmocka_unit_test(test_ord1_backpressure_keeps_submission_order),
		cmocka_unit_test(test_tx_octet_limit_counts_behind_the_oldest),
		cmocka_unit_test(test_dlv4_send_done_does_not_nest),
		cmocka_unit_test(test_llp_send_error_keeps_the_llps_code),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
