/* Off-path attacks on the SCTP UDP-encapsulation layer (RFC 6951 §5.5,
 * RFC 9260 App. C): forged ICMP errors and peer-table hash flooding, each
 * against real usrsctp associations on loopback inside a network
 * namespace of the test's own (unshare: route exceptions the forged ICMP
 * plants in the kernel die with it). The ICMP messages are forged through
 * a raw IPPROTO_ICMP socket; the peers through raw UDP (rawudp.h). Root
 * only: skipped otherwise.
 *
 *  - port unreachable quoting only the UDP header: counted, not fatal;
 *    host unreachable even with our tag: counted, not fatal
 *  - port unreachable with a wrong tag: discarded; with our tag: the
 *    association ends (a genuine one: test_sctp_dead_peer_detected)
 *  - frag needed MTU 68 / 0: data keeps moving, and a new association from
 *    that host may open with 500, 1000 and 8000-octet messages
 *  - a flood of frag needed with thousands of peers: O(1) each
 *  - sources whose unkeyed hash collides: no long chain; datagrams with a
 *    bad CRC32c never reach the peer table
 *
 * ICMP_TEST_OLD_API: build against the tree before the fix (no counters in
 * sctp_ll_io_stats): the behavioural assertions only. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>
#include "icmpforge.h"
#include "net_helpers.h"
#include "offpath.h"
#include "rawudp.h"
#include "sctp_end.h"
#include "ddp_test.h"
#include "sctp/usrsctp/sctp_ll.h"

#define NBUF 16
#define BUFLEN 16384

struct side {
	ddp_ctx *ctx;
	ddp_pd *pd;
	ddp_sctp_ep *ep;
	struct sctp_assoc_seen as;
	int open;
	unsigned long delivered, errors, sent_done;
	size_t last_len;
	ddp_error_info last_err;
	uint8_t (*rbuf)[BUFLEN];
	struct offpath_hdr hdr; /* client: of the last packet from the server */
};

static struct event_base *base;
static struct side srv, cli, cli2;
static uint8_t payload[BUFLEN];
static char logbuf[8][256];
static int nlog;

/* ------------------------------------------------------------ namespace */

static void forge(int raw, uint8_t type, uint8_t code, uint16_t mtu,
		  const char *src, int sport, const char *dst, int dport,
		  const uint8_t *q, size_t qn)
{
	assert_int_equal(icmp_forge(raw, type, code, mtu, src, sport, dst, dport, q, qn), 0);
}

static int raw_icmp(void)
{
	return icmp_raw_socket();
}

/* ------------------------------------------------------------ DDP side */

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	sctp_assoc_seen_note(&((struct side *)user)->as, a, s, status);
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev,
		   int status, const void *pd, size_t len, void *user)
{
	struct side *p = user;
	(void)status, (void)pd, (void)len;
	if (!p->rbuf)
		p->rbuf = calloc(NBUF, BUFLEN);
	int r = offpath_open_stream0(a, p->as.s, stream, ev, &p->rbuf[0][0], NBUF, BUFLEN);
	assert_true(r >= 0);
	if (r)
		p->open = 1;
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct side *p = user;
	if (d->status != 0)
		return;
	p->delivered++;
	p->last_len = d->len;
	ddp_post_recv(s, d->stream, 0, d->buf, d->buf_len, NULL);
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct side *p = user;
	(void)s;
	p->errors++;
	p->last_err = *e;
}

static void send_done(ddp_session *s, uint32_t stream, void *msg_ctx, int status,
		      void *user)
{
	struct side *p = user;
	(void)s, (void)stream, (void)msg_ctx, (void)status;
	p->sent_done++;
}

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	(void)user, (void)level;
	if (nlog < 8)
		snprintf(logbuf[nlog], sizeof(logbuf[0]), "%s", msg);
	nlog++;
}

static const ddp_callbacks side_ddp = {
	.deliver = deliver, .error = on_error, .send_done = send_done
};
static const ddp_sctp_callbacks side_sctp = { .assoc = on_assoc, .session_ctl = on_ctl };

