/*
 * usrsctp glue: the receive call (sctp_ll_recv) and an association's
 * receive staging area. No usrsctp call here: the reads are
 * sctp_usrsctp_io.c's.
 *
 * Why a staging area: DDP reads a segment header first (DDP-SSN and DDP
 * header, then the payload straight into its place: two usrsctp_recvv).
 * Each usrsctp_recvv takes usrsctp's socket and association locks and
 * walks its read queue in sctp_sorecvmsg; for a segment of a few KiB that
 * costs more than copying it once. So with rx_whole_max set (sctp_ddp.c
 * sets it; the raw baseline of ddp-perf does not), a message that the
 * previous read announced (SCTP_RECVNXTINFO) at most that long, or whose
 * length nobody announced (the first after the queue ran dry), is read
 * whole into the staging area, one usrsctp_recvv, and so are the complete
 * messages of at most that length queued behind it, all in one hold of
 * the usrsctp lock. sctp_ll_recv then hands them out from there, piece by
 * piece like usrsctp would (ri->staged: the caller counts the copy it makes
 * into place; ri->whole_len: the length, known). A message announced
 * longer is read straight into the caller's buffers.
 */
#include "sctp/usrsctp/sctp_usrsctp_int.h"

#include <stdlib.h>
#include <string.h>

#include <ddp/ddp.h>

/* SCTP_RECVNXTINFO as usrsctp would give it with m[i]: the message after */
static void next_of(const struct sctp_ll_rxq *q, sctp_ll_rinfo *ri)
{
	if (q->i + 1 < q->n) {
		const struct sctp_ll_rxmsg *x = &q->m[q->i + 1];
		if (x->eor && !x->note) {
			ri->next_valid = 1;
			ri->next_sid = x->sid;
			ri->next_ppid = x->ppid;
			ri->next_len = x->len;
		}
		return;
	}
	ri->next_valid = q->after.next_valid;
	ri->next_sid = q->after.next_sid;
	ri->next_ppid = q->after.next_ppid;
	ri->next_len = q->after.next_len;
}

static void drop_head(struct sctp_ll_rxq *q)
{
	q->pos = 0;
	if (++q->i == q->n)
		q->i = q->n = 0;
}

/* Up to len octets of the staged message m[i] into buf. */
static long serve(struct sctp_ll_assoc *a, void *buf, size_t len, sctp_ll_rinfo *ri)
{
	struct sctp_ll_rxq *q = &a->rxq;
	const struct sctp_ll_rxmsg *x = &q->m[q->i];
	size_t n = x->len - q->pos;
	if (n > len)
		n = len;
	if (n)
		memcpy(buf, q->buf + x->off + q->pos, n);
	q->pos += (uint32_t)n;
	memset(ri, 0, sizeof(*ri));
	ri->sid = x->sid;
	ri->ppid = x->ppid;
	ri->unordered = x->unordered;
	ri->staged = 1;
	ri->calls = q->calls;
	q->calls = 0;
	ri->whole_len = x->eor ? x->len : 0;
	ri->eor = x->eor && q->pos == x->len;
	next_of(q, ri);
	a->mid_msg = 1;
	if (q->pos == x->len) {
		/* a message whose start alone was staged goes on in usrsctp */
		a->mid_msg = !x->eor;
		drop_head(q);
	}
	return (long)n;
}

/* Read a batch into the staging area (SCTP_RECV_*; -1: no memory for the
 * area, read directly instead). */
static int fill(struct sctp_ll_assoc *a)
{
	struct sctp_ll_rxq *q = &a->rxq;
	uint32_t max = a->ep->cfg.rx_whole_max;
	unsigned got = 0;
	int k;
	if (!q->buf) {
		q->cap = max < SCTP_LL_RXQ_CAP ? SCTP_LL_RXQ_CAP : (size_t)max + 1;
		if (!(q->buf = sctp_ll_rxq_map(q->cap)))
			return -1;
	}
	q->used = 1;
	/* a first message longer than max (its length not announced) shows
	 * itself by not ending there; it goes on with direct reads */
	k = sctp_usrsctp_recv_batch(a, q->buf, q->cap, max, max, q->m, SCTP_LL_RXQ_MSGS, &got,
	                            &q->after);
	if (k == SCTP_RECV_DATA) {
		q->n = got;
		q->calls = got - (q->m[got - 1].note ? 1 : 0);
		q->i = q->pos = 0;
		q->next_valid = q->after.next_valid;
		q->next_len = q->after.next_len;
	}
	return k;
}

long sctp_ll_recv(sctp_ll_assoc *a, void *buf, size_t len, sctp_ll_rinfo *ri)
{
	if (!a || !ri || (!buf && len))
		return DDP_ERR_INVAL;
	for (;;) {
		struct sctp_ll_rxq *q = &a->rxq;
		uint32_t max = a->ep->cfg.rx_whole_max;
		size_t n = 0;
		int eor = 0, k = -1;
		const uint8_t *first = buf; /* where a notification starts */
		if (!a->so || a->state != A_UP)
			return DDP_ERR_CLOSED;
		if (q->n && q->m[q->i].note) {
			/* a notification read in a batch, acted on in turn */
			sctp_usrsctp_notification(a, q->buf + q->m[q->i].off, q->m[q->i].len,
			                          q->m[q->i].eor);
			drop_head(q);
			continue;
		}
		if (q->n)
			return serve(a, buf, len, ri);
		if (max && !a->mid_msg && (!q->next_valid || q->next_len <= max)) {
			k = fill(a);
			if (k == SCTP_RECV_DATA) {
				if (q->m[0].len == 0 && !q->m[0].eor) {
					/* orderly end of the association */
					q->n = 0;
					sctp_usrsctp_down(a, DDP_ERR_CLOSED);
					return DDP_ERR_CLOSED;
				}
				continue;
			}
			n = q->m[0].len;
			eor = q->m[0].eor;
			first = q->buf;
		}
		if (k < 0) {
			k = sctp_usrsctp_recv_once(a, buf, len, ri, &n, &eor);
			if (k == SCTP_RECV_DATA) {
				ri->calls = 1;
				q->next_valid = ri->next_valid;
				q->next_len = ri->next_len;
			}
		}
		if (k == SCTP_RECV_AGAIN)
			return DDP_ERR_AGAIN;
		if (k == SCTP_RECV_FAILED) {
			sctp_usrsctp_down(a, DDP_ERR_LLP);
			return DDP_ERR_CLOSED;
		}
		if (n == 0 && !eor && !a->mid_msg) {
			/* orderly end of the association */
			sctp_usrsctp_down(a, DDP_ERR_CLOSED);
			return DDP_ERR_CLOSED;
		}
		if (k == SCTP_RECV_NOTIFICATION) {
			q->next_valid = 0; /* says nothing about the data after it */
			sctp_usrsctp_notification(a, first, n, eor);
			continue;
		}
		a->mid_msg = !eor;
		return (long)n;
	}
}
