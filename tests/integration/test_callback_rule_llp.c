/*
 * The callback rule of ddp.h ("Callbacks") for each LLP's own calls, the
 * table in tests/support/callback_rule.h: MPA's listen / connect /
 * wrap_fd / accept / reject / conn_free and SCTP's endpoint, initiate /
 * accept / reject (plain and enhanced), close and ep_free, each run with a
 * marker naming it; every callback checks the marker. A callback inside a
 * call the table does not allow it for fails the test (the MPA
 * CONNECTED event inside ddp_mpa_accept() did). test_callback_rule covers
 * the calls common to both LLPs. Real TCP and usrsctp on 127.0.0.1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>

#include "net_helpers.h"

#include "callback_rule.h"

static struct {
	struct event_base *base;
	ddp_ctx *ctx;
	int delivered;
} T;

static uint8_t payload[256];

static void run_until(const int *v, int want, double secs)
{
	double end = net_now_s() + secs;
	while (*v < want && net_now_s() < end)
		net_run_for(T.base, 0.01);
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)user;
	saw(CB_DELIVER);
	if (d->status == 0)
		T.delivered++;
}

static void send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	(void)s, (void)stream, (void)ctx, (void)status, (void)user;
	saw(CB_SEND_DONE);
}

static void error_cb(ddp_session *s, const ddp_error_info *e, void *user)
{
	(void)s, (void)e, (void)user;
	saw(CB_ERROR);
}

static void stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev, int status,
                         void *user)
{
	(void)s, (void)stream, (void)ev, (void)status, (void)user;
	saw(CB_STREAM_EVENT);
}

static void writable(ddp_session *s, uint32_t stream, void *user)
{
	(void)s, (void)stream, (void)user;
	saw(CB_WRITABLE);
}

static struct {
	ddp_mpa_conn *req[2]; /* MPA Requests waiting for our answer */
	ddp_mpa_conn *up[4];
	int nreq, nup, nend, ctl, assoc_up, assoc_down;
	ddp_sctp_assoc *a[4];
	int na;
	uint32_t initiated[8];
	int ninit;
	uint8_t buf[8][256];
} L;

static void ll_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	(void)req, (void)user;
	saw(CB_ACCEPT);
	L.req[L.nreq++] = c;
}

static void ll_mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	(void)err, (void)code, (void)user;
	saw(CB_EVENT);
	if (ev == DDP_MPA_CONNECTED) {
		ddp_session *s = CALL("ddp_mpa_session", ddp_mpa_session(c));
		assert_int_equal(
		    CALL("ddp_post_recv", ddp_post_recv(s, 0, 0, L.buf[L.nup], 256, NULL)), 0);
		L.up[L.nup++] = c;
		return;
	}
	L.nend++;
	VCALL("ddp_mpa_conn_free", ddp_mpa_conn_free(c));
}

static const ddp_callbacks ll_ddp = {.deliver = deliver,
                                     .send_done = send_done,
                                     .error = error_cb,
                                     .stream_event = stream_event,
                                     .writable = writable};

