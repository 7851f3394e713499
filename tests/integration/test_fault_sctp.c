/* Fault tests for DDP over SCTP (RFC 5043, usrsctp over UDP on 127.0.0.1):
 * a peer endpoint that vanishes (its UDP port is gone:
 * ICMP port unreachable) or goes silent (every datagram dropped), graceful
 * vs abortive teardown and half-close (RFC 5041 §6, DDP-TRD-*), and
 * 100,000 small tagged + untagged messages over several streams through a
 * UDP path that drops, reorders, duplicates and corrupts 5% of the
 * datagrams each way. Both endpoints live in this process; faults come from
 * the sctp_ll datagram filter. Every test is bounded by alarm() and loop
 * deadlines. */
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
#include "msgcheck.h"
#include "net_udpfault.h"
#include "sctp_end.h"
#include "sctp/sctp_ctl.h"
#include "ddp_test.h"
#include "sctp/sctp_ddp_int.h"

#define NST 8		/* DDP streams used (SCTP streams: 16) */
#define MAXMSG 512	/* bulk message size 64..512 */
#define NPOST 256	/* posted buffers per stream */
#define NSLOT 256	/* tagged slots per stream */
#define BIGMSG 65536	/* messages that fill the pipe in the death tests */

struct peer {
	const char *name;
	ddp_ctx *ctx;
	ddp_pd *pd;
	ddp_sctp_ep *ep;
	struct sctp_assoc_seen as;
	int accepted;
	/* receive side */
	uint8_t *rx[NST];	/* npost buffers of rx_len */
	size_t rx_len;
	unsigned npost;
	uint8_t *tag[NST];	/* NSLOT slots of MAXMSG */
	uint32_t stag[NST];
	int repost, raw;
	unsigned long got_u, got_t, bad, flushed, outstanding, nerr;
	unsigned long got_u_st[NST];
	uint32_t expect_seq[NST];
	int flush_status_bad, flush_status;
	ddp_error_info last_err;
	/* send side */
	unsigned long submitted, done_ok, done_err, done_other;
	unsigned long sub_st[NST], ok_st[NST], unt_st[NST];
	int last_send_err;
	/* stream events */
	int half[NST], closed[NST], aborted[NST], abort_status;
	struct timespec t_report;
};

static struct peer srv, cli;
static struct event_base *base;
static uint8_t big_payload[BIGMSG];

/* ------------------------------------------------------------ content */

static size_t seq_len(uint32_t st, uint32_t seq)
{
	return 64 + msgcheck_mix(seq * 3u + st * 7919u + 1u) % (MAXMSG - 64 + 1);
}

/* message seq of stream st of the expected length, intact */
static int check_msg(const uint8_t *b, size_t n, uint32_t st, uint32_t seq)
{
	return n == seq_len(st, seq) && msgcheck_ok(b, n, st, seq);
}

static void note_report(struct peer *p)
{
	if (!p->t_report.tv_sec)
		clock_gettime(CLOCK_MONOTONIC, &p->t_report);
}

/* ------------------------------------------------------------ callbacks */

static void bulk_pump(struct peer *p, uint32_t st);

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct peer *p = user;
	uint32_t st = d->stream;
	if (d->status != 0) {
		/* RFC 5041 §6 (DDP-TRD-7): a posted buffer given back */
		p->flushed++;
		p->outstanding--;
		p->flush_status = d->status;
		if (d->status >= 0)
			p->flush_status_bad = 1;
		return;
	}
	if (st >= NST) {
		p->bad++;
		return;
	}
	if (d->tagged) {
		uint64_t slot = d->to / MAXMSG;
		uint32_t sq = 0;
		if (d->stag != p->stag[st] || slot >= NSLOT ||
		    d->to != slot * MAXMSG) {
			p->bad++;
		} else {
			const uint8_t *b = p->tag[st] + slot * MAXMSG;
			memcpy(&sq, b + 4, 4);
			if (sq % NSLOT != slot || (uint8_t)sq != d->rsvdulp ||
			    sq != p->expect_seq[st] ||
			    !check_msg(b, d->len, st, sq))
				p->bad++;
		}
		p->expect_seq[st] = sq + 1;
		p->got_t++;
		return;
	}
	uint32_t seq = (uint32_t)d->rsvdulp;
	int ok = p->raw ? d->len == BIGMSG : check_msg(d->buf, d->len, st, seq);
	/* DDP-DLV-1, DDP-ORD-5: in order, one MSN per untagged message */
	if (seq != p->expect_seq[st] || d->msn != p->got_u_st[st] + 1 || !ok)
		p->bad++;
	p->expect_seq[st] = seq + 1;
	p->got_u++;
	p->got_u_st[st]++;
	p->outstanding--;
	if (p->repost) {
		if (ddp_post_recv(s, st, 0, d->buf, d->buf_len, NULL) != 0)
			p->bad++;
		else
			p->outstanding++;
	}
}

