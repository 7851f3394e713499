/* The bandwidth loops (perftest_resources.c run_iter_bw, run_iter_bw_server):
 * up to tx_depth work requests outstanding per queue pair, the remote
 * address stepping through the peer's cycle buffer as perftest's does.
 * send_bw over iWARP has no receiver-not-ready retry, so perftest adds
 * credits (ctx_alloc_credit): every rx_depth/3 receives the receiver RDMA
 * Writes its count of receives (a 32-bit counter, host byte order) into the
 * sender's credit word of that queue pair, and the sender keeps fewer than
 * rx_depth Sends beyond it. */
#include "perftest.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PEAK_MAX 20000 /* perftest drops the peak above this many iterations */

/* perftest's increase_rem_addr: messages no larger than half the cycle
 * buffer step through it in cache-line-rounded strides. */
static uint64_t offset(const struct pt_opts *o, uint64_t size, uint64_t k)
{
	if (size > o->cycle_buf / 2)
		return 0;
	uint64_t inc = (size + o->cache_line - 1) / o->cache_line * o->cache_line;
	return (k % (o->cycle_buf / inc)) * inc;
}

static int post_one(struct pt_test_ctx *t, int i, uint64_t size, uint64_t k)
{
	const struct pt_opts *o = t->o;
	uint64_t off = offset(o, size, k);
	struct pt_mem *m = &t->mem[i];
	struct iovec v = {m->buf + off, size};
	switch (o->test) {
	case PT_WRITE_BW:
		return ddp_rdmap_post_write(t->qp[i]->qp, t->rem[i].rkey, t->rem[i].vaddr + off, &v,
		                            1, NULL);
	case PT_READ_BW:
		return ddp_rdmap_post_read(t->qp[i]->qp, m->stag, (uint64_t)(uintptr_t)v.iov_base,
		                           t->rem[i].rkey, t->rem[i].vaddr + off, (uint32_t)size,
		                           NULL);
	default:
		return ddp_rdmap_post_send(t->qp[i]->qp, 0, 0, &v, 1, NULL);
	}
}

static int any_down(struct pt_test_ctx *t, const char *what)
{
	for (int i = 0; i < t->nqp; i++)
		if (t->qp[i]->down)
			return pt_fail("%s, queue pair %d: %s", what, i, t->qp[i]->why);
	return 0;
}

static int wc_failed(struct pt_test_ctx *t, int i, const struct pt_wc *wc)
{
	const char *why = t->qp[i]->why[0] ? t->qp[i]->why : ddp_strerror(wc->status);
	return pt_fail("work completion failed on queue pair %d: %s", i, why);
}

int pt_bw_client(struct pt_test_ctx *t, uint64_t size, struct pt_report *rep)
{
	const struct pt_opts *o = t->o;
	int q = t->nqp, dur = o->duration > 0;
	uint64_t n = dur ? UINT64_MAX : o->iters, tot = dur ? 0 : n * (uint64_t)q;
	uint64_t *scnt = calloc((size_t)q, sizeof(*scnt)), *ccnt = calloc((size_t)q, sizeof(*ccnt));
	int peak = !dur && o->iters <= PEAK_MAX;
	uint64_t *tp = peak ? malloc(tot * sizeof(*tp)) : NULL;
	uint64_t *tc = peak ? malloc(tot * sizeof(*tc)) : NULL;
	if (!scnt || !ccnt || (peak && (!tp || !tc))) {
		free(scnt), free(ccnt), free(tp), free(tc);
		return pt_fail("out of memory");
	}
	/* -D: perftest's margins, a quarter of the duration at each end */
	uint64_t start = pt_now_ns(), dns = (uint64_t)o->duration * 1000000000u, margin = dns / 4;
	uint64_t sampled = 0, t0 = start, t1 = start, posted = 0, done = 0;
	int rc = 0, stop = 0;
	while (!rc) {
		uint64_t now = pt_now_ns();
		if (dur && !stop && now - start >= dns)
			stop = 1;
		if (!dur ? done == tot : stop && done == posted)
			break;
		int progress = 0;
		for (int i = 0; i < q && !rc; i++) {
			while (!stop && scnt[i] < n && scnt[i] - ccnt[i] < (uint64_t)o->tx_depth) {
				if (o->test == PT_SEND_BW &&
				    (uint32_t)(scnt[i] + 1 - ((volatile uint32_t *)t->credit)[i]) >=
				        (uint32_t)o->rx_depth)
					break;
				if (tp)
					tp[posted] = pt_now_ns();
				if (post_one(t, i, size, scnt[i])) {
					rc =
					    pt_fail("cannot post work request %" PRIu64 " on queue "
					            "pair %d",
					            scnt[i], i);
					break;
				}
				scnt[i]++;
				posted++;
				progress = 1;
			}
			struct pt_wc wc;
			while (!rc && pt_poll(t->qp[i], &wc)) {
				if (wc.status) {
					rc = wc_failed(t, i, &wc);
					break;
				}
				if (wc.kind == DDP_RDMAP_WC_RECV)
					continue;
				now = pt_now_ns();
				if (tc)
					tc[done] = now;
				ccnt[i]++;
				done++;
				progress = 1;
				if (dur && now - start >= margin && now - start < dns - margin) {
					if (!sampled++)
						t0 = now;
					t1 = now;
				}
			}
		}
		if (rc || progress)
			continue;
		rc = any_down(t, "during the test");
		if (!rc && pt_pump(t->net))
			rc = pt_fail("timed out during the test (--timeout %d)", o->timeout);
	}
	if (!rc) {
		if (dur)
			pt_bw_report(o, size, sampled, t0, t1, NULL, NULL, rep);
		else
			pt_bw_report(o, size, tot, peak ? tp[0] : start, pt_now_ns(), tp, tc, rep);
	}
	free(scnt), free(ccnt), free(tp), free(tc);
	return rc;
}

