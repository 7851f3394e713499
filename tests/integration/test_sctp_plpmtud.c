/* Integration: path MTU probing through a black hole (RFC 8899 §4.3), with
 * real usrsctp and libevent on loopback. Both endpoints' fault filters
 * emulate a router whose next hop carries 1300-octet IP datagrams and
 * whose ICMP "fragmentation needed" never arrives: a datagram sent with DF
 * set and longer than that is dropped, one sent with DF off (a chunk cut
 * for a larger MTU, sent IP-fragmentable after the path MTU went down,
 * RFC 4960 §7.3) passes, as the router would fragment it. The filter tells
 * the two apart by size: a DATA packet longer than the sender's current
 * path allows can only have left with DF off; a probe (a padded HEARTBEAT)
 * always carries DF. Nothing tells the sender about the hole: only the
 * probes find it. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include "ddp_test.h"
#include "ll_pair.h"
#include "sctp/sctp_ssn.h"

#define HOLE      1300 /* the largest IP datagram the path carries */
#define V4_UDP_IP 28
#define MSGS      100
/* usrsctp's path MTU (SCTP_STATUS) is the IP MTU less this: IPv4 and UDP
 * headers and the 12 octets usrsctp adds for AF_CONN (sctp_usrsctp_io.c) */
#define ASSOC_HDR 40

static struct ll_side server, client;

/* One direction of the hole: the sender's association (its path MTU
 * decides whether a datagram left with DF set) and what was dropped. */
struct hole {
	struct ll_side *sender;
	unsigned long dropped;
};
static struct hole to_server, to_client;

static unsigned hole_filter(void *user, uint8_t *pkt, size_t len)
{
	struct hole *h = user;
	uint32_t fits;
	if (len + V4_UDP_IP <= HOLE)
		return SCTP_LL_PASS;
	/* the first chunk a HEARTBEAT: a probe, DF set */
	if (len > 12 && pkt[12] == 4) {
		h->dropped++;
		return SCTP_LL_DROP;
	}
	/* the largest 4-aligned SCTP packet the sender's path MTU allows
	 * (usrsctp pads every chunk to 4 octets) */
	fits = h->sender->a ? sctp_ll_max_msg(h->sender->a) + 28 : 0;
	if (fits && len > fits)
		return SCTP_LL_PASS; /* DF off: the router fragments it */
	h->dropped++;
	return SCTP_LL_DROP;
}

static void spin(struct event_base *b)
{
	event_base_loop(b, EVLOOP_ONCE | EVLOOP_NONBLOCK);
	usleep(500);
}

static int setup(void **st)
{
	(void)st;
	alarm(60);
	memset(&server, 0, sizeof(server));
	memset(&client, 0, sizeof(client));
	memset(&to_server, 0, sizeof(to_server));
	memset(&to_client, 0, sizeof(to_client));
	to_server.sender = &client;
	to_client.sender = &server;
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	sctp_udp_plpmtud_set_timers_for_test(0, 0, 0);
	return 0;
}

/* Both ends on 127.0.0.1 with IP MTU cap 1500 behind the hole, up. */
static void make_pair(struct event_base *b, sctp_ll_ep **se, sctp_ll_ep **ce)
{
	sctp_ll_config c = {
	    .addr = "127.0.0.1", .port = -1, .nstreams = 4, .path_mtu = 1500, .unfragmented = 1};
	assert_int_equal(sctp_ll_ep_new(b, &c, se), 0);
	assert_int_equal(sctp_ll_ep_new(b, &c, ce), 0);
	assert_int_equal(sctp_ll_listen(*se, ll_side_accept, &server), 0);
	sctp_ll_set_filter(*se, hole_filter, &to_server);
	sctp_ll_set_filter(*ce, hole_filter, &to_client);
	assert_int_equal(
	    sctp_ll_connect(*ce, "127.0.0.1", sctp_ll_ep_port(*se), &ll_side_cbs, &client, &client.a), 0);
	for (int i = 0; i < 10000 && !(client.up && server.up); i++)
		spin(b);
	assert_true(client.up && server.up);
}

/* MSGS messages, each as large as the association allows when it is
 * sent (the first ones at the full 1500-octet size); then up to secs
 * seconds for them to arrive. Returns how many arrived. */
static unsigned long send_full(struct event_base *b, int secs)
{
	static uint8_t msg[70000];
	for (int i = 0; i < MSGS;) {
		uint32_t len = sctp_ll_max_msg(client.a);
		for (uint32_t k = 0; k < len; k++)
			msg[k] = (uint8_t)(i + k);
		int rc = sctp_ll_send(client.a, (uint16_t)(i % 4), SCTP_PPID_DDP, msg, len);
		if (rc == DDP_ERR_AGAIN) {
			spin(b);
			continue;
		}
		assert_int_equal(rc, 0);
		i++;
	}
	for (int i = 0; i < secs * 2000 && server.got < MSGS; i++)
		spin(b);
	return server.got;
}

