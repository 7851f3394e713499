/*
 * Memory safety through the SCTP adapter: the victim is a
 * ddp_sctp_ep listener on 127.0.0.1 (usrsctp over UDP, libevent); the
 * attacker is a bare sctp_ll endpoint of this test that sends the DDP
 * Adaptation Layer Indication (RFC 5043 §11.1), opens each stream's DDP
 * Stream Session with a PPID-17 Initiate (DDP-SSN 0, RFC 5043 §5.2.3) and
 * then sends PPID-16 DDP Segment Chunks (DDP-SSN + hostile DDP segment,
 * RFC 5043 §5.2.1).
 *
 * The victim's tagged and untagged buffers sit between PROT_NONE guard
 * pages with a canary; forbidden buffers (read-only STag, other PD, other
 * session, revoked) are mapped read-only (DDP-SEC-4, DDP-SEC-10). Each case
 * of the table (tests/support/hostile.c, DDP-VAL/DDP-SEC ids there) runs on
 * its own stream of one association: exact RFC 5041 §7.2 (etype, code), no
 * byte placed, nothing placed after the stream's first error (DDP-ERR-1).
 * Then a few thousand random hostile segments over fresh associations.
 * Every test is bounded by alarm().
 */
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

#include "common/crc32c.h"
#include "ddpwire.h"
#include "guardbuf.h"
#include "hostile.h"
#include "nullllp.h"
#include "sctp/sctp_ctl.h"
#include "ddp_test.h"
#include "sctp/usrsctp/sctp_ll.h"
#include "sctp/sctp_ssn.h"

#define NSTREAMS 256

struct victim {
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_pd *pda, *pdb;
	nullllp onl;
	ddp_session *other; /* owns HT_OTHERSESS */
	ddp_sctp_ep *ep;
	int port;
	hostile_targets t;
	guardbuf ub[NSTREAMS][HU_N];
	/* current association (victim side) */
	ddp_sctp_assoc *a;
	ddp_session *s;
	int up, down, nctl_bad;
	int accepted[NSTREAMS];
	int nerr[NSTREAMS];
	ddp_error_info err[NSTREAMS];
	unsigned ndlv[NSTREAMS], nprobe[NSTREAMS];
	/* attacker */
	sctp_ll_ep *aep;
	sctp_ll_assoc *aa;
	int aup, adown;
	uint16_t ssn[NSTREAMS]; /* next DDP-SSN the attacker sends */
	uint64_t rng;
	/* the victim context's log hook (control-plane trace) */
	char log[16384];
	unsigned nlog;
	/* wire filter on the victim: clear U of the first DATA chunk with
	 * this stream id and PPID (-1: none) */
	int flip_sid;
	uint32_t flip_ppid;
	unsigned flipped;
};

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void step(struct victim *w, long ms)
{
	struct timeval tv = {0, ms * 1000};
	event_base_loopexit(w->base, &tv);
	event_base_dispatch(w->base);
}

/* ---------------------------------------------------------- victim side */

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct victim *w = user;
	if (d->status != 0 || d->stream >= NSTREAMS)
		return; /* posted buffers flushed with the session */
	if (!d->tagged && d->qn == 2)
		w->nprobe[d->stream]++;
	else
		w->ndlv[d->stream]++;
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	struct victim *w = user;
	if (e->stream >= NSTREAMS)
		return;
	if (w->nerr[e->stream]++ == 0)
		w->err[e->stream] = *e;
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct victim *w = user;
	if (status == 0) {
		w->a = a;
		w->s = s;
		w->up = 1;
	} else if (a == w->a) {
		w->a = NULL;
		w->s = NULL;
		w->down = 1;
	}
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                   const void *pd, size_t pd_len, void *user)
{
	struct victim *w = user;
	if (ev != DDP_SCTP_INITIATE || stream >= NSTREAMS) {
		w->nctl_bad++;
		return;
	}
	ddp_session *s = ddp_sctp_session(a);
	for (int i = 0; i < HU_N; i++) {
		hostile_canary_fill(&w->ub[stream][i]);
		assert_int_equal(ddp_post_recv(s, stream, hostile_u_qn[i], w->ub[stream][i].p,
		                               hostile_u_len[i], NULL),
		                 0);
	}
	assert_int_equal(ddp_sctp_accept(a, stream, NULL, 0), 0);
	w->accepted[stream] = 1;
}

/* ---------------------------------------------------------- attacker side */

