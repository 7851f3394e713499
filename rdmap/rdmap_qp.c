/* One RDMAP stream (RFC 5040): the send queue and its in-order completion,
 * ORD/IRD, the Read responder, Terminate (first error wins). */
#include <stdlib.h>
#include <string.h>

#include "rdmap_int.h"
#include "abi.h"

#define RDMAPI_MAX_IRD_ORD 0x3fffu /* 14-bit RFC 6581 field */

struct ddp_rdmap_qp *rdmapi_qp_find(ddp_rdmap_dev *dev, const ddp_session *s, uint32_t stream)
{
	struct ddp_rdmap_qp **pp = &dev->qps;
	for (struct ddp_rdmap_qp *q = dev->qps; q; pp = &q->next, q = q->next) {
		if (q->s == s && q->stream == stream) {
			if (pp != &dev->qps) { /* move to front: the busy one stays cheap */
				*pp = q->next;
				q->next = dev->qps;
				dev->qps = q;
			}
			return q;
		}
	}
	return NULL;
}

static void submit(struct ddp_rdmap_qp *qp);
static void complete_head(struct ddp_rdmap_qp *qp);
static void fail(struct ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent);

/* ------------------------------------------------------------ life cycle */

int ddp_rdmap_qp_new_sized(ddp_rdmap_dev *dev, ddp_session *s, uint32_t stream,
                           const ddp_rdmap_config *cfg, const ddp_rdmap_callbacks *cb, void *user,
                           ddp_rdmap_qp **out, uint64_t sizes)
{
	ddp_rdmap_config cfg_v;
	ddp_rdmap_callbacks cb_v;
	int rc;
	if (DDP_ABI_TAKE(rc, cfg_v, cfg, sizes, 0) || DDP_ABI_TAKE(rc, cb_v, cb, sizes, 1))
		return rc;
	if (!dev || !s || !cfg || !cb || !cb->complete || !out ||
	    stream >= ddp_session_nstreams(s) || cfg->ird > RDMAPI_MAX_IRD_ORD ||
	    cfg->ord > RDMAPI_MAX_IRD_ORD)
		return DDP_ERR_INVAL;
	if (rdmapi_qp_find(dev, s, stream))
		return DDP_ERR_BUSY;
	struct ddp_rdmap_qp *qp = calloc(1, sizeof(*qp));
	if (!qp)
		return DDP_ERR_NOMEM;
	qp->dev = dev;
	qp->s = s;
	qp->ctx = ddp_session_ctx(s);
	qp->stream = stream;
	qp->cfg = *cfg;
	if (!qp->cfg.max_send_wr)
		qp->cfg.max_send_wr = 1024;
	qp->cb = *cb;
	qp->user = user;
	qp->term_tx.tag = TAG_TERM;
	qp->term_rx.tag = TAG_QN2;
	qp->reads = calloc(cfg->ord ? cfg->ord : 1, sizeof(*qp->reads));
	qp->resp = calloc(cfg->ird ? cfg->ird : 1, sizeof(*qp->resp));
	if (!qp->reads || !qp->resp) {
		free(qp->reads);
		free(qp->resp);
		free(qp);
		return DDP_ERR_NOMEM;
	}
	/* RFC 5040 §5.1..§5.3 (IRD): IRD buffers on QN 1, one on QN 2. A Read
	 * Request beyond IRD finds no buffer: RFC 5041 §7.2 (1, 2, 0x02). */
	rc = 0;
	for (uint32_t i = 0; i < cfg->ird && !rc; i++) {
		qp->resp[i].tag = TAG_QN1;
		qp->resp[i].qp = qp;
		rc = ddp_post_recv(s, stream, DDP_RDMAP_QN_READ, qp->resp[i].buf,
		                   sizeof(qp->resp[i].buf), &qp->resp[i]);
	}
	if (!rc)
		rc = ddp_post_recv(s, stream, DDP_RDMAP_QN_TERM, qp->term_rx.buf,
		                   sizeof(qp->term_rx.buf), &qp->term_rx);
	qp->next = dev->qps;
	dev->qps = qp;
	if (rc) { /* the buffers already posted come back through the abort */
		ddp_rdmap_qp_free(qp);
		return rc;
	}
	*out = qp;
	return 0;
}

