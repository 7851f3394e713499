/*
 * test_sctp_tuning: ddp_sctp_config's long-path settings. Every congestion
 * control module and explicit socket buffers give a working association
 * (connect, a stream up on both ends, a clean close), or a module the
 * usrsctp built in lacks (the packaged one: RTCC, CUBIC) is refused with
 * DDP_ERR_UNSUPPORTED; a cc value that is not a ddp_sctp_cc is refused
 * before anything is opened.
 */
#ifndef DDP_USRSCTP_PATCHED
#define DDP_USRSCTP_PATCHED 0
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>

#include <event2/event.h>

#include "conn_ulp.h"

static void run_one(enum ddp_sctp_cc cc, uint32_t buf)
{
	struct event_base *base = event_base_new();
	ddp_ctx *ctx = NULL;
	ddp_listener *l = NULL;
	struct conn_end srv = { 0 }, cli = { 0 };
	ddp_sctp_config sc;

	assert_non_null(base);
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	memset(&sc, 0, sizeof(sc));
	sc.cc = cc;
	sc.sndbuf = sc.rcvbuf = buf;
	if (!DDP_USRSCTP_PATCHED && (cc == DDP_SCTP_CC_RTCC || cc == DDP_SCTP_CC_CUBIC)) {
		assert_int_equal(
		    conn_listen_on(CONN_SCTP, base, ctx, "127.0.0.1", &sc, &conn_ulp, &srv, &l),
		    DDP_ERR_UNSUPPORTED);
		assert_null(l);
		assert_int_equal(ddp_ctx_free(ctx), 0);
		event_base_free(base);
		return;
	}
	assert_int_equal(conn_listen_on(CONN_SCTP, base, ctx, "127.0.0.1", &sc, &conn_ulp, &srv, &l),
			 0);
	assert_int_equal(conn_connect_to(CONN_SCTP, base, ctx, "127.0.0.1",
					 ddp_listener_port(l), &sc, &conn_ulp, &cli),
			 0);
	conn_ulp_wait(base, &cli.opens, 1, 10);
	conn_ulp_wait(base, &srv.opens, 1, 10);
	assert_true(cli.opens >= 1); /* SCTP: every stream of the association */
	assert_true(srv.opens >= 1);
	assert_int_equal(ddp_session_close(cli.s, 0), 0);
	conn_ulp_wait(base, &cli.downs, 1, 10);
	conn_ulp_wait(base, &srv.downs, 1, 10);
	assert_int_equal(cli.downs, 1);
	assert_int_equal(cli.status, 0);
	ddp_listener_free(l);
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

static void test_every_cc_module_carries_an_association(void **state)
{
	(void)state;
	for (int cc = DDP_SCTP_CC_DEFAULT; cc <= DDP_SCTP_CC_CUBIC; cc++)
		run_one((enum ddp_sctp_cc)cc, cc == DDP_SCTP_CC_HTCP ? 256 * 1024 : 0);
}

static void test_unknown_cc_is_refused(void **state)
{
	struct event_base *base = event_base_new();
	ddp_ctx *ctx = NULL;
	ddp_listener *l = NULL;
	struct conn_end srv = { 0 };
	ddp_sctp_config sc;

	(void)state;
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	memset(&sc, 0, sizeof(sc));
	sc.cc = (enum ddp_sctp_cc)(DDP_SCTP_CC_CUBIC + 1);
	assert_int_equal(conn_listen_on(CONN_SCTP, base, ctx, "127.0.0.1", &sc, &conn_ulp, &srv, &l),
			 DDP_ERR_INVAL);
	assert_null(l);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_cc_module_carries_an_association),
		cmocka_unit_test(test_unknown_cc_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
