/*
 * Fair share of the context's out-of-order budget
 * (docs/fairness.md): five hostile SCTP associations each open 64 DDP
 * Stream Sessions and send one segment DDP-SSN 4000 ahead on every stream
 * (RFC 5043 §5.2.1: each one holds a reorder ring of the victim, ~224 KiB,
 * 320 rings wanted of the 292 that fit the default 64 MiB); then one
 * legitimate association sends two segments out of order (DDP-SSN 2 before
 * DDP-SSN 1, RFC 5041 §5.3 DDP-ORD-1: placed in any order, delivered in
 * order). The legitimate peer must get both messages, in order, without
 * an error; the hostile ones get RFC 5041 §7.2 Local Catastrophic (layer
 * DDP, error type 0, code 0x00) on their own streams, and every refusal is
 * logged (RFC 5041 §8 DDP-SEC-12: fair share, over-consumption detected).
 * Before the fix the legitimate peer got (0, 0x00) and nothing
 * else.
 *
 * Real parts: the victim is a ddp_sctp_ep listener (usrsctp over UDP on
 * 127.0.0.1, libevent); each peer is a bare sctp_ll endpoint that sends
 * the DDP Adaptation Layer Indication (RFC 5043 §11.1), Initiates (PPID
 * 17) and DDP Segment Chunks (PPID 16). Bounded by alarm(60).
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

#include "ddpwire.h"
#include "sctp/sctp_ctl.h"
#include "sctp/usrsctp/sctp_ll.h"
#include "sctp/sctp_ssn.h"

#define NSTREAMS   64
#define NHOSTILE   5
#define NPEERS     (NHOSTILE + 1)
#define LEGIT      NHOSTILE
#define AHEAD      4000 /* DDP-SSN of every hostile segment (window 4096) */
#define BUFLEN     64
#define RING_BYTES (4096ull * 56) /* SCTP reorder window x slot, ~224 KiB */

struct peer {
	sctp_ll_ep *ep;
	sctp_ll_assoc *a;
	int up, down;
	uint16_t ssn[NSTREAMS];
	/* victim side of this peer's association */
	ddp_session *s;
	int accepted[NSTREAMS];
	int nerr[NSTREAMS];
	ddp_error_info err[NSTREAMS];
	unsigned ndlv[NSTREAMS];
	uint32_t dlv_msn[NSTREAMS][4];
};

struct world {
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_sctp_ep *ep;
	int port;
	int connecting; /* index of the peer whose association comes up */
	struct peer p[NPEERS];
	long budget_logs, budget_counted; /* lines, and counts of lines left out */
	uint8_t buf[NPEERS][NSTREAMS][2][BUFLEN];
};

static struct world W;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void step(long ms)
{
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
	event_base_loopexit(W.base, &tv);
	event_base_dispatch(W.base);
}

static struct peer *peer_of(ddp_session *s, int *idx)
{
	for (int i = 0; i < NPEERS; i++)
		if (W.p[i].s == s) {
			if (idx)
				*idx = i;
			return &W.p[i];
		}
	return NULL;
}

/* ---------------------------------------------------------- victim */

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	(void)user;
	const char *c = strstr(msg, " more like this suppressed");
	if (level != DDP_LOG_WARN || !strstr(msg, "reorder budget"))
		return;
	if (!c) {
		W.budget_logs++;
		return;
	}
	while (c > msg && c[-1] >= '0' && c[-1] <= '9') /* src/log_limit.h */
		c--;
	W.budget_counted += strtol(c, NULL, 10);
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)user;
	struct peer *p = peer_of(s, NULL);
	if (!p || d->status != 0 || d->stream >= NSTREAMS)
		return;
	if (p->ndlv[d->stream] < 4)
		p->dlv_msn[d->stream][p->ndlv[d->stream]] = d->msn;
	p->ndlv[d->stream]++;
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	(void)user;
	struct peer *p = peer_of(s, NULL);
	if (!p || e->stream >= NSTREAMS)
		return;
	if (p->nerr[e->stream]++ == 0)
		p->err[e->stream] = *e;
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	(void)a;
	(void)user;
	if (status == 0)
		W.p[W.connecting].s = s;
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                   const void *pd, size_t pd_len, void *user)
{
	(void)status;
	(void)pd;
	(void)pd_len;
	(void)user;
	int i;
	ddp_session *s = ddp_sctp_session(a);
	struct peer *p = peer_of(s, &i);
	if (ev != DDP_SCTP_INITIATE || !p || stream >= NSTREAMS)
		return;
	for (int b = 0; b < 2; b++)
		assert_int_equal(ddp_post_recv(s, stream, 0, W.buf[i][stream][b], BUFLEN, NULL), 0);
	assert_int_equal(ddp_sctp_accept(a, stream, NULL, 0), 0);
	p->accepted[stream] = 1;
}