static void wr_free(struct rdmapi_wr *w)
{
	if (w->iov != w->iov_small)
		free(w->iov);
	free(w);
}

/* The Response no longer reads its source: drop the hold on the region
 * (the last one of an invalidated region gives the buffer back). */
static void resp_unhold(struct ddp_rdmap_qp *qp, struct rdmapi_resp *r)
{
	ddp_stag_hold *h = r->hold;
	r->hold = NULL;
	r->src = NULL;
	ddp_stag_unhold(qp->ctx, h);
}

static void qp_destroy(struct ddp_rdmap_qp *qp)
{
	qp->freeing = 1;
	if (!qp->ended) /* returns posted buffers and sends through us */
		ddp_stream_abort(qp->s, qp->stream);
	fail(qp, NULL, 0);
	struct ddp_rdmap_qp **pp = &qp->dev->qps;
	while (*pp && *pp != qp)
		pp = &(*pp)->next;
	if (*pp)
		*pp = qp->next;
	/* Responses DDP still had (a stream that had already ended is not
	 * aborted again, and sends nothing more): their regions go back */
	for (uint32_t i = 0; i < qp->cfg.ird; i++)
		resp_unhold(qp, &qp->resp[i]);
	for (struct rdmapi_wr *w = qp->head, *n; w; w = n) {
		n = w->next;
		wr_free(w);
	}
	free(qp->reads);
	free(qp->resp);
	free(qp);
}

void rdmapi_qp_enter(struct ddp_rdmap_qp *qp)
{
	life_enter(&qp->life);
}

void rdmapi_qp_leave(struct ddp_rdmap_qp *qp)
{
	if (life_leave(&qp->life))
		qp_destroy(qp);
}

int ddp_rdmap_qp_free(ddp_rdmap_qp *qp)
{
	if (!qp || qp->life.closing)
		return 0;
	if (life_close(&qp->life))
		qp_destroy(qp);
	/* else: freed inside a frame that uses it: silent from now on,
	 * released when that frame unwinds (rdmapi_qp_leave) */
	return 0;
}

void ddp_rdmap_qp_set_user(ddp_rdmap_qp *qp, void *user)
{
	if (qp)
		qp->user = user;
}
void *ddp_rdmap_qp_get_user(const ddp_rdmap_qp *qp)
{
	return qp ? qp->user : NULL;
}
ddp_session *ddp_rdmap_qp_session(const ddp_rdmap_qp *qp)
{
	return qp ? qp->s : NULL;
}
int ddp_rdmap_qp_failed(const ddp_rdmap_qp *qp)
{
	return qp ? qp->failed : 1;
}

/* ------------------------------------------------------------ posting */

int ddp_rdmap_post_recv(ddp_rdmap_qp *qp, void *buf, size_t len, void *ctx)
{
	if (!qp)
		return DDP_ERR_INVAL;
	if (qp->failed)
		return DDP_ERR_STREAM;
	return ddp_post_recv(qp->s, qp->stream, DDP_RDMAP_QN_SEND, buf, len, ctx);
}