static void side_init(struct side *p, const char *addr, int listen_)
{
	ddp_ctx_config cc;
	ddp_sctp_config c;
	memset(p, 0, sizeof(*p));
	memset(&cc, 0, sizeof(cc));
	cc.log = on_log;
	assert_int_equal(ddp_ctx_new(&cc, &p->ctx), 0);
	assert_int_equal(ddp_pd_new(p->ctx, &p->pd), 0);
	sctp_end_config(&c, p->ctx, p->pd, 1, &side_ddp, &side_sctp, p);
	c.addr = addr;
	assert_int_equal(sctp_end_open(base, &c, listen_, &p->ep), 0);
}

static void side_fini(struct side *p)
{
	if (p->ep)
		ddp_sctp_ep_free(p->ep);
	event_base_loop(base, EVLOOP_NONBLOCK);
	ddp_pd_free(p->pd);
	assert_int_equal(ddp_ctx_free(p->ctx), 0);
	free(p->rbuf);
	memset(p, 0, sizeof(*p));
}

static int run_until(const int *flag, double secs)
{
	return offpath_run_until(base, flag, secs);
}

static void run_for(double secs)
{
	int never = 0;
	run_until(&never, secs);
}

/* A client at caddr with stream 0 open to the server. */
static void open_client(struct side *c, const char *caddr)
{
	side_init(c, caddr, 0);
	assert_int_equal(ddp_sctp_connect(c->ep, "127.0.0.1", ddp_sctp_ep_port(srv.ep),
					  &c->as.a), 0);
	assert_true(run_until(&c->as.up, 5));
	assert_int_equal(ddp_sctp_initiate(c->as.a, 0, NULL, 0), 0);
	assert_true(run_until(&c->open, 5));
}

static void setup_pair(const char *caddr)
{
	side_init(&srv, "127.0.0.1", 1);
	open_client(&cli, caddr);
	assert_true(run_until(&srv.open, 5));
	nlog = 0;
}

/* The pair (the client at caddr) and a raw ICMP socket to forge with;
 * the server's and the client's ports in *sp, *cp. Returns the socket. */
static int forge_pair(const char *caddr, int *sp, int *cp)
{
	int raw = raw_icmp();
	assert_true(raw >= 0);
	setup_pair(caddr);
	*sp = ddp_sctp_ep_port(srv.ep);
	*cp = ddp_sctp_ep_port(cli.ep);
	return raw;
}

static void forge_pair_end(int raw)
{
	close(raw);
	side_fini(&cli);
	side_fini(&srv);
}

/* n messages of len octets from a to b, all delivered within secs. */
static int exchange(struct side *from, struct side *to, int n, size_t len, double secs)
{
	unsigned long want = to->delivered + (unsigned long)n;
	double end = net_now_s() + secs;
	struct iovec v = {payload, len};
	int sent = 0;
	while (to->delivered < want && net_now_s() < end && from->as.s) {
		while (sent < n && sent - (int)(to->delivered + n - want) < NBUF / 2) {
			if (ddp_send_untagged(from->as.s, 0, 0, (uint64_t)sent, &v, 1, NULL) != 0)
				break;
			sent++;
		}
		run_for(0.01);
	}
	return to->delivered >= want;
}

static sctp_ll_io_stats io(struct side *p)
{
	return offpath_io(p->ep);
}

static int setup(void **st)
{
	(void)st;
	memset(payload, 0x5a, sizeof(payload));
	return offpath_setup(&base);
}

static int teardown(void **st)
{
	(void)st;
	offpath_teardown(&base);
	return 0;
}

#define NEED_NETNS() OFFPATH_NEED_NETNS(base)

/* ------------------------------------------------------------ tests */

/* Finding 1: one forged port unreachable quoting only the UDP header (no
 * SCTP verification tag: RFC 6951 §5.5 says discard) used to abort every
 * association with that peer. Now: counted, logged, not fatal. A host
 * unreachable, even quoting our tag, is counted only. */
