/* Receive: header-first validation (RFC 5041 §7.1) and placement, the
 * whole-segment entry, and in-order delivery (RFC 5041 §5.3-§5.4). Every
 * check runs before the adapter may write a single payload octet. */
#include <string.h>

#include "core.h"
#include "rx_flags.h"

/* Give the ticket an error verdict. The report waits for rx_end: only when
 * the LLP's integrity check passed is the header trusted (RFC 5044 §8: the
 * CRC is verified before DDP acts); first error wins (stream_error). */
static void rx_fail(ddp_session *s, struct ddp_stream *st, ddp_rx *rx, uint8_t etype, uint8_t code)
{
	(void)s;
	(void)st;
	rx->verdict = DDP_RX_ERROR;
	rx->dst = NULL;
	rx->etype_ = etype;
	rx->ecode_ = code;
	rx->gen_ |= RX_ERR_PENDING;
}

static void rx_report(ddp_session *s, struct ddp_stream *st, ddp_rx *rx)
{
	stream_error(s, st, DDP_LAYER_DDP, rx->etype_, rx->ecode_, rx->hdr_, rx->hdr_len_,
	             (uint64_t)rx->hdr_len_ + rx->payload_len);
}

/* RFC 5041 §7.1, tagged checks (DDP-VAL-T1..T6), in the order siw uses:
 * valid STag -> association -> access -> wrap -> bounds. */
static void check_tagged(ddp_session *s, struct ddp_stream *st, const struct ddp_hdr *h, ddp_rx *rx)
{
	size_t n = rx->payload_len;
	if (n == 0) {
		/* RFC 5041 §5.2 (DDP-SEG-8): a zero-length tagged segment only has
		 * to have valid control and RsvdULP; STag and TO MUST NOT be checked. */
		rx->verdict = DDP_RX_PLACE;
		return;
	}
	struct ddp_mr *mr = stag_lookup(s->ctx, h->stag);
	if (!mr) { /* DDP-VAL-T1/T2, DDP-SEC-5: unknown, stale key or revoked */
		rx_fail(s, st, rx, DDP_ETYPE_TAGGED, DDP_ECODE_T_INVALID_STAG);
		return;
	}
	int assoc = mr->session ? (mr->session == s && mr->stream == st->idx)
	                        : (mr->pd != NULL && mr->pd == st->pd);
	if (!assoc) { /* DDP-VAL-T6, DDP-SEC-1/2/7: another PD or stream */
		rx_fail(s, st, rx, DDP_ETYPE_TAGGED, DDP_ECODE_T_NOT_ASSOCIATED);
		return;
	}
	if (!(mr->access & DDP_ACCESS_REMOTE_WRITE)) { /* DDP-SEC-6 (as siw: 1/0) */
		rx_fail(s, st, rx, DDP_ETYPE_TAGGED, DDP_ECODE_T_INVALID_STAG);
		return;
	}
	if (h->to > UINT64_MAX - (n - 1)) { /* DDP-VAL-T5: TO + len wraps 2^64 */
		rx_fail(s, st, rx, DDP_ETYPE_TAGGED, DDP_ECODE_T_TO_WRAP);
		return;
	}
	/* DDP-VAL-T3/T4, DDP-SEC-4: overflow-safe octet-granular bounds. */
	if (h->to < mr->to_base || n > mr->len || h->to - mr->to_base > mr->len - n) {
		rx_fail(s, st, rx, DDP_ETYPE_TAGGED, DDP_ECODE_T_BOUNDS);
		return;
	}
	rx->verdict = DDP_RX_PLACE;
	rx->dst = mr->addr + (h->to - mr->to_base);
	rx->stag_ = h->stag;
	rx->tagged_ = 1;
}

/* An untagged segment whose buffer is not posted yet, handed up out of
 * order (SCTP: segments of later messages overtake earlier ones) for a
 * later MSN: the buffer may well be posted by the ULP when the earlier
 * messages are delivered (a ULP that reposts in its deliver callback). It
 * waits, copied into memory charged to the reorder budget, and is checked
 * again when every segment before it was handed up (rx_deliver_ready):
 * exactly the check an in-order LLP (MPA) would have made at that point,
 * so reposting in deliver works the same over both LLPs. Returns 1 when
 * held (rx then places into the hold), 0 when the check stands now. */
