/* ddp-soak, SCTP invalid-segment flood ("sctpgarbage").
 *
 * Victim: a DDP/SCTP listener of its own (ddp_sctp_ep on 127.0.0.1, VNST
 * streams) whose ULP accepts (3 of 4) or rejects every Initiate, posts two
 * untagged buffers on QN 0 and one on QN 1 for each accepted stream
 * session, closes a stream when the peer half-closes it, and only counts
 * what the core reports (errors, deliveries). One tagged target (one STag,
 * PD binding) is registered for the whole run so that hostile tagged
 * segments name a real STag.
 *
 * Attacker: a bare sctp_ll endpoint that sends the DDP Adaptation Layer
 * Indication (RFC 5043 §11.1), so the victim accepts its associations, and
 * keeps ATT_LIVE of them open for the whole soak. Once one is up it sends
 * on every stream one scenario picked at random (see enum kind): oversize,
 * garbage or truncated control messages (RFC 5043 §5.2.3), unknown
 * function codes, DDP segments before any session, valid Initiates
 * followed by hostile DDP segments (bad STag, out of bounds, bad QN / MSN /
 * MO, bad DDP version, short), DDP-SSNs far outside the receive window,
 * and early segments whose predecessors never come ("pin a reorder ring"),
 * sometimes followed by a Terminate. One association in four ends its
 * script with a wrong PPID (RFC 5043 §5.1: the victim aborts it). After at
 * most LINGER_MS it closes the association (SHUTDOWN or ABORT at random)
 * and opens a new one.
 *
 * Pass: RSS stays flat (soak_main.c's rule), so the victim's sessions,
 * stream states and parked segments all go away; every attacker
 * association ends and the victim never holds more than twice as many as
 * the attacker keeps open (sctpf_stuck == 0); the listener reported errors
 * (sctpf_errors > 0); the context is empty at the end (ddp_pd_free /
 * ddp_ctx_free in soak_main.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#if HAVE_USRSCTP
#include <ddp/sctp.h>

#include "sctp/sctp_ctl.h"
#include "sctp/sctp_ssn.h"
#include "sctp/sctp_stream.h"
#include "soak_sctp_setup.h"
#endif

#include "soak.h"

#if HAVE_USRSCTP

#define VNST       32    /* streams per association */
#define ATT_LIVE   4     /* attacker associations open at a time */
#define LINGER_MS  250   /* at most, after the script, before the close */
#define CONNECT_S  5.0   /* an association that never comes up */
#define CLOSE_S    10.0  /* an association that never goes down: stuck */
#define UBUF_LEN   1024  /* victim untagged buffers */
#define TLEN       4096  /* victim tagged target */
#define TBASE      0x10000ull
#define MAX_PAY    256
#define MSG_CAP    (SCTP_SSN_LEN + 18 + TLEN + 64)

/* What one stream gets (RFC 5043 / RFC 5041 section in the comment). */
enum kind {
	K_INIT_OVERSIZE,  /* §5.2.3: Initiate with 513.. octets of PD */
	K_INIT_GARBAGE,   /* §5.2.3: Initiate, random PD; ULP accepts/rejects */
	K_ENH_NO_IRDORD,  /* RFC 6581 §7: Enhanced Initiate without IRD/ORD */
	K_UNKNOWN_CODE,   /* §5.2.3: function code 0 or > 7 */
	K_SHORT_CTL,      /* §5.2.3: control message < 4 octets */
	K_TERM_PD,        /* §5.2.3: Terminate with private data */
	K_DATA_NO_SESS,   /* §6.2: DDP segment before any Initiate */
	K_HOSTILE,        /* Initiate, a valid message, a hostile segment */
	K_SSN_FAR,        /* §10: DDP-SSN outside the SCTP_RX_WIN window */
	K_PIN,            /* early segments whose predecessors never come */
	K_PIN_TERM,       /* the same, then the attacker's Terminate */
	K_TERM_THEN_DATA, /* Initiate, Terminate, then segments */
	K_N
};

static const char *const kind_name[K_N] = {
    "init-oversize", "init-garbage", "enh-no-irdord", "unknown-code", "short-ctl",
    "term-with-pd",  "data-no-sess", "hostile-seg",   "ssn-far",     "pin-ring",
    "pin-term",      "term-then-data"};

/* hostile DDP segments after a valid Initiate (RFC 5041 §7.2 errors) */
enum hkind { H_BAD_STAG, H_TO_BOUNDS, H_TO_WRAP, H_BAD_QN, H_BAD_MSN, H_MO_BOUNDS, H_DV, H_SHORT, H_N };

