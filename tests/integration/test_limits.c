/* Limits: every configurable cap is enforced with its
 * documented error, and a zero field gives a safe default. One test per
 * cap; each names the config field it proves:
 *   ddp_ctx_config.max_stags, .max_pds
 *   ddp_session_config.nstreams, .reorder_window, .max_posted, .max_tx_queued
 *   ddp_mpa_config.max_private_data, .startup_timeout_ms, .tx_queue_cap, .max_startup
 *   ddp_sctp_config.max_pending_initiates, .nstreams, .max_assocs
 * (A short startup_timeout_ms reaping half-open peers, and the floods, are
 * in test_limits_flood.c.) Real sockets on 127.0.0.1 only; every test is
 * bounded by alarm(). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/llp.h>
#include <ddp/mpa.h>
#if HAVE_USRSCTP
#include <ddp/sctp.h>
#endif
#include "ddpwire.h"
#include "mpa/tcp/mpa_tcp.h"
#include "mpa/mpa_proto.h"
#include "net_counts.h"
#include "net_helpers.h"
#include "nullllp.h"

static struct event_base *base;
static ddp_ctx *ctx;

static int setup(void **st)
{
	alarm(20);
	base = event_base_new();
	return base && ddp_ctx_new(NULL, &ctx) == 0 ? 0 : -1;
}

static int teardown(void **st)
{
	assert_int_equal(ddp_ctx_free(ctx), 0);
	event_base_free(base);
	alarm(0);
	return 0;
}


/* ------------------------------------------------------ ddp_ctx_config */

static void fill_stags(ddp_ctx *c, uint32_t n, uint8_t *buf, uint32_t *out)
{
	ddp_mr_attr mr = {.addr = buf, .len = 64, .access = DDP_ACCESS_REMOTE_WRITE};
	assert_int_equal(ddp_pd_new(c, &mr.pd), 0);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(ddp_stag_register(c, &mr, &out[i]), 0);
	uint32_t extra;
	assert_int_equal(ddp_stag_register(c, &mr, &extra), DDP_ERR_LIMIT);
	/* invalidating one frees one slot, no more */
	assert_int_equal(ddp_stag_invalidate(c, out[0]), 0);
	assert_int_equal(ddp_stag_register(c, &mr, &out[0]), 0);
	assert_int_equal(ddp_stag_register(c, &mr, &extra), DDP_ERR_LIMIT);
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(ddp_stag_invalidate(c, out[i]), 0);
	assert_int_equal(ddp_pd_free(mr.pd), 0);
}

/* ddp_ctx_config.max_stags: DDP_ERR_LIMIT at the cap; default 65536;
 * more than 2^23 is refused (RFC 5041 §8 DDP-SEC-4: STags are a finite,
 * guarded resource) */
static void test_limits_ctx_max_stags(void **st)
{
	static uint8_t buf[64];
	uint32_t *tags = calloc(65536, sizeof(*tags));
	ddp_ctx *c;
	ddp_ctx_config cfg = {.max_stags = 8};
	assert_int_equal(ddp_ctx_new(&cfg, &c), 0);
	fill_stags(c, 8, buf, tags);
	assert_int_equal(ddp_ctx_free(c), 0);
	assert_int_equal(ddp_ctx_new(NULL, &c), 0); /* default 65536 */
	fill_stags(c, 65536, buf, tags);
	assert_int_equal(ddp_ctx_free(c), 0);
	cfg.max_stags = (1u << 23) + 1;
	assert_int_equal(ddp_ctx_new(&cfg, &c), DDP_ERR_INVAL);
	assert_null(c);
	free(tags);
}

/* ddp_ctx_config.max_pds: DDP_ERR_LIMIT at the cap; default 1024 */
static void test_limits_ctx_max_pds(void **st)
{
	static ddp_pd *pds[1024];
	ddp_pd *extra;
	for (int round = 0; round < 2; round++) {
		uint32_t n = round ? 1024 : 3;
		ddp_ctx_config cfg = {.max_pds = round ? 0 : 3};
		ddp_ctx *c;
		assert_int_equal(ddp_ctx_new(&cfg, &c), 0);
		for (uint32_t i = 0; i < n; i++)
			assert_int_equal(ddp_pd_new(c, &pds[i]), 0);
		assert_int_equal(ddp_pd_new(c, &extra), DDP_ERR_LIMIT);
		assert_int_equal(ddp_pd_free(pds[0]), 0);
		assert_int_equal(ddp_pd_new(c, &pds[0]), 0);
		for (uint32_t i = 0; i < n; i++)
			assert_int_equal(ddp_pd_free(pds[i]), 0);
		assert_int_equal(ddp_ctx_free(c), 0);
	}
}

