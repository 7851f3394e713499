/*
 * test_rdmap_read_release: memory the wire still references stays valid.
 * Over real MPA/TCP and DDP/SCTP on 127.0.0.1, side 0 asks side 1 for an
 * RDMA Read of a 16 MiB guard-page buffer and then keeps its receive
 * window closed: each side runs on its own event_base and side 0's is not
 * run, so its socket is not read and the Response stays queued at side 1.
 * Side 1's STag is then invalidated, by side 1 itself or by side 0's Send
 * with Invalidate. The region's released callback (ddp/ddp.h) overwrites
 * the buffer and makes it inaccessible (PROT_NONE), as an application
 * freeing it would. Once side 0 reads again, the Read must complete with
 * the original octets and the region must have been released only after
 * the Response left; a Response still reading the released buffer crashes
 * (SIGSEGV in the CRC or the copy into usrsctp), fails the connection
 * (EFAULT) or carries 0xEE octets. Bounded by alarm().
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/mpa.h>
#include <ddp/rdmap.h>
#if HAVE_USRSCTP
#include <ddp/sctp.h>
#endif

#include "guardbuf.h"

enum llp { LLP_MPA, LLP_SCTP };
#define LEN (16u << 20)

struct side {
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_rdmap_dev *dev;
	ddp_rdmap_qp *qp;
	ddp_session *s;
	ddp_rdmap_wc wc[8];
	int nwc, nterm;
	ddp_mpa_conn *conn;
#if HAVE_USRSCTP
	ddp_sctp_ep *ep;
#endif
};

static struct {
	enum llp llp;
	struct side sd[2];
	ddp_mpa_listener *lst;
	guardbuf src;
	uint8_t *sink, *want;
	uint32_t src_stag, sink_stag;
	int released;
	uint64_t queued_at_release; /* side 1's untransmitted octets then */
	int released_at_recv;	    /* at the Send with Invalidate's RECV */
	uint8_t rbuf[64];
} P;

static struct side *side_of_dev(void *dev)
{
	return dev == P.sd[0].dev ? &P.sd[0] : &P.sd[1];
}

static void on_complete(ddp_rdmap_qp *qp, const ddp_rdmap_wc *wc, void *user)
{
	struct side *s = user;
	assert_true(s->nwc < 8);
	s->wc[s->nwc++] = *wc;
	if (wc->kind == DDP_RDMAP_WC_RECV && wc->invalidated)
		P.released_at_recv = P.released;
}

static void on_term(ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent, void *user)
{
	((struct side *)user)->nterm++;
}

static const ddp_rdmap_callbacks qcb = { on_complete, on_term };

/* The application frees the buffer the moment the library gives it back. */
static void on_released(ddp_ctx *ctx, uint32_t stag, void *addr, void *user)
{
	assert_ptr_equal(addr, P.src.p);
	P.released++;
	P.queued_at_release = ddp_stream_queued(P.sd[1].s, 0, NULL);
	memset(P.src.p, 0xEE, LEN);
	assert_int_equal(mprotect(P.src.map, P.src.map_len, PROT_NONE), 0);
}

static void qp_start(struct side *s, ddp_session *sess)
{
	s->s = sess;
	ddp_rdmap_config c = { .ird = 1, .ord = 1 };
	assert_int_equal(ddp_rdmap_qp_new(s->dev, sess, 0, &c, &qcb, s, &s->qp), 0);
}

/* ------------------------------------------------------------ MPA */

static void mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct side *s = side_of_dev(user);
	if (ev != DDP_MPA_CONNECTED)
		return; /* the connection is freed at the end of the test */
	s->conn = c;
	qp_start(s, ddp_mpa_session(c));
}

static void mpa_up(void)
{
	ddp_callbacks cb;
	ddp_rdmap_dev_callbacks(&cb);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	ddp_mpa_config c = { .revision = 2, .ird = 1, .ord = 1 };
	assert_int_equal(ddp_mpa_listen(P.sd[1].base, P.sd[1].ctx, (struct sockaddr *)&sa,
					 sizeof(sa), &c, &cb, NULL, mpa_event, P.sd[1].dev, &P.lst),
			 0);
	sa.sin_port = htons((uint16_t)ddp_mpa_listener_port(P.lst));
	ddp_mpa_conn *conn;
	assert_int_equal(ddp_mpa_connect(P.sd[0].base, P.sd[0].ctx, (struct sockaddr *)&sa,
					  sizeof(sa), &c, &cb, mpa_event, P.sd[0].dev, &conn), 0);
	P.sd[0].conn = conn;
}

/* ------------------------------------------------------------ SCTP */
#if HAVE_USRSCTP
static void sctp_assoc(ddp_sctp_assoc *a, ddp_session *sess, int status, void *user)
{
	struct side *s = side_of_dev(user);
	if (status == 0) {
		if (s == &P.sd[0]) {
			ddp_sctp_ird_ord io = { .ird = 1, .ord = 1 };
			assert_int_equal(ddp_sctp_initiate_enhanced(a, 0, &io, NULL, 0), 0);
		}
		return;
	}
	ddp_rdmap_qp_free(s->qp); /* before the association's session goes */
	s->qp = NULL;
}

