/* Integration: raw SCTP messages over our UDP socket (RFC 6951 framing)
 * with real usrsctp and libevent on 127.0.0.1 (the layer under DDP, and
 * the benchmark's usrsctp baseline). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include "ddp_test.h"
#include "ll_pair.h"
#include "sctp/sctp_ssn.h"

#define NMSG 2000

/* The messages of these tests: octets 0-3 a sequence number, 4-7 the
 * message's own length (both host order), octet i >= 8 the sequence
 * number + i; sent unordered with the DDP payload protocol identifier.
 * The side's check (ll_pair.h) for them. */
static unsigned long seq_msg_faults(const uint8_t *msg, long n, const sctp_ll_rinfo *ri)
{
	uint32_t seq, len;
	unsigned long bad = 0;
	assert_true(ri->unordered);
	assert_int_equal(ri->ppid, SCTP_PPID_DDP);
	assert_true(n >= 8);
	memcpy(&seq, msg, 4);
	memcpy(&len, msg + 4, 4);
	if ((long)len != n)
		bad++;
	for (long i = 8; i < n; i++)
		if (msg[i] != (uint8_t)(seq + (uint32_t)i))
			bad++;
	return bad;
}

static struct ll_side server, client;

static int setup(void **st)
{
	(void)st;
	alarm(20);
	memset(&server, 0, sizeof(server));
	memset(&client, 0, sizeof(client));
	server.check = client.check = seq_msg_faults;
	return 0;
}

static void make_pair(struct event_base *b, sctp_ll_ep **se, sctp_ll_ep **ce,
		      uint32_t cli_adapt)
{
	sctp_ll_config sc = { .port = -1, .nstreams = 64,
			      .adaptation = SCTP_ADAPTATION_DDP,
			      .require_adaptation = 1, .unfragmented = 1 };
	sctp_ll_config cc = sc;
	cc.adaptation = cli_adapt;
	cc.require_adaptation = cli_adapt != 0;
	assert_int_equal(sctp_ll_ep_new(b, &sc, se), 0);
	assert_int_equal(sctp_ll_ep_new(b, &cc, ce), 0);
	assert_int_equal(sctp_ll_listen(*se, ll_side_accept, &server), 0);
	assert_int_equal(sctp_ll_connect(*ce, "127.0.0.1", sctp_ll_ep_port(*se),
					 &ll_side_cbs, &client, &client.a), 0);
}

static void test_ll_messages_cross_unfragmented_and_intact(void **st)
{
	struct event_base *b = event_base_new();
	sctp_ll_ep *se, *ce;
	static uint8_t msg[70000];
	int sent = 0;
	(void)st;
	make_pair(b, &se, &ce, SCTP_ADAPTATION_DDP);
	ll_run_until(b, &client.up, NULL, 0, 5);
	ll_run_until(b, &server.up, NULL, 0, 5);
	assert_true(client.up);
	assert_true(server.up);
	assert_int_equal(sctp_ll_nstreams(client.a), 64);
	uint32_t mx = sctp_ll_max_msg(client.a);
	print_message("max unfragmented message: %u\n", mx);
	assert_true(mx >= SCTP_MIN_USER_MSG);
	/* RFC 5043 §9: larger than the fragmentation point is refused */
	assert_int_equal(sctp_ll_send(client.a, 0, SCTP_PPID_DDP, msg, mx + 1),
			 DDP_ERR_TOOBIG);
	while (sent < NMSG) {
		uint32_t len = 8 + (uint32_t)(sent * 7919 % (mx - 8));
		uint32_t seq = (uint32_t)sent;
		memcpy(msg, &seq, 4);
		memcpy(msg + 4, &len, 4);
		for (uint32_t i = 8; i < len; i++)
			msg[i] = (uint8_t)(seq + i);
		int rc = sctp_ll_send(client.a, (uint16_t)(sent % 64),
				      SCTP_PPID_DDP, msg, len);
		if (rc == DDP_ERR_AGAIN) {
			event_base_loop(b, EVLOOP_ONCE);
			continue;
		}
		assert_int_equal(rc, 0);
		sent++;
	}
	while (server.got < NMSG)
		event_base_loop(b, EVLOOP_ONCE);
	assert_int_equal(server.got, NMSG);
	assert_int_equal(server.bad, 0);
	print_message("next length known for %lu of %d reads\n",
		      server.next_known, NMSG);
	sctp_ll_close(client.a, 0);
	ll_run_until(b, &server.down, NULL, 0, 5);
	assert_true(server.down);
	sctp_ll_ep_free(ce);
	sctp_ll_ep_free(se);
	event_base_free(b);
}

/* An ABORT chunk (type 6) carrying a User-Initiated Abort cause (12,
 * RFC 4960 §3.3.10.12): its Upper Layer Abort Reason is copied out. */
