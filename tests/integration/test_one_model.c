/*
 * The one adapter model: one ULP source — an echo
 * server and a client, written against ddp_conn_callbacks, the session's
 * user-data slots and ddp_session_addr() — runs over MPA/TCP and over SCTP;
 * only the setup calls differ (ddp_mpa_* vs ddp_sctp_* listen_on /
 * connect_to). Host strings: an IPv4 literal, a name ("localhost") and
 * IPv6 ("::1") where the machine has it. Both ends see up, stream_open for
 * every stream, every echo, and down with status 0 after an orderly close.
 * Real TCP sockets and real usrsctp associations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>

#include "conn_ulp.h"
#include "net_helpers.h"

#define NMSG 20
#define NSTREAMS 4

/* ------------------------------------------------ the ULP (any LLP) */

struct side {
	int is_client;
	int ups, downs, down_status, opens, got, bad, closed_sent;
	uint32_t open_mask;
	char peer[64], local[64];
	uint8_t rbuf[NSTREAMS][NMSG + 4][512];
	struct event_base *base;
};

static struct side srv, cli;
static ddp_listener *free_in_up; /* the server frees its listener in up() */
static const char msg[] = "one model, two LLPs";

static void up(ddp_session *s, void *user)
{
	struct side *x = user;
	x->ups++;
	ddp_session_set_user_data(s, x);
	if (!x->is_client && free_in_up) { /* allowed inside any callback */
		ddp_listener_free(free_in_up);
		free_in_up = NULL;
	}
	ddp_session_addr(s, 1, x->peer, sizeof(x->peer));
	ddp_session_addr(s, 0, x->local, sizeof(x->local));
}

static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	struct side *x = user;
	assert_ptr_equal(ddp_session_user_data(s), x);
	x->opens++;
	x->open_mask |= 1u << stream;
	/* more buffers than the client has messages in flight */
	for (unsigned i = 0; i < NMSG + 4; i++)
		assert_int_equal(ddp_post_recv(s, stream, 0, x->rbuf[stream][i], 512, NULL), 0);
	if (!x->is_client)
		return;
	for (unsigned k = 0; k < NMSG; k++) {
		struct iovec v = { (void *)msg, sizeof(msg) };
		assert_int_equal(ddp_send_untagged(s, stream, 0, k, &v, 1, NULL), 0);
	}
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct side *x = user;
	if (d->status)
		return;
	if (d->len != sizeof(msg) || memcmp(d->buf, msg, sizeof(msg)))
		x->bad++;
	x->got++;
	if (!x->is_client) { /* echo from the buffer, repost when sent */
		struct iovec v = { d->buf, d->len };
		assert_int_equal(ddp_send_untagged(s, d->stream, 0, d->rsvdulp, &v, 1, d->buf), 0);
		return;
	}
	ddp_post_recv(s, d->stream, 0, d->buf, d->buf_len, NULL);
	if (x->got == NMSG * (int)ddp_session_nstreams(s) && !x->closed_sent) {
		x->closed_sent = 1;
		assert_int_equal(ddp_session_close(s, 0), 0); /* in order */
	}
}

static void send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	(void)user;
	if (ctx && status == 0)
		ddp_post_recv(s, stream, 0, ctx, 512, NULL);
}

static void down(ddp_session *s, int status, void *user)
{
	struct side *x = user;
	(void)s;
	x->downs++;
	x->down_status = status;
	if (srv.downs && cli.downs)
		event_base_loopbreak(x->base);
}

static const ddp_conn_callbacks ulp = {
	.ddp = { .deliver = deliver, .send_done = send_done, .stream_event = conn_ulp_stream_event },
	.up = up,
	.stream_open = stream_open,
	.down = down,
};

/* ------------------------------------------- the setup calls differ */

