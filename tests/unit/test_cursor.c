/*
 * test_cursor: the one bounds-checked cursor (src/cursor.h) every parser
 * and encoder uses: big-endian fields (RFC 5041 §4), the least-significant
 * first CRC field (RFC 5044 §4.4), peek, skip, take, bytes, and that no
 * call reads or writes past the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include "cursor.h"

static const uint8_t seq[9] = { 0x01, 0x02, 0x03, 0x04, 0x05,
				0x06, 0x07, 0x08, 0x09 };

static void test_cursor_get_be_every_width(void **state)
{
	for (unsigned n = 1; n <= 8; n++) {
		struct rcur c = rc_init(seq, sizeof(seq));
		uint64_t v = 0, want = 0;
		for (unsigned i = 0; i < n; i++)
			want = want * 256 + seq[i];
		assert_int_equal(rc_get_be(&c, n, &v), 0);
		assert_true(v == want);
		assert_int_equal(rc_left(&c), sizeof(seq) - n);
	}
}

static void test_cursor_get_le_reads_crc_field_lsb_first(void **state)
{
	/* RFC 5044 §4.4 / spec/mpa.md §4: value 0x83992352 is 52 23 99 83 */
	static const uint8_t wire[4] = { 0x52, 0x23, 0x99, 0x83 };
	struct rcur c = rc_init(wire, sizeof(wire));
	uint64_t v;
	assert_int_equal(rc_get_le(&c, 4, &v), 0);
	assert_true(v == 0x83992352u);
	assert_int_equal(rc_left(&c), 0);
	/* every width, against the big-endian reading of the reversed octets */
	for (unsigned n = 1; n <= 8; n++) {
		uint8_t rev[8];
		for (unsigned i = 0; i < n; i++)
			rev[i] = seq[n - 1 - i];
		struct rcur a = rc_init(seq, n), b = rc_init(rev, n);
		uint64_t le, be;
		assert_int_equal(rc_get_le(&a, n, &le), 0);
		assert_int_equal(rc_get_be(&b, n, &be), 0);
		assert_true(le == be);
	}
}

static void test_cursor_reads_fail_without_moving_at_the_end(void **state)
{
	struct rcur c = rc_init(seq, 3);
	uint64_t v = 77;
	uint8_t out[4] = { 0 };

	assert_int_equal(rc_get_be(&c, 4, &v), -1);
	assert_int_equal(rc_get_le(&c, 4, &v), -1);
	assert_int_equal(rc_peek_be(&c, 4, &v), -1);
	assert_int_equal(rc_skip(&c, 4), -1);
	assert_null(rc_take(&c, 4));
	assert_int_equal(rc_get_bytes(&c, out, 4), -1);
	assert_true(v == 77);
	assert_int_equal(out[0], 0);
	assert_int_equal(rc_left(&c), 3);
	/* widths over 8 octets are refused, not truncated */
	struct rcur w = rc_init(seq, sizeof(seq));
	assert_int_equal(rc_get_be(&w, 9, &v), -1);
	assert_int_equal(rc_get_le(&w, 9, &v), -1);
	assert_int_equal(rc_left(&w), sizeof(seq));
	/* an empty cursor */
	struct rcur e = rc_init(NULL, 0);
	assert_int_equal(rc_left(&e), 0);
	assert_int_equal(rc_get_be(&e, 1, &v), -1);
	assert_int_equal(rc_skip(&e, 0), 0);
	assert_int_equal(rc_get_bytes(&e, out, 0), 0);
}

static void test_cursor_peek_does_not_move(void **state)
{
	struct rcur c = rc_init(seq, sizeof(seq));
	uint64_t a, b;
	assert_int_equal(rc_peek_be(&c, 2, &a), 0);
	assert_int_equal(rc_left(&c), sizeof(seq));
	assert_int_equal(rc_get_be(&c, 2, &b), 0);
	assert_true(a == 0x0102 && b == 0x0102);
	assert_int_equal(rc_peek_be(&c, 1, &a), 0);
	assert_true(a == 0x03);
}

