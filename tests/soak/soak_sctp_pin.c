/* ddp-soak, fair budgets and slots (docs/fairness.md):
 *
 * Victim: a DDP/SCTP listener of its own on the shared context (so the
 * reorder budget is the one every other load uses), PNST streams,
 * max_assocs PIN_CAP, idle_assoc_timeout_ms IDLE_MS; its ULP accepts every
 * Initiate and posts two untagged buffers on QN 0.
 *
 * "sctppin" (hostile): from a bare sctp_ll endpoint, PIN_LIVE associations
 * open every stream and send one segment DDP-SSN 4000 ahead on each (each
 * one pins a reorder ring, RFC 5043 §5.2.1), hold them PIN_HOLD_S and
 * start again; IDLE_LIVE associations never Initiate (the victim ends them
 * after IDLE_MS, or evicts them at the cap: 3 + 5 + 1 peers want its 8
 * slots) and reconnect REOPEN_S after their end.
 *
 * "reorder" (legitimate): one association opens a stream, sends two
 * segments out of order (DDP-SSN 2 before 1) and waits for both messages;
 * the next probe uses the next stream; after PNST probes it reconnects. A
 * probe that is not served within PROBE_S fails the soak
 * (sctpp_legit_fail); the rate of served probes is the legitimate rate
 * reported next to the MPA and SCTP churn rates.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#if HAVE_USRSCTP
#include <ddp/sctp.h>

#include "sctp/sctp_ctl.h"
#include "sctp/usrsctp/sctp_ll.h"
#include "sctp/sctp_ssn.h"

#include "ddpwire.h"
#include "soak_sctp_setup.h"
#endif

#include "soak.h"

#if HAVE_USRSCTP

#define PNST       32
#define PIN_CAP    8
#define IDLE_MS    1500
#define PIN_LIVE   3
#define IDLE_LIVE  5
#define REOPEN_S   1.0 /* an idle one reconnects this long after its end */
#define PIN_HOLD_S 3.0
#define PROBE_S    5.0
#define CONNECT_S  5.0
#define AHEAD      4000
#define BUFLEN     64
#define LEGIT_MARK 0x4C /* 'L': the first payload octet of a probe */

enum role { R_PIN, R_IDLE, R_LEGIT };
enum ast { A_FREE, A_CONNECTING, A_UP, A_DOWN };

struct att {
	enum role role;
	enum ast state;
	sctp_ll_assoc *a;
	double t_state;
	int pinned;
	/* legitimate probes */
	int probe_sid, probe_sent;
	double probe_t;
};

static ddp_ctx *ctx;
static ddp_sctp_ep *vep;
static sctp_ll_ep *aep;
static int vport, stopping, started;
static struct att atts[PIN_LIVE + IDLE_LIVE + 1];
static uint8_t lbuf[PIN_CAP * PNST * 2][BUFLEN];
static int lbuf_next;
static long legit_dlv; /* probe messages delivered (2 per probe) */

static int want_pin(void)
{
	return (soak_loads & SOAK_SCTPPIN) != 0;
}

static int want_probe(void)
{
	return (soak_loads & SOAK_REORDER) != 0;
}

/* ------------------------------------------------------------- victim */

static void v_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s;
	(void)user;
	if (d->status != 0)
		return;
	if (d->buf && d->len > 0 && ((const uint8_t *)d->buf)[0] == LEGIT_MARK)
		legit_dlv++;
	else
		SOAK_BAD(); /* a pinned segment was never completed */
}

static void v_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	(void)s;
	(void)user;
	if (e->layer == DDP_LAYER_DDP && e->etype == DDP_ETYPE_CATASTROPHIC)
		soak_st->sctpp_refused++; /* over its share of the budget */
}

static void v_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	(void)a;
	(void)s;
	(void)user;
	if (status == DDP_ERR_CLOSED && !stopping)
		soak_st->sctpp_ended++; /* our SHUTDOWN (idle) or the peer's */
}

static void v_ctl(ddp_sctp_assoc *a, uint32_t st, enum ddp_sctp_event ev, int status,
                  const void *p, size_t len, void *user)
{
	(void)status;
	(void)p;
	(void)len;
	(void)user;
	if (ev != DDP_SCTP_INITIATE)
		return;
	ddp_session *s = ddp_sctp_session(a);
	/* two buffers per stream session; the probes' are checked */
	for (int b = 0; b < 2; b++) {
		uint8_t *buf = lbuf[lbuf_next];
		lbuf_next = (lbuf_next + 1) % (int)(sizeof lbuf / sizeof lbuf[0]);
		memset(buf, 0, BUFLEN);
		if (ddp_post_recv(s, st, 0, buf, BUFLEN, NULL))
			SOAK_BAD();
	}
	if (ddp_sctp_accept(a, st, NULL, 0) != 0)
		SOAK_BAD();
}