static int wr_new(struct ddp_rdmap_qp *qp, enum ddp_rdmap_wc_kind kind, const struct iovec *iov,
                  int iovcnt, void *ctx, struct rdmapi_wr **out)
{
	if (!qp || iovcnt < 0 || (iovcnt && !iov))
		return DDP_ERR_INVAL;
	if (qp->failed)
		return DDP_ERR_STREAM;
	if (qp->nwr >= qp->cfg.max_send_wr)
		return DDP_ERR_LIMIT;
	uint64_t total = 0;
	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total > UINT32_MAX)
		return DDP_ERR_TOOBIG;
	struct rdmapi_wr *w = calloc(1, sizeof(*w));
	if (!w)
		return DDP_ERR_NOMEM;
	w->iov = w->iov_small;
	if (iovcnt > 2 && !(w->iov = malloc(sizeof(*iov) * (size_t)iovcnt))) {
		free(w);
		return DDP_ERR_NOMEM;
	}
	if (iovcnt)
		memcpy(w->iov, iov, sizeof(*iov) * (size_t)iovcnt);
	w->tag = TAG_WR;
	w->kind = kind;
	w->iovcnt = iovcnt;
	w->len = (uint32_t)total;
	w->ctx = ctx;
	*out = w;
	return 0;
}

static void wr_enqueue(struct ddp_rdmap_qp *qp, struct rdmapi_wr *w)
{
	if (qp->tail)
		qp->tail->next = w;
	else
		qp->head = w;
	qp->tail = w;
	if (!qp->sub)
		qp->sub = w;
	qp->nwr++;
	rdmapi_qp_enter(qp); /* completions may run: a free in them waits */
	submit(qp);
	rdmapi_qp_leave(qp);
}

int ddp_rdmap_post_send(ddp_rdmap_qp *qp, unsigned flags, uint32_t inv_stag,
                        const struct iovec *iov, int iovcnt, void *ctx)
{
	if (flags & ~(unsigned)(DDP_RDMAP_SEND_SE | DDP_RDMAP_SEND_INV))
		return DDP_ERR_INVAL;
	struct rdmapi_wr *w;
	int rc = wr_new(qp, DDP_RDMAP_WC_SEND, iov, iovcnt, ctx, &w);
	if (rc)
		return rc;
	static const uint8_t ops[4] = {DDP_RDMAP_OP_SEND, DDP_RDMAP_OP_SEND_SE,
	                               DDP_RDMAP_OP_SEND_INV, DDP_RDMAP_OP_SEND_SE_INV};
	w->opcode = ops[flags];
	w->inv_stag = (flags & DDP_RDMAP_SEND_INV) ? inv_stag : 0;
	wr_enqueue(qp, w);
	return 0;
}

int ddp_rdmap_post_write(ddp_rdmap_qp *qp, uint32_t stag, uint64_t to, const struct iovec *iov,
                         int iovcnt, void *ctx)
{
	struct rdmapi_wr *w;
	int rc = wr_new(qp, DDP_RDMAP_WC_WRITE, iov, iovcnt, ctx, &w);
	if (rc)
		return rc;
	if (w->len && to > UINT64_MAX - (w->len - 1)) {
		wr_free(w);
		return DDP_ERR_INVAL;
	}
	w->opcode = DDP_RDMAP_OP_WRITE;
	w->stag = stag;
	w->to = to;
	wr_enqueue(qp, w);
	return 0;
}

int ddp_rdmap_post_read(ddp_rdmap_qp *qp, uint32_t sink_stag, uint64_t sink_to, uint32_t src_stag,
                        uint64_t src_to, uint32_t len, void *ctx)
{
	if (qp && qp->cfg.ord == 0)
		return DDP_ERR_INVAL;
	struct rdmapi_wr *w;
	int rc = wr_new(qp, DDP_RDMAP_WC_READ, NULL, 0, ctx, &w);
	if (rc)
		return rc;
	w->opcode = DDP_RDMAP_OP_READ_REQ;
	w->len = len;
	/* RFC 5040 §4.4 */
	rdmapi_rreq r = {sink_stag, sink_to, len, src_stag, src_to};
	rdmapi_rreq_encode(&r, w->rreq);
	w->iov_small[0].iov_base = w->rreq;
	w->iov_small[0].iov_len = sizeof(w->rreq);
	w->iovcnt = 1;
	wr_enqueue(qp, w);
	return 0;
}

/* ------------------------------------------------------------ sending */