/* -------------------------------------------------- ddp_session_config */

/* ddp_session_config.nstreams (default 1, at most 65535) and
 * .reorder_window (default 1024, at most 32768): over the ceiling is
 * DDP_ERR_INVAL; nqueues defaults to 3 */
static void test_limits_session_nstreams_and_window_ceilings(void **st)
{
	nullllp nl = {0};
	ddp_session *s;
	ddp_session_config sc = {.nstreams = 65536};
	assert_int_equal(ddp_session_new(ctx, &sc, &nullllp_ops, &nl, &count_cbs, NULL, &s),
	                 DDP_ERR_INVAL);
	sc.nstreams = 0;
	sc.reorder_window = 32769;
	assert_int_equal(ddp_session_new(ctx, &sc, &nullllp_ops, &nl, &count_cbs, NULL, &s),
	                 DDP_ERR_INVAL);
	assert_int_equal(ddp_session_new(ctx, NULL, &nullllp_ops, &nl, &count_cbs, NULL, &s), 0);
	assert_int_equal(ddp_session_nstreams(s), 1);
	uint8_t b[8];
	assert_int_equal(ddp_post_recv(s, 1, 0, b, 8, NULL), DDP_ERR_INVAL);
	assert_int_equal(ddp_post_recv(s, 0, 2, b, 8, NULL), 0);
	assert_int_equal(ddp_post_recv(s, 0, 3, b, 8, NULL), DDP_ERR_INVAL);
	ddp_session_free(s);
	sc.reorder_window = 32768;
	sc.nstreams = 65535;
	assert_int_equal(ddp_session_new(ctx, &sc, &nullllp_ops, &nl, &count_cbs, NULL, &s), 0);
	assert_int_equal(ddp_session_nstreams(s), 65535);
	ddp_session_free(s);
}

/* Send one untagged segment with DDP-SSN seq; returns errors seen. */
static long seg_at(ddp_session *s, uint32_t seq, uint32_t msn)
{
	uint8_t seg[DDP_UNTAGGED_HDR_LEN + 4];
	size_t n = tw_untagged(seg, 1, 1, 0, 0, msn, 0, "abcd", 4);
	long before = cnt.errors;
	assert_int_equal(ddp_llp_rx_segment(s, 0, seq, seg, n), 0);
	return cnt.errors - before;
}

/* ddp_session_config.reorder_window: an out-of-order LLP (RFC 5043 DDP-SSN)
 * may hold at most reorder_window segments ahead of the in-order point; a
 * segment beyond is an error (EType 3 code 0x01), not more memory. Checked
 * for 16 and the default 1024. */
static void test_limits_reorder_window_bounds_held_segments(void **st)
{
	static uint8_t bufs[2][64];
	for (int round = 0; round < 2; round++) {
		uint32_t w = round ? 1024 : 16;
		nullllp nl = {0};
		ddp_session *s;
		ddp_session_config sc = {.reorder_window = round ? 0 : 16};
		memset(&cnt, 0, sizeof(cnt));
		assert_int_equal(ddp_session_new(ctx, &sc, &nullllp_ops, &nl, &count_cbs, NULL, &s), 0);
		assert_int_equal(ddp_post_recv(s, 0, 0, bufs[0], 64, NULL), 0);
		assert_int_equal(ddp_post_recv(s, 0, 0, bufs[1], 64, NULL), 0);
		/* the last slot of the window is held */
		assert_int_equal(seg_at(s, w - 1, 2), 0);
		assert_int_equal(cnt.delivered, 0);
		/* one beyond the window: the stream's error */
		assert_int_equal(seg_at(s, w, 3), 1);
		assert_int_equal(cnt.err.layer, DDP_LAYER_DDP);
		assert_int_equal(cnt.err.etype, DDP_ETYPE_LLP);
		assert_int_equal(cnt.err.code, DDP_ECODE_LLP_BAD_SSN);
		ddp_session_free(s);
	}
}

