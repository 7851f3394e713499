/* Integration: the SCTP path MTU (RFC 5043 §9: a DDP segment needs
 * neither SCTP nor IP fragmentation) and the batched UDP I/O, with real
 * usrsctp and libevent on loopback. path_mtu is an IP-level MTU cap; the
 * loopback route's MTU is read from /sys. Every datagram is seen by the
 * fault filter one by one (also after GRO splitting). */
#ifndef DDP_USRSCTP_PATCHED
#define DDP_USRSCTP_PATCHED 0
#endif
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

static struct ll_side server, client;
/* datagrams the server's filter saw (filter = every packet, one by one) */
static unsigned long seen;
static size_t seen_max;

static unsigned count_filter(void *user, uint8_t *pkt, size_t len)
{
	(void)user;
	(void)pkt;
	seen++;
	if (len > seen_max)
		seen_max = len;
	return SCTP_LL_PASS;
}

static int setup(void **st)
{
	(void)st;
	alarm(60);
	memset(&server, 0, sizeof(server));
	memset(&client, 0, sizeof(client));
	seen = 0;
	seen_max = 0;
	return 0;
}

/* Both ends at addr with IP MTU cap mtu; 0 if addr cannot be bound. */
static int make_pair(struct event_base *b, const char *addr, uint32_t mtu,
		     sctp_ll_ep **se, sctp_ll_ep **ce)
{
	sctp_ll_config c = { .addr = addr, .port = -1, .nstreams = 4,
			     .path_mtu = mtu, .unfragmented = 1 };
	if (sctp_ll_ep_new(b, &c, se) != 0)
		return 0;
	assert_int_equal(sctp_ll_ep_new(b, &c, ce), 0);
	assert_int_equal(sctp_ll_listen(*se, ll_side_accept, &server), 0);
	sctp_ll_set_filter(*se, count_filter, NULL);
	assert_int_equal(sctp_ll_connect(*ce, addr, sctp_ll_ep_port(*se), &ll_side_cbs,
					 &client, &client.a), 0);
	ll_run_until(b, &client.up, NULL, 0, 5);
	ll_run_until(b, &server.up, NULL, 0, 5);
	assert_true(client.up && server.up);
	return 1;
}

/* The formula of sctp_usrsctp_io.c: largest UDP payload for IP MTU m,
 * then usrsctp's fragmentation point for it. */
static uint32_t payload_of(uint32_t m, int v6)
{
	uint32_t p = m - (v6 ? 48 : 28);
	return p > 65507 ? 65507 : p;
}

static uint32_t max_msg_of(uint32_t m, int v6)
{
	uint32_t p = payload_of(m, v6);
	return p - 12 - 16 - p % 4;
}

static void fill(uint8_t *b, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)(seed + i);
}

/* Send n messages of len (waiting for room), run until all arrived. */
static void pump(struct event_base *b, int n, uint32_t len)
{
	static uint8_t msg[70000];
	unsigned long want = server.got + (unsigned long)n;
	for (int i = 0; i < n;) {
		fill(msg, len, (uint8_t)i);
		int rc = sctp_ll_send(client.a, (uint16_t)(i % 4), SCTP_PPID_DDP,
				      msg, len);
		if (rc == DDP_ERR_AGAIN) {
			event_base_loop(b, EVLOOP_ONCE | EVLOOP_NONBLOCK);
			continue;
		}
		assert_int_equal(rc, 0);
		i++;
	}
	ll_run_until(b, NULL, &server.got, want, 20);
	assert_int_equal(server.got, want);
	assert_int_equal(server.bad, 0);
}

static void close_pair(struct event_base *b, sctp_ll_ep *se, sctp_ll_ep *ce)
{
	sctp_ll_ep_free(ce);
	sctp_ll_ep_free(se);
	event_base_free(b);
}

