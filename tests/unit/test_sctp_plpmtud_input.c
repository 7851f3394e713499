/* Unit tests: what the UDP layer does with each received packet for its
 * path MTU probes (adapters/sctp/udp/sctp_udp_plpmtud.c,
 * sctp_udp_plpmtud_input, RFC 8899 §4.5.2): the HEARTBEAT ACK of a probe
 * is taken out (consumed when alone, cut out when bundled) while a probe
 * is unanswered or was sent within the probe timer, and counted as bad
 * when it answers nothing in flight; later, and for every ordinary
 * packet, the packet goes on to usrsctp untouched.
 *
 * One peer of a socket-less table (as test_sctp_udp_budget drives it),
 * whose probes go out of a real UDP socket to a second one the test
 * reads: the test answers each probe as the peer would, and plays the
 * part of sctp_udp_classify, which sets p->last_ms to the arrival time of
 * the packet it hands in. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include "sctp/udp/sctp_udp_int.h"
#include "sctp/udp/sctp_udp_probe.h"

#define OURS     0x0a0b0c0du /* our verification tag (Initiate Tag) */
#define THEIRS   0x01020304u /* the peer's */
#define SPORT    40000       /* our SCTP port */
#define DPORT    5001        /* the peer's */
#define PROBE_MS 2000        /* the probe timer (the default, set) */
#define MTU      1500        /* the socket's MTU cap: the search's top */

struct rig {
	struct sctp_udp *u;
	struct sctp_udp_peer *p;
	struct event_base *base;
	int rx; /* where the probes go: the peer's UDP socket */
	uint8_t ack[64];
	size_t ack_len; /* the answer to the last probe read */
	uint64_t last;  /* when the last probe left (up_searched) */
};

/* v into the octets b[0..len), network order. */
static void put(uint8_t *b, uint32_t v, int len)
{
	for (int i = len - 1; i >= 0; i--, v >>= 8)
		b[i] = (uint8_t)v;
}

/* An SCTP packet's common header with ports as `from_us` sends them. */
static void hdr(uint8_t *b, int from_us, uint32_t vtag)
{
	memset(b, 0, 12);
	put(b, from_us ? SPORT : DPORT, 2);
	put(b + 2, from_us ? DPORT : SPORT, 2);
	put(b + 4, vtag, 4);
}

/* A chunk of type and length len (a multiple of 4), its value a pattern. */
static size_t chunk(uint8_t *c, uint8_t type, size_t len)
{
	c[0] = type;
	c[1] = 0;
	put(c + 2, (uint32_t)len, 2);
	for (size_t i = 4; i < len; i++)
		c[i] = (uint8_t)(type + i);
	return len;
}

static void noop(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
}

/* The peer's packet b[0..*n) as the read path hands it in, arriving at
 * ms (sctp_udp_classify's touch). */
static int input_at(struct rig *r, uint64_t ms, uint8_t *b, size_t *n)
{
	r->p->last_ms = ms;
	return sctp_udp_plpmtud_input(r->u, r->p, b, n);
}

static int input_now(struct rig *r, uint8_t *b, size_t *n)
{
	return input_at(r, sctp_udp_now_ms(), b, n);
}

/* Read the probe that went out (of size IP octets) and make the peer's
 * answer to it: ports swapped, our tag, its HEARTBEAT's Heartbeat Info
 * echoed in a HEARTBEAT ACK (RFC 9260 §3.3.6), the PAD not echoed. */
static void answer(struct rig *r, uint32_t size)
{
	static uint8_t b[65536];
	ssize_t n = recv(r->rx, b, sizeof(b), MSG_DONTWAIT);
	assert_int_equal(n, size - 28);
	assert_int_equal(b[12], 4); /* HEARTBEAT */
	hdr(r->ack, 0, OURS);
	memcpy(r->ack + 12, b + 12, SCTP_PROBE_HB_LEN);
	r->ack[12] = 5; /* HEARTBEAT ACK */
	r->ack_len = 12 + SCTP_PROBE_HB_LEN;
}

/* A peer of ours with an association up at both ends: our INIT (our
 * tag), our COOKIE ECHO (theirs), then the peer's COOKIE ACK, whose
 * input starts the probes: the first, of the base size, is read. */
