/* MPA/TCP end to end on 127.0.0.1 under libevent: two DDP sessions move
 * untagged and tagged messages (payload checked) for markers on/off x CRC
 * on/off x revision 1/2, with the MPA Initiator on the connecting side and
 * on the accepting side; through a re-segmenting proxy (faultproxy.h);
 * and through one that flips one bit per connection (RFC 5044 §4.4: every
 * flip caught, code 2, nothing corrupt delivered). Every test is bounded
 * by alarm(). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include "faultproxy.h"
#include "mpa/mpa_readahead.h"
#include "net_helpers.h"

#define NMSG 6
#define RXBUF (256 * 1024)
#define TAGLEN (300 * 1024)
static const size_t msg_sizes[NMSG] = { 1, 100, 1500, 9000, 65536, 200000 };

struct peer {
	struct world *w;
	const char *name;
	ddp_mpa_conn *c;
	int initiator;
	uint8_t *rx[NMSG + 2];
	uint8_t *tag;
	uint32_t stag;
	int have_stag;
	uint8_t *tx[NMSG];
	uint8_t *txtag;
	int nrecv, ntagged, nsent_done, nerr, connected, closed, failed,
	    rejected, sent;
	uint8_t err_layer, err_etype, err_code;
	int ev_fail_err;
	uint8_t ev_fail_code;
	int corrupt; /* a delivered message differed from what was sent */
	uint32_t seed;
};

struct world {
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_pd *pd;
	struct peer a, b; /* a: connecting side, b: accepting side */
	ddp_mpa_listener *lst;
	int expect_error; /* flip test: b expects an error */
	int done;
	uint32_t peer_stag_for_a; /* b's tagged buffer */
	ddp_mpa_config cfg_b;
};

static uint8_t pattern(uint32_t seed, size_t i)
{
	uint32_t x = seed * 2654435761u + (uint32_t)i * 40503u;
	return (uint8_t)(x ^ (x >> 13) ^ (uint32_t)(i >> 8));
}

static void fill(uint8_t *b, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		b[i] = pattern(seed, i);
}

static int check(const uint8_t *b, size_t n, uint32_t seed)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != pattern(seed, i))
			return 0;
	return 1;
}

static void maybe_finish(struct world *w)
{
	struct peer *a = &w->a, *b = &w->b;
	if (w->expect_error) {
		if (b->nerr || b->failed || a->failed || a->rejected)
			event_base_loopexit(w->base, NULL);
		return;
	}
	if (a->closed && b->closed)
		event_base_loopexit(w->base, NULL);
}

/* receiver: a sends NMSG untagged + 1 tagged, b sends NMSG untagged */
static void try_close(struct peer *p)
{
	struct world *w = p->w;
	struct peer *o = p == &w->a ? &w->b : &w->a;
	int want_rx = p == &w->b ? NMSG + 1 : NMSG;
	int want_sent = p == &w->a ? NMSG + 1 : NMSG;
	if (w->expect_error)
		return;
	if (p->nrecv + p->ntagged == want_rx && p->nsent_done == want_sent)
		ddp_session_close(ddp_mpa_session(p->c), 0);
	(void)o;
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct peer *p = user;
	if (d->status != 0)
		return;
	if (d->tagged) {
		if (d->len != TAGLEN || !check(p->tag, TAGLEN, 777))
			p->corrupt++;
		p->ntagged++;
	} else {
		int k = (int)(intptr_t)d->buf_ctx;
		uint32_t seed = (p == &p->w->a ? 2000u : 1000u) + (uint32_t)k;
		if (k != p->nrecv || d->len != msg_sizes[k] ||
		    !check(d->buf, d->len, seed))
			p->corrupt++;
		p->nrecv++;
	}
	try_close(p);
}

static void on_send_done(ddp_session *s, uint32_t st, void *ctx, int status,
			 void *user)
{
	struct peer *p = user;
	if (status == 0)
		p->nsent_done++;
	try_close(p);
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct peer *p = user;
	p->nerr++;
	p->err_layer = e->layer;
	p->err_etype = e->etype;
	p->err_code = e->code;
	if (getenv("MPA_DEBUG")) fprintf(stderr, "%s error %d/%d/%d hdr_len %d seg %u\n", p->name, e->layer, e->etype, e->code, e->hdr_len, e->seg_len);
	maybe_finish(p->w);
}