static int hold_untagged(ddp_session *s, struct ddp_stream *st, const struct ddp_hdr *h, ddp_rx *rx)
{
	const struct uq *q = &st->uq[h->qn];
	if (rx->seq_ == st->win.base || (uint32_t)(h->msn - q->head_msn) >= 0x80000000u)
		return 0; /* in order now, or an MSN already used */
	struct rx_held *hd = order_hold_new(&st->win, rx->payload_len);
	if (!hd)
		return 0; /* no room: the error, as without the hold */
	hd->hdr_len = rx->hdr_len_;
	memcpy(hd->hdr, rx->hdr_, rx->hdr_len_);
	(void)s;
	rx->slot_ = hd;
	rx->verdict = DDP_RX_PLACE;
	rx->dst = rx->payload_len ? hd->data : NULL;
	return 1;
}

/* RFC 5041 §7.1, untagged checks (DDP-VAL-U1..U5). may_hold: a missing
 * buffer may wait for the earlier messages (hold_untagged). in_order: the
 * segment is the next one the LLP sent (it joins the contiguous prefix
 * when it ends): it must then also continue its message where the octets
 * placed so far end (placed_in_order), checked here so that a segment
 * failing it places nothing; one placed ahead of its turn is checked when
 * its turn comes. */
static void check_untagged(ddp_session *s, struct ddp_stream *st, const struct ddp_hdr *h,
                           ddp_rx *rx, int may_hold, int in_order)
{
	if (h->qn >= s->cfg.nqueues) { /* DDP-VAL-U1 */
		rx_fail(s, st, rx, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_INVALID_QN);
		return;
	}
	struct uq_ent *e = NULL;
	switch (uq_find(&st->uq[h->qn], h->msn, &e)) {
	case UQ_NOBUF: /* DDP-VAL-U2 */
		if (!may_hold || !hold_untagged(s, st, h, rx))
			rx_fail(s, st, rx, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_MSN_NOBUF);
		return;
	case UQ_RANGE: /* DDP-VAL-U5 */
		if (!may_hold || !hold_untagged(s, st, h, rx))
			rx_fail(s, st, rx, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_MSN_RANGE);
		return;
	case UQ_OK:
		break;
	}
	size_t n = rx->payload_len;
	/* a message is shorter than 2^32 octets (DDP-SEG-2, MO is 32 bits):
	 * of a longer buffer only the first UINT32_MAX octets can be used */
	size_t room = e->len > UINT32_MAX ? UINT32_MAX : e->len;
	if (n == 0 && h->last && h->mo > room) {
		/* A zero-length L=1 segment is not checked by §7.1, but it would
		 * deliver a message of MO octets (DDP-SEG-10): never more than the
		 * buffer holds. */
		rx_fail(s, st, rx, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_INVALID_MO);
		return;
	}
	if (n) {
		if (h->mo >= room) { /* DDP-VAL-U3 */
			rx_fail(s, st, rx, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_INVALID_MO);
			return;
		}
		if (n > room - h->mo) { /* DDP-VAL-U4 */
			rx_fail(s, st, rx, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_TOO_LONG);
			return;
		}
	}
	if (in_order && !uq_rx_continues(&st->uq[h->qn], h->msn, h->mo)) {
		/* octets of the message before MO were not placed, or would
		 * be placed twice (uq_rx_segment) */
		rx_fail(s, st, rx, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_INVALID_MO);
		return;
	}
	rx->verdict = DDP_RX_PLACE;
	rx->dst = n ? (uint8_t *)e->buf + h->mo : NULL;
}

