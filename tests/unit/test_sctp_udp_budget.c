/* The SCTP UDP layer's defences against spoofed lone INITs
 * (sctp_udp_peers.c): the listener stays stateless until a COOKIE ECHO
 * checks out (RFC 9260 §5.1), so
 *  - a lone INIT or COOKIE ECHO from an unknown source gets a peer on
 *    probation only for its read batch (at most PEER_TRANSIENT_MAX at once,
 *    past it dropped without state and counted): when the batch ends
 *    (sctp_udp_peers_settle) it is freed unless usrsctp answered with a
 *    COOKIE ACK; spoofed INITs thus use up nothing a real client needs;
 *  - a peer no association ever used expires after PEER_HANDSHAKE_MS, one
 *    that had an association after the socket's idle time.
 * The table is driven directly (sctp_udp_classify, sctp_udp_peers_sweep),
 * as the fuzz target does: no socket, no usrsctp. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "common/crc32c.h"
#include "sctp/udp/sctp_udp_int.h"

static int learn(void *user)
{
	(void)user;
	return 1;
}

static struct sctp_udp *table(void)
{
	struct sctp_udp *u = calloc(1, sizeof(*u));
	assert_non_null(u);
	u->fd = -1;
	u->ops.learn = learn;
	u->family = AF_INET;
	u->peer_idle_ms = PEER_IDLE_MS;
	for (int i = 0; i < DDP_SIPHASH_KEY_LEN; i++)
		u->hkey[i] = (uint8_t)(i * 31 + 7);
	pthread_mutex_init(&u->qlock, NULL);
	return u;
}

static void table_free(struct sctp_udp *u)
{
	sctp_udp_peers_free_all(u);
	pthread_mutex_destroy(&u->qlock);
	free(u);
}

/* 127.0.x.y:port, one per i */
static void source(uint32_t i, struct sockaddr_storage *ss, socklen_t *sl)
{
	struct sockaddr_in *s = (struct sockaddr_in *)ss;
	memset(ss, 0, sizeof(*ss));
	s->sin_family = AF_INET;
	s->sin_addr.s_addr = htonl(0x7f000000u | ((i >> 8) & 0xffff) << 8 | 2u);
	s->sin_port = htons((uint16_t)(1024 + (i & 0xff)));
	*sl = sizeof(*s);
}

/* A lone INIT with verification tag 0 and a valid CRC32c (RFC 9260 §3.3.2) */
static size_t lone_init(uint8_t *b, uint32_t tag)
{
	memset(b, 0, 32);
	b[0] = 0x13, b[1] = 0x88; /* ports */
	b[2] = 0x13, b[3] = 0x89;
	b[12] = 1;                /* INIT */
	b[15] = 20;               /* chunk length */
	memcpy(b + 16, &tag, 4);  /* Initiate Tag */
	b[22] = 0x10;             /* a_rwnd */
	b[25] = 1, b[27] = 1;     /* streams */
	ddp_crc32c_put_wire(b + 8, ddp_crc32c(0, b, 32));
	return 32;
}

static enum sctp_udp_verdict from(struct sctp_udp *u, uint32_t i, struct sctp_udp_peer **p)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	uint8_t b[32];
	source(i, &ss, &sl);
	size_t n = lone_init(b, i | 1);
	return sctp_udp_classify(u, &ss, sl, b, n, p);
}

/* A COOKIE ECHO (RFC 9260 §3.3.11) with tag and a 16-octet cookie */
static size_t cookie_echo(uint8_t *b, uint32_t tag)
{
	memset(b, 0, 32);
	b[0] = 0x13, b[1] = 0x88;
	b[2] = 0x13, b[3] = 0x89;
	memcpy(b + 4, &tag, 4);
	b[12] = 10; /* COOKIE ECHO */
	b[15] = 20;
	ddp_crc32c_put_wire(b + 8, ddp_crc32c(0, b, 32));
	return 32;
}

