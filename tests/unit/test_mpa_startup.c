/* MPA start-up codec, parser and negotiation (RFC 5044 §7.1, RFC 6581). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include <ddp/ddp.h>
#include "mpa/mpa_rtr.h"
#include "mpa/mpa_startup.h"

/* spec/mpa.md §1 example frames */
static const uint8_t req_rev1_crc[] = {
	0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x71, 0x20, 0x46,
	0x72, 0x61, 0x6D, 0x65, 0x40, 0x01, 0x00, 0x00,
};
static const uint8_t req_rev2_ird16[] = {
	0x4D, 0x50, 0x41, 0x20, 0x49, 0x44, 0x20, 0x52, 0x65, 0x71, 0x20, 0x46,
	0x72, 0x61, 0x6D, 0x65, 0x10, 0x02, 0x00, 0x04, 0x00, 0x10, 0x00, 0x10,
};

static void test_encode_matches_spec_rev1_request(void **state)
{
	mpa_local l = { .rev = 1, .crc = 1 };
	mpa_frame f;
	uint8_t out[64];
	size_t len;

	assert_int_equal(mpa_build_request(&l, &f), 0);
	assert_int_equal(mpa_frame_encode(&f, out, sizeof out, &len), 0);
	assert_int_equal(len, sizeof req_rev1_crc);
	assert_memory_equal(out, req_rev1_crc, len);
}

/* RFC 6581 §6.1: enhanced word with IRD/ORD 14 bit */
static void test_encode_matches_spec_rev2_enhanced_request(void **state)
{
	mpa_local l = { .rev = 2, .crc = 0, .ird = 16, .ord = 16 };
	mpa_frame f;
	uint8_t out[64];
	size_t len;

	assert_int_equal(mpa_build_request(&l, &f), 0);
	assert_int_equal(mpa_frame_encode(&f, out, sizeof out, &len), 0);
	assert_int_equal(len, sizeof req_rev2_ird16);
	assert_memory_equal(out, req_rev2_ird16, len);
}

static void test_encode_rejects_oversize_pd_and_small_buffer(void **state)
{
	static uint8_t pd[600];
	mpa_frame f = { .rev = 1, .priv = pd, .priv_len = 513 };
	uint8_t out[700];
	size_t len;

	assert_int_equal(mpa_frame_encode(&f, out, sizeof out, &len), DDP_ERR_INVAL);
	f.priv_len = 512;
	assert_int_equal(mpa_frame_encode(&f, out, sizeof out, &len), 0);
	assert_int_equal(len, 532);
	f.rev = 2;
	f.enhanced = 1; /* 512 + 4 > 512 */
	assert_int_equal(mpa_frame_encode(&f, out, sizeof out, &len), DDP_ERR_INVAL);
	f.priv_len = 508;
	assert_int_equal(mpa_frame_encode(&f, out, 100, &len), DDP_ERR_LIMIT);
	f.rev = 0;
	assert_int_equal(mpa_frame_encode(&f, out, sizeof out, &len), DDP_ERR_INVAL);
}

static int feed_pieces(mpa_startup_parser *p, const uint8_t *b, size_t n,
		       size_t piece)
{
	int rc = DDP_ERR_NEED_MORE;
	size_t off = 0;

	while (off < n) {
		size_t k = n - off < piece ? n - off : piece, used;
		rc = mpa_sp_feed(p, b + off, k, &used);
		if (rc != DDP_ERR_NEED_MORE)
			return rc;
		assert_int_equal(used, k);
		off += k;
	}
	return rc;
}

