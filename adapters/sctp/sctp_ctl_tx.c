/* Outgoing session-control messages of an association (RFC 5043 §5.2.3,
 * PPID 17): queued in order, flushed when usrsctp takes them. */
#include <stdlib.h>
#include <string.h>

#include "sctp/sctp_ddp_int.h"

void sctp_ctl_flush(struct ddp_sctp_assoc *a)
{
	while (a->pc_head) {
		struct pend_ctl *p = a->pc_head;
		int rc = sctp_ll_send(a->ll, p->sid, SCTP_PPID_CTL, p->buf, p->len);
		if (rc == DDP_ERR_AGAIN)
			return;
		if (rc == 0)
			a->stats.tx_ctl++;
		a->pc_head = p->next;
		if (!a->pc_head)
			a->pc_tail = NULL;
		free(p);
	}
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
	p = sctp_xmalloc(sizeof(*p));
	if (!p)
		return DDP_ERR_NOMEM;
	rc = sctp_ctl_encode(p->buf, sizeof(p->buf), &m, &p->len);
	if (rc) {
		free(p);
		return rc;
	}
	p->sid = sid;
	p->next = NULL;
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
	uint16_t ssn;
	unsigned f;
	if (sctp_stream_tx_terminate(&a->st[sid].sm, &ssn, &f) == 0) {
		sctp_ctl_send(a, sid, SCTP_CTL_TERMINATE, ssn, NULL, 0);
		if (f & SCTP_ACT_CLOSED)
			ddp_llp_closed(a->s, sid);
	}
}

