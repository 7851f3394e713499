/* sctp_ll.h's accessors, statistics and settings of endpoints and
 * associations, and the deferral of a call to the endpoint's loop: plain
 * field reads and forwards to the UDP layer, no usrsctp call. */
#include "sctp/usrsctp/sctp_usrsctp_int.h"
#include "ddp_test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include "common/peer_addr.h"
#include "sctp/udp/sctp_udp.h"

int sctp_ll_ep_port(const sctp_ll_ep *ep)
{
	return ep ? ep->port : DDP_ERR_INVAL;
}

const char *sctp_ll_local_fmt(const sctp_ll_assoc *a, char *buf)
{
	return sctp_udp_local_fmt(a->ep->udp, buf);
}

void sctp_ll_set_filter(sctp_ll_ep *ep, sctp_ll_filter rx, void *user)
{
	sctp_udp_set_filter(ep->udp, rx, user);
}

void sctp_ll_ep_stats(const sctp_ll_ep *ep, uint64_t *rx_pkts, uint64_t *bad_crc, uint64_t *tx_pkts)
{
	sctp_udp_stats(ep->udp, rx_pkts, bad_crc, tx_pkts);
}

void sctp_ll_ep_io_stats(const sctp_ll_ep *ep, sctp_ll_io_stats *st)
{
	struct sctp_udp_counters c;
	sctp_udp_counters(ep->udp, &c);
	memset(st, 0, sizeof(*st));
	st->rx_pkts = c.rx_pkts;
	st->tx_pkts = c.tx_pkts;
	st->rx_calls = c.rx_calls;
	st->tx_calls = c.tx_calls;
	st->tx_gso = c.tx_gso;
	st->rx_gro = c.rx_gro;
	st->tx_drops = c.tx_drops;
	st->mtu_drops = c.mtu_drops;
	st->tx_async_err = c.tx_async_err;
	st->tx_frag = c.tx_frag;
	st->peers = c.peers;
	st->rx_unproven = c.rx_unproven;
	st->peers_expired = c.peers_expired;
	st->peers_evicted = c.peers_evicted;
	st->init_limited = c.init_limited;
	st->tx_copied = ep->tx_copied;
	st->conn_addrs = ep->conn_addrs;
	st->bad_crc = c.bad_crc;
	st->peer_lookups = c.peer_lookups;
	st->peer_probes = c.peer_probes;
	st->peer_max_chain = c.peer_max_chain;
	st->icmp_dead = c.icmp_dead;
	st->icmp_mtu = c.icmp_mtu;
	st->icmp_unverified = c.icmp_unverified;
	st->icmp_ignored = c.icmp_ignored;
	st->mtu_raises = c.mtu_raises;
	st->probes_sent = c.probes_sent;
	st->probes_acked = c.probes_acked;
	st->probes_failed = c.probes_failed;
	st->probe_bad_acks = c.probe_bad_acks;
}

void sctp_ll_ep_set_log(sctp_ll_ep *ep, struct ddp_ctx *ctx)
{
	sctp_udp_set_log(ep->udp, ctx);
}

void sctp_ll_set_offload(sctp_ll_ep *ep, int gso, int gro)
{
	sctp_udp_set_offload(ep->udp, gso, gro);
}

void sctp_ll_assoc_set_cb(sctp_ll_assoc *a, const sctp_ll_assoc_cb *cb, void *user)
{
	if (cb)
		a->cb = *cb;
	else
		memset(&a->cb, 0, sizeof(a->cb));
	a->user = user;
}

uint16_t sctp_ll_nstreams(const sctp_ll_assoc *a)
{
	return a->nstreams;
}

uint32_t sctp_ll_max_msg(const sctp_ll_assoc *a)
{
	return a->max_msg;
}

uint32_t sctp_ll_max_msg_rx(const sctp_ll_assoc *a)
{
	uint32_t pl = sctp_udp_max_payload(a->ep->udp);
	uint32_t m = pl - 12 - 16 - pl % 4; /* as usrsctp counts, see README */
	return m > a->max_msg_up ? m : a->max_msg_up;
}

const char *sctp_ll_peer_fmt(const sctp_ll_assoc *a, char *buf)
{
	if (!a || !a->peer) {
		strcpy(buf, "?");
		return buf;
	}
	return ddp_addr_fmt((const struct sockaddr *)&a->peer->sa, a->peer->salen, buf);
}

struct sctp_ll_defer {
	struct event *ev;
	void (*fn)(void *arg);
	void *arg;
};

static void defer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sctp_ll_defer d = *(struct sctp_ll_defer *)arg;
	(void)fd;
	(void)what;
	event_free(d.ev);
	free(arg);
	d.fn(d.arg);
}

sctp_ll_defer *sctp_ll_ep_defer(sctp_ll_ep *ep, void (*fn)(void *arg), void *arg)
{
	struct sctp_ll_defer *d = malloc(sizeof(*d));
	if (!d)
		return NULL;
	d->fn = fn;
	d->arg = arg;
	d->ev = event_new(ep->base, -1, 0, defer_cb, d);
	if (!d->ev) {
		free(d);
		return NULL;
	}
	/* active at once, runs from the loop */
	event_active(d->ev, EV_TIMEOUT, 1);
	return d;
}

void sctp_ll_defer_cancel(sctp_ll_defer *d)
{
	if (!d)
		return;
	event_free(d->ev);
	free(d);
}

int sctp_ll_ep_add_peer(sctp_ll_ep *ep, const char *addr, int port)
{
	if (!ep || !addr)
		return DDP_ERR_INVAL;
	return sctp_udp_peer_get(ep->udp, addr, port) ? 0 : DDP_ERR_NOMEM;
}