static void test_cursor_skip_take_and_bytes(void **state)
{
	struct rcur c = rc_init(seq, sizeof(seq));
	uint8_t out[3];
	uint64_t v;

	assert_int_equal(rc_skip(&c, 2), 0);
	const uint8_t *at = rc_take(&c, 3);
	assert_ptr_equal(at, seq + 2);
	assert_int_equal(rc_get_bytes(&c, out, 3), 0);
	assert_memory_equal(out, seq + 5, 3);
	assert_int_equal(rc_get_be(&c, 1, &v), 0);
	assert_true(v == 0x09);
	assert_int_equal(rc_left(&c), 0);
	assert_non_null(rc_take(&c, 0));
}

static void test_cursor_put_be_and_le_are_byte_exact(void **state)
{
	uint8_t b[16];
	memset(b, 0xEE, sizeof(b));
	struct wcur w = wc_init(b, sizeof(b));
	wc_put_be(&w, 2, 0x002a);		/* ULPDU_Length 42 */
	wc_put_be(&w, 4, 0x01020304);
	wc_put_le(&w, 4, 0x83992352u);	/* CRC field, RFC 5044 §4.4 */
	wc_put_be(&w, 3, 0xabcdef);
	assert_false(w.overflow);
	static const uint8_t want[13] = { 0x00, 0x2a, 1, 2, 3, 4, 0x52, 0x23,
					  0x99, 0x83, 0xab, 0xcd, 0xef };
	assert_memory_equal(b, want, sizeof(want));
	assert_int_equal(b[13], 0xEE);
	assert_int_equal(wc_left(&w), 3);
	/* a written field reads back the same in every width */
	for (unsigned n = 1; n <= 8; n++) {
		uint64_t v = 0x8877665544332211ull >> (8 * (8 - n)), be = 0, le = 0;
		struct wcur o = wc_init(b, sizeof(b));
		wc_put_be(&o, n, v);
		wc_put_le(&o, n, v);
		struct rcur r = rc_init(b, 2 * n);
		assert_int_equal(rc_get_be(&r, n, &be), 0);
		assert_int_equal(rc_get_le(&r, n, &le), 0);
		assert_true(be == v && le == v);
	}
}

static void test_cursor_bytes_and_zero(void **state)
{
	uint8_t b[8];
	memset(b, 0xEE, sizeof(b));
	struct wcur w = wc_init(b, 6);
	wc_put_bytes(&w, seq, 3);
	wc_zero(&w, 2);
	wc_put_bytes(&w, NULL, 0);
	assert_false(w.overflow);
	static const uint8_t want[6] = { 1, 2, 3, 0, 0, 0xEE };
	assert_memory_equal(b, want, sizeof(want));
	assert_int_equal(wc_left(&w), 1);
}

static void test_cursor_writes_stop_at_the_end(void **state)
{
	uint8_t b[8];
	memset(b, 0xEE, sizeof(b));
	struct wcur w = wc_init(b, 3);
	wc_put_be(&w, 4, 0x01020304);
	assert_true(w.overflow);
	assert_int_equal(wc_left(&w), 0);
	/* after an overflow nothing more is written, even what would fit */
	wc_put_be(&w, 1, 0x55);
	wc_put_le(&w, 1, 0x55);
	wc_put_bytes(&w, seq, 1);
	wc_zero(&w, 1);
	for (size_t i = 0; i < sizeof(b); i++)
		assert_int_equal(b[i], 0xEE);

	struct wcur z = wc_init(b, 8);
	wc_put_le(&z, 9, 1); /* no 9-octet field */
	assert_true(z.overflow);
	struct wcur y = wc_init(b, 2);
	wc_zero(&y, 3);
	assert_true(y.overflow);
	struct wcur x = wc_init(b, 2);
	wc_put_bytes(&x, seq, 3);
	assert_true(x.overflow);
	for (size_t i = 0; i < sizeof(b); i++)
		assert_int_equal(b[i], 0xEE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cursor_get_be_every_width),
		cmocka_unit_test(test_cursor_get_le_reads_crc_field_lsb_first),
		cmocka_unit_test(test_cursor_reads_fail_without_moving_at_the_end),
		cmocka_unit_test(test_cursor_peek_does_not_move),
		cmocka_unit_test(test_cursor_skip_take_and_bytes),
		cmocka_unit_test(test_cursor_put_be_and_le_are_byte_exact),
		cmocka_unit_test(test_cursor_bytes_and_zero),
		cmocka_unit_test(test_cursor_writes_stop_at_the_end),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
