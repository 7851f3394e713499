/*
 * test_sctp_init_flood: spoofed INITs do not lock new clients out.
 * 2,000 valid INITs a second from ever new spoofed 127.x.y.z sources
 * (through a raw socket: root / CAP_NET_RAW, else skipped) reach a
 * listening endpoint; after 3 s of it, eight new clients connect one after
 * another while the flood goes on: each association must be up within 1 s,
 * and the listener keeps no state for the spoofed sources (RFC 9260 §5.1:
 * an INIT costs its answer, state comes with the COOKIE ECHO).
 */
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
#include "common/crc32c.h"
#include "net_helpers.h"
#include "rawudp.h"
#include "sctp/usrsctp/sctp_ll.h"

#define RATE      2000 /* spoofed INITs a second */
#define TICK_MS   5
#define WARMUP_S  3.0
#define NCLIENTS  8
#define UP_WITHIN 1.0 /* seconds */

struct side {
	sctp_ll_assoc *a;
	int up, down;
};

static struct event_base *base;
static sctp_ll_ep *se;
static int raw_fd;
static uint32_t nspoofed;

static void on_event(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct side *s = user;
	(void)a;
	(void)status;
	if (!s)
		return;
	if (ev == SCTP_LL_EV_UP)
		s->up = 1;
	else if (ev == SCTP_LL_EV_DOWN)
		s->down = 1;
}

static const sctp_ll_assoc_cb cbs = {on_event};

static void on_accept(sctp_ll_ep *ep, sctp_ll_assoc *a, void *user)
{
	(void)ep;
	(void)user;
	sctp_ll_assoc_set_cb(a, &cbs, NULL);
}

/* A valid INIT (RFC 9260 §3.3.2): tag 0, nonzero Initiate Tag, a window,
 * one stream each way, a random initial TSN. */
static size_t spoofed_init(uint8_t *pkt, uint16_t sport, uint16_t dport, uint32_t seed)
{
	size_t len = rawudp_sctp(pkt, sport, dport, 0, 1, 20, seed);
	uint32_t itag = seed * 2654435761u | 1;
	pkt[16] = (uint8_t)(itag >> 24), pkt[17] = (uint8_t)(itag >> 16);
	pkt[18] = (uint8_t)(itag >> 8), pkt[19] = (uint8_t)itag;
	pkt[20] = 0, pkt[21] = 1, pkt[22] = 0, pkt[23] = 0; /* a_rwnd 65536 */
	pkt[24] = 0, pkt[25] = 1, pkt[26] = 0, pkt[27] = 1; /* OS, MIS */
	memset(pkt + 8, 0, 4);
	ddp_crc32c_put_wire(pkt + 8, ddp_crc32c(0, pkt, len));
	return len;
}

static void flood_cb(evutil_socket_t fd, short what, void *arg)
{
	uint8_t pkt[64];
	(void)fd;
	(void)what;
	(void)arg;
	for (int i = 0; i < RATE * TICK_MS / 1000; i++) {
		uint32_t ip;
		uint16_t sp;
		rawudp_source(200000 + nspoofed, &ip, &sp);
		size_t len = spoofed_init(pkt, sp, (uint16_t)sctp_ll_ep_port(se), nspoofed);
		if (rawudp_send(raw_fd, ip, sp, (uint16_t)sctp_ll_ep_port(se), pkt, len) == 0)
			nspoofed++;
	}
}

static sctp_ll_io_stats stats(void)
{
	sctp_ll_io_stats st;
	sctp_ll_ep_io_stats(se, &st);
	return st;
}

static void test_sctp_spoofed_init_flood_leaves_new_clients_connecting(void **st)
{
	(void)st;
	raw_fd = rawudp_open();
	if (raw_fd < 0)
		skip();
	base = event_base_new();
	sctp_ll_config sc = {.port = -1, .unfragmented = 1};
	assert_int_equal(sctp_ll_ep_new(base, &sc, &se), 0);
	assert_int_equal(sctp_ll_listen(se, on_accept, NULL), 0);
	struct event *fl = event_new(base, -1, EV_PERSIST, flood_cb, NULL);
	struct timeval tick = {0, TICK_MS * 1000};
	event_add(fl, &tick);
	net_run_for(base, WARMUP_S);
	sctp_ll_io_stats s0 = stats();
	print_message("after %.0f s: %u spoofed INITs sent, %lu datagrams in, peers %lu\n",
	              WARMUP_S, nspoofed, (unsigned long)s0.rx_pkts, (unsigned long)s0.peers);

	sctp_ll_ep *ce[NCLIENTS];
	struct side c[NCLIENTS];
	double worst = 0;
	int late = 0;
	memset(c, 0, sizeof(c));
	for (int i = 0; i < NCLIENTS; i++) {
		sctp_ll_config cc = {.port = -1, .unfragmented = 1};
		assert_int_equal(sctp_ll_ep_new(base, &cc, &ce[i]), 0);
		double t0 = net_now_s();
		assert_int_equal(
		    sctp_ll_connect(ce[i], "127.0.0.1", sctp_ll_ep_port(se), &cbs, &c[i], &c[i].a),
		    0);
		while (!c[i].up && !c[i].down && net_now_s() - t0 < UP_WITHIN)
			event_base_loop(base, EVLOOP_ONCE);
		double t = net_now_s() - t0;
		if (!c[i].up)
			late++;
		if (t > worst)
			worst = t;
		print_message("client %d: %s in %.0f ms\n", i, c[i].up ? "up" : "not up", t * 1e3);
	}
	sctp_ll_io_stats s1 = stats();
	print_message("%u spoofed INITs in all; listener: peers %lu (%lu of them used), "
	              "dropped without state %lu + %lu; slowest client %.0f ms\n",
	              nspoofed, (unsigned long)s1.peers, (unsigned long)s1.conn_addrs,
	              (unsigned long)s1.rx_unproven, (unsigned long)s1.init_limited, worst * 1e3);
	assert_int_equal(late, 0);
	/* only the clients' sources are peers */
	assert_true(s1.peers <= NCLIENTS);
	/* the flood really ran at its rate */
	assert_true(nspoofed >= (uint32_t)(RATE * WARMUP_S * 0.8));

	event_free(fl);
	for (int i = 0; i < NCLIENTS; i++)
		sctp_ll_ep_free(ce[i]);
	sctp_ll_ep_free(se);
	event_base_loop(base, EVLOOP_NONBLOCK);
	event_base_free(base);
	close(raw_fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sctp_spoofed_init_flood_leaves_new_clients_connecting),
	};
	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
