/* Off-path rules of the SCTP-over-UDP layer that docs/security.md (section
 * 3) states and no other test checks, each against a real usrsctp
 * association on loopback in a network namespace of the test's own
 * (unshare; forged ICMP plants route exceptions that die with it). The
 * server listens on 127.0.0.1, the client sits on 127.0.0.2; packets are
 * forged through a raw socket (rawudp.h, icmpforge.h). Root only: skipped
 * otherwise.
 *
 *  - a packet from the exact address and port of the live association's
 *    peer with a wrong verification tag (an ABORT, a SHUTDOWN) reaches
 *    usrsctp, which drops it (RFC 9260 §8.5): the association lives on.
 *    The same ABORT with the right tag ends it, so the packet would act if
 *    the tag were not checked;
 *  - a packet from a new UDP source port of the known host (a NAT that
 *    rebinds) is an unknown source: even with the association's own tag it
 *    is dropped before usrsctp (rx_unproven), and only a lone INIT makes
 *    that port a peer of its own; the live association is untouched;
 *  - discarded ICMP is logged at most NOTICES_PER_SEC (4) lines a second
 *    per socket, then one line with the count of those left out: a flood
 *    of 300 forged errors gives a handful of lines, and the lines plus the
 *    counts add up to the messages discarded. */
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
#include <ddp/sctp.h>
#include "icmpforge.h"
#include "net_helpers.h"
#include "offpath.h"
#include "rawudp.h"
#include "ddp_test.h"
#include "sctp/usrsctp/sctp_ll.h"

#define NBUF            8
#define BUFLEN          2048
#define CLIENT_IP       0x7f000002u
#define NFLOOD          300
#define NOTICES_PER_SEC 4 /* adapters/sctp/udp/sctp_udp_rx.c */

struct side {
	ddp_ctx *ctx;
	ddp_pd *pd;
	ddp_sctp_ep *ep;
	ddp_sctp_assoc *a;
	ddp_session *s;
	int up, down, down_status, open;
	unsigned long delivered;
	uint8_t rbuf[NBUF][BUFLEN];
	struct offpath_hdr hdr; /* of the last packet this side received */
};

static struct event_base *base;
static struct side srv, cli;
static uint8_t payload[BUFLEN];
/* the server's log: lines about its UDP socket */
static char srv_tag[32];
static int log_icmp, log_summary;
static unsigned long log_left_out;

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct side *p = user;
	if (status == 0) {
		p->a = a;
		p->s = s;
		p->up = 1;
		return;
	}
	p->down = 1;
	p->down_status = status;
	p->a = NULL;
	p->s = NULL;
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                   const void *pd, size_t len, void *user)
{
	struct side *p = user;
	(void)status, (void)pd, (void)len;
	int r = offpath_open_stream0(a, p->s, stream, ev, &p->rbuf[0][0], NBUF, BUFLEN);
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
	ddp_post_recv(s, d->stream, 0, d->buf, d->buf_len, NULL);
}

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	unsigned long n;
	(void)user, (void)level;
	if (!srv_tag[0] || strncmp(msg, srv_tag, strlen(srv_tag)) != 0)
		return;
	if (strstr(msg, "ICMP"))
		log_icmp++;
	else if (sscanf(msg + strlen(srv_tag), " %lu more notices not logged", &n) == 1)
		log_summary++, log_left_out += n;
}

static void side_init(struct side *p, const char *addr, int listen_)
{
	ddp_ctx_config cc;
	ddp_sctp_config c;
	memset(p, 0, sizeof(*p));
	memset(&cc, 0, sizeof(cc));
	cc.log = on_log;
	assert_int_equal(ddp_ctx_new(&cc, &p->ctx), 0);
	assert_int_equal(ddp_pd_new(p->ctx, &p->pd), 0);
	memset(&c, 0, sizeof(c));
	c.addr = addr;
	c.port = -1;
	c.nstreams = 1;
	c.ctx = p->ctx;
	c.session.pd = p->pd;
	c.ddp.deliver = deliver;
	c.sctp.assoc = on_assoc;
	c.sctp.session_ctl = on_ctl;
	c.user = p;
	assert_int_equal(ddp_sctp_ep_new(base, &c, &p->ep), 0);
	if (listen_)
		assert_int_equal(ddp_sctp_listen(p->ep), 0);
	sctp_ll_set_filter(sctp_ddp_ep_ll(p->ep), offpath_grab_hdr, &p->hdr);
}

