/*
 * fuzz_ddp_order: the reorder window of an out-of-order LLP (RFC 5041 §5.3,
 * §5.4; DDP-ORD-3..5, DDP-DLV-1, DDP-LLP-5, DDP-LLP-11). Small well-formed
 * segments are fed with input-chosen 16-bit sequence numbers (near the
 * window, inside it, far outside, already consumed), duplicates and
 * rx_skip calls. Invariants: untagged messages are delivered in MSN order
 * and each at most once, tagged deliveries never outnumber the tagged L=1
 * segments, nothing outside the buffers is written.
 *
 * Record (4 octets): op seq_hi seq_lo arg
 *   op & 3 = 0  tagged segment to STag slot 0, TO = arg & 63, payload
 *               1 + (arg >> 6) octets, L = op & 4
 *   op & 3 = 1  untagged QN 0, MSN 1 + (arg & 3), MO = (arg >> 2) & 15,
 *               payload 1 + (arg >> 6), L = op & 4
 *   op & 3 = 2  ddp_llp_rx_skip(seq)
 *   op & 3 = 3  the previous segment again (same seq)
 *   op & 8: seq is relative: next-expected + (seq & 31) - 8
 *   op & 16: header-first entry
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <ddp/llp.h>

#include "ddpwire.h"
#include "fuzzfix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzzfix *f = malloc(sizeof(*f));
	uint8_t seg[64], pay[8];
	size_t seglen = 0, tagged_last = 0;
	uint32_t prev_seq = 0;
	uint16_t next = 0;

	if (!f)
		return 0;
	memset(pay, 0x3C, sizeof(pay));
	ff_init(f, 32);
	for (size_t i = 0; i + 4 <= size && i < 4 * 512; i += 4) {
		uint8_t op = data[i], arg = data[i + 3];
		uint16_t seq = (uint16_t)(data[i + 1] << 8 | data[i + 2]);
		int hf = !!(op & 16);

		if (op & 8)
			seq = (uint16_t)(next + (seq & 31) - 8);
		switch (op & 3) {
		case 0:
			seglen = tw_tagged(seg, !!(op & 4), 1, 0, ff_stag(f, 0),
					   arg & 63, pay, 1 + (arg >> 6));
			if (op & 4)
				tagged_last++;
			break;
		case 1:
			seglen = tw_untagged(seg, !!(op & 4), 1, 0, 0,
					     1 + (arg & 3), (arg >> 2) & 15,
					     pay, 1 + (arg >> 6));
			break;
		case 2:
			(void)ddp_llp_rx_skip(f->s, 0, seq);
			if (seq == next)
				next++;
			continue;
		default:
			if (!seglen)
				continue;
			seq = (uint16_t)prev_seq;
			if (seg[0] & TW_T && seg[0] & TW_L)
				tagged_last++;
			break;
		}
		ff_feed(f, 0, seq, seg, seglen, hf, 3, -1);
		prev_seq = seq;
		if (seq == next)
			next++;
		ff_check(f);
	}
	/* tagged deliveries <= tagged L=1 segments fed (at most once) */
	size_t untagged = 0;
	for (int q = 0; q < 3; q++)
		untagged += f->next_msn[0][q] - 1;
	if (f->ndlv > tagged_last + untagged)
		abort();
	ff_fini(f);
	free(f);
	return 0;
}