/* ------------------------------------------------------------- victim */

static ddp_ctx *ctx;
static ddp_pd *pd;
static ddp_sctp_ep *vep;
static int vport;
static uint32_t vstag;
static int have_vstag;
static uint8_t vtag[TLEN];
static uint8_t vscratch[3][UBUF_LEN]; /* contents never checked */
static long vlive, vpost_fail, vrejects;
static uint64_t vrx_dropped, vrx_ctl;
static int stopping;

static void v_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	if (d->stream >= VNST)
		SOAK_BAD();
	else if (d->status == 0)
		soak_st->sctpf_delivered++;
}

static void v_send_done(ddp_session *s, uint32_t st, void *mctx, int status, void *user)
{
	SOAK_BAD(); /* the victim never sends */
}

static void v_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	soak_st->sctpf_errors++;
}

/* a stream event on a stream the association does not have */
static void v_stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event ev, int status,
                           void *user)
{
	if (st >= VNST)
		SOAK_BAD();
	else
		soak_sctp_half_closed(s, st, ev, status, user);
}

static void v_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	if (status == 0) {
		vlive++;
		return;
	}
	if (!stopping) {
		ddp_sctp_stats st;
		ddp_sctp_get_stats(a, &st);
		vrx_dropped += st.rx_dropped;
		vrx_ctl += st.rx_ctl;
	}
	vlive--;
	soak_st->sctpf_vdown++;
}

static void v_ctl(ddp_sctp_assoc *a, uint32_t st, enum ddp_sctp_event ev, int status,
                  const void *p, size_t len, void *user)
{
	if (st >= VNST || len > DDP_SCTP_MAX_PRIV) {
		SOAK_BAD();
		return;
	}
	if (ev != DDP_SCTP_INITIATE)
		return; /* CANCELLED: the peer gave up (or broke the protocol) */
	soak_st->sctpf_vinitiates++;
	if (soak_rand() % 4 == 0) {
		vrejects++;
		if (ddp_sctp_reject(a, st, "no", 2) != 0)
			SOAK_BAD();
		return;
	}
	ddp_session *s = ddp_sctp_session(a);
	if (ddp_post_recv(s, st, 0, vscratch[0], UBUF_LEN, NULL) ||
	    ddp_post_recv(s, st, 0, vscratch[1], UBUF_LEN, NULL) ||
	    ddp_post_recv(s, st, 1, vscratch[2], UBUF_LEN, NULL))
		vpost_fail++;
	if (ddp_sctp_accept(a, st, NULL, 0) != 0)
		SOAK_BAD();
}

static int victim_start(struct event_base *base)
{
	ddp_sctp_config c;
	ddp_mr_attr mr = {.addr = vtag,
	                  .len = TLEN,
	                  .to_base = TBASE,
	                  .access = DDP_ACCESS_REMOTE_WRITE,
	                  .pd = pd};
	int rc = ddp_stag_register(ctx, &mr, &vstag);
	if (rc)
		return rc;
	have_vstag = 1;
	soak_sctp_vconfig(&c, ctx, pd, VNST);
	c.ddp.deliver = v_deliver;
	c.ddp.send_done = v_send_done;
	c.ddp.error = v_error;
	c.ddp.stream_event = v_stream_event;
	c.sctp.assoc = v_assoc;
	c.sctp.session_ctl = v_ctl;
	soak_sh->sctpf_stag = vstag;
	return soak_sctp_vlisten(base, &c, SP_SCTPGARBAGE, &vep);
}

/* ----------------------------------------------------------- attacker */

enum astate { A_FREE, A_CONNECTING, A_UP, A_LINGER, A_CLOSING, A_DOWN };

struct att {
	sctp_ll_assoc *a;
	enum astate state;
	double t; /* when the current state began */
	double linger;
	uint16_t ssn[VNST]; /* next DDP-SSN per stream */
};

static sctp_ll_ep *aep;
static struct att atts[ATT_LIVE];
static long kind_sent[K_N], hkind_sent[H_N], wrong_ppid;
static long send_again, send_closed, send_other;
static uint8_t msg[MSG_CAP];

static void att_event(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct att *t = user;
	switch (ev) {
	case SCTP_LL_EV_UP:
		if (t->state == A_CONNECTING) {
			t->state = A_UP;
			t->t = soak_now();
		}
		break;
	case SCTP_LL_EV_READABLE:
		soak_sctp_drain(a);
		break;
	case SCTP_LL_EV_DOWN:
		t->state = A_DOWN;
		break;
	default:
		break;
	}
}