static void on_att(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct victim *w = user;
	static uint8_t sink[70000];
	sctp_ll_rinfo ri;
	switch (ev) {
	case SCTP_LL_EV_UP:
		w->aup = 1;
		break;
	case SCTP_LL_EV_DOWN:
		w->adown = 1;
		break;
	case SCTP_LL_EV_READABLE: /* Accepts and whatever else: ignored */
		while (sctp_ll_recv(a, sink, sizeof sink, &ri) >= 0)
			;
		break;
	default:
		break;
	}
}

static const sctp_ll_assoc_cb att_cb = {on_att};

/* Send one message, waiting (bounded) while usrsctp has no room. */
static void att_send(struct victim *w, uint16_t sid, uint32_t ppid, const void *m, size_t n)
{
	long end = now_ms() + 5000;
	int rc;
	while ((rc = sctp_ll_send(w->aa, sid, ppid, m, n)) == DDP_ERR_AGAIN && now_ms() < end)
		step(w, 5);
	assert_int_equal(rc, 0);
}

/* RFC 5043 §5.2.3: Initiate on sid with DDP-SSN 0 (no private data). */
static void att_initiate(struct victim *w, uint16_t sid)
{
	struct sctp_ctl_msg m;
	memset(&m, 0, sizeof(m));
	m.ssn = 0;
	m.code = SCTP_CTL_INITIATE;
	uint8_t b[SCTP_CTL_MAX_LEN];
	size_t n = 0;
	assert_int_equal(sctp_ctl_encode(b, sizeof b, &m, &n), 0);
	att_send(w, sid, SCTP_PPID_CTL, b, n);
	w->ssn[sid] = 1;
}

/* RFC 5043 §5.2.1: DDP Segment Chunk = DDP-SSN (2) + DDP segment. */
static void att_segment(struct victim *w, uint16_t sid, const uint8_t *seg, size_t n)
{
	static uint8_t m[SCTP_SSN_LEN + HOSTILE_MAX_SEG];
	assert_true(n <= HOSTILE_MAX_SEG);
	sctp_ssn_put(m, w->ssn[sid]++);
	memcpy(m + SCTP_SSN_LEN, seg, n);
	att_send(w, sid, SCTP_PPID_DDP, m, SCTP_SSN_LEN + n);
}

/* ---------------------------------------------------------- the world */

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	struct victim *w = user;
	(void)level;
	w->nlog++;
	strncat(w->log, msg, sizeof(w->log) - strlen(w->log) - 2);
	strcat(w->log, "\n");
}

static void victim_init(struct victim *w, uint64_t seed)
{
	memset(w, 0, sizeof(*w));
	w->flip_sid = -1;
	w->rng = seed * 0x9E3779B97F4A7C15ull + 1;
	w->base = event_base_new();
	assert_non_null(w->base);
	ddp_ctx_config cc;
	memset(&cc, 0, sizeof(cc));
	cc.log = on_log;
	cc.log_user = w;
	assert_int_equal(ddp_ctx_new(&cc, &w->ctx), 0);
	assert_int_equal(ddp_pd_new(w->ctx, &w->pda), 0);
	assert_int_equal(ddp_pd_new(w->ctx, &w->pdb), 0);
	ddp_callbacks ocb = {.deliver = on_deliver};
	assert_int_equal(ddp_session_new(w->ctx, NULL, &nullllp_ops, &w->onl, &ocb, w, &w->other),
	                 0);
	assert_int_equal(hostile_targets_new(&w->t, w->ctx, w->pda, w->pdb, w->other), 0);
	for (int s = 0; s < NSTREAMS; s++)
		for (int i = 0; i < HU_N; i++)
			assert_int_equal(guardbuf_new(&w->ub[s][i], hostile_u_len[i]), 0);

	ddp_sctp_config vc;
	memset(&vc, 0, sizeof(vc));
	vc.port = -1;
	vc.nstreams = NSTREAMS;
	vc.ctx = w->ctx;
	vc.session.pd = w->pda;
	vc.ddp.deliver = on_deliver;
	vc.ddp.error = on_error;
	vc.sctp.assoc = on_assoc;
	vc.sctp.session_ctl = on_ctl;
	vc.user = w;
	assert_int_equal(ddp_sctp_ep_new(w->base, &vc, &w->ep), 0);
	assert_int_equal(ddp_sctp_listen(w->ep), 0);
	w->port = ddp_sctp_ep_port(w->ep);

	sctp_ll_config ac;
	memset(&ac, 0, sizeof(ac));
	ac.port = -1;
	ac.nstreams = NSTREAMS;
	ac.adaptation = SCTP_ADAPTATION_DDP; /* RFC 5043 §11.1 */
	ac.require_adaptation = 1;
	assert_int_equal(sctp_ll_ep_new(w->base, &ac, &w->aep), 0);
}