static uint64_t untagged_ulp(uint8_t opcode, uint32_t stag)
{
	/* RFC 5040 §4.2: the untagged RsvdULP is the RDMAP control octet and
	 * the 32-bit Invalidate STag (zero unless Send with Invalidate). */
	return (uint64_t)rdmapi_ctrl(opcode) << 32 | stag;
}

/* Hand one WR to DDP. Returns 0, or a DDP error (AGAIN/LIMIT: retry). */
static int wr_submit(struct ddp_rdmap_qp *qp, struct rdmapi_wr *w)
{
	int rc;
	w->state = WR_SUBMITTED;
	w->ddp_owned = 1;
	if (w->kind == DDP_RDMAP_WC_WRITE) /* RFC 5040 §4.3: tagged, opcode 0 */
		rc = ddp_send_tagged(qp->s, qp->stream, w->stag, w->to,
		                     rdmapi_ctrl(DDP_RDMAP_OP_WRITE), w->iov, w->iovcnt, w);
	else if (w->kind == DDP_RDMAP_WC_READ) /* RFC 5040 §5.2: QN 1 */
		rc =
		    ddp_send_untagged(qp->s, qp->stream, DDP_RDMAP_QN_READ,
		                      untagged_ulp(DDP_RDMAP_OP_READ_REQ, 0), w->iov, w->iovcnt, w);
	else /* RFC 5040 §5.1: QN 0 */
		rc = ddp_send_untagged(qp->s, qp->stream, DDP_RDMAP_QN_SEND,
		                       untagged_ulp(w->opcode, w->inv_stag), w->iov, w->iovcnt, w);
	if (rc) {
		w->state = WR_QUEUED;
		w->ddp_owned = 0;
	}
	return rc;
}

/* Answer Read Requests that wait for DDP room, in arrival order. */
static int resp_flush(struct ddp_rdmap_qp *qp)
{
	while (qp->pend_head && !qp->failed) {
		struct rdmapi_resp *r = qp->pend_head;
		struct iovec v = {r->src, r->req.size};
		/* RFC 5040 §4.5: Read Response, tagged into the sink STag */
		int rc = ddp_send_tagged(qp->s, qp->stream, r->req.sink_stag, r->req.sink_to,
		                         rdmapi_ctrl(DDP_RDMAP_OP_READ_RESP), &v, 1, r);
		if (rc == DDP_ERR_LIMIT || rc == DDP_ERR_AGAIN)
			return rc;
		qp->pend_head = r->next;
		if (!qp->pend_head)
			qp->pend_tail = NULL;
		if (rc) {
			resp_unhold(qp, r);
			if (rc == DDP_ERR_CLOSED || rc == DDP_ERR_STREAM) {
				/* the stream is gone or stopped: nothing to
				 * tell the peer, and nothing came from it */
				fail(qp, NULL, 0);
				return rc;
			}
			/* RFC 5040 §7.1: a local catastrophic error is
			 * reported to the peer in a Terminate of ours */
			ddp_rdmap_term t = {.layer = DDP_LAYER_RDMAP,
			                    .etype = DDP_RDMAP_ETYPE_CATASTROPHIC};
			fail(qp, &t, 1);
			return rc;
		}
	}
	return 0;
}

static void submit(struct ddp_rdmap_qp *qp)
{
	if (qp->in_submit) {
		qp->again = 1;
		return;
	}
	qp->in_submit = 1;
	do {
		qp->again = 0;
		if (resp_flush(qp))
			break;
		while (qp->sub && !qp->failed) {
			struct rdmapi_wr *w = qp->sub;
			/* RFC 5040 §5.5 / RFC 6581 §4: at most ORD Reads
			 * outstanding; later WRs wait behind the Read */
			if (w->kind == DDP_RDMAP_WC_READ && qp->rd_n >= qp->cfg.ord)
				break;
			int rc = wr_submit(qp, w);
			if (rc == DDP_ERR_LIMIT || rc == DDP_ERR_AGAIN) {
				qp->blocked = 1;
				break;
			}
			qp->sub = w->next;
			if (rc) {
				w->state = WR_DONE;
				w->status = rc;
				continue;
			}
			if (w->kind == DDP_RDMAP_WC_READ) {
				qp->reads[(qp->rd_head + qp->rd_n) % qp->cfg.ord] = w;
				qp->rd_n++;
			}
		}
	} while (qp->again);
	qp->in_submit = 0;
	complete_head(qp);
}

