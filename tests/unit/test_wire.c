/*
 * test_wire: the DDP header codec (src/wire.c), byte-exact against the
 * RFC 5041 §4 layouts, and cross-checked with the independent reference
 * codec in tests/support/ddpwire.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include <ddp/llp.h>

#include "chopper.h"
#include "ddpwire.h"
#include "wire.h"

/* DDP-HDR-1, DDP-HDR-7: RFC 5041 §4.1/§4.2: T L Rsvd DV, then RsvdULP,
 * STag, TO, big endian. */
static void test_hdr1_tagged_header_is_byte_exact(void **state)
{
	static const uint8_t want[14] = { 0xC1, 0xAB, 0x12, 0x34, 0x56, 0x78,
					  0x01, 0x02, 0x03, 0x04, 0x05, 0x06,
					  0x07, 0x08 };
	struct ddp_hdr h = { .tagged = 1, .last = 1, .dv = 1,
			     .rsvdulp = 0xAB, .stag = 0x12345678,
			     .to = 0x0102030405060708ULL };
	uint8_t out[32];

	memset(out, 0xEE, sizeof(out));
	assert_int_equal(wire_encode(&h, out, sizeof(out)), 14);
	assert_memory_equal(out, want, 14);
	assert_int_equal(out[14], 0xEE); /* nothing past the header */
}

/* DDP-HDR-1, DDP-HDR-7: RFC 5041 §4.3: ctrl, RsvdULP(5), QN, MSN, MO. */
static void test_hdr1_untagged_header_is_byte_exact(void **state)
{
	static const uint8_t want[18] = { 0x01, 0x11, 0x22, 0x33, 0x44, 0x55,
					  0x00, 0x00, 0x00, 0x02, 0xDE, 0xAD,
					  0xBE, 0xEF, 0x00, 0x01, 0x00, 0x00 };
	struct ddp_hdr h = { .tagged = 0, .last = 0, .dv = 1,
			     .rsvdulp = 0x1122334455ULL, .qn = 2,
			     .msn = 0xDEADBEEF, .mo = 0x10000 };
	uint8_t out[32];

	memset(out, 0xEE, sizeof(out));
	assert_int_equal(wire_encode(&h, out, sizeof(out)), 18);
	assert_memory_equal(out, want, 18);
	assert_int_equal(out[18], 0xEE);
}

/* DDP-HDR-2: RFC 5041 §4.1: T selects the 14 vs 18 octet header. */
static void test_hdr2_t_bit_selects_header_length(void **state)
{
	for (unsigned c = 0; c < 256; c++) {
		size_t want = (c & 0x80) ? 14 : 18;

		assert_int_equal(wire_hdr_len((uint8_t)c), want);
		assert_int_equal(ddp_hdr_len((uint8_t)c), want);
	}
}

/* DDP-HDR-2: both forms decode to their fields. */
static void test_hdr2_decode_both_forms(void **state)
{
	uint8_t b[64];
	struct ddp_hdr h;

	tw_tagged(b, 0, 1, 0x5A, 0xCAFEF00D, 0xFFFFFFFFFFFFFFF0ULL, NULL, 0);
	assert_int_equal(wire_decode(&h, b, 14), 14);
	assert_int_equal(h.tagged, 1);
	assert_int_equal(h.last, 0);
	assert_int_equal(h.dv, 1);
	assert_int_equal(h.rsvdulp, 0x5A);
	assert_int_equal(h.stag, 0xCAFEF00D);
	assert_true(h.to == 0xFFFFFFFFFFFFFFF0ULL);

	tw_untagged(b, 1, 1, 0xFFFFFFFFFFULL, 7, 0xFFFFFFFF, 0x80000001,
		    NULL, 0);
	assert_int_equal(wire_decode(&h, b, 18), 18);
	assert_int_equal(h.tagged, 0);
	assert_int_equal(h.last, 1);
	assert_true(h.rsvdulp == 0xFFFFFFFFFFULL);
	assert_int_equal(h.qn, 7);
	assert_int_equal(h.msn, 0xFFFFFFFF);
	assert_int_equal(h.mo, 0x80000001);
}