static void sctp_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		     const void *pd, size_t pd_len, void *user)
{
	struct side *s = side_of_dev(user);
	qp_start(s, ddp_sctp_session(a));
	if (ev == DDP_SCTP_INITIATE) {
		ddp_sctp_ird_ord io = { .ird = 1, .ord = 1 };
		assert_int_equal(ddp_sctp_accept_enhanced(a, stream, &io, NULL, 0), 0);
	}
}

static void sctp_up(void)
{
	for (int i = 0; i < 2; i++) {
		ddp_sctp_config c = { .port = -1, .nstreams = 1, .ctx = P.sd[i].ctx,
				      .user = P.sd[i].dev };
		ddp_rdmap_dev_callbacks(&c.ddp);
		c.sctp.assoc = sctp_assoc;
		c.sctp.session_ctl = sctp_ctl;
		assert_int_equal(ddp_sctp_ep_new(P.sd[i].base, &c, &P.sd[i].ep), 0);
	}
	assert_int_equal(ddp_sctp_listen(P.sd[1].ep), 0);
	ddp_sctp_assoc *a;
	assert_int_equal(ddp_sctp_connect(P.sd[0].ep, "127.0.0.1", ddp_sctp_ep_port(P.sd[1].ep),
					  &a), 0);
}
#endif

/* ------------------------------------------------------------ harness */

static long ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Run the event loops of the sides in mask (bit i: side i) until done()
 * holds or ms passed. Returns done(). */
static int run(int mask, int (*done)(void), long ms)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!(done && done()) && ms_since(&t0) < ms) {
		for (int i = 0; i < 2; i++) {
			if (!(mask & (1 << i)))
				continue;
			struct timeval tv = { 0, 1000 };
			event_base_loopexit(P.sd[i].base, &tv);
			event_base_dispatch(P.sd[i].base);
		}
	}
	return done ? done() : 1;
}

static int qps_up(void) { return P.sd[0].qp && P.sd[1].qp; }
static int resp_queued(void) { return ddp_stream_queued(P.sd[1].s, 0, NULL) > 0; }
static int recv_done(void) { return P.sd[1].nwc > 0; }
static int read_done(void) { return P.sd[0].nwc > 0 || P.sd[0].nterm; }

static int setup(void **st)
{
	memset(&P, 0, sizeof(P));
	P.llp = (enum llp)(intptr_t)*st;
	alarm(90);
	for (int i = 0; i < 2; i++) {
		P.sd[i].base = event_base_new();
		assert_non_null(P.sd[i].base);
		assert_int_equal(ddp_ctx_new(NULL, &P.sd[i].ctx), 0);
		assert_int_equal(ddp_rdmap_dev_new(P.sd[i].ctx, NULL, NULL, &P.sd[i].dev), 0);
	}
	if (P.llp == LLP_MPA)
		mpa_up();
#if HAVE_USRSCTP
	else
		sctp_up();
#endif
	assert_true(run(3, qps_up, 10000));
	assert_int_equal(guardbuf_new(&P.src, LEN), 0);
	P.sink = calloc(1, LEN);
	P.want = malloc(LEN);
	assert_true(P.sink && P.want);
	for (size_t i = 0; i < LEN; i++)
		P.want[i] = P.src.p[i] = (uint8_t)(i * 29 + (i >> 11));
	ddp_mr_attr a = { .addr = P.src.p, .len = LEN, .access = DDP_ACCESS_REMOTE_READ,
			  .session = P.sd[1].s, .released = on_released };
	assert_int_equal(ddp_stag_register(P.sd[1].ctx, &a, &P.src_stag), 0);
	ddp_mr_attr k = { .addr = P.sink, .len = LEN, .access = DDP_ACCESS_REMOTE_WRITE,
			  .session = P.sd[0].s };
	assert_int_equal(ddp_stag_register(P.sd[0].ctx, &k, &P.sink_stag), 0);
	return 0;
}

static int teardown(void **st)
{
	for (int i = 0; i < 2; i++) {
		ddp_rdmap_qp_free(P.sd[i].qp);
		P.sd[i].qp = NULL;
	}
	ddp_stag_invalidate(P.sd[0].ctx, P.sink_stag);
	ddp_stag_invalidate(P.sd[1].ctx, P.src_stag); /* NOENT once invalidated */
	for (int i = 0; i < 2; i++) {
		ddp_mpa_conn_free(P.sd[i].conn);
#if HAVE_USRSCTP
		ddp_sctp_ep_free(P.sd[i].ep);
#endif
	}
	ddp_mpa_listener_free(P.lst);
	for (int i = 0; i < 2; i++) {
		event_base_loop(P.sd[i].base, EVLOOP_NONBLOCK);
		assert_int_equal(ddp_rdmap_dev_free(P.sd[i].dev), 0);
		assert_int_equal(ddp_ctx_free(P.sd[i].ctx), 0); /* no region left behind */
		event_base_free(P.sd[i].base);
	}
	guardbuf_free(&P.src);
	free(P.sink);
	free(P.want);
	alarm(0);
	return 0;
}

