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

#include "net_helpers.h"

enum llp { MPA, SCTP };

struct end {
	ddp_session *s;
	int ups, downs, status, opens;
	uint8_t buf[4][64];
};

static struct end srv, cli;
static ddp_connecting *handle;

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)d, (void)user;
}

static void up(ddp_session *s, void *user)
{
	struct end *e = user;
	e->s = s;
	e->ups++;
	if (e == &cli)
		handle = NULL; /* the handle is gone once up() is called */
}

static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	struct end *e = user;
	e->opens++;
	for (int i = 0; i < 4 && stream == 0; i++)
		ddp_post_recv(s, 0, 0, e->buf[i], sizeof(e->buf[i]), NULL);
}

static void stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev, int status,
			 void *user)
{
	(void)user, (void)status;
	if (ev == DDP_EV_HALF_CLOSED)
		ddp_stream_close(s, stream);
}

static void down(ddp_session *s, int status, void *user)
{
	struct end *e = user;
	(void)s;
	e->downs++;
	e->status = status;
	e->s = NULL;
	if (e == &cli)
		handle = NULL;
}

static const ddp_conn_callbacks ulp = {
	.ddp = { .deliver = deliver, .stream_event = stream_event },
	.up = up,
	.stream_open = stream_open,
	.down = down,
};

static struct event_base *base;
static ddp_ctx *ctx;
static ddp_listener *ls;
static int port;
static const ddp_sctp_config sc = { .nstreams = 2 };

static void start(enum llp l)
{
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	handle = NULL;
	base = event_base_new();
	assert_non_null(base);
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	if (l == MPA)
		assert_int_equal(ddp_mpa_listen_on(base, ctx, "127.0.0.1", 0, NULL, &ulp, &srv, &ls), 0);
	else
		assert_int_equal(ddp_sctp_listen_on(base, ctx, "127.0.0.1", 0, &sc, &ulp, &srv, &ls),
				 0);
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

static void run_until(const int *flag, int want, double secs)
{
	double end = net_now_s() + secs;
	while (*flag < want && net_now_s() < end)
		net_run_for(base, 0.01);
}

/* up, the streams, an orderly close: down(0) on both ends */
static void full_life(enum llp l)
{
	run_until(&cli.ups, 1, 10);
	run_until(&srv.opens, 1, 10);
	run_until(&cli.opens, 1, 10);
	assert_int_equal(cli.ups, 1);
	assert_null(handle);
	assert_true(cli.opens >= 1 && srv.opens >= 1);
	assert_int_equal(ddp_session_close(cli.s, 0), 0);
	run_until(&cli.downs, 1, 10);
	run_until(&srv.downs, 1, 10);
	print_message("%s: up, %d streams open, down %d / %d\n", l == MPA ? "MPA" : "SCTP",
		      cli.opens, cli.status, srv.status);
	assert_int_equal(cli.downs, 1);
	assert_int_equal(cli.status, 0);
	assert_int_equal(srv.status, 0);
}

static int connect_async(enum llp l, const char *host, int p)
{
	if (l == MPA)
		return ddp_mpa_connect_async(base, ctx, NULL, host, p, NULL, &ulp, &cli, &handle);
	return ddp_sctp_connect_async(base, ctx, NULL, host, p, &sc, &ulp, &cli, &handle);
}

static int connect_addr(enum llp l, int p)
{
	struct sockaddr_in sa = net_lo(p);
	if (l == MPA)
		return ddp_mpa_connect_addr(base, ctx, (struct sockaddr *)&sa, sizeof(sa), NULL, &ulp,
					    &cli, &handle);
	return ddp_sctp_connect_addr(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &sc, &ulp, &cli,
				     &handle);
}

static void async_to_host(enum llp l)
{
	start(l);
	assert_int_equal(connect_async(l, "127.0.0.1", port), 0);
	assert_non_null(handle);
	assert_int_equal(cli.ups + cli.downs, 0); /* nothing inside the call */
	full_life(l);
	finish();
}

static void async_to_addr(enum llp l)
{
	start(l);
	assert_int_equal(connect_addr(l, port), 0);
	assert_int_equal(cli.ups + cli.downs, 0);
	full_life(l);
	finish();
}

/* cancelled while resolving (a name no one answers for) and while the
 * connection is being set up: no callback ever, nothing left behind */
static void cancelled(enum llp l)
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
	async_to_host(MPA);
	async_to_host(SCTP);
}

static void test_async_connect_to_an_address(void **state)
{
	(void)state;
	async_to_addr(MPA);
	async_to_addr(SCTP);
}

static void test_cancelled_connects_say_nothing(void **state)
{
	(void)state;
	cancelled(MPA);
	cancelled(SCTP);
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