static const ddp_callbacks cbs = {
	.deliver = on_deliver, .send_done = on_send_done, .error = on_error,
};

static void post_all(struct peer *p)
{
	ddp_session *s = ddp_mpa_session(p->c);
	for (int i = 0; i < NMSG; i++)
		assert_int_equal(ddp_post_recv(s, 0, 0, p->rx[i], RXBUF,
					       (void *)(intptr_t)i), 0);
}

static void send_all(struct peer *p)
{
	struct world *w = p->w;
	ddp_session *s = ddp_mpa_session(p->c);
	if (p->sent)
		return;
	p->sent = 1;
	uint32_t base = p == &w->a ? 1000u : 2000u;
	for (int i = 0; i < NMSG; i++) {
		fill(p->tx[i], msg_sizes[i], base + (uint32_t)i);
		struct iovec v = { p->tx[i], msg_sizes[i] };
		assert_int_equal(ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL), 0);
	}
	if (p == &w->a) {
		fill(p->txtag, TAGLEN, 777);
		struct iovec v[2] = { { p->txtag, 1000 },
				      { p->txtag + 1000, TAGLEN - 1000 } };
		assert_int_equal(ddp_send_tagged(s, 0, w->peer_stag_for_a, 0, 0,
						 v, 2, NULL), 0);
	}
}

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err,
		     uint8_t code, void *user)
{
	struct peer *p = user;
	switch (ev) {
	case DDP_MPA_CONNECTED:
		p->connected = 1;
		send_all(p);
		break;
	case DDP_MPA_CLOSED:
		p->closed = 1;
		break;
	case DDP_MPA_FAILED:
		p->failed = 1;
		p->ev_fail_err = err;
		p->ev_fail_code = code;
		break;
	case DDP_MPA_REJECTED:
		p->rejected = 1;
		break;
	}
	maybe_finish(p->w);
}

static void setup_b_session(struct peer *b)
{
	struct world *w = b->w;
	post_all(b);
	ddp_mr_attr mr = { .addr = b->tag, .len = TAGLEN,
			   .access = DDP_ACCESS_REMOTE_WRITE, .pd = w->pd };
	assert_int_equal(ddp_stag_register(w->ctx, &mr, &b->stag), 0);
	b->have_stag = 1;
	w->peer_stag_for_a = b->stag;
}

static void on_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct world *w = user;
	struct peer *b = &w->b;
	b->c = c;
	ddp_mpa_set_user(c, b);
	assert_int_equal(req->private_data_len, 5);
	assert_memory_equal(req->private_data, "hello", 5);
	setup_b_session(b);
	assert_int_equal(ddp_mpa_accept(c, "welcome", 7), 0);
}

static void peer_init(struct world *w, struct peer *p, const char *name)
{
	p->w = w;
	p->name = name;
	for (int i = 0; i < NMSG; i++) {
		p->rx[i] = calloc(1, RXBUF);
		p->tx[i] = malloc(msg_sizes[i]);
	}
	p->tag = calloc(1, TAGLEN);
	p->txtag = malloc(TAGLEN);
}

static void peer_fini(struct peer *p)
{
	if (p->have_stag)
		ddp_stag_invalidate(p->w->ctx, p->stag);
	ddp_mpa_conn_free(p->c);
	for (int i = 0; i < NMSG; i++) {
		free(p->rx[i]);
		free(p->tx[i]);
	}
	free(p->tag);
	free(p->txtag);
}

static ddp_pd *g_pd;

static void world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	w->base = event_base_new();
	assert_non_null(w->base);
	assert_int_equal(ddp_ctx_new(NULL, &w->ctx), 0);
	assert_int_equal(ddp_pd_new(w->ctx, &w->pd), 0);
	g_pd = w->pd;
	peer_init(w, &w->a, "a");
	peer_init(w, &w->b, "b");
}