int ddp_llp_rx_begin(ddp_session *s, uint32_t stream, uint32_t seq, const uint8_t *hdr,
                     size_t hdr_len, size_t payload_len, ddp_rx *rx)
{
	if (!s || !rx || !hdr || stream >= s->cfg.nstreams || s->active_rx)
		return DDP_ERR_INVAL;
	if (hdr_len == 0 || hdr_len != wire_hdr_len(hdr[0]))
		return DDP_ERR_INVAL;
	memset(rx, 0, sizeof(*rx));
	rx->payload_len = payload_len;
	rx->stream_ = stream;
	memcpy(rx->hdr_, hdr, hdr_len);
	rx->hdr_len_ = (uint8_t)hdr_len;
	rx->active_ = 1;
	rx->verdict = DDP_RX_DROP;
	s->active_rx = rx;

	struct ddp_stream *st = &s->st[stream];
	st->traffic = 1;
	/* DDP-ERR-3: after an error every later segment is dropped silently;
	 * a silenced session places nothing into the ULP's buffers. */
	if (st->dead || st->errored || s->silenced)
		return 0;
	if (st->rx_state == RX_PEER_CLOSED) {
		/* RFC 5041 §6 (DDP-TRD-3): data after the LLP reported a graceful
		 * teardown is an error; the stream is torn down abortively. */
		rx_fail(s, st, rx, DDP_ETYPE_LLP, DDP_ECODE_LLP_AFTER_CLOSE);
		rx->gen_ |= RX_ABORT_AFTER;
		return 0;
	}
	switch (order_classify(&st->win, seq, &rx->seq_)) {
	case ORD_DUP: /* DDP-LLP-11 / DDP-ORD-4: never twice */
		return 0;
	case ORD_OUTSIDE: /* RFC 5043 §10: an invalid DDP-SSN MAY end the stream */
		rx_fail(s, st, rx, DDP_ETYPE_LLP, DDP_ECODE_LLP_BAD_SSN);
		return 0;
	case ORD_NEW:
		break;
	}
	struct ddp_hdr h;
	wire_decode(&h, hdr, hdr_len);
	if (h.dv != DDP_VERSION) { /* RFC 5041 §4.1 (DDP-HDR-8) */
		if (h.tagged)
			rx_fail(s, st, rx, DDP_ETYPE_TAGGED, DDP_ECODE_T_BAD_VERSION);
		else
			rx_fail(s, st, rx, DDP_ETYPE_UNTAGGED, DDP_ECODE_U_BAD_VERSION);
		return 0;
	}
	if (h.tagged)
		check_tagged(s, st, &h, rx);
	else
		check_untagged(s, st, &h, rx, 1, rx->seq_ == st->win.base);
	return 0;
}

void *ddp_llp_rx_dst(ddp_session *s, ddp_rx *rx, size_t off)
{
	if (!s || !rx || !rx->active_ || s->active_rx != rx || rx->verdict != DDP_RX_PLACE)
		return NULL;
	if ((rx->gen_ & (RX_REVOKED | RX_STALE)) || !rx->dst || off > rx->payload_len)
		return NULL;
	return (uint8_t *)rx->dst + off;
}

/* An untagged segment's error, reported with its header rebuilt from
 * what the ordering window kept of it (DDP-ERR-2). */
static void report_untagged(ddp_session *s, struct ddp_stream *st, const struct dlv_rec *r,
                            int last, uint8_t code)
{
	struct ddp_hdr h = {0};
	uint8_t hb[DDP_MAX_HDR_LEN];
	h.last = (uint8_t)(last != 0);
	h.dv = DDP_VERSION;
	h.rsvdulp = r->rsvdulp;
	h.qn = r->qn;
	h.msn = r->msn;
	h.mo = r->mo;
	size_t hl = wire_encode(&h, hb, sizeof(hb));
	stream_error(s, st, DDP_LAYER_DDP, DDP_ETYPE_UNTAGGED, code, hb, hl, hl + r->payload);
}

/* A placed segment joins the contiguous prefix (the order the LLP sent
 * it): an untagged one must continue its message where the octets placed
 * so far end (uq_rx_segment), or the message would be delivered with
 * octets nobody placed. Such a segment is an invalid MO (2, 0x04): it
 * names an offset at which this message's octets do not continue
 * (docs/design.md, "Semantics chosen where RFC 5041 leaves room").
 * Returns 0, or -1 once the stream stopped. */