/* DDP-HDR-6: RFC 5041 §4.1: Rsvd is sent as zero and not checked. */
static void test_hdr6_rsvd_sent_zero_and_ignored(void **state)
{
	struct ddp_hdr h = { .tagged = 1, .last = 1, .dv = 1 };
	uint8_t b[32];

	wire_encode(&h, b, sizeof(b));
	assert_int_equal(b[0] & TW_RSVD, 0);
	h.tagged = 0;
	wire_encode(&h, b, sizeof(b));
	assert_int_equal(b[0] & TW_RSVD, 0);

	tw_tagged(b, 1, 1, 0, 1, 2, NULL, 0);
	b[0] |= TW_RSVD;
	assert_int_equal(wire_decode(&h, b, 14), 14);
	assert_int_equal(h.tagged, 1);
	assert_int_equal(h.last, 1);
	assert_int_equal(h.dv, 1);
	assert_int_equal(h.stag, 1);
}

/* DDP-HDR-7: RFC 5041 §4.1: DV = 1 on send (low two bits 01). */
static void test_hdr7_dv_is_one(void **state)
{
	struct ddp_hdr h = { .tagged = 1, .dv = DDP_VERSION };
	uint8_t b[32];

	wire_encode(&h, b, sizeof(b));
	assert_int_equal(b[0] & TW_DV, 1);
}

/* DDP-HDR-9: a header with no payload is a whole segment; a buffer shorter
 * than the header is refused (0), never over-read. */
static void test_hdr9_short_buffers_refused(void **state)
{
	uint8_t b[18];
	struct ddp_hdr h;

	tw_tagged(b, 1, 1, 0, 1, 2, NULL, 0);
	for (size_t n = 0; n < 14; n++)
		assert_int_equal(wire_decode(&h, b, n), 0);
	tw_untagged(b, 1, 1, 0, 1, 2, 3, NULL, 0);
	for (size_t n = 0; n < 18; n++)
		assert_int_equal(wire_decode(&h, b, n), 0);
	assert_int_equal(wire_decode(&h, b, 18), 18);
}

/* Encoding into too small a buffer writes nothing past cap. */
static void test_encode_respects_capacity(void **state)
{
	struct ddp_hdr h = { .tagged = 0, .dv = 1, .qn = 1 };
	uint8_t b[18];

	memset(b, 0xEE, sizeof(b));
	assert_int_equal(wire_encode(&h, b, 17), 0);
	assert_int_equal(b[17], 0xEE);
}

/* Random round trips against the reference codec. */
static void test_random_round_trips_match_reference(void **state)
{
	chopper c;

	chopper_seed(&c, 42);
	for (int i = 0; i < 2000; i++) {
		struct ddp_hdr h = { 0 }, d;
		uint8_t a[18], r[18];
		tw_hdr t;

		h.tagged = (uint8_t)(chopper_next(&c) & 1);
		h.last = (uint8_t)(chopper_next(&c) & 1);
		h.dv = 1;
		h.rsvdulp = chopper_next(&c) &
			    (h.tagged ? 0xFFULL : 0xFFFFFFFFFFULL);
		h.stag = (uint32_t)chopper_next(&c);
		h.to = chopper_next(&c);
		h.qn = (uint32_t)chopper_next(&c);
		h.msn = (uint32_t)chopper_next(&c);
		h.mo = (uint32_t)chopper_next(&c);
		size_t n = wire_encode(&h, a, sizeof(a));
		if (h.tagged)
			tw_tagged(r, h.last, 1, (uint8_t)h.rsvdulp, h.stag,
				  h.to, NULL, 0);
		else
			tw_untagged(r, h.last, 1, h.rsvdulp, h.qn, h.msn,
				    h.mo, NULL, 0);
		assert_int_equal(n, h.tagged ? 14 : 18);
		assert_memory_equal(a, r, n);
		assert_int_equal(wire_decode(&d, a, n), n);
		assert_int_equal(tw_decode(a, n, &t), 0);
		assert_int_equal(d.tagged, h.tagged);
		assert_int_equal(d.last, h.last);
		assert_true(d.rsvdulp == h.rsvdulp);
		if (h.tagged) {
			assert_int_equal(d.stag, h.stag);
			assert_true(d.to == h.to);
		} else {
			assert_int_equal(d.qn, h.qn);
			assert_int_equal(d.msn, h.msn);
			assert_int_equal(d.mo, h.mo);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hdr1_tagged_header_is_byte_exact),
		cmocka_unit_test(test_hdr1_untagged_header_is_byte_exact),
		cmocka_unit_test(test_hdr2_t_bit_selects_header_length),
		cmocka_unit_test(test_hdr2_decode_both_forms),
		cmocka_unit_test(test_hdr6_rsvd_sent_zero_and_ignored),
		cmocka_unit_test(test_hdr7_dv_is_one),
		cmocka_unit_test(test_hdr9_short_buffers_refused),
		cmocka_unit_test(test_encode_respects_capacity),
		cmocka_unit_test(test_random_round_trips_match_reference),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