static void world_fini(struct world *w)
{
	peer_fini(&w->a);
	peer_fini(&w->b);
	ddp_mpa_listener_free(w->lst);
	assert_int_equal(ddp_pd_free(w->pd), 0);
	assert_int_equal(ddp_ctx_free(w->ctx), 0);
	event_base_free(w->base);
}

static void loop(struct world *w, int seconds)
{
	struct timeval tv = { seconds, 0 };
	event_base_loopexit(w->base, &tv);
	event_base_dispatch(w->base);
}

static ddp_mpa_config make_cfg(int rev, int markers, int crc)
{
	ddp_mpa_config c;
	memset(&c, 0, sizeof(c));
	c.revision = (uint8_t)rev;
	c.markers = markers;
	c.no_crc = !crc;
	c.ird = 8;
	c.ord = 8;
	c.startup_timeout_ms = 5000;
	c.session.pd = g_pd; /* the tagged buffer's PD */
	return c;
}

static void assert_clean_transfer(struct world *w)
{
	struct peer *a = &w->a, *b = &w->b;
	assert_int_equal(a->corrupt, 0);
	assert_int_equal(b->corrupt, 0);
	assert_int_equal(a->nerr, 0);
	assert_int_equal(b->nerr, 0);
	assert_false(a->failed);
	assert_false(b->failed);
	assert_int_equal(b->nrecv, NMSG);
	assert_int_equal(b->ntagged, 1);
	assert_int_equal(a->nrecv, NMSG);
	assert_true(a->closed);
	assert_true(b->closed);
	/* bulk payload went kernel -> ULP buffer. Copied: FPDUs with a ULPDU
	 * of at most MPA_RING_SWITCH octets (the 1, 100, 1500 and 9000 octet
	 * messages and the tail segments of the 65536 and 200000 octet ones),
	 * twice with markers (ring -> stage buffer -> ULP), plus what the
	 * read-ahead of that run of four small FPDUs took of the large ones
	 * that follow (at most 16 KiB, mpa_ra_run_ahead; 32 KiB allowed). Of
	 * the 276,137 untagged payload octets, most of the 65536 and 200000
	 * octet messages go straight to their place. */
	const uint64_t small = 1 + 100 + 1500 + 9000 + 2 * MPA_RING_SWITCH;
	const uint64_t bound = 2 * small + 32768;
	assert_true(ddp_session_copied_bytes(ddp_mpa_session(a->c)) <= bound);
	assert_true(ddp_session_copied_bytes(ddp_mpa_session(b->c)) <= bound);
}

/* --------------------------------------------------------- scenarios */

static void do_listen(struct world *w, const ddp_mpa_config *cb_)
{
	struct sockaddr_in sa = net_lo(0);
	assert_int_equal(ddp_mpa_listen(w->base, w->ctx, (struct sockaddr *)&sa,
					sizeof sa, cb_, &cbs, on_accept,
					on_event, w, &w->lst), 0);
}

static void do_connect(struct world *w, const ddp_mpa_config *ca, int port)
{
	struct sockaddr_in sa = net_lo(port);
	ddp_mpa_config c = *ca;
	c.private_data = "hello";
	c.private_data_len = 5;
	assert_int_equal(ddp_mpa_connect(w->base, w->ctx, (struct sockaddr *)&sa,
					 sizeof sa, &c, &cbs, on_event, &w->a,
					 &w->a.c), 0);
	post_all(&w->a);
}