static void check_mtu(const char *addr, uint32_t mtu, int v6)
{
	struct event_base *b = event_base_new();
	sctp_ll_ep *se, *ce;
	if (!make_pair(b, addr, mtu, &se, &ce)) {
		event_base_free(b);
		skip();
	}
	uint32_t mx = sctp_ll_max_msg(client.a);
	print_message("%s IP MTU %u: max message %u\n", addr, mtu, mx);
	assert_int_equal(mx, max_msg_of(mtu, v6));
	assert_int_equal(sctp_ll_max_msg(server.a), mx);
	assert_int_equal(sctp_ll_send(client.a, 0, SCTP_PPID_DDP, client.buf,
				      mx + 1), DDP_ERR_TOOBIG);
	pump(b, 300, mx);
	/* RFC 5043 §9: a full message is exactly one datagram of the
	 * largest payload the path carries */
	print_message("largest datagram %zu (payload limit %u)\n", seen_max,
		      payload_of(mtu, v6));
	/* the largest up to usrsctp's 4-octet chunk padding */
	assert_int_equal(seen_max, mx + 28);
	assert_true(seen_max <= payload_of(mtu, v6));
	assert_true(seen_max + 4 > payload_of(mtu, v6));
	close_pair(b, se, ce);
}

static void test_mtu_1500_ipv4_datagram_is_mtu_minus_28(void **st)
{
	(void)st;
	check_mtu("127.0.0.1", 1500, 0);
}

static void test_mtu_9000_ipv4(void **st)
{
	(void)st;
	check_mtu("127.0.0.1", 9000, 0);
}

static void test_mtu_1500_ipv6_datagram_is_mtu_minus_48(void **st)
{
	(void)st;
	check_mtu("::1", 1500, 1);
}

/* path_mtu 0: the loopback route's MTU (what `ip link` shows for lo). */
static void test_mtu_default_is_the_route(void **st)
{
	FILE *f = fopen("/sys/class/net/lo/mtu", "r");
	unsigned lo = 0;
	(void)st;
	if (!f)
		skip();
	assert_int_equal(fscanf(f, "%u", &lo), 1);
	fclose(f);
	check_mtu("127.0.0.1", 0 + lo, 0);
}

/* ICMP "fragmentation needed" (here through the same update path): the
 * association and MULPDU follow the lower MTU; nothing bigger leaves. */
static void test_mtu_drop_lowers_max_msg_and_datagrams(void **st)
{
	struct event_base *b = event_base_new();
	sctp_ll_ep *se, *ce;
	sctp_ll_io_stats io;
	(void)st;
	assert_true(make_pair(b, "127.0.0.1", 1500, &se, &ce));
	uint32_t old = sctp_ll_max_msg(client.a);
	pump(b, 50, old);
	ll_run_until(b, &client.dry, NULL, 0, 5);
	sctp_ll_assoc_mtu_drop(client.a, 1280);
	sctp_ll_ep_io_stats(ce, &io);
	assert_int_equal(sctp_ll_max_msg(client.a), max_msg_of(1280, 0));
	assert_int_equal(io.mtu_drops, 1);
	/* a larger MTU report is no decrease */
	sctp_ll_assoc_mtu_drop(client.a, 1400);
	assert_int_equal(sctp_ll_max_msg(client.a), max_msg_of(1280, 0));
	seen_max = 0;
	pump(b, 200, max_msg_of(1280, 0));
	assert_int_equal(seen_max, payload_of(1280, 0));
	/* a message cut for the old MTU still arrives (SCTP-fragmented) */
	pump(b, 1, old);
	assert_true(seen_max <= payload_of(1280, 0));
	close_pair(b, se, ce);
}

/* RFC 8899 §5.2, §4.6.2: a verified MTU drop holds only until
 * PMTU_RAISE_TIMER (here 1 s); then a probe confirms the interface MTU and
 * the association and its largest message go back up. The packaged
 * usrsctp never raises an association's path MTU (patch 0004 of the
 * series does): there the UDP layer's path MTU goes back up and the
 * association keeps the lower one, which is all that build can do. */
