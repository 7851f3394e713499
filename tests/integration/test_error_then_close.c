/*
 * The one message allowed after a stream error (RFC 5041 §7.2, DDP-ERR-4:
 * e.g. an RDMAP Terminate) reaches the peer, and a graceful close after the
 * error ends the connection in order, on the wire: a FIN over TCP (the peer
 * sees DDP_MPA_CLOSED, never a reset) and a SHUTDOWN over SCTP (the assoc
 * callback reports DDP_ERR_CLOSED on both ends, never DDP_ERR_LLP / ABORT).
 *
 * The client sends an untagged message for which the server posted no
 * buffer: (1, 2, 0x02) "invalid MSN, no buffer" at the server, whose error
 * callback sends one reply and then closes (the stream, or the session).
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

static const char reply[] = "terminate: no buffer";

struct end {
	struct event_base *base;
	ddp_session *s;
	int close_session; /* server: close the session, not just the stream */
	uint32_t stream;   /* the stream the test uses */
	/* observations */
	int errors, etype, ecode;
	int got_reply, half_closed, closed_ev, aborted_ev;
	int mpa_closed, mpa_failed, mpa_err;
	int assoc_status, assoc_ended, accepted;
	uint8_t rbuf[256];
};

static struct end srv, cli;

static void maybe_stop(void)
{
	if ((srv.mpa_closed || srv.mpa_failed || srv.assoc_ended) &&
	    (cli.mpa_closed || cli.mpa_failed || cli.assoc_ended))
		event_base_loopbreak(srv.base);
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct end *e = user;
	(void)s;
	if (d->status == 0 && d->len == sizeof(reply) && !memcmp(d->buf, reply, sizeof(reply)))
		e->got_reply++;
}

static void on_error(ddp_session *s, const ddp_error_info *ei, void *user)
{
	struct end *e = user;
	e->errors++;
	e->etype = ei->etype;
	e->ecode = ei->code;
	if (e != &srv)
		return;
	/* DDP-ERR-4: one more message, then close in order */
	struct iovec iov = { (void *)reply, sizeof(reply) };
	assert_int_equal(ddp_send_untagged(s, ei->stream, 0, 0, &iov, 1, NULL), 0);
	if (e->close_session)
		assert_int_equal(ddp_session_close(s, 0), 0);
	else
		assert_int_equal(ddp_stream_close(s, ei->stream), 0);
}

static void on_stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev,
			    int status, void *user)
{
	struct end *e = user;
	(void)status;
	if (ev == DDP_EV_HALF_CLOSED) {
		e->half_closed++;
		if (e == &cli) /* the peer is done: close our half too */
			ddp_stream_close(s, stream);
	} else if (ev == DDP_EV_CLOSED) {
		e->closed_ev++;
	} else {
		e->aborted_ev++;
	}
}

static const ddp_callbacks cbs = {
	.deliver = on_deliver, .error = on_error, .stream_event = on_stream_event,
};

static void send_unexpected(struct end *e)
{
	static const char req[] = "request without a posted buffer";
	struct iovec iov = { (void *)req, sizeof(req) };
	assert_int_equal(ddp_post_recv(e->s, e->stream, 0, e->rbuf, sizeof(e->rbuf), NULL), 0);
	assert_int_equal(ddp_send_untagged(e->s, e->stream, 0, 0, &iov, 1, NULL), 0);
}

/* --------------------------------------------------------------- MPA */

static void m_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct end *e = user;
	(void)code;
	if (ev == DDP_MPA_CONNECTED) {
		e->s = ddp_mpa_session(c);
		if (e == &cli)
			send_unexpected(e);
		return;
	}
	if (ev == DDP_MPA_CLOSED) {
		e->mpa_closed = 1;
	} else {
		e->mpa_failed = 1;
		e->mpa_err = err;
	}
	ddp_mpa_conn_free(c);
	maybe_stop();
}

