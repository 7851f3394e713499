/*
 * test_sctp_close_drain: a graceful ddp_sctp_close(a, 0) while DDP still
 * queues messages usrsctp has not taken yet sends every one of them, then
 * ends each stream session and the association gracefully: the receiver
 * gets every message, byte-exact and in order, and both ends see a
 * graceful end (DDP_ERR_CLOSED), no ABORT.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include "sctp_end.h"

#define MSG 16384
#define NBUF 256

struct peer {
	ddp_ctx *ctx;
	ddp_sctp_ep *ep;
	struct sctp_assoc_seen as;
	uint8_t *rbuf;
	uint64_t got, bad, sent, done_ok, done_err;
	int opened;
};

static struct event_base *base;
static struct peer srv, cli;
#define MAXMSG 4096 /* more than usrsctp and DDP can queue together */
static uint8_t *src; /* one buffer per message: each stays the sender's
		      * until its send_done */

static void fill(uint8_t *p, uint64_t k)
{
	for (size_t j = 0; j < MSG; j++)
		p[j] = (uint8_t)(k * 7 + j * 13);
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct peer *p = user;
	uint8_t want[MSG];
	if (d->status < 0)
		return;
	fill(want, p->got);
	if (d->len != MSG || memcmp(d->buf, want, MSG) != 0)
		p->bad++;
	p->got++;
	ddp_post_recv(s, d->stream, 0, d->buf, MSG, NULL);
}

static void send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	struct peer *p = user;
	(void)s;
	(void)stream;
	(void)ctx;
	if (status == 0)
		p->done_ok++;
	else
		p->done_err++;
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	sctp_assoc_seen_note(&((struct peer *)user)->as, a, s, status);
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		   const void *pd, size_t len, void *user)
{
	struct peer *p = user;
	(void)status;
	(void)pd;
	(void)len;
	if (ev == DDP_SCTP_INITIATE && stream == 0) {
		for (unsigned k = 0; k < NBUF; k++)
			ddp_post_recv(p->as.s, 0, 0, p->rbuf + (size_t)k * MSG, MSG, NULL);
		assert_int_equal(ddp_sctp_accept(a, 0, NULL, 0), 0);
		p->opened = 1;
	} else if (ev == DDP_SCTP_ACCEPTED && stream == 0) {
		p->opened = 1;
	}
}

static const ddp_callbacks ddp_cb = { .deliver = deliver, .send_done = send_done };
static const ddp_sctp_callbacks sctp_cb = { .assoc = on_assoc, .session_ctl = on_ctl };

static void peer_init(struct peer *p, int listen)
{
	ddp_sctp_config c;
	memset(p, 0, sizeof(*p));
	assert_int_equal(ddp_ctx_new(NULL, &p->ctx), 0);
	p->rbuf = malloc((size_t)NBUF * MSG);
	assert_non_null(p->rbuf);
	sctp_end_config(&c, p->ctx, NULL, 4, &ddp_cb, &sctp_cb, p);
	assert_int_equal(sctp_end_open(base, &c, listen, &p->ep), 0);
}

static void run_until(const int *flag, int ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!*flag) {
		struct timeval tv = { 0, 5000 };
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 > ms)
			break;
	}
}

static void test_sctp_close_drains(void **state)
{
	(void)state;
	alarm(60);
	base = event_base_new();
	peer_init(&srv, 1);
	peer_init(&cli, 0);
	assert_int_equal(ddp_sctp_connect(cli.ep, "127.0.0.1", ddp_sctp_ep_port(srv.ep), &cli.as.a),
			 0);
	run_until(&cli.as.up, 5000);
	assert_true(cli.as.up);
	assert_int_equal(ddp_sctp_initiate(cli.as.a, 0, NULL, 0), 0);
	run_until(&cli.opened, 5000);
	assert_true(cli.opened);

	/* queue until DDP refuses: usrsctp holds what its send buffer takes,
	 * DDP the rest (max_tx_octets) */
	int rc;
	src = malloc((size_t)MAXMSG * MSG);
	assert_non_null(src);
	for (;;) {
		uint8_t *m = src + (size_t)cli.sent * MSG;
		struct iovec v = { m, MSG };
		assert_true(cli.sent < MAXMSG);
		fill(m, cli.sent);
		rc = ddp_send_untagged(cli.as.s, 0, 0, (uint32_t)cli.sent, &v, 1, NULL);
		if (rc)
			break;
		cli.sent++;
	}
	assert_int_equal(rc, DDP_ERR_LIMIT);
	uint32_t qmsgs = 0;
	assert_true(ddp_stream_queued(cli.as.s, 0, &qmsgs) > 0);
	print_message("sent %llu, %u still queued in DDP at the close\n",
		      (unsigned long long)cli.sent, qmsgs);
	assert_true(qmsgs > 0); /* the case: DDP still holds messages */

	assert_int_equal(ddp_sctp_close(cli.as.a, 0), 0);
	run_until(&cli.as.down, 30000);
	run_until(&srv.as.down, 5000);
	assert_true(cli.as.down);
	assert_int_equal(cli.as.down_status, DDP_ERR_CLOSED);
	assert_true(srv.as.down);
	assert_int_equal(srv.as.down_status, DDP_ERR_CLOSED);
	assert_int_equal(srv.got, cli.sent);
	assert_int_equal(srv.bad, 0);
	assert_int_equal(cli.done_ok, cli.sent);
	assert_int_equal(cli.done_err, 0);

	ddp_sctp_ep_free(cli.ep);
	ddp_sctp_ep_free(srv.ep);
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(ddp_ctx_free(cli.ctx), 0);
	assert_int_equal(ddp_ctx_free(srv.ctx), 0);
	free(cli.rbuf);
	free(srv.rbuf);
	free(src);
	event_base_free(base);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sctp_close_drains),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
