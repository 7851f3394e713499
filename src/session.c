/* Sessions and streams: creation, posted buffers, errors, teardown
 * (RFC 5041 §6, §7.2). */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "conn_glue.h"
#include "core.h"
#include "dlist.h"
#include "abi.h"

#define DEF_NQUEUES       3
#define DEF_MAX_POSTED    1024
#define DEF_MAX_TXQ       4096
#define DEF_MAX_TX_OCTETS (4u << 20)
#define DEF_WINDOW        1024
#define MAX_WINDOW        32768
#define MIN_MULPDU        (DDP_UNTAGGED_HDR_LEN + 1)

static uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;
	while (p < v)
		p <<= 1;
	return p;
}

int ddp_session_new_sized(ddp_ctx *ctx, const ddp_session_config *cfg, const ddp_llp_ops *ops,
                          void *llp, const ddp_callbacks *cb, void *user, ddp_session **out,
                          uint64_t sizes)
{
	ddp_session_config c = {0};
	ddp_callbacks cb_v;
	int rc = DDP_ABI_IN(c, cfg, sizes, 0);
	if (!rc)
		rc = DDP_ABI_IN(cb_v, cb, sizes, 1);
	if (rc)
		return rc;
	cb = cb ? &cb_v : NULL;
	if (!out)
		return DDP_ERR_INVAL;
	*out = NULL;
	if (!ctx || !ops || !ops->send || !ops->mulpdu || !ops->close || !cb || !cb->deliver)
		return DDP_ERR_INVAL;
	if (!c.nstreams)
		c.nstreams = 1;
	if (!c.nqueues)
		c.nqueues = DEF_NQUEUES;
	if (!c.max_posted)
		c.max_posted = DEF_MAX_POSTED;
	if (!c.max_tx_queued)
		c.max_tx_queued = DEF_MAX_TXQ;
	if (!c.max_tx_octets)
		c.max_tx_octets = DEF_MAX_TX_OCTETS;
	if (!c.reorder_window)
		c.reorder_window = DEF_WINDOW;
	if (c.nstreams > 65535 || c.nqueues > 65536 || c.reorder_window > MAX_WINDOW)
		return DDP_ERR_INVAL;
	if (c.pd && c.pd->ctx != ctx)
		return DDP_ERR_INVAL;
	uint32_t mulpdu = ops->mulpdu(llp);
	if (mulpdu < MIN_MULPDU)
		return DDP_ERR_INVAL;

	ddp_session *s = ddp_calloc_(1, sizeof(*s));
	if (!s)
		return DDP_ERR_NOMEM;
	s->st = ddp_calloc_(c.nstreams, sizeof(*s->st));
	if (!s->st) {
		free(s);
		return DDP_ERR_NOMEM;
	}
	for (uint32_t i = 0; i < c.nstreams; i++) {
		struct ddp_stream *st = &s->st[i];
		st->idx = i;
		st->pd = c.pd;
		st->win.size = pow2_at_least(c.reorder_window);
		st->win.budget = &ctx->ooo;
		st->win.acct = &s->ooo;
		st->uq = ddp_calloc_(c.nqueues, sizeof(*st->uq));
		if (!st->uq) {
			for (uint32_t j = 0; j < i; j++)
				free(s->st[j].uq);
			free(s->st);
			free(s);
			return DDP_ERR_NOMEM;
		}
		for (uint32_t q = 0; q < c.nqueues; q++)
			uq_reset(&st->uq[q]);
	}
	if (c.pd)
		c.pd->refs += c.nstreams;
	/* a fair share of the context's reorder budget (order.c) */
	ooo_join(&ctx->ooo, &s->ooo);
	s->ctx = ctx;
	s->cfg = c;
	s->ops = ops;
	s->llp = llp;
	s->cb = *cb;
	s->user = user;
	s->mulpdu = mulpdu;
	DLIST_PUSH(&ctx->sessions, s);
	ctx->nsessions++;
	*out = s;
	return 0;
}

void ddp_session_set_owned(ddp_session *s)
{
	if (s)
		s->owned = 1;
}

int ddp_session_free_owned(ddp_session *s)
{
	if (s)
		s->owned = 0;
	return ddp_session_free(s);
}

