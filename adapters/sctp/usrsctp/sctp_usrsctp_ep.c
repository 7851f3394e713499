/*
 * usrsctp glue: the endpoint. Its settings' defaults, its UDP socket
 * (adapters/sctp/udp) and the calls that socket makes into the glue (a
 * datagram in, a peer gone, failed or with a new path MTU), and its end.
 * The associations it holds are sctp_usrsctp.c's; this file calls into
 * that one, never the other way.
 */
#include "sctp/usrsctp/sctp_usrsctp_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <event2/event.h>
#include <usrsctp.h>

#include <ddp/ddp.h>
#include "ddp_test.h"
#include "sctp/udp/sctp_udp.h"
#include "sctp/usrsctp/sctp_rcvbuf.h"

#define LOCK(ep) sctp_usrsctp_lock((ep)->base)
#define UNLOCK() sctp_usrsctp_unlock()

/* ------------------------------------------------------------ UDP side */

static void udp_input(void *user, struct sctp_udp_peer *p, uint8_t *pkt, size_t len)
{
	sctp_ll_ep *ep = user;
	LOCK(ep);
	usrsctp_conninput(sctp_udp_peer_conn_addr(p), pkt, len, 0);
	UNLOCK();
}

/* Also the barrier sctp_udp_peers.c relies on: once this returns, no
 * sctp_usrsctp_conn_output (any thread) still holds p. */
static void udp_peer_free(void *user, struct sctp_udp_peer *p)
{
	sctp_ll_ep *ep = user;
	LOCK(ep);
	if (p->conn_registered) {
		usrsctp_deregister_address(sctp_udp_peer_conn_addr(p));
		p->conn_registered = 0;
		ep->conn_addrs--;
	}
	UNLOCK();
}

/* ICMP said the peer's port is closed: its associations are gone; one
 * still connecting was refused (as TCP's ECONNREFUSED). */
static void udp_peer_failed(void *user, struct sctp_udp_peer *p)
{
	sctp_ll_ep *ep = user;
	for (struct sctp_ll_assoc *a = ep->assocs; a; a = a->next)
		if (a->peer == p && a->state != A_DOWN) {
			int connecting = a->state == A_CONNECTING;
			sctp_usrsctp_close_socket(a, 1);
			sctp_usrsctp_down(a, connecting ? DDP_ERR_REJECTED : DDP_ERR_LLP);
		}
}

/* p's path MTU changed (down: EMSGSIZE, ICMP, a failed probe; up: a
 * confirmed probe): tell usrsctp, re-read the fragmentation point
 * (sctp_ll_max_msg; sctp_ddp.c follows it with MULPDU for new segments,
 * up to the size the association came up with). */
static void udp_peer_mtu(void *user, struct sctp_udp_peer *p)
{
	sctp_ll_ep *ep = user;
	for (struct sctp_ll_assoc *a = ep->assocs; a; a = a->next)
		if (a->peer == p && a->so && a->state != A_DOWN) {
			sctp_usrsctp_set_mtu(ep->base, a->so, sctp_udp_peer_max_payload(p));
			if (a->state == A_UP)
				sctp_usrsctp_learn_limits(a);
		}
}

void sctp_ll_assoc_mtu_drop(sctp_ll_assoc *a, uint32_t mtu)
{
	if (a && a->peer)
		sctp_udp_peer_mtu_drop(a->peer, mtu);
}

static int udp_learn(void *user)
{
	sctp_ll_ep *ep = user;
	return ep->lsock != NULL;
}

static const struct sctp_udp_ops udp_ops = {
    .input = udp_input,
    .peer_free = udp_peer_free,
    .peer_failed = udp_peer_failed,
    .peer_mtu = udp_peer_mtu,
    .learn = udp_learn,
};

/* ------------------------------------------------------------ endpoint */

