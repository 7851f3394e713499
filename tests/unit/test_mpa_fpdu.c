/* MPA FPDU transmit framing and MULPDU (RFC 5044 §3, §4). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include <ddp/ddp.h>
#include "common/crc32c.h"
#include "mpa/mpa_fpdu.h"

/* flatten an FPDU's iovec */
static size_t flat(const mpa_fpdu *f, uint8_t *out)
{
	size_t n = 0;
	for (int i = 0; i < f->iovcnt; i++) {
		memcpy(out + n, f->iov[i].iov_base, f->iov[i].iov_len);
		n += f->iov[i].iov_len;
	}
	assert_int_equal(n, f->wire_len);
	return n;
}

static void send_hdr(uint8_t h[18], uint32_t qn, uint32_t msn, uint32_t mo)
{
	memset(h, 0, 18);
	h[0] = 0x41; /* T=0 L=1 DV=1 */
	h[1] = 0x43; /* RDMAP Send */
	for (int i = 0; i < 4; i++) {
		h[6 + i] = (uint8_t)(qn >> (24 - 8 * i));
		h[10 + i] = (uint8_t)(msn >> (24 - 8 * i));
		h[14 + i] = (uint8_t)(mo >> (24 - 8 * i));
	}
}

/* RFC 5044 §4.1 MULPDU formulas, §3 clamp; values from spec/mpa.md §3 */
static void test_mulpdu_formulas_and_clamp(void **state)
{
	assert_int_equal(mpa_mulpdu(1460, 0), 1454);
	assert_int_equal(mpa_mulpdu(1460, 1), 1442);
	assert_int_equal(mpa_mulpdu(1448, 0), 1442);
	assert_int_equal(mpa_mulpdu(1448, 1), 1430);
	assert_int_equal(mpa_mulpdu(8960, 0), 8954);
	assert_int_equal(mpa_mulpdu(8960, 1), 8882);
	assert_int_equal(mpa_mulpdu(536, 0), 530);
	assert_int_equal(mpa_mulpdu(536, 1), 522);
	assert_int_equal(mpa_mulpdu(128, 0), 128);
	assert_int_equal(mpa_mulpdu(128, 1), 128);
	assert_int_equal(mpa_mulpdu(0, 1), 128);
	assert_int_equal(mpa_mulpdu(65495, 0), 64768);
	assert_int_equal(mpa_mulpdu(65495, 1), 64768);
}

/* RFC 5044 Figure 5: first FPDU of the stream, starts with a marker */
static void test_framer_builds_rfc5044_figure5(void **state)
{
	static const uint8_t expect_crc[4] = { 0x52, 0x23, 0x99, 0x83 };
	uint8_t h[18], zero[24] = { 0 }, out[128];
	mpa_tx_stream t = { .pos = 0, .markers = 1, .crc = 1 };
	mpa_fpdu *f;

	send_hdr(h, 0, 1, 0);
	struct iovec iov[2] = { { h, 18 }, { zero, 24 } };
	assert_int_equal(mpa_fpdu_build(&t, iov, 2, 42, &f), 0);
	size_t n = flat(f, out);
	assert_int_equal(n, 52);
	assert_int_equal(t.pos, 52);
	static const uint8_t start[6] = { 0, 0, 0, 0, 0x00, 0x2a };
	assert_memory_equal(out, start, 6);
	assert_memory_equal(out + 6, h, 18);
	assert_memory_equal(out + 24, zero, 24);
	assert_memory_equal(out + 48, expect_crc, 4);
	free(f);
}

/* RFC 5044 Figure 6: FPDU at stream offset 0x1ec, marker inside */
static void test_framer_builds_rfc5044_figure6(void **state)
{
	static const uint8_t expect_crc[4] = { 0x84, 0x92, 0x58, 0x98 };
	static const uint8_t marker[4] = { 0, 0, 0x00, 0x14 };
	uint8_t h[18], zero[24] = { 0 }, out[128];
	mpa_tx_stream t = { .pos = 0x1ec, .markers = 1, .crc = 1 };
	mpa_fpdu *f;

	send_hdr(h, 0, 2, 0);
	struct iovec iov[2] = { { h, 18 }, { zero, 24 } };
	assert_int_equal(mpa_fpdu_build(&t, iov, 2, 42, &f), 0);
	size_t n = flat(f, out);
	assert_int_equal(n, 0x220 - 0x1ec);
	assert_int_equal(out[0], 0x00);
	assert_int_equal(out[1], 0x2a);
	assert_memory_equal(out + 2, h, 18);
	assert_memory_equal(out + 0x200 - 0x1ec, marker, 4);
	assert_memory_equal(out + 0x204 - 0x1ec, zero, 24);
	assert_memory_equal(out + 0x21c - 0x1ec, expect_crc, 4);
	free(f);
}

