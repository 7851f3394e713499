/* Transmit: message submission, segmentation at MULPDU (RFC 5041 §5.2),
 * in-order hand-off to the LLP with back-pressure, source completion.
 * Calls nothing of session.c: tx_pump() returns what the stream needs
 * (failed / drained) and send.c, which owns the public entry points, acts
 * (no call cycle between two files of one folder). */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "core.h"

static int ensure_scratch(ddp_session *s, int n)
{
	if (n <= s->scratch_cap)
		return 0;
	struct iovec *v = ddp_realloc_(s->scratch, (size_t)n * sizeof(*v));
	if (!v)
		return DDP_ERR_NOMEM;
	s->scratch = v;
	s->scratch_cap = n;
	return 0;
}

int tx_submit(ddp_session *s, uint32_t stream, const struct ddp_hdr *tmpl, const struct iovec *iov,
              int iovcnt, void *ctx)
{
	if (!s || stream >= s->cfg.nstreams || iovcnt < 0 || (iovcnt > 0 && !iov) || iovcnt > 65536)
		return DDP_ERR_INVAL;
	uint64_t total = 0;
	for (int i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len && !iov[i].iov_base)
			return DDP_ERR_INVAL;
		if (iov[i].iov_len > UINT64_MAX - total)
			return DDP_ERR_TOOBIG;
		total += iov[i].iov_len;
	}
	/* RFC 5041 §5.1 (DDP-SEG-2): a ULP message is shorter than 2^32. */
	if (total >= (1ull << 32))
		return DDP_ERR_TOOBIG;
	if (tmpl->tagged && total && tmpl->to > UINT64_MAX - (total - 1))
		return DDP_ERR_INVAL;
	struct ddp_stream *st = &s->st[stream];
	if (st->dead || s->conn_closed)
		return DDP_ERR_CLOSED;
	/* DDP-TRD-2: after a graceful close request, sends MUST fail. */
	if (st->tx_state != TX_OPEN)
		return DDP_ERR_CLOSED;
	if (st->errored && !st->sends_after_error)
		return DDP_ERR_STREAM;
	if (!tx_can_queue(s, st)) {
		/* backpressure in messages and octets: writable once the
		 * queue drained to half its octets (tx_writable_check) */
		uint64_t lowat = s->cfg.max_tx_octets / 2;
		if (!st->wr_armed || st->wr_lowat > lowat) {
			st->wr_armed = 1;
			st->wr_lowat = lowat;
		}
		return DDP_ERR_LIMIT;
	}
	if (ensure_scratch(s, iovcnt + 1))
		return DDP_ERR_NOMEM;
	struct tx_msg *m = ddp_malloc_(sizeof(*m) + (size_t)iovcnt * sizeof(struct iovec));
	if (!m)
		return DDP_ERR_NOMEM;
	memset(m, 0, sizeof(*m));
	m->hdr = *tmpl;
	m->hdr.dv = DDP_VERSION; /* RFC 5041 §4.1 (DDP-HDR-7): DV = 1 */
	if (!tmpl->tagged) {
		/* RFC 5041 §4.3 (DDP-UNT-3): MSN per (stream, QN), 1 first, +1 per
		 * message, 0xFFFFFFFF is followed by 0. */
		m->hdr.msn = st->uq[tmpl->qn].tx_msn++;
	}
	if (st->errored)
		st->sends_after_error--; /* DDP-ERR-4: one more message */
	m->total = total;
	m->iovcnt = iovcnt;
	if (iovcnt)
		memcpy(m->iov, iov, (size_t)iovcnt * sizeof(*iov));
	m->ctx = ctx;
	if (st->txq_tail)
		st->txq_tail->next = m;
	else
		st->txq = m;
	st->txq_tail = m;
	st->txq_len++;
	st->txq_bytes += total;
	st->traffic = 1;
	if (!st->tx_cur)
		st->tx_cur = m;
	return 0;
}

/* Slice up to n payload octets of m (from its cursor) into out[]. */
static int slice(struct tx_msg *m, size_t n, struct iovec *out)
{
	int k = 0;
	while (n) {
		struct iovec *v = &m->iov[m->iov_idx];
		size_t avail = v->iov_len - m->iov_off;
		if (!avail) {
			m->iov_idx++;
			m->iov_off = 0;
			continue;
		}
		size_t take = avail < n ? avail : n;
		out[k].iov_base = (uint8_t *)v->iov_base + m->iov_off;
		out[k].iov_len = take;
		k++;
		m->iov_off += take;
		n -= take;
	}
	return k;
}

