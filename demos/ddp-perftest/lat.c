/* The latency loops (perftest_resources.c run_iter_lat_write, run_iter_lat).
 * write_lat is a ping-pong of RDMA Writes of -s octets into the peer's
 * advertised buffer whose last octet carries the iteration count (mod 256);
 * each side waits for that octet to change in its own buffer, the server
 * sending first. read_lat: the client's RDMA Reads, one at a time. The
 * samples are the times between successive posts, as perftest's. */
#include "perftest.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int wait_octet(struct pt_test_ctx *t, volatile uint8_t *p, uint8_t v)
{
	while (*p != v) {
		if (t->qp[0]->down)
			return pt_fail("during the test: %s", t->qp[0]->why);
		if (pt_pump(t->net))
			return pt_fail("timed out waiting for the peer's RDMA Write %u",
			               (unsigned)v);
	}
	return 0;
}

static int wait_done(struct pt_test_ctx *t, enum ddp_rdmap_wc_kind kind)
{
	struct pt_wc wc;
	do {
		if (pt_wait_wc(t->qp[0], &wc, "during the test"))
			return -1;
	} while (wc.kind != kind);
	return 0;
}

int pt_lat_run(struct pt_test_ctx *t, uint64_t size)
{
	const struct pt_opts *o = t->o;
	uint64_t n = o->iters;
	uint64_t *tp = malloc(n * sizeof(*tp));
	uint8_t *src = calloc(1, size);
	struct pt_mem *m = &t->mem[0];
	ddp_rdmap_qp *qp = t->qp[0]->qp;
	int rc = 0;
	if (!tp || !src) {
		free(tp), free(src);
		return pt_fail("out of memory");
	}
	if (o->test == PT_READ_LAT) {
		for (uint64_t k = 0; k < n && !rc; k++) {
			tp[k] = pt_now_ns();
			if (ddp_rdmap_post_read(qp, m->stag, (uint64_t)(uintptr_t)m->buf,
			                        t->rem[0].rkey, t->rem[0].vaddr, (uint32_t)size,
			                        NULL))
				rc = pt_fail("cannot post RDMA Read %" PRIu64, k);
			else
				rc = wait_done(t, DDP_RDMAP_WC_READ);
		}
		if (!rc)
			rc = pt_print_lat(o, size, n, tp, 1);
		free(tp), free(src);
		return rc;
	}
	if (o->server && t->qp[0]->responder_gated) {
		free(tp), free(src);
		return pt_fail(
		    "write_lat's server writes first, but an MPA Responder may send "
		    "nothing before the Initiator's first FPDU (RFC 5044 §7.1.4) and the "
		    "client did not ask for peer-to-peer mode (RFC 6581 RTR): run "
		    "ddp-perftest as the write_lat client, or use --llp sctp");
	}
	volatile uint8_t *poll = m->buf + size - 1;
	uint64_t scnt = 0, ccnt = 0, rcnt = 0;
	while (!rc && (scnt < n || ccnt < n || rcnt < n)) {
		if (rcnt < n && !(scnt < 1 && o->server)) {
			rcnt++;
			rc = wait_octet(t, poll, (uint8_t)rcnt);
			if (rc)
				break;
		}
		if (scnt < n) {
			tp[scnt] = pt_now_ns();
			src[size - 1] = (uint8_t)++scnt;
			struct iovec v = {src, size};
			if (ddp_rdmap_post_write(qp, t->rem[0].rkey, t->rem[0].vaddr, &v, 1,
			                         NULL)) {
				rc = pt_fail("cannot post RDMA Write %" PRIu64, scnt);
				break;
			}
		}
		if (ccnt < n) {
			rc = wait_done(t, DDP_RDMAP_WC_WRITE);
			ccnt++;
		}
	}
	if (!rc)
		rc = pt_print_lat(o, size, n, tp, 2);
	free(tp), free(src);
	return rc;
}
