/*
 * ddp-soak, stream flood ("streamflood"): SF_LIVE associations at a time
 * from a bare sctp_ll endpoint that asks for 65,535 streams each way; once
 * up, each sends a session Initiate (RFC 5043 §5.2.3) on every stream it
 * got, BURST a tick, reads the answers, holds the sessions HOLD_S and ends
 * the association (SHUTDOWN), then opens a new one REOPEN_S later.
 *
 * Victim: a DDP/SCTP listener of its own with nstreams SF_NST (what any
 * association gets, whatever it asks) and max_streams SF_MAX_STREAMS (two
 * associations' worth): its ULP accepts every Initiate, so every stream
 * carries a session and nothing is evictable; the association that does
 * not fit is refused (logged "SCTP stream cap": sf_capped).
 *
 * Pass: no association got more than SF_NST streams and the victim never
 * counted more than SF_MAX_STREAMS streams in use (else "bad"); some were
 * refused at the cap (sf_capped > 0); RSS flat, so the streams' memory
 * (DDP state, sessions, usrsctp's per-stream state) is given back each
 * time an association ends.
 */
#include <stdio.h>
#include <string.h>

#include <event2/event.h>

#if HAVE_USRSCTP
#include <ddp/sctp.h>

#include "sctp/sctp_ddp_int.h"
#include "soak_sctp_setup.h"
#endif

#include "soak.h"

#if HAVE_USRSCTP

#define SF_ASK         65535
#define SF_NST         1024
#define SF_MAX_STREAMS (2 * SF_NST)
#define SF_LIVE        3
#define BURST          256
#define HOLD_S         3.0
#define CONNECT_S      5.0
#define CLOSE_S        10.0
#define REOPEN_S       0.5 /* after the end of the last one */

static ddp_sctp_ep *vep;
static int vport, stopping;

static void v_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	(void)a, (void)s, (void)user;
	if (status != 0)
		soak_st->sf_vdown++;
}

static void v_ctl(ddp_sctp_assoc *a, uint32_t st, enum ddp_sctp_event ev, int status, const void *p,
                  size_t len, void *user)
{
	(void)status, (void)p, (void)len, (void)user;
	if (st >= SF_NST) {
		SOAK_BAD();
		return;
	}
	if (ev != DDP_SCTP_INITIATE)
		return;
	if (ddp_sctp_accept(a, st, NULL, 0) != 0)
		SOAK_BAD();
	else
		soak_st->sf_accepted++;
}

static void v_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)d, (void)user; /* no buffers posted: nothing comes */
}

void soak_sctp_streams_log(const char *msg)
{
	if (strstr(msg, "SCTP stream cap"))
		soak_st->sf_capped++;
}

/* ----------------------------------------------------------- attacker */

enum astate { A_FREE, A_CONNECTING, A_UP, A_CLOSING, A_DOWN };

struct att {
	sctp_ll_assoc *a;
	enum astate state;
	double t;
	uint32_t next_sid;
};

static sctp_ll_ep *aep;
static struct att atts[SF_LIVE];

