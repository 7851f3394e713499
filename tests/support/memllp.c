/* memllp: in-memory LLP pair for DDP core tests (see memllp.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memllp.h"

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "memllp: out of memory\n");
		abort();
	}
	return p;
}

static void *xcalloc(size_t n, size_t sz)
{
	void *p = calloc(n ? n : 1, sz ? sz : 1);

	if (!p) {
		fprintf(stderr, "memllp: out of memory\n");
		abort();
	}
	return p;
}

#define GROW(arr, n, cap)                                                  \
	do {                                                               \
		if ((n) == (cap)) {                                        \
			(cap) = (cap) ? 2 * (cap) : 16;                    \
			(arr) = xrealloc((arr), (cap) * sizeof(*(arr)));   \
		}                                                          \
	} while (0)

static void violation(memllp_side *sd, const char *what)
{
	if (sd->violations++ == 0)
		snprintf(sd->violation, sizeof(sd->violation), "side %d: %s",
			 sd->idx, what);
}

/* ------------------------------------------------------------ recorder */

static void rec_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	memllp_side *sd = user;
	memllp_dlv *r;

	GROW(sd->dlv, sd->ndlv, sd->dlv_cap);
	r = &sd->dlv[sd->ndlv++];
	r->d = *d;
	r->data = NULL;
	if (!d->tagged && d->status == 0 && d->buf) {
		size_t n = d->len < d->buf_len ? d->len : d->buf_len;

		r->data = xcalloc(1, n);
		memcpy(r->data, d->buf, n);
	}
}

static void rec_send_done(ddp_session *s, uint32_t stream, void *msg_ctx,
			  int status, void *user)
{
	memllp_side *sd = user;

	GROW(sd->done, sd->ndone, sd->done_cap);
	sd->done[sd->ndone++] = (memllp_done){ stream, msg_ctx, status };
}

static void rec_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	memllp_side *sd = user;

	GROW(sd->err, sd->nerr, sd->err_cap);
	sd->err[sd->nerr++] = *e;
}

static void rec_event(ddp_session *s, uint32_t stream,
		      enum ddp_stream_event ev, int status, void *user)
{
	memllp_side *sd = user;

	GROW(sd->ev, sd->nev, sd->ev_cap);
	sd->ev[sd->nev++] = (memllp_event){ stream, ev, status };
}

const ddp_callbacks memllp_recorder = {
	.deliver = rec_deliver,
	.send_done = rec_send_done,
	.error = rec_error,
	.stream_event = rec_event,
};

/* ------------------------------------------------------------ queues */

static memllp_seg *seg_new(int kind, uint32_t stream, size_t len)
{
	memllp_seg *g = xcalloc(1, sizeof(*g));

	g->kind = kind;
	g->stream = stream;
	g->seq = DDP_LLP_INORDER;
	g->len = len;
	g->data = xcalloc(1, len);
	return g;
}

static void seg_free(memllp_seg *g)
{
	if (g) {
		free(g->data);
		free(g);
	}
}

static memllp_seg *seg_dup(const memllp_seg *g)
{
	memllp_seg *c = seg_new(g->kind, g->stream, g->len);

	c->seq = g->seq;
	c->flags = g->flags;
	if (g->len)
		memcpy(c->data, g->data, g->len);
	return c;
}

static void q_push(memllp_side *sd, memllp_seg *g)
{
	g->next = NULL;
	if (sd->q_tail)
		sd->q_tail->next = g;
	else
		sd->q_head = g;
	sd->q_tail = g;
	sd->q_len++;
}

/* Unlink the idx-th queued item. */
static memllp_seg *q_take(memllp_side *sd, size_t idx)
{
	memllp_seg **pp = &sd->q_head, *prev = NULL;

	while (idx-- && *pp) {
		prev = *pp;
		pp = &(*pp)->next;
	}
	memllp_seg *g = *pp;
	if (!g)
		return NULL;
	*pp = g->next;
	if (sd->q_tail == g)
		sd->q_tail = prev;
	g->next = NULL;
	sd->q_len--;
	return g;
}

