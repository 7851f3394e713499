/* Integration: DDP over SCTP (RFC 5043) with real usrsctp over UDP on
 * 127.0.0.1, libevent, and the DDP core: stream sessions, tagged and
 * untagged traffic on many streams, control-message rules, faults. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>
#include "ddp_test.h"
#include "net_udpfault.h"
#include "sctp_end.h"
#include "sctp/sctp_ctl.h"
#include "sctp/sctp_ssn.h"

#define NSTREAMS 64
#define NMSG 6		/* untagged and tagged messages per stream */
#define MAXLEN 150000	/* largest message: several 64 KiB segments */
#define TAG_REGION (NMSG * MAXLEN)

struct peer {
	const char *name;
	ddp_ctx *ctx;
	ddp_pd *pd;
	ddp_sctp_ep *ep;
	struct sctp_assoc_seen as;
	/* session control seen */
	int ev_count[5];
	int last_status[NSTREAMS];
	char last_pd[NSTREAMS][64];
	int accept_all, reject_stream;
	/* data */
	unsigned long delivered, bad, errors, sends_done, send_err;
	unsigned long untagged_got[NSTREAMS], tagged_got[NSTREAMS];
	uint32_t expect_msn[NSTREAMS];
	int half_closed[NSTREAMS], closed[NSTREAMS];
	ddp_error_info last_err[NSTREAMS];
	int err_seen[NSTREAMS];
	uint8_t *rbuf[NSTREAMS];   /* posted receive buffers, NMSG each */
	uint8_t *tbuf[NSTREAMS];   /* tagged region */
	uint32_t stag[NSTREAMS];
};

static struct peer srv, cli;
static struct event_base *base;

static uint8_t pat(unsigned s, unsigned k, size_t j)
{
	return (uint8_t)(s * 31u + k * 7u + (unsigned)j * 13u + (unsigned)(j >> 8));
}

static size_t msg_len(unsigned s, unsigned k)
{
	return (size_t)((s * 7919u + k * 104729u) % MAXLEN);
}

/* ------------------------------------------------------------ callbacks */

#define NSMALL 3000
static int small_mode;
static unsigned small_nbuf = 1000; /* buffers the receiver posts first */

static size_t small_len(unsigned k)
{
	return 1 + k % 48;
}

static void deliver_small(ddp_session *s, const ddp_delivery *d,
			  struct peer *p)
{
	unsigned k = (unsigned)d->rsvdulp;
	const uint8_t *b = d->buf;
	if (d->len != small_len(k) || d->msn != k + 1 || k != p->delivered)
		p->bad++;
	for (size_t j = 0; j < d->len; j++)
		if (b[j] != pat(0, k, j))
			p->bad++;
	p->delivered++;
	/* keep the queue full (max_posted is 1024) */
	if (ddp_post_recv(s, d->stream, 0, d->buf, d->buf_len, NULL) != 0)
		p->bad++;
}

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct peer *p = user;
	if (d->status != 0)
		return;
	if (small_mode) {
		deliver_small(s, d, p);
		return;
	}
	p->delivered++;
	if (d->stream >= NSTREAMS) {
		p->bad++;
		return;
	}
	if (!d->tagged) {
		unsigned k = (unsigned)(d->rsvdulp & 0xffff);
		size_t n = msg_len(d->stream, k);
		const uint8_t *b = d->buf;
		if (d->len != n || d->msn != p->expect_msn[d->stream]++)
			p->bad++;
		for (size_t j = 0; j < n && j < d->buf_len; j++)
			if (b[j] != pat(d->stream, k, j)) {
				p->bad++;
				break;
			}
		p->untagged_got[d->stream]++;
	} else {
		p->tagged_got[d->stream]++;
	}
}

static void send_done(ddp_session *s, uint32_t stream, void *ctx, int status,
		      void *user)
{
	struct peer *p = user;
	(void)s;
	(void)stream;
	(void)ctx;
	if (status == 0)
		p->sends_done++;
	else
		p->send_err++;
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct peer *p = user;
	(void)s;
	p->errors++;
	if (getenv("DDP_TEST_VERBOSE"))
		fprintf(stderr, "%s: error stream %u layer %u type %u code %u\n", p->name,
			e->stream, e->layer, e->etype, e->code);
	if (e->stream < NSTREAMS) {
		p->last_err[e->stream] = *e;
		p->err_seen[e->stream] = 1;
	}
}

