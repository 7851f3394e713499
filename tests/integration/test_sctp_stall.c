/* Slow is not dead. SCTP failure detection (RFC 4960
 * §8.1-§8.3: heartbeat interval, path / association retransmission limits,
 * RTO bounds, and dead_peer_timeout_ms over them) comes from the
 * endpoint's configuration; with the defaults a stall shorter than
 * DDP_DEAD_PEER_TIMEOUT_MS (every datagram in both directions dropped
 * while an echo is in flight) is ridden out and the association carries
 * on afterwards (a longer one is a dead peer: test_dead_peer_both). An
 * endpoint configured for fast detection with the finer fields alone
 * still gives up within seconds. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>
#include "net_helpers.h"
#include "ddp_test.h"
#include "sctp/usrsctp/sctp_ll.h"
#include "sctp/sctp_ssn.h"

#ifndef STALL_S
#define STALL_S (DDP_DEAD_PEER_TIMEOUT_MS / 1000.0 - 2)
#endif

struct side {
	sctp_ll_assoc *a;
	int up, down, down_status;
	long got;
};

static struct event_base *base;
static sctp_ll_ep *se, *ce;
static struct side srv, cli;
static int blackhole;
static uint8_t mbuf[256];

static void on_event(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct side *s = user;
	sctp_ll_rinfo ri;
	long n;
	if (ev == SCTP_LL_EV_UP)
		s->up = 1;
	else if (ev == SCTP_LL_EV_DOWN) {
		s->down = 1;
		s->down_status = status;
	} else if (ev == SCTP_LL_EV_READABLE)
		while ((n = sctp_ll_recv(a, mbuf, sizeof(mbuf), &ri)) >= 0) {
			s->got++;
			sctp_ll_send(a, 0, SCTP_PPID_DDP, mbuf, (size_t)n);
		}
}

static const sctp_ll_assoc_cb cbs = {on_event};

static void on_accept(sctp_ll_ep *ep, sctp_ll_assoc *a, void *user)
{
	(void)ep;
	(void)user;
	srv.a = a;
	sctp_ll_assoc_set_cb(a, &cbs, &srv);
}

static unsigned drop_all(void *user, uint8_t *pkt, size_t len)
{
	(void)user;
	(void)pkt;
	(void)len;
	return blackhole ? SCTP_LL_DROP : SCTP_LL_PASS;
}

static void run_until(int *flag, double secs)
{
	double end = net_now_s() + secs;
	while (!*flag && net_now_s() < end)
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK), usleep(500);
}

/* Both ends configured as ddp_sctp_ep_new would from dc. */
static void pair_up(const ddp_sctp_config *dc)
{
	sctp_ll_config lc;
	sctp_ddp_ll_config(dc, &lc);
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	blackhole = 0;
	base = event_base_new();
	assert_int_equal(sctp_ll_ep_new(base, &lc, &se), 0);
	assert_int_equal(sctp_ll_listen(se, on_accept, NULL), 0);
	assert_int_equal(sctp_ll_ep_new(base, &lc, &ce), 0);
	sctp_ll_set_filter(se, drop_all, NULL);
	sctp_ll_set_filter(ce, drop_all, NULL);
	assert_int_equal(sctp_ll_connect(ce, "127.0.0.1", sctp_ll_ep_port(se), &cbs, &cli, &cli.a), 0);
	run_until(&cli.up, 5);
	run_until(&srv.up, 5);
	assert_true(cli.up && srv.up);
	memset(mbuf, 'e', 64);
	assert_int_equal(sctp_ll_send(cli.a, 0, SCTP_PPID_DDP, mbuf, 64), 0);
	net_run_for(base, 0.2);
	assert_true(cli.got > 0);
}

static void pair_down(void)
{
	sctp_ll_ep_free(ce);
	sctp_ll_ep_free(se);
	event_base_free(base);
}

static void test_sctp_default_rides_out_stall(void **st)
{
	ddp_sctp_config dc;
	(void)st;
	memset(&dc, 0, sizeof(dc));
	dc.port = -1;
	pair_up(&dc);
	blackhole = 1;
	double t0 = net_now_s();
	while (net_now_s() - t0 < STALL_S && !cli.down && !srv.down)
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK), usleep(1000);
	print_message("stall: %.1f s of silence; client %s, server %s\n", net_now_s() - t0,
	              cli.down ? "down" : "up", srv.down ? "down" : "up");
	assert_false(cli.down);
	assert_false(srv.down);
	blackhole = 0;
	long g = cli.got;
	/* the next retransmission (RTO backed off to at most a quarter of
	 * the dead-peer time) resumes it */
	double t1 = net_now_s();
	while (cli.got < g + 100 && net_now_s() - t1 < 15 && !cli.down)
		event_base_loop(base, EVLOOP_ONCE | EVLOOP_NONBLOCK), usleep(200);
	print_message("echo resumed %.1f s after the stall (%ld round trips; %s, status %d)\n",
	              net_now_s() - t1, cli.got - g, cli.down ? "down" : "up", cli.down_status);
	assert_true(cli.got >= g + 100);
	assert_false(cli.down || srv.down);
	pair_down();
}

static void test_sctp_fast_detection_is_configurable(void **st)
{
	ddp_sctp_config dc;
	(void)st;
	memset(&dc, 0, sizeof(dc));
	dc.port = -1;
	dc.hb_interval_ms = 300;
	dc.rto_min_ms = 100;
	dc.rto_initial_ms = 100;
	dc.rto_max_ms = 300;
	dc.path_max_retrans = 3;
	dc.assoc_max_retrans = 3;
	pair_up(&dc);
	blackhole = 1;
	double t0 = net_now_s();
	run_until(&cli.down, 10);
	print_message("fast settings: silent peer dead after %.1f s (status %d)\n", net_now_s() - t0,
	              cli.down_status);
	assert_true(cli.down);
	assert_int_equal(cli.down_status, DDP_ERR_TIMEOUT); /* as MPA's dead peer */
	assert_true(net_now_s() - t0 < 5);
	pair_down();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sctp_fast_detection_is_configurable),
	    cmocka_unit_test(test_sctp_default_rides_out_stall),
	};
	alarm(60);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
