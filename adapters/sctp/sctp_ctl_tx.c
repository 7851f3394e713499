/* Outgoing session-control messages of an association (RFC 5043 §5.2.3,
 * PPID 17): queued in order, flushed when usrsctp takes them.
 *
 * The queue is bounded. A peer that sends control messages and never
 * reads what we answer (each Initiate over max_pending_initiates gets a
 * Terminate, RFC 5043 §5.2.3) would otherwise grow it without end. So:
 *  - each entry is sized to its message (SCTP_PC_COST: a Terminate costs
 *    about 28 octets, not a 512-octet slot);
 *  - a stream has at most one Terminate of ours waiting: a second one for
 *    the same stream (the peer re-initiated before it could have seen the
 *    first) is not queued;
 *  - when the queue holds max_ctl_queue_bytes (ddp_sctp_config, default
 *    64 KiB) the association stops reading (sctp_ddp_readable): what the
 *    peer sends stays in usrsctp's receive buffer and SCTP's flow control
 *    (the advertised receive window) stops the peer. Reading resumes when
 *    usrsctp has taken the queue down to half of the bound;
 *  - usrsctp gets at most SCTP_CTL_LLP_MAX control messages that it may
 *    still hold (llp_room): its send buffer is bounded in
 *    payload octets, not in messages, and a message costs it far more
 *    than its payload. A peer that never reads thus holds at most the
 *    bound, SCTP_CTL_LLP_MAX messages in usrsctp and usrsctp's receive
 *    buffer; the heartbeat keeps such an association alive, the idle
 *    reaper and the association cap (sctp_slots.c) end it.
 * The ULP's own answers (Accept, Reject, Terminate on close) are always
 * queued: each answers an Initiate that max_pending_initiates counted.
 */
#include <stdlib.h>
#include <string.h>

#include "sctp/sctp_ddp_int.h"

static void pc_pop(struct ddp_sctp_assoc *a)
{
	struct pend_ctl *p = a->pc_head;
	a->pc_head = p->next;
	if (!a->pc_head)
		a->pc_tail = NULL;
	a->pc_bytes -= SCTP_PC_COST(p->len);
	if (p->code == SCTP_CTL_TERMINATE && a->term_q && p->sid < a->nstreams)
		a->term_q[p->sid / 8] &= (uint8_t) ~(1u << (p->sid % 8));
	free(p);
}

/* May another control message go to usrsctp? usrsctp takes messages
 * until its send buffer holds sndbuf octets of payload: a peer that never
 * reads would have it keep about two million 4-octet Terminates, each
 * with its own message and mbuf. So at most SCTP_CTL_LLP_MAX control
 * messages go to usrsctp that it may still hold; more wait in our own
 * queue, whose bound stops reading (max_ctl_queue_bytes). The count drops
 * to 0 at SENDER_DRY and, at the cap, to what usrsctp's send buffer can
 * hold at most (its octets over the shortest control message): SENDER_DRY
 * is a notification, read in order with the peer's messages, so it does
 * not come while reading is paused. A usrsctp that cannot tell its send
 * buffer's use leaves usrsctp's own bound alone. */
static int llp_room(struct ddp_sctp_assoc *a)
{
	long q;
	if (a->ctl_llp < SCTP_CTL_LLP_MAX)
		return 1;
	q = sctp_ll_queued_octets(a->ll);
	if (q < 0)
		return 1;
	if ((unsigned long)q / SCTP_CTL_HDR_LEN < a->ctl_llp)
		a->ctl_llp = (uint32_t)((unsigned long)q / SCTP_CTL_HDR_LEN);
	return a->ctl_llp < SCTP_CTL_LLP_MAX;
}