/* RFC 5040 §5.5: completions in posting order. */
static void complete_head(struct ddp_rdmap_qp *qp)
{
	if (qp->in_complete)
		return;
	qp->in_complete = 1;
	while (qp->head && (qp->head->state == WR_DONE || qp->failed)) {
		struct rdmapi_wr *w = qp->head;
		qp->head = w->next;
		if (!qp->head)
			qp->tail = NULL;
		if (qp->sub == w)
			qp->sub = w->next;
		qp->nwr--;
		ddp_rdmap_wc wc = {.kind = w->kind,
		                   .status = w->state == WR_DONE ? w->status : DDP_ERR_ABORTED,
		                   .wr_ctx = w->ctx,
		                   .len = w->len,
		                   .opcode = w->opcode};
		w->reported = 1;
		w->next = NULL;
		if (!w->ddp_owned)
			wr_free(w);
		QP_CALLBACK(qp, complete, qp, &wc, qp->user);
	}
	qp->in_complete = 0;
}

/* ------------------------------------------------------------ errors */

/* Hand the encoded Terminate to DDP. A stream whose send queue is at its
 * limit (DDP_ERR_LIMIT: large Read Responses ahead of it) takes it after
 * the next completion (rdmapi_qp_send_done): it must not be lost. */
static void term_push(struct ddp_rdmap_qp *qp)
{
	struct iovec v = {qp->term_tx.buf, (size_t)qp->term_tx.len};
	/* RFC 5040 §5.3 / §4.8: Terminate on QN 2, MSN 1, one message */
	int rc = ddp_send_untagged(qp->s, qp->stream, DDP_RDMAP_QN_TERM,
	                           untagged_ulp(DDP_RDMAP_OP_TERMINATE, 0), &v, 1, &qp->term_tx);
	qp->term_tx.queued = rc == DDP_ERR_LIMIT;
	if (rc == 0)
		qp->term_tx.ddp_owned = 1;
}

static void term_send(struct ddp_rdmap_qp *qp, const ddp_rdmap_term *t)
{
	int n = rdmapi_term_encode(t, qp->term_tx.buf, sizeof(qp->term_tx.buf));
	if (n < 0)
		return;
	qp->term_tx.len = n;
	term_push(qp);
}

/* The stream stops: first error wins (RFC 5040 §7.1). */
static void fail(struct ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent)
{
	if (qp->failed)
		return;
	qp->failed = 1;
	if (t && sent && !qp->ended)
		term_send(qp, t);
	if (qp->cb.terminate && !qp->freeing)
		QP_CALLBACK(qp, terminate, qp, t, sent, qp->user);
	/* every WR not completed yet is flushed (a Read never answered);
	 * Responses not handed to DDP yet are dropped with their holds */
	for (struct rdmapi_resp *r = qp->pend_head; r; r = r->next)
		resp_unhold(qp, r);
	qp->pend_head = qp->pend_tail = NULL;
	qp->rd_n = 0;
	complete_head(qp);
}

/* A Terminate of ours for an RDMAP-level error found in a delivered
 * untagged message (the DDP header is rebuilt from the delivery). */
