/*
 * The same behaviour on both LLPs: one suite, one ULP, run against MPA/TCP
 * and against SCTP through the one adapter model. The same event gives the
 * same code in down() on both:
 *   refused (nobody listens)          DDP_ERR_REJECTED
 *   closed in order                   0 on both ends
 *   aborted by us                     DDP_ERR_ABORTED here, DDP_ERR_LLP at the peer
 *   a peer that goes silent           DDP_ERR_TIMEOUT (test_mpa_slowpeer,
 *                                     test_sctp_stall, test_fault_sctp)
 * and port 0 means "any" everywhere (a listener, and ddp_sctp_config.port).
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
#include <sys/socket.h>
#include <unistd.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>

#include "conn_ulp.h"
#include "net_helpers.h"

static const char *const name[] = { "MPA", "SCTP" };

static struct conn_end srv, cli;

static struct event_base *base;
static ddp_ctx *ctx;
static const ddp_sctp_config sc = { .nstreams = 1 };

static void start(void)
{
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	base = event_base_new();
	assert_non_null(base);
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
}

static void finish(void)
{
	event_base_loop(base, EVLOOP_NONBLOCK); /* the deferred frees */
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

static int listen_on(enum conn_llp l, ddp_listener **out)
{
	assert_int_equal(conn_listen_on(l, base, ctx, "127.0.0.1", &sc, &conn_ulp, &srv, out), 0);
	int port = ddp_listener_port(*out);
	assert_true(port > 0); /* port 0: any */
	return port;
}

static void connect_to(enum conn_llp l, int port)
{
	assert_int_equal(conn_connect_to(l, base, ctx, "127.0.0.1", port, &sc, &conn_ulp, &cli), 0);
}

/* A port nothing listens on, TCP and UDP. */
static int closed_port(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in sa = net_lo(0);
	socklen_t sl = sizeof(sa);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

static void refused(enum conn_llp l)
{
	start();
	connect_to(l, closed_port());
	conn_ulp_wait(base, &cli.downs, 1, 10);
	print_message("%s refused: down %d, status %d\n", name[l], cli.downs, cli.status);
	assert_int_equal(cli.downs, 1);
	assert_int_equal(cli.ups, 0);
	assert_int_equal(cli.status, DDP_ERR_REJECTED);
	finish();
}

/* ends: 0 graceful from the client, 1 abortive from the server */
static void close_case(enum conn_llp l, int abortive)
{
	ddp_listener *ls;
	start();
	connect_to(l, listen_on(l, &ls));
	conn_ulp_wait(base, &srv.opens, 1, 10);
	conn_ulp_wait(base, &cli.opens, 1, 10);
	assert_int_equal(srv.opens + cli.opens, 2);
	if (abortive)
		assert_int_equal(ddp_session_close(srv.s, 1), 0);
	else
		assert_int_equal(ddp_session_close(cli.s, 0), 0);
	conn_ulp_wait(base, &srv.downs, 1, 10);
	conn_ulp_wait(base, &cli.downs, 1, 10);
	print_message("%s %s close: server %d, client %d\n", name[l],
		      abortive ? "abortive" : "graceful", srv.status, cli.status);
	assert_int_equal(srv.downs, 1);
	assert_int_equal(cli.downs, 1);
	if (abortive) {
		assert_int_equal(srv.status, DDP_ERR_ABORTED); /* we aborted */
		assert_int_equal(cli.status, DDP_ERR_LLP);     /* the peer did */
	} else {
		assert_int_equal(srv.status, 0);
		assert_int_equal(cli.status, 0);
	}
	ddp_listener_free(ls);
	finish();
}

static void test_refused_is_rejected(void **state)
{
	(void)state;
	refused(CONN_MPA);
	refused(CONN_SCTP);
}

static void test_orderly_close_is_zero(void **state)
{
	(void)state;
	close_case(CONN_MPA, 0);
	close_case(CONN_SCTP, 0);
}

static void test_abort_is_aborted_here_and_llp_there(void **state)
{
	(void)state;
	close_case(CONN_MPA, 1);
	close_case(CONN_SCTP, 1);
}

static void no_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	(void)a, (void)s, (void)status, (void)user;
}

static void no_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		   const void *p, size_t n, void *user)
{
	(void)a, (void)stream, (void)ev, (void)status, (void)p, (void)n, (void)user;
}

/* ddp_sctp_config.port 0 is "any", as a listener's port 0: two endpoints
 * with port 0 get two ports (before, 0 meant 9899, and the second failed). */
static void test_sctp_config_port_zero_is_any(void **state)
{
	(void)state;
	start();
	ddp_sctp_config c = { .port = 0, .ctx = ctx, .nstreams = 1,
			      .ddp = { .deliver = conn_ulp.ddp.deliver } };
	c.sctp.assoc = no_assoc; /* none is called here */
	c.sctp.session_ctl = no_ctl;
	ddp_sctp_ep *a = NULL, *b = NULL;
	assert_int_equal(ddp_sctp_ep_new(base, &c, &a), 0);
	assert_int_equal(ddp_sctp_ep_new(base, &c, &b), 0);
	int pa = ddp_sctp_ep_port(a), pb = ddp_sctp_ep_port(b);
	print_message("two endpoints with port 0: %d and %d\n", pa, pb);
	assert_true(pa > 0 && pb > 0 && pa != pb);
	ddp_sctp_ep_free(a);
	ddp_sctp_ep_free(b);
	finish();
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(test_refused_is_rejected),
		cmocka_unit_test(test_orderly_close_is_zero),
		cmocka_unit_test(test_abort_is_aborted_here_and_llp_there),
		cmocka_unit_test(test_sctp_config_port_zero_is_any),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
