/* The hand-over between threads of the usrsctp glue (sctp_usrsctp.c):
 * usrsctp's callbacks run under the process-wide lock on whichever thread
 * called into it; work for an association or endpoint owned by another
 * thread is queued here and that thread's loop is woken through its
 * endpoint's eventfd (the doorbell). No usrsctp call here. */
#define LOCK(ep) sctp_usrsctp_lock((ep)->base)
#define UNLOCK() sctp_usrsctp_unlock()

#include "sctp/usrsctp/sctp_usrsctp_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include "common/peer_addr.h"
#include "sctp/udp/sctp_udp.h"

/* Under the lock: wake ep's thread (once until it answers). */
void sctp_handover_ring(sctp_ll_ep *ep)
{
	uint64_t one = 1;
	if (ep->bell_rung || ep->bell_fd < 0)
		return;
	ep->bell_rung = 1;
	if (write(ep->bell_fd, &one, sizeof(one)) < 0) {
		/* an eventfd write fails only when the counter is full, and
		 * then the owner is woken anyway */
	}
}

/* Under the lock: a's thread runs work_cb soon. */
void sctp_handover_wake(struct sctp_ll_assoc *a)
{
	sctp_ll_ep *ep = a->ep;
	if (ep->base == sctp_usrsctp_caller()) {
		event_active(a->work, EV_TIMEOUT, 0);
		return;
	}
	if (!a->on_wake) {
		a->on_wake = 1;
		a->wake_next = ep->wake;
		ep->wake = a;
	}
	sctp_handover_ring(ep);
}

/* Under the lock: a is going away. */
void sctp_handover_unwake(struct sctp_ll_assoc *a)
{
	struct sctp_ll_assoc **pp = &a->ep->wake;
	if (!a->on_wake)
		return;
	while (*pp && *pp != a)
		pp = &(*pp)->wake_next;
	if (*pp)
		*pp = a->wake_next;
	a->on_wake = 0;
}

/* The owner's loop: what other threads' usrsctp calls left for us. */
void sctp_handover_cb(evutil_socket_t fd, short what, void *arg)
{
	sctp_ll_ep *ep = arg;
	uint64_t v;
	int flush;
	(void)what;
	if (read(fd, &v, sizeof(v)) < 0) {
		/* EAGAIN: already drained */
	}
	LOCK(ep);
	ep->bell_rung = 0;
	flush = ep->bell_flush;
	ep->bell_flush = 0;
	while (ep->wake) {
		struct sctp_ll_assoc *a = ep->wake;
		ep->wake = a->wake_next;
		a->on_wake = 0;
		event_active(a->work, EV_TIMEOUT, 0);
	}
	if (ep->bell_accept) {
		ep->bell_accept = 0;
		event_active(ep->accept_ev, EV_TIMEOUT, 0);
	}
	UNLOCK();
	if (flush)
		sctp_udp_kick(ep->udp);
}
