/*
 * ddp-xfer's ULP messages (demos/ddp-xfer/proto.c, compiled in by
 * #include: unit tests link only the libraries): every message and the
 * hello survive encode -> decode, and the decoder refuses truncated, over-long,
 * unknown and out-of-range input instead of reading past the end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "../../demos/ddp-xfer/proto.c"

static const struct xf_msg samples[] = {
	{ .type = XF_ADVERT, .id = 7, .stag = 0xdeadbeef, .to = 0x0102030405060708ull,
	  .len = 1u << 20 },
	{ .type = XF_DONE, .id = 3, .off = 0xfffffffffff00000ull, .len = 4096 },
	{ .type = XF_END, .total = 50000000, .count = 12 },
	{ .type = XF_RESULT, .total = 1, .sha = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
						  15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
						  25, 26, 27, 28, 29, 30, 31, 32 } },
	{ .type = XF_ABORT, .code = XF_ABORT_DISK_FULL, .text_len = 23,
	  .text = "No space left on device" },
	{ .type = XF_ABORT, .code = XF_ABORT_OTHER, .text_len = 0 },
	{ .type = XF_ABORT, .code = XF_ABORT_WRITE, .text_len = XF_ABORT_TEXT_MAX,
	  .text = "012345678901234567890123456789012345678901234567890123456789" },
};

static void test_proto_messages_round_trip(void **state)
{
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		uint8_t buf[XF_MSG_MAX];
		size_t n = xf_msg_encode(&samples[i], buf);
		assert_true(n > 0 && n <= XF_MSG_MAX);
		struct xf_msg m;
		assert_int_equal(xf_msg_decode(buf, n, &m), 0);
		assert_memory_equal(&m, &samples[i], sizeof(m));
	}
}

static void test_proto_fields_are_big_endian(void **state)
{
	uint8_t buf[XF_MSG_MAX];
	size_t n = xf_msg_encode(&samples[0], buf);
	static const uint8_t want[] = { 1, 0, 0, 0, 7, 0xde, 0xad, 0xbe, 0xef, 1, 2,
					3, 4, 5, 6, 7, 8, 0, 0x10, 0, 0 };
	assert_int_equal(n, sizeof(want));
	assert_memory_equal(buf, want, sizeof(want));
}

static void test_proto_rejects_truncated_and_trailing_octets(void **state)
{
	for (size_t i = 0; i < sizeof(samples) / sizeof(samples[0]); i++) {
		uint8_t buf[XF_MSG_MAX + 1];
		size_t n = xf_msg_encode(&samples[i], buf);
		struct xf_msg m;
		for (size_t k = 0; k < n; k++)
			assert_int_equal(xf_msg_decode(buf, k, &m), -1);
		buf[n] = 0;
		assert_int_equal(xf_msg_decode(buf, n + 1, &m), -1);
	}
}

static void test_proto_rejects_unknown_type(void **state)
{
	uint8_t buf[XF_MSG_MAX] = { 0 };
	struct xf_msg m = { .type = 9 };
	assert_int_equal(xf_msg_encode(&m, buf), 0);
	for (int t = 0; t < 256; t++) {
		if (t >= XF_ADVERT && t <= XF_ABORT)
			continue;
		buf[0] = (uint8_t)t;
		for (size_t n = 0; n <= XF_MSG_MAX; n++)
			assert_int_equal(xf_msg_decode(buf, n, &m), -1);
	}
}

static void test_proto_hello_round_trip_and_limits(void **state)
{
	struct xf_hello h = { .id = 0x1122334455667788ull, .idx = 3, .nstreams = 4,
			      .credits = 64 }, g;
	uint8_t pd[XF_HELLO_LEN];
	xf_hello_encode(&h, pd);
	assert_memory_equal(pd, "DXF1", 4);
	assert_int_equal(xf_hello_decode(pd, sizeof(pd), &g), 0);
	assert_true(g.id == h.id && g.idx == 3 && g.nstreams == 4 && g.credits == 64);
	assert_int_equal(xf_hello_decode(pd, sizeof(pd) - 1, &g), -1);
	uint8_t bad[XF_HELLO_LEN];
	memcpy(bad, pd, sizeof(bad));
	bad[0] = 'X'; /* magic */
	assert_int_equal(xf_hello_decode(bad, sizeof(bad), &g), -1);
	struct xf_hello wrong[] = {
		{ .id = 1, .idx = 4, .nstreams = 4, .credits = 64 },  /* idx >= n */
		{ .id = 1, .idx = 0, .nstreams = 0, .credits = 64 },  /* no streams */
		{ .id = 1, .idx = 0, .nstreams = 65, .credits = 64 }, /* > 64 */
		{ .id = 1, .idx = 0, .nstreams = 1, .credits = 1 },   /* no credit */
	};
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		xf_hello_encode(&wrong[i], bad);
		assert_int_equal(xf_hello_decode(bad, sizeof(bad), &g), -1);
	}
}