int ddp_session_free(ddp_session *s)
{
	if (!s)
		return 0;
	if (s->owned) {
		/* the adapter frees it after down() / with its connection */
		ddp_llp_log(s->ctx, DDP_LOG_ERROR,
		            "ddp_session_free of a session its adapter owns: refused (end it with "
		            "ddp_session_close; the adapter frees it after down)");
		return DDP_ERR_STATE;
	}
	if (s->in_cb) {
		/* the calling frame still uses the session */
		ddp_llp_log(s->ctx, DDP_LOG_ERROR,
		            "ddp_session_free inside a callback of that session: refused");
		return DDP_ERR_BUSY;
	}
	for (uint32_t i = 0; i < s->cfg.nstreams; i++)
		s->st[i].dead = 1; /* callbacks below cannot post or send again */
	for (uint32_t i = 0; i < s->cfg.nstreams; i++)
		stream_flush(s, &s->st[i], DDP_ERR_ABORTED);
	stag_release_session(s);
	for (uint32_t i = 0; i < s->cfg.nstreams; i++) {
		struct ddp_stream *st = &s->st[i];
		for (uint32_t q = 0; q < s->cfg.nqueues; q++)
			uq_free(&st->uq[q]);
		free(st->uq);
		order_free(&st->win);
		if (st->pd)
			st->pd->refs--;
	}
	ooo_leave(&s->ctx->ooo, &s->ooo);
	DLIST_UNLINK(&s->ctx->sessions, s);
	s->ctx->nsessions--;
	free(s->scratch);
	free(s->st);
	free(s);
	return 0;
}

void ddp_llp_session_silence(ddp_session *s)
{
	if (s)
		s->silenced = 1;
}

uint32_t ddp_session_nstreams(const ddp_session *s)
{
	return s ? s->cfg.nstreams : 0;
}

uint32_t ddp_session_mulpdu(const ddp_session *s)
{
	return s ? s->mulpdu : 0;
}

ddp_ctx *ddp_session_ctx(const ddp_session *s)
{
	return s ? s->ctx : NULL;
}

uint64_t ddp_session_copied_bytes(const ddp_session *s)
{
	return s ? s->copied : 0;
}

int ddp_stream_set_pd(ddp_session *s, uint32_t stream, ddp_pd *pd)
{
	if (!s || stream >= s->cfg.nstreams || (pd && pd->ctx != s->ctx))
		return DDP_ERR_INVAL;
	struct ddp_stream *st = &s->st[stream];
	if (st->traffic)
		return DDP_ERR_STATE; /* placement checks already used the PD */
	if (st->pd)
		st->pd->refs--;
	st->pd = pd;
	if (pd)
		pd->refs++;
	return 0;
}

int ddp_post_recv(ddp_session *s, uint32_t stream, uint32_t qn, void *buf, size_t len,
                  void *buf_ctx)
{
	if (!s || stream >= s->cfg.nstreams || qn >= s->cfg.nqueues || (!buf && len))
		return DDP_ERR_INVAL;
	struct ddp_stream *st = &s->st[stream];
	if (st->dead)
		return DDP_ERR_CLOSED;
	return uq_push(&st->uq[qn], s->cfg.max_posted, buf, len, buf_ctx);
}

/* RFC 5041 §7.2 (DDP-ERR-1..3): the first error on a stream is reported
 * once; afterwards the stream places nothing and drops segments silently,
 * but the ULP may send one more message (DDP-ERR-4, DDP-TRD-8). */
void stream_error(ddp_session *s, struct ddp_stream *st, uint8_t layer, uint8_t etype, uint8_t code,
                  const uint8_t *hdr, size_t hdr_len, uint64_t seg_len)
{
	st->cnt.errors++;
	if (st->errored)
		return;
	st->errored = 1;
	st->sends_after_error = 1;
	if (!s->cb.error)
		return;
	ddp_error_info e;
	memset(&e, 0, sizeof(e));
	e.stream = st->idx;
	e.layer = layer;
	e.etype = etype;
	e.code = code;
	if (hdr && hdr_len) {
		if (hdr_len > DDP_MAX_HDR_LEN)
			hdr_len = DDP_MAX_HDR_LEN;
		memcpy(e.hdr, hdr, hdr_len);
		e.hdr_len = (uint8_t)hdr_len;
		e.seg_len = seg_len > UINT32_MAX ? UINT32_MAX : (uint32_t)seg_len;
		e.have_segment = 1;
	}
	CALLBACK(s, error, s, &e, s->user);
}