static void fail_untagged(struct ddp_rdmap_qp *qp, const ddp_delivery *d, uint8_t etype,
                          uint8_t code, const uint8_t *rdmap_hdr, size_t rdmap_len)
{
	ddp_rdmap_term t = {.layer = DDP_LAYER_RDMAP, .etype = etype, .code = code};
	uint8_t *h = t.ddp_hdr;
	uint32_t v[3] = {d->qn, d->msn, 0};
	h[0] = 0x40 | DDP_VERSION; /* T=0 L=1 */
	for (int i = 0; i < 5; i++)
		h[1 + i] = (uint8_t)(d->rsvdulp >> (32 - 8 * i));
	for (int i = 0; i < 3; i++)
		for (int j = 0; j < 4; j++)
			h[6 + 4 * i + j] = (uint8_t)(v[i] >> (24 - 8 * j));
	t.ddp_hdr_len = DDP_UNTAGGED_HDR_LEN;
	t.d = 1;
	if (rdmap_len) {
		t.r = 1;
		t.rdmap_hdr_len = (uint8_t)rdmap_len;
		memcpy(t.rdmap_hdr, rdmap_hdr, rdmap_len);
	}
	fail(qp, &t, 1);
}

void rdmapi_qp_error(struct ddp_rdmap_qp *qp, const ddp_error_info *e)
{
	/* RFC 5040 §7.2 / RFC 5041 §7.2: a DDP (or LLP) error is reported to
	 * the peer in a Terminate with the offending DDP header */
	ddp_rdmap_term t = {.layer = e->layer, .etype = e->etype, .code = e->code};
	if (e->have_segment && e->hdr_len) {
		t.m = 1;
		t.d = 1;
		t.seg_len = e->seg_len > 0xffff ? 0xffff : (uint16_t)e->seg_len;
		t.ddp_hdr_len = e->hdr_len;
		memcpy(t.ddp_hdr, e->hdr, e->hdr_len);
	}
	fail(qp, &t, 1);
}

void rdmapi_qp_stream_event(struct ddp_rdmap_qp *qp, enum ddp_stream_event ev, int status)
{
	/* The peer closed its sending half (FIN, SCTP stream reset): nothing
	 * more can arrive, so no receive, Read Response or Terminate will;
	 * the queue pair ends as for a closed stream (the terminate callback
	 * with t = NULL, outstanding work requests flushed). rping's client,
	 * for one, ends its last iteration with a disconnect and nothing
	 * else. */
	if (ev != DDP_EV_HALF_CLOSED)
		qp->ended = 1;
	fail(qp, NULL, 0);
}

/* ------------------------------------------------------------ receiving */

static void read_request(struct ddp_rdmap_qp *qp, const ddp_delivery *d)
{
	struct rdmapi_resp *r = d->buf_ctx;
	const uint8_t *p = r->buf, *end = r->buf + d->len;
	if (d->len != RDMAPI_RREQ_LEN || rdmapi_rreq_decode(&r->req, &p, end)) {
		/* RFC 5040 §4.4: the header is 28 octets */
		fail_untagged(qp, d, DDP_RDMAP_ETYPE_OPERATION, DDP_RDMAP_ECODE_UNSPECIFIED, r->buf,
		              d->len < RDMAPI_RREQ_LEN ? d->len : RDMAPI_RREQ_LEN);
		return;
	}
	uint8_t etype = DDP_RDMAP_ETYPE_PROTECTION, code = 0;
	int bad = 1;
	/* RFC 5040 §4.8: source STag checks of the Data Source */
	if (r->req.size && r->req.src_to > UINT64_MAX - (r->req.size - 1)) {
		code = DDP_RDMAP_ECODE_TO_WRAP;
	} else {
		/* held until the Response was sent or flushed: an STag
		 * invalidated meanwhile (by us or by the peer's Send with
		 * Invalidate) stops new access at once, but its buffer stays
		 * the library's until this Response no longer reads it */
		int rc = ddp_stag_hold_read(qp->ctx, qp->s, qp->stream, r->req.src_stag,
		                            r->req.src_to, r->req.size, &r->src, &r->hold);
		if (rc == DDP_ERR_NOENT)
			code = DDP_RDMAP_ECODE_INVALID_STAG;
		else if (rc == DDP_ERR_ACCESS)
			code = DDP_RDMAP_ECODE_ACCESS;
		else if (rc)
			code = DDP_RDMAP_ECODE_BOUNDS;
		else
			bad = 0;
	}
	if (bad) {
		fail_untagged(qp, d, etype, code, r->buf, RDMAPI_RREQ_LEN);
		return;
	}
	r->tag = TAG_RESP;
	r->next = NULL;
	if (qp->pend_tail)
		qp->pend_tail->next = r;
	else
		qp->pend_head = r;
	qp->pend_tail = r;
	submit(qp);
}