static void transfer_listen_connect(int rev, int markers_a, int markers_b,
				    int crc_a, int crc_b)
{
	struct world w;
	world_init(&w);
	ddp_mpa_config ca = make_cfg(rev, markers_a, crc_a);
	ddp_mpa_config cb_ = make_cfg(rev, markers_b, crc_b);
	do_listen(&w, &cb_);
	do_connect(&w, &ca, ddp_mpa_listener_port(w.lst));
	loop(&w, 15);
	assert_clean_transfer(&w);
	ddp_mpa_info ia, ib;
	assert_int_equal(ddp_mpa_get_info(w.a.c, &ia), 0);
	assert_int_equal(ddp_mpa_get_info(w.b.c, &ib), 0);
	assert_true(ia.initiator);
	assert_false(ib.initiator);
	assert_int_equal(ia.revision, rev);
	assert_int_equal(ia.crc, crc_a || crc_b);
	assert_int_equal(ia.markers_tx, markers_b);
	assert_int_equal(ia.markers_rx, markers_a);
	assert_int_equal(ib.markers_tx, markers_a);
	assert_int_equal(ia.private_data_len, 7);
	assert_memory_equal(ia.private_data, "welcome", 7);
	world_fini(&w);
}

/* RFC 5044 §7.1 start-up + §4 FPDUs: markers in either direction (§4.3,
 * per direction) x CRC (§4.4: used when either side asks) x revision 1/2
 * (RFC 6581), the connecting side being the Initiator */
static void matrix(int rev, int crc_a, int crc_b)
{
	alarm(20);
	for (int m = 0; m < 4; m++)
		transfer_listen_connect(rev, m & 1, m >> 1, crc_a, crc_b);
	alarm(0);
}

static void test_mpa_tcp_rev1_crc_on_markers_all(void **state)
{
	matrix(1, 1, 1);
}

static void test_mpa_tcp_rev1_crc_off_markers_all(void **state)
{
	matrix(1, 0, 0);
}

static void test_mpa_tcp_rev2_crc_one_side_markers_all(void **state)
{
	matrix(2, 1, 0);
}

static void test_mpa_tcp_rev2_crc_off_markers_all(void **state)
{
	matrix(2, 0, 0);
}

/* the accepting side is the MPA Initiator (ddp_mpa_wrap_fd roles) */
static void test_mpa_tcp_matrix_initiator_accepts(void **state)
{
	alarm(20);
	for (int mode = 0; mode < 8; mode++) {
		int rev = 1 + (mode & 1), markers = (mode >> 1) & 1,
		    crc = (mode >> 2) & 1;
		struct world w;
		world_init(&w);
		int lfd = socket(AF_INET, SOCK_STREAM, 0);
		struct sockaddr_in sa = net_lo(0);
		assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
		assert_int_equal(listen(lfd, 1), 0);
		socklen_t sl = sizeof sa;
		getsockname(lfd, (struct sockaddr *)&sa, &sl);
		int cfd = socket(AF_INET, SOCK_STREAM, 0);
		assert_int_equal(connect(cfd, (struct sockaddr *)&sa, sizeof sa), 0);
		int afd = accept(lfd, NULL, NULL);
		assert_true(afd >= 0);
		close(lfd);
		ddp_mpa_config ci = make_cfg(rev, markers, crc);
		ci.private_data = "hello";
		ci.private_data_len = 5;
		ddp_mpa_config cr = make_cfg(rev, !markers, crc);
		/* b (accepting TCP side) is the MPA Initiator here: it plays
		 * the sender role "a" in the data pattern, so map it so */
		assert_int_equal(ddp_mpa_wrap_fd(w.base, w.ctx, cfd, 0, &cr, &cbs,
						 on_accept, on_event, &w, &w.b.c), 0);
		assert_int_equal(ddp_mpa_wrap_fd(w.base, w.ctx, afd, 1, &ci, &cbs,
						 NULL, on_event, &w.a, &w.a.c), 0);
		post_all(&w.a);
		loop(&w, 15);
		assert_clean_transfer(&w);
		ddp_mpa_info ia;
		assert_int_equal(ddp_mpa_get_info(w.a.c, &ia), 0);
		assert_true(ia.initiator);
		assert_int_equal(ia.revision, rev);
		assert_int_equal(ia.crc, crc);
		assert_int_equal(ia.markers_tx, !markers);
		assert_int_equal(ia.markers_rx, markers);
		world_fini(&w);
	}
	alarm(0);
}