static void report(const char *what, sctp_ll_ep *ep, sctp_ll_assoc *a)
{
	sctp_ll_io_stats io;
	sctp_ll_path ps;
	sctp_ll_ep_io_stats(ep, &io);
	memset(&ps, 0, sizeof(ps));
	(void)sctp_ll_path_status(a, &ps);
	print_message("%s: IP path MTU %u, max message %u; probes sent %llu acked %llu failed %llu "
	              "bad %llu; MTU drops %llu raises %llu\n",
	              what, ps.mtu + ASSOC_HDR, sctp_ll_max_msg(a),
	              (unsigned long long)io.probes_sent, (unsigned long long)io.probes_acked,
	              (unsigned long long)io.probes_failed, (unsigned long long)io.probe_bad_acks,
	              (unsigned long long)io.mtu_drops, (unsigned long long)io.mtu_raises);
}

/* The control: probes that never get past their first search size (a
 * PROBE_TIMER of 10 minutes). The path MTU stays at the interface's
 * 1500, every full-size packet falls into the hole, and nothing of the
 * messages arrives. */
static void test_black_hole_without_probing_stalls(void **st)
{
	struct event_base *b = event_base_new();
	sctp_ll_ep *se, *ce;
	sctp_ll_io_stats io;
	unsigned long got;
	(void)st;
	sctp_udp_plpmtud_set_timers_for_test(600000, 600000, 600000);
	make_pair(b, &se, &ce);
	uint32_t full = sctp_ll_max_msg(client.a);
	got = send_full(b, 4);
	report("client", ce, client.a);
	print_message("without probing: %lu of %d messages arrived, %lu datagrams dropped\n", got,
	              MSGS, to_server.dropped);
	sctp_ll_ep_io_stats(ce, &io);
	assert_int_equal(io.probes_failed, 0);
	assert_int_equal(sctp_ll_max_msg(client.a), full);
	assert_true(got < MSGS);
	assert_true(to_server.dropped > 0);
	sctp_ll_ep_free(ce);
	sctp_ll_ep_free(se);
	event_base_free(b);
}

/* RFC 8899 §4.3, §5.3.2: the probe of the interface MTU goes
 * unanswered MAX_PROBES times; the path falls back to the confirmed
 * BASE_PLPMTU and the search settles between it and the hole. Both ends
 * (the one that connected and the one that accepted) find it; the
 * association stays up and every message arrives, those cut for 1500
 * sent IP-fragmentable. */
static void test_black_hole_found_by_probes(void **st)
{
	struct event_base *b = event_base_new();
	sctp_ll_ep *se, *ce;
	sctp_ll_io_stats cio, sio;
	sctp_ll_path cp, sp;
	unsigned long got;
	(void)st;
	sctp_udp_plpmtud_set_timers_for_test(100, 600000, 600000);
	make_pair(b, &se, &ce);
	uint32_t full = sctp_ll_max_msg(client.a);
	got = send_full(b, 20);
	/* the server's search (over SACKs only) may still run: give it
	 * the time of a few sizes */
	for (int i = 0; i < 6000; i++) {
		sctp_ll_ep_io_stats(se, &sio);
		if (sio.probes_failed && sio.probes_acked >= 2)
			break;
		spin(b);
	}
	report("client", ce, client.a);
	report("server", se, server.a);
	print_message("with probing: %lu of %d messages arrived (first at max message %u), %lu "
	              "datagrams dropped\n",
	              got, MSGS, full, to_server.dropped);
	sctp_ll_ep_io_stats(ce, &cio);
	sctp_ll_ep_io_stats(se, &sio);
	assert_int_equal(got, MSGS);
	assert_int_equal(server.bad, 0);
	assert_false(client.down || server.down);
	assert_true(to_server.dropped > 0);
	/* the hole was found by failed probes, confirmed sizes fit it */
	assert_true(cio.probes_failed >= 1 && cio.probes_acked >= 2);
	assert_true(sio.probes_failed >= 1 && sio.probes_acked >= 2);
	assert_int_equal(cio.probe_bad_acks + sio.probe_bad_acks, 0);
	assert_int_equal(sctp_ll_path_status(client.a, &cp), 0);
	assert_int_equal(sctp_ll_path_status(server.a, &sp), 0);
	assert_true(cp.mtu + ASSOC_HDR <= HOLE && cp.mtu + ASSOC_HDR >= 1200);
	assert_true(sp.mtu + ASSOC_HDR <= HOLE && sp.mtu + ASSOC_HDR >= 1200);
	assert_true(sctp_ll_max_msg(client.a) < full);
	/* new messages at the found size go through whole */
	server.got = 0;
	assert_int_equal(send_full(b, 10), MSGS);
	sctp_ll_ep_free(ce);
	sctp_ll_ep_free(se);
	event_base_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_black_hole_without_probing_stalls, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_black_hole_found_by_probes, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