static int pumping;

static void send_done(ddp_session *s, uint32_t st, void *ctx, int status,
		      void *user)
{
	struct peer *p = user;
	if (status == 0) {
		p->done_ok++;
		if (st < NST)
			p->ok_st[st]++;
		if (pumping && st < NST)
			bulk_pump(p, st);
	} else if (status < 0) {
		p->done_err++;
		p->last_send_err = status;
		note_report(p);
	} else {
		p->done_other++;
	}
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct peer *p = user;
	if (!p->nerr++)
		p->last_err = *e;
	note_report(p);
}

static void stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event ev,
			 int status, void *user)
{
	struct peer *p = user;
	if (st >= NST)
		return;
	if (ev == DDP_EV_HALF_CLOSED)
		p->half[st]++;
	else if (ev == DDP_EV_CLOSED)
		p->closed[st]++;
	else {
		p->aborted[st]++;
		p->abort_status = status;
		note_report(p);
	}
}

static void post_stream(struct peer *p, uint32_t st)
{
	for (unsigned k = 0; k < p->npost; k++) {
		assert_int_equal(ddp_post_recv(p->as.s, st, 0,
					       p->rx[st] + (size_t)k * p->rx_len,
					       p->rx_len, NULL), 0);
		p->outstanding++;
	}
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status,
		     void *user)
{
	struct peer *p = user;
	if (status != 0)
		note_report(p);
	sctp_assoc_seen_note(&p->as, a, s, status);
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t st, enum ddp_sctp_event ev,
		   int status, const void *pd, size_t len, void *user)
{
	struct peer *p = user;
	if (ev == DDP_SCTP_INITIATE) {
		if (st < NST)
			post_stream(p, st);
		assert_int_equal(ddp_sctp_accept(a, st, NULL, 0), 0);
	} else if (ev == DDP_SCTP_ACCEPTED) {
		p->accepted++;
	}
}

/* ------------------------------------------------------------ harness */

static const ddp_callbacks peer_ddp = {
	.deliver = deliver, .send_done = send_done, .error = on_error, .stream_event = stream_event
};
static const ddp_sctp_callbacks peer_sctp = { .assoc = on_assoc, .session_ctl = on_ctl };

static void peer_init(struct peer *p, const char *name, int listen_,
		      size_t rx_len)
{
	ddp_sctp_config c;
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->rx_len = rx_len;
	p->npost = rx_len > MAXMSG ? 8 : NPOST; /* big buffers: a few */
	assert_int_equal(ddp_ctx_new(NULL, &p->ctx), 0);
	assert_int_equal(ddp_pd_new(p->ctx, &p->pd), 0);
	for (int i = 0; i < NST; i++) {
		p->rx[i] = malloc((size_t)p->npost * rx_len);
		p->tag[i] = calloc(NSLOT, MAXMSG);
		assert_non_null(p->rx[i]);
		assert_non_null(p->tag[i]);
	}
	/* fast failure detection for the dead-peer cases */
	sctp_end_config(&c, p->ctx, p->pd, 16, &peer_ddp, &peer_sctp, p);
	c.session.max_posted = NPOST;
	assert_int_equal(sctp_end_open(base, &c, listen_, &p->ep), 0);
}

static void peer_fini(struct peer *p)
{
	ddp_sctp_ep_free(p->ep);
	for (int i = 0; i < NST; i++) {
		if (p->stag[i])
			assert_int_equal(ddp_stag_invalidate(p->ctx, p->stag[i]), 0);
		free(p->rx[i]);
		free(p->tag[i]);
	}
	assert_int_equal(ddp_pd_free(p->pd), 0);
	assert_int_equal(ddp_ctx_free(p->ctx), 0);
}

