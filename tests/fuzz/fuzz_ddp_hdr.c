/*
 * fuzz_ddp_hdr: DDP header decode and the RFC 5041 §7.1 checks through the
 * whole-segment entry (ddp_llp_rx_segment) of a fresh session. The input
 * is one segment; it is fed as is, and once more with its STag replaced by
 * one of the registered STags (so the bounds checks are reached). Canaries
 * around every buffer prove that nothing outside them was written
 * (DDP-SEC-10, DDP-ERR-1).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ddpwire.h"
#include "fuzzfix.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzzfix *f = malloc(sizeof(*f));
	uint8_t *seg;

	if (!f)
		return 0;
	ff_init(f, 0);
	ff_feed(f, 0, DDP_LLP_INORDER, data, size, 0, 0, -1);
	ff_check(f);
	ff_fini(f);

	if (size >= 14 && (data[0] & TW_T)) {
		seg = malloc(size);
		if (seg) {
			memcpy(seg, data, size);
			ff_init(f, 0);
			tw_put32(seg + 2, ff_stag(f, seg[1]));
			ff_feed(f, seg[1] >> 7, DDP_LLP_INORDER, seg, size, 0,
				0, -1);
			ff_check(f);
			ff_fini(f);
			free(seg);
		}
	}
	free(f);
	return 0;
}