/* A fresh association from the attacker; the victim sees it up. */
static void att_connect(struct victim *w)
{
	w->aup = w->adown = w->up = w->down = 0;
	memset(w->accepted, 0, sizeof w->accepted);
	memset(w->nerr, 0, sizeof w->nerr);
	memset(w->ndlv, 0, sizeof w->ndlv);
	memset(w->nprobe, 0, sizeof w->nprobe);
	memset(w->ssn, 0, sizeof w->ssn);
	assert_int_equal(sctp_ll_connect(w->aep, "127.0.0.1", w->port, &att_cb, w, &w->aa), 0);
	long end = now_ms() + 5000;
	while (!(w->aup && w->up) && !w->adown && now_ms() < end)
		step(w, 5);
	assert_true(w->aup);
	assert_true(w->up);
	assert_true(sctp_ll_nstreams(w->aa) >= NSTREAMS);
}

/* Abort the association and wait until the victim freed its session. */
static void att_disconnect(struct victim *w)
{
	sctp_ll_close(w->aa, 1);
	long end = now_ms() + 5000;
	while (!w->down && now_ms() < end)
		step(w, 5);
	assert_true(w->down);
	sctp_ll_free(w->aa);
	w->aa = NULL;
}

static void victim_fini(struct victim *w)
{
	if (w->aa)
		att_disconnect(w);
	sctp_ll_ep_free(w->aep);
	ddp_sctp_ep_free(w->ep);
	ddp_session_free(w->other); /* invalidates HT_OTHERSESS */
	hostile_targets_free(&w->t, w->ctx, 1);
	for (int s = 0; s < NSTREAMS; s++)
		for (int i = 0; i < HU_N; i++)
			guardbuf_free(&w->ub[s][i]);
	assert_int_equal(ddp_pd_free(w->pda), 0);
	assert_int_equal(ddp_pd_free(w->pdb), 0);
	assert_int_equal(ddp_ctx_free(w->ctx), 0);
	event_base_free(w->base);
}

static void open_streams(struct victim *w, uint16_t n)
{
	for (uint16_t s = 0; s < n; s++)
		att_initiate(w, s);
	long end = now_ms() + 5000;
	for (uint16_t s = 0; s < n; s++)
		while (!w->accepted[s] && now_ms() < end)
			step(w, 5);
	for (uint16_t s = 0; s < n; s++)
		assert_true(w->accepted[s]);
}

static void assert_targets_intact(struct victim *w)
{
	for (int i = 0; i < HT_N; i++)
		assert_true(hostile_canary_intact(&w->t.g[i], 0));
}

/* ---------------------------------------------------------- tests */

/* Control: the harness does place a valid tagged write and a valid
 * untagged message, so the canary checks can fail. */
static void test_hostile_sctp_valid_segments_land(void **state)
{
	alarm(30);
	struct victim w;
	victim_init(&w, 1);
	att_connect(&w);
	open_streams(&w, 1);
	uint8_t seg[DDP_UNTAGGED_HDR_LEN + 16], pay[16];
	memset(pay, HOSTILE_EVIL, sizeof pay);
	att_segment(
	    &w, 0, seg,
	    tw_tagged(seg, 1, 1, 0, w.t.stag[HT_GOOD], HOSTILE_TBASE + HOSTILE_TLEN - 16, pay, 16));
	att_segment(&w, 0, seg, hostile_probe(seg));
	long end = now_ms() + 5000;
	while (!w.nprobe[0] && !w.nerr[0] && now_ms() < end)
		step(&w, 5);
	assert_int_equal(w.nerr[0], 0);
	assert_int_equal(w.ndlv[0], 1);
	assert_int_equal(w.nprobe[0], 1);
	assert_false(hostile_canary_intact(&w.t.g[HT_GOOD], 0));
	assert_true(hostile_canary_intact(&w.t.g[HT_GOOD], HOSTILE_TLEN));
	assert_memory_equal(w.t.g[HT_GOOD].p + HOSTILE_TLEN - 16, pay, 16);
	assert_false(hostile_canary_intact(&w.ub[0][HU_PROBE], 0));
	victim_fini(&w);
	alarm(0);
}

