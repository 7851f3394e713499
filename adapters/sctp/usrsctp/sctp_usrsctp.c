/*
 * usrsctp glue: SCTP over UDP in the RFC 6951 format, driven by libevent
 * (see sctp_ll.h for the model). This file (the upper half) owns
 * associations, their notifications and upcalls; the endpoint, its UDP
 * socket and that socket's calls in are sctp_usrsctp_ep.c; the hand-over
 * between threads is sctp_handover.c, the timer sctp_ll_timer.c, the
 * accessors and statistics sctp_ll_info.c, the receive call and its
 * staging area sctp_ll_rx.c (none of them calls usrsctp);
 * sctp_usrsctp_io.c (the lower half, called
 * from here, never calling back) owns the process-wide stack, its lock and
 * timers, socket options, the path status and the message send/receive
 * calls; sctp_usrsctp_abort.c the ABORT reasons; sctp_usrsctp_rcvbuf.c
 * the receive buffer's autotuning, sctp_usrsctp_status.c the status
 * reads. Only the files named sctp_usrsctp*.c include usrsctp.h
 * (layering rule); the UDP socket (sctp_udp.c)
 * and everything DDP (sctp_ddp.c, sctp_rx.c, sctp_stream.c) are outside
 * them.
 *
 * Threads: every usrsctp call here is bracketed by LOCK(ep) / UNLOCK().
 * Inside usrsctp's callbacks (sctp_usrsctp_conn_output, upcall, lupcall)
 * the lock is held and the thread may be another endpoint's: they touch
 * the owner's
 * event_base only when the caller is its thread, else they queue on
 * the endpoint's doorbell (bell_ring) and its own loop finishes the work
 * (sctp_handover_cb). No callback of ours into the ULP runs under the
 * lock.
 */
#include "sctp/usrsctp/sctp_usrsctp_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>
#include <usrsctp.h>

#include <ddp/ddp.h>
#include "common/peer_addr.h"
#include "ddp_test.h"
#include "sctp/udp/sctp_udp.h"
#include "sctp/usrsctp/sctp_rcvbuf.h"
#include "dlist.h"

#define LOCK(ep) sctp_usrsctp_lock((ep)->base)
#define UNLOCK() sctp_usrsctp_unlock()

/* ------------------------------------------------------------ output */

/* usrsctp hands us an SCTP packet (under the lock, on any thread): queue
 * it for the peer's socket (never re-enter usrsctp). */
int sctp_usrsctp_conn_output(void *addr, void *buf, size_t len, uint8_t tos, uint8_t set_df)
{
	/* addr is a peer id (sctp_udp_peers.c): a packet for a peer we
	 * already freed (usrsctp finishing a shutdown) is dropped */
	struct sctp_udp_peer *p = sctp_udp_peer_by_id(addr);
	sctp_ll_ep *ep;
	int local;
	(void)tos;
	if (!p)
		return 0;
	ep = sctp_udp_peer_user(p);
	local = ep->base == sctp_usrsctp_caller();
	sctp_udp_send(p, buf, len, set_df, local);
	if (!local) {
		ep->bell_flush = 1;
		sctp_handover_ring(ep);
	}
	return 0;
}

/* ------------------------------------------------------------ assoc */

static void assoc_unlink(struct sctp_ll_assoc *a)
{
	DLIST_UNLINK(&a->ep->assocs, a);
}

void sctp_usrsctp_close_socket(struct sctp_ll_assoc *a, int abortive)
{
	if (!a->so)
		return;
	LOCK(a->ep);
	usrsctp_set_upcall(a->so, NULL, NULL);
	if (abortive) {
		struct linger l = {1, 0}; /* close = ABORT */
		usrsctp_setsockopt(a->so, SOL_SOCKET, SO_LINGER, &l, sizeof(l));
	}
	usrsctp_close(a->so);
	a->so = NULL;
	UNLOCK();
}