static void test_icmp_port_unreachable_without_tag_is_not_fatal(void **st)
{
	(void)st;
	NEED_NETNS();
	int sp, cp, raw = forge_pair("127.0.0.2", &sp, &cp);
	sctp_ll_set_filter(sctp_ddp_ep_ll(cli.ep), offpath_grab_hdr, &cli.hdr);
	assert_true(exchange(&srv, &cli, 4, 100, 5));
	assert_true(cli.hdr.have);
	forge(raw, 3, 3, 0, "127.0.0.1", sp, "127.0.0.2", cp, NULL, 0);
	forge(raw, 3, 1, 0, "127.0.0.1", sp, "127.0.0.2", cp, cli.hdr.b, 12);
	run_for(1.5);
	assert_false(srv.as.down);
	assert_false(cli.as.down);
	assert_true(exchange(&cli, &srv, 8, 1000, 5));
	assert_true(exchange(&srv, &cli, 8, 1000, 5));
#ifndef ICMP_TEST_OLD_API
	sctp_ll_io_stats s = io(&srv);
	print_message("icmp: unverified %lu ignored %lu dead %lu; log[0] %s\n",
		      (unsigned long)s.icmp_unverified, (unsigned long)s.icmp_ignored,
		      (unsigned long)s.icmp_dead, nlog ? logbuf[0] : "-");
	assert_int_equal(s.icmp_unverified, 1);
	assert_int_equal(s.icmp_ignored, 1);
	assert_int_equal(s.icmp_dead, 0);
	assert_true(nlog >= 2);
#endif
	forge_pair_end(raw);
}

/* A port unreachable is believed only with the tag of a packet we sent:
 * with a wrong tag it is discarded, with ours (all a genuine one carries,
 * see test_sctp_dead_peer_detected) the association ends at once. */
static void test_icmp_port_unreachable_with_our_tag_ends_association(void **st)
{
	(void)st;
	NEED_NETNS();
	uint8_t q[12];
	int sp, cp, raw = forge_pair("127.0.0.2", &sp, &cp);
	sctp_ll_set_filter(sctp_ddp_ep_ll(cli.ep), offpath_grab_hdr, &cli.hdr);
	assert_true(exchange(&srv, &cli, 4, 100, 5));
	assert_true(cli.hdr.have);
	memcpy(q, cli.hdr.b, 12);
	q[7] ^= 0x01; /* one bit off */
	forge(raw, 3, 3, 0, "127.0.0.1", sp, "127.0.0.2", cp, q, 12);
	run_for(1.0);
	assert_false(srv.as.down);
	assert_true(exchange(&cli, &srv, 4, 1000, 5));
	double t0 = net_now_s();
	forge(raw, 3, 3, 0, "127.0.0.1", sp, "127.0.0.2", cp, cli.hdr.b, 12);
	assert_true(run_until(&srv.as.down, 1.0));
	print_message("port unreachable with our tag: down after %.0f ms, status %d\n",
		      (net_now_s() - t0) * 1000, srv.as.down_status);
	assert_int_equal(srv.as.down_status, DDP_ERR_LLP);
#ifndef ICMP_TEST_OLD_API
	sctp_ll_io_stats s = io(&srv);
	assert_int_equal(s.icmp_unverified, 1);
	assert_int_equal(s.icmp_dead, 1);
#endif
	forge_pair_end(raw);
}

static int n_ok_first_messages(struct side *c)
{
	static const size_t sizes[] = {500, 1000, 8000};
	int ok = 0;
	for (int i = 0; i < 3; i++) {
		unsigned long e = srv.errors;
		if (exchange(c, &srv, 1, sizes[i], 3) && srv.errors == e &&
		    srv.last_len == sizes[i])
			ok++;
		else
			print_message("first message of %zu octets: not delivered "
				      "(server errors %lu, last (%u,%u,0x%02x))\n",
				      sizes[i], srv.errors, srv.last_err.layer,
				      srv.last_err.etype, srv.last_err.code);
	}
	return ok;
}

/* Finding 2: a forged frag needed with next-hop MTU 68 (then one with 0)
 * locks the kernel's route to the client's host at min_pmtu (552) for ten
 * minutes. Before, every datagram at our floor (576) failed with EMSGSIZE
 * and the association died, and a new association from that host was
 * refused on its first message over ~500 octets (the receive limit
 * followed the lowered path MTU). Now the data keeps moving (DF off
 * between the route's size and the floor) and what the server accepts
 * stays what it set up. The client sits on 127.0.0.2, so only the
 * server -> client route is lowered. */
