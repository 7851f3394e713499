/*
 * fuzz_ddp_rx: the receive pipeline. A session with registered STags and
 * posted buffers (tests/support/fuzzfix.c) receives a sequence of segments
 * decoded from the input, each through the whole-segment entry or the
 * header-first trio (payload copied in input-chosen pieces, optionally with
 * an STag revoked mid-payload), in order or with LLP sequence numbers,
 * mixed with skips, invalidations, peer close, LLP errors and stream
 * resets. After every step no octet outside the writable buffers may have
 * changed, header-first destinations are checked before each copy, and at
 * the end everything is freed (the context must be free of objects).
 *
 * Record: op(1) [args]
 *   op & 7 = 0..3  segment: stream(1) seq(2) len(1) bytes(len)
 *                  op&0x08: use seq (else DDP_LLP_INORDER)
 *                  op&0x10: header-first, piece = 1 + (op >> 6) * 5
 *                  op&0x20: patch the STag (tagged) with a registered one,
 *                           or QN/MSN/MO (untagged) to small values
 *                  op&0x40 with header-first: revoke STag slot 0 mid-way
 *   op & 7 = 4     rx_skip: stream(1) seq(2)
 *   op & 7 = 5     invalidate STag slot (op >> 3)
 *   op & 7 = 6     ddp_llp_peer_closed / ddp_llp_error / stream_reset on
 *                  stream (op >> 5) & 1, chosen by (op >> 3) & 3
 *   op & 7 = 7     ddp_llp_rx_begin misuse probes (wrong hdr_len)
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ddp/llp.h>

#include "ddpwire.h"
#include "fuzzfix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct cur {
	const uint8_t *p, *end;
};

static int get8(struct cur *c, uint8_t *v)
{
	if (c->p >= c->end)
		return -1;
	*v = *c->p++;
	return 0;
}

static int get16(struct cur *c, uint16_t *v)
{
	if (c->end - c->p < 2)
		return -1;
	*v = (uint16_t)(c->p[0] << 8 | c->p[1]);
	c->p += 2;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cur c = { data, data + size };
	fuzzfix *f = malloc(sizeof(*f));
	uint8_t op, b, len, seg[256];
	uint16_t seq;
	int steps = 0;

	if (!f)
		return 0;
	ff_init(f, 64);
	while (get8(&c, &op) == 0 && steps++ < 256) {
		switch (op & 7) {
		case 0: case 1: case 2: case 3: {
			if (get8(&c, &b) || get16(&c, &seq) || get8(&c, &len))
				goto out;
			size_t n = (size_t)(c.end - c.p) < len
					   ? (size_t)(c.end - c.p) : len;
			memcpy(seg, c.p, n);
			c.p += n;
			if ((op & 0x20) && n >= 6 && (seg[0] & TW_T))
				tw_put32(seg + 2, ff_stag(f, seg[1]));
			if ((op & 0x20) && n >= 18 && !(seg[0] & TW_T)) {
				/* near-valid untagged: small QN, MSN, MO */
				tw_put32(seg + 6, seg[9] % 4);
				tw_put32(seg + 10, seg[13] % 5);
				tw_put32(seg + 14, seg[17] % 40);
			}
			int hf = !!(op & 0x10);
			ff_feed(f, b & 1, (op & 0x08) ? seq : DDP_LLP_INORDER,
				seg, n, hf, 1 + (size_t)(op >> 6) * 5,
				hf && (op & 0x40) ? 0 : -1);
			break;
		}
		case 4:
			if (get8(&c, &b) || get16(&c, &seq))
				goto out;
			(void)ddp_llp_rx_skip(f->s, b & 1, seq);
			break;
		case 5:
			ff_invalidate(f, op >> 3);
			break;
		case 6: {
			uint32_t st = (op >> 5) & 1;

			switch ((op >> 3) & 3) {
			case 0:
				ddp_llp_peer_closed(f->s, st);
				break;
			case 1:
				ddp_llp_error(f->s, st, DDP_LAYER_LLP, 0,
					      DDP_MPA_ECODE_CRC);
				break;
			case 2:
				(void)ddp_llp_stream_reset(f->s, st);
				for (int q = 0; q < 3; q++)
					f->next_msn[st][q] = 1;
				break;
			default:
				(void)ddp_stream_abort(f->s, st);
				break;
			}
			break;
		}
		default: {
			ddp_rx rx;
			uint8_t h[18] = { (uint8_t)(op & 0x80) };

			if (ddp_llp_rx_begin(f->s, 0, DDP_LLP_INORDER, h,
					     (op & 0x80) ? 18 : 14, 0,
					     &rx) == 0)
				abort(); /* wrong hdr_len must be refused */
			break;
		}
		}
		ff_check(f);
	}
out:
	ff_fini(f);
	free(f);
	return 0;
}