static void held_push(memllp_side *sd, memllp_seg *g)
{
	g->next = sd->held;
	sd->held = g;
	sd->held_len++;
}

static memllp_seg *held_take(memllp_side *sd, size_t idx)
{
	memllp_seg **pp = &sd->held;

	while (idx-- && *pp)
		pp = &(*pp)->next;
	memllp_seg *g = *pp;
	if (g) {
		*pp = g->next;
		g->next = NULL;
		sd->held_len--;
	}
	return g;
}

/* ------------------------------------------------------------ ops */

static int op_send(void *llp, uint32_t stream, const struct iovec *iov,
		   int iovcnt, size_t len, unsigned flags)
{
	memllp_side *sd = llp;
	memllp *m = sd->m;
	size_t sum = 0, off = 0;
	memllp_sent *r;
	memllp_seg *g;
	int ret = 0;

	if (!iov || iovcnt < 1) {
		violation(sd, "send without a header iov");
		return DDP_ERR_INVAL;
	}
	for (int i = 0; i < iovcnt; i++)
		sum += iov[i].iov_len;
	if (sum != len)
		violation(sd, "send: len != sum of iov lengths");
	if (iov[0].iov_len < 1 ||
	    iov[0].iov_len != ddp_hdr_len(*(const uint8_t *)iov[0].iov_base))
		violation(sd, "send: iov[0] is not exactly one DDP header");
	if (len > sd->mulpdu)
		violation(sd, "send: segment larger than the MULPDU");
	if (stream >= sd->nstreams)
		violation(sd, "send: stream out of range");
	if (!!(flags & DDP_LLP_SEG_TAGGED) !=
	    !!(*(const uint8_t *)iov[0].iov_base & 0x80))
		violation(sd, "send: TAGGED flag disagrees with the T bit");
	if (!!(flags & DDP_LLP_SEG_LAST) !=
	    !!(*(const uint8_t *)iov[0].iov_base & 0x40))
		violation(sd, "send: LAST flag disagrees with the L bit");

	if (m->cfg.fail_send_at && ++sd->nsend_calls == m->cfg.fail_send_at)
		return DDP_ERR_LLP;
	if (m->cfg.queue_cap && sd->q_len >= m->cfg.queue_cap) {
		sd->want_writable = 1;
		sd->nagain++;
		return DDP_ERR_AGAIN;
	}

	g = seg_new(MEMLLP_DATA, stream, sum);
	for (int i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len)
			memcpy(g->data + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	g->flags = flags;
	if (m->cfg.out_of_order && stream < sd->nstreams)
		g->seq = sd->seq_next[stream]++;
	if (m->cfg.pending && stream < sd->nstreams) {
		sd->pending_n[stream]++;
		ret = DDP_LLP_PENDING;
	}

	GROW(sd->sent, sd->nsent, sd->sent_cap);
	r = &sd->sent[sd->nsent++];
	r->stream = stream;
	r->flags = flags;
	r->len = sum;
	r->data = xcalloc(1, sum);
	memcpy(r->data, g->data, sum);
	r->ret = ret;

	q_push(sd, g);
	return ret;
}

static uint32_t op_mulpdu(void *llp)
{
	memllp_side *sd = llp;

	return sd->mulpdu;
}

static void record_close(memllp_side *sd, uint32_t stream, int abortive)
{
	GROW(sd->closes, sd->ncloses, sd->closes_cap);
	sd->closes[sd->ncloses++] = (memllp_close){ stream, abortive };
}

static void close_one(memllp_side *sd, uint32_t stream, int abortive)
{
	memllp_seg *g;

	if (stream >= sd->nstreams || sd->m->cfg.no_auto_close)
		return;
	if (abortive) {
		g = seg_new(MEMLLP_ABORT, stream, 0);
		q_push(sd, g);
		return;
	}
	if (sd->fin_sent[stream])
		return;
	sd->fin_sent[stream] = 1;
	g = seg_new(MEMLLP_FIN, stream, 0);
	q_push(sd, g);
}

static void op_close_stream(void *llp, uint32_t stream, int abortive)
{
	memllp_side *sd = llp;

	record_close(sd, stream, abortive);
	close_one(sd, stream, abortive);
}

static void op_close(void *llp, int abortive)
{
	memllp_side *sd = llp;

	record_close(sd, UINT32_MAX, abortive);
	if (sd->m->cfg.no_auto_close)
		return;
	if (abortive) {
		q_push(sd, seg_new(MEMLLP_ABORT, UINT32_MAX, 0));
		return;
	}
	for (uint32_t i = 0; i < sd->nstreams; i++)
		close_one(sd, i, 0);
}

const ddp_llp_ops memllp_ops = {
	.send = op_send,
	.mulpdu = op_mulpdu,
	.close_stream = op_close_stream,
	.close = op_close,
};

const ddp_llp_ops memllp_ops_no_close_stream = {
	.send = op_send,
	.mulpdu = op_mulpdu,
	.close_stream = NULL,
	.close = op_close,
};

/* ------------------------------------------------------------ receive */

static int rx_whole(memllp_side *to, uint32_t stream, uint32_t seq,
		    const uint8_t *b, size_t len)
{
	to->rx_segments++;
	return to->last_rx_rc = ddp_llp_rx_segment(to->s, stream, seq, b, len);
}

static int rx_hdr_first(memllp_side *to, uint32_t stream, uint32_t seq,
			const uint8_t *b, size_t len, int ok)
{
	memllp *m = to->m;
	size_t hl, plen, off = 0;
	ddp_rx rx;
	int rc;

	if (len < 1 || len < ddp_hdr_len(b[0]))
		return rx_whole(to, stream, seq, b, len);
	hl = ddp_hdr_len(b[0]);
	plen = len - hl;
	memset(&rx, 0, sizeof(rx));
	to->rx_segments++;
	rc = ddp_llp_rx_begin(to->s, stream, seq, b, hl, plen, &rx);
	if (rc) {
		to->last_rx_rc = rc;
		return rc;
	}
	if ((unsigned)rx.verdict < 3)
		to->rx_verdicts[rx.verdict]++;
	if (rx.verdict == DDP_RX_PLACE) {
		while (off < plen) {
			uint8_t *dst = ddp_llp_rx_dst(to->s, &rx, off);
			size_t n;

			if (!dst)
				break; /* revoked: discard the rest */
			n = chopper_piece(&m->rng, plen - off,
					  m->cfg.max_piece);
			memcpy(dst, b + hl + off, n);
			off += n;
			if (m->cfg.piece_hook && off < plen)
				m->cfg.piece_hook(m, to->idx, &rx, off,
						  m->cfg.hook_user);
		}
	}
	rc = ddp_llp_rx_end(to->s, &rx, ok);
	if (!ok)
		ddp_llp_error(to->s, stream, DDP_LAYER_LLP, 0,
			      DDP_MPA_ECODE_CRC);
	to->last_rx_rc = rc;
	return rc;
}

int memllp_inject(memllp *m, int to, uint32_t stream, uint32_t seq,
		  const uint8_t *bytes, size_t len, int hdr_first)
{
	memllp_side *sd = &m->side[to & 1];

	if (hdr_first)
		return rx_hdr_first(sd, stream, seq, bytes, len, 1);
	return rx_whole(sd, stream, seq, bytes, len);
}

/* Hand one item from `from` to its peer. */
static void deliver(memllp *m, int from, memllp_seg *g)
{
	memllp_side *to = &m->side[!from];
	int verdict = MEMLLP_PASS;

	switch (g->kind) {
	case MEMLLP_FIN:
		if (g->stream < to->nstreams && !to->fin_rcvd[g->stream]) {
			to->fin_rcvd[g->stream] = 1;
			ddp_llp_peer_closed(to->s, g->stream);
		}
		break;
	case MEMLLP_ABORT:
		ddp_llp_failed(to->s, g->stream, DDP_ERR_LLP);
		break;
	default:
		if (m->cfg.mutate)
			verdict = m->cfg.mutate(m, to->idx, g,
						m->cfg.hook_user);
		if (verdict == MEMLLP_DROP)
			break;
		if (verdict == MEMLLP_BADCRC && !m->cfg.hdr_first) {
			ddp_llp_error(to->s, g->stream, DDP_LAYER_LLP, 0,
				      DDP_MPA_ECODE_CRC);
			break;
		}
		if (m->cfg.hdr_first)
			rx_hdr_first(to, g->stream, g->seq, g->data, g->len,
				     verdict != MEMLLP_BADCRC);
		else
			rx_whole(to, g->stream, g->seq, g->data, g->len);
		break;
	}
}

int memllp_pump_one(memllp *m, int from)
{
	memllp_side *sd = &m->side[from & 1];
	int ooo = m->cfg.out_of_order;
	memllp_seg *g = NULL;

	if (!sd->q_head && !sd->held)
		return 0;
	/* held-back segments come back at random, or when nothing else is
	 * left, or before a control item may pass them */
	if (sd->held && (!sd->q_head || sd->q_head->kind != MEMLLP_DATA ||
			 chopper_chance(&m->rng, 30)))
		g = held_take(sd, chopper_below(&m->rng, sd->held_len));
	if (!g) {
		size_t idx = 0;

		if (ooo && chopper_chance(&m->rng, m->cfg.reorder_pct)) {
			size_t span = 0;

			for (memllp_seg *p = sd->q_head;
			     p && p->kind == MEMLLP_DATA &&
			     span < m->cfg.reorder_span;
			     p = p->next)
				span++;
			idx = chopper_below(&m->rng, span);
		}
		g = q_take(sd, idx);
		if (ooo && g->kind == MEMLLP_DATA &&
		    chopper_chance(&m->rng, m->cfg.drop_pct)) {
			held_push(sd, g);
			return 1;
		}
		if (ooo && g->kind == MEMLLP_DATA &&
		    chopper_chance(&m->rng, m->cfg.dup_pct))
			held_push(sd, seg_dup(g));
	}
	deliver(m, from & 1, g);
	seg_free(g);
	return 1;
}

void memllp_complete(memllp *m, int side)
{
	memllp_side *sd = &m->side[side & 1];

	for (uint32_t i = 0; i < sd->nstreams; i++) {
		while (sd->pending_n[i]) {
			sd->pending_n[i]--;
			ddp_llp_tx_done(sd->s, i);
		}
	}
}

static int housekeeping(memllp *m)
{
	int any = 0;

	for (int i = 0; i < 2; i++) {
		memllp_side *sd = &m->side[i];

		for (uint32_t k = 0; k < sd->nstreams; k++) {
			if (sd->pending_n[k])
				any = 1;
		}
		memllp_complete(m, i);
		if (sd->want_writable &&
		    (!m->cfg.queue_cap || sd->q_len < m->cfg.queue_cap)) {
			sd->want_writable = 0;
			ddp_llp_writable(sd->s);
			any = 1;
		}
		for (uint32_t k = 0; k < sd->nstreams; k++) {
			if (sd->fin_sent[k] && sd->fin_rcvd[k] &&
			    !sd->closed_sent[k]) {
				sd->closed_sent[k] = 1;
				ddp_llp_closed(sd->s, k);
				any = 1;
			}
		}
	}
	return any;
}

size_t memllp_pump(memllp *m)
{
	size_t moved = 0;
	int busy = 1;

	while (busy) {
		busy = housekeeping(m);
		for (int i = 0; i < 2; i++) {
			if (memllp_pump_one(m, i)) {
				moved++;
				busy = 1;
			}
		}
	}
	return moved;
}

size_t memllp_queued(const memllp *m, int side)
{
	return m->side[side & 1].q_len + m->side[side & 1].held_len;
}

void memllp_set_mulpdu(memllp *m, int side, uint32_t mulpdu)
{
	m->side[side & 1].mulpdu = mulpdu;
	ddp_llp_mulpdu_changed(m->side[side & 1].s, mulpdu);
}

ddp_session *memllp_session(memllp *m, int side)
{
	return m->side[side & 1].s;
}

/* ------------------------------------------------------------ life */

int memllp_new(const memllp_cfg *cfg, memllp **out)
{
	memllp *m = xcalloc(1, sizeof(*m));
	int rc;

	if (cfg)
		m->cfg = *cfg;
	if (!m->cfg.mulpdu)
		m->cfg.mulpdu = 1500;
	if (!m->cfg.max_piece)
		m->cfg.max_piece = 7;
	if (!m->cfg.reorder_span)
		m->cfg.reorder_span = 8;
	chopper_seed(&m->rng, m->cfg.seed);
	for (int i = 0; i < 2; i++) {
		memllp_side *sd = &m->side[i];

		sd->m = m;
		sd->idx = i;
		sd->mulpdu = m->cfg.mulpdu;
		sd->ctx = m->cfg.ctx[i];
		if (!sd->ctx && i == 1 && m->cfg.share_ctx) {
			sd->ctx = m->side[0].ctx;
		} else if (!sd->ctx) {
			rc = ddp_ctx_new(NULL, &sd->ctx);
			if (rc) {
				memllp_free(m);
				return rc;
			}
			m->owns_ctx[i] = 1;
		}
	}
	for (int i = 0; i < 2; i++) {
		memllp_side *sd = &m->side[i];
		const ddp_callbacks *cb = m->cfg.cb[i] ? m->cfg.cb[i]
						       : &memllp_recorder;
		void *user = m->cfg.cb[i] ? m->cfg.user[i] : sd;

		rc = ddp_session_new(sd->ctx, &m->cfg.scfg[i],
				     m->cfg.no_close_stream
					     ? &memllp_ops_no_close_stream
					     : &memllp_ops,
				     sd, cb, user, &sd->s);
		if (rc) {
			sd->s = NULL;
			memllp_free(m);
			return rc;
		}
		sd->nstreams = ddp_session_nstreams(sd->s);
		sd->seq_next = xcalloc(sd->nstreams, sizeof(*sd->seq_next));
		sd->pending_n = xcalloc(sd->nstreams, sizeof(*sd->pending_n));
		sd->fin_sent = xcalloc(sd->nstreams, sizeof(int));
		sd->fin_rcvd = xcalloc(sd->nstreams, sizeof(int));
		sd->closed_sent = xcalloc(sd->nstreams, sizeof(int));
	}
	*out = m;
	return 0;
}

static void free_queue(memllp_seg *g)
{
	while (g) {
		memllp_seg *n = g->next;

		seg_free(g);
		g = n;
	}
}

void memllp_free(memllp *m)
{
	if (!m)
		return;
	for (int i = 0; i < 2; i++) {
		ddp_session_free(m->side[i].s);
		m->side[i].s = NULL;
	}
	for (int i = 0; i < 2; i++) {
		memllp_side *sd = &m->side[i];

		if (m->owns_ctx[i])
			ddp_ctx_free(sd->ctx);
		free_queue(sd->q_head);
		free_queue(sd->held);
		for (size_t k = 0; k < sd->nsent; k++)
			free(sd->sent[k].data);
		for (size_t k = 0; k < sd->ndlv; k++)
			free(sd->dlv[k].data);
		free(sd->sent);
		free(sd->closes);
		free(sd->dlv);
		free(sd->err);
		free(sd->done);
		free(sd->ev);
		free(sd->seq_next);
		free(sd->pending_n);
		free(sd->fin_sent);
		free(sd->fin_rcvd);
		free(sd->closed_sent);
	}
	free(m);
}