static void test_mtu_drop_raised_again_by_probe(void **st)
{
	struct event_base *b = event_base_new();
	sctp_ll_ep *se, *ce;
	sctp_ll_io_stats io;
	(void)st;
	sctp_udp_plpmtud_set_timers_for_test(200, 1000, 0);
	assert_true(make_pair(b, "127.0.0.1", 1500, &se, &ce));
	uint32_t full = sctp_ll_max_msg(client.a);
	pump(b, 20, full);
	for (int i = 0; i < 4000; i++) {
		sctp_ll_ep_io_stats(ce, &io);
		if (io.probes_acked >= 2)
			break;
		event_base_loop(b, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		usleep(500);
	}
	assert_true(io.probes_acked >= 2); /* BASE, then the interface MTU */
	sctp_ll_assoc_mtu_drop(client.a, 1280);
	assert_int_equal(sctp_ll_max_msg(client.a), max_msg_of(1280, 0));
	for (int i = 0; i < 8000 && sctp_ll_max_msg(client.a) != full; i++) {
		sctp_ll_ep_io_stats(ce, &io);
		if (!DDP_USRSCTP_PATCHED && io.mtu_raises)
			break;
		event_base_loop(b, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		usleep(500);
	}
	sctp_ll_ep_io_stats(ce, &io);
	print_message("after the drop: max_msg %u (full %u), raises %llu, probes %llu/%llu\n",
		      sctp_ll_max_msg(client.a), full, (unsigned long long)io.mtu_raises,
		      (unsigned long long)io.probes_acked, (unsigned long long)io.probes_sent);
	assert_int_equal(io.mtu_raises, 1);
	assert_int_equal(io.probe_bad_acks, 0);
	if (!DDP_USRSCTP_PATCHED) {
		assert_int_equal(sctp_ll_max_msg(client.a), max_msg_of(1280, 0));
		sctp_udp_plpmtud_set_timers_for_test(0, 0, 0);
		close_pair(b, se, ce);
		return;
	}
	assert_int_equal(sctp_ll_max_msg(client.a), full);
	seen_max = 0;
	pump(b, 50, full);
	assert_int_equal(seen_max, payload_of(1500, 0));
	sctp_udp_plpmtud_set_timers_for_test(0, 0, 0);
	close_pair(b, se, ce);
}

/* Many packets per system call both ways; the filter still sees every
 * packet alone; the same with the offloads switched off. */
static void batching(int offload)
{
	struct event_base *b = event_base_new();
	sctp_ll_ep *se, *ce;
	sctp_ll_io_stats tx, rx;
	(void)offload;
	assert_true(make_pair(b, "127.0.0.1", 1500, &se, &ce));
	if (!offload) {
		sctp_ll_set_offload(se, 0, 0);
		sctp_ll_set_offload(ce, 0, 0);
	}
	uint32_t mx = sctp_ll_max_msg(client.a);
	unsigned long seen0 = seen;
	sctp_ll_ep_io_stats(ce, &tx);
	sctp_ll_ep_io_stats(se, &rx);
	uint64_t tx0 = tx.tx_pkts, txc0 = tx.tx_calls, rx0 = rx.rx_pkts;
	pump(b, 2000, mx);
	sctp_ll_ep_io_stats(ce, &tx);
	sctp_ll_ep_io_stats(se, &rx);
	print_message("offload %d: client %llu datagrams in %llu calls (%llu "
		      "GSO); server %llu datagrams in %llu calls (%llu GRO)\n",
		      offload, (unsigned long long)(tx.tx_pkts - tx0),
		      (unsigned long long)(tx.tx_calls - txc0),
		      (unsigned long long)tx.tx_gso,
		      (unsigned long long)rx.rx_pkts, (unsigned long long)rx.rx_calls,
		      (unsigned long long)rx.rx_gro);
	assert_true(tx.tx_pkts - tx0 >= 2000);
	assert_true((tx.tx_pkts - tx0) >= 4 * (tx.tx_calls - txc0));
	assert_true(rx.rx_pkts - rx0 >= 2000);
	assert_true(rx.rx_pkts >= 4 * rx.rx_calls);
	/* counters count packets: each was filtered alone, none over MTU */
	assert_int_equal(seen - seen0, rx.rx_pkts - rx0);
	assert_int_equal(seen_max, payload_of(1500, 0));
	if (!offload)
		assert_int_equal(tx.tx_gso + rx.rx_gro, 0);
	close_pair(b, se, ce);
}

static void test_batched_io_counts_packets(void **st)
{
	(void)st;
	batching(1);
}

static void test_batched_io_without_offloads(void **st)
{
	(void)st;
	batching(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_mtu_1500_ipv4_datagram_is_mtu_minus_28, setup),
		cmocka_unit_test_setup(test_mtu_9000_ipv4, setup),
		cmocka_unit_test_setup(test_mtu_1500_ipv6_datagram_is_mtu_minus_48, setup),
		cmocka_unit_test_setup(test_mtu_default_is_the_route, setup),
		cmocka_unit_test_setup(test_mtu_drop_lowers_max_msg_and_datagrams, setup),
		cmocka_unit_test_setup(test_mtu_drop_raised_again_by_probe, setup),
		cmocka_unit_test_setup(test_batched_io_counts_packets, setup),
		cmocka_unit_test_setup(test_batched_io_without_offloads, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