int tx_pump(ddp_session *s, struct ddp_stream *st)
{
	if (st->in_pump)
		return TX_PUMP_OK;
	st->in_pump = 1;
	uint32_t epoch = st->epoch;
	while (st->tx_cur && !st->blocked && !st->dead && st->epoch == epoch) {
		struct tx_msg *m = st->tx_cur;
		size_t hlen = m->hdr.tagged ? DDP_TAGGED_HDR_LEN : DDP_UNTAGGED_HDR_LEN;
		/* RFC 5041 §5.2 (DDP-SEG-1): header + payload <= MULPDU. */
		uint64_t room = s->mulpdu - hlen;
		uint64_t rest = m->total - m->sent;
		size_t chunk = (size_t)(rest < room ? rest : room);
		int last = (chunk == rest);
		struct ddp_hdr h = m->hdr;
		/* DDP-HDR-3: L only on the last segment, which goes last (HDR-4). */
		h.last = (uint8_t)last;
		if (h.tagged)
			h.to = m->hdr.to + m->sent; /* DDP-SEG-5 */
		else
			h.mo = (uint32_t)m->sent; /* DDP-UNT-4 */
		uint8_t hb[DDP_MAX_HDR_LEN];
		wire_encode(&h, hb, sizeof(hb));
		int save_idx = m->iov_idx;
		size_t save_off = m->iov_off;
		s->scratch[0].iov_base = hb;
		s->scratch[0].iov_len = hlen;
		int n = 1 + slice(m, chunk, s->scratch + 1);
		unsigned flags =
		    (last ? DDP_LLP_SEG_LAST : 0) | (h.tagged ? DDP_LLP_SEG_TAGGED : 0);
		int r = s->ops->send(s->llp, st->idx, s->scratch, n, hlen + chunk, flags);
		if (r == DDP_ERR_AGAIN) {
			m->iov_idx = save_idx;
			m->iov_off = save_off;
			st->blocked = 1;
			break;
		}
		if (r < 0) {
			m->iov_idx = save_idx;
			m->iov_off = save_off;
			st->in_pump = 0;
			/* llp.h: fatal for the stream, reported with the LLP's
			 * own code (DDP-TRD-7): the caller fails it */
			return r;
		}
		m->sent += chunk;
		if (r == DDP_LLP_PENDING)
			m->pending++;
		if (last) {
			m->handed_all = 1;
			st->tx_cur = m->next;
		}
	}
	st->in_pump = 0;
	if (st->epoch != epoch)
		return TX_PUMP_OK;
	tx_complete_ready(s, st);
	return tx_drained(st) ? TX_PUMP_DRAINED : TX_PUMP_OK;
}

int tx_drained(const struct ddp_stream *st)
{
	return !st->tx_cur && st->tx_state == TX_CLOSING && !st->dead;
}

/* Source completion (DDP-DLV-4) in submission order. Never re-entered for
 * a stream: a ULP that sends again from send_done over an LLP that takes
 * segments at once (SCTP) would otherwise nest one send_done inside the
 * other per message, thousands deep; the running loop completes those too. */
void tx_complete_ready(ddp_session *s, struct ddp_stream *st)
{
	if (st->in_complete)
		return;
	st->in_complete = 1;
	uint32_t epoch = st->epoch;
	struct tx_msg *m;
	while ((m = st->txq) && m->handed_all && !m->pending && st->epoch == epoch) {
		st->txq = m->next;
		if (!st->txq)
			st->txq_tail = NULL;
		st->txq_len--;
		st->txq_bytes -= m->total;
		st->cnt.msgs_tx++;
		st->cnt.octets_tx += m->total;
		void *ctx = m->ctx;
		free(m);
		if (s->cb.send_done)
			CALLBACK(s, send_done, s, st->idx, ctx, 0, s->user);
	}
	st->in_complete = 0;
	if (st->epoch != epoch) {
		tx_complete_ready(s, st); /* what completed after a reset inside a callback */
		return;
	}
	tx_writable_check(s, st);
}

/* The octet limit (ddp_session_config.max_tx_octets) counts the octets
 * queued behind the oldest message, the one the LLP is working on: a
 * message of any size goes on an empty queue, and the next one (a small
 * notification behind a large write) is never refused for it. A message
 * is taken while the counted octets are below the limit, so the one that
 * crosses it is taken too; the queue thus holds at most the oldest
 * message, fewer than max_tx_octets octets and one more message. */
static uint64_t tx_counted_octets(const struct ddp_stream *st)
{
	return st->txq ? st->txq_bytes - st->txq->total : 0;
}

int tx_can_queue(const ddp_session *s, const struct ddp_stream *st)
{
	return st->txq_len < s->cfg.max_tx_queued && tx_counted_octets(st) < s->cfg.max_tx_octets;
}

/* The writable callback, once per arming, when the stream can take a
 * message and its queued octets fell to the armed level. */
void tx_writable_check(ddp_session *s, struct ddp_stream *st)
{
	if (!st->wr_armed || st->dead || st->tx_state != TX_OPEN || !tx_can_queue(s, st) ||
	    st->txq_bytes > st->wr_lowat)
		return;
	st->wr_armed = 0;
	if (s->cb.writable)
		CALLBACK(s, writable, s, st->idx, s->user);
}

void tx_flush(ddp_session *s, struct ddp_stream *st, int status)
{
	struct tx_msg *m = st->txq;
	st->txq = st->txq_tail = st->tx_cur = NULL;
	st->txq_len = 0;
	st->txq_bytes = 0;
	st->wr_armed = 0; /* nothing more will be sent on a flushed stream */
	while (m) {
		struct tx_msg *next = m->next;
		void *ctx = m->ctx;
		free(m);
		if (s->cb.send_done)
			CALLBACK(s, send_done, s, st->idx, ctx, status, s->user);
		m = next;
	}
}