static void stream_event(ddp_session *s, uint32_t stream,
			 enum ddp_stream_event ev, int status, void *user)
{
	struct peer *p = user;
	(void)s;
	(void)status;
	if (stream >= NSTREAMS)
		return;
	if (ev == DDP_EV_HALF_CLOSED)
		p->half_closed[stream]++;
	else
		p->closed[stream]++;
}

static void post_all(struct peer *p, uint32_t st)
{
	if (!p->rbuf[st])
		p->rbuf[st] = malloc((size_t)NMSG * MAXLEN);
	p->expect_msn[st] = 1;
	for (unsigned k = 0; k < NMSG; k++)
		assert_int_equal(ddp_post_recv(p->as.s, st, 0,
					       p->rbuf[st] + (size_t)k * MAXLEN,
					       MAXLEN, NULL), 0);
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status,
		     void *user)
{
	sctp_assoc_seen_note(&((struct peer *)user)->as, a, s, status);
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev,
		   int status, const void *pd, size_t len, void *user)
{
	struct peer *p = user;
	if (ev < 5)
		p->ev_count[ev]++;
	if (stream >= NSTREAMS)
		return;
	p->last_status[stream] = status;
	memset(p->last_pd[stream], 0, sizeof(p->last_pd[stream]));
	if (len)
		memcpy(p->last_pd[stream], pd, len < 63 ? len : 63);
	if (ev == DDP_SCTP_INITIATE) {
		if ((int)stream == p->reject_stream) {
			assert_int_equal(ddp_sctp_reject(a, stream, "no", 2), 0);
			return;
		}
		if (!p->accept_all)
			return;
		if (small_mode) {
			p->rbuf[stream] = malloc(1000 * 64);
			for (unsigned k = 0; k < small_nbuf; k++)
				ddp_post_recv(p->as.s, stream, 0,
					      p->rbuf[stream] + k * 64, 64, NULL);
		} else {
			post_all(p, stream);
		}
		assert_int_equal(ddp_sctp_accept(a, stream, "yes", 3), 0);
	}
}

/* ------------------------------------------------------------ harness */

static const ddp_callbacks peer_ddp = {
	.deliver = deliver, .send_done = send_done, .error = on_error, .stream_event = stream_event
};
static const ddp_sctp_callbacks peer_sctp = { .assoc = on_assoc, .session_ctl = on_ctl };

static void peer_init(struct peer *p, const char *name, int listen_, int noad)
{
	ddp_sctp_config c;
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->reject_stream = -1;
	assert_int_equal(ddp_ctx_new(NULL, &p->ctx), 0);
	assert_int_equal(ddp_pd_new(p->ctx, &p->pd), 0);
	/* fast failure detection for the dead-peer cases */
	sctp_end_config(&c, p->ctx, p->pd, NSTREAMS, &peer_ddp, &peer_sctp, p);
	c.max_pending_initiates = 2;
	if (noad) { /* a plain SCTP endpoint (ddp_test.h) */
		assert_int_equal(sctp_ddp_ep_new_no_adaptation(base, &c, &p->ep), 0);
		if (listen_)
			assert_int_equal(ddp_sctp_listen(p->ep), 0);
	} else {
		assert_int_equal(sctp_end_open(base, &c, listen_, &p->ep), 0);
	}
}

static void peer_fini(struct peer *p)
{
	ddp_sctp_ep_free(p->ep);
	for (int i = 0; i < NSTREAMS; i++) {
		if (p->stag[i])
			ddp_stag_invalidate(p->ctx, p->stag[i]);
		free(p->rbuf[i]);
		free(p->tbuf[i]);
	}
	ddp_pd_free(p->pd);
	assert_int_equal(ddp_ctx_free(p->ctx), 0);
}

