/*
 * test_sctp_mulpdu_rx: RFC 5043 §9 on receive. What an association
 * accepts is what it advertised at set-up; a drop of our own path MTU
 * toward the peer lowers what we send, never what we accept (the path
 * from the peer to us is the peer's to follow). Two DDP/SCTP endpoints on
 * 127.0.0.1 with path_mtu 9000: the receiver's path MTU drops to 1280
 * (as a verified ICMP would lower it) and the receiver sends (its own
 * MULPDU follows the drop), then the peer sends a segment at the MULPDU
 * it has: delivered, byte-exact, no error.
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

#include "ddp_test.h"
#include "loop_wait.h"
#include "sctp_end.h"

#define PATH_MTU 9000
#define NBUF     8
#define BUFLEN   65536

struct peer {
	ddp_ctx *ctx;
	ddp_sctp_ep *ep;
	struct sctp_assoc_seen as;
	uint8_t *rbuf;
	uint64_t got, bad, nerr;
	uint32_t last_len;
	ddp_error_info err;
	int opened;
};

static struct event_base *base;
static struct peer srv, cli;

static uint8_t pat(size_t j)
{
	return (uint8_t)(j * 13 + 7);
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct peer *p = user;
	(void)s;
	if (d->status < 0)
		return;
	for (size_t j = 0; j < d->len; j++)
		if (((const uint8_t *)d->buf)[j] != pat(j)) {
			p->bad++;
			break;
		}
	p->last_len = (uint32_t)d->len;
	p->got++;
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct peer *p = user;
	(void)s;
	if (p->nerr++ == 0)
		p->err = *e;
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
			ddp_post_recv(p->as.s, 0, 0, p->rbuf + (size_t)k * BUFLEN, BUFLEN, NULL);
		assert_int_equal(ddp_sctp_accept(a, 0, NULL, 0), 0);
		p->opened = 1;
	} else if (ev == DDP_SCTP_ACCEPTED && stream == 0) {
		for (unsigned k = 0; k < NBUF; k++)
			ddp_post_recv(p->as.s, 0, 0, p->rbuf + (size_t)k * BUFLEN, BUFLEN, NULL);
		p->opened = 1;
	}
}

static const ddp_callbacks ddp_cb = {.deliver = deliver, .error = on_error};
static const ddp_sctp_callbacks sctp_cb = {.assoc = on_assoc, .session_ctl = on_ctl};

static void peer_init(struct peer *p, int listen)
{
	ddp_sctp_config c;
	memset(p, 0, sizeof(*p));
	assert_int_equal(ddp_ctx_new(NULL, &p->ctx), 0);
	p->rbuf = malloc((size_t)NBUF * BUFLEN);
	assert_non_null(p->rbuf);
	sctp_end_config(&c, p->ctx, NULL, 4, &ddp_cb, &sctp_cb, p);
	c.path_mtu = PATH_MTU;
	assert_int_equal(sctp_end_open(base, &c, listen, &p->ep), 0);
}

static void test_sctp_rx_limit_is_what_was_advertised(void **state)
{
	static uint8_t msg[BUFLEN];
	(void)state;
	alarm(30);
	base = event_base_new();
	peer_init(&srv, 1);
	peer_init(&cli, 0);
	assert_int_equal(ddp_sctp_connect(cli.ep, "127.0.0.1", ddp_sctp_ep_port(srv.ep), &cli.as.a),
	                 0);
	loop_wait_flag(base, &cli.as.up, 5);
	loop_wait_flag(base, &srv.as.up, 5);
	assert_true(cli.as.up && srv.as.up);
	assert_int_equal(ddp_sctp_initiate(cli.as.a, 0, NULL, 0), 0);
	loop_wait_flag(base, &cli.opened, 5);
	assert_true(cli.opened);

	/* what the receiver advertised, and the peer's MULPDU: the largest
	 * untagged payload in one segment (18-octet header) */
	uint32_t told = ddp_session_mulpdu(cli.as.s);
	uint32_t adv = ddp_session_mulpdu(srv.as.s);
	print_message("MULPDU: peer %u, receiver %u\n", told, adv);
	assert_true(told > 8000);
	assert_true(adv >= told);

	/* our path MTU toward the peer drops, as a verified ICMP lowers it;
	 * we send, so what we send follows it */
	sctp_ll_assoc_mtu_drop(sctp_ddp_assoc_ll(srv.as.a), 1280);
	for (size_t j = 0; j < 100; j++)
		msg[j] = pat(j);
	struct iovec small = {msg, 100};
	assert_int_equal(ddp_send_untagged(srv.as.s, 0, 0, 0, &small, 1, NULL), 0);
	loop_wait_count(base, &cli.got, 1, 3);
	assert_int_equal(cli.got, 1);
	print_message("after the drop: receiver's MULPDU for sending %u\n",
	              ddp_session_mulpdu(srv.as.s));
	assert_true(ddp_session_mulpdu(srv.as.s) < 1280);

	/* the peer sends a segment at the MULPDU it was told */
	uint32_t plen = told - 18;
	for (size_t j = 0; j < plen; j++)
		msg[j] = pat(j);
	struct iovec v = {msg, plen};
	assert_int_equal(ddp_send_untagged(cli.as.s, 0, 0, 0, &v, 1, NULL), 0);
	loop_wait_count(base, &srv.got, 1, 3);
	if (srv.nerr)
		print_message("receiver error: layer %u etype %u code 0x%02x, segment %u\n",
		              srv.err.layer, srv.err.etype, srv.err.code, srv.err.seg_len);
	assert_int_equal(srv.nerr, 0);
	assert_int_equal(srv.got, 1);
	assert_int_equal(srv.last_len, plen);
	assert_int_equal(srv.bad, 0);

	ddp_sctp_ep_free(cli.ep);
	ddp_sctp_ep_free(srv.ep);
	event_base_loop(base, EVLOOP_NONBLOCK);
	assert_int_equal(ddp_ctx_free(cli.ctx), 0);
	assert_int_equal(ddp_ctx_free(srv.ctx), 0);
	free(cli.rbuf);
	free(srv.rbuf);
	event_base_free(base);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sctp_rx_limit_is_what_was_advertised),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
