/*
 * One behaviour on both LLPs (the table "One behaviour" in ddp.h): the same
 * scenario, written once against the one adapter model with every setting
 * left at its default, runs over MPA/TCP and over SCTP, and each end logs
 * what it observes (stream_open, deliveries, buffers coming back, send
 * completions, stream events, down) as text. The two logs must be the same
 * line for line:
 *   - the number of DDP streams a connection opens by default, and
 *     session.nstreams honoured (SCTP opens that many; MPA refuses any
 *     value but 1 instead of ignoring it);
 *   - the side that closes first sees DDP_EV_CLOSED only, the other side
 *     DDP_EV_HALF_CLOSED then DDP_EV_CLOSED;
 *   - a graceful end carries the same code in every callback.
 * Real TCP sockets and real usrsctp associations on 127.0.0.1.
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

static const char *const name[] = {"MPA", "SCTP"};
static const char msg[] = "one behaviour";

struct end {
	int is_client;
	int downs;
	ddp_session *s;
	char log[2048];
	uint8_t buf[8][2][64];
};

static struct end srv, cli;

/* Appends to the end's log; printf's format (checked at every call). */
static void logf_(struct end *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(struct end *e, const char *fmt, ...)
{
	size_t n = strlen(e->log);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->log + n, sizeof(e->log) - n, fmt, ap);
	va_end(ap);
}

static void up(ddp_session *s, void *user)
{
	struct end *e = user;
	e->s = s;
	logf_(e, "up ");
}

static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	struct end *e = user;
	logf_(e, "open%u ", stream);
	for (int i = 0; i < 2 && stream < 8; i++)
		assert_int_equal(ddp_post_recv(s, stream, 0, e->buf[stream][i], 64, NULL), 0);
	if (e->is_client && stream == 0) {
		struct iovec v = {(void *)msg, sizeof(msg)};
		assert_int_equal(ddp_send_untagged(s, 0, 0, 1, &v, 1, NULL), 0);
	}
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct end *e = user;
	if (d->status) {
		logf_(e, "back%u:%d ", d->stream, d->status);
		return;
	}
	logf_(e, "dlv%u ", d->stream);
	if (!e->is_client) { /* echo */
		struct iovec v = {(void *)msg, sizeof(msg)};
		assert_int_equal(ddp_send_untagged(s, d->stream, 0, 2, &v, 1, NULL), 0);
		return;
	}
	assert_int_equal(ddp_session_close(s, 0), 0); /* the client closes first */
}

static void send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	(void)s, (void)ctx;
	logf_(user, "sent%u:%d ", stream, status);
}

static void stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev, int status,
                         void *user)
{
	static const char *const ev_name[] = {"?", "half", "closed", "aborted"};
	logf_(user, "%s%u:%d ", ev_name[ev <= 3 ? ev : 0], stream, status);
	if (ev == DDP_EV_HALF_CLOSED)
		assert_int_equal(ddp_stream_close(s, stream), 0);
}

static void down(ddp_session *s, int status, void *user)
{
	struct end *e = user;
	(void)s;
	e->downs++;
	e->s = NULL;
	logf_(e, "down:%d", status);
}

static const ddp_conn_callbacks ulp = {
    .ddp = {.deliver = deliver, .send_done = send_done, .stream_event = stream_event},
    .up = up,
    .stream_open = stream_open,
    .down = down,
};

static int listen_on(enum conn_llp l, struct event_base *base, ddp_ctx *ctx,
                     const ddp_session_config *sess, ddp_listener **out)
{
	ddp_mpa_config mc = {0};
	ddp_sctp_config sc = {0};
	if (sess)
		mc.session = sc.session = *sess;
	if (l == CONN_MPA)
		return ddp_mpa_listen_on(base, ctx, "127.0.0.1", 0, sess ? &mc : NULL, &ulp, &srv,
		                         out);
	return ddp_sctp_listen_on(base, ctx, "127.0.0.1", 0, sess ? &sc : NULL, &ulp, &srv, out);
}

static int connect_to(enum conn_llp l, struct event_base *base, ddp_ctx *ctx, int port,
                      const ddp_session_config *sess)
{
	ddp_mpa_config mc = {0};
	ddp_sctp_config sc = {0};
	if (sess)
		mc.session = sc.session = *sess;
	if (l == CONN_MPA)
		return ddp_mpa_connect_to(base, ctx, "127.0.0.1", port, sess ? &mc : NULL, &ulp,
		                          &cli);
	return ddp_sctp_connect_to(base, ctx, "127.0.0.1", port, sess ? &sc : NULL, &ulp, &cli);
}

/* The scenario with session settings sess (NULL: every default); the
 * two ends' logs into srv_log / cli_log. */
static void run(enum conn_llp l, const ddp_session_config *sess, char *srv_log, char *cli_log,
                size_t n)
{
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	ddp_listener *ls;
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	cli.is_client = 1;
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	assert_int_equal(listen_on(l, base, ctx, sess, &ls), 0);
	assert_int_equal(connect_to(l, base, ctx, ddp_listener_port(ls), sess), 0);
	conn_ulp_wait(base, &cli.downs, 1, 10);
	conn_ulp_wait(base, &srv.downs, 1, 10);
	print_message("%s server: %s\n%s client: %s\n", name[l], srv.log, name[l], cli.log);
	ddp_listener_free(ls);
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
	snprintf(srv_log, n, "%s", srv.log);
	snprintf(cli_log, n, "%s", cli.log);
}

static void test_defaults_same_sequence(void **state)
{
	(void)state;
	char ms[2048], mc[2048], ss[2048], scl[2048];
	run(CONN_MPA, NULL, ms, mc, sizeof(ms));
	run(CONN_SCTP, NULL, ss, scl, sizeof(ss));
	assert_string_equal(ss, ms);
	assert_string_equal(scl, mc);
	/* and the sequence is the documented one: one stream; the client
	 * closed first: no half-close for it; a graceful end is 0 in
	 * stream_event and down, DDP_ERR_CLOSED for a buffer it returns */
	assert_string_equal(mc, "up open0 sent0:0 dlv0 back0:-4 closed0:0 down:0");
	assert_string_equal(ms, "up open0 dlv0 sent0:0 half0:0 back0:-4 closed0:0 down:0");
}

/* session.nstreams is honoured: SCTP opens that many streams on both
 * ends; MPA carries one and refuses more rather than ignore the value. */
static void test_nstreams_honoured(void **state)
{
	(void)state;
	char srv_log[2048], cli_log[2048];
	ddp_session_config three = {.nstreams = 3}, one = {.nstreams = 1};
	run(CONN_SCTP, &three, srv_log, cli_log, sizeof(srv_log));
	assert_non_null(strstr(srv_log, "open0 open1 open2 "));
	assert_null(strstr(srv_log, "open3"));
	assert_non_null(strstr(cli_log, "open2 "));
	assert_null(strstr(cli_log, "open3"));
	assert_non_null(strstr(cli_log, "down:0"));

	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	ddp_listener *ls;
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	assert_int_equal(listen_on(CONN_MPA, base, ctx, &three, &ls), DDP_ERR_INVAL);
	assert_int_equal(connect_to(CONN_MPA, base, ctx, 1, &three), DDP_ERR_INVAL);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
	char ms[2048], mc[2048];
	run(CONN_MPA, &one, ms, mc, sizeof(ms));
	run(CONN_SCTP, &one, srv_log, cli_log, sizeof(srv_log));
	assert_string_equal(srv_log, ms);
	assert_string_equal(cli_log, mc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults_same_sequence),
	    cmocka_unit_test(test_nstreams_honoured),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
