/* Receive-buffer autotuning: the sizing rule (sctp_rcvbuf.h). */
#include "sctp/usrsctp/sctp_rcvbuf.h"

uint32_t sctp_rcvbuf_step(struct sctp_rcvbuf_meter *m, uint32_t cur, uint32_t read, uint32_t ms,
                          uint32_t rtt_ms)
{
	uint64_t got = 0, span = 0, per_rtt, want;
	unsigned i, k;

	m->read[m->next] = read;
	m->ms[m->next] = ms;
	m->next = (m->next + 1) % SCTP_RCVBUF_SLOTS;
	if (m->used < SCTP_RCVBUF_SLOTS)
		m->used++;
	if (cur >= SCTP_RCVBUF_AUTO_MAX || rtt_ms < SCTP_RCVBUF_RTT_MIN_MS)
		return cur;
	/* the newest ticks back to one round trip */
	for (k = 0, i = m->next; k < m->used && span < rtt_ms; k++) {
		i = (i + SCTP_RCVBUF_SLOTS - 1) % SCTP_RCVBUF_SLOTS;
		got += m->read[i];
		span += m->ms[i];
	}
	if (!got || !span)
		return cur;
	/* per round trip: a span of whole ticks over the round trip is scaled
	 * down to it; a full history shorter than the round trip is scaled
	 * up; a short history at the start is taken as it is (no guess) */
	if (span >= rtt_ms || m->used == SCTP_RCVBUF_SLOTS)
		per_rtt = got * rtt_ms / span;
	else
		per_rtt = got;
	/* twice that lets a sender in slow start (doubling each round trip)
	 * find the window open */
	want = 2 * per_rtt;
	if (want <= cur)
		return cur;
	want = (want + SCTP_RCVBUF_AUTO_STEP - 1) / SCTP_RCVBUF_AUTO_STEP * SCTP_RCVBUF_AUTO_STEP;
	return want > SCTP_RCVBUF_AUTO_MAX ? SCTP_RCVBUF_AUTO_MAX : (uint32_t)want;
}
