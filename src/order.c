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
#include "dlist.h"

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
	if (d != 0 && d < w->cap && w->ring[*seq & (w->cap - 1)].state != SLOT_EMPTY)
		return ORD_DUP;
	return ORD_NEW;
}

/* ---------------------------------------------- fair share of the budget
 *
 * Without a share, a few hostile associations holding one segment far
 * ahead on each of their streams would pin the whole context budget, and
 * a legitimate peer whose two segments merely came out of order would be
 * stopped.
 * RFC 5041 §8 (DDP-SEC-12): the resource manager SHOULD enforce a fair
 * share of scarce resources and MUST detect a peer over-consuming shared
 * receive buffers; a refused ring is reported on the stream and logged.
 * The budget is therefore shared between the sessions that hold reorder
 * memory (an SCTP association or an MPA connection is one session; MPA
 * never reorders, so its connections never take part). A headroom of
 * max / 8 is kept for sessions that start reordering later. With n
 * sessions holding a ring (the asker included), a session's share is
 * (max - max / 8) / n. A request for one more ring is granted when:
 *
 *   1. first ring (the session holds none): the budget has room for it,
 *      headroom included;
 *   2. any further ring (or a larger one): within the session's share, it
 *      leaves the headroom free; past the share (borrowing), it also
 *      leaves the unused part of the share of every other session holding
 *      a ring free. Room no active session's share claims is lent to
 *      whoever asks; it comes back as the borrower's windows drain. (A
 *      session under its share once had to leave the others' unused
 *      shares free too, so a legitimate association refused at 3.5 KiB of
 *      a 2 MiB share while pinning sessions held borrowed room: make soak.)
 *
 * So (a) the first ring of a session (enough for any reordering on one
 * stream: a legitimate peer whose segments merely come out of order) is
 * served while the headroom lasts, even when hostile sessions took all
 * the rest: at the defaults about 36 sessions holding a segment 4,000
 * ahead (a 224 KiB ring), thousands whose segments are a few out of order
 * (rings start at 64 slots, 3.5 KiB, see ring_fit); (b) sessions reordering at the same time are
 * each served up to their share, and one over its share gets the error once the others need theirs;
 * (c) rings already granted are never taken back: on SCTP usrsctp has acknowledged the segments
 * they hold, and dropping them would lose data. A session that starts reordering after others
 * borrowed gets its first ring and what is left up to its share.
 *
 * A refused request fails the asking stream alone: rx.c reports RFC 5041
 * §7.2 Local Catastrophic (layer DDP, error type 0, code 0x00) on that
 * stream, whose ULP sends the Terminate (RFC 5040 §5.3): the session over
 * its share gets the error on its own stream; everyone else goes on. */
void ooo_join(struct ooo_budget *b, struct ooo_acct *a)
{
	memset(a, 0, sizeof(*a));
	b->sessions++;
}

void ooo_leave(struct ooo_budget *b, struct ooo_acct *a)
{
	b->sessions--; /* its rings were refunded (order_free) before */
	(void)a;
}

static void set_active(struct ooo_budget *b, struct ooo_acct *a, int on)
{
	if (on) {
		a->prev = NULL;
		DLIST_PUSH(&b->active, a);
		b->nactive++;
		return;
	}
	DLIST_UNLINK(&b->active, a);
	b->nactive--;
}

/* The unused part of the shares of the other sessions holding a ring:
 * one walk over those per ring asked for (rings are allocated on a
 * stream's first out-of-order segment, never per segment). */
static uint64_t claimed(const struct ooo_budget *b, const struct ooo_acct *a, uint64_t share)
{
	uint64_t sum = 0;
	for (const struct ooo_acct *o = b->active; o; o = o->next)
		if (o != a && o->used < share)
			sum += share - o->used;
	return sum;
}

int ooo_charge(struct ooo_budget *b, struct ooo_acct *a, uint64_t bytes)
{
	uint64_t headroom = b->max / 8;
	if (bytes > b->max - b->used)
		goto refuse;
	if (a && a->used) {
		uint64_t share = (b->max - headroom) / b->nactive;
		uint64_t limit = b->max - headroom;
		uint64_t need = b->used + bytes; /* <= max: no overflow */
		if (need > limit)
			goto refuse;
		/* within its own share a session needs only the room; past it
		 * (borrowing) it must leave the others' unused shares free */
		if (a->used + bytes > share && claimed(b, a, share) > limit - need)
			goto refuse;
	}
	b->used += bytes;
	if (a) {
		if (a->used == 0)
			set_active(b, a, 1);
		a->used += bytes;
	}
	return 0;
refuse:
	b->refused++;
	return DDP_ERR_LIMIT;
}