static void run(enum conn_llp llp, const char *listen_host, const char *connect_host)
{
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	ddp_listener *l;
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	cli.is_client = 1;
	srv.base = cli.base = base;
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	ddp_sctp_config sc = { .nstreams = NSTREAMS };
	assert_int_equal(conn_listen_on(llp, base, ctx, listen_host, &sc, &ulp, &srv, &l), 0);
	int port = ddp_listener_port(l);
	assert_true(port > 0);
	assert_int_equal(conn_connect_to(llp, base, ctx, connect_host, port, &sc, &ulp, &cli), 0);
	net_run_for(base, 15);
	unsigned nstreams = llp == CONN_MPA ? 1 : NSTREAMS;
	assert_int_equal(cli.ups, 1);
	assert_int_equal(srv.ups, 1);
	assert_int_equal(cli.opens, nstreams);
	assert_int_equal(srv.opens, nstreams);
	assert_int_equal(cli.got, NMSG * nstreams);
	assert_int_equal(srv.got, NMSG * nstreams);
	assert_int_equal(cli.bad + srv.bad, 0);
	assert_int_equal(cli.downs, 1);
	assert_int_equal(srv.downs, 1);
	assert_int_equal(cli.down_status, 0);
	assert_int_equal(srv.down_status, 0);
	/* each end names the other: the client's peer is the server's local */
	char want[80];
	snprintf(want, sizeof(want), ":%d", port);
	assert_non_null(strstr(cli.peer, want));
	assert_non_null(strstr(srv.local, want));
	/* same port; an SCTP endpoint bound to a wildcard names it as such */
	assert_string_equal(strrchr(cli.local, ':'), strrchr(srv.peer, ':'));
	ddp_listener_free(l);
	event_base_loop(base, EVLOOP_NONBLOCK); /* the deferred frees */
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

/* the client sends on every stream: with MPA, stream 0 only */
static void test_mpa_ipv4(void **state)
{
	(void)state;
	run(CONN_MPA, "127.0.0.1", "127.0.0.1");
}

static void test_sctp_ipv4(void **state)
{
	(void)state;
	run(CONN_SCTP, "127.0.0.1", "127.0.0.1");
}

static void test_mpa_name_and_wildcard(void **state)
{
	(void)state;
	run(CONN_MPA, NULL, "localhost");
}

static void test_sctp_name(void **state)
{
	(void)state;
	run(CONN_SCTP, "127.0.0.1", "localhost");
}

static int have_ipv6_loopback(void)
{
	FILE *f = fopen("/proc/net/if_inet6", "r");
	char line[256];
	int ok = 0;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "00000000000000000000000000000001", 32))
			ok = 1;
	if (f)
		fclose(f);
	return ok;
}

static void test_ipv6_both(void **state)
{
	(void)state;
	if (!have_ipv6_loopback()) {
		skip();
		return;
	}
	run(CONN_MPA, "::1", "::1");
	run(CONN_SCTP, "::1", "::1");
}

/* ddp_listener_free() inside a callback of one of its connections: the
 * same on both LLPs: the connection lives on, the exchange completes and
 * both ends see down(0) (before, SCTP's associations were aborted with
 * the listener, without down on the server). No use after free either
 * way (ASan in make check-sanitize). */
static void free_listener_in_up(enum conn_llp llp)
{
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	cli.is_client = 1;
	srv.base = cli.base = base;
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	ddp_sctp_config sc = { .nstreams = 1 };
	assert_int_equal(conn_listen_on(llp, base, ctx, "127.0.0.1", &sc, &ulp, &srv, &free_in_up),
			 0);
	int port = ddp_listener_port(free_in_up);
	assert_int_equal(conn_connect_to(llp, base, ctx, "127.0.0.1", port, &sc, &ulp, &cli), 0);
	net_run_for(base, 10);
	assert_null(free_in_up);
	assert_int_equal(srv.ups, 1);
	assert_int_equal(cli.downs, 1);
	assert_int_equal(srv.downs, 1);
	assert_int_equal(cli.got, NMSG);
	assert_int_equal(cli.down_status, 0);
	assert_int_equal(srv.down_status, 0);
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

static void test_listener_free_inside_a_callback(void **state)
{
	(void)state;
	free_listener_in_up(CONN_MPA);
	free_listener_in_up(CONN_SCTP);
}

static void test_bad_setup(void **state)
{
	(void)state;
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	ddp_listener *l;
	ddp_conn_callbacks nodown = ulp;
	nodown.down = NULL;
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	assert_int_equal(ddp_mpa_connect_to(base, ctx, "no-such-host.invalid", 1, NULL, &ulp, NULL),
			 DDP_ERR_NOENT);
	assert_int_equal(ddp_sctp_connect_to(base, ctx, "no-such-host.invalid", 1, NULL, &ulp, NULL),
			 DDP_ERR_NOENT);
	assert_int_equal(ddp_mpa_connect_to(base, ctx, "127.0.0.1", 70000, NULL, &ulp, NULL),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_mpa_listen_on(base, ctx, NULL, 0, NULL, &nodown, NULL, &l),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_sctp_listen_on(base, ctx, NULL, 0, NULL, &nodown, NULL, &l),
			 DDP_ERR_INVAL);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpa_ipv4),	     cmocka_unit_test(test_sctp_ipv4),
		cmocka_unit_test(test_mpa_name_and_wildcard), cmocka_unit_test(test_sctp_name),
		cmocka_unit_test(test_ipv6_both),	     cmocka_unit_test(test_bad_setup),
		cmocka_unit_test(test_listener_free_inside_a_callback),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
