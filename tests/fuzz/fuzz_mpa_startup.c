/* Fuzz target: MPA start-up frame parser (RFC 5044 §7.1, RFC 6581) and the
 * negotiation on whatever it accepts.
 * Input: byte 0 = options (bit0: expect a Reply, bits1-3: piece size
 * selector, bit4: small PD cap), then the frame bytes.
 * Invariants: never over-reads; consumed counts add up; a parsed frame
 * re-encodes to bytes that parse to the same frame; negotiation results
 * stay within 14-bit IRD/ORD and pick at most one RTR kind. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ddp/ddp.h>
#include "mpa/mpa_startup.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same_frame(const mpa_frame *a, const mpa_frame *b)
{
	if (a->reply != b->reply || a->rev != b->rev ||
	    a->enhanced != b->enhanced || a->priv_len != b->priv_len ||
	    (a->flags & 0xE0) != (b->flags & 0xE0))
		abort();
	if (a->enhanced && (a->ird != b->ird || a->ord != b->ord ||
			    a->p2p != b->p2p ||
			    (a->p2p && a->rtr != b->rtr)))
		abort();
	if (a->priv_len && memcmp(a->priv, b->priv, a->priv_len) != 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t opt = data[0];
	data++;
	size--;
	uint8_t *buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	if (size)
		memcpy(buf, data, size);

	static mpa_startup_parser p, q;
	int expect_reply = opt & 1;
	size_t piece = 1 + ((opt >> 1) & 7) * 5;
	mpa_sp_init(&p, expect_reply, (opt & 0x10) ? 64 : 0);
	size_t off = 0;
	int rc = DDP_ERR_NEED_MORE;
	while (off < size) {
		size_t k = size - off < piece ? size - off : piece, used;
		rc = mpa_sp_feed(&p, buf + off, k, &used);
		if (used > k)
			abort();
		off += used;
		if (rc != DDP_ERR_NEED_MORE)
			break;
		if (used != k)
			abort();
	}
	if (rc == DDP_ERR_PROTO && (p.state != MPA_SP_ERROR || !p.why))
		abort();
	if (rc == 0) {
		/* fed piecewise, octets after the frame may sit in a later
		 * piece: the connection treats those itself */
		if (p.state != MPA_SP_DONE || off > size)
			abort();
		/* re-encode and re-parse */
		uint8_t out[MPA_FRAME_HDR_LEN + MPA_PD_MAX];
		size_t len;
		mpa_frame f = p.frame;
		if (mpa_frame_encode(&f, out, sizeof out, &len) != 0)
			abort();
		mpa_sp_init(&q, expect_reply, 0);
		size_t used;
		if (mpa_sp_feed(&q, out, len, &used) != 0 || used != len)
			abort();
		same_frame(&p.frame, &q.frame);

		mpa_local l = { .rev = 2, .crc = 1, .ird = (uint16_t)(opt * 3),
				.ord = (uint16_t)(opt * 5), .p2p = opt & 0x20,
				.rtr = opt >> 5 };
		mpa_result res;
		if (!p.frame.reply) {
			mpa_frame rep;
			if (mpa_respond(&l, &p.frame, &rep, &res) != 0)
				abort();
			if (rep.ird > MPA_IRD_ORD_MASK || rep.ord > MPA_IRD_ORD_MASK)
				abort();
			if (mpa_frame_encode(&rep, out, sizeof out, &len) != 0 &&
			    p.frame.enhanced)
				abort();
		} else {
			mpa_frame req;
			uint8_t ec;
			l.rev = p.frame.rev;
			mpa_build_request(&l, &req);
			rc = mpa_check_reply(&l, &req, &p.frame, &res, &ec);
			if (rc == DDP_ERR_PROTO && ec == 0)
				abort();
			if (rc == 0 && res.p2p && res.rtr != MPA_RTR_SEND &&
			    res.rtr != MPA_RTR_WRITE && res.rtr != MPA_RTR_READ)
				abort();
		}
	}
	free(buf);
	return 0;
}