static void test_icmp_frag_needed_tiny_mtu_keeps_data_moving(void **st)
{
	(void)st;
	NEED_NETNS();
	int sp, cp, raw = forge_pair("127.0.0.2", &sp, &cp);
	assert_true(exchange(&srv, &cli, 4, 4000, 5));
	forge(raw, 3, 4, 68, "127.0.0.1", sp, "127.0.0.2", cp, NULL, 0);
	forge(raw, 3, 4, 0, "127.0.0.1", sp, "127.0.0.2", cp, NULL, 0);
	run_for(0.2);
	/* both directions, messages over any of the limits in play */
	assert_true(exchange(&srv, &cli, 20, 4000, 8));
	assert_true(exchange(&cli, &srv, 20, 4000, 8));
	assert_true(exchange(&srv, &cli, 20, 548, 8));
	assert_false(srv.as.down);
	assert_false(cli.as.down);
	assert_int_equal(cli.errors, 0);
	assert_int_equal(srv.errors, 0);
	/* a new association from that host */
	open_client(&cli2, "127.0.0.2");
	assert_int_equal(n_ok_first_messages(&cli2), 3);
	assert_true(exchange(&srv, &cli2, 4, 4000, 8));
#ifndef ICMP_TEST_OLD_API
	sctp_ll_io_stats s = io(&srv);
	print_message("server: icmp unverified %lu, mtu drops %lu, sent with DF off %lu\n",
		      (unsigned long)s.icmp_unverified, (unsigned long)s.mtu_drops,
		      (unsigned long)s.tx_frag);
	assert_int_equal(s.icmp_unverified, 2);
	assert_int_equal(s.icmp_mtu, 0);
#endif
	side_fini(&cli2);
	forge_pair_end(raw);
}

static double cpu_s(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

#define NPLANT 3000
#define NFLOOD 300

/* Plant n idle peers on the server: 127.0.0.2, ports 1024 + i (as sources
 * whose handshakes got as far as the COOKIE ACK: a lone INIT leaves no
 * peer). */
static void plant_same_host(int rawudp, int n)
{
	(void)rawudp;
	for (int i = 0; i < n; i++)
		assert_int_equal(sctp_ll_ep_add_peer(sctp_ddp_ep_ll(srv.ep), "127.0.0.2",
						     1024 + i), 0);
	run_for(0.5);
}

/* Finding 3: every frag needed (MTU 0) re-read the route for each peer of
 * that host and scanned the whole table: ~20 ms of CPU per message with
 * thousands of peers. Now O(1): a classification, one lookup. */
static void test_icmp_frag_needed_flood_costs_o1_per_message(void **st)
{
	(void)st;
	NEED_NETNS();
	int ru = rawudp_open();
	assert_true(ru >= 0);
	int sp, cp, raw = forge_pair("127.0.0.1", &sp, &cp);
	plant_same_host(ru, NPLANT);
	print_message("peers on the server: %lu\n", (unsigned long)io(&srv).peers);
	assert_true(io(&srv).peers >= NPLANT / 2);
#ifndef ICMP_TEST_OLD_API
	uint64_t unv0 = io(&srv).icmp_unverified;
#endif
	double c0 = cpu_s(), t0 = net_now_s();
	for (int i = 0; i < NFLOOD; i++) {
		forge(raw, 3, 4, 0, "127.0.0.1", sp, "127.0.0.2", 1024 + i % NPLANT, NULL, 0);
		if (i % 20 == 19)
			run_for(0.001);
	}
	run_for(0.3);
	double cpu = cpu_s() - c0, wall = net_now_s() - t0;
	print_message("%d forged frag needed, %d peers: %.1f us CPU each (%.2f s wall, "
		      "shared machine)\n", NFLOOD, NPLANT, cpu * 1e6 / NFLOOD, wall);
#ifndef ICMP_TEST_OLD_API
	sctp_ll_io_stats s = io(&srv);
	assert_true(s.icmp_unverified - unv0 >= NFLOOD);
#endif
	/* generous: the old code took ~10 ms each here */
	assert_true(cpu * 1e6 / NFLOOD < 1000);
	assert_false(srv.as.down);
	assert_true(exchange(&cli, &srv, 4, 1000, 5));
	close(ru);
	forge_pair_end(raw);
}

/* The previous, unkeyed hash (FNV-1a over port and address, folded) and
 * its bucket in a table of 8192: what an attacker could compute. */
static uint32_t fnv_bucket(uint32_t ip, uint16_t port)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint8_t a[4];
	uint32_t nip = htonl(ip);
	uint16_t nport = htons(port);
	memcpy(a, &nip, 4);
	h = (h ^ nport) * 0x100000001b3ull;
	for (int i = 0; i < 4; i++)
		h = (h ^ a[i]) * 0x100000001b3ull;
	return (uint32_t)((h ^ (h >> 29)) & 8191);
}