static void check_vector(const uint8_t *hdr, size_t hl, const void *pl,
			 size_t pn, const uint8_t *expect, size_t en)
{
	uint8_t out[128];
	mpa_tx_stream t = { .markers = 0, .crc = 1 };
	mpa_fpdu *f;
	struct iovec iov[2] = { { (void *)(uintptr_t)hdr, hl },
				{ (void *)(uintptr_t)pl, pn } };

	assert_int_equal(mpa_fpdu_build(&t, iov, pn ? 2 : 1, hl + pn, &f), 0);
	assert_int_equal(flat(f, out), en);
	assert_memory_equal(out, expect, en);
	/* no payload copy: the payload iov points at the caller's memory */
	if (pn) {
		int found = 0;
		for (int i = 0; i < f->iovcnt; i++)
			found |= f->iov[i].iov_base == pl;
		assert_true(found);
	}
	free(f);
}

/* spec/mpa.md §8.3 extra vectors (markers off) */
static void test_framer_builds_spec_extra_vectors(void **state)
{
	uint8_t h[18], zero[24] = { 0 }, e[80];

	/* Fig. 5 without the marker */
	send_hdr(h, 0, 1, 0);
	e[0] = 0x00; e[1] = 0x2a;
	memcpy(e + 2, h, 18);
	memset(e + 20, 0, 24);
	e[44] = 0xb7; e[45] = 0x24; e[46] = 0x3e; e[47] = 0xc3;
	check_vector(h, 18, zero, 24, e, 48);

	/* RDMA Write STag 0x1200 TO 0x1000 "ABCD" (PAD 2: 2+18 = 20) */
	static const uint8_t w_hdr[14] = { 0xc1, 0x40, 0x00, 0x00, 0x12, 0x00,
		0, 0, 0, 0, 0, 0, 0x10, 0x00 };
	static const uint8_t w_fpdu[24] = { 0x00, 0x12, 0xc1, 0x40, 0x00, 0x00,
		0x12, 0x00, 0, 0, 0, 0, 0, 0, 0x10, 0x00, 0x41, 0x42, 0x43,
		0x44, 0x10, 0x85, 0x02, 0x38 };
	check_vector(w_hdr, 14, "ABCD", 4, w_fpdu, 24);

	/* zero-length Send QN 0 MSN 1 */
	static const uint8_t s_fpdu[24] = { 0x00, 0x12, 0x41, 0x43, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0x58, 0x7b, 0xe8, 0xc4 };
	check_vector(s_fpdu + 2, 18, NULL, 0, s_fpdu, 24);

	/* zero-length RDMA Read Request */
	uint8_t rr[52];
	memset(rr, 0, sizeof rr);
	rr[1] = 0x2e; rr[2] = 0x41; rr[3] = 0x41;
	rr[11] = 1; rr[15] = 1; /* QN 1, MSN 1 */
	rr[23] = 1;		/* sink STag 1 */
	rr[39] = 1;		/* src STag 1 */
	rr[48] = 0x27; rr[49] = 0xdb; rr[50] = 0xd7; rr[51] = 0xe7;
	check_vector(rr + 2, 18, rr + 20, 28, rr, 52);
}

/* RFC 5044 §4.3: markers at every 512 octets of the stream, FPDUPTR
 * pointing back at the containing FPDU's ULPDU_Length, 0 between FPDUs */
