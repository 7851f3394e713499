/* The send-side entry points (ddp_send_*, ddp_stream_close,
 * ddp_session_close, the LLP's
 * writable / tx-done events): queue with tx.c, run its pump and act on the
 * verdict through session.c (a fatal LLP send error fails the stream,
 * DDP-TRD-7; a closing stream with nothing left is drained). tx.c never
 * calls session.c, session.c never calls this file. */
#include "core.h"

void tx_run(ddp_session *s, struct ddp_stream *st)
{
	if (s->silenced)
		return; /* its owner was freed: nothing more goes out */
	int r = tx_pump(s, st);
	if (r < 0)
		ddp_llp_failed(s, st->idx, r);
	else if (r == TX_PUMP_DRAINED)
		stream_tx_drained(s, st);
}

static int send_msg(ddp_session *s, uint32_t stream, const struct ddp_hdr *h,
                    const struct iovec *iov, int iovcnt, void *msg_ctx)
{
	if (s && s->silenced)
		return DDP_ERR_CLOSED;
	int rc = tx_submit(s, stream, h, iov, iovcnt, msg_ctx);
	if (rc == 0)
		tx_run(s, &s->st[stream]);
	return rc;
}

int ddp_send_untagged(ddp_session *s, uint32_t stream, uint32_t qn, uint64_t rsvdulp,
                      const struct iovec *iov, int iovcnt, void *msg_ctx)
{
	if (!s || qn >= s->cfg.nqueues || rsvdulp >> 40)
		return DDP_ERR_INVAL;
	struct ddp_hdr h = {0};
	h.qn = qn;
	h.rsvdulp = rsvdulp;
	return send_msg(s, stream, &h, iov, iovcnt, msg_ctx);
}

int ddp_send_tagged(ddp_session *s, uint32_t stream, uint32_t stag, uint64_t to, uint8_t rsvdulp,
                    const struct iovec *iov, int iovcnt, void *msg_ctx)
{
	struct ddp_hdr h = {0};
	h.tagged = 1;
	h.stag = stag; /* DDP-SEG-6: the ULP supplies STag and TO */
	h.to = to;
	h.rsvdulp = rsvdulp;
	return send_msg(s, stream, &h, iov, iovcnt, msg_ctx);
}

int ddp_stream_close(ddp_session *s, uint32_t stream)
{
	if (!s || stream >= s->cfg.nstreams)
		return DDP_ERR_INVAL;
	struct ddp_stream *st = &s->st[stream];
	if (st->dead || st->tx_state != TX_OPEN)
		return 0;
	/* DDP-TRD-2: pending data goes first; later sends fail. */
	st->tx_state = TX_CLOSING;
	tx_run(s, st);
	return 0;
}

int ddp_session_close(ddp_session *s, int abortive)
{
	if (!s)
		return DDP_ERR_INVAL;
	if (abortive && s->conn_closed && !s->conn_abortive) {
		/* a graceful close already reached the LLP (FIN / SHUTDOWN
		 * sent, the peer may never answer): abort now, so a close
		 * always finishes */
		s->conn_abortive = 1;
		for (uint32_t i = 0; i < s->cfg.nstreams; i++)
			stream_kill(s, &s->st[i], 1, DDP_ERR_ABORTED, 0);
		s->ops->close(s->llp, 1);
		return 0;
	}
	s->closing = 1;
	if (abortive)
		s->conn_abortive = 1;
	for (uint32_t i = 0; i < s->cfg.nstreams && !s->conn_closed; i++) {
		if (abortive)
			stream_kill(s, &s->st[i], 1, DDP_ERR_ABORTED, 0);
		else
			ddp_stream_close(s, i);
	}
	if (!s->conn_closed && !abortive) {
		/* Graceful: close the connection once every stream drained. */
		int drained = 1;
		for (uint32_t i = 0; i < s->cfg.nstreams; i++)
			if (!s->st[i].dead && s->st[i].tx_state != TX_CLOSED)
				drained = 0;
		if (drained) {
			s->conn_closed = 1;
			s->ops->close(s->llp, 0);
		}
	}
	session_check_all_closed(s);
	return 0;
}

int ddp_session_close_deadline(ddp_session *s, unsigned ms)
{
	if (!s || ms == 0)
		return DDP_ERR_INVAL;
	if (!s->ops->close_deadline)
		return DDP_ERR_UNSUPPORTED;
	int rc = ddp_session_close(s, 0);
	if (rc == 0 && !s->conn_abortive)
		s->ops->close_deadline(s->llp, ms);
	return rc;
}

void ddp_llp_tx_done(ddp_session *s, uint32_t stream)
{
	if (!s || stream >= s->cfg.nstreams)
		return;
	struct ddp_stream *st = &s->st[stream];
	struct tx_msg *m = st->txq;
	if (!m || !m->pending)
		return; /* LLP accounting error: ignore rather than corrupt */
	m->pending--;
	tx_complete_ready(s, st);
	if (tx_drained(st))
		stream_tx_drained(s, st);
}

void ddp_llp_writable(ddp_session *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->cfg.nstreams; i++) {
		struct ddp_stream *st = &s->st[i];
		if (!st->blocked)
			continue;
		st->blocked = 0;
		tx_run(s, st);
	}
}