static int run_until(const int *flag, int ms)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!*flag && msgcheck_ms_since(&t0) < ms) {
		struct timeval tv = { 0, 5000 };
		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	return *flag;
}

static void run_for(int ms)
{
	int never = 0;
	run_until(&never, ms);
}

static int setup(void **st)
{
	base = event_base_new();
	return base ? 0 : -1;
}

static int teardown(void **st)
{
	event_base_free(base);
	alarm(0);
	return 0;
}

static void register_tagged(struct peer *p)
{
	for (unsigned st = 0; st < NST; st++) {
		ddp_mr_attr at;
		memset(&at, 0, sizeof(at));
		at.addr = p->tag[st];
		at.len = (size_t)NSLOT * MAXMSG;
		at.access = DDP_ACCESS_REMOTE_WRITE;
		at.pd = p->pd;
		assert_int_equal(ddp_stag_register(p->ctx, &at, &p->stag[st]), 0);
	}
}

/* srv listens, cli connects, cli opens streams 0..NST-1 (both sides post
 * NPOST buffers of rx_len on each) */
static void open_pair(size_t rx_len)
{
	peer_init(&srv, "srv", 1, rx_len);
	peer_init(&cli, "cli", 0, rx_len);
	assert_int_equal(ddp_sctp_connect(cli.ep, "127.0.0.1",
					  ddp_sctp_ep_port(srv.ep), &cli.as.a), 0);
	assert_true(run_until(&cli.as.up, 5000));
	assert_true(run_until(&srv.as.up, 5000));
	for (uint32_t st = 0; st < NST; st++) {
		post_stream(&cli, st);
		assert_int_equal(ddp_sctp_initiate(cli.as.a, st, NULL, 0), 0);
	}
	for (int i = 0; i < 1000 && cli.accepted < NST; i++)
		run_for(5);
	assert_int_equal(cli.accepted, NST);
}

/* ------------------------------------------------- dead peer, survivor */

static void fill_pipe(struct peer *p, uint32_t st, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct iovec v = { big_payload, sizeof big_payload };
		if (ddp_send_untagged(p->as.s, st, 0, (uint64_t)p->sub_st[st], &v,
				      1, NULL) != 0)
			break;
		p->submitted++;
		p->sub_st[st]++;
	}
}

/* drop every datagram that carries an ABORT chunk (RFC 4960 §3.3.7, type
 * 6), counted in *user: the survivor must find out without it */
static unsigned drop_abort(void *user, uint8_t *pkt, size_t len)
{
	size_t off = 12; /* RFC 4960 §3.1 common header */
	while (off + 4 <= len) {
		size_t clen = (size_t)pkt[off + 2] << 8 | pkt[off + 3];
		if (pkt[off] == 6) {
			(*(unsigned long *)user)++;
			return SCTP_LL_DROP;
		}
		if (clen < 4 || clen > len - off)
			break;
		off += (clen + 3) & ~(size_t)3;
	}
	return SCTP_LL_PASS;
}

/* RFC 5041 §6 (DDP-TRD-6, DDP-TRD-7) over SCTP: the survivor reports the
 * loss within 10 s (assoc callback status: DDP_ERR_LLP when ICMP said the
 * peer is gone, DDP_ERR_TIMEOUT when it went silent), completes every
 * queued send in error, gives back every posted buffer and reports
 * DDP_EV_ABORTED on each open stream, all before its session is freed. */
static void assert_survivor(struct peer *p, double ms, int want_status)
{
	int ab = 0;
	for (int st = 0; st < NST; st++)
		ab += p->aborted[st];
	print_message("%s: down after %.0f ms (status %d), sends ok %lu err "
		      "%lu (%d), buffers back %lu (status %d), left %lu, "
		      "aborted streams %d\n", p->name, ms, p->as.down_status,
		      p->done_ok, p->done_err, p->last_send_err, p->flushed,
		      p->flush_status, p->outstanding, ab);
	assert_true(p->as.down);
	assert_true(ms < 10000);
	assert_int_equal(p->as.down_status, want_status);
	assert_int_equal(p->done_ok + p->done_err, p->submitted);
	assert_int_equal(p->done_other, 0);
	assert_int_equal(p->outstanding, 0);
	assert_true(p->flushed > 0);
	assert_false(p->flush_status_bad);
	assert_int_equal(ab, NST);
	assert_int_equal(p->bad, 0);
}

