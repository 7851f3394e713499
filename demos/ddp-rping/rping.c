/* The rping exchange (rdma-core 44 librdmacm/examples/rping.c) on an RDMAP
 * queue pair. One iteration:
 *   client Send {be64 addr, be32 rkey, be32 size} of its source buffer;
 *   server RDMA Read of it, then Send "go ahead" (16 octets);
 *   client Send of its sink buffer; server RDMA Write of strlen+1 octets,
 *   then Send "go ahead"; client (-V) compares source and sink. */
#include "rping.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum st { CL_SEND_SRC, CL_WAIT_GO1, CL_WAIT_GO2, SV_WAIT_SRC, SV_READING, SV_WAIT_SINK,
	  SV_WRITING, DONE };

struct rping {
	struct rping_opts o;
	ddp_rdmap_qp *qp;
	ddp_session *s;
	ddp_ctx *ctx;
	enum st st;
	long iter;
	int start_char;
	uint8_t *start_buf, *rdma_buf;
	uint32_t start_stag, rdma_stag;
	uint8_t recv_buf[16], send_buf[16];
	uint64_t r_addr;
	uint32_t r_stag, r_len;
	int ended;
	void (*fin)(int rc, const char *reason);
};

long rping_iterations(const struct rping *r) { return r ? r->iter : 0; }

static void end(struct rping *r, int rc, const char *why)
{
	if (r->ended)
		return;
	r->ended = 1;
	r->st = DONE;
	r->fin(rc, why);
}

static void put_be(uint8_t *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}
static uint64_t get_be(const uint8_t *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	return v;
}

static int send_info(struct rping *r, const uint8_t *buf, uint32_t stag)
{
	/* struct rping_rdma_info: be64 buf, be32 rkey, be32 size (rping.c 86-90) */
	put_be(r->send_buf, (uint64_t)(uintptr_t)buf, 8);
	put_be(r->send_buf + 8, stag, 4);
	put_be(r->send_buf + 12, r->o.size, 4);
	struct iovec v = { r->send_buf, 16 };
	return ddp_rdmap_post_send(r->qp, 0, 0, &v, 1, NULL);
}

static int send_go(struct rping *r)
{
	memset(r->send_buf, 0, 16);
	struct iovec v = { r->send_buf, 16 };
	return ddp_rdmap_post_send(r->qp, 0, 0, &v, 1, NULL);
}

static int repost(struct rping *r)
{
	return ddp_rdmap_post_recv(r->qp, r->recv_buf, sizeof(r->recv_buf), r);
}

static void client_iteration(struct rping *r)
{
	if (r->o.count && r->iter >= r->o.count) {
		end(r, 0, NULL);
		return;
	}
	/* rping.c 1048-1058: "rdma-ping-%d: " then rotating 'A'..'z', NUL */
	int cc = snprintf((char *)r->start_buf, r->o.size, "rdma-ping-%ld: ", r->iter);
	int c = r->start_char;
	for (uint32_t i = (uint32_t)cc; i < r->o.size; i++) {
		r->start_buf[i] = (uint8_t)c;
		if (++c > 122)
			c = 65;
	}
	if (++r->start_char > 122)
		r->start_char = 65;
	r->start_buf[r->o.size - 1] = 0;
	memset(r->rdma_buf, 0, r->o.size);
	r->st = CL_WAIT_GO1;
	if (send_info(r, r->start_buf, r->start_stag))
		end(r, 1, "post send failed");
}

static void on_recv(struct rping *r, const ddp_rdmap_wc *wc)
{
	if (wc->len != 16) {
		end(r, 1, "received a message that is not 16 octets");
		return;
	}
	uint64_t addr = get_be(r->recv_buf, 8);
	uint32_t stag = (uint32_t)get_be(r->recv_buf + 8, 4), len = (uint32_t)get_be(r->recv_buf + 12, 4);
	if (repost(r)) {
		end(r, 1, "post recv failed");
		return;
	}
	switch (r->st) {
	case CL_WAIT_GO1:
		r->st = CL_WAIT_GO2;
		if (send_info(r, r->rdma_buf, r->rdma_stag ^ (r->o.wrong_rkey ? 0x100u : 0)))
			end(r, 1, "post send failed");
		return;
	case CL_WAIT_GO2:
		if (r->o.validate && memcmp(r->start_buf, r->rdma_buf, r->o.size)) {
			end(r, 1, "data mismatch (-V)");
			return;
		}
		if (r->o.verbose)
			printf("ping data: %s\n", (char *)r->rdma_buf);
		r->iter++;
		client_iteration(r);
		return;
	case SV_WAIT_SRC:
		if (len > r->o.size) {
			end(r, 1, "peer's buffer is larger than -S");
			return;
		}
		r->r_len = len;
		r->st = SV_READING;
		if (ddp_rdmap_post_read(r->qp, r->rdma_stag, (uint64_t)(uintptr_t)r->rdma_buf, stag,
					addr, len, NULL))
			end(r, 1, "post read failed");
		return;
	case SV_WAIT_SINK: {
		size_t n = strnlen((char *)r->rdma_buf, r->o.size - 1) + 1;
		if (n > len) {
			end(r, 1, "peer's sink is too small");
			return;
		}
		struct iovec v = { r->rdma_buf, n };
		r->st = SV_WRITING;
		if (ddp_rdmap_post_write(r->qp, stag ^ (r->o.wrong_rkey ? 0x100u : 0), addr, &v, 1,
					 NULL))
			end(r, 1, "post write failed");
		return;
	}
	default:
		end(r, 1, "unexpected Send from the peer");
	}
}