static int run_until(int *flag, int ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!*flag) {
		struct timeval tv = { 0, 5000 };
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 +
			    (t.tv_nsec - t0.tv_nsec) / 1000000 > ms)
			break;
	}
	return *flag;
}

static int setup(void **st)
{
	(void)st;
	alarm(20); /* no test can hang */
	base = event_base_new();
	return base ? 0 : -1;
}

static int teardown(void **st)
{
	(void)st;
	event_base_free(base);
	alarm(0);
	return 0;
}

static void connect_pair(int cli_noad)
{
	peer_init(&srv, "srv", 1, 0);
	peer_init(&cli, "cli", 0, cli_noad);
	assert_int_equal(ddp_sctp_connect(cli.ep, "127.0.0.1",
					  ddp_sctp_ep_port(srv.ep), &cli.as.a), 0);
}

/* ------------------------------------------------------------ tests */

static int all_done;
static int never; /* a flag that stays 0: run_until as a sleep */

static void check_done(void)
{
	unsigned long want = (unsigned long)NSTREAMS * NMSG;
	unsigned long u = 0, t = 0;
	for (int i = 0; i < NSTREAMS; i++) {
		u += srv.untagged_got[i];
		t += srv.tagged_got[i];
	}
	all_done = u == want && t == want;
}

static uint8_t *src_buf(unsigned s, unsigned k)
{
	static uint8_t *bufs[NSTREAMS][NMSG];
	if (!bufs[s][k]) {
		size_t n = msg_len(s, k);
		bufs[s][k] = malloc(n ? n : 1);
		for (size_t j = 0; j < n; j++)
			bufs[s][k][j] = pat(s, k, j);
	}
	return bufs[s][k];
}

/* Traffic on every stream once the sessions are up. RFC 5043 §5.1
 * unordered chunks + DDP-SSN: every message arrives whole and in order
 * (DDP-ORD-5, DDP-LLP-4). */
static void send_traffic(void)
{
	for (unsigned s = 0; s < NSTREAMS; s++)
		for (unsigned k = 0; k < NMSG; k++) {
			struct iovec iov = { src_buf(s, k), msg_len(s, k) };
			assert_int_equal(ddp_send_untagged(cli.as.s, s, 0, k, &iov,
							   1, NULL), 0);
			assert_int_equal(ddp_send_tagged(cli.as.s, s, srv.stag[s],
							 (uint64_t)k * MAXLEN,
							 (uint8_t)k, &iov, 1,
							 NULL), 0);
		}
}

static void register_tagged(struct peer *p)
{
	for (unsigned s = 0; s < NSTREAMS; s++) {
		ddp_mr_attr at;
		p->tbuf[s] = calloc(1, TAG_REGION);
		memset(&at, 0, sizeof(at));
		at.addr = p->tbuf[s];
		at.len = TAG_REGION;
		at.access = DDP_ACCESS_REMOTE_WRITE;
		at.pd = p->pd;
		assert_int_equal(ddp_stag_register(p->ctx, &at, &p->stag[s]), 0);
	}
}

static void verify_tagged(struct peer *p)
{
	for (unsigned s = 0; s < NSTREAMS; s++)
		for (unsigned k = 0; k < NMSG; k++) {
			size_t n = msg_len(s, k);
			assert_memory_equal(p->tbuf[s] + (size_t)k * MAXLEN,
					    src_buf(s, k), n);
		}
}

static void run_traffic(void)
{
	int ok;
	all_done = 0;
	send_traffic();
	for (int i = 0; i < 3000 && !all_done; i++) {
		struct timeval tv = { 0, 5000 };
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
		check_done();
	}
	ok = all_done;
	print_message("delivered %lu, bad %lu, errors srv %lu cli %lu\n",
		      srv.delivered, srv.bad, srv.errors, cli.errors);
	assert_true(ok);
	assert_int_equal(srv.bad, 0);
	assert_int_equal(srv.errors, 0);
	assert_int_equal(cli.errors, 0);
	verify_tagged(&srv);
}