/* mode 0: srv's endpoint is freed without SHUTDOWN/ABORT reaching cli
 * (its UDP port is gone: the next datagram draws ICMP port unreachable);
 * mode 1: every datagram to srv and from srv vanishes (silent death:
 * retransmissions / heartbeats go unanswered; both ends are survivors). */
static void test_fault_sctp_dead_peer_flushes_survivor(void **state)
{
	alarm(50);
	for (int mode = 0; mode < 2; mode++) {
		open_pair(BIGMSG);
		cli.raw = srv.raw = 1;
		cli.repost = srv.repost = 1;
		for (uint32_t st = 0; st < NST; st++) {
			fill_pipe(&cli, st, 16);
			fill_pipe(&srv, st, 16);
		}
		run_for(20);
		/* and 16 MiB more with no loop turn: queued for sure */
		for (uint32_t st = 0; st < NST; st++) {
			fill_pipe(&cli, st, 32);
			fill_pipe(&srv, st, 32);
		}
		assert_true(cli.submitted > cli.done_ok);
		struct timespec t0;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		unsigned long aborts = 0;
		if (mode == 0) {
			/* srv dies: its session is freed inside (buffers
			 * and sends flushed, no callbacks after); an ABORT
			 * it may still get out is dropped on the way, so
			 * cli can only learn it from ICMP port unreachable */
			sctp_ll_set_filter(sctp_ddp_ep_ll(cli.ep), drop_abort,
					   &aborts);
			ddp_sctp_ep_free(srv.ep);
			srv.ep = NULL;
		} else {
			sctp_ll_set_filter(sctp_ddp_ep_ll(srv.ep), udp_drop_all, NULL);
			sctp_ll_set_filter(sctp_ddp_ep_ll(cli.ep), udp_drop_all, NULL);
		}
		run_until(&cli.as.down, 10000);
		if (mode == 0)
			print_message("ABORT datagrams dropped: %lu\n", aborts);
		assert_survivor(&cli, msgcheck_ms_since(&t0),
				mode == 0 ? DDP_ERR_LLP : DDP_ERR_TIMEOUT);
		if (mode == 1) {
			run_until(&srv.as.down, 10000);
			assert_survivor(&srv, msgcheck_ms_since(&t0), DDP_ERR_TIMEOUT);
		} else {
			assert_int_equal(srv.done_ok + srv.done_err,
					 srv.submitted);
			assert_int_equal(srv.outstanding, 0);
		}
		assert_int_equal(cli.nerr, 0);
		peer_fini(&cli);
		peer_fini(&srv);
	}
	alarm(0);
}

/* ------------------------------------------------------ teardown */

static void send_seq(struct peer *p, uint32_t st, uint32_t seq, int tagged,
		     uint32_t peer_stag, uint8_t *store)
{
	size_t n = seq_len(st, seq);
	msgcheck_make(store, st, seq, n);
	struct iovec v[2] = { { store, 5 }, { store + 5, n - 5 } };
	int rc = tagged ? ddp_send_tagged(p->as.s, st, peer_stag,
					  (uint64_t)(seq % NSLOT) * MAXMSG,
					  (uint8_t)seq, v, 2, NULL) :
			  ddp_send_untagged(p->as.s, st, 0, seq, v, 2, NULL);
	assert_int_equal(rc, 0);
	p->submitted++;
	p->sub_st[st]++;
}

/* RFC 5041 §6 on SCTP streams (stream session Terminate, RFC 5043 §6.4):
 *  - DDP-TRD-2: stream 1 closed by cli right after NMSG sends: srv gets
 *    every one, then cli's next send on it fails with DDP_ERR_CLOSED;
 *  - DDP-TRD-4: srv is told (DDP_EV_HALF_CLOSED) and still sends 20
 *    messages; DDP-TRD-5: cli, half-closed, still receives them; then srv
 *    closes and both see DDP_EV_CLOSED;
 *  - DDP-TRD-3: data arriving after the peer's graceful teardown (a raw
 *    DDP segment with the next DDP-SSN after cli's Terminate on stream 3)
 *    is an error (LLP etype, code DDP_ECODE_LLP_AFTER_CLOSE) that aborts
 *    the stream at srv;
 *  - abortive: ddp_stream_abort() on stream 2 with sends queued and
 *    buffers posted gives them all back DDP_ERR_ABORTED at once;
 *  - other streams keep working throughout. */
