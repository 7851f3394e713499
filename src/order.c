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

/* ---------------------------------------------- fair share of the budget
 *
 * Issue 15 finding 2: five hostile associations holding one segment far
 * ahead on each of their streams pinned the whole context budget, and a
 * legitimate peer whose two segments merely came out of order was stopped.
 * The budget is therefore shared between the sessions of the context (an
 * SCTP association or an MPA connection is one session). A headroom of
 * max / 8 is kept for sessions that come later; with n sessions a
 * session's share is (max - max / 8) / n. A request for one more ring is
 * granted when the budget has room for it and:
 *
 *   1. first ring (the session holds none): it leaves the unused part of
 *      every other session's share free; it may use the headroom;
 *   2. any further ring: it leaves the unused part of every other
 *      session's share free and the headroom untouched.
 *
 * So (a) every session is served up to its share whatever the others do:
 * the shares add up to max - max / 8 and nobody takes what another one's
 * share still claims; (b) a session asking for more than its share gets
 * the error (no borrowing: a ring lent to one session cannot be called
 * back when the lender needs it, see below; a lone session's share is
 * 7/8 of the budget); (c) the headroom serves the first ring (enough for
 * any reordering on one stream) of sessions that arrive after the budget
 * was taken: about max / 8 / 224 KiB = 36 SCTP associations at the
 * defaults. Rings already granted are never taken back: on SCTP usrsctp
 * has acknowledged the segments they hold, and dropping them would lose
 * data; a newcomer shrinks the shares, so sessions that filled theirs
 * before it came hold more than the new share until their windows drain.
 *
 * A refused request fails the asking stream alone: rx.c reports RFC 5041
 * §7.2 Local Catastrophic (layer DDP, error type 0, code 0x00) on that
 * stream, whose ULP sends the Terminate (RFC 5040 §5.3): the session over
 * its share gets the error on its own stream; everyone else goes on. */
void ooo_join(struct ooo_budget *b, struct ooo_acct *a)
{
	a->used = 0;
	a->prev = NULL;
	a->next = b->accts;
	if (b->accts)
		b->accts->prev = a;
	b->accts = a;
	b->sessions++;
}

void ooo_leave(struct ooo_budget *b, struct ooo_acct *a)
{
	if (a->prev)
		a->prev->next = a->next;
	else
		b->accts = a->next;
	if (a->next)
		a->next->prev = a->prev;
	b->sessions--;
}

/* The part of the other sessions' shares they do not use. One walk over
 * the sessions per ring asked for: rings are allocated on a stream's
 * first out-of-order segment only, never per segment. */
static uint64_t unused_shares(const struct ooo_budget *b, const struct ooo_acct *a,
			      uint64_t share)
{
	uint64_t sum = 0;
	for (const struct ooo_acct *o = b->accts; o; o = o->next)
		if (o != a && o->used < share)
			sum += share - o->used;
	return sum;
}

int ooo_charge(struct ooo_budget *b, struct ooo_acct *a, uint64_t bytes)
{
	uint64_t headroom = b->max / 8;
	if (bytes > b->max - b->used)
		goto refuse;
	if (a) {
		uint64_t share = (b->max - headroom) / (b->sessions ? b->sessions : 1);
		uint64_t limit = a->used == 0 ? b->max : b->max - headroom;
		uint64_t need = b->used + bytes; /* <= max: no overflow */
		if (need > limit || unused_shares(b, a, share) > limit - need)
			goto refuse;
	}
	b->used += bytes;
	if (a)
		a->used += bytes;
	return 0;
refuse:
	b->refused++;
	return DDP_ERR_LIMIT;
}

void ooo_refund(struct ooo_budget *b, struct ooo_acct *a, uint64_t bytes)
{
	b->used -= bytes;
	if (a)
		a->used -= bytes;
}

/* Record seq as placed (or skipped). Returns 0, DDP_ERR_LIMIT (the
 * session may not take another ring of the context's budget, see
 * ooo_charge) or DDP_ERR_NOMEM. The caller then drains the window with the
 * delivery loop in rx.c. */
int order_mark(struct order_win *w, uint32_t seq, uint8_t state, uint8_t last,
	       uint32_t payload, const struct dlv_rec *rec)
{
	if (!w->ring) {
		uint64_t bytes = (uint64_t)w->size * sizeof(*w->ring);
		if (w->budget && ooo_charge(w->budget, w->acct, bytes))
			return DDP_ERR_LIMIT;
		w->ring = ddp_calloc_(w->size, sizeof(*w->ring));
		if (!w->ring) {
			if (w->budget)
				ooo_refund(w->budget, w->acct, bytes);
			return DDP_ERR_NOMEM;
		}
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
		ooo_refund(w->budget, w->acct, (uint64_t)w->size * sizeof(*w->ring));
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