static void run_mpa_low(void)
{
	memset(&T, 0, sizeof(T));
	memset(&L, 0, sizeof(L));
	violations = 0;
	cur = MPA;
	T.base = event_base_new();
	assert_int_equal(ddp_ctx_new(NULL, &T.ctx), 0);
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_listener *l;
	assert_int_equal(CALL("ddp_mpa_listen",
	                      ddp_mpa_listen(T.base, T.ctx, (struct sockaddr *)&sa, sizeof(sa),
	                                     NULL, &ll_ddp, ll_accept, ll_mpa_event, NULL, &l)),
	                 0);
	sa = net_lo(CALL("ddp_mpa_listener_port", ddp_mpa_listener_port(l)));
	ddp_mpa_conn *c[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(
		    CALL("ddp_mpa_connect",
		         ddp_mpa_connect(T.base, T.ctx, (struct sockaddr *)&sa, sizeof(sa), NULL,
		                         &ll_ddp, ll_mpa_event, NULL, &c[i])),
		    0);
	/* a third over a socket pair: ddp_mpa_wrap_fd in both roles */
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ddp_mpa_conn *w[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(CALL("ddp_mpa_wrap_fd",
		                      ddp_mpa_wrap_fd(T.base, T.ctx, sv[i], i == 0, NULL, &ll_ddp,
		                                      NULL, ll_mpa_event, NULL, &w[i])),
		                 0);
	run_until(&L.nreq, 2, 10);
	assert_int_equal(L.nreq, 2);
	ddp_mpa_info info;
	assert_int_equal(CALL("ddp_mpa_get_info", ddp_mpa_get_info(L.req[0], &info)), 0);
	VCALL("ddp_mpa_set_user", ddp_mpa_set_user(L.req[0], NULL));
	assert_int_equal(CALL("ddp_mpa_accept", ddp_mpa_accept(L.req[0], NULL, 0)), 0);
	assert_int_equal(CALL("ddp_mpa_reject", ddp_mpa_reject(L.req[1], NULL, 0)), 0);
	run_until(&L.nend, 2, 10); /* the rejection at both ends */
	run_until(&L.nup, 4, 10);  /* the accepted pair, the wrapped pair */
	assert_int_equal(L.nup, 4);
	no_violation("MPA start-up");

	/* free connections with a posted buffer and a send queued: the
	 * flush runs inside the free (the table allows it) */
	struct iovec v = {payload, 100};
	for (int i = 0; i < 4; i++) {
		ddp_session *s = ddp_mpa_session(L.up[i]);
		assert_int_equal(
		    CALL("ddp_send_untagged", ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL)), 0);
		VCALL("ddp_mpa_conn_free", ddp_mpa_conn_free(L.up[i]));
	}
	VCALL("ddp_mpa_listener_free", ddp_mpa_listener_free(l));
	net_run_for(T.base, 0.05);
	no_violation("MPA frees");
	assert_true(allowed_hits[CB_DELIVER] > 0);
	assert_int_equal(ddp_ctx_free(T.ctx), 0);
	event_base_free(T.base);
}

static void ll_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	saw(CB_EVENT);
	if (status == 0) {
		for (uint32_t i = 0; i < 4; i++)
			assert_int_equal(
			    CALL("ddp_post_recv",
			         ddp_post_recv(s, i, 0, L.buf[L.na * 2 % 8], 256, NULL)),
			    0);
		L.assoc_up++;
		if (user) /* the connecting endpoint */
			L.a[L.na++] = a;
		return;
	}
	L.assoc_down++;
}

static void ll_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                   const void *priv, size_t priv_len, void *user)
{
	(void)a, (void)status, (void)priv, (void)priv_len, (void)user;
	saw(CB_SESSION_CTL);
	L.ctl++;
	if (ev == DDP_SCTP_INITIATE) {
		L.initiated[stream] = 1;
		L.ninit++;
		L.a[4 - 1] = a; /* the passive side's association */
	}
}

