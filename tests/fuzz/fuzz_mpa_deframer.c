/* Fuzz target: MPA FPDU deframer in full operation, against a real DDP
 * session (registered STag 0x...01 region, posted untagged buffers), via an
 * MPA Responder connection that accepted a Request.
 * Input: byte 0 = options (bit0 markers, bit1 CRC, bit2 peer-to-peer
 * with RTR, bits3-5 read piece size selector, bit6: no staging (else the
 * default policy: small FPDUs through the receive ring), bit7:
 * scatter reads), then the
 * octets the peer sends after its Request.
 * Invariants (ASan/UBSan): no over-read/over-write of any buffer, no leak;
 * nothing is placed outside the registered/posted buffers (guard bytes). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ddp/ddp.h>
#include <ddp/llp.h>
#include "mpa/mpa_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define GUARD 16
#define TAGLEN 4096
#define NPOST 4
#define POSTLEN 2048

struct fz {
	const uint8_t *in;
	size_t n, off;
	size_t piece;
	mpa_proto *c;
	int stage; /* 0: the Request, 1: the fuzz bytes */
	uint8_t req[64];
	size_t reqlen;
};

static ssize_t f_read(void *io, void *dst, size_t n)
{
	struct fz *f = io;
	const uint8_t *src = f->stage ? f->in : f->req;
	size_t len = f->stage ? f->n : f->reqlen;
	if (f->off == len)
		return f->stage ? DDP_ERR_CLOSED : 0;
	size_t k = len - f->off;
	if (k > n)
		k = n;
	if (f->stage && k > f->piece)
		k = f->piece;
	memcpy(dst, src + f->off, k);
	f->off += k;
	return (ssize_t)k;
}

/* scatter read: the same octets as f_read, spread over iov[] in order */
static ssize_t f_readv(void *io, const struct iovec *iov, int cnt)
{
	ssize_t t = 0;
	for (int i = 0; i < cnt; i++) {
		if (iov[i].iov_len == 0)
			continue;
		ssize_t r = f_read(io, iov[i].iov_base, iov[i].iov_len);
		if (r <= 0)
			return t > 0 ? t : r;
		t += r;
		if ((size_t)r < iov[i].iov_len)
			break;
	}
	return t;
}

static ssize_t f_writev(void *io, const struct iovec *iov, int cnt)
{
	ssize_t t = 0;
	for (int i = 0; i < cnt; i++)
		t += (ssize_t)iov[i].iov_len;
	return t;
}

static void f_shutdown(void *io, int abortive)
{
}

static void f_event(void *io, enum mpa_proto_event ev, int err, uint8_t ec)
{
	struct fz *f = io;
	if (ev == MPA_CEV_REQUEST)
		mpa_proto_accept(f->c, NULL, 0);
}

static const mpa_proto_io fio = {
	.read = f_read, .writev = f_writev, .shutdown = f_shutdown, .event = f_event,
};
static const mpa_proto_io fio_v = {
	.read = f_read, .writev = f_writev, .shutdown = f_shutdown, .event = f_event,
	.readv = f_readv,
};

#ifdef FUZZ_DEBUG
#include <stdio.h>
#endif

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
#ifdef FUZZ_DEBUG
	fprintf(stderr, "deliver status %d tagged %d len %u\n", d->status,
		d->tagged, d->len);
#endif
}

static void on_error(ddp_session *s, const ddp_error_info *e, void *user)
{
#ifdef FUZZ_DEBUG
	fprintf(stderr, "error %d/%d/%d\n", e->layer, e->etype, e->code);
#endif
}

static const ddp_callbacks cbs = { .deliver = deliver, .error = on_error };

static uint32_t fixed_random(void *user)
{
	uint32_t *x = user;
	*x = *x * 1103515245u + 12345u;
	return *x;
}

static void check_guard(const uint8_t *g)
{
	for (int i = 0; i < GUARD; i++)
		if (g[i] != 0xA5)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t opt = data[0];
	struct fz f = { 0 };
	uint8_t *in = malloc(size);
	if (!in)
		return 0;
	memcpy(in, data + 1, size - 1);
	f.in = in;
	f.n = size - 1;
	f.piece = 1 + (size_t)((opt >> 3) & 7) * 97;

	uint32_t rs = 1;
	ddp_ctx_config cc = { .random = fixed_random, .random_user = &rs };
	ddp_ctx *ctx;
	ddp_pd *pd;
	ddp_session *s;
	if (ddp_ctx_new(&cc, &ctx) || ddp_pd_new(ctx, &pd))
		abort();

	/* the peer's Request */
	mpa_local peer = { .rev = (opt & 4) ? 2 : 1, .markers = opt & 1,
			   .crc = (opt >> 1) & 1, .p2p = (opt >> 2) & 1,
			   .rtr = MPA_RTR_ALL, .ird = 4, .ord = 4 };
	mpa_frame req;
	mpa_build_request(&peer, &req);
	mpa_frame_encode(&req, f.req, sizeof f.req, &f.reqlen);

	mpa_proto_config cfg = { .initiator = 0,
				.local = { .rev = 2, .markers = opt & 1,
					   .crc = 0, .ird = 4, .ord = 4 },
				.emss = 1460,
				.stage_max = (opt & 0x40) ? UINT32_MAX : 0 };
	if (mpa_proto_new(&cfg, (opt & 0x80) ? &fio_v : &fio, &f, &f.c))
		abort();
	ddp_session_config sc = { .pd = pd };
	if (ddp_session_new(ctx, &sc, &mpa_proto_llp_ops, f.c, &cbs, &f, &s))
		abort();
	mpa_proto_attach(f.c, s);

	uint8_t *tag = malloc(TAGLEN + 2 * GUARD);
	uint8_t *post = malloc(NPOST * (POSTLEN + GUARD) + GUARD);
	memset(tag, 0xA5, TAGLEN + 2 * GUARD);
	memset(post, 0xA5, NPOST * (POSTLEN + GUARD) + GUARD);
	ddp_mr_attr mr = { .addr = tag + GUARD, .len = TAGLEN,
			   .access = DDP_ACCESS_REMOTE_WRITE, .pd = pd };
	uint32_t stag;
	if (ddp_stag_register(ctx, &mr, &stag))
		abort();
	for (int i = 0; i < NPOST; i++)
		ddp_post_recv(s, 0, (uint32_t)(i & 1),
			      post + GUARD + (size_t)i * (POSTLEN + GUARD),
			      POSTLEN, NULL);

	mpa_proto_start(f.c);
	mpa_proto_on_readable(f.c); /* the Request; accepted in f_event */
	f.stage = 1;
	f.off = 0;
	for (int i = 0; i < 100000; i++) {
		if (mpa_proto_on_readable(f.c) < 0 || f.off == f.n)
			break;
	}
	mpa_proto_on_readable(f.c); /* sees the end of input */
	mpa_proto_on_writable(f.c);

	check_guard(tag);
	check_guard(tag + GUARD + TAGLEN);
	for (int i = 0; i <= NPOST; i++)
		check_guard(post + (size_t)i * (POSTLEN + GUARD));
	ddp_stag_invalidate(ctx, stag);
	ddp_session_free(s);
	mpa_proto_free(f.c);
	ddp_pd_free(pd);
	ddp_ctx_free(ctx);
	free(tag);
	free(post);
	free(in);
	return 0;
}
