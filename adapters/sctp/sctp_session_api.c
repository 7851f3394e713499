/* The public calls of RFC 5043 session control (sctp.h): Initiate,
 * Accept, Reject and their RFC 6581 enhanced forms on one stream of an
 * association, closing an association. The replies come back through
 * sctp_ddp.c's receive path. */
#include <string.h>

#include "sctp/sctp_ddp_int.h"

ddp_session *ddp_sctp_session(const ddp_sctp_assoc *a)
{
	return a ? a->s : NULL;
}

static int check_stream(const ddp_sctp_assoc *a, uint32_t stream, const void *priv, size_t priv_len)
{
	if (!a || (!priv && priv_len) || priv_len > DDP_SCTP_MAX_PRIV)
		return DDP_ERR_INVAL;
	if (!a->s || a->down)
		return DDP_ERR_STATE;
	if (stream >= a->nstreams)
		return DDP_ERR_INVAL;
	return 0;
}

static int io_ok(const ddp_sctp_ird_ord *io)
{
	return io && io->ird <= SCTP_CTL_IRD_ORD_MAX && io->ord <= SCTP_CTL_IRD_ORD_MAX;
}

static void io_pack(const ddp_sctp_ird_ord *io, struct sctp_ird_ord *w)
{
	w->a = io->p2p ? 1 : 0;
	w->b = io->send0_rtr ? 1 : 0;
	w->c = io->write0_rtr ? 1 : 0;
	w->d = io->read0_rtr ? 1 : 0;
	w->ird = io->ird;
	w->ord = io->ord;
}

static int initiate(ddp_sctp_assoc *a, uint32_t stream, const ddp_sctp_ird_ord *io,
                    const void *priv, size_t priv_len)
{
	struct sctp_sstream *ss;
	struct sctp_ird_ord w;
	uint16_t ssn;
	int rc = check_stream(a, stream, priv, priv_len);
	if (rc)
		return rc;
	/* RFC 6581 §7: the IRD/ORD word counts toward the 512 octets */
	if (io && (!io_ok(io) || priv_len > DDP_SCTP_MAX_PRIV - SCTP_CTL_IRD_ORD_LEN))
		return DDP_ERR_INVAL;
	/* RFC 5043 §6 rule 3: a stream whose Terminate refusing the peer's
	 * Initiate may still be in flight is reused only after SENDER_DRY */
	if (!sctp_ss(a, stream) && (a->idle_tx[stream / 8] & (1u << (stream % 8))))
		return DDP_ERR_BUSY;
	ss = sctp_ss_get(a, stream); /* a stream's state comes with its first session */
	if (!ss)
		return DDP_ERR_NOMEM;
	rc = sctp_stream_tx_initiate(&ss->sm, io != NULL, &ssn);
	if (rc)
		return rc;
	if (ss->used) /* RFC 5043 §6.1: the new session starts fresh */
		ddp_llp_stream_reset(a->s, stream);
	ss->sent = 0;         /* the reset flushed them */
	ss->closed_later = 0; /* the old session's end is moot */
	ss->used = 1;
	ss->has_peer_io = 0;
	if (!io)
		return sctp_ctl_send(a, (uint16_t)stream, SCTP_CTL_INITIATE, ssn, priv, priv_len);
	io_pack(io, &w);
	return sctp_ctl_send_io(a, (uint16_t)stream, SCTP_CTL_ENH_INITIATE, ssn, &w, priv,
	                        priv_len);
}

int ddp_sctp_initiate(ddp_sctp_assoc *a, uint32_t stream, const void *priv, size_t priv_len)
{
	return initiate(a, stream, NULL, priv, priv_len);
}

int ddp_sctp_initiate_enhanced(ddp_sctp_assoc *a, uint32_t stream, const ddp_sctp_ird_ord *io,
                               const void *priv, size_t priv_len)
{
	if (!io)
		return DDP_ERR_INVAL;
	return initiate(a, stream, io, priv, priv_len);
}