static void test_fault_sctp_graceful_abortive_and_half_close(void **state)
{
	enum { NMSG = 100 };
	static uint8_t store[NMSG][MAXMSG];
	alarm(30);
	open_pair(MAXMSG);
	srv.repost = 1;
	/* DDP-TRD-2 */
	for (uint32_t i = 0; i < NMSG; i++)
		send_seq(&cli, 1, i, 0, 0, store[i]);
	assert_int_equal(ddp_stream_close(cli.as.s, 1), 0);
	struct iovec v = { store[0], 64 };
	assert_int_equal(ddp_send_untagged(cli.as.s, 1, 0, 0, &v, 1, NULL),
			 DDP_ERR_CLOSED);
	assert_true(run_until(&srv.half[1], 5000));
	assert_int_equal(srv.got_u_st[1], NMSG);
	assert_int_equal(srv.bad, 0);
	assert_int_equal(cli.ok_st[1], NMSG);
	/* DDP-TRD-4 / -5 */
	static uint8_t back[20][MAXMSG];
	for (uint32_t i = 0; i < 20; i++)
		send_seq(&srv, 1, i, 0, 0, back[i]);
	for (int i = 0; i < 400 && cli.got_u_st[1] < 20; i++)
		run_for(5);
	assert_int_equal(cli.got_u_st[1], 20);
	assert_int_equal(cli.bad, 0);
	assert_int_equal(cli.closed[1] + cli.aborted[1], 0);
	assert_int_equal(ddp_stream_close(srv.as.s, 1), 0);
	assert_true(run_until(&cli.closed[1], 5000));
	for (int i = 0; i < 100 && !srv.closed[1]; i++)
		run_for(5);
	print_message("stream 1: cli closed %d aborted %d, srv closed %d "
		      "aborted %d half %d\n", cli.closed[1], cli.aborted[1],
		      srv.closed[1], srv.aborted[1], srv.half[1]);
	assert_int_equal(cli.aborted[1] + srv.aborted[1], 0);
	assert_int_equal(srv.nerr + cli.nerr, 0);

	/* abortive teardown of stream 2 */
	unsigned long fl = cli.flushed, de = cli.done_err;
	static uint8_t ab[50][MAXMSG];
	for (uint32_t i = 0; i < 50; i++)
		send_seq(&cli, 2, i, 0, 0, ab[i]);
	assert_int_equal(ddp_stream_abort(cli.as.s, 2), 0);
	assert_int_equal(cli.aborted[2], 1);
	assert_int_equal(cli.flushed - fl, NPOST);
	assert_int_equal(cli.flush_status, DDP_ERR_ABORTED);
	/* usrsctp takes small sends at once: those still queued (if any)
	 * come back DDP_ERR_ABORTED (the MPA test forces a full queue) */
	if (cli.done_err > de)
		assert_int_equal(cli.last_send_err, DDP_ERR_ABORTED);
	assert_int_equal(cli.done_ok + cli.done_err, cli.submitted);
	run_for(200);
	print_message("stream 2 after cli's abort: srv half %d closed %d "
		      "aborted %d, srv errors %lu\n", srv.half[2], srv.closed[2],
		      srv.aborted[2], srv.nerr);

	/* DDP-TRD-3: data after the graceful teardown */
	unsigned long nerr0 = srv.nerr;
	assert_int_equal(ddp_stream_close(cli.as.s, 3), 0);
	assert_true(run_until(&srv.half[3], 5000));
	uint16_t ssn = cli.as.a->st[3]->sm.tx_ssn; /* after the Terminate */
	uint8_t seg[2 + DDP_UNTAGGED_HDR_LEN + 8];
	memset(seg, 0, sizeof seg);
	seg[0] = (uint8_t)(ssn >> 8);
	seg[1] = (uint8_t)ssn;
	seg[2] = 0x41;		/* T=0, L=1, DV=1 */
	seg[2 + 13] = 1;	/* QN 0, MSN 1, MO 0 */
	assert_int_equal(sctp_ll_send(sctp_ddp_assoc_ll(cli.as.a), 3,
				      SCTP_PPID_DDP, seg, sizeof seg), 0);
	for (int i = 0; i < 400 && srv.nerr == nerr0; i++)
		run_for(5);
	run_for(100);
	print_message("after-close data: srv errors %lu, last %u/%u/%u on "
		      "stream %u, aborted %d\n", srv.nerr, srv.last_err.layer,
		      srv.last_err.etype, srv.last_err.code,
		      srv.last_err.stream, srv.aborted[3]);
	assert_int_equal(srv.nerr, nerr0 + 1);
	assert_int_equal(srv.last_err.stream, 3);
	assert_int_equal(srv.last_err.etype, DDP_ETYPE_LLP);
	assert_int_equal(srv.last_err.code, DDP_ECODE_LLP_AFTER_CLOSE);
	assert_int_equal(srv.got_u_st[3], 0); /* nothing delivered */
	/* DDP-TRD-3: the stream is torn down abortively */
	assert_int_equal(srv.aborted[3], 1);

	/* the untouched streams still carry data both ways */
	static uint8_t s4[2][MAXMSG];
	send_seq(&cli, 4, 0, 0, 0, s4[0]);
	send_seq(&srv, 4, 0, 0, 0, s4[1]);
	for (int i = 0; i < 400 && !(srv.got_u_st[4] && cli.got_u_st[4]); i++)
		run_for(5);
	assert_int_equal(srv.got_u_st[4], 1);
	assert_int_equal(cli.got_u_st[4], 1);
	assert_int_equal(srv.bad + cli.bad, 0);

	/* abortive end of the association: everything comes back */
	ddp_sctp_close(cli.as.a, 1);
	assert_true(run_until(&srv.as.down, 5000));
	assert_true(run_until(&cli.as.down, 5000));
	assert_int_equal(srv.as.down_status, DDP_ERR_LLP);
	assert_int_equal(cli.outstanding, 0);
	assert_int_equal(srv.outstanding, 0);
	assert_int_equal(cli.done_ok + cli.done_err, cli.submitted);
	assert_int_equal(srv.done_ok + srv.done_err, srv.submitted);
	assert_false(cli.flush_status_bad || srv.flush_status_bad);
	peer_fini(&cli);
	peer_fini(&srv);
	alarm(0);
}

