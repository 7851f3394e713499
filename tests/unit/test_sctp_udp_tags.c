/* Unit tests: the tag slots of one UDP peer (adapters/sctp/udp/
 * sctp_udp_icmp.c): what an ICMP quote is checked against, and which
 * association the path MTU probes may use. A slot is heard only once
 * the peer holds the association (RFC 9260 §5.1: from the COOKIE ECHO on
 * at the accepting end, from the COOKIE ACK on at the initiating one): a
 * probe sent earlier reaches no association there and draws an ABORT
 * that kills the one being set up. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <string.h>

#include "sctp/udp/sctp_udp_icmp.h"

#define OURS   0x0a0b0c0du /* our Initiate Tag */
#define THEIRS 0x01020304u /* the peer's */
#define SPORT  40000
#define DPORT  5001

/* An SCTP packet: common header (ports as sent by `from_us`, or as the
 * peer sends them), vtag, then one chunk of type, flags, and for an INIT
 * or INIT ACK its Initiate Tag. */
static size_t pkt(uint8_t *b, int from_us, uint32_t vtag, uint8_t type, uint8_t flags,
		  uint32_t itag)
{
	uint16_t sp = htons(from_us ? SPORT : DPORT), dp = htons(from_us ? DPORT : SPORT);
	uint32_t v = htonl(vtag), it = htonl(itag);
	uint16_t clen = htons(type == 1 || type == 2 ? 20 : 4);
	memset(b, 0, 32);
	memcpy(b, &sp, 2);
	memcpy(b + 2, &dp, 2);
	memcpy(b + 4, &v, 4);
	b[12] = type;
	b[13] = flags;
	memcpy(b + 14, &clen, 2);
	memcpy(b + 16, &it, 4);
	return type == 1 || type == 2 ? 32 : 16;
}

static int heard(const struct sctp_udp_tags *t)
{
	for (int i = 0; i < SCTP_UDP_TAGS; i++)
		if (t->e[i].used && t->e[i].sport == SPORT && t->e[i].dport == DPORT)
			return t->e[i].heard && t->e[i].own == OURS && t->e[i].tag == THEIRS;
	return -1;
}

/* The initiating end: INIT out, INIT ACK in, COOKIE ECHO out, COOKIE ACK in. */
static void test_initiator_heard_from_the_cookie_ack(void **state)
{
	struct sctp_udp_tags t;
	uint8_t b[32];
	size_t n;
	(void)state;
	memset(&t, 0, sizeof(t));
	n = pkt(b, 1, 0, 1 /* INIT */, 0, OURS);
	sctp_udp_tags_note(&t, b, n);
	n = pkt(b, 0, OURS, 2 /* INIT ACK */, 0, THEIRS);
	sctp_udp_tags_heard(&t, b, n);
	n = pkt(b, 1, THEIRS, 10 /* COOKIE ECHO */, 0, 0);
	sctp_udp_tags_note(&t, b, n);
	assert_int_equal(heard(&t), 0); /* the peer may not hold it yet */
	n = pkt(b, 0, OURS, 11 /* COOKIE ACK */, 0, 0);
	sctp_udp_tags_heard(&t, b, n);
	assert_int_equal(heard(&t), 1);
	/* our ABORT ends it */
	n = pkt(b, 1, THEIRS, 6 /* ABORT */, 0, 0);
	sctp_udp_tags_note(&t, b, n);
	assert_int_equal(heard(&t), 0);
}

/* The accepting end: COOKIE ECHO in, COOKIE ACK out, then the peer's
 * next packet. */
static void test_acceptor_heard_from_the_next_packet(void **state)
{
	struct sctp_udp_tags t;
	uint8_t b[32];
	size_t n;
	(void)state;
	memset(&t, 0, sizeof(t));
	n = pkt(b, 0, OURS, 10 /* COOKIE ECHO */, 0, 0);
	sctp_udp_tags_cookie_echo(&t, b, n);
	n = pkt(b, 1, THEIRS, 11 /* COOKIE ACK */, 0, 0);
	sctp_udp_tags_note(&t, b, n);
	assert_int_equal(heard(&t), 0);
	n = pkt(b, 0, OURS, 10 /* COOKIE ECHO again */, 0, 0);
	sctp_udp_tags_heard(&t, b, n);
	assert_int_equal(heard(&t), 0);
	n = pkt(b, 0, OURS, 0 /* DATA */, 0, 0);
	sctp_udp_tags_heard(&t, b, n);
	assert_int_equal(heard(&t), 1);
	/* the peer's SHUTDOWN COMPLETE ends it */
	n = pkt(b, 0, OURS, 14, 0, 0);
	sctp_udp_tags_heard(&t, b, n);
	assert_int_equal(heard(&t), 0);
}

/* A packet with another tag, or for other ports, hears nothing. */
static void test_foreign_packets_hear_nothing(void **state)
{
	struct sctp_udp_tags t;
	uint8_t b[32];
	size_t n;
	(void)state;
	memset(&t, 0, sizeof(t));
	n = pkt(b, 1, 0, 1, 0, OURS);
	sctp_udp_tags_note(&t, b, n);
	n = pkt(b, 1, THEIRS, 10, 0, 0);
	sctp_udp_tags_note(&t, b, n);
	n = pkt(b, 0, OURS + 1, 11, 0, 0);
	sctp_udp_tags_heard(&t, b, n);
	assert_int_equal(heard(&t), 0);
	n = pkt(b, 1 /* our own ports: not from the peer */, OURS, 11, 0, 0);
	sctp_udp_tags_heard(&t, b, n);
	assert_int_equal(heard(&t), 0);
	sctp_udp_tags_heard(&t, b, 8); /* truncated */
	assert_int_equal(heard(&t), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_initiator_heard_from_the_cookie_ack),
		cmocka_unit_test(test_acceptor_heard_from_the_next_packet),
		cmocka_unit_test(test_foreign_packets_hear_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