void sctp_usrsctp_assoc_destroy(struct sctp_ll_assoc *a)
{
	/* after a SHUTDOWN (either side) let usrsctp finish it: a close with
	 * linger 0 would turn the graceful end into an ABORT */
	sctp_usrsctp_close_socket(a, !a->graceful);
	LOCK(a->ep);
	sctp_handover_unwake(a); /* no upcall can queue it again: socket closed */
	UNLOCK();
	assoc_unlink(a);
	if (a->peer)
		sctp_udp_peer_unref(a->peer); /* expires when idle */
	if (a->work)
		event_free(a->work);
	sctp_ll_rxq_fini(&a->rxq);
	free(a);
}

/* usrsctp: something happened on a's socket (under the lock, any thread). */
static void upcall(struct socket *so, void *arg, int flags)
{
	(void)so;
	(void)flags;
	sctp_handover_wake(arg);
}

/* Only from work_cb, whose frame holds a (src/life.h): freed inside a
 * callback, nothing more is said. */
static void emit(struct sctp_ll_assoc *a, enum sctp_ll_event ev, int status)
{
	if (!a->cb.event || a->life.closing)
		return;
	a->cb.event(a, ev, status, a->user);
}

static void go_down(struct sctp_ll_assoc *a, int status)
{
	if (a->state == A_DOWN)
		return;
	a->state = A_DOWN;
	a->pend_down = 1;
	a->down_status = status;
	event_active(a->work, EV_TIMEOUT, 0);
}

/* Largest unfragmented user message = the fragmentation point, which
 * usrsctp derives from the path MTU (sctp_usrsctp_io.c). */
void sctp_usrsctp_learn_limits(struct sctp_ll_assoc *a)
{
	struct sctp_assoc_value av;
	socklen_t l = sizeof(av);
	uint32_t pl = sctp_udp_peer_max_payload(a->peer);
	int rc;
	memset(&av, 0, sizeof(av));
	LOCK(a->ep);
	rc = usrsctp_getsockopt(a->so, IPPROTO_SCTP, SCTP_MAXSEG, &av, &l);
	UNLOCK();
	if (rc == 0 && av.assoc_value > 0)
		a->max_msg = av.assoc_value;
	else
		a->max_msg = pl - 12 - 16 - pl % 4;
}

/* One notification (RFC 6458 §6.1). */
static void notification(struct sctp_ll_assoc *a, const uint8_t *b, size_t n)
{
	union sctp_notification nt;
	if (n < sizeof(nt.sn_header))
		return;
	memset(&nt, 0, sizeof(nt));
	memcpy(&nt, b, n < sizeof(nt) ? n : sizeof(nt));
	switch (nt.sn_header.sn_type) {
	case SCTP_ASSOC_CHANGE:
		switch (nt.sn_assoc_change.sac_state) {
		case SCTP_COMM_UP:
			if (a->state == A_CONNECTING) {
				/* RFC 5043 §5.1: equal in and out counts */
				uint16_t in = nt.sn_assoc_change.sac_inbound_streams;
				uint16_t out = nt.sn_assoc_change.sac_outbound_streams;
				a->nstreams = in < out ? in : out;
				a->state = A_UP_PENDING;
			}
			break;
		case SCTP_SHUTDOWN_COMP:
			a->graceful = 1;
			go_down(a, DDP_ERR_CLOSED);
			break;
		case SCTP_COMM_LOST:
			/* the peer's ABORT comes with it (its reason, if any);
			 * without one, retransmissions went unanswered: the
			 * peer is dead (DDP_ERR_TIMEOUT, as MPA reports it).
			 * An ABORT answering our INIT refuses the connection. */
			if (n > sizeof(nt.sn_assoc_change)) {
				sctp_usrsctp_peer_abort(b + sizeof(nt.sn_assoc_change),
				                        n - sizeof(nt.sn_assoc_change),
				                        a->peer_abort, sizeof(a->peer_abort));
				go_down(a,
				        a->state == A_CONNECTING ? DDP_ERR_REJECTED : DDP_ERR_LLP);
			} else {
				go_down(a, DDP_ERR_TIMEOUT);
			}
			break;
		case SCTP_CANT_STR_ASSOC: /* INIT retransmissions ran out */
			go_down(a, DDP_ERR_TIMEOUT);
			break;
		case SCTP_RESTART:
		default:
			go_down(a, DDP_ERR_LLP);
			break;
		}
		break;
	case SCTP_ADAPTATION_INDICATION:
		a->adapt_seen = 1;
		a->adapt_val = nt.sn_adaptation_event.sai_adaptation_ind;
		break;
	case SCTP_SHUTDOWN_EVENT:
		/* the peer shuts down: usrsctp answers SHUTDOWN-ACK; the end is
		 * reported at SCTP_SHUTDOWN_COMP (or COMM_LOST if it never
		 * completes), so an application that frees the endpoint after
		 * the DOWN event does not abort a shutdown still in progress */
		a->graceful = 1;
		break;
	case SCTP_SENDER_DRY_EVENT:
		a->pend_dry = 1;
		event_active(a->work, EV_TIMEOUT, 0);
		break;
	default:
		break;
	}
}

