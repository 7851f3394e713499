/* Unit tests: the wire form of the path MTU probes (adapters/sctp/udp/
 * sctp_udp_probe.c, RFC 8899 §6.2.1.2): a probe built to a size, and the
 * parse of its HEARTBEAT ACK as the peer echoes it (RFC 9260 §3.3.6: the
 * Heartbeat Info TLV as sent), with every malformed or foreign variant.
 * The parser reports what the acknowledgement says; whether it answers
 * the probe in flight (tag, nonce, sequence) is decided by the caller,
 * so a wrong tag or nonce must come out as read. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <string.h>

#include "common/crc32c.h"
#include "sctp/udp/sctp_udp_probe.h"

static const struct sctp_probe pr = {.sport = 5001,
                                     .dport = 5002,
                                     .vtag = 0x11223344u,
                                     .size = 1300,
                                     .seq = 7,
                                     .nonce = 0x0102030405060708ull};

static uint32_t get16(const uint8_t *p)
{
	uint16_t n;
	memcpy(&n, p, 2);
	return ntohs(n);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t n;
	memcpy(&n, p, 4);
	return ntohl(n);
}

static void put16(uint8_t *p, uint32_t v)
{
	uint16_t n = htons((uint16_t)v);
	memcpy(p, &n, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	uint32_t n = htonl(v);
	memcpy(p, &n, 4);
}

/* The peer's answer to a probe: ports swapped, our own tag (the one the
 * peer uses towards us), the HEARTBEAT's TLV echoed in a HEARTBEAT ACK;
 * the PAD chunk is not echoed. Returns its length. */
static size_t echo(uint8_t *ack, const uint8_t *probe, uint32_t own)
{
	memcpy(ack, probe + 2, 2);
	memcpy(ack + 2, probe, 2);
	put32(ack + 4, own);
	memset(ack + 8, 0, 4);
	memcpy(ack + 12, probe + 12, SCTP_PROBE_HB_LEN);
	ack[12] = 5; /* HEARTBEAT ACK */
	return 12 + SCTP_PROBE_HB_LEN;
}

static void test_probe_layout(void **st)
{
	static uint8_t b[1272];
	(void)st;
	assert_int_equal(sctp_probe_build(b, sizeof(b), &pr), sizeof(b));
	assert_int_equal(get16(b), 5001);
	assert_int_equal(get16(b + 2), 5002);
	assert_int_equal(get32(b + 4), 0x11223344u);
	/* HEARTBEAT, then Heartbeat Info (RFC 9260 §3.3.5) with our marker */
	assert_int_equal(b[12], 4);
	assert_int_equal(get16(b + 14), SCTP_PROBE_HB_LEN);
	assert_int_equal(get16(b + 16), 1);
	assert_int_equal(get16(b + 18), 24);
	assert_int_equal(get32(b + 20), SCTP_PROBE_MARKER);
	assert_int_equal(get32(b + 24), 1300);
	assert_int_equal(get32(b + 28), 7);
	/* PAD (RFC 4820) fills the rest exactly */
	assert_int_equal(b[40], 0x84);
	assert_int_equal(get16(b + 42), sizeof(b) - 40);
	/* CRC32c over the packet with the checksum field zero (RFC 9260 §6.8) */
	uint8_t crc[4];
	memcpy(crc, b + 8, 4);
	memset(b + 8, 0, 4);
	uint8_t want[4];
	ddp_crc32c_put_wire(want, ddp_crc32c(0, b, sizeof(b)));
	assert_memory_equal(crc, want, 4);
}

static void test_probe_sizes_refused(void **st)
{
	static uint8_t b[70000];
	(void)st;
	assert_int_equal(sctp_probe_build(b, SCTP_PROBE_MIN_LEN, &pr), SCTP_PROBE_MIN_LEN);
	assert_int_equal(sctp_probe_build(b, SCTP_PROBE_MIN_LEN - 4, &pr), 0);
	assert_int_equal(sctp_probe_build(b, 1270, &pr), 0); /* not a multiple of 4 */
	assert_int_equal(sctp_probe_build(b, 65536, &pr), 0);
	assert_int_equal(sctp_probe_build(b, 65532, &pr), 65532);
}

static void test_echo_parses_back(void **st)
{
	static uint8_t b[1272];
	uint8_t ack[64];
	struct sctp_probe a;
	size_t off = 0, clen = 0, n;
	(void)st;
	sctp_probe_build(b, sizeof(b), &pr);
	n = echo(ack, b, 0x55667788u);
	assert_int_equal(sctp_probe_ack_parse(ack, n, &a, &off, &clen), SCTP_PROBE_ACK);
	assert_int_equal(a.sport, 5002);
	assert_int_equal(a.dport, 5001);
	assert_int_equal(a.vtag, 0x55667788u);
	assert_int_equal(a.size, 1300);
	assert_int_equal(a.seq, 7);
	assert_true(a.nonce == pr.nonce);
	assert_int_equal(off, 12);
	assert_int_equal(clen, SCTP_PROBE_HB_LEN);
}

/* Bundled behind a SACK: found, and its place told for cutting it out. */
static void test_echo_bundled(void **st)
{
	static uint8_t b[1272];
	uint8_t ack[128], pkt[128];
	struct sctp_probe a;
	size_t off = 0, clen = 0, n;
	(void)st;
	sctp_probe_build(b, sizeof(b), &pr);
	n = echo(ack, b, 1);
	memcpy(pkt, ack, 12);
	memset(pkt + 12, 0, 16);
	pkt[12] = 3; /* SACK, 16 octets */
	put16(pkt + 14, 16);
	memcpy(pkt + 28, ack + 12, n - 12);
	assert_int_equal(sctp_probe_ack_parse(pkt, n + 16, &a, &off, &clen), SCTP_PROBE_ACK);
	assert_int_equal(off, 28);
	assert_int_equal(clen, SCTP_PROBE_HB_LEN);
}