int ddp_sctp_peer_ird_ord(const ddp_sctp_assoc *a, uint32_t stream, ddp_sctp_ird_ord *out)
{
	const struct sctp_sstream *ss;
	const struct sctp_ird_ord *w;
	if (!a || !out || !a->st || stream >= a->nstreams)
		return DDP_ERR_INVAL;
	ss = sctp_ss(a, stream);
	if (!ss || !ss->has_peer_io)
		return DDP_ERR_NOENT;
	w = &ss->peer_io;
	out->p2p = w->a;
	out->send0_rtr = w->b;
	out->write0_rtr = w->c;
	out->read0_rtr = w->d;
	out->ird = w->ird;
	out->ord = w->ord;
	return 0;
}

static int answer(ddp_sctp_assoc *a, uint32_t stream, const ddp_sctp_ird_ord *io, const void *priv,
                  size_t priv_len, int accept)
{
	struct sctp_sstream *ss;
	struct sctp_ird_ord w, *wp = NULL;
	uint16_t ssn, code;
	int rc = check_stream(a, stream, priv, priv_len);
	if (rc)
		return rc;
	ss = sctp_ss(a, stream);
	if (!ss) /* never had a session: nothing to answer */
		return DDP_ERR_STATE;
	/* RFC 6581 §7: the IRD/ORD word counts toward the 512 octets */
	if (accept && ss->sm.enhanced && priv_len > DDP_SCTP_MAX_PRIV - SCTP_CTL_IRD_ORD_LEN)
		return DDP_ERR_INVAL;
	if (io) {
		if (!io_ok(io))
			return DDP_ERR_INVAL;
		io_pack(io, &w);
		wp = &w;
	}
	if (accept)
		rc = sctp_stream_tx_accept(&ss->sm, &ssn);
	else
		rc = sctp_stream_tx_reject(&ss->sm, &ssn);
	if (rc)
		return rc;
	if (ss->ulp_pending) {
		ss->ulp_pending = 0;
		a->pending_init--;
	}
	/* RFC 6581 §7: enhanced requests get enhanced answers */
	if (accept)
		code = ss->sm.enhanced ? SCTP_CTL_ENH_ACCEPT : SCTP_CTL_ACCEPT;
	else
		code = ss->sm.enhanced ? SCTP_CTL_ENH_REJECT : SCTP_CTL_REJECT;
	rc = sctp_ctl_send_io(a, (uint16_t)stream, code, ssn, wp, priv, priv_len);
	if (accept && a->blocked) {
		a->blocked = 0;
		ddp_llp_writable(a->s);
	}
	return rc;
}

int ddp_sctp_accept(ddp_sctp_assoc *a, uint32_t stream, const void *priv, size_t priv_len)
{
	return answer(a, stream, NULL, priv, priv_len, 1);
}

int ddp_sctp_accept_enhanced(ddp_sctp_assoc *a, uint32_t stream, const ddp_sctp_ird_ord *io,
                             const void *priv, size_t priv_len)
{
	return answer(a, stream, io, priv, priv_len, 1);
}

int ddp_sctp_reject(ddp_sctp_assoc *a, uint32_t stream, const void *priv, size_t priv_len)
{
	return answer(a, stream, NULL, priv, priv_len, 0);
}

int ddp_sctp_close(ddp_sctp_assoc *a, int abortive)
{
	if (!a)
		return DDP_ERR_INVAL;
	if (a->down)
		return 0;
	/* Graceful: what DDP still queues goes first. The session closes
	 * every stream (its Terminate after its last segment, RFC 5043 §6.2)
	 * and asks for the SHUTDOWN once all of them drained; a SHUTDOWN at
	 * once made usrsctp refuse the queued segments, and the failed
	 * streams turned the close into an ABORT. */
	if (!abortive && a->s)
		return ddp_session_close(a->s, 0);
	sctp_ll_close(a->ll, abortive);
	return 0;
}
