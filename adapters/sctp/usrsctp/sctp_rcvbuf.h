/*
 * Receive-buffer autotuning for an SCTP association (dynamic right-sizing,
 * as Linux TCP sizes its receive buffer): the buffer is the window the
 * peer may fill, so it must cover what arrives in one round trip, and no
 * more. A buffer much larger than that only lets a queue stand in it,
 * which slows a LAN transfer whose receiving application is slower than
 * the sender (docs/performance.md, section 2). So the buffer starts at
 * SCTP_RCVBUF_AUTO_MIN and grows to twice what the application read in
 * the last round trip, up to SCTP_RCVBUF_AUTO_MAX; it never shrinks.
 * Twice, not more: a window of at most twice the bandwidth-delay product
 * cannot overfill a bottleneck queue of one bandwidth-delay product in
 * slow start, where a fixed large window overshoots and loses a burst
 * (docs/performance.md, section 15).
 * The read octets are kept per timer tick over the last round trip (a
 * sliding window), so growth follows the arrivals within a tick instead
 * of waiting for a whole measuring window to end. Pure arithmetic here;
 * the glue (adapters/sctp/usrsctp/sctp_usrsctp_rcvbuf.c) counts, times and
 * applies it.
 */
#ifndef DDP_SCTP_RCVBUF_H
#define DDP_SCTP_RCVBUF_H

#include <stdint.h>

#define SCTP_RCVBUF_AUTO_MIN  (1u << 20) /* 1 MiB: 1 GB/s at a 1 ms round trip */
#define SCTP_RCVBUF_AUTO_MAX  (8u << 20) /* 8 MiB: 1 Gbit/s x 64 ms */
#define SCTP_RCVBUF_AUTO_STEP (64u << 10)

#define SCTP_RCVBUF_SLOTS 32 /* ticks of history: 320 ms at 10 ms a tick */

/* What was read in each of the last ticks (zeroed by the caller). */
struct sctp_rcvbuf_meter {
	uint32_t read[SCTP_RCVBUF_SLOTS]; /* octets read in the tick */
	uint32_t ms[SCTP_RCVBUF_SLOTS];   /* the tick's length */
	unsigned next, used;
};

/* Round trips below this (whole ms, as usrsctp reports them) do not grow
 * the buffer: 0 is a sub-ms path, and 1 is 1.0-1.99 ms or a sub-ms path
 * whose handshake met a scheduling delay (as a loaded veth pair does);
 * the floor (1 MiB per 1-2 ms round trip) serves 0.5-1 GB/s there, more
 * than usrsctp moves (docs/performance.md, section 3). */
#define SCTP_RCVBUF_RTT_MIN_MS 2

/* One tick: read octets were handed to the application in the last ms
 * milliseconds; cur is the buffer now; rtt_ms the path's round trip
 * without queueing (the least seen), whole milliseconds (0: not known
 * yet; below SCTP_RCVBUF_RTT_MIN_MS: no growth). Returns the buffer from
 * now on. A round trip longer than the history is scaled from it. */
uint32_t sctp_rcvbuf_step(struct sctp_rcvbuf_meter *m, uint32_t cur, uint32_t read, uint32_t ms,
                          uint32_t rtt_ms);

#endif