static void v_log(void *user, enum ddp_log_level level, const char *msg)
{
	(void)user;
	(void)level;
	if (strstr(msg, "SCTP association") && strstr(msg, "timed out"))
		soak_st->sctpp_idle_reaped++;
	else if (strstr(msg, "SCTP association cap") && strstr(msg, "evicted"))
		soak_st->sctpp_evicted++;
}

/* ----------------------------------------------------------- attackers */

static void a_event(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct att *t = user;
	(void)status;
	switch (ev) {
	case SCTP_LL_EV_UP:
		t->state = A_UP;
		t->t_state = soak_now();
		break;
	case SCTP_LL_EV_DOWN:
		t->state = A_DOWN;
		break;
	case SCTP_LL_EV_READABLE:
		soak_sctp_drain(a);
		break;
	default:
		break;
	}
}

static const sctp_ll_assoc_cb a_cbs = {a_event};

static int a_send(struct att *t, uint16_t sid, uint32_t ppid, const void *m, size_t n)
{
	return sctp_ll_send(t->a, sid, ppid, m, n) == 0 ? 0 : -1;
}

static int a_initiate(struct att *t, uint16_t sid)
{
	struct sctp_ctl_msg m;
	uint8_t b[SCTP_CTL_MAX_LEN];
	size_t n = 0;
	memset(&m, 0, sizeof(m));
	m.code = SCTP_CTL_INITIATE; /* RFC 5043 §5.2.3, DDP-SSN 0 */
	if (sctp_ctl_encode(b, sizeof b, &m, &n))
		return -1;
	return a_send(t, sid, SCTP_PPID_CTL, b, n);
}

/* DDP-SSN + untagged segment (QN 0, msn, L=1), payload marked */
static int a_segment(struct att *t, uint16_t sid, uint16_t ssn, uint32_t msn, uint8_t mark)
{
	uint8_t m[SCTP_SSN_LEN + DDP_UNTAGGED_HDR_LEN + 8], pay[8];
	memset(pay, mark, sizeof pay);
	sctp_ssn_put(m, ssn);
	size_t n = tw_untagged(m + SCTP_SSN_LEN, 1, 1, 0, 0, msn, 0, pay, sizeof pay);
	return a_send(t, sid, SCTP_PPID_DDP, m, SCTP_SSN_LEN + n);
}

static void a_connect(struct att *t, double now)
{
	t->pinned = 0;
	t->probe_sid = t->probe_sent = 0;
	t->probe_t = 0;
	if (sctp_ll_connect(aep, "127.0.0.1", vport, &a_cbs, t, &t->a) == 0) {
		t->state = A_CONNECTING;
		t->t_state = now;
		if (t->role == R_PIN)
			soak_st->sctpp_pin_assocs++;
		else if (t->role == R_IDLE)
			soak_st->sctpp_idle_assocs++;
	}
}

static void probe_tick(struct att *t, double now)
{
	if (t->probe_sent) {
		if (legit_dlv >= 2) {
			legit_dlv -= 2;
			soak_st->sctpp_legit_ok++;
			t->probe_sent = 0;
			t->probe_sid++;
		} else if (now - t->probe_t > PROBE_S) {
			printf("reorder probe on stream %d not served in %.0f s\n", t->probe_sid,
			       PROBE_S);
			soak_st->sctpp_legit_fail++;
			t->probe_sent = 0;
			t->probe_sid = PNST; /* a new association */
		}
		return;
	}
	if (t->probe_sid >= PNST) {
		sctp_ll_close(t->a, 1);
		t->state = A_DOWN;
		return;
	}
	if (now - t->probe_t < 0.05)
		return; /* about 20 probes a second */
	uint16_t sid = (uint16_t)t->probe_sid;
	legit_dlv = 0;
	if (a_initiate(t, sid) || a_segment(t, sid, 2, 2, LEGIT_MARK) ||
	    a_segment(t, sid, 1, 1, LEGIT_MARK))
		return; /* no room: the association is busy; next tick */
	t->probe_sent = 1;
	t->probe_t = now;
}