#define NCOLL 4000
#define NJUNK 20000

/* Finding 4: sources picked so the old hash put them all in one bucket
 * made every lookup walk one chain (34.8 us a junk packet with 4,096 of
 * them, 1.9 us without). With the keyed hash they spread out; and a
 * datagram whose CRC32c is wrong is dropped before any lookup. */
static void test_peer_table_collision_flood_stays_flat(void **st)
{
	(void)st;
	NEED_NETNS();
	int ru = rawudp_open();
	uint8_t pkt[64];
	static uint32_t cip[NCOLL + 1];
	static uint16_t cport[NCOLL + 1];
	int n = 0;
	assert_true(ru >= 0);
	setup_pair("127.0.0.1");
	int port = ddp_sctp_ep_port(srv.ep);
	/* sources 127.0.x.y (x >= 2) : 1024.. in one old bucket */
	uint32_t target = fnv_bucket(0x7f000201u, 1024);
	for (uint32_t ip = 0x7f000201u; n <= NCOLL && ip < 0x7f00ffffu; ip++)
		for (uint32_t p = 1024; n <= NCOLL && p < 65535; p++)
			if (fnv_bucket(ip, (uint16_t)p) == target) {
				cip[n] = ip;
				cport[n] = (uint16_t)p;
				n++;
			}
	assert_int_equal(n, NCOLL + 1);
	/* peers at those sources (a lone INIT leaves none) */
	for (int i = 0; i < NCOLL; i++) {
		char a[INET_ADDRSTRLEN];
		struct in_addr in = { htonl(cip[i]) };
		inet_ntop(AF_INET, &in, a, sizeof(a));
		assert_int_equal(sctp_ll_ep_add_peer(sctp_ddp_ep_ll(srv.ep), a, cport[i]), 0);
	}
	run_for(0.5);
	assert_true(io(&srv).peers >= NCOLL);
#ifndef ICMP_TEST_OLD_API
	sctp_ll_io_stats s0 = io(&srv);
	print_message("%d colliding peers: longest chain %lu\n", NCOLL,
		      (unsigned long)s0.peer_max_chain);
	assert_true(s0.peer_max_chain <= 16);
#endif
	/* junk with a valid CRC from the last colliding source (unknown):
	 * one lookup each */
	size_t jl = rawudp_sctp(pkt, cport[NCOLL], (uint16_t)port, 0x12345678u, 0, 32, 7);
	double t0 = net_now_s(), c0 = cpu_s();
	uint64_t rx0 = io(&srv).rx_pkts;
	for (int i = 0; i < NJUNK; i++) {
		assert_int_equal(rawudp_send(ru, cip[NCOLL], cport[NCOLL], (uint16_t)port, pkt, jl), 0);
		if (i % 500 == 499)
			run_for(0.001);
	}
	for (int k = 0; k < 400 && io(&srv).rx_pkts < rx0 + NJUNK; k++)
		run_for(0.005);
	double cpu = cpu_s() - c0;
	print_message("%d junk datagrams from a colliding source: %.2f us CPU each, "
		      "sender included (%.2f s wall, shared machine)\n", NJUNK,
		      cpu * 1e6 / NJUNK, net_now_s() - t0);
#ifndef ICMP_TEST_OLD_API
	sctp_ll_io_stats s1 = io(&srv);
	uint64_t lk = s1.peer_lookups - s0.peer_lookups, pr = s1.peer_probes - s0.peer_probes;
	print_message("lookups %lu, entries compared %lu\n", (unsigned long)lk, (unsigned long)pr);
	assert_true(lk >= NJUNK);
	assert_true(pr <= 16 * lk);
	/* a bad CRC32c: counted, no lookup */
	pkt[8] ^= 0xff;
	for (int i = 0; i < 1000; i++)
		assert_int_equal(rawudp_send(ru, cip[i], cport[i], (uint16_t)port, pkt, jl), 0);
	run_for(0.3);
	sctp_ll_io_stats s2 = io(&srv);
	assert_true(s2.bad_crc >= s1.bad_crc + 1000);
	assert_true(s2.peer_lookups - s1.peer_lookups < 100); /* the association's own */
#else
	assert_true(cpu * 1e6 / NJUNK < 15);
#endif
	assert_false(srv.as.down);
	assert_true(exchange(&cli, &srv, 4, 1000, 5));
	close(ru);
	side_fini(&cli);
	side_fini(&srv);
}

