/* ddp-perf: the RDMA engine of the "mpa" and "sctp" drivers (--mode write,
 * read, read-rtt): an RDMAP queue pair (libddp-rdmap) on every benchmark
 * stream instead of drv_ddp.c's raw DDP traffic. The drivers set up the
 * connections as for the other modes and call in here for the queue pairs.
 *
 * The responder (the server end) registers DEPTH x size octets with remote
 * write and read access and advertises the STag in the accept private data.
 * The requester (the client end) posts:
 *  - write: RDMA Writes of size at TO (k % DEPTH) * size, up to DEPTH
 *    outstanding; counted at their completions. When the time is up one
 *    1-octet RDMA Read follows on every stream: RFC 5040 §5.5 orders its
 *    Response after every Write before it was placed, so once it completed
 *    every counted Write has arrived, and the run's time includes that.
 *  - read: RDMA Reads of size into its own registered sink, ORD
 *    outstanding; counted when a Read completes (the data was placed here).
 *  - read-rtt: one 64-octet Read at a time; the mean completion time. */
#include "drv_ddp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ddp_callbacks rdma_callbacks;

static void fail(struct drun *d, const char *what, int rc)
{
	if (d->stop && rc == DDP_ERR_ABORTED)
		return;
	bench_fail(d->r, "%s: %s", what, ddp_strerror(rc));
	if (!d->serving)
		event_base_loopbreak(d->base);
}

static uint32_t outstanding_max(const struct drun *d)
{
	return d->p->mode == MODE_WRITE ? DEPTH : d->p->mode == MODE_READ ? RDMA_DEPTH : 1;
}

static int post_one(struct drun *d, struct bstream *b)
{
	const struct bench_params *p = d->p;
	uint64_t to = (uint64_t)(b->sent % DEPTH) * p->size;
	if (p->mode == MODE_WRITE) {
		struct iovec v = { d->src, p->size };
		return ddp_rdmap_post_write(b->qp, b->stag, to, &v, 1, b);
	}
	if (p->mode == MODE_READ_RTT)
		d->rtt_t = now_s();
	return ddp_rdmap_post_read(b->qp, b->sink, (uint64_t)(b->sent % RDMA_DEPTH) * p->size,
				   b->stag, to, (uint32_t)p->size, b);
}

static void pump(struct drun *d, struct bstream *b)
{
	while (b->qp && !d->stop && !d->r->failed && b->inflight < outstanding_max(d)) {
		int rc = post_one(d, b);
		if (rc == DDP_ERR_LIMIT)
			return;
		if (rc) {
			fail(d, "RDMA post", rc);
			return;
		}
		b->sent++;
		b->inflight++;
	}
}

static void on_complete(ddp_rdmap_qp *qp, const ddp_rdmap_wc *wc, void *user)
{
	struct drun *d = user;
	struct bstream *b = wc->wr_ctx;
	if (wc->status) {
		fail(d, "RDMA completion", wc->status);
		return;
	}
	if (!b)
		return;
	if (d->p->mode == MODE_WRITE && wc->kind == DDP_RDMAP_WC_READ) { /* the closing Read */
		b->fenced = 1;
		if (--d->fences == 0)
			event_base_loopbreak(d->base);
		return;
	}
	if (wc->kind != DDP_RDMAP_WC_WRITE && wc->kind != DDP_RDMAP_WC_READ)
		return;
	b->inflight--;
	d->r->msgs++;
	d->r->bytes += wc->len;
	if (d->p->mode == MODE_READ_RTT)
		d->rtt_sum += now_s() - d->rtt_t;
	pump(d, b);
}

static void on_terminate(ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent, void *user)
{
	struct drun *d = user;
	if (d->stop || d->serving)
		return;
	if (t)
		bench_fail(d->r, "RDMAP Terminate %s: %s", sent ? "sent" : "received",
			   ddp_rdmap_term_str(t->layer, t->etype, t->code));
	else
		bench_fail(d->r, "RDMAP stream ended");
	event_base_loopbreak(d->base);
}

static const ddp_rdmap_callbacks qp_callbacks = { on_complete, on_terminate };