static void att_tick(struct att *t, double now)
{
	switch (t->state) {
	case A_FREE:
		if (t->role != R_IDLE || now - t->t_state >= REOPEN_S)
			a_connect(t, now);
		break;
	case A_CONNECTING:
		if (now - t->t_state > CONNECT_S) {
			sctp_ll_close(t->a, 1);
			t->state = A_DOWN;
		}
		break;
	case A_UP:
		if (t->role == R_LEGIT) {
			probe_tick(t, now);
		} else if (t->role == R_PIN) {
			if (!t->pinned) {
				int ok = 1;
				for (uint16_t s = 0; s < PNST && ok; s++)
					ok = a_initiate(t, s) == 0;
				for (uint16_t s = 0; s < PNST && ok; s++)
					ok = a_segment(t, s, AHEAD, 1, 0x50) == 0;
				t->pinned = 1;
			} else if (now - t->t_state > PIN_HOLD_S) {
				sctp_ll_close(t->a, 1);
				t->state = A_DOWN;
			}
		}
		/* R_IDLE: nothing, until the victim ends it */
		break;
	case A_DOWN:
		sctp_ll_free(t->a);
		t->a = NULL;
		t->state = A_FREE;
		t->t_state = now;
		break;
	}
}

int soak_sctp_pin_start(struct event_base *base, ddp_ctx *c, ddp_pd *pd)
{
	if (!want_pin() && !want_probe())
		return 0;
	ctx = c;
	int rc;
	for (size_t k = 0; k < sizeof atts / sizeof atts[0]; k++)
		atts[k].state = A_DOWN + 1; /* unused */
	started = 1;
	if (soak_victim) {
		ddp_sctp_config vc;
		soak_sctp_vconfig(&vc, ctx, pd, PNST);
		vc.max_assocs = PIN_CAP;
		vc.idle_assoc_timeout_ms = IDLE_MS;
		vc.ddp.deliver = v_deliver;
		vc.ddp.error = v_error;
		vc.sctp.assoc = v_assoc;
		vc.sctp.session_ctl = v_ctl;
		if ((rc = soak_sctp_vlisten(base, &vc, SP_SCTPPIN, &vep)))
			return rc;
	}
	vport = soak_sh->port[SP_SCTPPIN];
	/* the pinning and idle peers are the attacker's, the probe the victim's */
	int pin = want_pin() && soak_attacker, probe = want_probe() && soak_victim;
	if (!pin && !probe)
		return 0;
	if ((rc = soak_sctp_att_ep(base, PNST, 0, &aep)))
		return rc;
	int n = 0;
	if (pin) {
		for (int i = 0; i < PIN_LIVE; i++)
			atts[n++].role = R_PIN;
		for (int i = 0; i < IDLE_LIVE; i++)
			atts[n++].role = R_IDLE;
	}
	if (probe)
		atts[n++].role = R_LEGIT;
	for (int k = 0; k < n; k++)
		atts[k].state = A_FREE;
	return 0;
}

void soak_sctp_pin_tick(void)
{
	if (!started || stopping)
		return;
	double now = soak_now();
	for (size_t i = 0; i < sizeof atts / sizeof atts[0]; i++)
		if (atts[i].state <= A_DOWN)
			att_tick(&atts[i], now);
}

void soak_sctp_pin_stop(void)
{
	if (!started)
		return;
	stopping = 1;
	if (soak_victim)
		printf("sctppin: %ld pinning + %ld idle associations opened; victim: %ld streams "
	       "refused a reorder ring (their share), %ld idle associations ended, %ld "
	       "evicted at the cap %d, %ld ended gracefully; reorder probes %ld served, %ld "
	       "failed\n",
	       soak_st->sctpp_pin_assocs, soak_st->sctpp_idle_assocs, soak_st->sctpp_refused,
	       soak_st->sctpp_idle_reaped, soak_st->sctpp_evicted, PIN_CAP, soak_st->sctpp_ended,
	       soak_st->sctpp_legit_ok, soak_st->sctpp_legit_fail);
	sctp_ll_ep_free(aep); /* ABORTs what is left */
	aep = NULL;
	ddp_sctp_ep_free(vep);
	vep = NULL;
}

/* The context's log hook sees every refusal/eviction/time-out. */
void soak_sctp_pin_log(void *user, enum ddp_log_level level, const char *msg)
{
	v_log(user, level, msg);
}

#else /* !HAVE_USRSCTP */

int soak_sctp_pin_start(struct event_base *base, ddp_ctx *c, ddp_pd *pd)
{
	soak_loads &= ~(unsigned)(SOAK_SCTPPIN | SOAK_REORDER); /* not built */
	return 0;
}

void soak_sctp_pin_tick(void)
{
}

void soak_sctp_pin_stop(void)
{
}

void soak_sctp_pin_log(void *user, enum ddp_log_level level, const char *msg)
{
}
#endif
