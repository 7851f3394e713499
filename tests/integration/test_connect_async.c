/*
 * Asynchronous connect with a handle, both LLPs (ddp_mpa_connect_async /
 * _addr, ddp_sctp_connect_async / _addr, ddp_connect_cancel):
 *  - the calls return before any callback; up, stream_open and down come
 *    from the loop; the name goes through evdns (a numeric host: evdns
 *    answers at once, still delivered from the loop);
 *  - a sockaddr works as a host string does;
 *  - a connect cancelled while its name is resolved, or while TCP / the
 *    SCTP association is being set up, says nothing more (no up, no down)
 *    and leaves nothing behind (ASan / valgrind, ddp_ctx_free succeeds).
 * Real TCP sockets and real usrsctp associations on 127.0.0.1.
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

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>

#include "conn_ulp.h"
#include "net_helpers.h"

static struct conn_end srv, cli;
static ddp_connecting *handle;

static struct event_base *base;
static ddp_ctx *ctx;
static ddp_listener *ls;
static int port;
static const ddp_sctp_config sc = { .nstreams = 2 };

static void start(enum conn_llp l)
{
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	cli.handle = &handle; /* the handle is gone once up() or down() is called */
	handle = NULL;
	base = event_base_new();
	assert_non_null(base);
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	assert_int_equal(conn_listen_on(l, base, ctx, "127.0.0.1", &sc, &conn_ulp, &srv, &ls), 0);
	port = ddp_listener_port(ls);
	assert_true(port > 0);
}

static void finish(void)
{
	ddp_listener_free(ls);
	net_run_for(base, 0.05); /* the deferred frees */
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

/* up, the streams, an orderly close: down(0) on both ends */
static void full_life(enum conn_llp l)
{
	conn_ulp_wait(base, &cli.ups, 1, 10);
	conn_ulp_wait(base, &srv.opens, 1, 10);
	conn_ulp_wait(base, &cli.opens, 1, 10);
	assert_int_equal(cli.ups, 1);
	assert_null(handle);
	assert_true(cli.opens >= 1 && srv.opens >= 1);
	assert_int_equal(ddp_session_close(cli.s, 0), 0);
	conn_ulp_wait(base, &cli.downs, 1, 10);
	conn_ulp_wait(base, &srv.downs, 1, 10);
	print_message("%s: up, %d streams open, down %d / %d\n", l == CONN_MPA ? "MPA" : "SCTP",
		      cli.opens, cli.status, srv.status);
	assert_int_equal(cli.downs, 1);
	assert_int_equal(cli.status, 0);
	assert_int_equal(srv.status, 0);
}

static int connect_async(enum conn_llp l, const char *host, int p)
{
	if (l == CONN_MPA)
		return ddp_mpa_connect_async(base, ctx, NULL, host, p, NULL, &conn_ulp, &cli,
					     &handle);
	return ddp_sctp_connect_async(base, ctx, NULL, host, p, &sc, &conn_ulp, &cli, &handle);
}

static int connect_addr(enum conn_llp l, int p)
{
	struct sockaddr_in sa = net_lo(p);
	if (l == CONN_MPA)
		return ddp_mpa_connect_addr(base, ctx, (struct sockaddr *)&sa, sizeof(sa), NULL,
					    &conn_ulp, &cli, &handle);
	return ddp_sctp_connect_addr(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &sc, &conn_ulp,
				     &cli, &handle);
}

static void async_to_host(enum conn_llp l)
{
	start(l);
	assert_int_equal(connect_async(l, "127.0.0.1", port), 0);
	assert_non_null(handle);
	assert_int_equal(cli.ups + cli.downs, 0); /* nothing inside the call */
	full_life(l);
	finish();
}

static void async_to_addr(enum conn_llp l)
{
	start(l);
	assert_int_equal(connect_addr(l, port), 0);
	assert_int_equal(cli.ups + cli.downs, 0);
	full_life(l);
	finish();
}

/* cancelled while resolving (a name no one answers for) and while the
 * connection is being set up: no callback ever, nothing left behind */
static void cancelled(enum conn_llp l)
{
	start(l);
	assert_int_equal(connect_async(l, "no-such-host.invalid", port), 0);
	ddp_connect_cancel(handle);
	assert_int_equal(connect_addr(l, port), 0);
	ddp_connect_cancel(handle);
	net_run_for(base, 0.5);
	assert_int_equal(cli.ups + cli.downs, 0);
	assert_int_equal(srv.ups, srv.downs); /* a server side that came up went down */
	finish();
}

static void test_async_connect_to_a_host(void **state)
{
	(void)state;
	async_to_host(CONN_MPA);
	async_to_host(CONN_SCTP);
}

static void test_async_connect_to_an_address(void **state)
{
	(void)state;
	async_to_addr(CONN_MPA);
	async_to_addr(CONN_SCTP);
}

static void test_cancelled_connects_say_nothing(void **state)
{
	(void)state;
	cancelled(CONN_MPA);
	cancelled(CONN_SCTP);
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_async_connect_to_a_host),
		cmocka_unit_test(test_async_connect_to_an_address),
		cmocka_unit_test(test_cancelled_connects_say_nothing),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