static int placed_in_order(ddp_session *s, struct ddp_stream *st, const struct dlv_rec *r, int last)
{
	if (r->tagged || !uq_rx_segment(&st->uq[r->qn], r->msn, r->mo, r->payload, last))
		return 0;
	report_untagged(s, st, r, last, DDP_ECODE_U_INVALID_MO);
	return -1;
}

/* Hand one completed message to the ULP (DDP-DLV-1..3). */
static void deliver(ddp_session *s, struct ddp_stream *st, const struct dlv_rec *r,
                    uint64_t msg_bytes)
{
	ddp_delivery d;
	memset(&d, 0, sizeof(d));
	d.stream = st->idx;
	d.tagged = r->tagged;
	d.rsvdulp = r->rsvdulp;
	if (r->tagged) {
		d.len = msg_bytes > UINT32_MAX ? UINT32_MAX : (uint32_t)msg_bytes;
		d.stag = r->stag;
		d.to = r->to;
		/* the segments of a tagged message are contiguous (DDP-SEG-5):
		 * it ends where its L=1 segment ends */
		d.to_first = r->to + r->payload - msg_bytes;
	} else {
		struct uq *q = &st->uq[r->qn];
		/* Messages of a queue complete in MSN order; a peer that skips or
		 * repeats MSNs is caught here (MSN out of range). */
		if (!q->count || q->head_msn != r->msn) {
			/* DDP-ERR-2: report the L=1 segment's header */
			report_untagged(s, st, r, 1, DDP_ECODE_U_MSN_RANGE);
			return;
		}
		struct uq_ent e;
		uq_pop(q, &e);
		d.qn = r->qn;
		d.msn = r->msn;
		d.len = r->len;
		d.buf = e.buf;
		d.buf_len = e.len;
		d.buf_ctx = e.ctx;
	}
	st->cnt.msgs_rx++;
	st->cnt.octets_rx += d.len;
	CALLBACK(s, deliver, s, &d, s->user);
}

static void rec_from_hdr(struct dlv_rec *r, const struct ddp_hdr *h, size_t payload);

/* A held segment's turn (hold_untagged): check it as an in-order LLP would
 * have now, then copy it into its buffer (counted) and make the slot an
 * ordinary placed one; or report the error. Returns 0 or -1. */
static int hold_place(ddp_session *s, struct ddp_stream *st, struct order_slot *sl)
{
	struct rx_held *hd = sl->held;
	struct ddp_hdr h;
	ddp_rx r;
	memset(&r, 0, sizeof(r));
	r.payload_len = hd->len;
	r.hdr_len_ = hd->hdr_len;
	memcpy(r.hdr_, hd->hdr, hd->hdr_len);
	wire_decode(&h, hd->hdr, hd->hdr_len);
	check_untagged(s, st, &h, &r, 0, 1); /* its turn: the next in order */
	if (r.verdict != DDP_RX_PLACE) {
		order_hold_free(&st->win, hd);
		rx_report(s, st, &r);
		return -1;
	}
	if (hd->len) {
		memcpy(r.dst, hd->data, hd->len);
		s->copied += hd->len;
	}
	sl->state = SLOT_PLACED;
	sl->payload = hd->len;
	order_hold_free(&st->win, hd);
	rec_from_hdr(&sl->rec, &h, r.payload_len);
	return 0;
}

/* Advance the contiguous prefix and deliver every message it completes. */
void rx_deliver_ready(ddp_session *s, struct ddp_stream *st)
{
	struct order_win *w = &st->win;
	uint32_t epoch = st->epoch;
	while (w->held && !st->errored && st->epoch == epoch) {
		struct order_slot *sl = &w->ring[w->base & (w->cap - 1)];
		if (sl->state == SLOT_EMPTY)
			break;
		struct order_slot cur = *sl;
		memset(sl, 0, sizeof(*sl));
		w->held--;
		w->base++;
		if (cur.state == SLOT_HELD && hold_place(s, st, &cur) < 0)
			break; /* reported: the stream stopped */
		if (cur.state != SLOT_PLACED)
			continue;
		if (placed_in_order(s, st, &cur.rec, cur.last) < 0)
			break; /* reported: the stream stopped */
		w->msg_bytes += cur.payload;
		if (cur.last) {
			uint64_t n = w->msg_bytes;
			w->msg_bytes = 0;
			deliver(s, st, &cur.rec, n);
		}
	}
	if (st->epoch == epoch)
		order_release_if_empty(w); /* drained: the memory goes back */
}