/* RFC 5041 §7.1/§7.2 through SCTP: each hostile header (one per stream)
 * gets exactly its (etype, code), nothing is placed or delivered, and the
 * stream places nothing after its first error (DDP-ERR-1, DDP-ERR-3): a
 * valid tagged write sent after it must not land. */
static void test_hostile_sctp_table_exact_codes_no_placement(void **state)
{
	alarm(60);
	struct victim w;
	victim_init(&w, 2);
	att_connect(&w);
	assert_true(hostile_ncases <= NSTREAMS);
	open_streams(&w, (uint16_t)hostile_ncases);
	static uint8_t seg[HOSTILE_MAX_SEG];
	uint8_t ok[DDP_TAGGED_HDR_LEN + 16], pay[16];
	memset(pay, HOSTILE_EVIL, sizeof pay);
	size_t okn = tw_tagged(ok, 1, 1, 0, w.t.stag[HT_GOOD], HOSTILE_TBASE, pay, sizeof pay);
	for (uint16_t i = 0; i < hostile_ncases; i++) {
		const hostile_case *c = &hostile_cases[i];
		/* SCTP chunks are unordered (U=1) and the core validates on
		 * arrival: each step waits for its effect before the next one is
		 * sent, so a (rare) reordering cannot change the outcome */
		long end = now_ms() + 5000;
		uint8_t probe[DDP_UNTAGGED_HDR_LEN + 3];
		if (c->pre_probe) {
			att_segment(&w, i, probe, hostile_probe(probe));
			while (!w.nprobe[i] && now_ms() < end)
				step(&w, 5);
		}
		size_t n = hostile_build(&w.t, c, seg);
		att_segment(&w, i, seg, n);
		while (!w.nerr[i] && now_ms() < end)
			step(&w, 5);
		att_segment(&w, i, ok, okn); /* after the error: must not land */
		step(&w, 20);
		print_message("%-18s -> %d/%d/%d\n", c->name, w.err[i].layer, w.err[i].etype,
		              w.err[i].code);
		assert_int_equal(w.nerr[i], 1);
		assert_int_equal(w.err[i].layer, DDP_LAYER_DDP);
		assert_int_equal(w.err[i].etype, c->etype);
		assert_int_equal(w.err[i].code, c->code);
		assert_int_equal(w.err[i].stream, i);
		/* DDP-ERR-2: the offending header as received */
		assert_true(w.err[i].have_segment);
		assert_int_equal(w.err[i].hdr_len,
		                 c->tagged ? DDP_TAGGED_HDR_LEN : DDP_UNTAGGED_HDR_LEN);
		assert_memory_equal(w.err[i].hdr, seg, w.err[i].hdr_len);
		assert_int_equal(w.err[i].seg_len, n);
		assert_int_equal(w.ndlv[i], 0);
		assert_int_equal(w.nprobe[i], c->pre_probe ? 1 : 0);
		assert_targets_intact(&w);
		for (int k = 0; k < HU_N; k++)
			assert_true(hostile_canary_intact(&w.ub[i][k],
			                                  k == HU_PROBE && c->pre_probe ? 3 : 0));
	}
	assert_true(w.up);
	assert_int_equal(w.nctl_bad, 0);
	victim_fini(&w);
	alarm(0);
}

/* A few thousand random hostile segments (edge-biased, seeded) over fresh
 * associations, a batch per stream closed by a probe message on QN 2:
 * zero faults, forbidden buffers and every buffer's slack untouched, both
 * placements and errors happened. */
