/* The endpoint's timer: drives usrsctp's timers (sctp_usrsctp_timers,
 * one thread at a time) every TICK_MS while associations exist, and the
 * sctp_ll_set_tick hook and the dead-peer check every 100 ms. No usrsctp
 * call here. */
#include "sctp/usrsctp/sctp_usrsctp_int.h"

#include <event2/event.h>

#define TICK_MS 10 /* usrsctp timer granularity */

/* Period of the check that gives a quiet association's receive staging
 * area back (sctp_ll_rxq_quiet): it goes after one to two periods without
 * a batch read. */
#define QUIET_MS 1000

/* usrsctp timers run only while associations exist, plus a grace period
 * after the last one so a SHUTDOWN / ABORT in progress can finish. */
#define LINGER_MS 3000

static int ep_has_work(sctp_ll_ep *ep)
{
	if (ep->assocs) {
		ep->linger = LINGER_MS / TICK_MS;
		return 1;
	}
	return ep->linger-- > 0;
}

void sctp_ll_timer_arm(sctp_ll_ep *ep)
{
	struct timeval tv = {0, TICK_MS * 1000};
	if (!evtimer_pending(ep->timer, NULL))
		evtimer_add(ep->timer, &tv);
}

void sctp_ll_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	sctp_ll_ep *ep = arg;
	(void)fd;
	(void)what;
	sctp_usrsctp_timers(ep->base);
	if (ep->tick && ++ep->tick_n >= 100 / TICK_MS) {
		ep->tick_n = 0;
		ep->tick(ep->tick_user); /* sctp_ll_set_tick, outside the lock */
	}
	if (ep->cfg.dead_peer_ms && ep->dead_check && ++ep->dead_n >= 100 / TICK_MS) {
		ep->dead_n = 0;
		ep->dead_check(ep);
	}
	sctp_usrsctp_rcvbuf_tick(ep);
	if (++ep->quiet_n >= QUIET_MS / TICK_MS) {
		ep->quiet_n = 0;
		for (struct sctp_ll_assoc *a = ep->assocs; a; a = a->next)
			sctp_ll_rxq_quiet(&a->rxq);
	}
	/* only while associations exist (a listener keeps it for setup) */
	if (ep_has_work(ep))
		sctp_ll_timer_arm(ep);
}