static void rig_up(struct rig *r)
{
	struct sockaddr_storage sa;
	socklen_t sl = sizeof(sa);
	struct sockaddr_in *in = (struct sockaddr_in *)&sa;
	uint8_t b[64];
	size_t n;
	memset(r, 0, sizeof(*r));
	sctp_udp_plpmtud_set_timers_for_test(PROBE_MS, 0, 0);
	r->u = calloc(1, sizeof(*r->u));
	assert_non_null(r->u);
	r->u->family = AF_INET;
	r->u->mtu_cap = MTU;
	r->u->peer_idle_ms = PEER_IDLE_MS;
	for (int i = 0; i < DDP_SIPHASH_KEY_LEN; i++)
		r->u->hkey[i] = (uint8_t)(i * 13 + 5);
	pthread_mutex_init(&r->u->qlock, NULL);
	r->u->fd = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(r->u->fd >= 0);
	r->base = event_base_new();
	assert_non_null(r->base);
	r->u->rd = event_new(r->base, -1, 0, noop, NULL);
	assert_non_null(r->u->rd);
	r->rx = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(r->rx >= 0);
	memset(&sa, 0, sizeof(sa));
	in->sin_family = AF_INET;
	in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(r->rx, (struct sockaddr *)in, sizeof(*in)), 0);
	assert_int_equal(getsockname(r->rx, (struct sockaddr *)&sa, &sl), 0);
	r->p = sctp_udp_peer_add(r->u, &sa, sl);
	assert_non_null(r->p);
	sctp_udp_peer_ref(r->p);

	hdr(b, 1, 0);
	chunk(b + 12, 1 /* INIT */, 20);
	put(b + 16, OURS, 4); /* Initiate Tag */
	sctp_udp_tags_note(&r->p->tags, b, 32);
	hdr(b, 1, THEIRS);
	sctp_udp_tags_note(&r->p->tags, b, 12 + chunk(b + 12, 10 /* COOKIE ECHO */, 8));
	hdr(b, 0, OURS);
	n = 12 + chunk(b + 12, 11 /* COOKIE ACK */, 4);
	assert_int_equal(input_now(r, b, &n), 0);
	assert_int_equal(r->u->c.probes_sent, 1);
	answer(r, 1200); /* RFC 8899 §5.1.2: BASE_PLPMTU */
}

static void rig_down(struct rig *r)
{
	sctp_udp_peers_free_all(r->u);
	event_free(r->u->rd);
	event_base_free(r->base);
	close(r->u->fd);
	close(r->rx);
	pthread_mutex_destroy(&r->u->qlock);
	free(r->u);
	sctp_udp_plpmtud_set_timers_for_test(0, 0, 0);
}

/* The answer to the last probe read, alone, arriving at ms: what the
 * input returns; b, *n the packet after it. */
static int lone_answer_at(struct rig *r, uint64_t ms, uint8_t *b, size_t *n)
{
	*n = r->ack_len;
	memcpy(b, r->ack, *n);
	return input_at(r, ms, b, n);
}

/* The same answer bundled behind a SACK of the peer (as a peer with a
 * SACK to send bundles them), arriving at ms: 1 if the answer was cut
 * out and the SACK goes on intact, 0 if the packet goes on unchanged;
 * anything else fails. */
static int bundled_answer_cut_at(struct rig *r, uint64_t ms)
{
	uint8_t b[128], copy[128];
	size_t sack_len, len, n;
	hdr(b, 0, OURS);
	sack_len = 12 + chunk(b + 12, 3 /* SACK */, 16);
	memcpy(b + sack_len, r->ack + 12, r->ack_len - 12);
	n = len = sack_len + r->ack_len - 12;
	memcpy(copy, b, len);
	assert_int_equal(input_at(r, ms, b, &n), 0);
	if (n == len) {
		assert_memory_equal(b, copy, len);
		return 0;
	}
	assert_int_equal(n, sack_len);
	assert_memory_equal(b, copy, sack_len);
	return 1;
}

/* The search answered to its end: the base size, then the top, each
 * answer alone (consumed); the peer is then COMPLETE, no probe
 * unanswered. Returns when the last probe left. */
static uint64_t finish_search(struct rig *r)
{
	uint8_t b[64];
	size_t n;
	assert_int_equal(lone_answer_at(r, sctp_udp_now_ms(), b, &n), 1);
	answer(r, MTU);
	assert_int_equal(lone_answer_at(r, sctp_udp_now_ms(), b, &n), 1);
	assert_int_equal(r->u->c.probes_acked, 2);
	assert_int_equal(r->p->plp.count, 0);
	assert_true(r->p->plp.sent_ms != 0);
	return r->p->plp.sent_ms;
}

static struct rig R;

static int up(void **st)
{
	(void)st;
	rig_up(&R);
	return 0;
}

