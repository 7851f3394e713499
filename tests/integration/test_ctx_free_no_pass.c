/*
 * ddp_ctx_free() needs no extra pass of the event loop: an adapter object
 * freed inside a callback that ran inside one of the application's calls
 * (here: a posted buffer flushed by ddp_session_close(s, 1), whose
 * deliver frees the connection / the endpoint) is released by the loop
 * later, or by ddp_ctx_free() when that comes first. Each case frees
 * everything right after the call, without running the loop again, and
 * ddp_ctx_free() must answer 0; under ASan (make check-sanitize) nothing
 * may leak or be used after its free. Real TCP and real usrsctp on
 * 127.0.0.1.
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

#include "conn_ulp.h"
#include "net_helpers.h"

static struct {
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_mpa_listener *l;
	ddp_mpa_conn *srv, *cli;
	ddp_sctp_ep *sep, *cep;
	ddp_session *ss, *cs;
	int ups, flushed;
	uint8_t buf[64];
} T;

static void run_until(const int *v, int want)
{
	double end = net_now_s() + 10;
	while (*v < want && net_now_s() < end)
		net_run_for(T.base, 0.01);
	assert_int_equal(*v, want);
}

static void start(void)
{
	memset(&T, 0, sizeof(T));
	T.base = event_base_new();
	assert_non_null(T.base);
	assert_int_equal(ddp_ctx_new(NULL, &T.ctx), 0);
}

/* No loop pass from here on. */
static void finish(void)
{
	assert_int_equal(T.flushed, 1);
	assert_int_equal(ddp_ctx_free(T.ctx), 0);
	event_base_free(T.base);
}

/* ------------------------------------------------------------ MPA */

/* The server's posted buffer comes back inside ddp_session_close(s, 1):
 * the connection (and, with free_listener, the listener) is freed here. */
static int free_listener;

static void mpa_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)user;
	if (d->status != DDP_ERR_ABORTED || s != T.ss)
		return;
	T.flushed++;
	ddp_mpa_conn_free(T.srv);
	if (free_listener) {
		ddp_mpa_listener_free(T.l);
		T.l = NULL;
	}
}

static void mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	(void)err, (void)code;
	if (ev != DDP_MPA_CONNECTED)
		return;
	if (user) {
		T.srv = c;
		T.ss = ddp_mpa_session(c);
		assert_int_equal(ddp_post_recv(T.ss, 0, 0, T.buf, sizeof(T.buf), NULL), 0);
	}
	T.ups++;
}

static void mpa_case(int with_listener)
{
	static const ddp_callbacks cb = {.deliver = mpa_deliver};
	struct sockaddr_in sa = net_lo(0);
	start();
	free_listener = with_listener;
	assert_int_equal(ddp_mpa_listen(T.base, T.ctx, (struct sockaddr *)&sa, sizeof(sa), NULL,
	                                &cb, NULL, mpa_event, &T, &T.l),
	                 0);
	sa = net_lo(ddp_mpa_listener_port(T.l));
	assert_int_equal(ddp_mpa_connect(T.base, T.ctx, (struct sockaddr *)&sa, sizeof(sa), NULL,
	                                 &cb, mpa_event, NULL, &T.cli),
	                 0);
	run_until(&T.ups, 2);
	assert_int_equal(ddp_session_close(T.ss, 1), 0);
	ddp_mpa_conn_free(T.cli);
	ddp_mpa_listener_free(T.l);
	finish();
}

static void test_mpa_conn_freed_in_a_callback_needs_no_loop_pass(void **state)
{
	(void)state;
	mpa_case(0);
}

static void test_mpa_listener_freed_in_a_callback_needs_no_loop_pass(void **state)
{
	(void)state;
	mpa_case(1);
}

/* ------------------------------------------------------------ SCTP */

static void sctp_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)user;
	if (d->status != DDP_ERR_ABORTED || s != T.ss)
		return;
	T.flushed++;
	ddp_sctp_ep_free(T.sep); /* the listening endpoint, inside its callback */
}

static void sctp_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	(void)a;
	if (status != 0)
		return;
	if (user) {
		T.ss = s;
		assert_int_equal(ddp_post_recv(s, 0, 0, T.buf, sizeof(T.buf), NULL), 0);
	}
	T.ups++;
}

static void sctp_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                     const void *priv, size_t priv_len, void *user)
{
	(void)a, (void)stream, (void)ev, (void)status, (void)priv, (void)priv_len, (void)user;
}

static void test_sctp_ep_freed_in_a_callback_needs_no_loop_pass(void **state)
{
	(void)state;
	start();
	ddp_sctp_config c = {.nstreams = 1,
	                     .ctx = T.ctx,
	                     .ddp = {.deliver = sctp_deliver},
	                     .sctp = {.assoc = sctp_assoc, .session_ctl = sctp_ctl}};
	c.user = &T;
	assert_int_equal(ddp_sctp_ep_new(T.base, &c, &T.sep), 0);
	assert_int_equal(ddp_sctp_listen(T.sep), 0);
	c.user = NULL;
	assert_int_equal(ddp_sctp_ep_new(T.base, &c, &T.cep), 0);
	ddp_sctp_assoc *a;
	assert_int_equal(ddp_sctp_connect(T.cep, "127.0.0.1", ddp_sctp_ep_port(T.sep), &a), 0);
	run_until(&T.ups, 2);
	assert_int_equal(ddp_session_close(T.ss, 1), 0);
	ddp_sctp_ep_free(T.cep);
	finish();
}

/* ------------------------------------------------- the one adapter model */

/* A connection up through *_listen_on / *_connect_to, closed abortively,
 * the listener freed: the setup's shared block goes with ddp_ctx_free(),
 * no loop pass needed (under ASan nothing leaks). */
static void one_model_case(enum conn_llp llp)
{
	struct conn_end srv = { 0 }, cli = { 0 };
	ddp_listener *l = NULL;
	start();
	assert_int_equal(conn_listen_on(llp, T.base, T.ctx, "127.0.0.1", NULL, &conn_ulp, &srv, &l),
			 0);
	assert_int_equal(conn_connect_to(llp, T.base, T.ctx, "127.0.0.1", ddp_listener_port(l), NULL,
					 &conn_ulp, &cli),
			 0);
	conn_ulp_wait(T.base, &cli.ups, 1, 10);
	conn_ulp_wait(T.base, &srv.ups, 1, 10);
	assert_int_equal(ddp_session_close(cli.s, 1), 0);
	conn_ulp_wait(T.base, &cli.downs, 1, 10);
	conn_ulp_wait(T.base, &srv.downs, 1, 10);
	assert_int_equal(cli.downs, 1);
	assert_int_equal(srv.downs, 1);
	ddp_listener_free(l);
	assert_int_equal(ddp_ctx_free(T.ctx), 0);
	event_base_free(T.base);
}

static void test_one_model_mpa_shutdown_needs_no_loop_pass(void **state)
{
	(void)state;
	one_model_case(CONN_MPA);
}

static void test_one_model_sctp_shutdown_needs_no_loop_pass(void **state)
{
	(void)state;
	one_model_case(CONN_SCTP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_mpa_conn_freed_in_a_callback_needs_no_loop_pass),
	    cmocka_unit_test(test_mpa_listener_freed_in_a_callback_needs_no_loop_pass),
	    cmocka_unit_test(test_sctp_ep_freed_in_a_callback_needs_no_loop_pass),
	    cmocka_unit_test(test_one_model_mpa_shutdown_needs_no_loop_pass),
	    cmocka_unit_test(test_one_model_sctp_shutdown_needs_no_loop_pass),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
