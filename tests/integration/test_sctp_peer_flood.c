/* A flood of junk datagrams from many UDP sources
 * creates no per-peer state (no calloc, no usrsctp address registration):
 * only a valid SCTP packet that is a lone INIT with verification tag 0
 * (RFC 4960 §8.5.1, §3.3.2) or a COOKIE ECHO goes up to usrsctp, and its
 * source stays a peer only when usrsctp's answer is a COOKIE ACK. The sources are spoofed 127.x.y.z:port through a raw
 * socket (root); without the privilege the test is skipped.
 *
 * Measured before and after the flood: the server's peer count (asserted
 * exactly), RSS (asserted within 20 % where meaningful), the time to set up
 * an association (cost per INIT) and an existing association's echo rate
 * (printed; asserted only loosely: the machine is shared). */
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
#include "net_helpers.h"
#include "proc_stats.h"
#include "rawudp.h"
#include "sctp/usrsctp/sctp_ll.h"
#include "sctp/sctp_ssn.h"

#ifndef FLOOD_N
#define FLOOD_N 50000 /* 200,000 in the issue; the effect shows at 50,000 */
#endif
#define NINIT 8

struct side {
	sctp_ll_assoc *a;
	int up, down, is_server;
	long got;
};

static struct event_base *base;
static sctp_ll_ep *se, *ce;
static struct side srv[2];
static int nsrv;
static struct side cli;
static uint8_t mbuf[2048];

static void on_event(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct side *s = user;
	sctp_ll_rinfo ri;
	long n;
	(void)status;
	if (ev == SCTP_LL_EV_UP)
		s->up = 1;
	else if (ev == SCTP_LL_EV_DOWN)
		s->down = 1;
	else if (ev == SCTP_LL_EV_READABLE)
		while ((n = sctp_ll_recv(a, mbuf, sizeof(mbuf), &ri)) >= 0) {
			s->got++;
			/* server echoes, client sends the next one */
			sctp_ll_send(a, 0, SCTP_PPID_DDP, mbuf, (size_t)n);
		}
}

static const sctp_ll_assoc_cb cbs = {on_event};

static void on_accept(sctp_ll_ep *ep, sctp_ll_assoc *a, void *user)
{
	(void)ep;
	(void)user;
	struct side *s = &srv[nsrv++ % 2]; /* the echo needs no per-assoc state */
	s->a = a;
	s->is_server = 1;
	sctp_ll_assoc_set_cb(a, &cbs, s);
}

static void run_until(int *flag, double secs)
{
	double end = net_now_s() + secs;
	while (!*flag && net_now_s() < end)
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK), usleep(200);
}

static sctp_ll_io_stats stats(void)
{
	sctp_ll_io_stats st;
	sctp_ll_ep_io_stats(se, &st);
	return st;
}

/* Cost per INIT: mean set-up time of NINIT associations opened one after
 * another (each closed again) from a second endpoint. */
static double init_cost_us(void)
{
	double t0 = net_now_s();
	for (int i = 0; i < NINIT; i++) {
		sctp_ll_config cc = {.port = -1, .unfragmented = 1};
		sctp_ll_ep *e;
		struct side c = {0};
		assert_int_equal(sctp_ll_ep_new(base, &cc, &e), 0);
		assert_int_equal(sctp_ll_connect(e, "127.0.0.1", sctp_ll_ep_port(se), &cbs, &c, &c.a), 0);
		run_until(&c.up, 5);
		assert_true(c.up);
		sctp_ll_ep_free(e);
	}
	return (net_now_s() - t0) * 1e6 / NINIT;
}

/* Echo round trips per second of the existing association over 1 s. */
static double echo_rate(void)
{
	long g0 = cli.got;
	double t0 = net_now_s();
	net_run_for(base, 1.0);
	return (double)(cli.got - g0) / (net_now_s() - t0);
}

static void flood(int fd, int port, uint32_t first, uint32_t n)
{
	uint8_t pkt[256];
	uint64_t want = stats().rx_pkts;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t ip;
		uint16_t sp;
		size_t len;
		rawudp_source(first + i, &ip, &sp);
		switch (i % 4) {
		case 0: /* one octet */
			len = 1;
			pkt[0] = (uint8_t)i;
			break;
		case 1: /* an INIT with a bad CRC */
			len = rawudp_sctp(pkt, sp, (uint16_t)port, 0, 1, 20, i);
			pkt[8] ^= 1;
			break;
		case 2: /* valid CRC, a DATA chunk with some tag */
			len = rawudp_sctp(pkt, sp, (uint16_t)port, i * 2654435761u | 1, 0, 48, i);
			break;
		default: /* valid CRC, INIT with a non-zero tag */
			len = rawudp_sctp(pkt, sp, (uint16_t)port, i | 1, 1, 20, i);
			break;
		}
		assert_int_equal(rawudp_send(fd, ip, sp, (uint16_t)port, pkt, len), 0);
		want++;
		if (i % 1000 == 999) /* let the server keep up (its socket buffer) */
			for (int k = 0; k < 200 && stats().rx_pkts + 100 < want; k++)
				event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK), usleep(200);
	}
	for (int k = 0; k < 2000 && stats().rx_pkts < want; k++)
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK), usleep(500);
}