static void open_all_streams(void)
{
	srv.accept_all = 1;
	assert_true(run_until(&cli.as.up, 5000));
	assert_true(run_until(&srv.as.up, 5000));
	assert_int_equal(ddp_session_nstreams(cli.as.s), NSTREAMS);
	for (unsigned s = 0; s < NSTREAMS; s++) {
		char pd[16];
		int n = snprintf(pd, sizeof(pd), "hello %u", s);
		assert_int_equal(ddp_sctp_initiate(cli.as.a, s, pd, (size_t)n), 0);
	}
	for (int i = 0; i < 400 && cli.ev_count[DDP_SCTP_ACCEPTED] < NSTREAMS; i++) {
		struct timeval tv = { 0, 5000 };
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	assert_int_equal(cli.ev_count[DDP_SCTP_ACCEPTED], NSTREAMS);
	assert_int_equal(srv.ev_count[DDP_SCTP_INITIATE], NSTREAMS);
	assert_string_equal(srv.last_pd[17], "hello 17");
	assert_string_equal(cli.last_pd[17], "yes");
}

/* Wire check on every datagram: RFC 5043 §5.1 U=1 on every DATA chunk,
 * §9 no SCTP fragmentation (B and E set), PPID 16 or 17 only. */
struct wire {
	unsigned long data_chunks, bad_u, fragmented, bad_ppid;
};
static struct wire ws;

static unsigned wire_check(void *user, uint8_t *pkt, size_t len)
{
	struct wire *w = user;
	size_t off = 12; /* RFC 4960 §3.1 common header */
	while (off + 4 <= len) {
		uint8_t type = pkt[off], flags = pkt[off + 1];
		size_t clen = (size_t)pkt[off + 2] << 8 | pkt[off + 3];
		if (clen < 4 || clen > len - off)
			break;
		if (type == 0 && clen >= 16) { /* DATA */
			uint32_t ppid = (uint32_t)pkt[off + 12] << 24 |
					(uint32_t)pkt[off + 13] << 16 |
					(uint32_t)pkt[off + 14] << 8 | pkt[off + 15];
			w->data_chunks++;
			if (!(flags & 0x04))
				w->bad_u++;
			if ((flags & 0x03) != 0x03)
				w->fragmented++;
			if (ppid != SCTP_PPID_DDP && ppid != SCTP_PPID_CTL)
				w->bad_ppid++;
		}
		off += (clen + 3) & ~(size_t)3;
	}
	return SCTP_LL_PASS;
}

static void test_sctp_64_streams_tagged_and_untagged_intact(void **st)
{
	ddp_sctp_stats ss;
	(void)st;
	connect_pair(0);
	memset(&ws, 0, sizeof(ws));
	sctp_ll_set_filter(sctp_ddp_ep_ll(srv.ep), wire_check, &ws);
	sctp_ll_set_filter(sctp_ddp_ep_ll(cli.ep), wire_check, &ws);
	open_all_streams();
	register_tagged(&srv);
	run_traffic();
	ddp_sctp_get_stats(srv.as.a, &ss);
	print_message("header-first %llu, staged %llu, copied %llu\n",
		      (unsigned long long)ss.rx_hdr_first,
		      (unsigned long long)ss.rx_staged,
		      (unsigned long long)ddp_session_copied_bytes(srv.as.s));
	assert_true(ss.rx_hdr_first > 0);
	print_message("DATA chunks %lu: U=0 %lu, fragmented %lu, bad PPID %lu\n",
		      ws.data_chunks, ws.bad_u, ws.fragmented, ws.bad_ppid);
	assert_true(ws.data_chunks >= 2 * NSTREAMS * NMSG);
	assert_int_equal(ws.bad_u, 0);
	assert_int_equal(ws.fragmented, 0);
	assert_int_equal(ws.bad_ppid, 0);
	ddp_sctp_close(cli.as.a, 0);
	assert_true(run_until(&srv.as.down, 5000));
	assert_int_equal(srv.as.down_status, DDP_ERR_CLOSED);
	peer_fini(&cli);
	peer_fini(&srv);
}

/* RFC 5043 §6.2-§6.4, §5.2.3, §6.1: Reject by the ULP, Terminate for the
 * Initiate cap, graceful Terminate both ways, re-initiate on the same
 * stream with MSNs from 1 again. */
static void test_sctp_session_reject_cap_terminate_reinitiate(void **st)
{
	(void)st;
	connect_pair(0);
	srv.accept_all = 0;
	srv.reject_stream = 1;
	assert_true(run_until(&cli.as.up, 5000));
	assert_true(run_until(&srv.as.up, 5000));
	/* Reject (ULP) */
	assert_int_equal(ddp_sctp_initiate(cli.as.a, 1, "a", 1), 0);
	assert_int_equal(ddp_sctp_initiate(cli.as.a, 1, "a", 1), DDP_ERR_STATE);
	assert_true(run_until(&cli.ev_count[DDP_SCTP_REJECTED], 3000));
	assert_int_equal(cli.last_status[1], DDP_ERR_REJECTED);
	assert_string_equal(cli.last_pd[1], "no");
	/* cap of 2 Initiates waiting for the ULP: the third gets Terminate */
	assert_int_equal(ddp_sctp_initiate(cli.as.a, 10, NULL, 0), 0);
	assert_int_equal(ddp_sctp_initiate(cli.as.a, 11, NULL, 0), 0);
	assert_int_equal(ddp_sctp_initiate(cli.as.a, 12, NULL, 0), 0);
	for (int i = 0; i < 200 && cli.ev_count[DDP_SCTP_REJECTED] < 2; i++)
		run_until(&never, 5);
	assert_int_equal(cli.ev_count[DDP_SCTP_REJECTED], 2);
	assert_int_equal(cli.last_status[12], DDP_ERR_CLOSED);
	assert_int_equal(srv.ev_count[DDP_SCTP_INITIATE], 3); /* 1, 10, 11 */
	/* answering frees the cap */
	assert_int_equal(ddp_sctp_reject(srv.as.a, 10, NULL, 0), 0);
	assert_int_equal(ddp_sctp_reject(srv.as.a, 11, NULL, 0), 0);
	assert_int_equal(ddp_sctp_reject(srv.as.a, 11, NULL, 0), DDP_ERR_STATE);
	/* accept a session on stream 2, one message, close both ways */
	srv.accept_all = 1;
	for (int round = 0; round < 2; round++) {
		int acc = cli.ev_count[DDP_SCTP_ACCEPTED];
		int rc;
		for (int i = 0; i < 400; i++) {
			rc = ddp_sctp_initiate(cli.as.a, 2, "again", 5);
			if (rc != DDP_ERR_BUSY)
				break;
			run_until(&never, 10); /* old chunks in flight */
		}
		assert_int_equal(rc, 0);
		for (int i = 0; i < 400 && cli.ev_count[DDP_SCTP_ACCEPTED] == acc; i++)
			run_until(&never, 5);
		assert_int_equal(cli.ev_count[DDP_SCTP_ACCEPTED], acc + 1);
		struct iovec iov = { src_buf(2, 0), msg_len(2, 0) };
		unsigned long got = srv.untagged_got[2];
		assert_int_equal(ddp_send_untagged(cli.as.s, 2, 0, 0, &iov, 1, NULL), 0);
		for (int i = 0; i < 400 && srv.untagged_got[2] == got; i++)
			run_until(&never, 5);
		assert_int_equal(srv.untagged_got[2], got + 1);
		assert_int_equal(srv.bad, 0); /* MSN 1 again: expect_msn reset */
		int hc = srv.half_closed[2], cc = cli.closed[2];
		assert_int_equal(ddp_stream_close(cli.as.s, 2), 0);
		for (int i = 0; i < 400 && srv.half_closed[2] == hc; i++)
			run_until(&never, 5);
		assert_int_equal(srv.half_closed[2], hc + 1);
		assert_int_equal(ddp_stream_close(srv.as.s, 2), 0);
		for (int i = 0; i < 400 && cli.closed[2] == cc; i++)
			run_until(&never, 5);
		assert_int_equal(cli.closed[2], cc + 1);
		assert_string_equal(sctp_ddp_stream_state(cli.as.a, 2), "closed");
	}
	/* RFC 6581 §7: Enhanced Initiate / Accept carry the IRD/ORD word */
	ddp_sctp_ird_ord io = { .p2p = 1, .read0_rtr = 1, .ird = 5, .ord = 7 };
	ddp_sctp_ird_ord got;
	int acc0 = cli.ev_count[DDP_SCTP_ACCEPTED];
	assert_int_equal(ddp_sctp_peer_ird_ord(srv.as.a, 30, &got), DDP_ERR_NOENT);
	io.ird = 0x4000;
	assert_int_equal(ddp_sctp_initiate_enhanced(cli.as.a, 30, &io, "x", 1),
			 DDP_ERR_INVAL);
	io.ird = 5;
	assert_int_equal(ddp_sctp_initiate_enhanced(cli.as.a, 30, &io, "x", 1), 0);
	for (int i = 0; i < 400 && cli.ev_count[DDP_SCTP_ACCEPTED] == acc0; i++)
		run_until(&never, 5);
	assert_int_equal(cli.ev_count[DDP_SCTP_ACCEPTED], acc0 + 1);
	assert_int_equal(ddp_sctp_peer_ird_ord(srv.as.a, 30, &got), 0);
	assert_int_equal(got.ird, 5);
	assert_int_equal(got.ord, 7);
	assert_int_equal(got.p2p, 1);
	assert_int_equal(got.read0_rtr, 1);
	assert_int_equal(got.send0_rtr, 0);
	assert_int_equal(ddp_sctp_peer_ird_ord(cli.as.a, 30, &got), 0);
	assert_int_equal(got.ird, 0x3fff); /* our default answer */
	assert_int_equal(got.ord, 0x3fff);
	assert_string_equal(cli.last_pd[30], "yes");

	/* RFC 6581 §7: an Enhanced Initiate reaches the ULP and gets an
	 * Enhanced Accept (sent raw: the client's machine does not know it
	 * and drops the answer, which the stats show) */
	static const uint8_t enh[] = { 0, 0, 0, 5, 0x3f, 0xff, 0x3f, 0xff, 'e' };
	ddp_sctp_stats cs;
	assert_int_equal(sctp_ll_send(sctp_ddp_assoc_ll(cli.as.a), 20,
				      SCTP_PPID_CTL, enh, sizeof(enh)), 0);
	for (int i = 0; i < 400; i++) {
		ddp_sctp_get_stats(cli.as.a, &cs);
		if (cs.rx_dropped)
			break;
		run_until(&never, 5);
	}
	assert_string_equal(srv.last_pd[20], "e");
	assert_string_equal(sctp_ddp_stream_state(srv.as.a, 20), "open");
	assert_int_equal(cs.rx_dropped, 1);
	assert_int_equal(srv.errors, 0);
	assert_int_equal(cli.errors, 0);
	peer_fini(&cli);
	peer_fini(&srv);
}

/* RFC 5043 §11.1: a peer without the DDP Adaptation Layer Indication gets
 * no DDP association. */
static void test_sctp_adaptation_mismatch_refused(void **st)
{
	(void)st;
	connect_pair(1);
	assert_true(run_until(&srv.as.down, 5000));
	assert_false(srv.as.up);
	assert_int_equal(srv.as.down_status, DDP_ERR_PROTO);
	assert_true(run_until(&cli.as.down, 5000));
	assert_true(cli.as.down_status < 0);
	peer_fini(&cli);
	peer_fini(&srv);
}

/* RFC 5043 §5.2.3 (bad control messages), §9 (oversize), §5.1 (PPID). */
static void test_sctp_bad_control_oversize_and_wrong_ppid(void **st)
{
	static uint8_t big[70000];
	sctp_ll_assoc *ll;
	(void)st;
	connect_pair(0);
	open_all_streams();
	ll = sctp_ddp_assoc_ll(cli.as.a);
	/* unknown function code on stream 3 */
	uint8_t bad[4] = { 0, 1, 0, 9 };
	assert_int_equal(sctp_ll_send(ll, 3, SCTP_PPID_CTL, bad, 4), 0);
	/* 513 octets of private data on stream 4 */
	uint8_t over[4 + 513] = { 0, 1, 0, 2 };
	assert_int_equal(sctp_ll_send(ll, 4, SCTP_PPID_CTL, over, sizeof(over)), 0);
	/* a DDP segment one octet over MULPDU on stream 5 */
	uint32_t mulpdu = ddp_session_mulpdu(cli.as.s);
	big[0] = 0;
	big[1] = 1;
	big[2] = 0x41; /* untagged, L=0, DV=1 */
	assert_int_equal(sctp_ll_send(ll, 5, SCTP_PPID_DDP, big, mulpdu + 3), 0);
	for (int i = 0; i < 400 && !(srv.err_seen[3] && srv.err_seen[4] &&
				     srv.err_seen[5]); i++)
		run_until(&never, 5);
	assert_true(srv.err_seen[3]);
	assert_int_equal(srv.last_err[3].etype, DDP_ETYPE_LLP);
	assert_true(srv.err_seen[4]);
	assert_true(srv.err_seen[5]);
	assert_int_equal(srv.last_err[5].code, DDP_ECODE_LLP_OVERSIZE);
	/* other streams still work */
	assert_false(srv.err_seen[6]);
	/* a PPID that is not DDP's: the association is aborted */
	assert_int_equal(sctp_ll_send(ll, 6, 51, bad, 4), 0);
	assert_true(run_until(&srv.as.down, 5000));
	assert_int_equal(srv.as.down_status, DDP_ERR_PROTO);
	assert_true(run_until(&cli.as.down, 5000));
	peer_fini(&cli);
	peer_fini(&srv);
}

/* Fault shim in the UDP path: >= 5% each of drops, duplicates, reorders
 * and corruptions; SCTP + CRC32c + DDP-SSN deliver everything intact. */
static struct udp_faults fs, fc;

static void test_sctp_faulty_udp_path_loses_nothing(void **st)
{
	ddp_sctp_stats ss;
	(void)st;
	alarm(60);
	connect_pair(0);
	udp_faults_init(&fs, 1, 7, 12);
	udp_faults_init(&fc, 2, 7, 12);
	sctp_ll_set_filter(sctp_ddp_ep_ll(srv.ep), udp_faults_filter, &fs);
	sctp_ll_set_filter(sctp_ddp_ep_ll(cli.ep), udp_faults_filter, &fc);
	open_all_streams();
	register_tagged(&srv);
	run_traffic();
	ddp_sctp_get_stats(srv.as.a, &ss);
	print_message("srv in: %lu pkts, drop %lu dup %lu reorder %lu corrupt "
		      "%lu, bad crc %llu\n", fs.n, fs.drop, fs.dup, fs.hold,
		      fs.corrupt, (unsigned long long)ss.udp_bad_crc);
	assert_true(fs.drop * 20 >= fs.n);
	assert_true(fs.dup * 20 >= fs.n);
	assert_true(fs.hold * 20 >= fs.n);
	assert_true(fs.corrupt * 20 >= fs.n);
	assert_true(ss.udp_bad_crc > 0);
	peer_fini(&cli);
	peer_fini(&srv);
}

/* Thousands of tiny messages on one stream through the faulty path: the
 * sender keeps the chunks in flight inside the receiver's DDP-SSN window
 * (RFC 5043 §10), so loss and reordering never push a DDP-SSN out of it. */
static void small_messages(unsigned nbuf)
{
	static uint8_t src[NSMALL][48];
	struct iovec iov;
	alarm(60);
	small_nbuf = nbuf;
	small_mode = 1;
	connect_pair(0);
	udp_faults_init(&fs, 7, 7, 12);
	udp_faults_init(&fc, 8, 7, 12);
	sctp_ll_set_filter(sctp_ddp_ep_ll(srv.ep), udp_faults_filter, &fs);
	sctp_ll_set_filter(sctp_ddp_ep_ll(cli.ep), udp_faults_filter, &fc);
	srv.accept_all = 1;
	assert_true(run_until(&cli.as.up, 5000));
	assert_true(run_until(&srv.as.up, 5000));
	assert_int_equal(ddp_sctp_initiate(cli.as.a, 0, NULL, 0), 0);
	assert_true(run_until(&cli.ev_count[DDP_SCTP_ACCEPTED], 5000));
	/* the ULP's flow control: never more messages outstanding than the
	 * receiver has buffers posted (1000); the adapter alone keeps the
	 * DDP-SSNs inside the window (up to 2048 chunks in flight) */
	unsigned k = 0;
	for (int i = 0; i < 6000 && srv.delivered < NSMALL; i++) {
		for (; k < NSMALL && k - srv.delivered < 900; k++) {
			for (size_t j = 0; j < small_len(k); j++)
				src[k][j] = pat(0, k, j);
			iov.iov_base = src[k];
			iov.iov_len = small_len(k);
			assert_int_equal(ddp_send_untagged(cli.as.s, 0, 0, k, &iov, 1,
							   NULL), 0);
		}
		run_until(&never, 5);
	}
	print_message("small: delivered %lu, bad %lu, errors %lu, drops %lu\n",
		      srv.delivered, srv.bad, srv.errors, fs.drop + fc.drop);
	small_mode = 0;
	small_nbuf = 1000;
	assert_int_equal(srv.delivered, NSMALL);
	assert_int_equal(srv.bad, 0);
	assert_int_equal(srv.errors, 0);
	assert_int_equal(cli.errors, 0);
	peer_fini(&cli);
	peer_fini(&srv);
}

static void test_sctp_small_messages_stay_inside_ssn_window(void **st)
{
	(void)st;
	small_messages(1000);
}

/* The same with 16 buffers posted and each reposted in deliver, up to 900
 * messages ahead: enough over MPA (in order), and now over SCTP too, where
 * a message that overtakes lost ones before its buffer is posted waits for
 * its turn (src/rx.c, hold_untagged). Before: (2, 0x03) MSN range. */
static void test_sctp_repost_in_deliver_is_enough(void **st)
{
	(void)st;
	small_messages(16);
}

/* Dead peer: its UDP socket is gone (ICMP port unreachable) or silent
 * (heartbeats unanswered): detected within 10 s. */
static void test_sctp_dead_peer_detected(void **st)
{
	struct timespec t0, t1;
	(void)st;
	for (int mode = 0; mode < 2; mode++) {
		connect_pair(0);
		assert_true(run_until(&cli.as.up, 5000));
		assert_true(run_until(&srv.as.up, 5000));
		assert_int_equal(ddp_sctp_initiate(cli.as.a, 0, NULL, 0), 0);
		srv.accept_all = 1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		if (mode == 0) {
			/* socket closed: nothing sent (the ABORT is dropped
			 * with the queue), ICMP answers the next packet */
			ddp_sctp_ep_free(srv.ep);
			srv.ep = NULL;
		} else {
			/* black hole: every datagram to the server vanishes,
			 * heartbeats go unanswered */
			sctp_ll_set_filter(sctp_ddp_ep_ll(srv.ep), udp_drop_all, NULL);
		}
		assert_true(run_until(&cli.as.down, 10000));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		print_message("mode %d: dead peer seen after %ld ms, status %d\n",
			      mode, (long)((t1.tv_sec - t0.tv_sec) * 1000 +
					   (t1.tv_nsec - t0.tv_nsec) / 1000000),
			      cli.as.down_status);
		/* ICMP: the peer is gone; silence: it timed out (as MPA) */
		assert_int_equal(cli.as.down_status, mode == 0 ? DDP_ERR_LLP : DDP_ERR_TIMEOUT);
		peer_fini(&cli);
		peer_fini(&srv);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sctp_64_streams_tagged_and_untagged_intact, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sctp_session_reject_cap_terminate_reinitiate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sctp_adaptation_mismatch_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sctp_bad_control_oversize_and_wrong_ppid, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sctp_faulty_udp_path_loses_nothing, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sctp_small_messages_stay_inside_ssn_window, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sctp_repost_in_deliver_is_enough, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sctp_dead_peer_detected, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
