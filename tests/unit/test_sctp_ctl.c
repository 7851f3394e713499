/* Unit tests: SCTP session-control codec and DDP-SSN framing
 * (RFC 5043 §5.2.1, §5.2.3; RFC 6581 §7). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <ddp/ddp.h>
#include "sctp/sctp_ctl.h"
#include "sctp/sctp_ssn.h"

/* Spec example (sctp-adaptation.md §3.2): Initiate, DDP-SSN 0, PD AB CD. */
static void test_ctl_encodes_initiate_example_bytes(void **st)
{
	static const uint8_t pd[] = { 0xab, 0xcd };
	static const uint8_t want[] = { 0, 0, 0, 1, 0xab, 0xcd };
	struct sctp_ctl_msg m = { .code = SCTP_CTL_INITIATE, .priv = pd,
				  .priv_len = 2 };
	uint8_t buf[SCTP_CTL_MAX_LEN];
	size_t n = 0;
	(void)st;
	assert_int_equal(sctp_ctl_encode(buf, sizeof(buf), &m, &n), 0);
	assert_int_equal(n, sizeof(want));
	assert_memory_equal(buf, want, n);
}

static void test_ctl_roundtrips_every_code(void **st)
{
	uint8_t pd[SCTP_CTL_MAX_PD], buf[SCTP_CTL_MAX_LEN];
	(void)st;
	for (size_t i = 0; i < sizeof(pd); i++)
		pd[i] = (uint8_t)(i * 7);
	for (unsigned code = 1; code <= 7; code++) {
		struct sctp_ctl_msg m = { .ssn = (uint16_t)(0xfff0 + code),
					  .code = (uint16_t)code, .priv = pd };
		struct sctp_ctl_msg d;
		enum sctp_ctl_why why;
		size_t n;
		int enh = code == 5 || code == 6;
		m.priv_len = code == SCTP_CTL_TERMINATE ? 0 : (enh ? 508 : 512);
		if (code == SCTP_CTL_TERMINATE)
			m.priv = NULL;
		m.ird_ord = (struct sctp_ird_ord){ 1, 0, 1, 1, 0x3fff, 0x1234 };
		assert_int_equal(sctp_ctl_encode(buf, sizeof(buf), &m, &n), 0);
		assert_int_equal(sctp_ctl_decode(&d, buf, n, &why), 0);
		assert_int_equal(why, SCTP_CTL_OK);
		assert_int_equal(d.ssn, m.ssn);
		assert_int_equal(d.code, code);
		assert_int_equal(d.priv_len, m.priv_len);
		assert_int_equal(d.has_ird_ord, enh);
		if (m.priv_len)
			assert_memory_equal(d.priv, pd, m.priv_len);
		if (enh) {
			assert_int_equal(d.ird_ord.ird, 0x3fff);
			assert_int_equal(d.ird_ord.ord, 0x1234);
			assert_int_equal(d.ird_ord.a, 1);
			assert_int_equal(d.ird_ord.b, 0);
			assert_int_equal(d.ird_ord.c, 1);
			assert_int_equal(d.ird_ord.d, 1);
		}
	}
}

/* RFC 6581 §7: IRD/ORD word bit layout A B IRD(14) C D ORD(14). */
static void test_ctl_ird_ord_word_layout(void **st)
{
	struct sctp_ctl_msg m = { .code = SCTP_CTL_ENH_ACCEPT };
	uint8_t buf[16];
	size_t n;
	(void)st;
	m.ird_ord = (struct sctp_ird_ord){ 1, 1, 0, 1, 0x0005, 0x0003 };
	assert_int_equal(sctp_ctl_encode(buf, sizeof(buf), &m, &n), 0);
	assert_int_equal(n, 8);
	assert_int_equal(buf[4], 0xc0);
	assert_int_equal(buf[5], 0x05);
	assert_int_equal(buf[6], 0x40);
	assert_int_equal(buf[7], 0x03);
}

static void test_ctl_rejects_short_message(void **st)
{
	static const uint8_t b[] = { 0, 0, 0 };
	struct sctp_ctl_msg d;
	enum sctp_ctl_why why;
	(void)st;
	for (size_t n = 0; n < 4; n++) {
		assert_int_equal(sctp_ctl_decode(&d, b, n < 3 ? n : 3, &why),
				 DDP_ERR_PROTO);
		assert_int_equal(why, SCTP_CTL_E_SHORT);
	}
}

static void test_ctl_rejects_unknown_codes(void **st)
{
	static const uint16_t bad[] = { 0, 8, 0x100, 0xffff };
	struct sctp_ctl_msg d;
	enum sctp_ctl_why why;
	(void)st;
	for (size_t i = 0; i < 4; i++) {
		uint8_t b[4] = { 0, 1, (uint8_t)(bad[i] >> 8), (uint8_t)bad[i] };
		assert_int_equal(sctp_ctl_decode(&d, b, 4, &why),
				 DDP_ERR_UNSUPPORTED);
		assert_int_equal(why, SCTP_CTL_E_UNKNOWN_CODE);
	}
}