/* Give every posted buffer back (status) and complete every queued send. */
void stream_flush(ddp_session *s, struct ddp_stream *st, int status)
{
	uint32_t epoch = ++st->epoch;
	rx_stale(s, st->idx);
	tx_flush(s, st, status);
	for (uint32_t q = 0; q < s->cfg.nqueues; q++) {
		struct uq *uq = &st->uq[q];
		/* only what was posted before the flush: a callback may re-post */
		for (uint32_t n = uq->count; n && uq->count; n--) {
			struct uq_ent e;
			uint32_t msn = uq->head_msn;
			uq_pop(uq, &e);
			ddp_delivery d;
			memset(&d, 0, sizeof(d));
			d.stream = st->idx;
			d.status = status;
			d.qn = q;
			d.msn = msn;
			d.buf = e.buf;
			d.buf_len = e.len;
			d.buf_ctx = e.ctx;
			CALLBACK(s, deliver, s, &d, s->user);
			if (st->epoch != epoch)
				return;
		}
	}
	order_reset(&st->win);
}

void stream_kill(ddp_session *s, struct ddp_stream *st, int abortive, int status, int call_llp)
{
	if (st->dead)
		return;
	st->dead = 1;
	st->aborted = abortive != 0;
	st->tx_state = TX_CLOSED;
	/* the LLP drops its references to queued payload first, then the
	 * payload goes back to the ULP */
	if (call_llp && !st->llp_closed && s->ops->close_stream) {
		st->llp_closed = 1;
		s->ops->close_stream(s->llp, st->idx, abortive);
	}
	stream_flush(s, st, status);
	if (s->cb.stream_event)
		CALLBACK(s, stream_event, s, st->idx, abortive ? DDP_EV_ABORTED : DDP_EV_CLOSED,
		         abortive ? status : 0, s->user);
	session_check_all_closed(s);
}

/* RFC 5041 §3 item 10 (DDP-LLP-10): once every stream is closed or stopped,
 * the LLP connection is torn down. */
void session_check_all_closed(ddp_session *s)
{
	if (s->conn_closed)
		return;
	for (uint32_t i = 0; i < s->cfg.nstreams; i++) {
		struct ddp_stream *st = &s->st[i];
		/* closed both ways, or stopped by an error and closed by the ULP */
		if (!st->dead &&
		    !(st->tx_state == TX_CLOSED && (st->rx_state == RX_PEER_CLOSED || st->errored)))
			return;
	}
	/* A stream stopped by an error that the ULP then closed gracefully
	 * (after its one message, DDP-ERR-4, e.g. an RDMAP Terminate) ends the
	 * connection gracefully too (FIN / SHUTDOWN), so that message reaches
	 * the peer before the end of the connection; only an abort (of a
	 * stream or of the session) is abortive. */
	int any_abort = 0;
	for (uint32_t i = 0; i < s->cfg.nstreams; i++)
		any_abort |= s->st[i].aborted;
	s->conn_closed = 1;
	s->ops->close(s->llp, any_abort || s->conn_abortive);
}

int ddp_stream_abort(ddp_session *s, uint32_t stream)
{
	if (!s || stream >= s->cfg.nstreams)
		return DDP_ERR_INVAL;
	stream_kill(s, &s->st[stream], 1, DDP_ERR_ABORTED, 1);
	return 0;
}

/* A closing stream has nothing left to send (send.c, on tx_pump's
 * TX_PUMP_DRAINED). */
void stream_tx_drained(ddp_session *s, struct ddp_stream *st)
{
	st->tx_state = TX_CLOSED;
	if (!st->llp_closed) {
		st->llp_closed = 1;
		if (s->ops->close_stream)
			s->ops->close_stream(s->llp, st->idx, 0);
	}
	if (s->closing && !s->conn_closed) {
		for (uint32_t i = 0; i < s->cfg.nstreams; i++)
			if (!s->st[i].dead && s->st[i].tx_state != TX_CLOSED)
				return;
		s->conn_closed = 1;
		s->ops->close(s->llp, s->conn_abortive);
		return;
	}
	session_check_all_closed(s);
}

/* --------------------------------------------------------- LLP events */