void ooo_refund(struct ooo_budget *b, struct ooo_acct *a, uint64_t bytes)
{
	b->used -= bytes;
	if (!a)
		return;
	a->used -= bytes;
	if (a->used == 0)
		set_active(b, a, 0);
}

/* The ring holds slots base .. base + cap - 1. It starts at ORDER_RING_MIN
 * slots and doubles (up to the window, size) when a segment lands beyond
 * it, so a peer whose segments merely come a few out of order costs a few
 * KiB of the budget, and one that holds a segment far ahead pays for the
 * whole distance. The budget is charged for what is allocated. */
#define ORDER_RING_MIN 64u

static int ring_fit(struct order_win *w, uint32_t d)
{
	uint32_t cap = w->cap ? w->cap : (ORDER_RING_MIN < w->size ? ORDER_RING_MIN : w->size);
	while (cap <= d && cap < w->size)
		cap *= 2;
	if (cap == w->cap)
		return 0;
	uint64_t bytes = (uint64_t)(cap - w->cap) * sizeof(*w->ring);
	if (w->budget && ooo_charge(w->budget, w->acct, bytes))
		return DDP_ERR_LIMIT;
	struct order_slot *n = ddp_calloc_(cap, sizeof(*n));
	if (!n) {
		if (w->budget)
			ooo_refund(w->budget, w->acct, bytes);
		return DDP_ERR_NOMEM;
	}
	/* every slot in use is within base .. base + old cap - 1 */
	for (uint32_t i = 0; w->ring && i < w->cap; i++)
		n[(w->base + i) & (cap - 1)] = w->ring[(w->base + i) & (w->cap - 1)];
	free(w->ring);
	w->ring = n;
	w->cap = cap;
	return 0;
}

/* Record seq as placed (or skipped). Returns 0, DDP_ERR_LIMIT (the
 * session may not take another ring, or a larger one, of the context's
 * budget, see ooo_charge) or DDP_ERR_NOMEM. The caller then drains the
 * window with the delivery loop in rx.c. */
int order_mark(struct order_win *w, uint32_t seq, uint8_t state, uint8_t last, uint32_t payload,
               const struct dlv_rec *rec)
{
	int rc = ring_fit(w, seq - w->base);
	if (rc)
		return rc;
	struct order_slot *sl = &w->ring[seq & (w->cap - 1)];
	sl->state = state;
	sl->last = last;
	sl->payload = payload;
	if (rec)
		sl->rec = *rec;
	w->held++;
	return 0;
}

struct rx_held *order_hold_new(struct order_win *w, size_t len)
{
	uint64_t bytes = sizeof(struct rx_held) + (uint64_t)len;
	if (len > UINT32_MAX || (w->budget && ooo_charge(w->budget, w->acct, bytes)))
		return NULL;
	struct rx_held *hd = ddp_malloc_((size_t)bytes);
	if (!hd) {
		if (w->budget)
			ooo_refund(w->budget, w->acct, bytes);
		return NULL;
	}
	hd->len = (uint32_t)len;
	hd->hdr_len = 0;
	return hd;
}

void order_hold_free(struct order_win *w, struct rx_held *hd)
{
	if (!hd)
		return;
	if (w->budget)
		ooo_refund(w->budget, w->acct, sizeof(*hd) + (uint64_t)hd->len);
	free(hd);
}

int order_mark_held(struct order_win *w, uint32_t seq, uint8_t last, struct rx_held *hd)
{
	int rc = order_mark(w, seq, SLOT_HELD, last, hd->len, NULL);
	if (rc == 0)
		w->ring[seq & (w->cap - 1)].held = hd;
	return rc;
}

void order_free(struct order_win *w)
{
	for (uint32_t i = 0; w->ring && w->held && i < w->cap; i++)
		if (w->ring[i].state == SLOT_HELD)
			order_hold_free(w, w->ring[i].held);
	if (w->ring && w->budget)
		ooo_refund(w->budget, w->acct, (uint64_t)w->cap * sizeof(*w->ring));
	free(w->ring);
	w->ring = NULL;
	w->cap = 0;
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