static void rec_from_hdr(struct dlv_rec *r, const struct ddp_hdr *h, size_t payload)
{
	memset(r, 0, sizeof(*r));
	r->tagged = h->tagged;
	r->rsvdulp = h->rsvdulp;
	r->qn = h->qn;
	r->msn = h->msn;
	r->len = (uint32_t)(h->mo + payload); /* DDP-SEG-10; bounded by buffer */
	r->mo = h->mo;
	r->payload = (uint32_t)payload;
	r->stag = h->stag;
	r->to = h->to;
}

static void reorder_refused(ddp_session *s, struct ddp_stream *st, ddp_rx *rx, int rc);

/* rx_end of a segment read into a hold (hold_untagged): it waits in the
 * ordering window for its turn, or goes if it did not pass. */
static int end_held(ddp_session *s, struct ddp_stream *st, ddp_rx *rx, int ok)
{
	struct rx_held *hd = rx->slot_;
	rx->slot_ = NULL;
	if (!ok || (rx->gen_ & RX_STALE) || st->errored || st->dead || s->silenced) {
		order_hold_free(&st->win, hd);
		return 0;
	}
	struct ddp_hdr h;
	wire_decode(&h, rx->hdr_, rx->hdr_len_);
	int rc = order_mark_held(&st->win, rx->seq_, h.last, hd);
	if (rc) {
		order_hold_free(&st->win, hd);
		reorder_refused(s, st, rx, rc);
	}
	return 0;
}

int ddp_llp_rx_end(ddp_session *s, ddp_rx *rx, int ok)
{
	if (!s || !rx || !rx->active_ || s->active_rx != rx)
		return DDP_ERR_INVAL;
	s->active_rx = NULL;
	rx->active_ = 0;
	struct ddp_stream *st = &s->st[rx->stream_];
	if (rx->slot_)
		return end_held(s, st, rx, ok);
	if (rx->gen_ & RX_STALE)
		return 0; /* its buffers went back to the ULP meanwhile */
	if (rx->gen_ & RX_ERR_PENDING) {
		if (!ok || st->dead)
			return 0; /* condemned by the LLP: its error, not ours */
		rx_report(s, st, rx);
		if (rx->gen_ & RX_ABORT_AFTER)
			ddp_stream_abort(s, rx->stream_);
		return 0;
	}
	if (rx->verdict != DDP_RX_PLACE || st->errored || st->dead || s->silenced)
		return 0;
	if (rx->gen_ & RX_REVOKED) { /* DDP-SEC-5: revoked while in flight */
		if (ok) {
			rx_fail(s, st, rx, DDP_ETYPE_TAGGED, DDP_ECODE_T_INVALID_STAG);
			rx_report(s, st, rx);
		}
		return 0;
	}
	if (!ok)
		return 0; /* integrity failed: not placed; the LLP reports it */
	struct ddp_hdr h;
	wire_decode(&h, rx->hdr_, rx->hdr_len_);
	struct dlv_rec rec;
	rec_from_hdr(&rec, &h, rx->payload_len);
	uint32_t payload = (uint32_t)rx->payload_len;
	struct order_win *w = &st->win;
	if (rx->seq_ == w->base && w->held == 0) {
		/* fast path: in order, nothing held back */
		w->base++;
		if (placed_in_order(s, st, &rec, h.last) < 0)
			return 0;
		w->msg_bytes += payload;
		if (h.last) {
			uint64_t n = w->msg_bytes;
			w->msg_bytes = 0;
			deliver(s, st, &rec, n);
		}
		return 0;
	}
	int rc = order_mark(w, rx->seq_, SLOT_PLACED, h.last, payload, &rec);
	if (rc) {
		reorder_refused(s, st, rx, rc);
		return 0;
	}
	rx_deliver_ready(s, st);
	return 0;
}