static void pair_up(uint32_t idle_ms)
{
	sctp_ll_config sc = {.port = -1, .unfragmented = 1, .peer_idle_ms = idle_ms};
	sctp_ll_config cc = {.port = -1, .unfragmented = 1};
	base = event_base_new();
	memset(srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	nsrv = 0;
	assert_int_equal(sctp_ll_ep_new(base, &sc, &se), 0);
	assert_int_equal(sctp_ll_listen(se, on_accept, NULL), 0);
	assert_int_equal(sctp_ll_ep_new(base, &cc, &ce), 0);
	assert_int_equal(sctp_ll_connect(ce, "127.0.0.1", sctp_ll_ep_port(se), &cbs, &cli, &cli.a), 0);
	run_until(&cli.up, 5);
	assert_true(cli.up);
	memset(mbuf, 'x', 64);
	assert_int_equal(sctp_ll_send(cli.a, 0, SCTP_PPID_DDP, mbuf, 64), 0);
}

static void pair_down(void)
{
	sctp_ll_ep_free(ce);
	sctp_ll_ep_free(se);
	event_base_free(base);
}

static void test_sctp_junk_flood_creates_no_peers(void **st)
{
	int fd = rawudp_open();
	(void)st;
	if (fd < 0) {
		print_message("no raw socket (not root): skipped\n");
		skip();
	}
	pair_up(0);
	net_run_for(base, 0.3);
	double init0 = init_cost_us(), rate0 = echo_rate();
	uint64_t peers0 = stats().peers;
	long rss0 = proc_rss_kib();
	double t0 = net_now_s();
	flood(fd, sctp_ll_ep_port(se), 0, FLOOD_N);
	double secs = net_now_s() - t0;
	sctp_ll_io_stats s1 = stats();
	long rss1 = proc_rss_kib();
	double init1 = init_cost_us(), rate1 = echo_rate();
	print_message("junk flood: %u datagrams from %u sources in %.2f s; peers %lu -> %lu, "
	              "dropped unproven %lu, bad CRC counted in rx\n",
	              FLOOD_N, FLOOD_N, secs, (unsigned long)peers0, (unsigned long)s1.peers,
	              (unsigned long)s1.rx_unproven);
	print_message("cost per INIT %.0f -> %.0f us; echo %.0f -> %.0f /s; RSS %ld -> %ld KiB\n",
	              init0, init1, rate0, rate1, rss0, rss1);
	/* no state for any junk source */
	assert_int_equal(s1.peers, peers0);
	assert_true(s1.rx_unproven >= FLOOD_N / 2);
	if (proc_rss_meaningful())
		assert_true(rss1 <= rss0 + rss0 / 5);
	/* loose: the machine is shared with other benchmarks */
	assert_true(rate1 >= rate0 / 3);
	assert_true(init1 <= 3 * init0 + 20000);
	close(fd);
	pair_down();
}

/* A valid lone INIT is answered (usrsctp's INIT ACK) but leaves no peer
 * behind: the listener is stateless until the COOKIE ECHO (RFC 9260 §5.1). */
static void test_sctp_init_only_peers_expire(void **st)
{
	int fd = rawudp_open();
	uint8_t pkt[64];
	(void)st;
	if (fd < 0)
		skip();
	pair_up(1000);
	uint64_t peers0 = stats().peers, conn0 = stats().conn_addrs, tx0 = stats().tx_pkts;
	for (uint32_t i = 0; i < 200; i++) {
		uint32_t ip;
		uint16_t sp;
		rawudp_source(100000 + i, &ip, &sp);
		size_t len = rawudp_sctp(pkt, sp, (uint16_t)sctp_ll_ep_port(se), 0, 1, 20, i);
		assert_int_equal(rawudp_send(fd, ip, sp, (uint16_t)sctp_ll_ep_port(se), pkt, len), 0);
	}
	net_run_for(base, 0.3);
	sctp_ll_io_stats s1 = stats();
	print_message("200 INITs: peers %lu -> %lu, usrsctp addresses %lu -> %lu, "
	              "datagrams sent %lu\n",
	              (unsigned long)peers0, (unsigned long)s1.peers, (unsigned long)conn0,
	              (unsigned long)s1.conn_addrs, (unsigned long)(s1.tx_pkts - tx0));
	assert_int_equal(s1.peers, peers0);
	assert_true(s1.tx_pkts - tx0 >= 200); /* each INIT answered */
	/* usrsctp walks its addresses on every packet of a bound-all
	 * association: a peer that only sent an INIT is not one of them */
	assert_int_equal(s1.conn_addrs, conn0);
	assert_int_equal(conn0, 1); /* the legitimate association's peer */
	net_run_for(base, 2.5);
	sctp_ll_io_stats s2 = stats();
	print_message("after 2.5 s idle: peers %lu, expired %lu\n", (unsigned long)s2.peers,
	              (unsigned long)s2.peers_expired);
	/* the legitimate association's peer stays */
	assert_int_equal(s2.peers, peers0);
	assert_true(cli.up && !cli.down);
	long g = cli.got;
	net_run_for(base, 0.2);
	assert_true(cli.got > g);
	close(fd);
	pair_down();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sctp_junk_flood_creates_no_peers),
	    cmocka_unit_test(test_sctp_init_only_peers_expire),
	};
	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