static int post_recv(struct pt_test_ctx *t, int i, uint64_t size)
{
	uint64_t off = offset(t->o, size, t->rposted[i]);
	if (ddp_rdmap_post_recv(t->qp[i]->qp, t->mem[i].buf + off, size, NULL))
		return pt_fail("cannot post a receive buffer on queue pair %d", i);
	t->rposted[i]++;
	return 0;
}

int pt_send_post_recvs(struct pt_test_ctx *t, uint64_t size)
{
	for (int i = 0; i < t->nqp; i++) {
		t->rposted[i] = 0;
		for (int j = 0; j < t->o->rx_depth; j++)
			if (post_recv(t, i, size))
				return -1;
	}
	return 0;
}

int pt_send_server(struct pt_test_ctx *t, uint64_t size, struct pt_report *rep)
{
	const struct pt_opts *o = t->o;
	int q = t->nqp;
	uint64_t tot = o->iters * (uint64_t)q, rcnt = 0, t0 = 0;
	uint64_t *per = calloc((size_t)q, sizeof(*per));
	uint32_t credit_cnt = o->rx_depth / 3 ? (uint32_t)o->rx_depth / 3 : 1;
	int rc = 0;
	if (!per)
		return pt_fail("out of memory");
	if (o->duration)
		rc = pt_fail("-D is not supported by send_bw here: use -n");
	while (!rc && rcnt < tot) {
		int progress = 0;
		for (int i = 0; i < q && !rc; i++) {
			struct pt_wc wc;
			while (!rc && pt_poll(t->qp[i], &wc)) {
				if (wc.status) {
					rc = wc_failed(t, i, &wc);
					break;
				}
				if (wc.kind != DDP_RDMAP_WC_RECV)
					continue; /* a credit Write went out */
				progress = 1;
				if (!rcnt++)
					t0 = pt_now_ns();
				per[i]++;
				if (wc.len != size) {
					rc = pt_fail("the peer sent %u octets, expected %" PRIu64
					             " (-s differs?)",
					             wc.len, size);
					break;
				}
				if (t->rposted[i] < o->iters && post_recv(t, i, size)) {
					rc = -1;
					break;
				}
				if ((per[i] % (uint64_t)o->rx_depth) % credit_cnt == 0) {
					t->ctrl[i] = (uint32_t)per[i];
					struct iovec v = {&t->ctrl[i], 4};
					if (ddp_rdmap_post_write(t->qp[i]->qp, t->rem[i].rkey,
					                         t->rem[i].vaddr, &v, 1, NULL))
						rc = pt_fail(
						    "cannot post a credit on queue pair %d", i);
				}
			}
		}
		if (rc || progress)
			continue;
		rc = any_down(t, "during the test");
		if (!rc && pt_pump(t->net))
			rc = pt_fail("timed out during the test (--timeout %d)", o->timeout);
	}
	if (!rc)
		pt_bw_report(o, size, tot, t0, pt_now_ns(), NULL, NULL, rep);
	free(per);
	return rc;
}
