/* Integration: the congestion control module an endpoint asks for
 * (sctp_ll_config.cc, ddp_sctp_config.cc) is the one its associations run
 * at both ends, or the endpoint is refused (DDP_ERR_UNSUPPORTED) when the
 * usrsctp built in lacks it; the modules that may be the library's
 * default carry traffic through a lossy, corrupting, reordering path at
 * MTU 1500; and a busy sender's retransmission timer does not expire
 * while SACKs keep acknowledging its data.
 * Real usrsctp and libevent on loopback. */
#ifndef DDP_USRSCTP_PATCHED
#define DDP_USRSCTP_PATCHED 0
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>
#include "ddp_test.h"
#include "ll_pair.h"
#include "net_udpfault.h"
#include "sctp/sctp_ssn.h"

#define NSTREAMS 4

static struct ll_side server, client;
static struct udp_faults fs, fc;

static int setup(void **st)
{
	(void)st;
	alarm(90);
	memset(&server, 0, sizeof(server));
	memset(&client, 0, sizeof(client));
	return 0;
}

/* Both ends on loopback with module cc; DDP_ERR_UNSUPPORTED when this
 * usrsctp lacks it (then nothing is made). */
static int make_pair(struct event_base *b, unsigned cc, sctp_ll_ep **se, sctp_ll_ep **ce)
{
	sctp_ll_config c = {
	    .addr = "127.0.0.1", .port = -1, .nstreams = NSTREAMS, .unfragmented = 1, .cc = cc,
	    .path_mtu = 1500};
	int rc = sctp_ll_ep_new(b, &c, se);
	if (rc)
		return rc;
	assert_int_equal(sctp_ll_ep_new(b, &c, ce), 0);
	assert_int_equal(sctp_ll_listen(*se, ll_side_accept, &server), 0);
	assert_int_equal(
	    sctp_ll_connect(*ce, "127.0.0.1", sctp_ll_ep_port(*se), &ll_side_cbs, &client, &client.a),
	    0);
	ll_run_until(b, &client.up, NULL, 0, 5);
	ll_run_until(b, &server.up, NULL, 0, 5);
	assert_true(client.up && server.up);
	return 0;
}

/* Send n messages of len round the streams (waiting for room); run until
 * all arrived or secs passed. Returns the seconds it took. */