static void test_framer_markers_every_512_with_correct_fpduptr(void **state)
{
	static uint8_t payload[3000], out[8192];
	uint8_t h[18];
	mpa_tx_stream t = { .markers = 1, .crc = 1 };
	size_t total = 0;
	uint64_t starts[16];
	int nf = 0;

	for (size_t i = 0; i < sizeof payload; i++)
		payload[i] = (uint8_t)(i * 13 + 1);
	size_t sizes[] = { 100, 1000, 0, 490, 2000, 3 };
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		mpa_fpdu *f;
		send_hdr(h, 0, (uint32_t)k + 1, 0);
		struct iovec iov[3] = { { h, 18 }, { payload, sizes[k] / 2 },
					{ payload + sizes[k] / 2,
					  sizes[k] - sizes[k] / 2 } };
		uint64_t p0 = t.pos;
		assert_int_equal(mpa_fpdu_build(&t, iov, 3, 18 + sizes[k], &f), 0);
		assert_int_equal(f->wire_len % 4, 0);
		starts[nf++] = p0 % 512 == 0 ? p0 + 4 : p0;
		total += flat(f, out + total);
		free(f);
	}
	assert_int_equal(total, t.pos);
	for (size_t m = 0; m < total; m += 512) {
		uint16_t ptr = (uint16_t)(out[m + 2] << 8 | out[m + 3]);
		assert_int_equal(out[m], 0);
		assert_int_equal(out[m + 1], 0);
		/* find the FPDU containing m */
		uint64_t owner = 0;
		int between = 0;
		for (int i = 0; i < nf; i++) {
			if (starts[i] == m + 4)
				between = 1;
			if (starts[i] <= m)
				owner = starts[i];
		}
		if (between)
			assert_int_equal(ptr, 0);
		else
			assert_int_equal(ptr, m - owner);
	}
	assert_int_equal(out[0], 0);
	assert_int_equal(out[3], 0); /* first marker is 0 */
}

static void test_framer_crc_off_writes_zero_and_rejects_bad_args(void **state)
{
	uint8_t h[18], out[64];
	mpa_tx_stream t = { .markers = 0, .crc = 0 };
	mpa_fpdu *f;

	send_hdr(h, 0, 1, 0);
	struct iovec iov[2] = { { h, 18 }, { "xy", 2 } };
	assert_int_equal(mpa_fpdu_build(&t, iov, 2, 20, &f), 0);
	size_t n = flat(f, out);
	assert_int_equal(n, 28); /* 2 + 20 + 2 pad + 4 */
	assert_int_equal(out[22], 0); /* PAD zero */
	assert_int_equal(out[23], 0);
	assert_int_equal(ddp_crc32c_get_wire(out + 24), 0);
	free(f);

	assert_int_equal(mpa_fpdu_build(&t, iov, 2, 21, &f), DDP_ERR_INVAL);
	iov[0].iov_len = 10;
	assert_int_equal(mpa_fpdu_build(&t, iov, 2, 12, &f), DDP_ERR_INVAL);
	iov[0].iov_len = 14; /* untagged ctrl octet with a 14-octet header */
	assert_int_equal(mpa_fpdu_build(&t, iov, 2, 16, &f), DDP_ERR_INVAL);
	assert_int_equal(mpa_fpdu_build(&t, iov, 0, 0, &f), DDP_ERR_INVAL);
	static uint8_t big[64768];
	struct iovec b[2] = { { h, 18 }, { big, sizeof big } };
	assert_int_equal(mpa_fpdu_build(&t, b, 2, 18 + sizeof big, &f),
			 DDP_ERR_TOOBIG);
}

/* mpa_fpdu_build_in frames into the caller's memory exactly what
 * mpa_fpdu_build frames into its own, within mpa_fpdu_size() octets, and
 * leaves the memory alone on bad arguments. */