/* A flood of forged ICMP errors about the association's own 4-tuple, with
 * tags we never sent: none may act, and none may cost a datagram. Each
 * used to, twice over: IP_RECVERR makes the socket's next send fail with
 * the report's error (EMSGSIZE, ECONNREFUSED), and that batch was dropped
 * or read as a route MTU drop; and the kernel's cached path MTU, lowered
 * by a forged frag-needed, refused every larger datagram (IP_PMTUDISC_DO).
 * ddp-soak's icmp load: 1,800 instead of 37,000 messages/s, and the
 * association lost. Now sends see neither: the path MTU stays, nothing is
 * dropped, the data arrives. */
static struct {
	int raw, sp, cp, n;
} fl;

static void flood_tick(evutil_socket_t fd, short what, void *arg)
{
	(void)fd, (void)what, (void)arg;
	for (int i = 0; i < 20; i++, fl.n++) {
		uint8_t q[12] = { 0 };
		int to_srv = fl.n & 1, from = to_srv ? fl.cp : fl.sp, to = to_srv ? fl.sp : fl.cp;
		uint32_t tag = 0x9e3779b9u * (uint32_t)(fl.n + 1);
		q[0] = (uint8_t)(from >> 8), q[1] = (uint8_t)from;
		q[2] = (uint8_t)(to >> 8), q[3] = (uint8_t)to;
		for (int k = 0; k < 4; k++)
			q[4 + k] = (uint8_t)(tag >> (24 - 8 * k));
		int k = (fl.n >> 1) & 3;
		(void)icmp_forge(fl.raw, 3, k < 2 ? 3 : 4, k == 3 ? 68 : 0, "127.0.0.1", from,
				 "127.0.0.1", to, q, k ? 12 : 0);
	}
}

static void test_icmp_flood_costs_the_association_nothing(void **st)
{
	(void)st;
	NEED_NETNS();
	fl.raw = forge_pair("127.0.0.1", &fl.sp, &fl.cp);
	fl.n = 0;
	struct event *t = event_new(base, -1, EV_PERSIST, flood_tick, NULL);
	struct timeval ms = { 0, 1000 };
	event_add(t, &ms);
	int ok = exchange(&cli, &srv, 3000, 1000, 30) && exchange(&srv, &cli, 3000, 1000, 30);
	event_free(t);
	sctp_ll_io_stats a = io(&cli), b = io(&srv);
	print_message("%d forged; client: tx drops %lu, mtu drops %lu, resent after a report "
		      "%lu; server: %lu, %lu, %lu\n",
		      fl.n, (unsigned long)a.tx_drops, (unsigned long)a.mtu_drops,
		      (unsigned long)a.tx_async_err, (unsigned long)b.tx_drops,
		      (unsigned long)b.mtu_drops, (unsigned long)b.tx_async_err);
	assert_true(ok);
	assert_false(srv.as.down);
	assert_false(cli.as.down);
	assert_int_equal(a.tx_drops + b.tx_drops, 0);
	assert_int_equal(a.mtu_drops + b.mtu_drops, 0);
	forge_pair_end(fl.raw);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_icmp_port_unreachable_without_tag_is_not_fatal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_icmp_port_unreachable_with_our_tag_ends_association, setup, teardown),
		cmocka_unit_test_setup_teardown(test_icmp_frag_needed_tiny_mtu_keeps_data_moving, setup, teardown),
		cmocka_unit_test_setup_teardown(test_icmp_frag_needed_flood_costs_o1_per_message, setup, teardown),
		cmocka_unit_test_setup_teardown(test_icmp_flood_costs_the_association_nothing, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_peer_table_collision_flood_stays_flat, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