static void test_parser_survives_one_byte_pieces(void **state)
{
	uint8_t pd[] = { 1, 2, 3, 4, 5 };
	mpa_frame f = { .reply = 1, .rev = 2, .enhanced = 1, .p2p = 1,
			.rtr = MPA_RTR_WRITE | MPA_RTR_SEND, .ird = 0x3FFF,
			.ord = 7, .flags = MPA_FLAG_M | MPA_FLAG_C,
			.priv = pd, .priv_len = 5 };
	uint8_t out[64];
	size_t len;
	mpa_startup_parser p;

	assert_int_equal(mpa_frame_encode(&f, out, sizeof out, &len), 0);
	for (size_t piece = 1; piece <= len; piece++) {
		mpa_sp_init(&p, 1, 0);
		assert_int_equal(feed_pieces(&p, out, len, piece), 0);
		assert_int_equal(p.state, MPA_SP_DONE);
		assert_true(p.frame.reply);
		assert_true(p.frame.enhanced);
		assert_true(p.frame.p2p);
		assert_int_equal(p.frame.rtr, MPA_RTR_WRITE | MPA_RTR_SEND);
		assert_int_equal(p.frame.ird, 0x3FFF);
		assert_int_equal(p.frame.ord, 7);
		assert_int_equal(p.frame.flags & (MPA_FLAG_M | MPA_FLAG_C),
				 MPA_FLAG_M | MPA_FLAG_C);
		assert_int_equal(p.frame.priv_len, 5);
		assert_memory_equal(p.frame.priv, pd, 5);
	}
	assert_string_equal(mpa_sp_state_name(MPA_SP_DONE), "DONE");
	assert_string_equal(mpa_sp_state_name((enum mpa_sp_state)99), "?");
}

static void expect_bad(const uint8_t *b, size_t n, int expect_reply,
		       uint16_t cap)
{
	mpa_startup_parser p;
	size_t used;

	mpa_sp_init(&p, expect_reply, cap);
	assert_int_equal(mpa_sp_feed(&p, b, n, &used), DDP_ERR_PROTO);
	assert_int_equal(p.state, MPA_SP_ERROR);
	/* RFC 5044 §8: invalid Request/Reply -> code 0x04 */
	assert_int_equal(p.ecode, DDP_MPA_ECODE_BAD_FRAME);
	assert_non_null(p.why);
	/* sticky */
	assert_int_equal(mpa_sp_feed(&p, b, n, &used), DDP_ERR_PROTO);
	assert_int_equal(used, 0);
}

/* RFC 5044 §7.1.1: bad key; Req vs Rep detects initiator/initiator */
static void test_parser_rejects_bad_and_wrong_keys(void **state)
{
	uint8_t b[24];

	memcpy(b, req_rev1_crc, 20);
	b[3] = 'X';
	expect_bad(b, 20, 0, 0);
	expect_bad(req_rev1_crc, 20, 1, 0); /* initiator got a Request */
	memcpy(b, req_rev1_crc, 20);
	b[10] = 0x70; /* Reply key to a responder */
	expect_bad(b, 20, 0, 0);
}

/* RFC 5044 §7.1.2: Rev checked; we refuse 0 and > 2 */
static void test_parser_rejects_revision_0_and_3(void **state)
{
	uint8_t b[20];

	memcpy(b, req_rev1_crc, 20);
	b[17] = 0;
	expect_bad(b, 20, 0, 0);
	b[17] = 3;
	expect_bad(b, 20, 0, 0);
}

/* RFC 5044 §7.1: PD_Length > 512 (or our cap) is improperly formatted */
static void test_parser_rejects_oversize_pd_length(void **state)
{
	uint8_t b[20];

	memcpy(b, req_rev1_crc, 20);
	b[18] = 0x02;
	b[19] = 0x01; /* 513 */
	expect_bad(b, 20, 0, 0);
	b[18] = 0x01;
	b[19] = 0x01; /* 257 with cap 256 */
	expect_bad(b, 20, 0, 256);
	b[18] = 0x00;
	b[19] = 0x02; /* enhanced with PD_Length 2 */
	b[16] = MPA_FLAG_S;
	b[17] = 2;
	expect_bad(b, 20, 0, 0);
}