/* ------------------------------------------------------ bulk */

static struct udp_faults fs, fc;

#define BULK_TOTAL 100000u
#define BULK_WINDOW 256u /* sends in flight per stream */
#define TAG_EVERY 5u
static uint8_t (*bulk_store)[BULK_WINDOW][MAXMSG];
static unsigned long bulk_sent;

static void bulk_pump(struct peer *p, uint32_t st)
{
	static int in_pump; /* a completion inside a send: outer loop goes on */
	if (in_pump)
		return;
	in_pump = 1;
	while (bulk_sent < BULK_TOTAL &&
	       p->sub_st[st] - p->ok_st[st] < BULK_WINDOW) {
		uint32_t seq = (uint32_t)p->sub_st[st];
		int tagged = seq % TAG_EVERY == TAG_EVERY - 1;
		/* ULP credits (as RDMAP's would be): never more untagged
		 * messages in flight than the peer has buffers posted, or
		 * an early arrival past them is an MSN range error
		 * (RFC 5041 §7.2, (1, 2, 3)) */
		if (!tagged && p->unt_st[st] - srv.got_u_st[st] >= NPOST)
			break;
		if (!tagged)
			p->unt_st[st]++;
		send_seq(p, st, seq, tagged, srv.stag[st],
			 bulk_store[st][seq % BULK_WINDOW]);
		bulk_sent++;
	}
	in_pump = 0;
}

/* 100,000 messages of 64..512 octets (every 5th tagged) over NST streams
 * through a UDP path with 5% drop, 5% duplicate, 5% reorder and 5%
 * corruption each way: SCTP retransmits, CRC32c drops the corrupt
 * datagrams (counted), DDP-SSN orders (RFC 5043 §5.1, DDP-ORD-5):
 * every message arrives once, in order, checked (sequence number,
 * checksum, every octet); no DDP error. */