/* Read the rest of a notification whose first n octets are in first. */
static void read_notification(struct sctp_ll_assoc *a, const uint8_t *first, size_t n, int eor)
{
	size_t have = n < NBUF_LEN ? n : NBUF_LEN;
	if (first != a->nbuf)
		memmove(a->nbuf, first, have);
	while (!eor) {
		uint8_t tmp[256];
		int fl = 0;
		ssize_t r;
		LOCK(a->ep);
		if (have < NBUF_LEN)
			r = usrsctp_recvv(a->so, a->nbuf + have, NBUF_LEN - have, NULL, NULL, NULL,
			                  NULL, NULL, &fl);
		else
			r = usrsctp_recvv(a->so, tmp, sizeof(tmp), NULL, NULL, NULL, NULL, NULL,
			                  &fl);
		UNLOCK();
		if (r <= 0)
			return;
		if (have < NBUF_LEN)
			have += (size_t)r;
		eor = (fl & MSG_EOR) != 0;
	}
	notification(a, a->nbuf, have);
}

/* After COMM_UP: RFC 5043 §11.1 / RFC 5061: the peer's Adaptation Layer
 * Indication must be DDP's, else no DDP on this association. */
static void decide_up(struct sctp_ll_assoc *a)
{
	const sctp_ll_config *c = &a->ep->cfg;
	if (c->require_adaptation && (!a->adapt_seen || a->adapt_val != c->adaptation)) {
		/* say why (the peer sees the reason in the ABORT) */
		sctp_usrsctp_abort_reason(a->ep->base, a->so,
		                          a->adapt_seen
		                              ? "DDP refused: wrong Adaptation Layer Indication "
		                                "(RFC 5043 §11.1 needs 0x00000001)"
		                              : "DDP refused: no Adaptation Layer Indication "
		                                "(RFC 5043 §11.1 needs 0x00000001)");
		sctp_usrsctp_close_socket(a, 1);
		go_down(a, DDP_ERR_PROTO);
		return;
	}
	sctp_usrsctp_learn_limits(a);
	a->max_msg_up = a->max_msg;
	a->state = A_UP;
	a->rcvbuf = c->rcvbuf;
	sctp_usrsctp_rcvbuf_up(a);
	emit(a, SCTP_LL_EV_UP, 0);
}

/* Before UP only notifications are queued: read them here. */
static void pre_up(struct sctp_ll_assoc *a)
{
	while (a->so && a->state != A_DOWN) {
		int fl = MSG_PEEK;
		ssize_t r;
		/* peek first: a data message after COMM_UP (and after the
		 * indication, which the peer's INIT/INIT-ACK carried) must stay
		 * queued for the reader */
		LOCK(a->ep);
		r = usrsctp_recvv(a->so, a->nbuf, 1, NULL, NULL, NULL, NULL, NULL, &fl);
		UNLOCK();
		if (r < 0)
			break;
		if (!(fl & MSG_NOTIFICATION)) {
			if (a->state == A_UP_PENDING)
				break; /* decide below, data stays queued */
			/* data before COMM_UP: broken */
			sctp_usrsctp_close_socket(a, 1);
			go_down(a, DDP_ERR_PROTO);
			return;
		}
		fl = 0;
		LOCK(a->ep);
		r = usrsctp_recvv(a->so, a->nbuf, NBUF_LEN, NULL, NULL, NULL, NULL, NULL, &fl);
		UNLOCK();
		if (r < 0)
			break;
		read_notification(a, a->nbuf, (size_t)r, fl & MSG_EOR);
	}
	/* RFC 6458: the Adaptation Layer Indication event is queued right
	 * after COMM_UP, so draining the queue settles the question */
	if (a->state == A_UP_PENDING)
		decide_up(a);
}