/* ---------------------------------------------------------- peers */

static void on_peer(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct peer *p = user;
	static uint8_t sink[70000];
	sctp_ll_rinfo ri;
	(void)status;
	switch (ev) {
	case SCTP_LL_EV_UP:
		p->up = 1;
		break;
	case SCTP_LL_EV_DOWN:
		p->down = 1;
		break;
	case SCTP_LL_EV_READABLE: /* Accepts, Terminates: read and ignored */
		while (sctp_ll_recv(a, sink, sizeof sink, &ri) >= 0)
			;
		break;
	default:
		break;
	}
}

static const sctp_ll_assoc_cb peer_cb = {on_peer};

static void peer_send(struct peer *p, uint16_t sid, uint32_t ppid, const void *m, size_t n)
{
	long end = now_ms() + 5000;
	int rc;
	while ((rc = sctp_ll_send(p->a, sid, ppid, m, n)) == DDP_ERR_AGAIN && now_ms() < end)
		step(5);
	assert_int_equal(rc, 0);
}

static void peer_connect(int i)
{
	struct peer *p = &W.p[i];
	sctp_ll_config ac;
	memset(&ac, 0, sizeof(ac));
	ac.port = -1;
	ac.nstreams = NSTREAMS;
	ac.adaptation = SCTP_ADAPTATION_DDP; /* RFC 5043 §11.1 */
	ac.require_adaptation = 1;
	assert_int_equal(sctp_ll_ep_new(W.base, &ac, &p->ep), 0);
	W.connecting = i;
	assert_int_equal(sctp_ll_connect(p->ep, "127.0.0.1", W.port, &peer_cb, p, &p->a), 0);
	long end = now_ms() + 5000;
	while (!(p->up && p->s) && !p->down && now_ms() < end)
		step(5);
	assert_true(p->up);
	assert_non_null(p->s);
}

/* RFC 5043 §5.2.3: Initiate with DDP-SSN 0 on streams 0..n-1. */
static void peer_open(struct peer *p, uint16_t n)
{
	for (uint16_t sid = 0; sid < n; sid++) {
		struct sctp_ctl_msg m;
		memset(&m, 0, sizeof(m));
		m.code = SCTP_CTL_INITIATE;
		uint8_t b[SCTP_CTL_MAX_LEN];
		size_t len = 0;
		assert_int_equal(sctp_ctl_encode(b, sizeof b, &m, &len), 0);
		peer_send(p, sid, SCTP_PPID_CTL, b, len);
	}
	long end = now_ms() + 10000;
	for (uint16_t sid = 0; sid < n; sid++)
		while (!p->accepted[sid] && now_ms() < end)
			step(5);
	for (uint16_t sid = 0; sid < n; sid++)
		assert_true(p->accepted[sid]);
}

/* RFC 5043 §5.2.1: DDP-SSN + an untagged segment (QN 0, msn, L=1). */
static void peer_segment(struct peer *p, uint16_t sid, uint16_t ssn, uint32_t msn)
{
	uint8_t m[SCTP_SSN_LEN + DDP_UNTAGGED_HDR_LEN + 16];
	uint8_t pay[16];
	memset(pay, (int)msn, sizeof pay);
	sctp_ssn_put(m, ssn);
	size_t n = tw_untagged(m + SCTP_SSN_LEN, 1, 1, 0, 0, msn, 0, pay, sizeof pay);
	peer_send(p, sid, SCTP_PPID_DDP, m, SCTP_SSN_LEN + n);
}

static long total_errors(int from, int to)
{
	long n = 0;
	for (int i = from; i < to; i++)
		for (int s = 0; s < NSTREAMS; s++)
			n += W.p[i].nerr[s] != 0;
	return n;
}

/* ---------------------------------------------------------- test */