static void test_hostile_sctp_random_segments_never_fault(void **state)
{
	alarm(120);
	const char *env = getenv("DDP_HOSTILE_ITERS");
	unsigned long iters = env ? strtoul(env, NULL, 0) : 3000;
	struct victim w;
	victim_init(&w, 3);
	unsigned long sent = 0, streams = 0, errors = 0, dlv = 0, assocs = 0;
	static uint8_t seg[HOSTILE_MAX_SEG];
	while (sent < iters) {
		att_connect(&w);
		assocs++;
		open_streams(&w, NSTREAMS);
		for (uint16_t s = 0; s < NSTREAMS; s++) {
			int batch = 1 + (int)(hostile_rnd(&w.rng) % 4);
			for (int k = 0; k < batch; k++, sent++)
				att_segment(&w, s, seg, hostile_random(&w.t, &w.rng, seg));
			uint8_t probe[DDP_UNTAGGED_HDR_LEN + 3];
			att_segment(&w, s, probe, hostile_probe(probe));
		}
		long end = now_ms() + 10000;
		for (uint16_t s = 0; s < NSTREAMS; s++)
			while (!w.nerr[s] && !w.nprobe[s] && now_ms() < end)
				step(&w, 5);
		for (uint16_t s = 0; s < NSTREAMS; s++) {
			assert_true(w.nerr[s] || w.nprobe[s]);
			errors += w.nerr[s] != 0;
			dlv += w.ndlv[s];
		}
		streams += NSTREAMS;
		att_disconnect(&w);
		for (int i = HT_RO; i <= HT_REVOKED; i++)
			assert_true(hostile_canary_intact(&w.t.g[i], 0));
		for (int i = 0; i < HT_N; i++)
			assert_true(hostile_canary_intact(&w.t.g[i], w.t.g[i].len));
		for (int s = 0; s < NSTREAMS; s++)
			for (int i = 0; i < HU_N; i++)
				assert_true(hostile_canary_intact(&w.ub[s][i], w.ub[s][i].len));
	}
	print_message("%lu segments on %lu streams of %lu associations: %lu errors, "
	              "%lu deliveries\n",
	              sent, streams, assocs, errors, dlv);
	assert_true(errors > 0);
	assert_true(dlv > 0);
	assert_true(errors < streams);
	assert_int_equal(w.nctl_bad, 0);
	victim_fini(&w);
	alarm(0);
}

/* Victim-side wire filter: an RFC 4960 DATA chunk (type 0; flags U=0x04;
 * stream id at +8, SSN +10, PPID +12) of stream flip_sid / flip_ppid is
 * turned into an ordered one (U=0, SSN 0: the first ordered message of
 * the stream), once; the CRC32c is recomputed (it is checked after us). */
static unsigned flip_filter(void *user, uint8_t *pkt, size_t len)
{
	struct victim *w = user;
	size_t o = 12;
	if (w->flip_sid < 0 || w->flipped)
		return SCTP_LL_PASS;
	while (o + 16 <= len) {
		size_t cl = (size_t)pkt[o + 2] << 8 | pkt[o + 3];
		uint16_t sid = (uint16_t)(pkt[o + 8] << 8 | pkt[o + 9]);
		uint32_t ppid = (uint32_t)pkt[o + 12] << 24 | (uint32_t)pkt[o + 13] << 16 |
		                (uint32_t)pkt[o + 14] << 8 | pkt[o + 15];
		if (cl < 4)
			break;
		if (pkt[o] == 0 && (pkt[o + 1] & 0x04) && sid == (uint16_t)w->flip_sid &&
		    ppid == w->flip_ppid) {
			pkt[o + 1] &= (uint8_t)~0x04;
			pkt[o + 10] = pkt[o + 11] = 0;
			memset(pkt + 8, 0, 4);
			ddp_crc32c_put_wire(pkt + 8, ddp_crc32c(0, pkt, len));
			w->flipped++;
			return SCTP_LL_PASS;
		}
		o += (cl + 3) & ~(size_t)3;
	}
	return SCTP_LL_PASS;
}

static void att_ctl(struct victim *w, uint16_t sid, uint16_t ssn, uint16_t code)
{
	uint8_t b[4] = {(uint8_t)(ssn >> 8), (uint8_t)ssn, (uint8_t)(code >> 8), (uint8_t)code};
	att_send(w, sid, SCTP_PPID_CTL, b, sizeof b);
}

static unsigned count_lines(const char *log, const char *needle)
{
	unsigned n = 0;
	for (const char *p = log; (p = strstr(p, needle)) != NULL; p++)
		n++;
	return n;
}

static void step_for(struct victim *w, long ms)
{
	long end = now_ms() + ms;
	while (now_ms() < end)
		step(w, 5);
}

/* Wait until the victim has counted n control chunks. */
static void wait_ctl(struct victim *w, uint64_t n)
{
	ddp_sctp_stats st;
	long end = now_ms() + 10000;
	do {
		step(w, 5);
		ddp_sctp_get_stats(w->a, &st);
	} while (st.rx_ctl < n && now_ms() < end);
	assert_int_equal(st.rx_ctl, n);
}