int rdma_init(struct drun *d)
{
	ddp_rdmap_dev_callbacks(&rdma_callbacks);
	return ddp_rdmap_dev_new(d->ctx, NULL, NULL, &d->dev) ? -1 : 0;
}

int rdma_rx_ready(struct drun *d, struct bstream *b)
{
	ddp_mr_attr a = { .addr = b->rbuf, .len = (size_t)DEPTH * d->p->size,
			  .access = DDP_ACCESS_REMOTE_WRITE | DDP_ACCESS_REMOTE_READ,
			  .pd = d->pd };
	return ddp_stag_register(d->ctx, &a, &b->stag);
}

int rdma_qp_start(struct drun *d, struct bstream *b, ddp_session *s, uint32_t stream,
		  uint32_t ird, uint32_t ord, int requester)
{
	ddp_rdmap_qp **qp = requester ? &b->qp : &b->rqp;
	if (*qp)
		return 0;
	if (requester && !ord) {
		bench_fail(d->r, "the peer allows no RDMA Reads (IRD 0)");
		return -1;
	}
	if (requester && !b->sink) { /* Read sink: RDMA_DEPTH x size of rbuf */
		ddp_mr_attr a = { .addr = b->rbuf, .len = (size_t)RDMA_DEPTH * d->p->size,
				  .access = DDP_ACCESS_REMOTE_WRITE, .pd = d->pd };
		if (ddp_stag_register(d->ctx, &a, &b->sink))
			return -1;
	}
	ddp_rdmap_config c = { .ird = ird, .ord = ord, .max_send_wr = DEPTH + 1 };
	int rc = ddp_rdmap_qp_new(d->dev, s, stream, &c, &qp_callbacks, d, qp);
	if (rc) {
		bench_fail(d->r, "RDMAP queue pair: %s", ddp_strerror(rc));
		return -1;
	}
	if (requester) {
		b->tx_s = s;
		b->tx_st = stream;
		b->tx_ready = 1;
	}
	return 0;
}

void rdma_qp_drop(struct drun *d, ddp_session *s)
{
	for (int i = 0; d->bs && i < d->n; i++) {
		struct bstream *b = &d->bs[i];
		if (b->qp && (!s || ddp_rdmap_qp_session(b->qp) == s)) {
			ddp_rdmap_qp_free(b->qp);
			b->qp = NULL;
		}
		if (b->rqp && (!s || ddp_rdmap_qp_session(b->rqp) == s)) {
			ddp_rdmap_qp_free(b->rqp);
			b->rqp = NULL;
		}
	}
}

void rdma_go(struct drun *d)
{
	for (int i = 0; i < d->n; i++)
		if (d->bs[i].tx_ready)
			pump(d, &d->bs[i]);
}

int rdma_drain(struct drun *d, double elapsed)
{
	if (d->p->mode != MODE_WRITE)
		return 0;
	/* The closing Read completes after every Write queued before it: on a
	 * lossy long path (1 MB/s) the queue (DEPTH Writes plus the LLP's send
	 * buffer) takes longer than 10 s to drain, so the grace grows with the
	 * row's length. */
	double grace = 10 + 2 * d->p->duration;
	if (d->fences) {
		if (elapsed < d->p->duration + grace)
			return 1;
		bench_fail(d->r, "the closing RDMA Read did not complete in %.0f s", grace);
		return 0;
	}
	for (int i = 0; i < d->n; i++) {
		struct bstream *b = &d->bs[i];
		if (!b->tx_ready || !b->qp || b->fenced)
			continue;
		b->fenced = -1;
		int rc = ddp_rdmap_post_read(b->qp, b->sink, 0, b->stag, 0, 1, b);
		if (rc) {
			fail(d, "closing RDMA Read", rc);
			return 0;
		}
		d->fences++;
	}
	return d->fences > 0;
}

void rdma_free(struct drun *d)
{
	if (!d->dev)
		return;
	rdma_qp_drop(d, NULL);
	for (int i = 0; d->bs && i < d->n; i++)
		if (d->bs[i].sink) {
			ddp_stag_invalidate(d->ctx, d->bs[i].sink);
			d->bs[i].sink = 0;
		}
	ddp_rdmap_dev_free(d->dev);
	d->dev = NULL;
}
