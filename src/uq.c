/* Untagged buffer queues (RFC 5041 §4.3, §7.1): one FIFO per (stream, QN);
 * the oldest posted buffer answers to head_msn, the next to head_msn + 1. */
#include <stdlib.h>

#include "alloc.h"
#include "core.h"

void uq_reset(struct uq *q)
{
	q->head_msn = 1; /* RFC 5041 §4.3: the first MSN is 1 */
	q->tx_msn = 1;
	q->rx_open = 0;
}

int uq_push(struct uq *q, uint32_t max, void *buf, size_t len, void *ctx)
{
	if (q->count >= max)
		return DDP_ERR_LIMIT;
	if (q->count == q->cap) {
		uint32_t ncap = q->cap ? q->cap * 2 : 8;
		struct uq_ent *n = ddp_malloc_((size_t)ncap * sizeof(*n));
		if (!n)
			return DDP_ERR_NOMEM;
		for (uint32_t i = 0; i < q->count; i++)
			n[i] = q->ring[(q->head + i) & (q->cap - 1)];
		free(q->ring);
		q->ring = n;
		q->cap = ncap;
		q->head = 0;
	}
	struct uq_ent *e = &q->ring[(q->head + q->count) & (q->cap - 1)];
	e->buf = buf;
	e->len = len;
	e->ctx = ctx;
	q->count++;
	return 0;
}

/* RFC 5041 §7.1 / DDP-VAL-U2, U5: is there a posted buffer for msn?
 * The codes of §7.2 tell "no buffer available" (0x02) from "MSN range is
 * not valid" (0x03) by where msn lies against head_msn, the MSN of the
 * first available buffer (modulo 2^32, DDP-UNT-3):
 *  - at or after head_msn + count (ahead of every posted buffer, e.g. one
 *    past the last, or any MSN while none is posted): the sender is ahead
 *    of the buffers the ULP posted, the "no buffer" case (DDP-ERR-7);
 *  - before head_msn (serially behind: an MSN whose buffer was already
 *    consumed, a replay): outside the valid range, whatever is posted. */
enum uq_verdict uq_find(const struct uq *q, uint32_t msn, struct uq_ent **out)
{
	uint32_t d = msn - q->head_msn;
	if (d >= 0x80000000u) /* before head_msn */
		return UQ_RANGE;
	if (d >= q->count)
		return UQ_NOBUF;
	*out = &q->ring[(q->head + d) & (q->cap - 1)];
	return UQ_OK;
}

void uq_pop(struct uq *q, struct uq_ent *out)
{
	*out = q->ring[q->head];
	q->head = (q->head + 1) & (q->cap - 1);
	q->count--;
	q->head_msn++;
}

void uq_free(struct uq *q)
{
	free(q->ring);
	q->ring = NULL;
	q->cap = q->count = q->head = 0;
}

/* RFC 5041 §5.2 (DDP-SEG-3, DDP-UNT-4): the source sends every octet of a
 * message, in segments whose MO starts at 0 and grows by each segment's
 * payload, the L=1 segment last. The sink does not have to check that a
 * message arrived whole (DDP-SEG-9), but delivering one whose octets were
 * not all placed would hand the ULP whatever its buffer held before (a
 * previous peer's data): so every untagged segment is accounted here in
 * the order the LLP sent it (the ordering window's order over SCTP, where
 * placement itself may come in any order; duplicates never get here), and
 * a message only counts as placed when its segments cover 0 .. MO + length
 * of its L=1 segment exactly once. rx_next <= MO + payload of a placed
 * segment, which check_untagged bounds by the buffer (< 2^32). */
int uq_rx_continues(const struct uq *q, uint32_t msn, uint32_t mo)
{
	return mo == ((q->rx_open && q->rx_msn == msn) ? q->rx_next : 0);
}

int uq_rx_segment(struct uq *q, uint32_t msn, uint32_t mo, uint32_t payload, int last)
{
	if (!uq_rx_continues(q, msn, mo))
		return -1;
	q->rx_msn = msn;
	q->rx_next = mo + payload;
	q->rx_open = !last;
	return 0;
}