/* spec §2: octets after a start-up frame are a protocol error */
static void test_parser_rejects_bytes_after_frame(void **state)
{
	uint8_t b[21];

	memcpy(b, req_rev1_crc, 20);
	b[20] = 0;
	expect_bad(b, 21, 0, 0);
}

static void test_parser_ignores_res_bits_and_r_in_request(void **state)
{
	uint8_t b[20];
	mpa_startup_parser p;
	size_t used;

	memcpy(b, req_rev1_crc, 20);
	b[16] |= 0x0F | MPA_FLAG_R | MPA_FLAG_S; /* S ignored with Rev 1 */
	mpa_sp_init(&p, 0, 0);
	assert_int_equal(mpa_sp_feed(&p, b, 20, &used), 0);
	assert_int_equal(p.frame.flags & MPA_FLAG_R, 0);
	assert_false(p.frame.enhanced);
	assert_int_equal(p.frame.rev, 1);
}

/* RFC 5044 §7.1: markers per direction; CRC when either side asks */
static void test_negotiation_markers_per_direction_crc_either(void **state)
{
	mpa_local ini = { .rev = 1, .markers = 1, .crc = 0 };
	mpa_local rsp = { .rev = 1, .markers = 0, .crc = 1 };
	mpa_frame req, rep;
	mpa_result ri, rr;
	uint8_t ec;

	assert_int_equal(mpa_build_request(&ini, &req), 0);
	assert_int_equal(mpa_respond(&rsp, &req, &rep, &rr), 0);
	assert_int_equal(mpa_check_reply(&ini, &req, &rep, &ri, &ec), 0);
	assert_true(rr.tx_markers);
	assert_false(rr.rx_markers);
	assert_false(ri.tx_markers);
	assert_true(ri.rx_markers);
	assert_true(ri.crc);
	assert_true(rr.crc);
	assert_int_equal(ri.rev, 1);
}

/* RFC 6581 §6.2: plain Request gets a plain Reply; Rev echoed */
static void test_negotiation_plain_request_to_rev2_responder(void **state)
{
	mpa_local ini = { .rev = 1, .crc = 1 };
	mpa_local rsp = { .rev = 2, .crc = 1, .ird = 4, .ord = 4 };
	mpa_frame req, rep;
	mpa_result rr;

	assert_int_equal(mpa_build_request(&ini, &req), 0);
	assert_int_equal(mpa_respond(&rsp, &req, &rep, &rr), 0);
	assert_false(rep.enhanced);
	assert_int_equal(rep.rev, 1);
	assert_false(rr.enhanced);
}

/* RFC 6581 §9.1 IRD/ORD negotiation */
static void test_negotiation_ird_ord(void **state)
{
	mpa_local ini = { .rev = 2, .crc = 1, .ird = 2, .ord = 8 };
	mpa_local rsp = { .rev = 2, .crc = 1, .ird = 4, .ord = 16 };
	mpa_frame req, rep;
	mpa_result ri, rr;
	uint8_t ec;

	assert_int_equal(mpa_build_request(&ini, &req), 0);
	assert_int_equal(mpa_respond(&rsp, &req, &rep, &rr), 0);
	assert_int_equal(rep.ord, 2); /* responder ORD <= initiator IRD */
	assert_int_equal(rep.ird, 4);
	assert_int_equal(rr.peer_ird, 2);
	assert_int_equal(rr.peer_ord, 8);
	assert_int_equal(mpa_check_reply(&ini, &req, &rep, &ri, &ec), 0);
	assert_int_equal(ri.ord, 4); /* initiator ORD <= responder IRD */
	assert_int_equal(ri.ird, 2);
	assert_int_equal(ri.peer_ird, 4);
	assert_int_equal(ri.peer_ord, 2);

	/* a responder ORD above our IRD: TERM 2/0/6 */
	rep.ord = 3;
	assert_int_equal(mpa_check_reply(&ini, &req, &rep, &ri, &ec), DDP_ERR_PROTO);
	assert_int_equal(ec, DDP_MPA_ECODE_IRD);
}