static const sctp_ll_assoc_cb att_cb = {att_event};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

static void fill_rand(uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)soak_rand();
}

static void xsend(struct att *t, uint16_t sid, uint32_t ppid, const uint8_t *m, size_t n)
{
	int rc = sctp_ll_send(t->a, sid, ppid, m, n);
	if (rc == 0)
		soak_st->sctpf_msgs++;
	else if (rc == DDP_ERR_AGAIN)
		send_again++; /* no room: dropped, the flood goes on */
	else if (rc == DDP_ERR_CLOSED)
		send_closed++; /* the victim already ended it */
	else
		send_other++;
}

/* PPID 17: DDP-SSN | code | pd (raw: any code, any length) */
static void send_ctl(struct att *t, uint16_t sid, uint16_t ssn, uint16_t code, size_t pdlen)
{
	size_t n = SCTP_CTL_HDR_LEN + pdlen;
	if (n > MSG_CAP)
		n = MSG_CAP;
	put16(msg, ssn);
	put16(msg + 2, code);
	fill_rand(msg + SCTP_CTL_HDR_LEN, n - SCTP_CTL_HDR_LEN);
	xsend(t, sid, SCTP_PPID_CTL, msg, n);
}

/* RFC 5043 §5.2.3: a well formed Initiate, DDP-SSN 0 */
static void send_initiate(struct att *t, uint16_t sid)
{
	send_ctl(t, sid, 0, SCTP_CTL_INITIATE, soak_rand() % 16);
	t->ssn[sid] = 1;
}

/* RFC 5041 §4.2 tagged header after the DDP-SSN; payload random */
static size_t seg_tagged(uint16_t ssn, uint8_t ctrl, uint32_t stag, uint64_t to, size_t plen)
{
	put16(msg, ssn);
	msg[2] = ctrl;
	msg[3] = 0;
	put32(msg + 4, stag);
	put64(msg + 8, to);
	fill_rand(msg + 16, plen);
	return 16 + plen;
}

/* RFC 5041 §4.3 untagged header after the DDP-SSN; payload random */
static size_t seg_untagged(uint16_t ssn, uint8_t ctrl, uint32_t qn, uint32_t msn, uint32_t mo,
                           size_t plen)
{
	put16(msg, ssn);
	msg[2] = ctrl;
	memset(msg + 3, 0, 5);
	put32(msg + 8, qn);
	put32(msg + 12, msn);
	put32(msg + 16, mo);
	fill_rand(msg + 20, plen);
	return 20 + plen;
}

#define C_T  0x80
#define C_L  0x40
#define C_DV 0x01

/* a valid untagged message on QN 0 (MSN 1: the first posted buffer) */
static void send_valid(struct att *t, uint16_t sid, uint16_t ssn)
{
	size_t n = seg_untagged(ssn, C_L | C_DV, 0, 1, 0, 1 + soak_rand() % MAX_PAY);
	xsend(t, sid, SCTP_PPID_DDP, msg, n);
}

static void send_hostile(struct att *t, uint16_t sid)
{
	uint16_t ssn = t->ssn[sid]++;
	enum hkind h = (enum hkind)(soak_rand() % H_N);
	size_t n;
	hkind_sent[h]++;
	switch (h) {
	case H_BAD_STAG: /* RFC 5041 §7.2 EType 1 code 0: invalid STag */
		n = seg_tagged(ssn, C_T | C_L | C_DV, vstag ^ (1 + soak_rand() % 0xff), TBASE, 64);
		break;
	case H_TO_BOUNDS: /* EType 1 code 1: base or bounds violation */
		n = seg_tagged(ssn, C_T | C_L | C_DV, vstag, TBASE + TLEN - 16, 64 + soak_rand() % 128);
		break;
	case H_TO_WRAP:
		n = seg_tagged(ssn, C_T | C_L | C_DV, vstag, ~0ull - 8, 64);
		break;
	case H_BAD_QN: /* EType 2 code 1 */
		n = seg_untagged(ssn, C_L | C_DV, 3 + soak_rand() % 1000, 1, 0, 32);
		break;
	case H_BAD_MSN: /* EType 2 code 2/3 */
		n = seg_untagged(ssn, C_L | C_DV, 0, 2 + soak_rand() % 100000, 0, 32);
		break;
	case H_MO_BOUNDS: /* EType 2 code 5 (MO + length > buffer) */
		n = seg_untagged(ssn, C_L | C_DV, 0, 1, UBUF_LEN - 8, 64);
		break;
	case H_DV: /* EType 0/2 code 6: bad DDP version */
		n = seg_untagged(ssn, C_L | (uint8_t)(2 + soak_rand() % 2), 0, 1, 0, 32);
		break;
	default: /* shorter than the header its T bit announces */
		seg_untagged(ssn, C_L | C_DV, 0, 1, 0, 0);
		n = SCTP_SSN_LEN + 1 + soak_rand() % 12;
		break;
	}
	xsend(t, sid, SCTP_PPID_DDP, msg, n);
}

