/* MPA/TCP socket settings over real TCP on 127.0.0.1: the
 * ddp_mpa_config.tcp_congestion option (unknown names refused, a known one
 * set on every socket of the connection), and EMSS following TCP's MSS as
 * it grows after start-up (RFC 5044 §4.1: MULPDU from EMSS; DDP-LLP-1: the
 * change reaches DDP). Bounded by alarm(). */
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
#include "net_counts.h"
#include "net_helpers.h"

#define MSG (64 * 1024)
#define NMSG 256

static struct event_base *base;
static ddp_ctx *ctx;
static ddp_mpa_conn *srv;
static uint8_t *rbuf;

static int setup(void **st)
{
	alarm(30);
	base = event_base_new();
	rbuf = calloc(NMSG, MSG);
	memset(&cnt, 0, sizeof(cnt));
	srv = NULL;
	return base && rbuf && ddp_ctx_new(NULL, &ctx) == 0 ? 0 : -1;
}

static int teardown(void **st)
{
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
	free(rbuf);
	alarm(0);
	return 0;
}

/* the accepting side posts NMSG buffers for the client's messages */
static void accept_and_post(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	srv = c;
	ddp_session *s = ddp_mpa_session(c);
	for (int i = 0; i < NMSG; i++)
		assert_int_equal(ddp_post_recv(s, 0, 0, rbuf + (size_t)i * MSG, MSG, NULL), 0);
	assert_int_equal(ddp_mpa_accept(c, NULL, 0), 0);
}

/* TCP sockets of this process whose congestion control is `name` */
static int sockets_with_cc(const char *name)
{
	int n = 0;
	for (int fd = 0; fd < 1024; fd++) {
		char cc[32] = "";
		socklen_t l = sizeof(cc);
		if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc, &l) == 0 &&
		    strncmp(cc, name, sizeof(cc)) == 0)
			n++;
	}
	return n;
}

static ddp_mpa_listener *listen_with(const char *cc, int *port)
{
	ddp_mpa_config mc;
	memset(&mc, 0, sizeof(mc));
	mc.tcp_congestion = cc;
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_listener *l = NULL;
	assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc,
					&count_cbs, accept_and_post, count_mpa_event, NULL, &l),
			 0);
	*port = ddp_mpa_listener_port(l);
	return l;
}

static void test_mpa_tcp_congestion_unknown_name_refused(void **st)
{
	ddp_mpa_config mc;
	memset(&mc, 0, sizeof(mc));
	mc.tcp_congestion = "no-such-congestion-control";
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_listener *l = NULL;
	assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc,
					&count_cbs, NULL, count_mpa_event, NULL, &l),
			 DDP_ERR_INVAL);
	assert_null(l);
	ddp_mpa_conn *c = NULL;
	sa = net_lo(9);
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc,
					 &count_cbs, count_mpa_event, NULL, &c),
			 DDP_ERR_INVAL);
	assert_null(c);
}

/* reno on the listener (accepted sockets inherit it) and the client: all
 * three sockets use it, and messages flow */
static void test_mpa_tcp_congestion_applied(void **st)
{
	int before = sockets_with_cc("reno");
	int port;
	ddp_mpa_listener *l = listen_with("reno", &port);
	ddp_mpa_config mc;
	memset(&mc, 0, sizeof(mc));
	mc.tcp_congestion = "reno";
	struct sockaddr_in sa = net_lo(port);
	ddp_mpa_conn *c;
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc,
					 &count_cbs, count_mpa_event, NULL, &c),
			 0);
	for (int i = 0; i < 200 && cnt.connected < 2; i++)
		net_run_for(base, 0.01);
	assert_int_equal(cnt.connected, 2);
	assert_int_equal(sockets_with_cc("reno") - before, 3);
	struct iovec v = { rbuf, 100 };
	assert_int_equal(ddp_send_untagged(ddp_mpa_session(c), 0, 0, 0, &v, 1, NULL), 0);
	for (int i = 0; i < 200 && cnt.delivered < 1; i++)
		net_run_for(base, 0.01);
	assert_int_equal(cnt.delivered, 1);
	ddp_mpa_conn_free(c);
	ddp_mpa_conn_free(srv);
	ddp_mpa_listener_free(l);
}

/* Linux starts a connection's MSS at half the peer's first window (32 KiB
 * on loopback) and raises it once the window opened: MULPDU follows, up to
 * the RFC 5044 §3 maximum on loopback's 64 KiB MTU, and DDP segments with
 * it (fewer, larger FPDUs) */
static void test_mpa_mulpdu_follows_tcp_mss(void **st)
{
	int port;
	ddp_mpa_listener *l = listen_with(NULL, &port);
	struct sockaddr_in sa = net_lo(port);
	ddp_mpa_conn *c;
	/* all NMSG queued at once: a send queue that holds them */
	ddp_mpa_config big = { .revision = 2 };
	big.session.max_tx_octets = (uint64_t)NMSG * MSG;
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &big,
					 &count_cbs, count_mpa_event, NULL, &c),
			 0);
	for (int i = 0; i < 200 && cnt.connected < 2; i++)
		net_run_for(base, 0.01);
	assert_int_equal(cnt.connected, 2);
	ddp_mpa_info info;
	assert_int_equal(ddp_mpa_get_info(c, &info), 0);
	uint32_t first = info.mulpdu;
	uint8_t *src = calloc(1, MSG);
	struct iovec v = { src, MSG };
	for (int i = 0; i < NMSG; i++)
		assert_int_equal(ddp_send_untagged(ddp_mpa_session(c), 0, 0, 0, &v, 1, NULL), 0);
	for (int i = 0; i < 500 && cnt.delivered < NMSG; i++)
		net_run_for(base, 0.01);
	assert_int_equal(cnt.delivered, NMSG);
	net_run_for(base, 1.1); /* the once-a-second check at the latest */
	assert_int_equal(ddp_mpa_get_info(c, &info), 0);
	printf("MULPDU at start-up %u, after %d x 64 KiB %u\n", first, NMSG, info.mulpdu);
	assert_true(first < 64768);
	assert_int_equal(info.mulpdu, 64768);
	assert_int_equal(cnt.errors, 0);
	free(src);
	ddp_mpa_conn_free(c);
	ddp_mpa_conn_free(srv);
	ddp_mpa_listener_free(l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mpa_tcp_congestion_unknown_name_refused,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mpa_tcp_congestion_applied, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_mpa_mulpdu_follows_tcp_mss, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