/* the stream re-segmented into random 1..N octet writes by a proxy */
static void test_mpa_tcp_survives_resegmenting_proxy(void **state)
{
	alarm(20);
	for (int mode = 0; mode < 2; mode++) {
		struct world w;
		world_init(&w);
		ddp_mpa_config c = make_cfg(2, mode, 1);
		do_listen(&w, &c);
		fproxy px;
		assert_int_equal(fproxy_start(&px, w.base, ddp_mpa_listener_port(w.lst),
					      mode ? 61 : 1500, 4242u + (uint32_t)mode),
				 0);
		do_connect(&w, &c, px.port);
		loop(&w, 15);
		assert_clean_transfer(&w);
		/* everything really went through the proxy */
		assert_true(px.d[0].seen > 500000);
		assert_true(px.d[1].seen > 270000);
		fproxy_stop(&px);
		world_fini(&w);
	}
	alarm(0);
}

/* RFC 5044 §4.4, §8: one flipped bit per connection, in different FPDUs;
 * each caught (error 2/0/2 at the receiver), nothing corrupt delivered */
static void test_mpa_tcp_bit_flips_are_all_caught(void **state)
{
	alarm(20);
	/* a's direction: Request (20 + 4 enhanced + 5 pd) then FPDUs of the
	 * first messages: sizes 1, 100, 1500, 9000, ... */
	uint64_t req = 20 + 4 + 5;
	uint64_t starts[4];
	uint64_t pos = req;
	for (int i = 0; i < 4; i++) {
		starts[i] = pos;
		size_t ul = 18 + msg_sizes[i];
		pos += 2 + ul + ((4 - ((ul + 2) & 3)) & 3) + 4;
	}
	for (int k = 0; k < 4; k++) {
		struct world w;
		world_init(&w);
		w.expect_error = 1;
		ddp_mpa_config c = make_cfg(2, 0, 1);
		do_listen(&w, &c);
		fproxy px;
		/* FPDUs 0, 1 are small (staged: CRC checked before DDP sees
		 * the header): flip in the DDP header (QN); FPDUs 2, 3 take
		 * the header-first path: flip in the payload */
		uint64_t flip = k < 2 ? starts[k] + 2 + 9 :
					starts[k] + 2 + 18 + (uint64_t)k * 7;
		assert_int_equal(fproxy_start(&px, w.base, ddp_mpa_listener_port(w.lst),
					      4096, 99u + (uint32_t)k),
				 0);
		px.d[0].flip_at = flip;
		px.d[0].flip_mask = (uint8_t)(1u << (flip % 8));
		do_connect(&w, &c, px.port);
		loop(&w, 15);
		assert_int_equal(w.b.nerr, 1);
		assert_int_equal(w.b.err_layer, DDP_LAYER_LLP);
		assert_int_equal(w.b.err_etype, 0);
		assert_int_equal(w.b.err_code, DDP_MPA_ECODE_CRC);
		assert_int_equal(w.b.corrupt, 0);
		assert_int_equal(w.b.nrecv, k); /* everything before, nothing after */
		fproxy_stop(&px);
		world_fini(&w);
	}
	alarm(0);
}

/* a peer that is no MPA peer: bad key closes TCP with code 4, others on
 * the same listener keep working */