/* Every prefix of an acknowledgement is no acknowledgement. */
static void test_truncated(void **st)
{
	static uint8_t b[1272];
	uint8_t ack[64];
	struct sctp_probe a;
	size_t off, clen, n;
	(void)st;
	sctp_probe_build(b, sizeof(b), &pr);
	n = echo(ack, b, 1);
	for (size_t k = 0; k < n; k++)
		assert_int_equal(sctp_probe_ack_parse(ack, k, &a, &off, &clen), SCTP_PROBE_NONE);
}

static void test_wrong_marker_is_not_ours(void **st)
{
	static uint8_t b[1272];
	uint8_t ack[64];
	struct sctp_probe a;
	size_t off, clen, n;
	(void)st;
	sctp_probe_build(b, sizeof(b), &pr);
	n = echo(ack, b, 1);
	ack[20] ^= 1;
	assert_int_equal(sctp_probe_ack_parse(ack, n, &a, &off, &clen), SCTP_PROBE_NONE);
	/* nor is a HEARTBEAT ACK whose TLV is not Heartbeat Info (usrsctp's
	 * own heartbeats carry type 1 too, but not our marker) */
	n = echo(ack, b, 1);
	put16(ack + 16, 2);
	assert_int_equal(sctp_probe_ack_parse(ack, n, &a, &off, &clen), SCTP_PROBE_NONE);
	/* and the probe itself (a HEARTBEAT) is no acknowledgement */
	assert_int_equal(sctp_probe_ack_parse(b, sizeof(b), &a, &off, &clen), SCTP_PROBE_NONE);
}

/* A wrong nonce or tag parses: the values come out as read, for the
 * caller's check against the probe in flight to refuse. */
static void test_wrong_nonce_and_vtag_come_out_as_read(void **st)
{
	static uint8_t b[1272];
	uint8_t ack[64];
	struct sctp_probe a;
	size_t off, clen, n;
	(void)st;
	sctp_probe_build(b, sizeof(b), &pr);
	n = echo(ack, b, 0x99999999u);
	ack[12 + 20] ^= 0x80; /* the nonce's first octet */
	assert_int_equal(sctp_probe_ack_parse(ack, n, &a, &off, &clen), SCTP_PROBE_ACK);
	assert_true(a.nonce != pr.nonce);
	assert_int_equal(a.vtag, 0x99999999u);
	assert_true(a.vtag != pr.vtag);
}

/* Our marker with a length that is not ours: malformed, counted. */
static void test_bad_tlv_lengths(void **st)
{
	static uint8_t b[1272];
	uint8_t ack[64];
	struct sctp_probe a;
	size_t off, clen, n;
	(void)st;
	sctp_probe_build(b, sizeof(b), &pr);
	/* the TLV claims more than the chunk holds */
	n = echo(ack, b, 1);
	put16(ack + 18, 40);
	assert_int_equal(sctp_probe_ack_parse(ack, n, &a, &off, &clen), SCTP_PROBE_BAD);
	/* the TLV claims less */
	n = echo(ack, b, 1);
	put16(ack + 18, 8);
	assert_int_equal(sctp_probe_ack_parse(ack, n, &a, &off, &clen), SCTP_PROBE_BAD);
	/* the chunk longer than ours, inside the packet */
	n = echo(ack, b, 1);
	memset(ack + n, 0, 8);
	put16(ack + 14, SCTP_PROBE_HB_LEN + 8);
	assert_int_equal(sctp_probe_ack_parse(ack, n + 8, &a, &off, &clen), SCTP_PROBE_BAD);
	/* the chunk's length past the packet's end: the walk stops */
	n = echo(ack, b, 1);
	put16(ack + 14, SCTP_PROBE_HB_LEN + 4);
	assert_int_equal(sctp_probe_ack_parse(ack, n, &a, &off, &clen), SCTP_PROBE_NONE);
}

/* A chunk of length 0 (or below its own header) ends the walk: no
 * endless loop, nothing behind it is read. */
static void test_zero_length_chunk(void **st)
{
	static uint8_t b[1272];
	uint8_t ack[64], pkt[128];
	struct sctp_probe a;
	size_t off, clen, n;
	(void)st;
	sctp_probe_build(b, sizeof(b), &pr);
	n = echo(ack, b, 1);
	for (uint32_t bad = 0; bad < 4; bad++) {
		memcpy(pkt, ack, 12);
		memset(pkt + 12, 0, 4);
		put16(pkt + 14, bad);
		memcpy(pkt + 16, ack + 12, n - 12);
		assert_int_equal(sctp_probe_ack_parse(pkt, n + 4, &a, &off, &clen),
		                 SCTP_PROBE_NONE);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_probe_layout),
	    cmocka_unit_test(test_probe_sizes_refused),
	    cmocka_unit_test(test_echo_parses_back),
	    cmocka_unit_test(test_echo_bundled),
	    cmocka_unit_test(test_truncated),
	    cmocka_unit_test(test_wrong_marker_is_not_ours),
	    cmocka_unit_test(test_wrong_nonce_and_vtag_come_out_as_read),
	    cmocka_unit_test(test_bad_tlv_lengths),
	    cmocka_unit_test(test_zero_length_chunk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