static void test_sctp_fair_budget_legit_reorders_beside_five_hostile(void **state)
{
	(void)state;
	alarm(60);
	memset(&W, 0, sizeof W);
	W.base = event_base_new();
	assert_non_null(W.base);
	/* the default budget: max_reorder_bytes 0 = 64 MiB */
	ddp_ctx_config cc = {.log = on_log};
	assert_int_equal(ddp_ctx_new(&cc, &W.ctx), 0);
	ddp_sctp_config vc;
	memset(&vc, 0, sizeof(vc));
	vc.port = -1;
	vc.nstreams = NSTREAMS;
	vc.ctx = W.ctx;
	vc.ddp.deliver = on_deliver;
	vc.ddp.error = on_error;
	vc.sctp.assoc = on_assoc;
	vc.sctp.session_ctl = on_ctl;
	assert_int_equal(ddp_sctp_ep_new(W.base, &vc, &W.ep), 0);
	assert_int_equal(ddp_sctp_listen(W.ep), 0);
	W.port = ddp_sctp_ep_port(W.ep);

	/* five hostile associations, every stream open */
	for (int i = 0; i < NHOSTILE; i++) {
		peer_connect(i);
		peer_open(&W.p[i], NSTREAMS);
	}
	/* all five pin at once: stream by stream, association by association,
	 * the victim's loop running between the rounds (else usrsctp hands it
	 * one association's segments after the other, and the first ones
	 * borrow what nobody else claims yet: tests/unit/test_ooo_budget.c) */
	for (uint16_t sid = 0; sid < NSTREAMS; sid++) {
		for (int i = 0; i < NHOSTILE; i++)
			peer_segment(&W.p[i], sid, AHEAD, 1);
		step(10);
	}
	/* until every hostile segment was processed: the error count stays
	 * the same for 1 s (usrsctp acknowledged everything long before) */
	long last = -1, since = now_ms(), end = now_ms() + 20000;
	while (now_ms() < end && now_ms() - since < 1000) {
		step(50);
		long e = total_errors(0, NHOSTILE);
		if (e != last) {
			last = e;
			since = now_ms();
		}
	}
	long held = (long)NHOSTILE * NSTREAMS - last;
	print_message("hostile: %d streams wanted a ring, %ld hold one (%.1f MiB pinned of 64 "
	              "MiB), %ld refused, %ld refusals logged\n",
	              NHOSTILE * NSTREAMS, held, held * (double)RING_BYTES / (1 << 20), last,
	              W.budget_logs);
	for (int i = 0; i < NHOSTILE; i++) {
		int n = 0;
		for (int s = 0; s < NSTREAMS; s++)
			n += W.p[i].nerr[s] != 0;
		print_message("  hostile %d: %d of %d streams refused\n", i, n, NSTREAMS);
	}

	/* the legitimate association: two segments out of order */
	struct peer *g = &W.p[LEGIT];
	peer_connect(LEGIT);
	peer_open(g, 1);
	long t0 = now_ms();
	peer_segment(g, 0, 2, 2); /* DDP-SSN 2 (MSN 2) first */
	peer_segment(g, 0, 1, 1); /* then DDP-SSN 1 (MSN 1) */
	end = now_ms() + 10000;
	while (g->ndlv[0] < 2 && !g->nerr[0] && now_ms() < end)
		step(5);
	print_message("legitimate: %u of 2 delivered, %d errors (etype %u code 0x%02x), %ld ms\n",
	              g->ndlv[0], g->nerr[0], g->nerr[0] ? g->err[0].etype : 0,
	              g->nerr[0] ? g->err[0].code : 0, now_ms() - t0);
	assert_int_equal(g->nerr[0], 0);
	assert_int_equal(g->ndlv[0], 2);
	assert_int_equal(g->dlv_msn[0][0], 1); /* DDP-DLV-1: in order */
	assert_int_equal(g->dlv_msn[0][1], 2);

	/* the hostile ones wanted more than the budget: they, and only they,
	 * got RFC 5041 §7.2 Local Catastrophic on their own streams, each
	 * refusal logged; none held more than 64 MiB in all */
	assert_true(last > 0);
	assert_true(held * RING_BYTES <= 64ull << 20);
	assert_true(W.budget_logs >= 1 && W.budget_logs <= last); /* rate-limited */
	for (int i = 0; i < NHOSTILE; i++) {
		int n = 0;
		for (int s = 0; s < NSTREAMS; s++)
			n += W.p[i].nerr[s] != 0;
		assert_true(n > 0); /* each one was held to its share */
	}
	for (int i = 0; i < NHOSTILE; i++)
		for (int s = 0; s < NSTREAMS; s++)
			if (W.p[i].nerr[s]) {
				assert_int_equal(W.p[i].err[s].layer, DDP_LAYER_DDP);
				assert_int_equal(W.p[i].err[s].etype, 0);
				assert_int_equal(W.p[i].err[s].code, 0x00);
			}

	for (int i = 0; i < NPEERS; i++) {
		sctp_ll_ep_free(W.p[i].ep); /* aborts its association */
		W.p[i].ep = NULL;
	}
	end = now_ms() + 500;
	while (now_ms() < end)
		step(20);
	ddp_sctp_ep_free(W.ep);
	assert_int_equal(ddp_ctx_free(W.ctx), 0);
	/* the counts left come out with the context: every refusal is a
	 * line or in a count */
	assert_int_equal(W.budget_logs + W.budget_counted, last);
	event_base_free(W.base);
	alarm(0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sctp_fair_budget_legit_reorders_beside_five_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
