/*
 * ddp-demo: two DDP core sessions joined in memory (no sockets). Session A
 * sends untagged messages into buffers B posted and tagged writes into a
 * buffer B registered; every message is checked and a summary printed.
 * It shows the core API end to end: context, PD, STag registration, posted
 * receives, segmentation at MULPDU, header-first placement, delivery.
 *
 * usage: ddp-demo [messages] [size] [mulpdu]
 */
#include <ddp/ddp.h>
#include <ddp/llp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A tiny in-order LLP: segments are queued as copies and handed to the peer
 * with the header-first entry points when pump() runs. */
struct seg {
	struct seg *next;
	size_t len;
	uint8_t data[];
};
struct wire {
	struct seg *head, *tail;
	ddp_session *peer;
	uint32_t mulpdu;
	unsigned long segments;
};

static int w_send(void *llp, uint32_t stream, const struct iovec *iov, int n, size_t len,
		  unsigned flags)
{
	struct wire *w = llp;
	struct seg *sg = malloc(sizeof(*sg) + len);
	if (!sg)
		return DDP_ERR_NOMEM;
	size_t off = 0;
	for (int i = 0; i < n; i++) {
		memcpy(sg->data + off, iov[i].iov_base, iov[i].iov_len);
		off += iov[i].iov_len;
	}
	sg->len = len;
	sg->next = NULL;
	if (w->tail)
		w->tail->next = sg;
	else
		w->head = sg;
	w->tail = sg;
	w->segments++;
	return 0;
}
static uint32_t w_mulpdu(void *llp)
{
	return ((struct wire *)llp)->mulpdu;
}
static void w_close(void *llp, int abortive)
{
}
static const ddp_llp_ops wire_ops = { .send = w_send, .mulpdu = w_mulpdu, .close = w_close };

static void pump(struct wire *w)
{
	struct seg *sg;
	while ((sg = w->head)) {
		w->head = sg->next;
		if (!w->head)
			w->tail = NULL;
		size_t hl = ddp_hdr_len(sg->data[0]);
		ddp_rx rx;
		if (ddp_llp_rx_begin(w->peer, 0, DDP_LLP_INORDER, sg->data, hl, sg->len - hl, &rx) == 0) {
			if (rx.verdict == DDP_RX_PLACE && sg->len > hl)
				memcpy(ddp_llp_rx_dst(w->peer, &rx, 0), sg->data + hl, sg->len - hl);
			ddp_llp_rx_end(w->peer, &rx, 1);
		}
		free(sg);
	}
}

struct sink {
	unsigned long untagged, tagged, bad, errors;
	uint64_t bytes;
	size_t size;
};

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	struct sink *k = user;
	if (d->status)
		return;
	k->bytes += d->len;
	if (d->tagged) {
		k->tagged++;
		return;
	}
	k->untagged++;
	const uint8_t *p = d->buf;
	for (size_t i = 0; i < d->len; i++)
		if (p[i] != (uint8_t)(d->msn + i)) {
			k->bad++;
			break;
		}
	ddp_post_recv(s, 0, 0, d->buf, d->buf_len, NULL);
}
static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	((struct sink *)user)->errors++;
	fprintf(stderr, "error: layer %u type 0x%x code 0x%02x\n", e->layer, e->etype, e->code);
}

int main(int argc, char **argv)
{
	unsigned long msgs = argc > 1 ? strtoul(argv[1], NULL, 0) : 1000;
	size_t size = argc > 2 ? strtoul(argv[2], NULL, 0) : 4096;
	uint32_t mulpdu = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 0) : 1500;
	ddp_ctx *ctx;
	ddp_pd *pd;
	ddp_session *a, *b;
	struct wire wa = { .mulpdu = mulpdu }, wb = { .mulpdu = mulpdu };
	struct sink ka = { 0 }, kb = { .size = size };
	ddp_callbacks cba = { .deliver = on_deliver, .error = on_error };
	ddp_callbacks cbb = cba;
	int rc;

	if ((rc = ddp_ctx_new(NULL, &ctx)) || (rc = ddp_pd_new(ctx, &pd))) {
		fprintf(stderr, "ddp-demo: %s\n", ddp_strerror(rc));
		return 1;
	}
	ddp_session_config cfg = { .nstreams = 1, .pd = pd };
	if ((rc = ddp_session_new(ctx, &cfg, &wire_ops, &wa, &cba, &ka, &a)) ||
	    (rc = ddp_session_new(ctx, &cfg, &wire_ops, &wb, &cbb, &kb, &b))) {
		fprintf(stderr, "ddp-demo: %s\n", ddp_strerror(rc));
		return 1;
	}
	wa.peer = b;
	wb.peer = a;

	uint8_t *rbuf = malloc(size * 8), *tbuf = calloc(1, size), *src = malloc(size);
	for (int i = 0; i < 8; i++)
		ddp_post_recv(b, 0, 0, rbuf + (size_t)i * size, size, NULL);
	uint32_t stag;
	ddp_mr_attr mr = { .addr = tbuf, .len = size, .access = DDP_ACCESS_REMOTE_WRITE, .pd = pd };
	if ((rc = ddp_stag_register(ctx, &mr, &stag))) {
		fprintf(stderr, "ddp-demo: register: %s\n", ddp_strerror(rc));
		return 1;
	}
	for (unsigned long m = 1; m <= msgs; m++) {
		for (size_t i = 0; i < size; i++)
			src[i] = (uint8_t)(m + i);
		struct iovec v = { src, size };
		if ((rc = ddp_send_untagged(a, 0, 0, m & 0xffffffffffull, &v, 1, NULL)) ||
		    (rc = ddp_send_tagged(a, 0, stag, 0, 7, &v, 1, NULL))) {
			fprintf(stderr, "ddp-demo: send: %s\n", ddp_strerror(rc));
			return 1;
		}
		pump(&wa);
	}
	int ok = kb.untagged == msgs && kb.tagged == msgs && !kb.bad && !kb.errors &&
		 memcmp(tbuf, src, size) == 0;
	printf("ddp-demo: %lu untagged + %lu tagged messages of %zu octets, MULPDU %u\n",
	       kb.untagged, kb.tagged, size, mulpdu);
	printf("ddp-demo: %lu DDP segments, %lu corrupt, %lu errors, library copies %llu octets\n",
	       wa.segments, kb.bad, kb.errors, (unsigned long long)ddp_session_copied_bytes(b));
	printf("ddp-demo: %s\n", ok ? "OK" : "FAILED");

	ddp_stag_invalidate(ctx, stag);
	ddp_session_free(a);
	ddp_session_free(b);
	ddp_pd_free(pd);
	ddp_ctx_free(ctx);
	free(rbuf);
	free(tbuf);
	free(src);
	return ok ? 0 : 1;
}