static void read_response(struct ddp_rdmap_qp *qp, const ddp_delivery *d)
{
	if (!qp->rd_n) { /* RFC 5040 §4.8: a Response nobody asked for */
		ddp_rdmap_term t = {.layer = DDP_LAYER_RDMAP,
		                    .etype = DDP_RDMAP_ETYPE_OPERATION,
		                    .code = DDP_RDMAP_ECODE_OPCODE};
		fail(qp, &t, 1);
		return;
	}
	struct rdmapi_wr *w = qp->reads[qp->rd_head];
	qp->rd_head = (qp->rd_head + 1) % qp->cfg.ord;
	qp->rd_n--;
	w->state = WR_DONE;
	w->status = 0;
	w->len = d->len;
	submit(qp); /* a Read waiting for ORD may go now; completes in order */
}

static void recv_send(struct ddp_rdmap_qp *qp, const ddp_delivery *d, uint8_t op)
{
	ddp_rdmap_wc wc = {.kind = DDP_RDMAP_WC_RECV,
	                   .wr_ctx = d->buf_ctx,
	                   .len = d->len,
	                   .opcode = op,
	                   .buf = d->buf};
	wc.solicited = op == DDP_RDMAP_OP_SEND_SE || op == DDP_RDMAP_OP_SEND_SE_INV;
	if (op == DDP_RDMAP_OP_SEND_INV || op == DDP_RDMAP_OP_SEND_SE_INV) {
		/* RFC 5040 §5.1: the STag is invalid before the Send is
		 * delivered; only one this stream may name */
		uint32_t stag = (uint32_t)d->rsvdulp;
		/* DDP_STAG_IN_USE: invalid now, released when our Read
		 * Responses from it are out (ddp/ddp.h) */
		int rc = ddp_stag_invalidate_remote(qp->ctx, qp->s, qp->stream, stag);
		if (rc < 0) {
			wc.status = DDP_ERR_ACCESS;
			QP_CALLBACK(qp, complete, qp, &wc, qp->user);
			fail_untagged(qp, d,
			              rc == DDP_ERR_ACCESS ? DDP_RDMAP_ETYPE_PROTECTION
			                                   : DDP_RDMAP_ETYPE_OPERATION,
			              DDP_RDMAP_ECODE_CANNOT_INVALIDATE, NULL, 0);
			return;
		}
		wc.invalidated = 1;
		wc.inv_stag = stag;
	}
	QP_CALLBACK(qp, complete, qp, &wc, qp->user);
}

