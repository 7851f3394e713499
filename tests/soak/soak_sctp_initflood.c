/*
 * ddp-soak, Initiate flood ("initflood"): an SCTP peer (real usrsctp
 * associations, IF_LIVE at a time) that sends session Initiates (RFC 5043
 * §5.2.3), each followed by a Terminate, on its streams 1.. in turn, as
 * fast as SCTP takes them, and never reads what the victim answers (an
 * Accept and a Terminate for each). Stream 0 holds one session open all
 * along: with every stream closed the victim would end the association
 * (RFC 5041 §3 DDP-LLP-10).
 *
 * Victim: a DDP/SCTP listener of its own whose ULP accepts every Initiate
 * with IF_PD octets of private data (a large answer) and closes a stream
 * the peer half-closed (its Terminate). Its max_ctl_queue_bytes is
 * IF_CTL_BOUND: once the attacker's receive window and the victim's
 * usrsctp send buffer are full, the answers wait in the victim's control
 * queue; at the bound the victim stops reading that association, so the
 * attacker's own sends are refused (DDP_ERR_AGAIN: if_again) by SCTP's flow
 * control. After HOLD_S the attacker aborts and opens a new association.
 *
 * Pass: if_again > 0 (the bound held the attacker back), no victim
 * association ever queued more than IF_CTL_BOUND plus the ULP's answers to
 * the Initiates already counted (if_over == 0), RSS flat (what the queue
 * and usrsctp's buffers held is given back when the association ends).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#if HAVE_USRSCTP
#include <ddp/sctp.h>

#include "sctp/sctp_ddp_int.h"
#include "soak_sctp_setup.h"
#endif

#include "soak.h"

#if HAVE_USRSCTP

#define IF_NST       16
#define IF_LIVE      1
#define IF_PD        480
#define IF_CTL_BOUND 16384
#define IF_PENDING   64          /* max_pending_initiates */
#define IF_RCVBUF    (16u << 10) /* the attacker's usrsctp buffers */
/* the victim listener's receive buffer: with the library's default (8 MiB)
 * the Initiates it stops reading at the control queue's bound take longer
 * than a soak run to close its window, and the attacker is never stopped */
#define IF_VRCVBUF (256u << 10)
#define BURST        32          /* Initiate + Terminate pairs per tick */
#define HOLD_S       8.0
#define CONNECT_S    5.0
#define MAX_V        (4 * IF_LIVE)
/* what may be queued: the bound, the answers to the Initiates already
 * counted and one message's worth read past it */
#define IF_CTL_LIMIT                                                                               \
	(IF_CTL_BOUND + (IF_PENDING + 2) * SCTP_PC_COST(SCTP_CTL_HDR_LEN + DDP_SCTP_MAX_PRIV))

static ddp_sctp_ep *vep;
static int vport, stopping;
static struct ddp_sctp_assoc *vas[MAX_V];
static uint8_t vpd[IF_PD];

static void v_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	(void)s, (void)user;
	for (int i = 0; i < MAX_V; i++) {
		if (status == 0 && !vas[i]) {
			vas[i] = a;
			return;
		}
		if (status != 0 && vas[i] == a) {
			if (getenv("SOAK_LOG"))
				fprintf(stderr, "initflood: victim association ended: %s\n",
				        ddp_strerror(status));
			vas[i] = NULL;
			soak_st->if_vdown++;
			return;
		}
	}
	if (status == 0)
		SOAK_BAD(); /* more than MAX_V alive: the attacker has IF_LIVE */
}

static void v_ctl(ddp_sctp_assoc *a, uint32_t st, enum ddp_sctp_event ev, int status, const void *p,
                  size_t len, void *user)
{
	(void)status, (void)p, (void)len, (void)user;
	if (st >= IF_NST) {
		SOAK_BAD();
		return;
	}
	if (ev == DDP_SCTP_INITIATE && ddp_sctp_accept(a, st, vpd, IF_PD) != 0)
		SOAK_BAD();
}

static void v_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)d, (void)user; /* no buffers posted: nothing comes */
}

static void v_send_done(ddp_session *s, uint32_t st, void *mctx, int status, void *user)
{
	(void)s, (void)st, (void)mctx, (void)status, (void)user;
	SOAK_BAD(); /* the victim never sends data */
}

/* ----------------------------------------------------------- attacker */

enum astate { A_FREE, A_CONNECTING, A_UP, A_DOWN };

struct att {
	sctp_ll_assoc *a;
	enum astate state;
	double t;
	uint16_t next_sid;
	int held; /* stream 0's session initiated */
};

static sctp_ll_ep *aep;
static struct att atts[IF_LIVE];
static long send_other;
static int last_err;

static void att_event(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct att *t = user;
	(void)a, (void)status;
	if (ev == SCTP_LL_EV_UP && t->state == A_CONNECTING) {
		t->state = A_UP;
		t->t = soak_now();
		t->held = 0;
		t->next_sid = 0;
		soak_st->if_assocs++;
	} else if (ev == SCTP_LL_EV_DOWN) {
		t->state = A_DOWN;
	}
	/* SCTP_LL_EV_READABLE: never read */
}

static const sctp_ll_assoc_cb att_cb = {att_event};

