/* perftest's control exchange in rdma_cm mode (perftest 4.5,
 * perftest_communication.c): a queue pair of its own with one receive
 * buffer; every exchange is one Send each way, the client's first
 * (ctx_xchg_data_rdma, ctx_hand_shake). Each step names what it carries so
 * that a peer that sends something else (another perftest version, other
 * options) gets an error naming the step, not a hang. */
#include "perftest.h"

#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The protocol version we speak: perftest 4.5's VERSION (its configure.ac);
 * perftest refuses peers below 5.70 (check_version_compatibility). */
#define PT_VERSION     "6.06"
#define PT_MIN_VERSION 5.70

/* Big-endian fields of n = 4 or 8 octets. */
static void put_be(uint8_t *p, uint64_t v, int n)
{
	uint32_t v4 = htobe32((uint32_t)v);
	uint64_t v8 = htobe64(v);
	memcpy(p, n == 4 ? (const void *)&v4 : (const void *)&v8, (size_t)n);
}

static uint64_t get_be(const uint8_t *p, int n)
{
	uint32_t v4;
	uint64_t v8;
	if (n == 4) {
		memcpy(&v4, p, 4);
		return be32toh(v4);
	}
	memcpy(&v8, p, 8);
	return be64toh(v8);
}

static int do_send(struct pt_comm *c, const void *mine, size_t len, const char *what)
{
	memcpy(c->sbuf, mine, len);
	struct iovec v = {c->sbuf, len};
	struct pt_wc wc;
	if (ddp_rdmap_post_send(c->qp->qp, 0, 0, &v, 1, NULL))
		return pt_fail("%s: cannot send", what);
	do {
		if (pt_wait_wc(c->qp, &wc, what))
			return -1;
	} while (wc.kind != DDP_RDMAP_WC_SEND);
	return 0;
}

static int do_recv(struct pt_comm *c, void *theirs, size_t len, const char *what)
{
	struct pt_wc wc;
	do {
		if (pt_wait_wc(c->qp, &wc, what))
			return -1;
	} while (wc.kind != DDP_RDMAP_WC_RECV);
	if (wc.len != len)
		return pt_fail("malformed exchange from the peer: %s of %u octets, expected %zu "
		               "(another perftest version or other options?)",
		               what, wc.len, len);
	memcpy(theirs, c->qp->rbuf, len);
	/* the next message's buffer; after the last one the peer may have
	 * closed already, and a later exchange reports a stream that ended */
	if (ddp_rdmap_post_recv(c->qp->qp, c->qp->rbuf, sizeof(c->qp->rbuf), NULL) &&
	    !c->qp->down && !c->qp->closed && !ddp_rdmap_qp_failed(c->qp->qp))
		return pt_fail("%s: cannot post a receive buffer", what);
	return 0;
}

int pt_xchg(struct pt_comm *c, const void *mine, void *theirs, size_t len, const char *what)
{
	c->step++;
	if (c->debug)
		fprintf(stderr, "ddp-perftest: exchange %u: %s (%zu octets)\n", c->step, what, len);
	if (c->client)
		return do_send(c, mine, len, what) || do_recv(c, theirs, len, what) ? -1 : 0;
	return do_recv(c, theirs, len, what) || do_send(c, mine, len, what) ? -1 : 0;
}