static void run_sctp_low(void)
{
	memset(&T, 0, sizeof(T));
	memset(&L, 0, sizeof(L));
	violations = 0;
	cur = SCTP;
	T.base = event_base_new();
	assert_int_equal(ddp_ctx_new(NULL, &T.ctx), 0);
	ddp_sctp_config c = {.nstreams = 4,
	                     .ctx = T.ctx,
	                     .ddp = ll_ddp,
	                     .sctp = {.assoc = ll_assoc, .session_ctl = ll_ctl}};
	ddp_sctp_ep *srv, *cli;
	assert_int_equal(CALL("ddp_sctp_ep_new", ddp_sctp_ep_new(T.base, &c, &srv)), 0);
	assert_int_equal(CALL("ddp_sctp_listen", ddp_sctp_listen(srv)), 0);
	c.user = &L;
	assert_int_equal(CALL("ddp_sctp_ep_new", ddp_sctp_ep_new(T.base, &c, &cli)), 0);
	int port = CALL("ddp_sctp_ep_port", ddp_sctp_ep_port(srv));
	ddp_sctp_assoc *a;
	for (int i = 0; i < 2; i++)
		assert_int_equal(
		    CALL("ddp_sctp_connect", ddp_sctp_connect(cli, "127.0.0.1", port, &a)), 0);
	run_until(&L.assoc_up, 4, 10);
	assert_int_equal(L.assoc_up, 4);
	ddp_sctp_assoc *ca = L.a[0];
	/* stream sessions: plain and enhanced, accepted and rejected */
	ddp_sctp_ird_ord io = {.ird = 1, .ord = 1};
	assert_int_equal(CALL("ddp_sctp_initiate", ddp_sctp_initiate(ca, 0, "a", 1)), 0);
	assert_int_equal(CALL("ddp_sctp_initiate", ddp_sctp_initiate(ca, 1, "b", 1)), 0);
	assert_int_equal(
	    CALL("ddp_sctp_initiate_enhanced", ddp_sctp_initiate_enhanced(ca, 2, &io, "c", 1)), 0);
	run_until(&L.ninit, 3, 10);
	assert_int_equal(L.ninit, 3);
	ddp_sctp_assoc *pa = L.a[3];
	assert_int_equal(CALL("ddp_sctp_accept", ddp_sctp_accept(pa, 0, NULL, 0)), 0);
	assert_int_equal(CALL("ddp_sctp_reject", ddp_sctp_reject(pa, 1, NULL, 0)), 0);
	assert_int_equal(
	    CALL("ddp_sctp_accept_enhanced", ddp_sctp_accept_enhanced(pa, 2, &io, NULL, 0)), 0);
	run_until(&L.ctl, 6, 10); /* 3 initiates, accepted, rejected, accepted */
	ddp_sctp_ird_ord pio;
	(void)CALL("ddp_sctp_peer_ird_ord", ddp_sctp_peer_ird_ord(pa, 2, &pio));
	ddp_sctp_stats st;
	VCALL("ddp_sctp_get_stats", ddp_sctp_get_stats(ca, &st));
	ddp_session *cs = CALL("ddp_sctp_session", ddp_sctp_session(ca));
	struct iovec v = {payload, 100};
	int d0 = T.delivered;
	assert_int_equal(CALL("ddp_send_untagged", ddp_send_untagged(cs, 0, 0, 0, &v, 1, NULL)), 0);
	run_until(&T.delivered, d0 + 1, 10);
	assert_int_equal(CALL("ddp_sctp_unlisten", ddp_sctp_unlisten(srv)), 0);
	no_violation("SCTP sessions");

	/* the ends: a graceful and an abortive association close, then the
	 * endpoints with a send queued and buffers posted */
	assert_int_equal(CALL("ddp_sctp_close", ddp_sctp_close(L.a[1], 0)), 0);
	assert_int_equal(CALL("ddp_sctp_close", ddp_sctp_close(ca, 1)), 0);
	run_until(&L.assoc_down, 4, 10);
	assert_int_equal(L.assoc_down, 4);
	no_violation("SCTP closes");
	VCALL("ddp_sctp_ep_free", ddp_sctp_ep_free(cli));
	VCALL("ddp_sctp_ep_free", ddp_sctp_ep_free(srv));
	no_violation("SCTP frees");
	assert_int_equal(ddp_ctx_free(T.ctx), 0);
	event_base_free(T.base);
}

static void test_mpa_own_calls_follow_the_rule(void **state)
{
	(void)state;
	run_mpa_low();
}

static void test_sctp_own_calls_follow_the_rule(void **state)
{
	(void)state;
	run_sctp_low();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mpa_own_calls_follow_the_rule),
	    cmocka_unit_test(test_sctp_own_calls_follow_the_rule),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