/* ABORT: the receiver tells the sender why it stopped; the
 * text reaches the sender's terminal, so only printable ASCII of a bounded
 * length and a known reason code pass, both ways. */
static void test_proto_abort_limits(void **state)
{
	uint8_t buf[XF_MSG_MAX + 8];
	struct xf_msg m;
	static const uint8_t want[] = { 5, 1, 4, 'f', 'u', 'l', 'l' };
	assert_int_equal(xf_msg_decode(want, sizeof(want), &m), 0);
	assert_int_equal(m.code, XF_ABORT_DISK_FULL);
	assert_string_equal(m.text, "full");
	assert_string_equal(xf_abort_name(m.code), "disk full");
	uint8_t bad[sizeof(want)];
	memcpy(bad, want, sizeof(bad));
	bad[1] = 0; /* unknown code */
	assert_int_equal(xf_msg_decode(bad, sizeof(bad), &m), -1);
	bad[1] = 4;
	assert_int_equal(xf_msg_decode(bad, sizeof(bad), &m), -1);
	memcpy(bad, want, sizeof(bad));
	bad[4] = '\n'; /* not printable */
	assert_int_equal(xf_msg_decode(bad, sizeof(bad), &m), -1);
	bad[4] = 0x7f;
	assert_int_equal(xf_msg_decode(bad, sizeof(bad), &m), -1);
	/* a text over XF_ABORT_TEXT_MAX, even with the octets present */
	memset(buf, 'a', sizeof(buf));
	buf[0] = XF_ABORT;
	buf[1] = XF_ABORT_WRITE;
	buf[2] = XF_ABORT_TEXT_MAX + 1;
	assert_int_equal(xf_msg_decode(buf, 3 + XF_ABORT_TEXT_MAX + 1, &m), -1);
	buf[2] = XF_ABORT_TEXT_MAX;
	assert_int_equal(xf_msg_decode(buf, 3 + XF_ABORT_TEXT_MAX, &m), 0);
	/* the encoder refuses what the decoder would */
	m.code = 9;
	assert_int_equal(xf_msg_encode(&m, buf), 0);
	/* xf_abort_msg cuts and cleans any text */
	char lng[200];
	memset(lng, 'x', sizeof(lng) - 1);
	lng[sizeof(lng) - 1] = 0;
	lng[3] = '\033';
	xf_abort_msg(&m, XF_ABORT_WRITE, lng);
	assert_int_equal(m.text_len, XF_ABORT_TEXT_MAX);
	assert_int_equal(m.text[3], '?');
	size_t n = xf_msg_encode(&m, buf);
	assert_int_equal(n, 3 + XF_ABORT_TEXT_MAX);
	assert_true(n <= XF_MSG_MAX);
	struct xf_msg back;
	assert_int_equal(xf_msg_decode(buf, n, &back), 0);
	assert_memory_equal(&back, &m, sizeof(m));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_proto_messages_round_trip),
		cmocka_unit_test(test_proto_fields_are_big_endian),
		cmocka_unit_test(test_proto_rejects_truncated_and_trailing_octets),
		cmocka_unit_test(test_proto_rejects_unknown_type),
		cmocka_unit_test(test_proto_hello_round_trip_and_limits),
		cmocka_unit_test(test_proto_abort_limits),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