static double pump(struct event_base *b, int n, uint32_t len, int secs)
{
	static uint8_t msg[65536];
	struct timespec t0, t1;
	unsigned long want = server.got + (unsigned long)n;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < n;) {
		for (uint32_t j = 0; j < len; j++)
			msg[j] = (uint8_t)(i + j);
		int rc = sctp_ll_send(client.a, (uint16_t)(i % NSTREAMS), SCTP_PPID_DDP, msg, len);
		if (rc == DDP_ERR_AGAIN) {
			event_base_loop(b, EVLOOP_ONCE | EVLOOP_NONBLOCK);
			usleep(200);
			continue;
		}
		assert_int_equal(rc, 0);
		i++;
	}
	ll_run_until(b, NULL, &server.got, want, secs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_int_equal(server.got, want);
	assert_int_equal(server.bad, 0);
	return (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
}

static void close_pair(sctp_ll_ep *se, sctp_ll_ep *ce)
{
	sctp_ll_ep_free(ce);
	sctp_ll_ep_free(se);
}

/* Whether this build's usrsctp has module cc (patch 0005 adds CUBIC and
 * the per-socket option RTCC needs; the packaged one has neither). */
static int have_module(unsigned cc)
{
	return DDP_USRSCTP_PATCHED || (cc != DDP_SCTP_CC_RTCC && cc != DDP_SCTP_CC_CUBIC);
}

/* Every module: refused when absent; otherwise both ends' associations
 * report it and carry messages. The default reports a named module.
 * (test_sctp_ddp's faulty path carries the default module's traffic.) */
static void test_every_module_runs_at_both_ends(void **st)
{
	(void)st;
	for (unsigned cc = DDP_SCTP_CC_DEFAULT; cc <= DDP_SCTP_CC_CUBIC; cc++) {
		struct event_base *b = event_base_new();
		sctp_ll_ep *se, *ce;
		memset(&server, 0, sizeof(server));
		memset(&client, 0, sizeof(client));
		int rc = make_pair(b, cc, &se, &ce);
		print_message("cc %u: ep %d\n", cc, rc);
		if (!have_module(cc)) {
			assert_int_equal(rc, DDP_ERR_UNSUPPORTED);
			event_base_free(b);
			continue;
		}
		assert_int_equal(rc, 0);
		pump(b, 64, 1024, 10);
		int got_c = sctp_ll_assoc_cc(client.a), got_s = sctp_ll_assoc_cc(server.a);
		if (DDP_USRSCTP_PATCHED) {
			unsigned want = cc ? cc : DDP_SCTP_CC_CUBIC;
			assert_int_equal(got_c, want);
			assert_int_equal(got_s, want);
		} else {
			assert_int_equal(got_c, DDP_ERR_UNSUPPORTED);
			assert_int_equal(got_s, DDP_ERR_UNSUPPORTED);
		}
		close_pair(se, ce);
		event_base_free(b);
	}
	sctp_ll_config bad = {.addr = "127.0.0.1", .port = -1, .cc = DDP_SCTP_CC_CUBIC + 1};
	sctp_ll_ep *ep;
	struct event_base *b = event_base_new();
	assert_int_equal(sctp_ll_ep_new(b, &bad, &ep), DDP_ERR_INVAL);
	event_base_free(b);
}

/* usrsctp as it comes (ddp-perf's usrsctp-stock baseline) runs usrsctp's
 * own default module, RFC 4960, not the library's. */
static void test_stock_endpoint_runs_usrsctp_default(void **st)
{
	(void)st;
	struct event_base *b = event_base_new();
	sctp_ll_config c = {.addr = "127.0.0.1", .port = -1, .nstreams = NSTREAMS};
	sctp_ll_ep *se, *ce;
	assert_int_equal(sctp_ll_ep_new_stock(b, &c, &se), 0);
	assert_int_equal(sctp_ll_ep_new_stock(b, &c, &ce), 0);
	assert_int_equal(sctp_ll_listen(se, ll_side_accept, &server), 0);
	assert_int_equal(
	    sctp_ll_connect(ce, "127.0.0.1", sctp_ll_ep_port(se), &ll_side_cbs, &client, &client.a), 0);
	ll_run_until(b, &client.up, NULL, 0, 5);
	ll_run_until(b, &server.up, NULL, 0, 5);
	assert_true(client.up && server.up);
	if (DDP_USRSCTP_PATCHED) {
		assert_int_equal(sctp_ll_assoc_cc(client.a), DDP_SCTP_CC_RFC4960);
		assert_int_equal(sctp_ll_assoc_cc(server.a), DDP_SCTP_CC_RFC4960);
	}
	close_pair(se, ce);
	event_base_free(b);
}

/* Through 7 % each of drops, duplicates, holds and corruptions in both
 * directions (net_udpfault.h), 1,500 messages of one packet each arrive
 * intact: on this sub-millisecond path nearly every loss costs a time-out,
 * and a module that regains its window slowly after one does not finish. */
static void lossy_path(unsigned cc)
{
	struct event_base *b = event_base_new();
	sctp_ll_ep *se, *ce;
	if (!have_module(cc)) {
		print_message("cc %u: not in this usrsctp\n", cc);
		event_base_free(b);
		skip();
	}
	assert_int_equal(make_pair(b, cc, &se, &ce), 0);
	udp_faults_init(&fs, 3, 7, 12);
	udp_faults_init(&fc, 4, 7, 12);
	sctp_ll_set_filter(se, udp_faults_filter, &fs);
	sctp_ll_set_filter(ce, udp_faults_filter, &fc);
	uint32_t len = sctp_ll_max_msg(client.a);
	double s = pump(b, 1500, len, 60);
	print_message("cc %u: 1500 x %u octets through the faulty path in %.2f s (drops %lu of %lu)\n",
		      cc, len, s, fs.drop + fc.drop, fs.n + fc.n);
	assert_true(fs.drop > 0 && fc.drop > 0);
	close_pair(se, ce);
	event_base_free(b);
}

static void test_cubic_through_lossy_path(void **st)
{
	(void)st;
	lossy_path(DDP_SCTP_CC_CUBIC);
}

/* RFC 9260 §6.3.2 R3: each SACK that acknowledges the earliest outstanding
 * TSN restarts the T3-rtx timer, so a sender that keeps data in flight on
 * a clean path never sees it expire (patch 0008; the packaged usrsctp
 * restarts it only on SACKs with gap blocks, so there it expires every
 * RTO, 100 ms here, and the test only reports the count). The counter is
 * the process's: nothing else runs in it meanwhile. */
static void test_busy_sender_sees_no_t3_expiry(void **st)
{
	static uint8_t msg[1500];
	struct event_base *b = event_base_new();
	sctp_ll_ep *se, *ce;
	sctp_ll_path p0, p1;
	struct timespec t0, t;
	unsigned long sent = 0;
	(void)st;
	assert_int_equal(make_pair(b, DDP_SCTP_CC_DEFAULT, &se, &ce), 0);
	uint32_t len = sctp_ll_max_msg(client.a);
	assert_true(len <= sizeof(msg));
	assert_int_equal(sctp_ll_path_status(client.a, &p0), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		int rc = sctp_ll_send(client.a, (uint16_t)(sent % NSTREAMS), SCTP_PPID_DDP, msg, len);
		if (rc == DDP_ERR_AGAIN) {
			event_base_loop(b, EVLOOP_ONCE | EVLOOP_NONBLOCK);
		} else {
			assert_int_equal(rc, 0);
			sent++;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < 1.5);
	assert_int_equal(sctp_ll_path_status(client.a, &p1), 0);
	ll_run_until(b, NULL, &server.got, sent, 10);
	print_message("%lu messages of %u octets in 1.5 s, RTO %u ms: T3-rtx expiries %u, "
		      "retransmitted chunks %u\n",
		      sent, len, p1.rto_ms, p1.t3_expiries - p0.t3_expiries, p1.rtx - p0.rtx);
	assert_int_equal(server.got, sent);
	assert_true(sent > 10000);
	if (DDP_USRSCTP_PATCHED)
		assert_int_equal(p1.t3_expiries - p0.t3_expiries, 0);
	close_pair(se, ce);
	event_base_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(test_every_module_runs_at_both_ends, setup),
	    cmocka_unit_test_setup(test_stock_endpoint_runs_usrsctp_default, setup),
	    cmocka_unit_test_setup(test_cubic_through_lossy_path, setup),
	    cmocka_unit_test_setup(test_busy_sender_sees_no_t3_expiry, setup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