/* early segments: DDP-SSN 2.. while 1 never comes (RFC 5043 §10 window) */
static void send_pin(struct att *t, uint16_t sid)
{
	int k = 1 + (int)(soak_rand() % 4);
	for (int i = 0; i < k; i++)
		send_valid(t, sid, (uint16_t)(2 + soak_rand() % 1000));
}

static void run_stream(struct att *t, uint16_t sid)
{
	enum kind k = (enum kind)(soak_rand() % K_N);
	size_t n;
	kind_sent[k]++;
	t->ssn[sid] = 0;
	switch (k) {
	case K_INIT_OVERSIZE:
		send_ctl(t, sid, 0, SCTP_CTL_INITIATE, SCTP_CTL_MAX_PD + 1 + soak_rand() % 600);
		break;
	case K_INIT_GARBAGE:
		send_ctl(t, sid, (uint16_t)soak_rand(), SCTP_CTL_INITIATE,
		         soak_rand() % (SCTP_CTL_MAX_PD + 1));
		break;
	case K_ENH_NO_IRDORD:
		send_ctl(t, sid, 0, SCTP_CTL_ENH_INITIATE, soak_rand() % SCTP_CTL_IRD_ORD_LEN);
		break;
	case K_UNKNOWN_CODE: {
		uint16_t code = soak_rand() % 2 ? 0 : (uint16_t)(8 + soak_rand() % 0xfff0);
		send_ctl(t, sid, 0, code, soak_rand() % 64);
		break;
	}
	case K_SHORT_CTL:
		n = 1 + soak_rand() % (SCTP_CTL_HDR_LEN - 1); /* SCTP: no empty message */
		fill_rand(msg, n);
		xsend(t, sid, SCTP_PPID_CTL, msg, n);
		break;
	case K_TERM_PD:
		send_initiate(t, sid);
		send_ctl(t, sid, 1, SCTP_CTL_TERMINATE, 1 + soak_rand() % 32);
		break;
	case K_DATA_NO_SESS:
		send_valid(t, sid, (uint16_t)soak_rand());
		break;
	case K_HOSTILE:
		send_initiate(t, sid);
		send_valid(t, sid, t->ssn[sid]++);
		send_hostile(t, sid);
		break;
	case K_SSN_FAR:
		send_initiate(t, sid);
		/* ahead of the window, or (serial arithmetic) far behind it */
		send_valid(t, sid,
		           (uint16_t)(1 + SCTP_RX_WIN + soak_rand() % (65536 - SCTP_RX_WIN - 1)));
		break;
	case K_PIN:
		send_initiate(t, sid);
		send_pin(t, sid);
		break;
	case K_PIN_TERM:
		send_initiate(t, sid);
		send_pin(t, sid);
		send_ctl(t, sid, (uint16_t)(1 + soak_rand() % 8), SCTP_CTL_TERMINATE, 0);
		break;
	default: /* K_TERM_THEN_DATA */
		send_initiate(t, sid);
		send_ctl(t, sid, 1, SCTP_CTL_TERMINATE, 0);
		send_valid(t, sid, 1);
		send_valid(t, sid, 2);
		break;
	}
}

static void att_run(struct att *t)
{
	uint16_t nst = sctp_ll_nstreams(t->a);
	if (nst > VNST)
		nst = VNST;
	soak_st->sctpf_assocs++;
	for (uint16_t sid = 0; sid < nst; sid++)
		run_stream(t, sid);
	/* RFC 5043 §5.1: PPID other than 16 / 17 ends the whole association
	 * (the victim aborts it), so only 1 in 4, and last */
	if (nst && soak_rand() % 4 == 0) {
		static const uint32_t bad_ppid[] = {0, 1, 15, 18, 46, 0xffffffffu};
		uint16_t sid = (uint16_t)(soak_rand() % nst);
		size_t n = seg_untagged(t->ssn[sid], C_L | C_DV, 0, 1, 0, soak_rand() % MAX_PAY);
		xsend(t, sid, bad_ppid[soak_rand() % 6], msg, n);
		wrong_ppid++;
	}
	t->state = A_LINGER;
	t->t = soak_now();
	t->linger = (double)(soak_rand() % LINGER_MS) / 1000.0;
}