static void test_framer_build_in_matches_build(void **state)
{
	static uint8_t payload[3000], a[4000], b[4000];
	uint8_t h[18];
	for (size_t i = 0; i < sizeof payload; i++)
		payload[i] = (uint8_t)(i * 7 + 3);
	for (int mode = 0; mode < 4; mode++) {
		mpa_tx_stream t1 = { .markers = mode & 1, .crc = mode >> 1 };
		mpa_tx_stream t2 = t1;
		size_t sizes[] = { 0, 1, 3, 511, 1436, 2999 };
		for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
			send_hdr(h, 0, (uint32_t)k + 1, 0);
			struct iovec iov[2] = { { h, 18 }, { payload, sizes[k] } };
			mpa_fpdu *f, *g;
			size_t need = mpa_fpdu_size(&t2, 2, 18 + sizes[k]);
			uint8_t *mem = malloc(need);
			assert_non_null(mem);
			assert_int_equal(mpa_fpdu_build(&t1, iov, 2, 18 + sizes[k], &f), 0);
			assert_int_equal(mpa_fpdu_build_in(&t2, iov, 2, 18 + sizes[k], mem, &g), 0);
			assert_ptr_equal(g, mem);
			assert_true((uint8_t *)(g->iov + g->iovcnt) <= mem + need);
			assert_int_equal(g->wire_len, f->wire_len);
			assert_int_equal(t1.pos, t2.pos);
			size_t la = flat(f, a), lb = flat(g, b);
			assert_int_equal(la, lb);
			assert_memory_equal(a, b, la);
			free(f);
			free(mem);
		}
	}
	mpa_tx_stream t = { .crc = 1 };
	uint8_t mem[512];
	memset(mem, 0x5a, sizeof mem);
	struct iovec bad[2] = { { h, 18 }, { payload, 10 } };
	mpa_fpdu *f;
	assert_int_equal(mpa_fpdu_build_in(&t, bad, 2, 27, mem, &f), DDP_ERR_INVAL);
	for (size_t i = 0; i < sizeof mem; i++)
		assert_int_equal(mem[i], 0x5a);
	assert_int_equal(t.pos, 0);
}

/* The FPDU pool reuses a block given back, keeps at most
 * MPA_FPDU_POOL_MAX, and hands FPDUs too big for a block (markers on a
 * long ULPDU) to malloc; drain frees every spare block. */
static void test_fpdu_pool_reuses_blocks(void **state)
{
	static uint8_t payload[8000];
	uint8_t h[18];
	mpa_fpdu_pool pool = { 0 };
	mpa_tx_stream t = { .crc = 1 };
	send_hdr(h, 0, 1, 0);
	struct iovec iov[2] = { { h, 18 }, { payload, 1424 } };
	mpa_fpdu *a, *b;
	assert_int_equal(mpa_fpdu_pool_build(&pool, &t, iov, 2, 18 + 1424, &a), 0);
	assert_true(a->pooled);
	mpa_fpdu_pool_put(&pool, a);
	assert_int_equal(mpa_fpdu_pool_build(&pool, &t, iov, 2, 18 + 1424, &b), 0);
	assert_ptr_equal(a, b);
	assert_int_equal(pool.alive, 1);
	mpa_fpdu_pool_put(&pool, b);
	mpa_tx_stream tm = { .markers = 1, .crc = 1 };
	iov[1].iov_len = sizeof payload;
	assert_int_equal(mpa_fpdu_pool_build(&pool, &tm, iov, 2, 18 + sizeof payload, &a), 0);
	assert_false(a->pooled);
	mpa_fpdu_pool_put(&pool, a);
	assert_int_equal(pool.alive, 1);
	/* past the cap blocks are freed, not kept */
	mpa_fpdu *many[MPA_FPDU_POOL_MAX + 8];
	iov[1].iov_len = 100;
	for (int i = 0; i < MPA_FPDU_POOL_MAX + 8; i++)
		assert_int_equal(mpa_fpdu_pool_build(&pool, &t, iov, 2, 118, &many[i]), 0);
	assert_int_equal(pool.alive, MPA_FPDU_POOL_MAX + 8);
	for (int i = 0; i < MPA_FPDU_POOL_MAX + 8; i++)
		mpa_fpdu_pool_put(&pool, many[i]);
	assert_true(pool.alive <= MPA_FPDU_POOL_MAX + 1);
	mpa_fpdu_pool_drain(&pool);
	assert_int_equal(pool.alive, 0);
	assert_null(pool.free);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mulpdu_formulas_and_clamp),
		cmocka_unit_test(test_framer_builds_rfc5044_figure5),
		cmocka_unit_test(test_framer_builds_rfc5044_figure6),
		cmocka_unit_test(test_framer_builds_spec_extra_vectors),
		cmocka_unit_test(test_framer_markers_every_512_with_correct_fpduptr),
		cmocka_unit_test(test_framer_crc_off_writes_zero_and_rejects_bad_args),
		cmocka_unit_test(test_framer_build_in_matches_build),
		cmocka_unit_test(test_fpdu_pool_reuses_blocks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