static void work_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sctp_ll_assoc *a = arg;
	int ev;
	(void)fd;
	(void)what;
	life_enter(&a->life);
	if (a->so && (a->state == A_CONNECTING || a->state == A_UP_PENDING))
		pre_up(a);
	if (a->pend_later) {
		/* before a DOWN of the same pass: what usrsctp took was
		 * sent, whatever happens to the association after */
		a->pend_later = 0;
		emit(a, SCTP_LL_EV_LATER, 0);
	}
	if (a->state == A_UP && a->so) {
		LOCK(a->ep);
		ev = usrsctp_get_events(a->so);
		UNLOCK();
		if (ev & SCTP_EVENT_READ)
			emit(a, SCTP_LL_EV_READABLE, 0);
		if (a->want_write && a->so) {
			LOCK(a->ep);
			ev = usrsctp_get_events(a->so);
			UNLOCK();
			if (ev & SCTP_EVENT_WRITE) {
				a->want_write = 0;
				emit(a, SCTP_LL_EV_WRITABLE, 0);
			}
		}
		if (a->pend_dry) {
			a->pend_dry = 0;
			emit(a, SCTP_LL_EV_DRY, 0);
		}
	}
	if (a->pend_down) {
		a->pend_down = 0;
		emit(a, SCTP_LL_EV_DOWN, a->down_status);
	}
	if (life_leave(&a->life))
		sctp_usrsctp_assoc_destroy(a);
}

/* usrsctp learns a peer's AF_CONN address only once an association uses
 * it (we connect to it, or accept from it), not when its first INIT makes
 * the peer: a bound-all socket's association finds its own address by
 * walking every registered address on each packet it receives
 * (sctp_findassoc_by_vtag, sctp_does_stcb_own_this_addr), newest first,
 * so addresses that only sent an INIT (a flood of spoofed ones) would make
 * every packet of every live association cost O(peers). A listener
 * answers an INIT and accepts its COOKIE ECHO without the address (bound
 * all: matched by port); the packets that come before the accept find the
 * association by its ports and source instead (sctp_tcb_special_locate). */
static void peer_register(sctp_ll_ep *ep, struct sctp_udp_peer *p)
{
	LOCK(ep);
	if (!p->conn_registered) {
		usrsctp_register_address(sctp_udp_peer_conn_addr(p));
		p->conn_registered = 1;
		ep->conn_addrs++;
	}
	UNLOCK();
}

static struct sctp_ll_assoc *assoc_new(sctp_ll_ep *ep, struct sctp_udp_peer *p, struct socket *so)
{
	struct sctp_ll_assoc *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->work = event_new(ep->base, -1, 0, work_cb, a);
	if (!a->work) {
		free(a);
		return NULL;
	}
	a->ep = ep;
	a->peer = p;
	peer_register(ep, p);
	sctp_udp_peer_ref(p);
	a->so = so;
	DLIST_PUSH(&ep->assocs, a);
	LOCK(ep);
	usrsctp_set_upcall(so, upcall, a);
	UNLOCK();
	sctp_ll_timer_arm(ep);
	return a;
}

static void make_conn(struct sockaddr_conn *sc, void *addr, uint16_t port)
{
	memset(sc, 0, sizeof(*sc));
	sc->sconn_family = AF_CONN;
	sc->sconn_port = htons(port);
	sc->sconn_addr = addr;
}

/* A usrsctp socket for an association (listen 0) or a listener (1):
 * our socket options for the path's payload, bound to conn:port. */
