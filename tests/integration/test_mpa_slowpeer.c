/* Slow is not dead: ddp_mpa_config.dead_peer_timeout_ms
 * ends a connection only when the peer stops acknowledging, never for a
 * closed receive window.
 *  - a peer that stops reading (socket open, window closed, TCP answers
 *    the window probes) for several times the timeout is kept, and data
 *    flows again when it reads (RFC 1122 §4.2.2.17);
 *  - a peer that vanishes (its veth in a network namespace made here goes
 *    down) is dropped after about the timeout with DDP_ERR_TIMEOUT, both
 *    with data in flight (TCP_USER_TIMEOUT) and idle (keepalive), and the
 *    log names it: "peer unresponsive for N s" with its address.
 * Real TCP sockets under libevent; the peer is a plain socket that plays
 * the MPA Responder by hand and then reads (or not). Each test is bounded
 * by alarm(). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include "mpa_handpeer.h"
#include "net_helpers.h"
#include "netns_pair.h"

#define DEAD_MS 1500u

static struct event_base *base;
static ddp_ctx *ctx;

static int setup(void **st)
{
	alarm(50);
	return handpeer_env_new(&base, &ctx);
}

static int teardown(void **st)
{
	alarm(0);
	return handpeer_env_free(base, ctx);
}

/* A listener whose accepted sockets have a small receive buffer (the
 * window closes after a few KiB). Returns the fd, port in *port. */
static int small_listener(const char *addr, int *port)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0), rb = 4096;
	struct sockaddr_in sa = {.sin_family = AF_INET};
	socklen_t sl = sizeof(sa);
	assert_true(fd >= 0);
	inet_pton(AF_INET, addr, &sa.sin_addr);
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(fd, 8), 0);
	getsockname(fd, (struct sockaddr *)&sa, &sl);
	*port = ntohs(sa.sin_port);
	return fd;
}

/* A peer whose application stops reading for 4 x dead_peer_timeout_ms:
 * its window closes, its TCP answers the probes; the connection stays,
 * and when it reads again everything queued arrives and more flows.
 * Before the fix: DDP_MPA_FAILED after ~1.5 s (the write-stall check, and
 * Linux's TCP_USER_TIMEOUT applied to the closed window). */
static void test_mpa_peer_that_stops_reading_is_not_dropped(void **st)
{
	struct handpeer p;
	memset(&p, 0, sizeof(p));
	int port, lfd = small_listener("127.0.0.1", &port);
	struct sockaddr_in sa = net_lo(port);
	ddp_mpa_config mc = handpeer_config(DEAD_MS);
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc,
	                                 &handpeer_cbs, handpeer_on_event, &p, &p.c),
	                 0);
	int pfd = accept(lfd, NULL, NULL);
	assert_true(pfd >= 0);
	assert_int_equal(handpeer_respond(base, pfd, &p.connected), 0);
	/* stall: never read, keep the sender full */
	double t0 = net_now_s();
	long done_mid = -1;
	while (net_now_s() - t0 < 4.0 * DEAD_MS / 1000 && !p.failed) {
		handpeer_top_up(&p);
		net_run_for(base, 0.02);
		if (done_mid < 0 && net_now_s() - t0 > 1.0)
			done_mid = p.done_ok;
	}
	print_message(
	    "peer not reading for %.1f s: failed %d (%s), sends done %ld (%ld after 1 s)\n",
	    net_now_s() - t0, p.failed, p.failed ? ddp_strerror(p.fail_err) : "-", p.done_ok,
	    done_mid);
	assert_false(p.failed);
	assert_int_equal(p.done_ok, done_mid); /* really stalled: window closed */
	/* the peer reads again: what was queued and more arrives */
	uint64_t got = 0;
	long done_before = p.done_ok;
	t0 = net_now_s();
	while (net_now_s() - t0 < 2 && !p.failed) {
		handpeer_top_up(&p);
		net_run_for(base, 0.005);
		got += handpeer_drain(pfd, UINT64_MAX);
	}
	print_message("after the stall: %llu octets read, %ld more sends done\n",
	              (unsigned long long)got, p.done_ok - done_before);
	assert_false(p.failed);
	assert_int_equal(p.done_bad, 0);
	assert_true(p.done_ok - done_before > 64);
	assert_true(got >= (uint64_t)p.done_ok * HANDPEER_PAYLOAD / 2);
	assert_null(strstr(handpeer_log, "unresponsive"));
	ddp_mpa_conn_free(p.c);
	close(pfd);
	close(lfd);
}

/* ------------------------------------------------ the vanished peer */

#define NET_A "169.254.231.1"
#define NET_B "169.254.231.2"

/* Three connections from namespace A to a plain-socket peer in namespace
 * B over a veth pair: one carries data the peer reads, one is idle, one
 * is stuck behind the peer's closed window (the peer does not read it).
 * Then B's veth goes down (the peer vanishes: no FIN, no RST, no ACK). All
 * three fail with DDP_ERR_TIMEOUT: about dead_peer_timeout_ms later
 * (TCP_USER_TIMEOUT / keepalive), the stuck one when a window probe went
 * unanswered that long (on_live); the session's streams with them, and the
 * log says "peer unresponsive" with the peer's address. Before the fix:
 * DDP_ERR_LLP ("lower layer protocol failure"), nothing logged. */