/* RFC 6581 §9.1: 0x3FFF switches automatic negotiation off */
static void test_negotiation_3fff_means_no_negotiation(void **state)
{
	mpa_local ini = { .rev = 2, .ird = 0x3FFF, .ord = 0x3FFF };
	mpa_local rsp = { .rev = 2, .ird = 5, .ord = 6 };
	mpa_frame req, rep;
	mpa_result ri, rr;
	uint8_t ec;

	assert_int_equal(mpa_build_request(&ini, &req), 0);
	assert_int_equal(mpa_respond(&rsp, &req, &rep, &rr), 0);
	assert_int_equal(rep.ird, 0x3FFF);
	assert_int_equal(rep.ord, 0x3FFF);
	assert_int_equal(rr.ird, 5);
	assert_int_equal(rr.ord, 6);
	assert_int_equal(mpa_check_reply(&ini, &req, &rep, &ri, &ec), 0);
	assert_int_equal(ri.ird, 0x3FFF);
	assert_int_equal(ri.ord, 0x3FFF);
}

/* RFC 6581 §9.2-9.3: A echoed, RTR kinds, no match */
static void test_negotiation_p2p_rtr_choice(void **state)
{
	mpa_local ini = { .rev = 2, .p2p = 1, .rtr = MPA_RTR_READ | MPA_RTR_SEND,
			  .ird = 1, .ord = 1 };
	mpa_local rsp = { .rev = 2, .rtr = MPA_RTR_READ | MPA_RTR_WRITE,
			  .ird = 1, .ord = 1 };
	mpa_frame req, rep;
	mpa_result ri, rr;
	uint8_t ec;

	assert_int_equal(mpa_build_request(&ini, &req), 0);
	assert_true(req.p2p);
	assert_int_equal(mpa_respond(&rsp, &req, &rep, &rr), 0);
	assert_true(rep.p2p); /* MUST echo A */
	assert_int_equal(rep.rtr, MPA_RTR_READ);
	assert_int_equal(mpa_check_reply(&ini, &req, &rep, &ri, &ec), 0);
	assert_true(ri.p2p);
	assert_int_equal(ri.rtr, MPA_RTR_READ);

	/* responder supports none of the offered kinds: proposes its own */
	rsp.rtr = MPA_RTR_WRITE;
	assert_int_equal(mpa_respond(&rsp, &req, &rep, &rr), 0);
	assert_int_equal(rep.rtr, MPA_RTR_WRITE);
	assert_int_equal(mpa_check_reply(&ini, &req, &rep, &ri, &ec), DDP_ERR_PROTO);
	assert_int_equal(ec, DDP_MPA_ECODE_NO_RTR);

	/* A not echoed */
	rep.p2p = 0;
	assert_int_equal(mpa_check_reply(&ini, &req, &rep, &ri, &ec), DDP_ERR_PROTO);
	assert_int_equal(ec, DDP_MPA_ECODE_NO_RTR);
}

static void test_check_reply_reject_and_bad_revision(void **state)
{
	mpa_local ini = { .rev = 1, .crc = 1 };
	mpa_local rsp = { .rev = 1 };
	mpa_frame req, rep;
	mpa_result ri;
	uint8_t ec;

	assert_int_equal(mpa_build_request(&ini, &req), 0);
	assert_int_equal(mpa_build_reject(&rsp, &req, &rep), 0);
	assert_int_equal(mpa_check_reply(&ini, &req, &rep, &ri, &ec), DDP_ERR_REJECTED);
	rep.flags &= (uint8_t)~MPA_FLAG_R;
	rep.rev = 2;
	assert_int_equal(mpa_check_reply(&ini, &req, &rep, &ri, &ec), DDP_ERR_PROTO);
	assert_int_equal(ec, DDP_MPA_ECODE_BAD_FRAME);
}