static int open_socket(sctp_ll_ep *ep, uint32_t payload, void *conn, uint16_t port, int listen,
                       struct socket **out)
{
	struct sockaddr_conn sc;
	struct socket *so;
	int rc;
	LOCK(ep);
#ifdef SCTP_PLUGGABLE_CC
	so = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
#else
	/* the packaged usrsctp sets the congestion control module only as
	 * the default of sockets made from now on: set and put back around
	 * our socket, under the lock every usrsctp call of the process takes */
	uint32_t cc0 = usrsctp_sysctl_get_sctp_default_cc_module();
	so = NULL;
	if (usrsctp_sysctl_set_sctp_default_cc_module(
	        (uint32_t)sctp_usrsctp_cc_module(ep->cfg.cc)) == 0)
		so = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
	usrsctp_sysctl_set_sctp_default_cc_module(cc0);
#endif
	UNLOCK();
	if (!so)
		return DDP_ERR_SYS;
	rc = sctp_usrsctp_setup_socket(ep, so, payload);
	make_conn(&sc, conn, port);
	LOCK(ep);
	if (rc == 0 && (usrsctp_bind(so, (struct sockaddr *)&sc, sizeof(sc)) < 0 ||
	                (listen && usrsctp_listen(so, 128) < 0)))
		rc = DDP_ERR_SYS;
	if (rc)
		usrsctp_close(so);
	UNLOCK();
	if (rc == 0)
		*out = so;
	return rc;
}

int sctp_ll_connect(sctp_ll_ep *ep, const char *addr, int port, const sctp_ll_assoc_cb *cb,
                    void *user, sctp_ll_assoc **out)
{
	struct sockaddr_conn sc;
	struct socket *so;
	struct sctp_udp_peer *p;
	struct sctp_ll_assoc *a;
	int rc;

	if (!ep || !addr || !out || port <= 0 || port > 65535)
		return DDP_ERR_INVAL;
	p = sctp_udp_peer_get(ep->udp, addr, port);
	if (!p)
		return DDP_ERR_INVAL;
	peer_register(ep, p); /* the socket binds to it */
	rc = open_socket(ep, sctp_udp_peer_max_payload(p), sctp_udp_peer_conn_addr(p), 0, 0,
	                 &so); /* ephemeral port */
	if (rc)
		return rc;
	a = assoc_new(ep, p, so);
	if (!a) {
		LOCK(ep);
		usrsctp_close(so);
		UNLOCK();
		return DDP_ERR_NOMEM;
	}
	if (cb)
		a->cb = *cb;
	a->user = user;
	/* the SCTP port of a listener is its UDP port (unique per host) */
	make_conn(&sc, sctp_udp_peer_conn_addr(p), (uint16_t)port);
	LOCK(ep);
	rc = usrsctp_connect(so, (struct sockaddr *)&sc, sizeof(sc)) < 0 && errno != EINPROGRESS;
	UNLOCK();
	if (rc) {
		sctp_usrsctp_assoc_destroy(a);
		return DDP_ERR_SYS;
	}
	*out = a;
	return 0;
}

const char *sctp_ll_assoc_peer(const sctp_ll_assoc *a, char *buf)
{
	if (!a || !a->peer) {
		strcpy(buf, "?");
		return buf;
	}
	return ddp_addr_fmt((const struct sockaddr *)&a->peer->sa, a->peer->salen, buf);
}

void sctp_ll_set_tick(sctp_ll_ep *ep, void (*tick)(void *user), void *user)
{
	ep->tick = tick;
	ep->tick_user = user;
}

void sctp_usrsctp_accept_cb(evutil_socket_t fd, short what, void *arg)
{
	sctp_ll_ep *ep = arg;
	(void)fd;
	(void)what;
	while (ep->lsock) {
		struct sockaddr_conn sc;
		socklen_t l = sizeof(sc);
		struct socket *so;
		struct sctp_ll_assoc *a = NULL;
		struct sctp_udp_peer *p;
		memset(&sc, 0, sizeof(sc));
		LOCK(ep);
		so = usrsctp_accept(ep->lsock, (struct sockaddr *)&sc, &l);
		if (so)
			usrsctp_set_non_blocking(so, 1);
		UNLOCK();
		if (!so)
			return;
		p = sctp_udp_peer_by_id(sc.sconn_addr);
		/* only our own socket's peers (addresses are process-wide) */
		if (p && sctp_udp_peer_user(p) == ep)
			a = assoc_new(ep, p, so);
		if (!a) {
			LOCK(ep);
			usrsctp_close(so);
			UNLOCK();
			continue;
		}
		/* the listener's default fits every peer's largest; this
		 * peer's path MTU from here on (usrsctp only lowers it) */
		sctp_usrsctp_set_mtu(ep->base, so, sctp_udp_peer_max_payload(a->peer));
		if (ep->acb) {
			/* the callback may refuse it with sctp_ll_free(a) */
			life_enter(&a->life);
			ep->acb(ep, a, ep->auser);
			if (life_leave(&a->life)) {
				sctp_usrsctp_assoc_destroy(a);
				continue;
			}
		}
		event_active(a->work, EV_TIMEOUT, 0);
	}
}