int pt_xchg_versions(struct pt_comm *c, struct pt_opts *o)
{
	char mine[16] = PT_VERSION, theirs[16];
	if (pt_xchg(c, mine, theirs, sizeof(mine), "version"))
		return -1;
	memcpy(c->peer_version, theirs, 16);
	c->peer_version[16] = 0;
	size_t n = strnlen(theirs, sizeof(theirs));
	int ok = n > 0 && n < sizeof(theirs);
	for (size_t i = 0; ok && i < n; i++)
		ok = (theirs[i] >= '0' && theirs[i] <= '9') || theirs[i] == '.';
	if (!ok)
		return pt_fail("malformed exchange from the peer: its version is not a version "
		               "string");
	if (atof(c->peer_version) < PT_MIN_VERSION)
		return pt_fail("the peer speaks perftest protocol version %s; we speak %s and, as "
		               "perftest, accept %.2f and later",
		               c->peer_version, PT_VERSION, PT_MIN_VERSION);
	/* check_sys_data: cycle buffer and cache line size, both sides take
	 * the larger one */
	uint8_t m4[4], t4[4];
	put_be(m4, o->cycle_buf, 4);
	if (pt_xchg(c, m4, t4, 4, "cycle buffer size"))
		return -1;
	uint32_t v = (uint32_t)get_be(t4, 4);
	if (v == 0 || v > (1u << 30))
		return pt_fail("malformed exchange from the peer: cycle buffer size %u", v);
	if (v > o->cycle_buf)
		o->cycle_buf = v;
	put_be(m4, o->cache_line, 4);
	if (pt_xchg(c, m4, t4, 4, "cache line size"))
		return -1;
	v = (uint32_t)get_be(t4, 4);
	if (v == 0 || v > 4096)
		return pt_fail("malformed exchange from the peer: cache line size %u", v);
	if (v > o->cache_line)
		o->cache_line = v;
	/* check_mtu: the MTU as the decimal ibv_mtu value, two octets ("5"
	 * is 4096; iWARP has no path MTU of its own, perftest only prints it) */
	char mm[2] = {'5', 0}, tm[2];
	return pt_xchg(c, mm, tm, 2, "MTU");
}

int pt_hand_shake(struct pt_comm *c, const struct pt_dest *d, struct pt_dest *r, const char *what)
{
	uint8_t m[PT_DEST_WIRE] = {0}, t[PT_DEST_WIRE];
	put_be(m + 0, d->lid, 4);
	put_be(m + 4, d->out_reads, 4);
	put_be(m + 8, d->qpn, 4);
	put_be(m + 12, d->psn, 4);
	put_be(m + 16, d->rkey, 4);
	put_be(m + 24, d->vaddr, 8);
	memcpy(m + 32, d->gid, 16);
	put_be(m + 48, d->srqn, 4);
	put_be(m + 52, d->gid_index, 4);
	if (pt_xchg(c, m, t, sizeof(m), what))
		return -1;
	r->lid = (uint32_t)get_be(t, 4);
	r->out_reads = (uint32_t)get_be(t + 4, 4);
	r->qpn = (uint32_t)get_be(t + 8, 4);
	r->psn = (uint32_t)get_be(t + 12, 4);
	r->rkey = (uint32_t)get_be(t + 16, 4);
	r->vaddr = get_be(t + 24, 8);
	memcpy(r->gid, t + 32, 16);
	return 0;
}

static uint64_t dbits(double d)
{
	uint64_t u;
	memcpy(&u, &d, 8);
	return u;
}
static double bitsd(uint64_t u)
{
	double d;
	memcpy(&d, &u, 8);
	return d;
}

/* xchg_bw_reports: size, iterations (64 bit from 5.33 on), peak, average,
 * message rate; integers and doubles byte-swapped to big-endian order */
int pt_xchg_report(struct pt_comm *c, const struct pt_report *mine, struct pt_report *theirs)
{
	static const char *what[5] = {"report: size", "report: iterations", "report: BW peak",
	                              "report: BW average", "report: MsgRate"};
	uint64_t m[5] = {mine->size, mine->iters, dbits(mine->bw_peak), dbits(mine->bw_avg),
	                 dbits(mine->msg_rate)};
	uint64_t t[5];
	for (int i = 0; i < 5; i++) {
		uint8_t mb[8], tb[8];
		put_be(mb, m[i], 8);
		if (pt_xchg(c, mb, tb, 8, what[i]))
			return -1;
		t[i] = get_be(tb, 8);
	}
	theirs->size = t[0];
	theirs->iters = t[1];
	theirs->bw_peak = bitsd(t[2]);
	theirs->bw_avg = bitsd(t[3]);
	theirs->msg_rate = bitsd(t[4]);
	return 0;
}
