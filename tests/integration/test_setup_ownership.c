/*
 * Who owns what in the one adapter model, the same on both LLPs (ddp.h,
 * "one adapter model"; README, teardown):
 *   - a listener's connections outlive ddp_listener_free(): after it,
 *     when one of them goes down, every other one still gets deliver,
 *     send_done, stream events and its own down(), and ddp_ctx_free()
 *     then succeeds (the usual SIGINT order of a server: stop listening,
 *     then drain);
 *   - ddp_session_free() of a session the adapter made is refused
 *     (DDP_ERR_STATE, nothing freed): the connection carries on, ends
 *     with down(), and nothing is freed twice or leaked (run under ASan
 *     in make check-sanitize).
 * Real TCP sockets and real usrsctp associations on 127.0.0.1.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>

#include "conn_ulp.h"
#include "net_helpers.h"

#define NCONN 3

static const char *const name[] = {"MPA", "SCTP"};
static const char msg[] = "still hearing";

/* One end of one connection. */
struct end {
	int is_client;
	ddp_session *s;
	int ups, opens, got, sent, halves, closes, downs, status;
	uint8_t buf[4][64];
};

static struct end cli[NCONN];
static struct end srv[NCONN]; /* the server's ends, in the order they came up */
static int srv_ups, srv_downs;

static void up(ddp_session *s, void *user)
{
	struct end *e = user;
	if (!e) { /* the server's listener: one end per connection */
		assert_true(srv_ups < NCONN);
		e = &srv[srv_ups++];
		ddp_session_set_user_data(s, e);
	}
	e->s = s;
	e->ups++;
}

static struct end *end_of(ddp_session *s, void *user)
{
	return user ? user : ddp_session_user_data(s);
}

static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	struct end *e = end_of(s, user);
	e->opens++;
	for (int i = 0; i < 4; i++)
		assert_int_equal(ddp_post_recv(s, stream, 0, e->buf[i], 64, NULL), 0);
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct end *e = end_of(s, user);
	if (d->status)
		return;
	e->got++;
	if (!e->is_client) { /* echo */
		struct iovec v = {(void *)msg, sizeof(msg)};
		assert_int_equal(ddp_send_untagged(s, d->stream, 0, 0, &v, 1, NULL), 0);
	}
}

static void send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	(void)stream, (void)ctx;
	if (status == 0)
		end_of(s, user)->sent++;
}

static void stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev, int status,
                         void *user)
{
	struct end *e = end_of(s, user);
	(void)status;
	if (ev == DDP_EV_HALF_CLOSED) {
		e->halves++;
		ddp_stream_close(s, stream);
	}
	if (ev == DDP_EV_CLOSED)
		e->closes++;
}

static void down(ddp_session *s, int status, void *user)
{
	struct end *e = end_of(s, user);
	assert_non_null(e);
	e->downs++;
	e->status = status;
	e->s = NULL;
	if (!e->is_client)
		srv_downs++;
}

static const ddp_conn_callbacks ulp = {
    .ddp = {.deliver = deliver, .send_done = send_done, .stream_event = stream_event},
    .up = up,
    .stream_open = stream_open,
    .down = down,
};

static struct event_base *base;
static ddp_ctx *ctx;

static void start(void)
{
	memset(cli, 0, sizeof(cli));
	memset(srv, 0, sizeof(srv));
	srv_ups = srv_downs = 0;
	for (int i = 0; i < NCONN; i++)
		cli[i].is_client = 1;
	base = event_base_new();
	assert_non_null(base);
	assert_int_equal(ddp_ctx_new(NULL, &ctx), 0);
}

static void finish(void)
{
	event_base_loop(base, EVLOOP_NONBLOCK); /* the deferred frees */
	assert_int_equal(ddp_ctx_free(ctx), 0); /* not DDP_ERR_BUSY */
	event_base_free(base);
}

static int all(const struct end *e, size_t off, int want)
{
	for (int i = 0; i < NCONN; i++)
		if (*(const int *)((const char *)&e[i] + off) < want)
			return 0;
	return 1;
}

static void wait_all(struct end *e, size_t off, int want, double secs)
{
	double end = net_now_s() + secs;
	while (!all(e, off, want) && net_now_s() < end)
		net_run_for(base, 0.01);
}

static void send_msg(struct end *e)
{
	struct iovec v = {(void *)msg, sizeof(msg)};
	assert_int_equal(ddp_send_untagged(e->s, 0, 0, 0, &v, 1, NULL), 0);
}

static void connect_all(enum conn_llp l, ddp_listener **ls)
{
	assert_int_equal(conn_listen_on(l, base, ctx, "127.0.0.1", NULL, &ulp, NULL, ls), 0);
	int port = ddp_listener_port(*ls);
	for (int i = 0; i < NCONN; i++)
		assert_int_equal(
		    conn_connect_to(l, base, ctx, "127.0.0.1", port, NULL, &ulp, &cli[i]), 0);
	wait_all(cli, offsetof(struct end, opens), 1, 10);
	wait_all(srv, offsetof(struct end, opens), 1, 10);
	assert_int_equal(srv_ups, NCONN);
}