static void mpa_error_then_close(int close_session)
{
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	srv.base = cli.base = base;
	srv.close_session = close_session;
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_config cfg = { .revision = 2 };
	ddp_mpa_listener *l;
	assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg, &cbs,
					NULL, m_event, &srv, &l),
			 0);
	sa = net_lo(ddp_mpa_listener_port(l));
	ddp_mpa_conn *c;
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg, &cbs,
					 m_event, &cli, &c),
			 0);
	net_run_for(base, 10);
	ddp_mpa_listener_free(l);
	/* the server saw the error and answered */
	assert_int_equal(srv.errors, 1);
	assert_int_equal(srv.etype, DDP_ETYPE_UNTAGGED);
	assert_int_equal(srv.ecode, DDP_ECODE_U_MSN_NOBUF);
	/* the one message arrived, then the FIN: both ends closed in order */
	assert_int_equal(cli.got_reply, 1);
	assert_int_equal(cli.half_closed, 1);
	assert_int_equal(cli.errors, 0);
	assert_int_equal(cli.aborted_ev, 0);
	assert_int_equal(cli.mpa_failed, 0);
	assert_int_equal(cli.mpa_closed, 1);
	assert_int_equal(srv.mpa_failed, 0);
	assert_int_equal(srv.mpa_closed, 1);
	/* one more pass lets the connections freed in callbacks go */
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

static void test_mpa_reply_then_stream_close_is_a_fin(void **state)
{
	(void)state;
	mpa_error_then_close(0);
}

static void test_mpa_reply_then_session_close_is_a_fin(void **state)
{
	(void)state;
	mpa_error_then_close(1);
}

/* -------------------------------------------------------------- SCTP */

static void s_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct end *e = user;
	if (status == 0) {
		e->s = s;
		if (e == &cli)
			assert_int_equal(ddp_sctp_initiate(a, e->stream, NULL, 0), 0);
		return;
	}
	e->assoc_ended = 1;
	e->assoc_status = status;
	maybe_stop();
}

static void s_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		  const void *pd, size_t n, void *user)
{
	struct end *e = user;
	(void)status, (void)pd, (void)n;
	if (ev == DDP_SCTP_INITIATE) {
		assert_int_equal(ddp_sctp_accept(a, stream, NULL, 0), 0);
	} else if (ev == DDP_SCTP_ACCEPTED) {
		e->accepted = 1;
		send_unexpected(e);
	}
}

static void sctp_error_then_close(int close_session)
{
	struct event_base *base = event_base_new();
	ddp_ctx *ctx;
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	srv.base = cli.base = base;
	srv.close_session = close_session;
	/* one stream each: closing it closes every stream of the session */
	srv.stream = cli.stream = 0;
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
	ddp_sctp_config sc = { .port = -1, .nstreams = 1, .ctx = ctx, .ddp = cbs, .user = &srv };
	sc.sctp.assoc = s_assoc;
	sc.sctp.session_ctl = s_ctl;
	ddp_sctp_ep *se, *ce;
	assert_int_equal(ddp_sctp_ep_new(base, &sc, &se), 0);
	assert_int_equal(ddp_sctp_listen(se), 0);
	sc.user = &cli;
	assert_int_equal(ddp_sctp_ep_new(base, &sc, &ce), 0);
	ddp_sctp_assoc *a;
	assert_int_equal(ddp_sctp_connect(ce, "127.0.0.1", ddp_sctp_ep_port(se), &a), 0);
	net_run_for(base, 10);
	assert_int_equal(cli.accepted, 1);
	assert_int_equal(srv.errors, 1);
	assert_int_equal(srv.etype, DDP_ETYPE_UNTAGGED);
	assert_int_equal(srv.ecode, DDP_ECODE_U_MSN_NOBUF);
	assert_int_equal(cli.got_reply, 1);
	assert_int_equal(cli.half_closed, 1);
	assert_int_equal(cli.errors, 0);
	assert_int_equal(cli.aborted_ev, 0);
	/* SHUTDOWN, not ABORT: a graceful end on both ends */
	assert_int_equal(cli.assoc_ended, 1);
	assert_int_equal(cli.assoc_status, DDP_ERR_CLOSED);
	assert_int_equal(srv.assoc_ended, 1);
	assert_int_equal(srv.assoc_status, DDP_ERR_CLOSED);
	ddp_sctp_ep_free(ce);
	ddp_sctp_ep_free(se);
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
}

static void test_sctp_reply_then_stream_close_is_a_shutdown(void **state)
{
	(void)state;
	sctp_error_then_close(0);
}

static void test_sctp_reply_then_session_close_is_a_shutdown(void **state)
{
	(void)state;
	sctp_error_then_close(1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpa_reply_then_stream_close_is_a_fin),
		cmocka_unit_test(test_mpa_reply_then_session_close_is_a_fin),
		cmocka_unit_test(test_sctp_reply_then_stream_close_is_a_shutdown),
		cmocka_unit_test(test_sctp_reply_then_session_close_is_a_shutdown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