static void test_mpa_vanished_peer_times_out(void **st)
{
	if (netns_pair_up("ddpslow", "dsp", NET_A, NET_B) != 0) {
		print_message("cannot create network namespaces (root and iproute2 needed)\n");
		skip();
	}
	int home = -1, port;
	assert_int_equal(netns_enter(netns_b, &home), 0);
	int lfd = small_listener(NET_B, &port);
	assert_int_equal(netns_enter(netns_a, &home), 0);
	struct handpeer busy, idle, stuck;
	memset(&busy, 0, sizeof(busy));
	memset(&idle, 0, sizeof(idle));
	memset(&stuck, 0, sizeof(stuck));
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
	inet_pton(AF_INET, NET_B, &sa.sin_addr);
	ddp_mpa_config mc = handpeer_config(DEAD_MS);
	int rc1 = ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &handpeer_cbs,
	                          handpeer_on_event, &busy, &busy.c);
	int rc2 = ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &handpeer_cbs,
	                          handpeer_on_event, &idle, &idle.c);
	int rc3 = ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &handpeer_cbs,
	                          handpeer_on_event, &stuck, &stuck.c);
	assert_int_equal(setns(home, CLONE_NEWNET), 0);
	close(home);
	assert_int_equal(rc1, 0);
	assert_int_equal(rc2, 0);
	assert_int_equal(rc3, 0);
	/* accept() order is the connect order on one listener */
	int pb = -1, pi = -1, ps = -1;
	for (int i = 0; i < 300 && ps < 0; i++) {
		net_run_for(base, 0.01);
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK);
		if (fd >= 0 && pb < 0)
			pb = fd;
		else if (fd >= 0 && pi < 0)
			pi = fd;
		else if (fd >= 0)
			ps = fd;
	}
	assert_true(pb >= 0 && pi >= 0 && ps >= 0);
	assert_int_equal(handpeer_respond(base, pb, &busy.connected), 0);
	assert_int_equal(handpeer_respond(base, pi, &idle.connected), 0);
	assert_int_equal(handpeer_respond(base, ps, &stuck.connected), 0);
	/* data flows for a while: the peer reads on busy's connection, not
	 * on stuck's (its window closes, it answers the window probes) */
	uint64_t got = 0;
	double t0 = net_now_s();
	while (net_now_s() - t0 < 1.0) {
		handpeer_top_up(&busy);
		handpeer_top_up(&stuck);
		net_run_for(base, 0.005);
		got += handpeer_drain(pb, UINT64_MAX);
	}
	assert_true(got > 0);
	assert_false(busy.failed || idle.failed || stuck.failed);
	/* the peer vanishes */
	assert_int_equal(netns_sh("ip -n %s link set %s down", netns_b, netns_veth_b), 0);
	t0 = net_now_s();
	while (net_now_s() - t0 < DEAD_MS / 1000.0 + 8 &&
	       !(busy.failed && idle.failed && stuck.failed)) {
		handpeer_top_up(&busy);
		net_run_for(base, 0.02);
	}
	double eb = busy.failed ? busy.t_failed - t0 : -1,
	       ei = idle.failed ? idle.t_failed - t0 : -1,
	       es = stuck.failed ? stuck.t_failed - t0 : -1;
	print_message("peer gone: busy connection failed after %.1f s (%s), idle after %.1f s "
	              "(%s), window closed after %.1f s (%s)\nlog: %s",
	              eb, ddp_strerror(busy.fail_err), ei, ddp_strerror(idle.fail_err), es,
	              ddp_strerror(stuck.fail_err), handpeer_log);
	assert_true(busy.failed);
	assert_true(idle.failed);
	assert_int_equal(busy.fail_err, DDP_ERR_TIMEOUT);
	assert_int_equal(idle.fail_err, DDP_ERR_TIMEOUT);
	/* behind a closed window: at the next window probe + the timeout */
	assert_true(stuck.failed);
	assert_int_equal(stuck.fail_err, DDP_ERR_TIMEOUT);
	assert_true(es >= DEAD_MS / 1000.0 * 0.7);
	assert_int_equal(busy.stream_err, DDP_ERR_TIMEOUT); /* the ULP's view */
	/* about the timeout: not before it, and within keepalive's slack */
	assert_true(eb >= DEAD_MS / 1000.0 * 0.7 && eb < DEAD_MS / 1000.0 + 4);
	assert_true(ei >= DEAD_MS / 1000.0 * 0.5 && ei < DEAD_MS / 1000.0 + 4);
	assert_non_null(strstr(handpeer_log, "unresponsive for"));
	assert_non_null(strstr(handpeer_log, NET_B));
	ddp_mpa_conn_free(busy.c);
	ddp_mpa_conn_free(idle.c);
	ddp_mpa_conn_free(stuck.c);
	close(pb);
	close(pi);
	close(ps);
	close(lfd);
	netns_pair_del();
	signal(SIGALRM, SIG_DFL);
	signal(SIGABRT, SIG_DFL);
}

static int teardown_ns(void **st)
{
	netns_pair_del();
	return teardown(st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_mpa_peer_that_stops_reading_is_not_dropped, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_mpa_vanished_peer_times_out, setup, teardown_ns),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