int sctp_ll_ep_new(struct event_base *base, const sctp_ll_config *cfg, sctp_ll_ep **out)
{
	sctp_ll_ep *ep;
	int rc;

	if (!base || !cfg || !out || cfg->port < -1 || cfg->port > 65535 ||
	    cfg->cc > DDP_SCTP_CC_CUBIC)
		return DDP_ERR_INVAL;
	if (sctp_usrsctp_cc_module(cfg->cc) < 0)
		return DDP_ERR_UNSUPPORTED;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return DDP_ERR_NOMEM;
	ep->bell_fd = -1;
	ep->base = base;
	ep->cfg = *cfg;
	if (!ep->cfg.nstreams)
		ep->cfg.nstreams = 64;
	if (!ep->cfg.sndbuf)
		ep->cfg.sndbuf = 8u << 20;
	/* autotuned (sctp_usrsctp_rcvbuf.c): the sockets offer the largest
	 * window in INIT / INIT-ACK, the association starts at the floor */
	if (!ep->cfg.rcvbuf) {
		ep->rcv_auto = 1;
		ep->cfg.rcvbuf = SCTP_RCVBUF_AUTO_MAX;
	}
	/* slow is not dead: a 30 s stall survives */
	if (!ep->cfg.hb_interval_ms)
		ep->cfg.hb_interval_ms = 5000;
	if (!ep->cfg.rto_min_ms)
		ep->cfg.rto_min_ms = 100;
	if (!ep->cfg.rto_initial_ms)
		ep->cfg.rto_initial_ms = 200;
	if (!ep->cfg.rto_max_ms)
		ep->cfg.rto_max_ms = 10000;
	if (ep->cfg.rto_min_ms > ep->cfg.rto_max_ms)
		ep->cfg.rto_min_ms = ep->cfg.rto_max_ms;
	if (ep->cfg.rto_initial_ms < ep->cfg.rto_min_ms)
		ep->cfg.rto_initial_ms = ep->cfg.rto_min_ms;
	if (ep->cfg.rto_initial_ms > ep->cfg.rto_max_ms)
		ep->cfg.rto_initial_ms = ep->cfg.rto_max_ms;
	if (!ep->cfg.path_max_retrans)
		ep->cfg.path_max_retrans = 15;
	if (!ep->cfg.assoc_max_retrans)
		ep->cfg.assoc_max_retrans = 15;
	sctp_usrsctp_stack_get(sctp_usrsctp_conn_output);
	ep->dead_check = sctp_usrsctp_dead_peer_check;
	ep->timer = evtimer_new(base, sctp_ll_timer_cb, ep);
	ep->accept_ev = event_new(base, -1, 0, sctp_usrsctp_accept_cb, ep);
	ep->bell_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ep->bell_fd >= 0)
		ep->bell_ev =
		    event_new(base, ep->bell_fd, EV_READ | EV_PERSIST, sctp_handover_cb, ep);
	rc = ep->timer && ep->accept_ev && ep->bell_ev ? 0 : DDP_ERR_NOMEM;
	if (rc == 0)
		event_add(ep->bell_ev, NULL);
	if (rc == 0)
		rc = sctp_udp_open(base, cfg->addr, cfg->port, cfg->path_mtu, &udp_ops, ep,
		                   &ep->udp);
	if (rc) {
		sctp_ll_ep_free(ep);
		return rc;
	}
	ep->port = sctp_udp_port(ep->udp);
	if (cfg->peer_idle_ms)
		sctp_udp_set_peer_idle(ep->udp, cfg->peer_idle_ms);
	*out = ep;
	return 0;
}

/* ddp_test.h: an endpoint with usrsctp's own settings; only where and
 * how many streams come from cfg (sctp_usrsctp_setup_socket reads stock) */
int sctp_ll_ep_new_stock(struct event_base *base, const sctp_ll_config *cfg, sctp_ll_ep **out)
{
	sctp_ll_config c;
	int rc;

	if (!cfg)
		return DDP_ERR_INVAL;
	memset(&c, 0, sizeof(c));
	c.addr = cfg->addr;
	c.port = cfg->port;
	c.nstreams = cfg->nstreams;
	c.path_mtu = cfg->path_mtu;
	c.cc = DDP_SCTP_CC_RFC4960; /* usrsctp's own default, not ours */
	rc = sctp_ll_ep_new(base, &c, out);
	if (rc)
		return rc;
	(*out)->stock = 1;
	(*out)->rcv_auto = 0;
	return 0;
}

void sctp_ll_ep_free(sctp_ll_ep *ep)
{
	if (!ep)
		return;
	while (ep->assocs) {
		struct sctp_ll_assoc *a = ep->assocs;
		a->life.closing = a->life.released = 1;
		a->graceful = 0; /* the endpoint goes: ABORT, nothing lingers */
		sctp_usrsctp_assoc_destroy(a);
	}
	if (ep->lsock) {
		LOCK(ep);
		usrsctp_set_upcall(ep->lsock, NULL, NULL);
		usrsctp_close(ep->lsock);
		UNLOCK();
		ep->lsock = NULL;
	}
	/* deregisters every peer address (after that no other thread's
	 * sctp_usrsctp_conn_output can reach this endpoint); queued datagrams are
	 * dropped */
	sctp_udp_close(ep->udp);
	if (ep->timer)
		event_free(ep->timer);
	if (ep->accept_ev)
		event_free(ep->accept_ev);
	if (ep->bell_ev)
		event_free(ep->bell_ev);
	if (ep->bell_fd >= 0)
		close(ep->bell_fd);
	free(ep->stage);
	free(ep);
	sctp_usrsctp_stack_put();
}