static void test_mpa_tcp_bad_peer_does_not_hurt_others(void **state)
{
	alarm(20);
	struct world w;
	world_init(&w);
	ddp_mpa_config c = make_cfg(1, 0, 1);
	do_listen(&w, &c);
	int port = ddp_mpa_listener_port(w.lst);
	int bad = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = net_lo(port);
	assert_int_equal(connect(bad, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(send(bad, "GET / HTTP/1.0\r\n\r\n\r\n", 20, 0), 20);
	do_connect(&w, &c, port);
	loop(&w, 15);
	assert_clean_transfer(&w);
	char buf[64];
	assert_true(recv(bad, buf, sizeof buf, 0) <= 0); /* closed on us */
	close(bad);
	world_fini(&w);
	alarm(0);
}

static void on_accept_reject(ddp_mpa_conn *c, const ddp_mpa_info *req,
			     void *user)
{
	struct world *w = user;
	w->b.c = c;
	ddp_mpa_set_user(c, &w->b);
	assert_int_equal(req->peer_ird, 8);
	assert_int_equal(req->revision, 2);
	assert_int_equal(ddp_mpa_reject(c, "go away", 7), 0);
}

/* RFC 5044 §7.1.2-3: the Responder's ULP rejects (R=1 with private data);
 * the Initiator sees the rejection and the data, no FPDU moves */
static void test_mpa_tcp_reject_with_private_data(void **state)
{
	alarm(20);
	struct world w;
	world_init(&w);
	w.expect_error = 1;
	ddp_mpa_config c = make_cfg(2, 0, 1);
	struct sockaddr_in sa = net_lo(0);
	assert_int_equal(ddp_mpa_listen(w.base, w.ctx, (struct sockaddr *)&sa,
					sizeof sa, &c, &cbs, on_accept_reject,
					on_event, &w, &w.lst), 0);
	do_connect(&w, &c, ddp_mpa_listener_port(w.lst));
	struct timeval tv = { 2, 0 };
	event_base_loopexit(w.base, &tv);
	event_base_dispatch(w.base);
	assert_true(w.a.rejected);
	assert_true(w.b.rejected);
	assert_false(w.a.connected);
	ddp_mpa_info ia;
	assert_int_equal(ddp_mpa_get_info(w.a.c, &ia), 0);
	assert_int_equal(ia.private_data_len, 7);
	assert_memory_equal(ia.private_data, "go away", 7);
	assert_int_equal(w.b.nrecv, 0);
	world_fini(&w);
	alarm(0);
}

/* RFC 5044 §7.1: start-up time-out, both as Initiator (silent server) and
 * as Responder (silent client, freed by the listener on its own) */
static void test_mpa_tcp_startup_timeout(void **state)
{
	alarm(20);
	struct world w;
	world_init(&w);
	w.expect_error = 1;
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = net_lo(0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
	assert_int_equal(listen(lfd, 4), 0);
	socklen_t sl = sizeof sa;
	getsockname(lfd, (struct sockaddr *)&sa, &sl);
	ddp_mpa_config c = make_cfg(1, 0, 1);
	c.startup_timeout_ms = 300;
	do_connect(&w, &c, ntohs(sa.sin_port));
	loop(&w, 5);
	assert_true(w.a.failed);
	assert_int_equal(w.a.ev_fail_err, DDP_ERR_TIMEOUT);
	close(lfd);

	/* silent client against our listener: no callback, no leak */
	struct world w2;
	world_fini(&w);
	world_init(&w2);
	c = make_cfg(1, 0, 1); /* the session PD of the new world */
	c.startup_timeout_ms = 300;
	do_listen(&w2, &c);
	int cfd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in ls = net_lo(ddp_mpa_listener_port(w2.lst));
	assert_int_equal(connect(cfd, (struct sockaddr *)&ls, sizeof ls), 0);
	loop(&w2, 1);
	char b;
	/* the listener gave up on it: reset or closed, not just silent */
	ssize_t r = recv(cfd, &b, 1, MSG_DONTWAIT);
	assert_true(r == 0 || (r < 0 && errno != EAGAIN));
	close(cfd);
	assert_null(w2.b.c);
	world_fini(&w2);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mpa_tcp_rev1_crc_on_markers_all),
		cmocka_unit_test(test_mpa_tcp_rev1_crc_off_markers_all),
		cmocka_unit_test(test_mpa_tcp_rev2_crc_one_side_markers_all),
		cmocka_unit_test(test_mpa_tcp_rev2_crc_off_markers_all),
		cmocka_unit_test(test_mpa_tcp_matrix_initiator_accepts),
		cmocka_unit_test(test_mpa_tcp_survives_resegmenting_proxy),
		cmocka_unit_test(test_mpa_tcp_bit_flips_are_all_caught),
		cmocka_unit_test(test_mpa_tcp_bad_peer_does_not_hurt_others),
		cmocka_unit_test(test_mpa_tcp_reject_with_private_data),
		cmocka_unit_test(test_mpa_tcp_startup_timeout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