static void side_fini(struct side *p)
{
	if (p->ep)
		ddp_sctp_ep_free(p->ep);
	event_base_loop(base, EVLOOP_NONBLOCK);
	ddp_pd_free(p->pd);
	assert_int_equal(ddp_ctx_free(p->ctx), 0);
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

/* n messages from one side to the other, all delivered within secs */
static int exchange(struct side *from, struct side *to, int n, double secs)
{
	unsigned long want = to->delivered + (unsigned long)n;
	double end = net_now_s() + secs;
	struct iovec v = {payload, 500};
	int sent = 0;
	while (to->delivered < want && net_now_s() < end && from->s) {
		while (sent < n && sent - (int)(to->delivered + n - want) < NBUF / 2 &&
		       ddp_send_untagged(from->s, 0, 0, 0, &v, 1, NULL) == 0)
			sent++;
		run_for(0.01);
	}
	return to->delivered >= want;
}

static sctp_ll_io_stats io(struct side *p)
{
	return offpath_io(p->ep);
}

/* the pair, and both headers learnt: srv.hdr is what the client sends
 * (ports, the server's tag), cli.hdr what the server sends */
static void setup_pair(void)
{
	side_init(&srv, "127.0.0.1", 1);
	side_init(&cli, "127.0.0.2", 0);
	assert_int_equal(ddp_sctp_connect(cli.ep, "127.0.0.1", ddp_sctp_ep_port(srv.ep), &cli.a),
	                 0);
	assert_true(run_until(&cli.up, 5));
	assert_int_equal(ddp_sctp_initiate(cli.a, 0, NULL, 0), 0);
	assert_true(run_until(&cli.open, 5));
	assert_true(run_until(&srv.open, 5));
	assert_true(exchange(&cli, &srv, 4, 5));
	assert_true(exchange(&srv, &cli, 4, 5));
	assert_true(srv.hdr.have && cli.hdr.have);
	snprintf(srv_tag, sizeof(srv_tag), "ddp-sctp udp %d:", ddp_sctp_ep_port(srv.ep));
	log_icmp = log_summary = 0;
	log_left_out = 0;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
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
	srv_tag[0] = 0;
	return 0;
}

#define NEED_NETNS() OFFPATH_NEED_NETNS(base)

/* RFC 9260 §8.5: a packet whose verification tag is not the association's
 * is discarded, also from the peer's exact address and port (the only
 * thing an off-path attacker can spoof). Our layer passes it on (a known
 * peer: rx_pkts, not rx_unproven); usrsctp drops it. */
static void test_wrong_tag_from_known_peer_is_dropped(void **st)
{
	(void)st;
	NEED_NETNS();
	int ru = rawudp_open();
	uint8_t pkt[64];
	assert_true(ru >= 0);
	setup_pair();
	uint16_t cport = (uint16_t)ddp_sctp_ep_port(cli.ep);
	uint16_t sport = (uint16_t)ddp_sctp_ep_port(srv.ep);
	/* the association's SCTP ports (inside the UDP payload) and tag */
	uint16_t ssp = (uint16_t)(srv.hdr.b[0] << 8 | srv.hdr.b[1]);
	uint16_t sdp = (uint16_t)(srv.hdr.b[2] << 8 | srv.hdr.b[3]);
	uint32_t tag = get32(srv.hdr.b + 4);
	sctp_ll_io_stats s0 = io(&srv);
	/* ABORT (RFC 9260 §3.3.7, T bit clear) and SHUTDOWN (§3.3.8) with
	 * tags one bit off, one octet off and zero */
	const uint32_t wrong[] = {tag ^ 1u, tag ^ 0x80000000u, tag ^ 0xff00u, 0};
	int nsent = 0;
	for (size_t i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++) {
		if (wrong[i] == tag)
			continue;
		size_t n = rawudp_sctp(pkt, ssp, sdp, wrong[i], 6, 4, 0);
		assert_int_equal(rawudp_send(ru, CLIENT_IP, cport, sport, pkt, n), 0);
		n = rawudp_sctp(pkt, ssp, sdp, wrong[i], 7, 8, (uint32_t)i);
		assert_int_equal(rawudp_send(ru, CLIENT_IP, cport, sport, pkt, n), 0);
		nsent += 2;
	}
	run_for(1.0);
	sctp_ll_io_stats s1 = io(&srv);
	print_message("%d packets with a wrong tag from the peer's address and port: rx %lu, "
	              "unproven %lu, peers %lu -> %lu\n",
	              nsent, (unsigned long)(s1.rx_pkts - s0.rx_pkts),
	              (unsigned long)(s1.rx_unproven - s0.rx_unproven), (unsigned long)s0.peers,
	              (unsigned long)s1.peers);
	/* they reached usrsctp as the known peer's */
	assert_true(s1.rx_pkts - s0.rx_pkts >= (uint64_t)nsent);
	assert_int_equal(s1.rx_unproven, s0.rx_unproven);
	assert_int_equal(s1.bad_crc, s0.bad_crc);
	assert_int_equal(s1.peers, s0.peers);
	/* and did nothing */
	assert_false(srv.down);
	assert_false(cli.down);
	assert_true(exchange(&cli, &srv, 8, 5));
	assert_true(exchange(&srv, &cli, 8, 5));
	/* the control: the same ABORT with the right tag ends it */
	size_t n = rawudp_sctp(pkt, ssp, sdp, tag, 6, 4, 0);
	assert_int_equal(rawudp_send(ru, CLIENT_IP, cport, sport, pkt, n), 0);
	assert_true(run_until(&srv.down, 2.0));
	print_message("the ABORT with the right tag: server association down (%s)\n",
	              ddp_strerror(srv.down_status));
	close(ru);
	side_fini(&cli);
	side_fini(&srv);
}

/* RFC 6951 §5.4 trusts a new encapsulation port only with a verified
 * packet; here stricter: the peer is the exact (address, port), so a
 * packet from another port of the same host is an unknown source. */
static void test_new_port_of_known_host_is_unknown_source(void **st)
{
	(void)st;
	NEED_NETNS();
	int ru = rawudp_open();
	uint8_t pkt[64];
	assert_true(ru >= 0);
	setup_pair();
	uint16_t cport = (uint16_t)ddp_sctp_ep_port(cli.ep);
	uint16_t sport = (uint16_t)ddp_sctp_ep_port(srv.ep);
	uint16_t nport = (uint16_t)(cport == 65535 ? 1024 : cport + 1);
	uint16_t ssp = (uint16_t)(srv.hdr.b[0] << 8 | srv.hdr.b[1]);
	uint16_t sdp = (uint16_t)(srv.hdr.b[2] << 8 | srv.hdr.b[3]);
	uint32_t tag = get32(srv.hdr.b + 4);
	sctp_ll_io_stats s0 = io(&srv);
	/* what the association itself would accept, from the new port: DATA
	 * (§3.3.1, random content), SHUTDOWN and ABORT with the right tag */
	static const struct {
		uint8_t type;
		uint16_t len;
	} kinds[] = {{0, 32}, {7, 8}, {6, 4}};
	for (size_t i = 0; i < 3; i++) {
		size_t n =
		    rawudp_sctp(pkt, ssp, sdp, tag, kinds[i].type, kinds[i].len, (uint32_t)i);
		assert_int_equal(rawudp_send(ru, CLIENT_IP, nport, sport, pkt, n), 0);
	}
	run_for(1.0);
	sctp_ll_io_stats s1 = io(&srv);
	print_message("3 packets with the association's tag from %u (its port %u): unproven "
	              "%lu, peers %lu -> %lu\n",
	              nport, cport, (unsigned long)(s1.rx_unproven - s0.rx_unproven),
	              (unsigned long)s0.peers, (unsigned long)s1.peers);
	assert_int_equal(s1.rx_unproven - s0.rx_unproven, 3);
	assert_int_equal(s1.peers, s0.peers);
	assert_false(srv.down);
	assert_true(exchange(&cli, &srv, 8, 5));
	/* a lone INIT from the new port goes up: usrsctp answers it, and
	 * nothing stays (no peer before a COOKIE ECHO checks out); the
	 * live association does not notice */
	size_t n = rawudp_sctp(pkt, ssp, sdp, 0, 1, 20, 7);
	assert_int_equal(rawudp_send(ru, CLIENT_IP, nport, sport, pkt, n), 0);
	run_for(0.5);
	sctp_ll_io_stats s2 = io(&srv);
	print_message("a lone INIT from %u: peers %lu, unproven %lu, sent %lu\n", nport,
	              (unsigned long)s2.peers, (unsigned long)(s2.rx_unproven - s0.rx_unproven),
	              (unsigned long)(s2.tx_pkts - s1.tx_pkts));
	assert_int_equal(s2.peers, s0.peers);
	assert_int_equal(s2.rx_unproven, s1.rx_unproven);
	assert_true(s2.tx_pkts > s1.tx_pkts);
	assert_false(srv.down);
	assert_false(cli.down);
	assert_true(exchange(&cli, &srv, 8, 5));
	assert_true(exchange(&srv, &cli, 8, 5));
	close(ru);
	side_fini(&cli);
	side_fini(&srv);
}

/* A flood of discarded ICMP (port unreachable quoting only the UDP header:
 * no tag) costs at most NOTICES_PER_SEC log lines a second, then one line
 * with the count left out. */
static void test_icmp_notices_are_rate_limited(void **st)
{
	(void)st;
	NEED_NETNS();
	int raw = icmp_raw_socket();
	assert_true(raw >= 0);
	setup_pair();
	int sp = ddp_sctp_ep_port(srv.ep), cp = ddp_sctp_ep_port(cli.ep);
	uint64_t unv0 = io(&srv).icmp_unverified;
	double t0 = net_now_s();
	for (int i = 0; i < NFLOOD; i++) {
		assert_int_equal(
		    icmp_forge(raw, 3, 3, 0, "127.0.0.1", sp, "127.0.0.2", cp, NULL, 0), 0);
		if (i % 50 == 49)
			run_for(0.01);
	}
	run_for(0.2);
	int lines = log_icmp;
	/* the next second's first notice flushes the count: wait for it */
	run_for(1.1);
	double secs = net_now_s() - t0;
	uint64_t discarded = io(&srv).icmp_unverified - unv0;
	int lines_all = log_icmp;
	assert_int_equal(icmp_forge(raw, 3, 3, 0, "127.0.0.1", sp, "127.0.0.2", cp, NULL, 0), 0);
	run_for(0.3);
	print_message("%llu ICMP errors discarded: %d log lines in the flood (%d in %.2f s), then "
	              "%d line(s) counting %lu left out\n",
	              (unsigned long long)discarded, lines, lines_all, secs, log_summary,
	              log_left_out);
	assert_true(discarded >= NFLOOD * 9 / 10); /* the error queue may drop a few */
	assert_true(lines >= 1);
	/* at most 4 in each second the flood touched */
	assert_true(lines_all <= NOTICES_PER_SEC * ((int)secs + 2));
	assert_true(log_summary >= 1);
	/* every discarded message is a line or in a count */
	assert_int_equal((uint64_t)lines_all + log_left_out, discarded);
	assert_int_equal(log_icmp, lines_all + 1);
	assert_false(srv.down);
	assert_true(exchange(&cli, &srv, 4, 5));
	close(raw);
	side_fini(&cli);
	side_fini(&srv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_wrong_tag_from_known_peer_is_dropped, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_new_port_of_known_host_is_unknown_source, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_icmp_notices_are_rate_limited, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