/* Over the session's share of the reorder budget (order.c,
 * docs/fairness.md) or out of memory: this stream stops with RFC 5041
 * §7.2 Local Catastrophic; other sessions go on. */
static void reorder_refused(ddp_session *s, struct ddp_stream *st, ddp_rx *rx, int rc)
{
	if (rc == DDP_ERR_LIMIT)
		ddp_llp_log_limited(s->ctx, DDP_LOGK_REORDER_REFUSED, DDP_LOG_WARN,
		                    "reorder budget: stream %u refused a ring: its session "
		                    "holds %llu octets (share %llu), the context %llu of %llu",
		                    st->idx, (unsigned long long)s->ooo.used,
		                    (unsigned long long)((s->ctx->ooo.max - s->ctx->ooo.max / 8) /
		                                         (s->ctx->ooo.nactive + !s->ooo.used)),
		                    (unsigned long long)s->ctx->ooo.used,
		                    (unsigned long long)s->ctx->ooo.max);
	stream_error(s, st, DDP_LAYER_DDP, DDP_ETYPE_CATASTROPHIC, 0, rx->hdr_, rx->hdr_len_,
	             rx->hdr_len_ + rx->payload_len);
}

int ddp_llp_rx_segment(ddp_session *s, uint32_t stream, uint32_t seq, const uint8_t *seg,
                       size_t len)
{
	if (!s || stream >= s->cfg.nstreams || (!seg && len) || s->active_rx)
		return DDP_ERR_INVAL;
	struct ddp_stream *st = &s->st[stream];
	if (len == 0 || len < wire_hdr_len(seg[0])) {
		/* RFC 5041 §3: the LLP gives the segment length; a segment shorter
		 * than its header is malformed. */
		if (!st->errored && !st->dead)
			stream_error(s, st, DDP_LAYER_DDP, DDP_ETYPE_LLP, DDP_ECODE_LLP_SHORT, seg,
			             len > DDP_MAX_HDR_LEN ? DDP_MAX_HDR_LEN : len, len);
		return 0;
	}
	size_t hl = wire_hdr_len(seg[0]);
	ddp_rx rx;
	int r = ddp_llp_rx_begin(s, stream, seq, seg, hl, len - hl, &rx);
	if (r)
		return r;
	if (rx.verdict == DDP_RX_PLACE && len > hl) {
		memcpy(rx.dst, seg + hl, len - hl);
		s->copied += len - hl;
	}
	return ddp_llp_rx_end(s, &rx, 1);
}

int ddp_llp_rx_skip(ddp_session *s, uint32_t stream, uint32_t seq)
{
	if (!s || stream >= s->cfg.nstreams || seq == DDP_LLP_INORDER)
		return DDP_ERR_INVAL;
	struct ddp_stream *st = &s->st[stream];
	if (st->dead || st->errored)
		return 0;
	uint32_t sq;
	switch (order_classify(&st->win, seq, &sq)) {
	case ORD_DUP:
		return 0;
	case ORD_OUTSIDE:
		stream_error(s, st, DDP_LAYER_DDP, DDP_ETYPE_LLP, DDP_ECODE_LLP_BAD_SSN, NULL, 0,
		             0);
		return 0;
	case ORD_NEW:
		break;
	}
	struct order_win *w = &st->win;
	if (sq == w->base && w->held == 0) {
		w->base++;
		return 0;
	}
	int rc = order_mark(w, sq, SLOT_SKIP, 0, 0, NULL);
	if (rc) {
		/* Not recorded (DDP_ERR_LIMIT: the context's max_reorder_bytes,
		 * DDP_ERR_NOMEM): the stream could never get past seq. Stop it
		 * as ddp_llp_rx_end does when a segment cannot be held: a local
		 * catastrophic error (RFC 5041 §7.2), first error wins. */
		stream_error(s, st, DDP_LAYER_DDP, DDP_ETYPE_CATASTROPHIC, 0, NULL, 0, 0);
		return rc;
	}
	rx_deliver_ready(s, st);
	return 0;
}