void sctp_ctl_flush(struct ddp_sctp_assoc *a)
{
	while (a->pc_head) {
		struct pend_ctl *p = a->pc_head;
		int rc;
		if (!llp_room(a)) {
			/* again when a SACK frees send space */
			sctp_ll_want_writable(a->ll);
			return;
		}
		rc = sctp_ll_send(a->ll, p->sid, SCTP_PPID_CTL, p->buf, p->len);
		if (rc == DDP_ERR_AGAIN) {
			sctp_ll_want_writable(a->ll);
			return;
		}
		if (rc == 0) {
			a->stats.tx_ctl++;
			a->ctl_llp++;
		}
		pc_pop(a);
	}
}

void sctp_ctl_llp_dry(struct ddp_sctp_assoc *a)
{
	a->ctl_llp = 0;
}

int sctp_ctl_queue_full(const struct ddp_sctp_assoc *a)
{
	return a->pc_bytes >= a->ep->cfg.max_ctl_queue_bytes;
}

void sctp_ctl_drop_all(struct ddp_sctp_assoc *a)
{
	while (a->pc_head)
		pc_pop(a);
}

/* Queue one control message (kept in order with earlier control ones).
 * io: the RFC 6581 IRD/ORD word of an enhanced Initiate/Accept (NULL:
 * 0x3FFF for both, "the ULP negotiates"). */
int sctp_ctl_send_io(struct ddp_sctp_assoc *a, uint16_t sid, uint16_t code, uint16_t ssn,
                     const struct sctp_ird_ord *io, const void *priv, size_t priv_len)
{
	struct sctp_ctl_msg m;
	struct pend_ctl *p;
	int rc;

	memset(&m, 0, sizeof(m));
	m.ssn = ssn;
	m.code = code;
	m.priv = priv;
	m.priv_len = priv_len;
	if (io) {
		m.ird_ord = *io;
	} else {
		m.ird_ord.ird = SCTP_CTL_IRD_ORD_MAX;
		m.ird_ord.ord = SCTP_CTL_IRD_ORD_MAX;
	}
	uint8_t buf[SCTP_CTL_MAX_LEN];
	size_t len;
	rc = sctp_ctl_encode(buf, sizeof(buf), &m, &len);
	if (rc)
		return rc;
	int term = code == SCTP_CTL_TERMINATE && a->term_q && sid < a->nstreams;
	if (term && (a->term_q[sid / 8] & (1u << (sid % 8))))
		return 0; /* one waiting Terminate per stream */
	p = sctp_xmalloc(SCTP_PC_COST(len));
	if (!p)
		return DDP_ERR_NOMEM;
	if (term)
		a->term_q[sid / 8] |= (uint8_t)(1u << (sid % 8));
	memcpy(p->buf, buf, len);
	p->len = (uint16_t)len;
	p->code = code;
	p->sid = sid;
	p->next = NULL;
	a->pc_bytes += SCTP_PC_COST(len);
	if (a->pc_tail)
		a->pc_tail->next = p;
	else
		a->pc_head = p;
	a->pc_tail = p;
	sctp_ctl_flush(a);
	return 0;
}

int sctp_ctl_send(struct ddp_sctp_assoc *a, uint16_t sid, uint16_t code, uint16_t ssn,
                  const void *priv, size_t priv_len)
{
	return sctp_ctl_send_io(a, sid, code, ssn, NULL, priv, priv_len);
}

void sctp_ctl_send_terminate(struct ddp_sctp_assoc *a, uint16_t sid)
{
	struct sctp_sstream *ss = sctp_ss(a, sid);
	uint16_t ssn;
	unsigned f;
	if (ss && sctp_stream_tx_terminate(&ss->sm, &ssn, &f) == 0) {
		sctp_ctl_send(a, sid, SCTP_CTL_TERMINATE, ssn, NULL, 0);
		if (f & SCTP_ACT_CLOSED) {
			/* our Terminate answered the peer's: the session is
			 * closed, for DDP from the loop (we run inside the
			 * ULP's ddp_stream_close / ddp_session_close) */
			ss->closed_later = 1;
			sctp_ll_later(a->ll);
		}
	}
}