/* ddp_session_config.max_posted (per stream and QN): DDP_ERR_LIMIT at the
 * cap; default 1024. Checked on an MPA session before start-up. */
static void test_limits_session_max_posted(void **st)
{
	static uint8_t b[16];
	int lport, lfd = net_raw_listener(&lport);
	assert_true(lfd >= 0);
	for (int round = 0; round < 2; round++) {
		uint32_t cap = round ? 1024 : 16;
		ddp_mpa_config mc;
		memset(&mc, 0, sizeof(mc));
		mc.session.max_posted = round ? 0 : 16;
		struct sockaddr_in sa = net_lo(lport);
		ddp_mpa_conn *c;
		memset(&cnt, 0, sizeof(cnt));
		assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc,
		                                 &count_cbs, count_mpa_event, NULL, &c),
		                 0);
		ddp_session *s = ddp_mpa_session(c);
		for (uint32_t i = 0; i < cap; i++)
			assert_int_equal(ddp_post_recv(s, 0, 0, b, 16, NULL), 0);
		assert_int_equal(ddp_post_recv(s, 0, 0, b, 16, NULL), DDP_ERR_LIMIT);
		/* the cap is per (stream, QN) */
		assert_int_equal(ddp_post_recv(s, 0, 1, b, 16, NULL), 0);
		ddp_mpa_conn_free(c);
		/* every posted buffer came back, flushed */
		assert_int_equal(cnt.aborted, (long)cap + 1);
	}
	close(lfd);
}

/* ddp_session_config.max_tx_queued: messages queued per stream (here held
 * because the MPA start-up has not finished) stop at the cap with
 * DDP_ERR_LIMIT; default 4096 */
static void test_limits_session_max_tx_queued(void **st)
{
	static uint8_t b[100];
	int lport, lfd = net_raw_listener(&lport);
	assert_true(lfd >= 0);
	struct iovec v = {b, sizeof(b)};
	for (int round = 0; round < 2; round++) {
		uint32_t cap = round ? 4096 : 8;
		ddp_mpa_config mc;
		memset(&mc, 0, sizeof(mc));
		mc.session.max_tx_queued = round ? 0 : 8;
		struct sockaddr_in sa = net_lo(lport);
		ddp_mpa_conn *c;
		memset(&cnt, 0, sizeof(cnt));
		assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc,
		                                 &count_cbs, count_mpa_event, NULL, &c),
		                 0);
		ddp_session *s = ddp_mpa_session(c);
		for (uint32_t i = 0; i < cap; i++)
			assert_int_equal(ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL), 0);
		assert_int_equal(ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL), DDP_ERR_LIMIT);
		assert_int_equal(ddp_send_tagged(s, 0, 0x100, 0, 0, &v, 1, NULL), DDP_ERR_LIMIT);
		ddp_mpa_conn_free(c);
		assert_int_equal(cnt.aborted, (long)cap);
	}
	close(lfd);
}

/* ------------------------------------------------------ ddp_mpa_config */

static int raw_request(int fd, uint16_t pd_len)
{
	uint8_t f[20 + 600];
	memcpy(f, "MPA ID Req Frame", 16);
	f[16] = 0x40; /* C */
	f[17] = 1;    /* Rev 1: no enhanced word */
	f[18] = (uint8_t)(pd_len >> 8);
	f[19] = (uint8_t)pd_len;
	memset(f + 20, 'p', pd_len);
	return (int)send(fd, f, 20 + (size_t)pd_len, MSG_NOSIGNAL);
}

static long accepts;
static uint16_t accepted_pd_len;

static void on_accept_count(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	accepts++;
	accepted_pd_len = req->private_data_len;
	ddp_mpa_reject(c, NULL, 0);
	ddp_mpa_conn_free(c);
}

/* ddp_mpa_config.max_private_data: a Request whose PD_Length is over the
 * cap never reaches the ULP and the TCP connection is closed (RFC 5044
 * §7.1: PD_Length over 512 is an improperly formatted frame; the cap makes
 * the limit configurable below that); default and maximum 512. The local
 * side cannot send more than 512 (508 with revision 2) either. */