/* Side 0 sends what it posted (its Read Request, maybe a Send) and then
 * stops reading: side 1 alone runs until the Response has filled what
 * the transport takes; it must still be queued. */
static void ask_and_close_window(int with_send_inv)
{
	struct side *a = &P.sd[0], *b = &P.sd[1];
	if (with_send_inv)
		assert_int_equal(ddp_rdmap_post_recv(b->qp, P.rbuf, sizeof(P.rbuf), NULL), 0);
	assert_int_equal(ddp_rdmap_post_read(a->qp, P.sink_stag, 0, P.src_stag, 0, LEN,
					     (void *)1), 0);
	if (with_send_inv) {
		struct iovec v = { "inv", 3 };
		assert_int_equal(ddp_rdmap_post_send(a->qp, DDP_RDMAP_SEND_INV, P.src_stag, &v, 1,
						     (void *)2), 0);
	}
	/* both run until side 1 has the Request (and the Send): side 0's
	 * loop also moves its packets out (SCTP); the Response is queued
	 * in the same pass of side 1's loop, before side 0 runs again */
	assert_true(run(3, with_send_inv ? recv_done : resp_queued, 5000));
	run(2, NULL, 300);
	assert_true(resp_queued()); /* the peer's window is closed */
}

/* Side 0 reads again: the Read completes with the octets the buffer held
 * when it was asked for, and the region was released only once the
 * Response had left. */
static void open_window_and_check(void)
{
	assert_true(run(3, read_done, 30000));
	assert_int_equal(P.sd[0].nterm + P.sd[1].nterm, 0);
	assert_int_equal(P.sd[0].wc[0].kind, DDP_RDMAP_WC_READ);
	assert_int_equal(P.sd[0].wc[0].status, 0);
	assert_memory_equal(P.sink, P.want, LEN);
	assert_int_equal(P.released, 1);
	assert_int_equal(P.queued_at_release, 0);
}

/* ddp/ddp.h: the responder's own invalidation of a region a queued Read
 * Response reads returns DDP_STAG_IN_USE and releases it once sent. */
static void test_rdmap_invalidate_keeps_buffer_of_stalled_read_response(void **st)
{
	ask_and_close_window(0);
	int rc = ddp_stag_invalidate(P.sd[1].ctx, P.src_stag);
	int released_at_invalidate = P.released;
	open_window_and_check();
	assert_int_equal(rc, DDP_STAG_IN_USE);
	assert_int_equal(released_at_invalidate, 0);
}

/* RFC 5040 §5.1: the peer's Send with Invalidate makes the STag invalid
 * before the Send is delivered; the buffer stays the library's until our
 * Response from it was sent. */
static void test_rdmap_peer_send_inv_keeps_buffer_of_stalled_read_response(void **st)
{
	ask_and_close_window(1);
	assert_true(P.sd[1].wc[0].invalidated);
	assert_int_equal(P.sd[1].wc[0].inv_stag, P.src_stag);
	assert_int_equal(ddp_stag_invalidate(P.sd[1].ctx, P.src_stag), DDP_ERR_NOENT);
	open_window_and_check();
	assert_int_equal(P.released_at_recv, 0);
}

/* Freeing the responder's queue pair with the Response stalled releases
 * the invalidated region inside the free: no hang, no leak. */
static void test_rdmap_qp_free_releases_stalled_read_response(void **st)
{
	ask_and_close_window(0);
	assert_int_equal(ddp_stag_invalidate(P.sd[1].ctx, P.src_stag), DDP_STAG_IN_USE);
	assert_int_equal(P.released, 0);
	assert_int_equal(ddp_rdmap_qp_free(P.sd[1].qp), 0);
	P.sd[1].qp = NULL;
	assert_int_equal(P.released, 1);
}

#define ON(t, l) cmocka_unit_test_prestate_setup_teardown(t, setup, teardown, (void *)(l))

int main(void)
{
	const struct CMUnitTest mpa[] = {
		ON(test_rdmap_invalidate_keeps_buffer_of_stalled_read_response, LLP_MPA),
		ON(test_rdmap_peer_send_inv_keeps_buffer_of_stalled_read_response, LLP_MPA),
		ON(test_rdmap_qp_free_releases_stalled_read_response, LLP_MPA),
	};
	int rc = cmocka_run_group_tests_name("read release over MPA/TCP", mpa, NULL, NULL);
#if HAVE_USRSCTP
	const struct CMUnitTest sctp[] = {
		ON(test_rdmap_invalidate_keeps_buffer_of_stalled_read_response, LLP_SCTP),
		ON(test_rdmap_peer_send_inv_keeps_buffer_of_stalled_read_response, LLP_SCTP),
		ON(test_rdmap_qp_free_releases_stalled_read_response, LLP_SCTP),
	};
	rc += cmocka_run_group_tests_name("read release over DDP/SCTP", sctp, NULL, NULL);
#endif
	return rc;
}