void rdmapi_qp_deliver(struct ddp_rdmap_qp *qp, const ddp_delivery *d)
{
	if (d->status < 0 || (qp->failed && !d->tagged)) {
		/* a buffer comes back unused: only the ULP's own are reported */
		if (!d->tagged && d->qn == DDP_RDMAP_QN_SEND) {
			ddp_rdmap_wc wc = {.kind = DDP_RDMAP_WC_RECV,
			                   .status = d->status < 0 ? d->status : DDP_ERR_ABORTED,
			                   .wr_ctx = d->buf_ctx,
			                   .buf = d->buf};
			QP_CALLBACK(qp, complete, qp, &wc, qp->user);
		}
		return;
	}
	if (qp->failed)
		return;
	uint8_t ctl = d->tagged ? (uint8_t)d->rsvdulp : (uint8_t)(d->rsvdulp >> 32);
	uint8_t op = rdmapi_ctrl_op(ctl);
	if (rdmapi_ctrl_rv(ctl) != DDP_RDMAP_VERSION) { /* RFC 5040 §4.2 / §4.8 */
		ddp_rdmap_term t = {.layer = DDP_LAYER_RDMAP,
		                    .etype = DDP_RDMAP_ETYPE_OPERATION,
		                    .code = DDP_RDMAP_ECODE_VERSION};
		fail(qp, &t, 1);
		return;
	}
	int ok;
	if (d->tagged) {
		ok = op == DDP_RDMAP_OP_WRITE || op == DDP_RDMAP_OP_READ_RESP;
		if (ok && op == DDP_RDMAP_OP_READ_RESP)
			read_response(qp, d);
		/* RFC 5040 §5.3: an RDMA Write completes nothing at the sink */
	} else if (d->qn == DDP_RDMAP_QN_SEND) {
		ok = op >= DDP_RDMAP_OP_SEND && op <= DDP_RDMAP_OP_SEND_SE_INV;
		if (ok)
			recv_send(qp, d, op);
	} else if (d->qn == DDP_RDMAP_QN_READ) {
		ok = op == DDP_RDMAP_OP_READ_REQ;
		if (ok)
			read_request(qp, d);
	} else {
		ok = op == DDP_RDMAP_OP_TERMINATE;
		if (ok) {
			const uint8_t *p = qp->term_rx.buf;
			ddp_rdmap_term t;
			if (ddp_rdmap_term_decode(&t, &p, p + d->len) != 0) {
				/* undecodable: reported as what it claims to be */
				memset(&t, 0, sizeof(t));
				t.layer = DDP_LAYER_RDMAP;
				t.etype = DDP_RDMAP_ETYPE_OPERATION;
				t.code = DDP_RDMAP_ECODE_UNSPECIFIED;
			}
			fail(qp, &t, 0); /* RFC 5040 §7.1: no Terminate back */
		}
	}
	if (!ok) { /* RFC 5040 §4.8: unexpected opcode */
		ddp_rdmap_term t = {.layer = DDP_LAYER_RDMAP,
		                    .etype = DDP_RDMAP_ETYPE_OPERATION,
		                    .code = DDP_RDMAP_ECODE_OPCODE};
		fail(qp, &t, 1);
	}
}

void rdmapi_qp_send_done(struct ddp_rdmap_qp *qp, void *msg_ctx, int status)
{
	enum rdmapi_tag tag = msg_ctx ? *(enum rdmapi_tag *)msg_ctx : 0;
	if (qp->term_tx.queued && status == 0)
		term_push(qp); /* room again for the waiting Terminate */
	if (tag == TAG_TERM) {
		qp->term_tx.ddp_owned = 0;
		return;
	}
	if (tag == TAG_RESP) {
		struct rdmapi_resp *r = msg_ctx;
		r->tag = TAG_QN1;
		resp_unhold(qp, r); /* DDP-DLV-4: the LLP has every octet */
		/* the Response is out: its QN 1 buffer takes the next Request */
		if (!qp->failed && !qp->ended)
			ddp_post_recv(qp->s, qp->stream, DDP_RDMAP_QN_READ, r->buf, sizeof(r->buf),
			              r);
		/* flushed: the LLP failed or the stream was aborted, and no
		 * Terminate came from the peer (ddp/rdmap.h: t is NULL) */
		if (status < 0)
			fail(qp, NULL, 0);
		submit(qp);
		return;
	}
	if (tag != TAG_WR)
		return;
	struct rdmapi_wr *w = msg_ctx;
	w->ddp_owned = 0;
	if (w->reported) {
		wr_free(w);
		return;
	}
	if (status < 0) { /* the LLP lost it: nothing later can follow */
		w->state = WR_DONE;
		w->status = status;
		fail(qp, NULL, 0);
		return;
	} else if (w->kind != DDP_RDMAP_WC_READ) {
		w->state = WR_DONE; /* RFC 5040 §5.5: Send/Write: DDP took it */
	}
	qp->blocked = 0;
	submit(qp);
}
