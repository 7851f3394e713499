/*
 * ddp-xfer's SHA-256 (demos/ddp-xfer/sha256.c) against the FIPS 180-4 /
 * NIST CAVS example vectors. Unit tests link only the libraries, so the
 * program's source file is compiled into this test by #include (one copy
 * of the code, no second build rule); tests/programs/test_xfer_sha256sum.sh
 * compares the built program with sha256sum(1) for lengths 0..200.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "../../demos/ddp-xfer/sha256.c"

static void hex_of(const void *p, size_t n, char out[65])
{
	struct xf_sha256 c;
	uint8_t d[XF_SHA256_LEN];
	xf_sha256_init(&c);
	xf_sha256_update(&c, p, n);
	xf_sha256_final(&c, d);
	xf_sha256_hex(d, out);
}

static void test_sha256_empty_string_vector(void **state)
{
	char h[65];
	hex_of(NULL, 0, h);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

static void test_sha256_abc_vector(void **state)
{
	char h[65];
	hex_of("abc", 3, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* 448 bits: the padding needs a second block */
static void test_sha256_two_block_vector(void **state)
{
	static const char m[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	char h[65];
	hex_of(m, strlen(m), h);
	assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}

static void test_sha256_million_a_vector(void **state)
{
	char *m = malloc(1000000);
	assert_non_null(m);
	memset(m, 'a', 1000000);
	char h[65];
	hex_of(m, 1000000, h);
	free(m);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

/* Feeding the same message in pieces of every size 1..130 gives the
 * digest of the one-shot call (the partial-block path). */
static void test_sha256_pieces_equal_one_shot(void **state)
{
	uint8_t m[1000];
	for (size_t i = 0; i < sizeof(m); i++)
		m[i] = (uint8_t)(i * 131 + 7);
	char want[65], got[65];
	hex_of(m, sizeof(m), want);
	for (size_t piece = 1; piece <= 130; piece++) {
		struct xf_sha256 c;
		uint8_t d[XF_SHA256_LEN];
		xf_sha256_init(&c);
		for (size_t off = 0; off < sizeof(m); off += piece)
			xf_sha256_update(&c, m + off,
					 sizeof(m) - off < piece ? sizeof(m) - off : piece);
		xf_sha256_final(&c, d);
		xf_sha256_hex(d, got);
		assert_string_equal(got, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sha256_empty_string_vector),
		cmocka_unit_test(test_sha256_abc_vector),
		cmocka_unit_test(test_sha256_two_block_vector),
		cmocka_unit_test(test_sha256_million_a_vector),
		cmocka_unit_test(test_sha256_pieces_equal_one_shot),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