static void att_tick(struct att *t, double now)
{
	switch (t->state) {
	case A_FREE:
		if (stopping)
			break;
		if (sctp_ll_connect(aep, "127.0.0.1", vport, &att_cb, t, &t->a) != 0) {
			soak_st->sctpf_connfail++;
			break;
		}
		t->state = A_CONNECTING;
		t->t = now;
		break;
	case A_CONNECTING:
		if (now - t->t > CONNECT_S) {
			soak_st->sctpf_connfail++;
			sctp_ll_free(t->a);
			t->state = A_FREE;
		}
		break;
	case A_UP:
		att_run(t);
		break;
	case A_LINGER:
		if (now - t->t >= t->linger) {
			sctp_ll_close(t->a, (int)(soak_rand() % 2));
			t->state = A_CLOSING;
			t->t = now;
		}
		break;
	case A_CLOSING:
		if (now - t->t > CLOSE_S) {
			soak_st->sctpf_stuck++;
			sctp_ll_free(t->a);
			t->state = A_FREE;
		}
		break;
	case A_DOWN:
		sctp_ll_free(t->a);
		t->a = NULL;
		t->state = A_FREE;
		break;
	}
}

int soak_sctp_flood_start(struct event_base *base, ddp_ctx *c, ddp_pd *p)
{
	int rc;
	if (!(soak_loads & SOAK_SCTPGARBAGE))
		return 0;
	ctx = c;
	pd = p;
	if (soak_victim && (rc = victim_start(base)))
		return rc;
	if (!soak_attacker)
		return 0;
	vport = soak_sh->port[SP_SCTPGARBAGE];
	vstag = soak_sh->sctpf_stag;
	return soak_sctp_att_ep(base, VNST, 0, &aep);
}

void soak_sctp_flood_tick(void)
{
	double now = soak_now();
	if (!(soak_loads & SOAK_SCTPGARBAGE))
		return;
	if (soak_victim) {
		soak_st->sctpf_vlive = vlive;
		/* the victim holds associations the attacker already ended:
		 * they are "stuck" too (a few ticks of lag are normal, hence 2x) */
		if (vlive > 2 * ATT_LIVE && !stopping)
			soak_st->sctpf_stuck++;
	}
	for (int i = 0; i < ATT_LIVE && soak_attacker; i++)
		att_tick(&atts[i], now);
}

void soak_sctp_flood_stop(void)
{
	if (!(soak_loads & SOAK_SCTPGARBAGE))
		return;
	stopping = 1;
	if (soak_victim)
		printf("sctpgarbage: %ld associations, %ld messages sent, %ld connect failures; "
		       "victim: %ld Initiates (%ld rejected, %ld posts refused), %ld errors "
		       "reported, %ld deliveries, %ld associations ended, %llu chunks dropped, "
		       "%llu control messages\n",
		       soak_st->sctpf_assocs, soak_st->sctpf_msgs, soak_st->sctpf_connfail,
		       soak_st->sctpf_vinitiates, vrejects, vpost_fail, soak_st->sctpf_errors,
		       soak_st->sctpf_delivered, soak_st->sctpf_vdown,
		       (unsigned long long)vrx_dropped, (unsigned long long)vrx_ctl);
	if (soak_attacker) {
		printf("sctpgarbage (attacker): %ld ended by a wrong PPID; not sent: %ld no "
		       "room, %ld closed, %ld other; per stream:",
		       wrong_ppid, send_again, send_closed, send_other);
		for (int k = 0; k < K_N; k++)
			printf(" %s %ld", kind_name[k], kind_sent[k]);
		printf("; hostile segments:");
		for (int h = 0; h < H_N; h++)
			printf(" %ld", hkind_sent[h]);
		printf("\n");
	}
	/* frees every association (ABORT) and its session */
	sctp_ll_ep_free(aep);
	aep = NULL;
	ddp_sctp_ep_free(vep);
	vep = NULL;
	if (have_vstag && ddp_stag_invalidate(ctx, vstag) != 0)
		SOAK_BAD();
	have_vstag = 0;
}

#else /* !HAVE_USRSCTP */

int soak_sctp_flood_start(struct event_base *base, ddp_ctx *c, ddp_pd *p)
{
	soak_loads &= ~(unsigned)SOAK_SCTPGARBAGE; /* not built */
	return 0;
}

void soak_sctp_flood_tick(void)
{
}

void soak_sctp_flood_stop(void)
{
}
#endif