/* up, and the search answered to its end (finish_search) */
static int up_searched(void **st)
{
	(void)st;
	rig_up(&R);
	R.last = finish_search(&R);
	return 0;
}

static int down(void **st)
{
	(void)st;
	rig_down(&R);
	return 0;
}

/* Both sizes of the search answered: the base size (alone: consumed),
 * then the top (bundled behind a SACK: cut out, the SACK goes on). */
static void test_answers_in_flight_are_taken(void **st)
{
	uint8_t b[64];
	size_t n;
	(void)st;
	assert_int_equal(lone_answer_at(&R, sctp_udp_now_ms(), b, &n), 1);
	assert_int_equal(R.u->c.probes_acked, 1);
	answer(&R, MTU); /* RFC 8899 §5.3.2: the search's top next */
	assert_int_equal(bundled_answer_cut_at(&R, sctp_udp_now_ms()), 1);
	assert_int_equal(R.u->c.probes_acked, 2);
	assert_int_equal(R.u->c.probe_bad_acks, 0);
}

/* The search done (the top confirmed: no probe unanswered), a second
 * answer to the last probe within the probe timer of its sending is still
 * taken out, alone or bundled, and counted as answering nothing. */
static void test_second_answer_in_the_window_is_taken(void **st)
{
	uint8_t b[64];
	size_t n;
	(void)st;
	assert_int_equal(lone_answer_at(&R, R.last + PROBE_MS - 1, b, &n), 1);
	assert_int_equal(R.u->c.probe_bad_acks, 1);
	assert_int_equal(bundled_answer_cut_at(&R, R.last + PROBE_MS - 1), 1);
	assert_int_equal(R.u->c.probe_bad_acks, 2);
	assert_int_equal(R.u->c.probes_acked, 2);
}

/* Past the probe timer with nothing unanswered, an answer goes to usrsctp
 * as it came (which discards it: sctp_udp_plpmtud.c, ack_possible). */
static void test_late_answer_goes_on_unchanged(void **st)
{
	uint8_t b[64];
	size_t n;
	(void)st;
	assert_int_equal(lone_answer_at(&R, R.last + PROBE_MS, b, &n), 0);
	assert_int_equal(n, R.ack_len);
	assert_memory_equal(b, R.ack, n);
	assert_int_equal(bundled_answer_cut_at(&R, R.last + PROBE_MS), 0);
	assert_int_equal(R.u->c.probe_bad_acks, 0);
	assert_int_equal(R.u->c.probes_acked, 2);
}

/* An ordinary packet of the peer: a SACK, the HEARTBEAT ACK of one of
 * usrsctp's own heartbeats (Heartbeat Info without our marker) and DATA. */
static size_t ordinary(uint8_t *b)
{
	size_t len = 12;
	hdr(b, 0, OURS);
	len += chunk(b + len, 3 /* SACK */, 16);
	len += chunk(b + len, 5 /* HEARTBEAT ACK */, 44);
	put(b + 12 + 16 + 4, 1, 2); /* Heartbeat Info */
	put(b + 12 + 16 + 6, 40, 2);
	len += chunk(b + len, 0 /* DATA */, 100);
	return len;
}

/* It goes on untouched, and counts for nothing: while a probe is
 * unanswered (its chunks looked through), within the probe timer of the
 * last probe with none unanswered (looked through too), and after. */
static void test_ordinary_packet_goes_on_untouched(void **st)
{
	uint8_t b[256], copy[256];
	size_t n, len = ordinary(copy);
	uint64_t last;
	(void)st;
	assert_int_equal(R.p->plp.count, 1);
	memcpy(b, copy, len);
	n = len;
	assert_int_equal(input_now(&R, b, &n), 0);
	assert_int_equal(n, len);
	assert_memory_equal(b, copy, len);
	last = finish_search(&R);
	for (uint64_t at = last; at <= last + 2 * PROBE_MS; at += PROBE_MS) {
		memcpy(b, copy, len);
		n = len;
		assert_int_equal(input_at(&R, at, b, &n), 0);
		assert_int_equal(n, len);
		assert_memory_equal(b, copy, len);
	}
	assert_int_equal(R.u->c.probes_acked, 2);
	assert_int_equal(R.u->c.probe_bad_acks, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_answers_in_flight_are_taken, up, down),
	    cmocka_unit_test_setup_teardown(test_second_answer_in_the_window_is_taken, up_searched,
	                                    down),
	    cmocka_unit_test_setup_teardown(test_late_answer_goes_on_unchanged, up_searched, down),
	    cmocka_unit_test_setup_teardown(test_ordinary_packet_goes_on_untouched, up, down),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