static void test_fault_sctp_100k_messages_under_faults(void **state)
{
	alarm(120);
	open_pair(MAXMSG);
	register_tagged(&srv);
	srv.repost = 1;
	bulk_store = malloc(sizeof(*bulk_store) * NST);
	assert_non_null(bulk_store);
	bulk_sent = 0;
	udp_faults_init(&fs, 11, 5, 4);
	udp_faults_init(&fc, 12, 5, 4);
	sctp_ll_set_filter(sctp_ddp_ep_ll(srv.ep), udp_faults_filter, &fs);
	sctp_ll_set_filter(sctp_ddp_ep_ll(cli.ep), udp_faults_filter, &fc);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pumping = 1;
	for (uint32_t st = 0; st < NST; st++)
		bulk_pump(&cli, st);
	while (srv.got_u + srv.got_t < BULK_TOTAL && msgcheck_ms_since(&t0) < 90000 &&
	       !srv.nerr && !cli.nerr && !srv.as.down && !cli.as.down && !srv.bad) {
		run_for(2);
		for (uint32_t st = 0; st < NST; st++)
			bulk_pump(&cli, st); /* credits given back */
	}
	pumping = 0;
	double ms = msgcheck_ms_since(&t0);
	uint64_t rx_s, bad_s, tx_s, rx_c, bad_c, tx_c;
	sctp_ll_ep_stats(sctp_ddp_ep_ll(srv.ep), &rx_s, &bad_s, &tx_s);
	sctp_ll_ep_stats(sctp_ddp_ep_ll(cli.ep), &rx_c, &bad_c, &tx_c);
	print_message("%lu untagged + %lu tagged in %.0f ms, bad %lu, errors "
		      "%lu/%lu\n", srv.got_u, srv.got_t, ms, srv.bad, srv.nerr,
		      cli.nerr);
	if (srv.nerr || cli.nerr) {
		struct peer *e = srv.nerr ? &srv : &cli;
		print_message("%s: first error %u/%u/%u on stream %u (hdr_len "
			      "%u, seg_len %u)\n", e->name, e->last_err.layer,
			      e->last_err.etype, e->last_err.code,
			      e->last_err.stream, e->last_err.hdr_len,
			      e->last_err.seg_len);
	}
	print_message("to srv: %lu dgrams, drop %lu dup %lu reorder %lu "
		      "corrupt %lu, dropped by CRC %llu\n", fs.n, fs.drop,
		      fs.dup, fs.hold, fs.corrupt, (unsigned long long)bad_s);
	print_message("to cli: %lu dgrams, drop %lu dup %lu reorder %lu "
		      "corrupt %lu, dropped by CRC %llu\n", fc.n, fc.drop,
		      fc.dup, fc.hold, fc.corrupt, (unsigned long long)bad_c);
	assert_int_equal(srv.bad, 0);
	assert_int_equal(srv.nerr, 0);
	assert_int_equal(cli.nerr, 0);
	assert_int_equal(srv.got_u + srv.got_t, BULK_TOTAL);
	unsigned long unt = 0;
	for (uint32_t st = 0; st < NST; st++)
		unt += cli.unt_st[st];
	assert_int_equal(srv.got_u, unt);
	assert_int_equal(srv.got_t, BULK_TOTAL - unt);
	assert_true(srv.got_t >= BULK_TOTAL / TAG_EVERY - NST);
	for (uint32_t st = 0; st < NST; st++)
		assert_int_equal(srv.expect_seq[st], cli.sub_st[st]);
	/* the faults really happened, both ways, and CRC32c caught them */
	assert_true(fs.drop * 25 >= fs.n && fc.drop * 25 >= fc.n);
	assert_true(fs.dup * 25 >= fs.n && fc.dup * 25 >= fc.n);
	assert_true(fs.hold * 25 >= fs.n && fc.hold * 25 >= fc.n);
	assert_true(fs.corrupt * 25 >= fs.n && fc.corrupt * 25 >= fc.n);
	assert_true(bad_s > 0 && bad_c > 0);
	assert_true(bad_s <= fs.corrupt && bad_c <= fc.corrupt);
	peer_fini(&cli);
	peer_fini(&srv);
	free(bulk_store);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_fault_sctp_dead_peer_flushes_survivor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fault_sctp_graceful_abortive_and_half_close, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fault_sctp_100k_messages_under_faults, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