static void test_limits_mpa_max_private_data(void **st)
{
	for (int round = 0; round < 2; round++) {
		uint16_t cap = round ? 512 : 16;
		ddp_mpa_config mc;
		memset(&mc, 0, sizeof(mc));
		mc.max_private_data = round ? 0 : 16;
		mc.startup_timeout_ms = 5000;
		struct sockaddr_in sa = net_lo(0);
		ddp_mpa_listener *l;
		assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc,
		                                &count_cbs, on_accept_count, count_mpa_event, NULL, &l),
		                 0);
		int port = ddp_mpa_listener_port(l);
		accepts = 0;
		int over = net_raw_connect(port), at = net_raw_connect(port);
		assert_true(over >= 0 && at >= 0);
		assert_int_equal(raw_request(over, cap + 1), 21 + cap);
		assert_int_equal(raw_request(at, cap), 20 + cap);
		for (int i = 0; i < 100 && !(accepts && net_peer_closed(over)); i++)
			net_run_for(base, 0.01);
		assert_int_equal(accepts, 1);
		assert_int_equal(accepted_pd_len, cap);
		assert_true(net_peer_closed(over));
		close(over);
		close(at);
		ddp_mpa_listener_free(l);
	}
	/* our own Request: 512 octets with revision 1, 508 with 2 */
	static uint8_t pd[513];
	int lport, lfd = net_raw_listener(&lport);
	assert_true(lfd >= 0);
	struct sockaddr_in sa = net_lo(lport);
	ddp_mpa_config mc;
	ddp_mpa_conn *c;
	memset(&mc, 0, sizeof(mc));
	mc.private_data = pd;
	mc.revision = 1;
	mc.private_data_len = 513;
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &count_cbs,
	                                 count_mpa_event, NULL, &c),
	                 DDP_ERR_INVAL);
	mc.revision = 2;
	mc.private_data_len = 509;
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &count_cbs,
	                                 count_mpa_event, NULL, &c),
	                 DDP_ERR_INVAL);
	mc.private_data_len = 508;
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc, &count_cbs,
	                                 count_mpa_event, NULL, &c),
	                 0);
	ddp_mpa_conn_free(c);
	close(lfd);
}

/* ddp_mpa_config.startup_timeout_ms default: 10 s. An Initiator whose peer
 * never answers fails with DDP_ERR_TIMEOUT after 10 s, not before. */
static void test_limits_mpa_startup_timeout_default_is_10s(void **st)
{
	int lport, lfd = net_raw_listener(&lport);
	assert_true(lfd >= 0);
	struct sockaddr_in sa = net_lo(lport);
	ddp_mpa_conn *c;
	memset(&cnt, 0, sizeof(cnt));
	double t0 = net_now_s();
	assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), NULL, &count_cbs,
	                                 count_mpa_event, NULL, &c),
	                 0);
	while (!cnt.failed && net_now_s() - t0 < 9.8)
		net_run_for(base, 0.1);
	assert_int_equal(cnt.failed, 0);
	while (!cnt.failed && net_now_s() - t0 < 12)
		net_run_for(base, 0.05);
	print_message("default start-up time-out after %.2f s\n", net_now_s() - t0);
	assert_int_equal(cnt.failed, 1);
	assert_int_equal(cnt.last_err, DDP_ERR_TIMEOUT);
	ddp_mpa_conn_free(c);
	close(lfd);
}

/* ddp_mpa_config.max_startup: a listener keeps at most max_startup
 * connections in MPA start-up; TCP connections beyond it are reset at once,
 * so a half-open flood costs bounded memory. Once a connection's start-up
 * ends (here: its 2 s start-up timeout), room is made for new ones. */
static void accept_cb_reject(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	ddp_mpa_reject(c, NULL, 0);
}

