/* Slow is not dead, when the peer's receive buffer shrinks after the
 * handshake: ddp_mpa_config.dead_peer_timeout_ms ends a connection only
 * when the peer stops acknowledging.
 *  - a peer that makes its receive buffer tiny (SO_RCVBUF) after the
 *    MPA start-up and reads only a trickle: the window it advertised is
 *    not withdrawn (Linux does not shrink windows), so octets already in
 *    flight are dropped by its TCP and stay unacknowledged while its
 *    ACKs keep coming; it is kept for 3x the timeout and data flows at
 *    full speed once it reads again;
 *  - the same peer reading nothing at all (its window goes to zero).
 * Before the fix both failed with DDP_ERR_TIMEOUT after about the timeout
 * (TCP_USER_TIMEOUT stayed armed because data was unacknowledged).
 * Real TCP on loopback; the peer is a plain socket that plays the MPA
 * Responder by hand. A vanished peer still fails in time:
 * test_mpa_slowpeer.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
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

#define DEAD_MS 1000u

static struct event_base *base;
static ddp_ctx *ctx;

static int setup(void **st)
{
	alarm(60);
	return handpeer_env_new(&base, &ctx);
}

static int teardown(void **st)
{
	alarm(0);
	return handpeer_env_free(base, ctx);
}

/* Our end of the TCP connection whose other end is pfd (the test sees
 * the socket's state through TCP_INFO). */
static int sender_fd(int pfd)
{
	struct sockaddr_in want, sa;
	socklen_t wl = sizeof(want), sl;
	if (getpeername(pfd, (struct sockaddr *)&want, &wl) != 0)
		return -1;
	for (int fd = 3; fd < 1024; fd++) {
		sl = sizeof(sa);
		if (fd != pfd && getsockname(fd, (struct sockaddr *)&sa, &sl) == 0 &&
		    sa.sin_family == AF_INET && sa.sin_port == want.sin_port &&
		    sa.sin_addr.s_addr == want.sin_addr.s_addr)
			return fd;
	}
	return -1;
}

/* trickle: octets the peer reads every 50 ms while its buffer is tiny
 * (0: none, its window closes) */
/* Connect, let data flow at full speed (the peer's buffer autotunes
 * large), then make the peer's buffer tiny while data is in flight: a
 * socket with octets queued over its buffer drops arrivals, and the
 * window it advertised stays (Linux does not withdraw it), so what is in
 * flight stays unacknowledged and the sender retransmits into the window,
 * ACKed but never accepted. Returns 1 when the sender is in that state
 * (unacknowledged octets, retransmission timer backed off); 0 when it
 * had nothing in flight at that moment (the window simply closed, which
 * test_mpa_slowpeer.c covers): the caller tries a new connection. */
static int shrink_in_flight(int lfd, int port, struct handpeer *p, int *pfd_out, double *t_shrink)
{
	struct sockaddr_in sa = net_lo(port);
	ddp_mpa_config mc = handpeer_config(DEAD_MS);
	memset(p, 0, sizeof(*p));
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &handpeer_cbs,
	                                 handpeer_on_event, p, &p->c),
	                 0);
	int pfd = accept(lfd, NULL, NULL);
	assert_true(pfd >= 0);
	assert_int_equal(handpeer_respond(base, pfd, &p->connected), 0);
	int sfd = sender_fd(pfd);
	assert_true(sfd >= 0);
	double t0 = net_now_s();
	uint64_t got = 0;
	while (net_now_s() - t0 < 0.3) {
		handpeer_top_up(p);
		net_run_for(base, 0.005);
		got += handpeer_drain(pfd, 65536);
	}
	assert_true(got > 0);
	handpeer_top_up(p);
	net_run_for(base, 0.002);
	int rb = 1;
	assert_int_equal(setsockopt(pfd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb)), 0);
	*t_shrink = t0 = net_now_s();
	while (net_now_s() - t0 < 0.5 && !p->failed) {
		handpeer_top_up(p);
		net_run_for(base, 0.02);
	}
	struct tcp_info ti;
	socklen_t tl = sizeof(ti);
	assert_int_equal(getsockopt(sfd, IPPROTO_TCP, TCP_INFO, &ti, &tl), 0);
	if (ti.tcpi_unacked > 0 && ti.tcpi_backoff > 0) {
		*pfd_out = pfd;
		return 1;
	}
	ddp_mpa_conn_free(p->c);
	close(pfd);
	return 0;
}

/* trickle: octets the peer reads every 50 ms while its buffer is tiny
 * (0: none) */
static void shrunk_peer_is_kept(size_t trickle)
{
	struct handpeer p;
	int port, lfd = net_raw_listener(&port), pfd = -1, tries = 0;
	double t_shrink = 0;
	assert_true(lfd >= 0);
	while (tries++ < 20 && !shrink_in_flight(lfd, port, &p, &pfd, &t_shrink))
		;
	assert_true(pfd >= 0);
	uint64_t slow = 0;
	while (net_now_s() - t_shrink < 3.0 * DEAD_MS / 1000 && !p.failed) {
		handpeer_top_up(&p);
		net_run_for(base, 0.05);
		if (trickle)
			slow += handpeer_drain(pfd, trickle);
	}
	print_message("(attempt %d) tiny receive buffer, reading %zu octets / 50 ms, for %.1f s: failed %d (%s),"
	              " %llu octets read meanwhile\n",
	              tries, trickle, net_now_s() - t_shrink, p.failed, p.failed ? ddp_strerror(p.fail_err) : "-",
	              (unsigned long long)slow);
	assert_false(p.failed);
	/* the peer reads normally again: data flows */
	int rb = 1 << 20;
	setsockopt(pfd, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	long done_before = p.done_ok;
	uint64_t got = 0;
	double t0 = net_now_s();
	/* TCP's retransmission timer backed off meanwhile (up to 1.6 s at
	 * this point): allow for it */
	while (net_now_s() - t0 < 4.0 && !p.failed) {
		handpeer_top_up(&p);
		net_run_for(base, 0.005);
		got += handpeer_drain(pfd, 65536);
	}
	print_message("after it reads again: %llu octets in 4 s, %ld more sends done\n",
	              (unsigned long long)got, p.done_ok - done_before);
	assert_false(p.failed);
	assert_int_equal(p.done_bad, 0);
	assert_true(p.done_ok - done_before > 64);
	assert_true(got > 64 * HANDPEER_PAYLOAD);
	assert_null(strstr(handpeer_log, "unresponsive"));
	ddp_mpa_conn_free(p.c);
	close(pfd);
	close(lfd);
}

static void test_mpa_peer_with_shrunk_buffer_reading_slowly_is_kept(void **st)
{
	shrunk_peer_is_kept(512);
}

static void test_mpa_peer_with_shrunk_buffer_not_reading_is_kept(void **st)
{
	shrunk_peer_is_kept(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_mpa_peer_with_shrunk_buffer_reading_slowly_is_kept,
	                                    setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mpa_peer_with_shrunk_buffer_not_reading_is_kept,
	                                    setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
