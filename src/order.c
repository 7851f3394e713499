/* The ordering window (RFC 5041 §5.3-§5.4, DDP-ORD-*, DDP-DLV-1): segments
 * may be placed in any order; a message is delivered only when every
 * segment up to and including its L=1 segment was placed. For an LLP that
 * hands segments up out of order (SCTP, RFC 5043) the 16-bit DDP-SSN orders
 * them; the window holds at most `size` segments beyond the contiguous
 * prefix, so memory is bounded whatever the peer sends. */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "core.h"

enum order_check order_classify(const struct order_win *w, uint32_t llp_seq, uint32_t *seq)
{
	if (llp_seq == DDP_LLP_INORDER) {
		*seq = w->base;
		return ORD_NEW;
	}
	/* Serial-number arithmetic on 16 bits (RFC 5043 §10: fewer than 32768
	 * chunks in flight per stream, so the half space decides old vs new). */
	uint16_t d = (uint16_t)((uint16_t)llp_seq - (uint16_t)w->base);
	if (d >= 0x8000)
		return ORD_DUP; /* already consumed: DDP-LLP-11, drop silently */
	if (d >= w->size)
		return ORD_OUTSIDE;
	*seq = w->base + d;
	if (d != 0 && w->ring && w->ring[*seq & (w->size - 1)].state != SLOT_EMPTY)
		return ORD_DUP;
	return ORD_NEW;
}

/* Record seq as placed (or skipped). Returns 0 or DDP_ERR_NOMEM. The caller
 * then drains the window with the delivery loop in rx.c. */
int order_mark(struct order_win *w, uint32_t seq, uint8_t state, uint8_t last,
	       uint32_t payload, const struct dlv_rec *rec)
{
	if (!w->ring) {
		uint64_t bytes = (uint64_t)w->size * sizeof(*w->ring);
		if (w->budget && w->budget->used + bytes > w->budget->max)
			return DDP_ERR_LIMIT;
		w->ring = ddp_calloc_(w->size, sizeof(*w->ring));
		if (!w->ring)
			return DDP_ERR_NOMEM;
		if (w->budget)
			w->budget->used += bytes;
	}
	struct order_slot *sl = &w->ring[seq & (w->size - 1)];
	sl->state = state;
	sl->last = last;
	sl->payload = payload;
	if (last && rec)
		sl->rec = *rec;
	w->held++;
	return 0;
}

void order_free(struct order_win *w)
{
	if (w->ring && w->budget)
		w->budget->used -= (uint64_t)w->size * sizeof(*w->ring);
	free(w->ring);
	w->ring = NULL;
}

void order_reset(struct order_win *w)
{
	order_free(w);
	w->base = 0;
	w->held = 0;
	w->msg_bytes = 0;
}

void order_release_if_empty(struct order_win *w)
{
	if (w->ring && w->held == 0)
		order_free(w);
}