static void test_limits_mpa_max_startup(void **st)
{
	enum { CAP = 5, N = 12 };
	struct sockaddr_in sa = net_lo(0);
	ddp_mpa_config cfg;
	memset(&cfg, 0, sizeof(cfg));
	cfg.max_startup = CAP;
	cfg.startup_timeout_ms = 2000;
	ddp_mpa_listener *l;
	memset(&cnt, 0, sizeof(cnt));
	assert_int_equal(ddp_mpa_listen(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg, &count_cbs,
	                                accept_cb_reject, count_mpa_event, NULL, &l),
	                 0);
	int port = ddp_mpa_listener_port(l), fds[N], reset = 0;
	for (int i = 0; i < N; i++) {
		fds[i] = net_raw_connect(port);
		assert_true(fds[i] >= 0);
		net_run_for(base, 0.01); /* the listener accepts (or resets) it */
	}
	net_run_for(base, 0.05);
	for (int i = 0; i < N; i++)
		reset += net_peer_closed(fds[i]);
	print_message("max_startup %d: %d of %d half-open connections reset at once\n", CAP, reset,
	              N);
	assert_int_equal(reset, N - CAP);
	/* the CAP half-open ones time out (2 s): then new ones are taken */
	net_run_for(base, 2.3);
	int late = net_raw_connect(port);
	assert_true(late >= 0);
	net_run_for(base, 0.05);
	assert_false(net_peer_closed(late));
	close(late);
	for (int i = 0; i < N; i++)
		close(fds[i]);
	net_run_for(base, 0.5);
	ddp_mpa_listener_free(l);
}

/* ddp_mpa_config.tx_queue_cap: against a peer that stops reading, the MPA
 * layer queues at most tx_queue_cap octets (+ the FPDU that crossed it);
 * the rest waits in the core, which stops at max_tx_queued (DDP_ERR_LIMIT).
 * Checked for 64 KiB and the default 1 MiB. */
static void test_limits_mpa_tx_queue_cap(void **st)
{
	static uint8_t payload[16384];
	struct iovec v = {payload, sizeof(payload)};
	int lport, lfd = net_raw_listener(&lport);
	assert_true(lfd >= 0);
	for (int round = 0; round < 2; round++) {
		size_t cap = round ? (1u << 20) : 65536;
		ddp_mpa_config mc;
		memset(&mc, 0, sizeof(mc));
		mc.revision = 1;
		mc.tx_queue_cap = round ? 0 : 65536;
		mc.session.max_tx_queued = 256;
		struct sockaddr_in sa = net_lo(lport);
		ddp_mpa_conn *c;
		memset(&cnt, 0, sizeof(cnt));
		assert_int_equal(ddp_mpa_connect(base, ctx, (struct sockaddr *)&sa, sizeof(sa), &mc,
		                                 &count_cbs, count_mpa_event, NULL, &c),
		                 0);
		int pfd = accept(lfd, NULL, NULL);
		assert_true(pfd >= 0);
		/* play the Responder by hand, then never read again */
		uint8_t req[20];
		size_t got = 0;
		for (int i = 0; i < 200 && got < 20; i++) {
			net_run_for(base, 0.01);
			ssize_t r = recv(pfd, req + got, 20 - got, MSG_DONTWAIT);
			if (r > 0)
				got += (size_t)r;
		}
		assert_int_equal(got, 20); /* the Request, rev 1, no PD */
		uint8_t rep[20];
		memcpy(rep, "MPA ID Rep Frame", 16);
		rep[16] = 0x40;
		rep[17] = 1;
		rep[18] = rep[19] = 0;
		assert_int_equal(send(pfd, rep, 20, 0), 20);
		for (int i = 0; i < 100 && !cnt.connected; i++)
			net_run_for(base, 0.01);
		assert_int_equal(cnt.connected, 1);
		ddp_session *s = ddp_mpa_session(c);
		mpa_proto *m = ev_mpa_core(c);
		size_t max_q = 0;
		int rc = 0;
		long sent = 0;
		double t0 = net_now_s();
		while (net_now_s() - t0 < 5) {
			rc = ddp_send_untagged(s, 0, 0, 0, &v, 1, NULL);
			if (rc == DDP_ERR_LIMIT)
				break;
			assert_int_equal(rc, 0);
			sent++;
			net_run_for(base, 0.001);
			if (mpa_proto_queued(m) > max_q)
				max_q = mpa_proto_queued(m);
		}
		/* keep going until the socket buffers are surely full */
		for (int i = 0; i < 50; i++) {
			net_run_for(base, 0.002);
			if (mpa_proto_queued(m) > max_q)
				max_q = mpa_proto_queued(m);
		}
		print_message("tx_queue_cap %zu: max queued in MPA %zu octets, "
		              "accepted sends %ld, completions %ld, then %s\n",
		              cap, max_q, sent, cnt.send_done, ddp_strerror(rc));
		assert_true(max_q <= cap + sizeof(payload) + 64);
		assert_int_equal(rc, DDP_ERR_LIMIT);
		assert_true(mpa_proto_again_count(m) > 0); /* DDP was told to wait */
		ddp_mpa_conn_free(c);
		close(pfd);
	}
	close(lfd);
}