static int send_ctl(struct att *t, uint16_t sid, uint16_t ssn, uint16_t code, size_t pdlen)
{
	uint8_t m[SCTP_CTL_HDR_LEN + 16];
	m[0] = (uint8_t)(ssn >> 8), m[1] = (uint8_t)ssn;
	m[2] = (uint8_t)(code >> 8), m[3] = (uint8_t)code;
	memset(m + SCTP_CTL_HDR_LEN, 'i', sizeof(m) - SCTP_CTL_HDR_LEN);
	return sctp_ll_send(t->a, sid, SCTP_PPID_CTL, m, SCTP_CTL_HDR_LEN + pdlen);
}

static void flood(struct att *t)
{
	uint16_t nst = sctp_ll_nstreams(t->a);
	if (!nst)
		return;
	if (nst < 2)
		return;
	if (!t->held) { /* stream 0: one session, held open */
		if (send_ctl(t, 0, 0, SCTP_CTL_INITIATE, 16) != 0)
			return;
		t->held = 1;
	}
	for (int k = 0; k < BURST; k++) {
		uint16_t sid = (uint16_t)(1 + t->next_sid % (nst - 1u));
		int rc = send_ctl(t, sid, 0, SCTP_CTL_INITIATE, 16);
		if (rc == 0)
			rc = send_ctl(t, sid, 1, SCTP_CTL_TERMINATE, 0);
		if (rc == DDP_ERR_AGAIN) {
			soak_st->if_again++;
			return;
		}
		if (rc != 0) {
			send_other++;
			last_err = rc;
			return; /* ending */
		}
		soak_st->if_initiates++;
		t->next_sid++;
	}
}

static void att_tick(struct att *t, double now)
{
	switch (t->state) {
	case A_FREE:
		if (stopping || sctp_ll_connect(aep, "127.0.0.1", vport, &att_cb, t, &t->a) != 0)
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
			sctp_ll_close(t->a, 1);
			t->t = now;
			t->state = A_CONNECTING; /* until the DOWN event */
			break;
		}
		flood(t);
		break;
	case A_DOWN:
		sctp_ll_free(t->a);
		t->a = NULL;
		t->state = A_FREE;
		break;
	}
}

int soak_sctp_initflood_start(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd)
{
	ddp_sctp_config c;
	int rc;
	if (!(soak_loads & SOAK_INITFLOOD))
		return 0;
	if (soak_victim) {
		memset(vpd, 'a', sizeof(vpd));
		soak_sctp_vconfig(&c, ctx, pd, IF_NST);
		c.max_ctl_queue_bytes = IF_CTL_BOUND;
		c.max_pending_initiates = IF_PENDING;
		c.rcvbuf = IF_VRCVBUF;
		c.ddp.send_done = v_send_done;
		c.ddp.deliver = v_deliver;
		c.sctp.assoc = v_assoc;
		c.sctp.session_ctl = v_ctl;
		if ((rc = soak_sctp_vlisten(base, &c, SP_INITFLOOD, &vep)))
			return rc;
	}
	if (!soak_attacker)
		return 0;
	vport = soak_sh->port[SP_INITFLOOD];
	return soak_sctp_att_ep(base, IF_NST, IF_RCVBUF, &aep);
}

void soak_sctp_initflood_tick(void)
{
	double now = soak_now();
	if (!(soak_loads & SOAK_INITFLOOD))
		return;
	for (int i = 0; i < MAX_V && soak_victim; i++) { /* the victim's queues */
		if (!vas[i])
			continue;
		long q = (long)vas[i]->pc_bytes;
		if (q > soak_st->if_ctl_max)
			soak_st->if_ctl_max = q;
		if (q > (long)IF_CTL_LIMIT)
			soak_st->if_over++;
	}
	for (int i = 0; i < IF_LIVE && soak_attacker; i++)
		att_tick(&atts[i], now);
}

void soak_sctp_initflood_stop(void)
{
	if (!(soak_loads & SOAK_INITFLOOD))
		return;
	stopping = 1;
	if (soak_victim)
		printf("initflood: %ld associations, %ld Initiates whose answers were never read, "
		       "%ld sends refused for want of room; victim: control queue at most %ld "
		       "octets (bound %d, limit %lu with the answers counted), %ld associations "
		       "ended\n",
		       soak_st->if_assocs, soak_st->if_initiates, soak_st->if_again,
		       soak_st->if_ctl_max, IF_CTL_BOUND, (unsigned long)IF_CTL_LIMIT,
		       soak_st->if_vdown);
	if (soak_attacker && send_other)
		printf("initflood (attacker): %ld sends failed otherwise (last: %s)\n", send_other,
		       ddp_strerror(last_err));
	sctp_ll_ep_free(aep);
	aep = NULL;
	ddp_sctp_ep_free(vep);
	vep = NULL;
	memset(vas, 0, sizeof(vas));
}

#else /* !HAVE_USRSCTP */

int soak_sctp_initflood_start(struct event_base *base, ddp_ctx *ctx, ddp_pd *pd)
{
	soak_loads &= ~(unsigned)SOAK_INITFLOOD; /* not built */
	return 0;
}

void soak_sctp_initflood_tick(void)
{
}

void soak_sctp_initflood_stop(void)
{
}
#endif
