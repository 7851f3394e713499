/* CRC32c (RFC 3720 §12.1, B.4) in both implementations. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"

typedef uint32_t (*crc_fn)(uint32_t, const void *, size_t);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define HAVE_XINUSE_PROBE 1
/* XINUSE (XGETBV with ECX = 1, where CPUID.(0DH,1):EAX[2] offers it):
 * the register states that hold live data. -1: no way to ask. */
static int xinuse(uint64_t *v)
{
	unsigned a, b, c, d;
	uint32_t lo, hi;
	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE))
		return -1;
	if (!__get_cpuid_count(0xd, 1, &a, &b, &c, &d) || !(a & (1u << 2)))
		return -1;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(1));
	*v = (uint64_t)hi << 32 | lo;
	return 0;
}
#endif

static void check_b4_vectors(crc_fn f)
{
	uint8_t buf[32];

	/* RFC 3720 B.4 */
	memset(buf, 0, sizeof buf);
	assert_int_equal(f(0, buf, 32), 0x8A9136AAu);
	memset(buf, 0xff, sizeof buf);
	assert_int_equal(f(0, buf, 32), 0x62A8AB43u);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)i;
	assert_int_equal(f(0, buf, 32), 0x46DD794Eu);
	for (int i = 0; i < 32; i++)
		buf[i] = (uint8_t)(31 - i);
	assert_int_equal(f(0, buf, 32), 0x113FDB5Cu);
	assert_int_equal(f(0, "123456789", 9), 0xE3069283u);
	assert_int_equal(f(0, NULL, 0), 0u);
}

static void test_crc32c_rfc3720_vectors(void **state)
{
	check_b4_vectors(ddp_crc32c);
}

static void test_crc32c_portable_rfc3720_vectors(void **state)
{
	check_b4_vectors(ddp_crc32c_portable);
}

static void test_crc32c_chained_equals_one_shot(void **state)
{
	uint8_t buf[1000];
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof buf; i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	uint32_t whole = ddp_crc32c(0, buf, sizeof buf);
	assert_int_equal(whole, ddp_crc32c_portable(0, buf, sizeof buf));
	for (size_t cut = 0; cut <= sizeof buf; cut += 37) {
		for (size_t cut2 = cut; cut2 <= sizeof buf; cut2 += 101) {
			uint32_t c = ddp_crc32c(0, buf, cut);
			c = ddp_crc32c(c, buf + cut, cut2 - cut);
			c = ddp_crc32c(c, buf + cut2, sizeof buf - cut2);
			assert_int_equal(c, whole);
			c = ddp_crc32c_portable(0, buf, cut);
			c = ddp_crc32c_portable(c, buf + cut, cut2 - cut);
			c = ddp_crc32c_portable(c, buf + cut2, sizeof buf - cut2);
			assert_int_equal(c, whole);
		}
	}
}

static void test_crc32c_unaligned_and_odd_lengths_agree(void **state)
{
	uint8_t buf[64 + 8];

	for (size_t i = 0; i < sizeof buf; i++)
		buf[i] = (uint8_t)(i * 7 + 3);
	for (size_t off = 0; off < 8; off++)
		for (size_t n = 0; n <= 64; n++)
			assert_int_equal(ddp_crc32c(0, buf + off, n),
					 ddp_crc32c_portable(0, buf + off, n));
}

static uint8_t *random_bytes(size_t n)
{
	uint8_t *b = malloc(n);
	uint32_t x = 2463534242u;

	assert_non_null(b);
	for (size_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		b[i] = (uint8_t)x;
	}
	return b;
}

/* Buffers of FPDU and SCTP-packet sizes (up to 64 KiB and past it), odd
 * lengths and alignments, any seed: the accelerated entry point against
 * the table implementation. */
static void test_crc32c_large_buffers_agree(void **state)
{
	size_t cap = 70000;
	uint8_t *b = random_bytes(cap + 8);
	size_t sizes[] = { 2815, 2816, 2817, 4095, 4096, 4097, 9000, 16384, 32768,
			   65535, 65536, 65537, 69999 };

	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		for (size_t off = 0; off < 8; off += 3) {
			uint32_t seed = (uint32_t)(i * 0x9e3779b9u + off);
			assert_int_equal(ddp_crc32c(seed, b + off, sizes[i]),
					 ddp_crc32c_portable(seed, b + off, sizes[i]));
		}
	free(b);
}

/* RFC 5044 §4.4 / spec/mpa.md §4: CRC goes on the wire LSB first. */
static void test_crc32c_wire_order_is_lsb_first(void **state)
{
	uint8_t w[4];

	ddp_crc32c_put_wire(w, 0x83992352u);
	assert_int_equal(w[0], 0x52);
	assert_int_equal(w[1], 0x23);
	assert_int_equal(w[2], 0x99);
	assert_int_equal(w[3], 0x83);
	assert_int_equal(ddp_crc32c_get_wire(w), 0x83992352u);

	uint8_t zero[32] = { 0 };
	ddp_crc32c_put_wire(w, ddp_crc32c(0, zero, 32));
	const uint8_t expect[4] = { 0xaa, 0x36, 0x91, 0x8a };
	assert_memory_equal(w, expect, 4);
}

/* ddp_crc32c returns with no upper half of YMM0-15 / ZMM0-15 in use
 * (XINUSE bits 2 and 6): ISA-L's AVX-512 kernel leaves them in use, and
 * every legacy-SSE instruction after it would pay for the mixed state. */
static void test_crc32c_leaves_no_upper_vector_state(void **state)
{
	(void)state;
#if HAVE_XINUSE_PROBE
	static uint8_t buf[4096];
	uint64_t v;
	if (xinuse(&v) != 0)
		skip();
	memset(buf, 0x5a, sizeof buf);
	uint32_t crc = ddp_crc32c(0, buf, sizeof buf);
	assert_int_equal(xinuse(&v), 0);
	print_message("crc %08x, XINUSE %#llx\n", crc, (unsigned long long)v);
	assert_int_equal(v & ((1u << 2) | (1u << 6)), 0);
#else
	skip();
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crc32c_rfc3720_vectors),
		cmocka_unit_test(test_crc32c_portable_rfc3720_vectors),
		cmocka_unit_test(test_crc32c_chained_equals_one_shot),
		cmocka_unit_test(test_crc32c_unaligned_and_odd_lengths_agree),
		cmocka_unit_test(test_crc32c_wire_order_is_lsb_first),
		cmocka_unit_test(test_crc32c_large_buffers_agree),
		cmocka_unit_test(test_crc32c_leaves_no_upper_vector_state),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