/* ---------------------------------------------------- ddp_sctp_config */
#if HAVE_USRSCTP

struct sp {
	ddp_sctp_ep *ep;
	ddp_sctp_assoc *a;
	ddp_session *s;
	long up, initiates, rejected, accepted;
	int last_status;
};
static struct sp ssrv, scli;

static void s_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct sp *p = user;
	if (status == 0) {
		p->a = a;
		p->s = s;
		p->up = 1;
	} else {
		p->a = NULL;
		p->s = NULL;
	}
}

static void s_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                  const void *pd, size_t len, void *user)
{
	struct sp *p = user;
	if (ev == DDP_SCTP_INITIATE)
		p->initiates++; /* never answered: stays pending */
	else if (ev == DDP_SCTP_REJECTED) {
		p->rejected++;
		p->last_status = status;
	} else if (ev == DDP_SCTP_ACCEPTED)
		p->accepted++;
}

static void sctp_pair(uint32_t max_pending, uint16_t nstreams)
{
	ddp_sctp_config c;
	memset(&ssrv, 0, sizeof(ssrv));
	memset(&scli, 0, sizeof(scli));
	memset(&c, 0, sizeof(c));
	c.port = -1;
	c.ctx = ctx;
	c.ddp = count_cbs;
	c.sctp.assoc = s_assoc;
	c.sctp.session_ctl = s_ctl;
	c.max_pending_initiates = max_pending;
	c.nstreams = nstreams;
	c.user = &ssrv;
	assert_int_equal(ddp_sctp_ep_new(base, &c, &ssrv.ep), 0);
	assert_int_equal(ddp_sctp_listen(ssrv.ep), 0);
	c.user = &scli;
	assert_int_equal(ddp_sctp_ep_new(base, &c, &scli.ep), 0);
	assert_int_equal(ddp_sctp_connect(scli.ep, "127.0.0.1", ddp_sctp_ep_port(ssrv.ep), &scli.a),
	                 0);
	for (int i = 0; i < 500 && !(ssrv.up && scli.up); i++)
		net_run_for(base, 0.005);
	assert_true(ssrv.up && scli.up);
}

static void sctp_unpair(void)
{
	ddp_sctp_ep_free(scli.ep);
	ddp_sctp_ep_free(ssrv.ep);
}

/* ddp_sctp_config.max_pending_initiates (RFC 5043 §5.2.3: the number of
 * Initiates waiting for the ULP is finite; over it the stream gets a
 * Terminate, seen as REJECTED with DDP_ERR_CLOSED): cap 4 and default 64 */
static void test_limits_sctp_max_pending_initiates(void **st)
{
	for (int round = 0; round < 2; round++) {
		uint32_t cap = round ? 64 : 4;
		sctp_pair(round ? 0 : 4, 128); /* 128 streams: room over 64 */
		for (uint32_t i = 0; i <= cap; i++)
			assert_int_equal(ddp_sctp_initiate(scli.a, i, "x", 1), 0);
		for (int i = 0; i < 400 && scli.rejected < 1; i++)
			net_run_for(base, 0.005);
		net_run_for(base, 0.05);
		assert_int_equal(ssrv.initiates, cap);
		assert_int_equal(scli.rejected, 1);
		assert_int_equal(scli.last_status, DDP_ERR_CLOSED);
		assert_int_equal(scli.accepted, 0);
		sctp_unpair();
	}
}

/* ddp_sctp_config.nstreams: default 64 streams per association; a stream
 * id beyond is DDP_ERR_INVAL; private data over 512 octets
 * (DDP_SCTP_MAX_PRIV) is DDP_ERR_INVAL */