static void test_spoofed_inits_leave_nothing_and_spend_nothing(void **state)
{
	(void)state;
	struct sctp_udp *u = table();
	struct sctp_udp_peer *p;
	unsigned made = 0, past = 0, extra = 1000;
	for (uint32_t i = 0; i < PEER_TRANSIENT_MAX + extra; i++) {
		enum sctp_udp_verdict v = from(u, i, &p);
		if (v == SCTP_UDP_NEW)
			made++;
		else if (v == SCTP_UDP_UNPROVEN)
			past++;
	}
	/* within one batch: at most PEER_TRANSIENT_MAX on probation */
	assert_int_equal(made, PEER_TRANSIENT_MAX);
	assert_int_equal(past, extra);
	assert_int_equal(u->c.init_limited, past);
	/* the batch ends: none was proven, none stays */
	sctp_udp_peers_settle(u);
	assert_int_equal(u->npeers, 0);
	assert_int_equal(u->ntrans, 0);
	/* and the next batch has the whole room again: no budget was spent */
	for (int round = 0; round < 3; round++) {
		for (uint32_t i = 0; i < PEER_TRANSIENT_MAX; i++)
			assert_int_equal(from(u, 100000 + i, &p), SCTP_UDP_NEW);
		sctp_udp_peers_settle(u);
		assert_int_equal(u->npeers, 0);
	}
	assert_int_equal(u->c.init_limited, past);
	table_free(u);
}

static void test_cookie_ack_keeps_the_peer(void **state)
{
	(void)state;
	struct sctp_udp *u = table();
	struct sockaddr_storage ss;
	socklen_t sl;
	uint8_t b[32];
	struct sctp_udp_peer *forged, *real, *p;
	source(7, &ss, &sl);
	assert_int_equal(sctp_udp_classify(u, &ss, sl, b, cookie_echo(b, 0x1234), &forged),
	                 SCTP_UDP_NEW);
	source(8, &ss, &sl);
	assert_int_equal(sctp_udp_classify(u, &ss, sl, b, cookie_echo(b, 0x5678), &real),
	                 SCTP_UDP_NEW);
	/* a COOKIE ECHO with tag 0 is no COOKIE ECHO of a handshake */
	source(9, &ss, &sl);
	assert_int_equal(sctp_udp_classify(u, &ss, sl, b, cookie_echo(b, 0), &p),
	                 SCTP_UDP_UNPROVEN);
	/* what usrsctp answers the real one: COOKIE ACK bundled after a SACK */
	uint8_t ack[12 + 16 + 4];
	memset(ack, 0, sizeof(ack));
	ack[12] = 3, ack[15] = 16; /* SACK */
	ack[28] = 11, ack[31] = 4; /* COOKIE ACK */
	assert_true(sctp_udp_is_cookie_ack(ack, sizeof(ack)));
	assert_false(sctp_udp_is_cookie_ack(ack, 28));
	real->proven = 1;
	sctp_udp_peers_settle(u);
	assert_int_equal(u->npeers, 1);
	source(8, &ss, &sl);
	assert_ptr_equal(sctp_udp_peer_find(u, &ss, sl), real);
	assert_false(real->transient);
	table_free(u);
}

static void test_handshake_peers_expire_first(void **state)
{
	(void)state;
	struct sctp_udp *u = table();
	struct sctp_udp_peer *spoofed, *real;
	assert_int_equal(from(u, 1, &spoofed), SCTP_UDP_NEW);
	assert_int_equal(from(u, 2, &real), SCTP_UDP_NEW);
	/* an association used the second, and ended */
	sctp_udp_peer_ref(real);
	sctp_udp_peer_unref(real);
	uint64_t now = sctp_udp_now_ms();
	sctp_udp_peers_sweep(u, now + PEER_HANDSHAKE_MS / 2);
	assert_int_equal(u->npeers, 2);
	sctp_udp_peers_sweep(u, now + PEER_HANDSHAKE_MS + 100);
	assert_int_equal(u->npeers, 1);
	struct sctp_udp_peer *p;
	assert_int_equal(from(u, 2, &p), SCTP_UDP_KNOWN);
	assert_ptr_equal(p, real);
	sctp_udp_peers_sweep(u, sctp_udp_now_ms() + PEER_IDLE_MS + 100);
	assert_int_equal(u->npeers, 0);
	assert_int_equal(u->c.peers_expired, 2);
	table_free(u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_spoofed_inits_leave_nothing_and_spend_nothing),
	    cmocka_unit_test(test_cookie_ack_keeps_the_peer),
	    cmocka_unit_test(test_handshake_peers_expire_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