/* Free the listener, end the first connection, then the others must
 * still carry a message each way and end in order. */
static void listener_freed_then_one_goes(enum conn_llp l)
{
	ddp_listener *ls;
	start();
	connect_all(l, &ls);
	ddp_listener_free(ls);
	net_run_for(base, 0.05);

	/* the server end of the client's first connection */
	struct end *first = NULL;
	for (int i = 0; i < NCONN; i++)
		if (ddp_session_nstreams(srv[i].s) && srv[i].s) {
			char a[64], b[64];
			ddp_session_addr(srv[i].s, 1, a, sizeof(a));
			ddp_session_addr(cli[0].s, 0, b, sizeof(b));
			if (!strcmp(strrchr(a, ':'), strrchr(b, ':')))
				first = &srv[i];
		}
	assert_non_null(first);
	assert_int_equal(ddp_session_close(cli[0].s, 0), 0);
	conn_ulp_wait(base, &first->downs, 1, 10);
	conn_ulp_wait(base, &cli[0].downs, 1, 10);
	assert_int_equal(first->downs, 1);
	assert_int_equal(first->status, 0);

	for (int i = 1; i < NCONN; i++)
		send_msg(&cli[i]);
	double end = net_now_s() + 10;
	while (net_now_s() < end) {
		int ok = 1;
		for (int i = 1; i < NCONN; i++)
			ok &= cli[i].got == 1 && cli[i].sent == 1;
		if (ok)
			break;
		net_run_for(base, 0.01);
	}
	for (int i = 1; i < NCONN; i++)
		assert_int_equal(ddp_session_close(cli[i].s, 0), 0);
	conn_ulp_wait(base, &srv_downs, NCONN, 10);
	wait_all(cli, offsetof(struct end, downs), 1, 10);
	for (int i = 0; i < NCONN; i++) {
		struct end *e = &srv[i];
		print_message("%s server end %d: got %d sent %d half %d closed %d down %d (%d)\n",
		              name[l], i, e->got, e->sent, e->halves, e->closes, e->downs,
		              e->status);
		if (e == first)
			continue;
		assert_int_equal(e->got, 1);    /* deliver */
		assert_int_equal(e->sent, 1);   /* send_done */
		assert_int_equal(e->halves, 1); /* stream events */
		assert_int_equal(e->closes, 1);
		assert_int_equal(e->downs, 1); /* its own down */
		assert_int_equal(e->status, 0);
	}
	for (int i = 1; i < NCONN; i++) {
		assert_int_equal(cli[i].got, 1);
		assert_int_equal(cli[i].downs, 1);
		assert_int_equal(cli[i].status, 0);
	}
	finish();
}

static void test_listener_freed_connections_keep_hearing(void **state)
{
	(void)state;
	listener_freed_then_one_goes(CONN_MPA);
	listener_freed_then_one_goes(CONN_SCTP);
}

/* ddp_session_free() on both ends' adapter-owned sessions: refused, and
 * the connection still works and ends in order. */
static void session_free_refused(enum conn_llp l)
{
	ddp_listener *ls;
	start();
	assert_int_equal(conn_listen_on(l, base, ctx, "127.0.0.1", NULL, &ulp, NULL, &ls), 0);
	assert_int_equal(
	    conn_connect_to(l, base, ctx, "127.0.0.1", ddp_listener_port(ls), NULL, &ulp, &cli[0]),
	    0);
	conn_ulp_wait(base, &cli[0].opens, 1, 10);
	conn_ulp_wait(base, &srv[0].opens, 1, 10);
	assert_non_null(cli[0].s);
	assert_non_null(srv[0].s);
	assert_int_equal(ddp_session_free(cli[0].s), DDP_ERR_STATE);
	assert_int_equal(ddp_session_free(srv[0].s), DDP_ERR_STATE);
	send_msg(&cli[0]);
	conn_ulp_wait(base, &cli[0].got, 1, 10);
	assert_int_equal(srv[0].got, 1);
	assert_int_equal(cli[0].got, 1);
	assert_int_equal(ddp_session_close(cli[0].s, 0), 0);
	conn_ulp_wait(base, &cli[0].downs, 1, 10);
	conn_ulp_wait(base, &srv[0].downs, 1, 10);
	print_message("%s: client down %d (%d), server down %d (%d)\n", name[l], cli[0].downs,
	              cli[0].status, srv[0].downs, srv[0].status);
	assert_int_equal(cli[0].downs, 1);
	assert_int_equal(srv[0].downs, 1);
	assert_int_equal(cli[0].status, 0);
	assert_int_equal(srv[0].status, 0);
	ddp_listener_free(ls);
	finish();
}

static void test_session_free_of_adapter_session_refused(void **state)
{
	(void)state;
	session_free_refused(CONN_MPA);
	session_free_refused(CONN_SCTP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_listener_freed_connections_keep_hearing),
	    cmocka_unit_test(test_session_free_of_adapter_session_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