/* usrsctp: the listener has a connection (under the lock, any thread). */
static void lupcall(struct socket *so, void *arg, int flags)
{
	sctp_ll_ep *ep = arg;
	(void)so;
	(void)flags;
	if (ep->base == sctp_usrsctp_caller()) {
		event_active(ep->accept_ev, EV_TIMEOUT, 0);
		return;
	}
	ep->bell_accept = 1;
	sctp_handover_ring(ep);
}

int sctp_ll_listen(sctp_ll_ep *ep, sctp_ll_accept_cb cb, void *user)
{
	struct socket *so;
	int rc;
	if (!ep)
		return DDP_ERR_INVAL;
	if (ep->lsock)
		return DDP_ERR_STATE;
	/* every AF_CONN address */
	rc = open_socket(ep, sctp_udp_max_payload(ep->udp), NULL, (uint16_t)ep->port, 1, &so);
	if (rc)
		return rc;
	ep->lsock = so;
	ep->acb = cb;
	ep->auser = user;
	LOCK(ep);
	usrsctp_set_upcall(so, lupcall, ep);
	UNLOCK();
	return 0;
}

/* ------------------------------------------------------------ assoc API */

void sctp_ll_close(sctp_ll_assoc *a, int abortive)
{
	int rc;
	if (!a || !a->so)
		return;
	if (abortive || a->state != A_UP) {
		sctp_usrsctp_close_socket(a, 1);
		go_down(a, DDP_ERR_ABORTED);
		return;
	}
	/* SHUTDOWN after everything queued is sent */
	LOCK(a->ep);
	rc = usrsctp_shutdown(a->so, SHUT_WR);
	UNLOCK();
	if (rc < 0) {
		sctp_usrsctp_close_socket(a, 1);
		go_down(a, DDP_ERR_LLP);
	}
}

/* A gap this long between two dead-peer checks means this thread did not
 * run (its process was stopped, a callback blocked the loop): the
 * datagrams the peer sent meanwhile still wait in the UDP socket, so the
 * silence counts from the end of the gap. */
#define DEAD_GAP_MS 1000

/* Every 100 ms (the endpoint's timer, through ep->dead_check):
 * associations whose peer was silent for cfg.dead_peer_ms are ABORTed and
 * go down with DDP_ERR_TIMEOUT. */
void sctp_usrsctp_dead_peer_check(sctp_ll_ep *ep)
{
	uint64_t now = sctp_udp_now_ms();
	if (!ep->dead_tick_ms || now - ep->dead_tick_ms > DEAD_GAP_MS)
		ep->dead_watch_ms = now;
	ep->dead_tick_ms = now;
	for (struct sctp_ll_assoc *a = ep->assocs; a; a = a->next) {
		if (a->state != A_UP || !a->so || !a->peer)
			continue;
		uint64_t heard = a->peer->last_ms;
		if (heard < ep->dead_watch_ms)
			heard = ep->dead_watch_ms;
		if (now - heard < ep->cfg.dead_peer_ms)
			continue;
		/* the ABORT tells a peer that comes back; DOWN from the loop */
		sctp_usrsctp_close_socket(a, 1);
		go_down(a, DDP_ERR_TIMEOUT);
	}
}

void sctp_ll_free(sctp_ll_assoc *a)
{
	if (!a)
		return;
	if (life_close(&a->life))
		sctp_usrsctp_assoc_destroy(a); /* else the frame that holds it does */
}

/* ------------------------------------------------------------ receive */

/* sctp_ll_recv and the staging area: sctp_ll_rx.c */

void sctp_usrsctp_down(struct sctp_ll_assoc *a, int status)
{
	go_down(a, status);
}

void sctp_usrsctp_notification(struct sctp_ll_assoc *a, const uint8_t *first, size_t n, int eor)
{
	read_notification(a, first, n, eor);
}