/* RFC 6581 §9.2: the three RTR messages, byte-exact against the vectors of
 * spec/mpa.md §8.3 (zero-length Send QN 0 MSN 1; zero-length Read Request
 * QN 1 MSN 1, sink and source STag 1, size 0) and siw's zero-length Write
 * (STag 1, TO 0). */
static void test_rtr_messages_are_byte_exact(void **state)
{
	static const uint8_t send[18] = { 0x41, 0x43, 0, 0, 0, 0, 0, 0, 0, 0,
					  0, 0, 0, 1, 0, 0, 0, 0 };
	static const uint8_t read_hdr[18] = { 0x41, 0x41, 0, 0, 0, 0, 0, 0, 0, 1,
					      0, 0, 0, 1, 0, 0, 0, 0 };
	static const uint8_t read_pay[28] = { 0, 0, 0, 1, 0, 0, 0, 0, 0, 0,
					      0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
					      0, 0, 0, 0, 0, 0, 0, 0 };
	static const uint8_t write[14] = { 0xc1, 0x40, 0, 0, 0, 1, 0,
					   0, 0, 0, 0, 0, 0, 0 };
	uint8_t hdr[18], pay[MPA_RTR_READ_PAYLOAD];
	size_t hl, pl;

	memset(pay, 0xEE, sizeof(pay));
	assert_int_equal(mpa_rtr_build(MPA_RTR_SEND, hdr, &hl, pay, &pl), 0);
	assert_int_equal(hl, 18);
	assert_int_equal(pl, 0);
	assert_memory_equal(hdr, send, 18);
	assert_int_equal(mpa_rtr_match(MPA_RTR_ALL, hdr, hl, pl), MPA_RTR_SEND);

	assert_int_equal(mpa_rtr_build(MPA_RTR_READ, hdr, &hl, pay, &pl), 0);
	assert_int_equal(hl, 18);
	assert_int_equal(pl, MPA_RTR_READ_PAYLOAD);
	assert_memory_equal(hdr, read_hdr, 18);
	assert_memory_equal(pay, read_pay, sizeof(read_pay));
	assert_int_equal(mpa_rtr_match(MPA_RTR_ALL, hdr, hl, pl), MPA_RTR_READ);

	assert_int_equal(mpa_rtr_build(MPA_RTR_WRITE, hdr, &hl, pay, &pl), 0);
	assert_int_equal(hl, 14);
	assert_int_equal(pl, 0);
	assert_memory_equal(hdr, write, 14);
	assert_int_equal(mpa_rtr_match(MPA_RTR_ALL, hdr, hl, pl), MPA_RTR_WRITE);

	assert_int_equal(mpa_rtr_build(0x80, hdr, &hl, pay, &pl), DDP_ERR_INVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encode_matches_spec_rev1_request),
		cmocka_unit_test(test_encode_matches_spec_rev2_enhanced_request),
		cmocka_unit_test(test_encode_rejects_oversize_pd_and_small_buffer),
		cmocka_unit_test(test_parser_survives_one_byte_pieces),
		cmocka_unit_test(test_parser_rejects_bad_and_wrong_keys),
		cmocka_unit_test(test_parser_rejects_revision_0_and_3),
		cmocka_unit_test(test_parser_rejects_oversize_pd_length),
		cmocka_unit_test(test_parser_rejects_bytes_after_frame),
		cmocka_unit_test(test_parser_ignores_res_bits_and_r_in_request),
		cmocka_unit_test(test_negotiation_markers_per_direction_crc_either),
		cmocka_unit_test(test_negotiation_plain_request_to_rev2_responder),
		cmocka_unit_test(test_negotiation_ird_ord),
		cmocka_unit_test(test_negotiation_3fff_means_no_negotiation),
		cmocka_unit_test(test_negotiation_p2p_rtr_choice),
		cmocka_unit_test(test_check_reply_reject_and_bad_revision),
		cmocka_unit_test(test_rtr_messages_are_byte_exact),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