/* RFC 5043 §5.2.3: private data <= 512 octets. */
static void test_ctl_rejects_oversize_private_data(void **st)
{
	uint8_t b[4 + 513] = { 0, 0, 0, 1 };
	struct sctp_ctl_msg d;
	enum sctp_ctl_why why;
	(void)st;
	assert_int_equal(sctp_ctl_decode(&d, b, 4 + 512, &why), 0);
	assert_int_equal(d.priv_len, 512);
	assert_int_equal(sctp_ctl_decode(&d, b, sizeof(b), &why),
			 DDP_ERR_TOOBIG);
	assert_int_equal(why, SCTP_CTL_E_PD_TOO_LONG);
	/* RFC 6581 §7: the IRD/ORD word counts toward the 512 */
	struct sctp_ctl_msg m = { .code = SCTP_CTL_ENH_INITIATE, .priv = b,
				  .priv_len = 509 };
	uint8_t out[600];
	size_t n;
	assert_int_equal(sctp_ctl_encode(out, sizeof(out), &m, &n),
			 DDP_ERR_TOOBIG);
	m.priv_len = 508;
	assert_int_equal(sctp_ctl_encode(out, sizeof(out), &m, &n), 0);
	assert_int_equal(n, 516);
	assert_int_equal(sctp_ctl_encode(out, 515, &m, &n), DDP_ERR_TOOBIG);
}

/* RFC 5043 §5.2.3: Terminate MUST NOT carry private data. */
static void test_ctl_rejects_private_data_on_terminate(void **st)
{
	static const uint8_t b[] = { 0, 9, 0, 4, 0x55 };
	uint8_t out[8];
	struct sctp_ctl_msg d, m = { .code = SCTP_CTL_TERMINATE, .priv = b,
				     .priv_len = 1 };
	enum sctp_ctl_why why;
	size_t n;
	(void)st;
	assert_int_equal(sctp_ctl_decode(&d, b, 5, &why), DDP_ERR_PROTO);
	assert_int_equal(why, SCTP_CTL_E_PD_ON_TERMINATE);
	assert_int_equal(sctp_ctl_decode(&d, b, 4, &why), 0);
	assert_int_equal(d.ssn, 9);
	assert_int_equal(d.code, SCTP_CTL_TERMINATE);
	assert_int_equal(sctp_ctl_encode(out, sizeof(out), &m, &n),
			 DDP_ERR_INVAL);
}

static void test_ctl_rejects_enhanced_without_ird_ord(void **st)
{
	static const uint8_t b[] = { 0, 0, 0, 5, 1, 2, 3 };
	struct sctp_ctl_msg d;
	enum sctp_ctl_why why;
	(void)st;
	assert_int_equal(sctp_ctl_decode(&d, b, sizeof(b), &why),
			 DDP_ERR_PROTO);
	assert_int_equal(why, SCTP_CTL_E_NO_IRD_ORD);
	/* Enhanced Reject: ULP data only, may be empty */
	static const uint8_t r[] = { 0, 0, 0, 7 };
	assert_int_equal(sctp_ctl_decode(&d, r, sizeof(r), &why), 0);
	assert_int_equal(d.has_ird_ord, 0);
	assert_int_equal(d.priv_len, 0);
}

/* RFC 5043 §5.2.1: DDP-SSN(2) then the DDP segment. */
static void test_seg_split_needs_whole_header(void **st)
{
	uint8_t m[2 + 18 + 3] = { 0x12, 0x34, 0x41 }; /* untagged, DV 1 */
	uint16_t ssn;
	const uint8_t *seg;
	size_t sl;
	(void)st;
	assert_int_equal(sctp_seg_prefix_len(0x41), 20);
	assert_int_equal(sctp_seg_prefix_len(0xc1), 16);
	assert_int_equal(sctp_seg_split(m, 19, &ssn, &seg, &sl), DDP_ERR_PROTO);
	assert_int_equal(sctp_seg_split(m, sizeof(m), &ssn, &seg, &sl), 0);
	assert_int_equal(ssn, 0x1234);
	assert_ptr_equal(seg, m + 2);
	assert_int_equal(sl, 21);
	m[2] = 0xc1; /* tagged: 14-octet header */
	assert_int_equal(sctp_seg_split(m, 16, &ssn, &seg, &sl), 0);
	assert_int_equal(sctp_seg_split(m, 15, &ssn, &seg, &sl), DDP_ERR_PROTO);
	assert_int_equal(sctp_seg_split(m, 2, &ssn, &seg, &sl), DDP_ERR_PROTO);
}

static void test_ssn_distance_wraps(void **st)
{
	uint8_t b[2];
	(void)st;
	sctp_ssn_put(b, 0xfffe);
	assert_int_equal(b[0], 0xff);
	assert_int_equal(b[1], 0xfe);
	assert_int_equal(sctp_ssn_get(b), 0xfffe);
	assert_int_equal(sctp_ssn_dist(0xfffe, 1), 3);
	assert_int_equal(sctp_ssn_dist(5, 5), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ctl_encodes_initiate_example_bytes),
		cmocka_unit_test(test_ctl_roundtrips_every_code),
		cmocka_unit_test(test_ctl_ird_ord_word_layout),
		cmocka_unit_test(test_ctl_rejects_short_message),
		cmocka_unit_test(test_ctl_rejects_unknown_codes),
		cmocka_unit_test(test_ctl_rejects_oversize_private_data),
		cmocka_unit_test(test_ctl_rejects_private_data_on_terminate),
		cmocka_unit_test(test_ctl_rejects_enhanced_without_ird_ord),
		cmocka_unit_test(test_seg_split_needs_whole_header),
		cmocka_unit_test(test_ssn_distance_wraps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