static void att_event(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct att *t = user;
	(void)status;
	switch (ev) {
	case SCTP_LL_EV_UP:
		if (t->state != A_CONNECTING)
			break;
		t->state = A_UP;
		t->t = soak_now();
		t->next_sid = 0;
		soak_st->sf_assocs++;
		if (sctp_ll_nstreams(a) > soak_st->sf_streams_max)
			soak_st->sf_streams_max = sctp_ll_nstreams(a);
		if (sctp_ll_nstreams(a) > SF_NST)
			SOAK_BAD();
		break;
	case SCTP_LL_EV_READABLE: /* the Accepts */
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

static void initiate_some(struct att *t)
{
	uint16_t nst = sctp_ll_nstreams(t->a);
	uint8_t m[SCTP_CTL_HDR_LEN] = {0, 0, 0, SCTP_CTL_INITIATE};
	for (int k = 0; k < BURST && t->next_sid < nst; k++) {
		int rc = sctp_ll_send(t->a, (uint16_t)t->next_sid, SCTP_PPID_CTL, m, sizeof(m));
		if (rc != 0)
			return; /* no room (again next tick) or ending */
		t->next_sid++;
		soak_st->sf_initiates++;
	}
}

static void att_tick(struct att *t, double now)
{
	switch (t->state) {
	case A_FREE:
		if (stopping || now - t->t < REOPEN_S ||
		    sctp_ll_connect(aep, "127.0.0.1", vport, &att_cb, t, &t->a) != 0)
			break;
		t->state = A_CONNECTING;
		t->t = now;
		break;
	case A_CONNECTING:
		if (now - t->t > CONNECT_S) {
			sctp_ll_free(t->a);
			t->state = A_FREE;
		}
		break;
	case A_UP:
		if (now - t->t > HOLD_S) {
			sctp_ll_close(t->a, 0);
			t->state = A_CLOSING;
			t->t = now;
			break;
		}
		initiate_some(t);
		break;
	case A_CLOSING:
		if (now - t->t > CLOSE_S) {
			SOAK_BAD(); /* never ended */
			sctp_ll_free(t->a);
			t->state = A_FREE;
		}
		break;
	case A_DOWN:
		sctp_ll_free(t->a);
		t->a = NULL;
		t->state = A_FREE;
		t->t = now;
		break;
	}
}

int soak_sctp_streams_start(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd)
{
	ddp_sctp_config c;
	int rc;
	if (!(soak_loads & SOAK_STREAMFLOOD))
		return 0;
	if (soak_victim) {
		soak_sctp_vconfig(&c, ctx, pd, SF_NST);
		c.max_streams = SF_MAX_STREAMS;
		c.ddp.deliver = v_deliver;
		c.sctp.assoc = v_assoc;
		c.sctp.session_ctl = v_ctl;
		if ((rc = soak_sctp_vlisten(base, &c, SP_STREAMFLOOD, &vep)))
			return rc;
	}
	if (!soak_attacker)
		return 0;
	vport = soak_sh->port[SP_STREAMFLOOD];
	return soak_sctp_att_ep(base, SF_ASK, 0, &aep);
}

void soak_sctp_streams_tick(void)
{
	double now = soak_now();
	if (!(soak_loads & SOAK_STREAMFLOOD))
		return;
	if (soak_victim && vep->nstreams_used > SF_MAX_STREAMS)
		SOAK_BAD();
	for (int i = 0; i < SF_LIVE && soak_attacker; i++)
		att_tick(&atts[i], now);
}

void soak_sctp_streams_stop(void)
{
	if (!(soak_loads & SOAK_STREAMFLOOD))
		return;
	stopping = 1;
	if (soak_victim)
		printf("streamflood: %ld associations asking for %d streams got at most %ld "
	       "(nstreams %d); %ld Initiates, %ld accepted; %ld refused at the stream cap "
	       "(max_streams %d); %ld associations ended\n",
	       soak_st->sf_assocs, SF_ASK, soak_st->sf_streams_max, SF_NST, soak_st->sf_initiates,
	       soak_st->sf_accepted, soak_st->sf_capped, SF_MAX_STREAMS, soak_st->sf_vdown);
	sctp_ll_ep_free(aep);
	aep = NULL;
	ddp_sctp_ep_free(vep);
	vep = NULL;
}

#else /* !HAVE_USRSCTP */

int soak_sctp_streams_start(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd)
{
	soak_loads &= ~(unsigned)SOAK_STREAMFLOOD; /* not built */
	return 0;
}

void soak_sctp_streams_tick(void)
{
}

void soak_sctp_streams_stop(void)
{
}

void soak_sctp_streams_log(const char *msg)
{
	(void)msg;
}
#endif