static void test_limits_sctp_nstreams_and_private_data(void **st)
{
	static uint8_t pd[DDP_SCTP_MAX_PRIV + 1];
	sctp_pair(0, 0);
	assert_int_equal(ddp_session_nstreams(scli.s), 64);
	assert_int_equal(ddp_session_nstreams(ssrv.s), 64);
	assert_int_equal(ddp_sctp_initiate(scli.a, 64, NULL, 0), DDP_ERR_INVAL);
	assert_int_equal(ddp_sctp_initiate(scli.a, 63, pd, sizeof(pd)), DDP_ERR_INVAL);
	assert_int_equal(ddp_sctp_initiate(scli.a, 63, pd, DDP_SCTP_MAX_PRIV), 0);
	uint8_t b[8];
	assert_int_equal(ddp_post_recv(scli.s, 64, 0, b, 8, NULL), DDP_ERR_INVAL);
	sctp_unpair();
}
/* ddp_sctp_config.max_assocs: a listener holds at most max_assocs
 * associations (each may hold nstreams reorder windows); at the cap the
 * oldest one without a DDP stream session is ABORTed to make room (issue
 * 15; refusal when all have one: test_sctp_idle_assocs.c), so the two
 * oldest clients see their association go down. Default 256. */
struct capc {
	ddp_sctp_ep *ep;
	ddp_sctp_assoc *a;
	int up, down;
};

static void cap_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct capc *c = user;
	if (status == 0)
		c->up++;
	else
		c->down++;
}

static void cap_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                    const void *pd, size_t len, void *user)
{
}

static void test_limits_sctp_max_assocs(void **st)
{
	enum { CAP = 3, NCLI = CAP + 2 };
	static struct capc srv, cli[NCLI];
	ddp_sctp_config c;
	memset(&c, 0, sizeof(c));
	memset(&srv, 0, sizeof(srv));
	memset(cli, 0, sizeof(cli));
	c.port = -1;
	c.ctx = ctx;
	c.ddp = count_cbs;
	c.sctp.assoc = cap_assoc;
	c.sctp.session_ctl = cap_ctl;
	c.nstreams = 4;
	c.max_assocs = CAP;
	c.user = &srv;
	assert_int_equal(ddp_sctp_ep_new(base, &c, &srv.ep), 0);
	assert_int_equal(ddp_sctp_listen(srv.ep), 0);
	c.max_assocs = 0; /* the clients: default */
	for (int i = 0; i < NCLI; i++) {
		c.user = &cli[i];
		assert_int_equal(ddp_sctp_ep_new(base, &c, &cli[i].ep), 0);
		assert_int_equal(ddp_sctp_connect(cli[i].ep, "127.0.0.1", ddp_sctp_ep_port(srv.ep),
		                                  &cli[i].a), 0);
		for (int k = 0; k < 200 && !cli[i].up && !cli[i].down; k++)
			net_run_for(base, 0.005);
	}
	int up = 0, refused = 0;
	for (int k = 0; k < 400; k++) {
		up = refused = 0;
		for (int i = 0; i < NCLI; i++) {
			up += cli[i].up && !cli[i].down;
			refused += cli[i].down;
		}
		if (up + refused == NCLI)
			break;
		net_run_for(base, 0.01);
	}
	print_message("max_assocs %d: %d up, %d refused, server up %d\n", CAP, up, refused, srv.up);
	assert_int_equal(srv.up, NCLI); /* each came up; the oldest made room */
	assert_int_equal(up, CAP);
	assert_int_equal(refused, NCLI - CAP);
	for (int i = 0; i < NCLI; i++)
		ddp_sctp_ep_free(cli[i].ep);
	ddp_sctp_ep_free(srv.ep);
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
		T(test_limits_ctx_max_stags),
		T(test_limits_ctx_max_pds),
		T(test_limits_session_nstreams_and_window_ceilings),
		T(test_limits_reorder_window_bounds_held_segments),
		T(test_limits_session_max_posted),
		T(test_limits_session_max_tx_queued),
		T(test_limits_mpa_max_private_data),
		T(test_limits_mpa_startup_timeout_default_is_10s),
		T(test_limits_mpa_max_startup),
		T(test_limits_mpa_tx_queue_cap),
#if HAVE_USRSCTP
		T(test_limits_sctp_max_pending_initiates),
		T(test_limits_sctp_nstreams_and_private_data),
		T(test_limits_sctp_max_assocs),
#endif
	};
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