static void on_complete(ddp_rdmap_qp *qp, const ddp_rdmap_wc *wc, void *user)
{
	struct rping *r = user;
	if (r->ended)
		return;
	if (wc->status == DDP_ERR_CLOSED || wc->status == DDP_ERR_ABORTED) {
		rping_llp_down(r, 0); /* flushed by the end of the stream */
		return;
	}
	if (wc->status) {
		static char why[96];
		snprintf(why, sizeof(why), "work completion failed: %s", ddp_strerror(wc->status));
		end(r, 1, why);
		return;
	}
	if (r->o.debug)
		fprintf(stderr, "ddp-rping: wc kind %d len %u (state %d)\n", wc->kind, wc->len, r->st);
	switch (wc->kind) {
	case DDP_RDMAP_WC_RECV:
		on_recv(r, wc);
		break;
	case DDP_RDMAP_WC_READ:
		if (r->o.verbose)
			printf("server ping data: %s\n", (char *)r->rdma_buf);
		r->st = SV_WAIT_SINK;
		if (send_go(r))
			end(r, 1, "post send failed");
		break;
	case DDP_RDMAP_WC_WRITE:
		r->iter++;
		r->st = SV_WAIT_SRC;
		if (send_go(r))
			end(r, 1, "post send failed");
		break;
	default:
		break;
	}
}

static void on_term(ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent, void *user)
{
	struct rping *r = user;
	static char why[160];
	if (!t) { /* the stream ended without a Terminate: the LLP closed */
		rping_llp_down(r, 0);
		return;
	}
	snprintf(why, sizeof(why), "Terminate %s: layer %u type %u code 0x%02x (%s)%s",
			 sent ? "sent" : "received", t->layer, t->etype, t->code,
			 ddp_rdmap_term_str(t->layer, t->etype, t->code),
			 t->swapped ? ", siw layout" : "");
	fprintf(stderr, "ddp-rping: %s\n", why);
	end(r, 1, why);
}

static const ddp_rdmap_callbacks qcb = { on_complete, on_term };

static int reg(struct rping *r, ddp_session *s, uint32_t stream, uint8_t *buf, unsigned acc,
	       uint32_t *stag)
{
	ddp_mr_attr a = { .addr = buf, .len = r->o.size, .to_base = (uint64_t)(uintptr_t)buf,
			  .access = acc, .session = s, .stream = stream };
	return ddp_stag_register(r->ctx, &a, stag);
}

struct rping *rping_new(const struct rping_opts *o, ddp_rdmap_dev *dev, ddp_session *s,
			uint32_t stream, uint32_t ird, uint32_t ord,
			void (*fin)(int rc, const char *reason))
{
	struct rping *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	r->o = *o;
	r->s = s;
	r->ctx = ddp_session_ctx(s);
	r->fin = fin;
	r->start_char = 65;
	r->start_buf = calloc(1, o->size);
	r->rdma_buf = calloc(1, o->size);
	ddp_rdmap_config cfg = { .ird = ird, .ord = ord };
	if (!r->start_buf || !r->rdma_buf ||
	    reg(r, s, stream, r->start_buf, DDP_ACCESS_REMOTE_READ, &r->start_stag) ||
	    reg(r, s, stream, r->rdma_buf, DDP_ACCESS_REMOTE_WRITE, &r->rdma_stag) ||
	    ddp_rdmap_qp_new(dev, s, stream, &cfg, &qcb, r, &r->qp) || repost(r)) {
		rping_free(r);
		return NULL;
	}
	if (o->server) {
		r->st = SV_WAIT_SRC;
	} else {
		client_iteration(r);
	}
	return r;
}

void rping_llp_down(struct rping *r, int status)
{
	if (!r || r->ended)
		return;
	if (r->o.server && status == 0 && (!r->o.count || r->iter == r->o.count) &&
	    r->st == SV_WAIT_SRC && r->iter > 0)
		end(r, 0, NULL); /* rping -c disconnects after its last iteration */
	else
		end(r, 1, status ? ddp_strerror(status) : "peer disconnected early");
}

void rping_free(struct rping *r)
{
	if (!r)
		return;
	ddp_rdmap_qp_free(r->qp);
	r->qp = NULL;
	free(r->start_buf);
	free(r->rdma_buf);
	free(r);
}