void ddp_llp_error(ddp_session *s, uint32_t stream, uint8_t layer, uint8_t etype, uint8_t code)
{
	if (!s || stream >= s->cfg.nstreams)
		return;
	stream_error(s, &s->st[stream], layer, etype, code, NULL, 0, 0);
}

void ddp_llp_error_seg(ddp_session *s, uint32_t stream, uint8_t layer, uint8_t etype, uint8_t code,
                       const uint8_t *hdr, size_t hdr_len, uint64_t seg_len)
{
	uint8_t full[DDP_MAX_HDR_LEN] = {0};
	if (!s || stream >= s->cfg.nstreams)
		return;
	if (hdr && hdr_len) {
		size_t want = ddp_hdr_len(hdr[0]);
		memcpy(full, hdr, hdr_len < want ? hdr_len : want);
		hdr = full;
		hdr_len = want;
	}
	stream_error(s, &s->st[stream], layer, etype, code, hdr, hdr_len, seg_len);
}

void ddp_llp_peer_closed(ddp_session *s, uint32_t stream)
{
	if (!s || stream >= s->cfg.nstreams)
		return;
	struct ddp_stream *st = &s->st[stream];
	if (st->dead || st->rx_state == RX_PEER_CLOSED)
		return;
	/* RFC 5041 §6 (DDP-TRD-4): tell the ULP, keep sending. A ULP that
	 * closed its half first hears of the peer's close as the stream's
	 * end (DDP_EV_CLOSED), the same on every LLP (ddp.h, "One
	 * behaviour"). */
	st->rx_state = RX_PEER_CLOSED;
	if (s->cb.stream_event && st->tx_state == TX_OPEN)
		CALLBACK(s, stream_event, s, stream, DDP_EV_HALF_CLOSED, 0, s->user);
	session_check_all_closed(s);
}

void ddp_llp_failed(ddp_session *s, uint32_t stream, int err)
{
	if (!s)
		return;
	if (err >= 0)
		err = DDP_ERR_LLP;
	if (stream == UINT32_MAX) {
		s->conn_closed = 1; /* the connection is gone: nothing to close */
		for (uint32_t i = 0; i < s->cfg.nstreams; i++) {
			s->st[i].llp_closed = 1;
			stream_kill(s, &s->st[i], 1, err, 0);
		}
		return;
	}
	if (stream >= s->cfg.nstreams)
		return;
	s->st[stream].llp_closed = 1;
	/* RFC 5041 §6 (DDP-TRD-6, -7): report, complete requests in error. */
	stream_kill(s, &s->st[stream], 1, err, 0);
}

void ddp_llp_closed(ddp_session *s, uint32_t stream)
{
	if (!s)
		return;
	if (stream == UINT32_MAX) {
		s->conn_closed = 1;
		for (uint32_t i = 0; i < s->cfg.nstreams; i++) {
			s->st[i].llp_closed = 1;
			stream_kill(s, &s->st[i], 0, DDP_ERR_CLOSED, 0);
		}
		return;
	}
	if (stream >= s->cfg.nstreams)
		return;
	s->st[stream].llp_closed = 1;
	stream_kill(s, &s->st[stream], 0, DDP_ERR_CLOSED, 0);
}

void ddp_llp_count_copy(ddp_session *s, uint64_t n)
{
	if (s)
		s->copied += n;
}

void ddp_llp_mulpdu_changed(ddp_session *s, uint32_t mulpdu)
{
	/* DDP-LLP-1/-2: new segments use it; posted ones are not re-cut. */
	if (s && mulpdu >= MIN_MULPDU)
		s->mulpdu = mulpdu;
}

int ddp_llp_stream_reset(ddp_session *s, uint32_t stream)
{
	if (!s || stream >= s->cfg.nstreams)
		return DDP_ERR_INVAL;
	struct ddp_stream *st = &s->st[stream];
	stream_flush(s, st, DDP_ERR_ABORTED);
	for (uint32_t q = 0; q < s->cfg.nqueues; q++)
		uq_reset(&st->uq[q]);
	order_reset(&st->win);
	st->tx_state = TX_OPEN;
	st->rx_state = RX_OPEN;
	st->blocked = 0;
	st->errored = 0;
	st->dead = 0;
	/* an abort ended the old session only: a later graceful close of the
	 * new one must not make the connection's end abortive */
	st->aborted = 0;
	st->llp_closed = 0;
	st->sends_after_error = 0;
	return 0;
}