static char abort_reason[256];
static unsigned find_abort_reason(void *user, uint8_t *p, size_t n)
{
	(void)user;
	if (n >= 20 && p[12] == 6) {
		size_t clen = (size_t)(p[14] << 8 | p[15]);
		for (size_t off = 16; off + 4 <= 12 + clen && off + 4 <= n;) {
			unsigned code = (unsigned)(p[off] << 8 | p[off + 1]);
			size_t len = (size_t)(p[off + 2] << 8 | p[off + 3]);
			if (len < 4 || off + len > n)
				break;
			if (code == 12 && len - 4 < sizeof(abort_reason)) {
				memcpy(abort_reason, p + off + 4, len - 4);
				abort_reason[len - 4] = 0;
			}
			off += (len + 3) & ~(size_t)3;
		}
	}
	return SCTP_LL_PASS;
}

/* RFC 5043 §11.1: a peer without the DDP adaptation indication gets no
 * DDP association, and an ABORT that says why. */
static void test_ll_peer_without_adaptation_is_refused(void **st)
{
	struct event_base *b = event_base_new();
	sctp_ll_ep *se, *ce;
	(void)st;
	abort_reason[0] = 0;
	make_pair(b, &se, &ce, 0);
	sctp_ll_set_filter(ce, find_abort_reason, NULL);
	ll_run_until(b, &server.down, NULL, 0, 5);
	assert_true(server.down);
	assert_false(server.up);
	assert_int_equal(server.down_status, DDP_ERR_PROTO);
	ll_run_until(b, &client.down, NULL, 0, 5);
	assert_true(client.down);
	print_message("ABORT reason seen by the peer: \"%s\"\n", abort_reason);
	assert_non_null(strstr(abort_reason, "Adaptation Layer Indication"));
	sctp_ll_ep_free(ce);
	sctp_ll_ep_free(se);
	event_base_free(b);
}

/* One listening endpoint, several UDP peers: one AF_CONN address each. */
#define NPEERS 4
static struct ll_side multi[NPEERS];
static int nacc;

static void on_accept_multi(sctp_ll_ep *ep, sctp_ll_assoc *a, void *user)
{
	(void)user;
	assert_true(nacc < NPEERS);
	ll_side_accept(ep, a, &multi[nacc++]);
}

static void test_ll_listener_serves_many_udp_peers(void **st)
{
	struct event_base *b = event_base_new();
	sctp_ll_config sc = { .port = -1, .nstreams = 4,
			      .adaptation = SCTP_ADAPTATION_DDP,
			      .require_adaptation = 1, .unfragmented = 1 };
	sctp_ll_ep *se, *ce[NPEERS];
	struct ll_side cl[NPEERS];
	static uint8_t msg[1000];
	unsigned long total = 0;
	(void)st;
	memset(multi, 0, sizeof(multi));
	memset(cl, 0, sizeof(cl));
	for (int i = 0; i < NPEERS; i++)
		multi[i].check = cl[i].check = seq_msg_faults;
	nacc = 0;
	assert_int_equal(sctp_ll_ep_new(b, &sc, &se), 0);
	assert_int_equal(sctp_ll_listen(se, on_accept_multi, NULL), 0);
	for (int i = 0; i < NPEERS; i++) {
		assert_int_equal(sctp_ll_ep_new(b, &sc, &ce[i]), 0);
		assert_int_equal(sctp_ll_connect(ce[i], "127.0.0.1",
						 sctp_ll_ep_port(se), &ll_side_cbs,
						 &cl[i], &cl[i].a), 0);
	}
	for (int i = 0; i < NPEERS; i++) {
		ll_run_until(b, &cl[i].up, NULL, 0, 5);
		assert_true(cl[i].up);
	}
	for (int i = 0; i < NPEERS; i++)
		for (uint32_t k = 0; k < 50; k++) {
			uint32_t len = 8 + k;
			memcpy(msg, &k, 4);
			memcpy(msg + 4, &len, 4);
			for (uint32_t j = 8; j < len; j++)
				msg[j] = (uint8_t)(k + j);
			assert_int_equal(sctp_ll_send(cl[i].a, (uint16_t)(k % 4),
						      SCTP_PPID_DDP, msg, len), 0);
		}
	for (int t = 0; t < 2000 && total < NPEERS * 50; t++) {
		event_base_loop(b, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		usleep(500);
		total = 0;
		for (int i = 0; i < NPEERS; i++)
			total += multi[i].got;
	}
	assert_int_equal(nacc, NPEERS);
	for (int i = 0; i < NPEERS; i++) {
		assert_int_equal(multi[i].got, 50);
		assert_int_equal(multi[i].bad, 0);
	}
	for (int i = 0; i < NPEERS; i++)
		sctp_ll_ep_free(ce[i]);
	sctp_ll_ep_free(se);
	event_base_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_ll_messages_cross_unfragmented_and_intact, setup),
		cmocka_unit_test_setup(test_ll_peer_without_adaptation_is_refused, setup),
		cmocka_unit_test_setup(test_ll_listener_serves_many_udp_peers, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