/* Unsolicited Accept / Reject / Terminate and
 * malformed session control on idle streams were dropped without a trace.
 * Each is logged with the peer address and stream, the first 8 per
 * association only, and the total comes when the association goes; every
 * line goes through the context's rate limit (src/log_limit.h: 3 lines of
 * a kind a second, then one line with the count). */
static void test_hostile_sctp_control_plane_logged_rate_limited(void **state)
{
	(void)state;
	alarm(60);
	struct victim w;
	victim_init(&w, 4);
	att_connect(&w);
	char peer[64];
	snprintf(peer, sizeof peer, "peer 127.0.0.1:%d ", sctp_ll_ep_port(w.aep));
	att_ctl(&w, 10, 0, SCTP_CTL_ACCEPT); /* RFC 5043 §6: no Initiate sent */
	att_ctl(&w, 11, 0, SCTP_CTL_REJECT);
	att_ctl(&w, 12, 3, SCTP_CTL_TERMINATE);
	att_ctl(&w, 13, 0, 0x0042); /* no such code (RFC 5043 §5.2.3) */
	wait_ctl(&w, 4);
	char want[160];
	snprintf(want, sizeof want, "%sstream 10: unsolicited Accept ignored (stream idle)", peer);
	assert_non_null(strstr(w.log, want));
	snprintf(want, sizeof want, "%sstream 11: unsolicited Reject ignored (stream idle)", peer);
	assert_non_null(strstr(w.log, want));
	snprintf(want, sizeof want, "%sstream 12: unsolicited Terminate ignored (stream idle)",
	         peer);
	assert_non_null(strstr(w.log, want));
	assert_int_equal(w.nlog, 3); /* the fourth of the second is counted */
	step_for(&w, 1100);
	att_ctl(&w, 13, 1, 0x0042);
	for (int i = 0; i < 199; i++) /* a flood */
		att_ctl(&w, 14, (uint16_t)i, SCTP_CTL_TERMINATE);
	wait_ctl(&w, 204);
	/* a new second: the count of the last one, then three lines */
	assert_non_null(strstr(w.log, "control-plane anomaly: 1 more like this suppressed"));
	snprintf(want, sizeof want, "%sstream 13: malformed session control message", peer);
	assert_non_null(strstr(w.log, want));
	/* rate limit: 6 lines and 1 count for 204 anomalies */
	assert_int_equal(count_lines(w.log, "ddp-sctp: peer"), 6);
	assert_int_equal(w.nlog, 7);
	assert_int_equal(w.nctl_bad, 0); /* nothing reached the ULP */
	step_for(&w, 1100);
	att_disconnect(&w);
	assert_non_null(strstr(w.log, ": 204 control-plane anomalies in all, 196 not logged"));
	assert_int_equal(w.nlog, 9); /* the count of the flood's second, the total */
	victim_fini(&w);
	alarm(0);
}

/* RFC 5043 §5.1: DDP chunks are sent unordered (U=1). A chunk with U=0 is
 * accepted (order comes from the DDP-SSN, never from SCTP) and logged: here
 * the Initiate of stream 20 arrives ordered and its session still opens. */
static void test_hostile_sctp_ordered_chunk_accepted_and_logged(void **state)
{
	(void)state;
	alarm(60);
	struct victim w;
	victim_init(&w, 5);
	sctp_ll_set_filter(sctp_ddp_ep_ll(w.ep), flip_filter, &w);
	att_connect(&w);
	w.flip_ppid = SCTP_PPID_CTL;
	w.flip_sid = 20;
	att_initiate(&w, 20);
	long end = now_ms() + 5000;
	while (!w.accepted[20] && now_ms() < end)
		step(&w, 5);
	assert_int_equal(w.flipped, 1);
	assert_true(w.accepted[20]);
	char want[160];
	snprintf(want, sizeof want,
	         "peer 127.0.0.1:%d stream 20: ordered (U=0) session control chunk accepted",
	         sctp_ll_ep_port(w.aep));
	assert_non_null(strstr(w.log, want));
	assert_int_equal(w.nerr[20], 0);
	att_disconnect(&w);
	victim_fini(&w);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hostile_sctp_valid_segments_land),
	    cmocka_unit_test(test_hostile_sctp_table_exact_codes_no_placement),
	    cmocka_unit_test(test_hostile_sctp_random_segments_never_fault),
	    cmocka_unit_test(test_hostile_sctp_control_plane_logged_rate_limited),
	    cmocka_unit_test(test_hostile_sctp_ordered_chunk_accepted_and_logged),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
