/*
 * usrsctp glue: receive-buffer autotuning (the rule: sctp/sctp_rcvbuf.h).
 * While an association is up, the octets the application reads are
 * counted (sctp_usrsctp_io.c); on each tick of the endpoint's timer the
 * rule takes what was read since the last and gives the buffer's size,
 * and SO_RCVBUF applies a change (usrsctp advertises the larger window in
 * its next SACK).
 *
 * The round trip is the least of usrsctp's smoothed round trips
 * (SCTP_STATUS), read at UP and every REFRESH_MS while data moves: the
 * path's own, without the queue the transfer builds. With the smoothed
 * one the rule would chase its own queue: what is in flight stands in the
 * receiver's queue and lengthens the round trip, which grows the buffer,
 * up to its largest (docs/performance.md, section 15). usrsctp reports
 * a retransmission time-out of 0 until it has timed a round trip (a
 * path's RTO is set by the first measurement), so a smoothed round trip
 * of 0 counts as "under 1 ms" only beside a nonzero RTO. The accepting end
 * has no round trip from the handshake (RFC 4960 §5.1: only the initiator
 * times INIT and COOKIE ECHO), so it asks for one HEARTBEAT at once (RFC
 * 6458 §8.1.12, SPP_HB_DEMAND).
 *
 * The socket is made with the largest buffer, so INIT or INIT-ACK offers
 * the largest window: the peer takes that a_rwnd as its first slow-start
 * threshold (RFC 4960 §7.2.1), and a threshold of the floor would end its
 * slow start at 1 MiB, leaving a long path to additive increase (one
 * packet per round trip). At UP, before the peer has more than its
 * initial window in flight, the buffer drops to the floor; each SACK
 * from then on carries the window this rule allows (RFC 4960 §6.2).
 */
#include "sctp/usrsctp/sctp_usrsctp_int.h"

#include <string.h>
#include <time.h>

#include <usrsctp.h>

#include "sctp/usrsctp/sctp_rcvbuf.h"

#define REFRESH_MS    100
#define TUNE_RTT_NONE UINT32_MAX

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The least round trip seen (a->tune_rtt, whole ms, TUNE_RTT_NONE until
 * usrsctp has timed one), updated from usrsctp's smoothed round trip of the
 * primary path (sctp_ll_path_status, which takes the lock). */
static void rtt_update(struct sctp_ll_assoc *a)
{
	sctp_ll_path st;
	if (sctp_ll_path_status(a, &st) || !st.rto_ms)
		return; /* not timed yet */
	if (st.srtt_ms < a->tune_rtt)
		a->tune_rtt = st.srtt_ms;
}

/* One HEARTBEAT to the peer's address now: its answer times a round
 * trip. SPP_HB_DEMAND acts only on a given address (the peer's, from
 * usrsctp_getpaddrs); no other field of the request changes anything. */
static void demand_heartbeat_locked(struct socket *so)
{
	struct sockaddr *addrs = NULL;
	struct sctp_paddrparams pp;
	int n = usrsctp_getpaddrs(so, 0, &addrs);
	if (n <= 0 || !addrs)
		return;
	memset(&pp, 0, sizeof(pp));
	if (addrs->sa_family == AF_CONN) {
		memcpy(&pp.spp_address, addrs, sizeof(struct sockaddr_conn));
		pp.spp_flags = SPP_HB_DEMAND;
		(void)usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp));
	}
	usrsctp_freepaddrs(addrs);
}

void sctp_usrsctp_rcvbuf_up(struct sctp_ll_assoc *a)
{
	int v = (int)SCTP_RCVBUF_AUTO_MIN;

	if (!a->ep->rcv_auto || !a->so)
		return;
	memset(&a->tune, 0, sizeof(a->tune));
	a->tune_mark = a->rx_octets;
	a->tune_t0 = a->tune_refresh = now_ms();
	a->tune_rtt = TUNE_RTT_NONE;
	rtt_update(a);
	sctp_usrsctp_lock(a->ep->base);
	if (usrsctp_setsockopt(a->so, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) == 0)
		a->rcvbuf = SCTP_RCVBUF_AUTO_MIN;
	if (a->tune_rtt == TUNE_RTT_NONE)
		demand_heartbeat_locked(a->so);
	sctp_usrsctp_unlock();
}

/* One association's step at time t (ms). */
static void tick_one(struct sctp_ll_assoc *a, uint64_t t)
{
	uint64_t el, d;
	uint32_t next;
	int v;

	if (a->state != A_UP || !a->so || a->rcvbuf >= SCTP_RCVBUF_AUTO_MAX)
		return;
	el = t - a->tune_t0;
	d = a->rx_octets - a->tune_mark;
	a->tune_mark = a->rx_octets;
	a->tune_t0 = t;
	if (d && t - a->tune_refresh >= REFRESH_MS) {
		a->tune_refresh = t;
		rtt_update(a);
	}
	next = sctp_rcvbuf_step(&a->tune, a->rcvbuf, d > UINT32_MAX ? UINT32_MAX : (uint32_t)d,
	                        el > UINT32_MAX ? UINT32_MAX : (uint32_t)el,
	                        a->tune_rtt == TUNE_RTT_NONE ? 0 : a->tune_rtt);
	if (next == a->rcvbuf)
		return;
	v = (int)next;
	sctp_usrsctp_lock(a->ep->base);
	if (usrsctp_setsockopt(a->so, SOL_SOCKET, SO_RCVBUF, &v, sizeof(v)) == 0)
		a->rcvbuf = next;
	sctp_usrsctp_unlock();
}

void sctp_usrsctp_rcvbuf_tick(sctp_ll_ep *ep)
{
	uint64_t t;
	if (!ep->rcv_auto || !ep->assocs)
		return;
	t = now_ms();
	for (struct sctp_ll_assoc *a = ep->assocs; a; a = a->next)
		tick_one(a, t);
}
