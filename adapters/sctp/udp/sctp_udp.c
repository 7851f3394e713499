/* SCTP packets over UDP (RFC 6951 format) with our CRC32c, on libevent:
 * the socket, its peers, the send queue, the test filter and counters.
 * Batches out: sctp_udp_tx.c; batches in: sctp_udp_rx.c; path MTU:
 * sctp_udp_mtu.c. */
#include "sctp/udp/sctp_udp_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include "common/crc32c.h"
#include "common/peer_addr.h"

/* ------------------------------------------------------------ output */

void sctp_udp_send(struct sctp_udp_peer *p, const void *buf, size_t len, int df, int local)
{
	struct sctp_udp *u = p->u;
	struct pkt *k;
	uint32_t crc;

	if (!u || len < SCTP_COMMON_HDR || len > UDP_MAX)
		return;
	k = sctp_udp_pkt_new(u, len, local);
	if (!k)
		return;
	k->next = NULL;
	k->peer = p;
	k->len = len;
	k->df = df;
	memcpy(k->data, buf, len);
	/* RFC 4960 §6.8: CRC32c over the packet with a zero checksum field,
	 * stored least-significant octet first */
	memset(k->data + SCTP_CSUM_OFF, 0, 4);
	crc = ddp_crc32c(0, k->data, len);
	ddp_crc32c_put_wire(k->data + SCTP_CSUM_OFF, crc);
	pthread_mutex_lock(&u->qlock);
	if (u->qlen >= TXQ_MAX) {
		u->c.tx_drops++;
		pthread_mutex_unlock(&u->qlock);
		if (local)
			sctp_udp_pkt_free(u, k);
		else
			free(k);
		return; /* dropped: SCTP retransmits */
	}
	if (u->q_tail)
		u->q_tail->next = k;
	else
		u->q_head = k;
	u->q_tail = k;
	u->qlen++;
	/* what a genuine ICMP error for this packet will quote */
	sctp_udp_tags_note(&p->tags, k->data, len);
	pthread_mutex_unlock(&u->qlock);
	/* a peer on probation is kept when its cookie checked out (only
	 * the owner thread's input of its packet answers it) */
	if (local && p->transient && sctp_udp_is_cookie_ack(k->data, len))
		p->proven = 1;
	/* everything queued in this loop iteration leaves in one flush */
	if (local)
		sctp_udp_arm_flush(u);
}

void sctp_udp_kick(struct sctp_udp *u)
{
	sctp_udp_arm_flush(u);
}

void *sctp_udp_peer_user(const struct sctp_udp_peer *p)
{
	return p->u ? p->u->user : NULL;
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sctp_udp *u = arg;
	(void)fd;
	(void)what;
	u->wr_pending = 0;
	sctp_udp_flush(u);
}

static void drop_queue(struct sctp_udp *u)
{
	pthread_mutex_lock(&u->qlock);
	while (u->q_head) {
		struct pkt *k = u->q_head;
		u->q_head = k->next;
		free(k);
	}
	u->q_tail = NULL;
	u->qlen = 0;
	pthread_mutex_unlock(&u->qlock);
	sctp_udp_pkt_pool_free(u);
	free(u->held);
	u->held = NULL;
}

/* ------------------------------------------------------------ peers */

/* Parse an IPv4/IPv6 literal; port < 0 leaves 0. */
static int make_addr(const char *addr, int port, struct sockaddr_storage *ss, socklen_t *sl)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
	uint16_t p = port < 0 ? 0 : (uint16_t)port;
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(p);
		*sl = sizeof(*s4);
		return 0;
	}
	if (inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(p);
		*sl = sizeof(*s6);
		return 0;
	}
	return DDP_ERR_INVAL;
}

struct sctp_udp_peer *sctp_udp_peer_get(struct sctp_udp *u, const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct sctp_udp_peer *p;
	if (port <= 0 || port > 65535 || make_addr(addr, port, &ss, &sl))
		return NULL;
	p = sctp_udp_peer_find(u, &ss, sl);
	return p ? p : sctp_udp_peer_add(u, &ss, sl);
}

void sctp_udp_set_peer_idle(struct sctp_udp *u, uint32_t ms)
{
	u->peer_idle_ms = ms;
}

static void sweep_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	sctp_udp_peers_sweep(arg, sctp_udp_now_ms());
}

/* ------------------------------------------------------------ socket */

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	sctp_udp_read(arg);
}

int sctp_udp_open(struct event_base *base, const char *addr, int port, uint32_t mtu_cap,
                  const struct sctp_udp_ops *ops, void *user, struct sctp_udp **out)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct sctp_udp *u;
	int one = 1, big = 8 << 20;

	if (!base || !ops || !ops->input || !out || port < -1 || port > 65535)
		return DDP_ERR_INVAL;
	if (make_addr(addr ? addr : "127.0.0.1", port < 0 ? 0 : port, &ss, &sl))
		return DDP_ERR_INVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return DDP_ERR_NOMEM;
	u->ops = *ops;
	u->user = user;
	u->mtu_cap = mtu_cap;
	u->peer_idle_ms = PEER_IDLE_MS;
	u->family = ss.ss_family;
	ddp_siphash_random_key(u->hkey);
	pthread_mutex_init(&u->qlock, NULL);
	u->fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (u->fd < 0) {
		pthread_mutex_destroy(&u->qlock);
		free(u);
		return DDP_ERR_SYS;
	}
	setsockopt(u->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(u->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	if (ss.ss_family == AF_INET)
		setsockopt(u->fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
	else
		setsockopt(u->fd, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one));
	sctp_udp_mtu_socket(u);
	if (bind(u->fd, (struct sockaddr *)&ss, sl) < 0 ||
	    getsockname(u->fd, (struct sockaddr *)&ss, &sl) < 0) {
		close(u->fd);
		pthread_mutex_destroy(&u->qlock);
		free(u);
		return DDP_ERR_SYS;
	}
	u->port = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
	                                        : ((struct sockaddr_in6 *)&ss)->sin6_port);
	u->rd = event_new(base, u->fd, EV_READ | EV_PERSIST, read_cb, u);
	u->wr = event_new(base, u->fd, EV_WRITE, flush_cb, u);
	u->sweep = event_new(base, -1, EV_PERSIST, sweep_cb, u);
	if (!u->rd || !u->wr || !u->sweep || sctp_udp_tx_init(u) || sctp_udp_rx_init(u)) {
		sctp_udp_close(u);
		return DDP_ERR_NOMEM;
	}
	event_add(u->rd, NULL);
	{
		struct timeval sec = {1, 0};
		event_add(u->sweep, &sec);
	}
	*out = u;
	return 0;
}

void sctp_udp_close(struct sctp_udp *u)
{
	if (!u)
		return;
	/* send what is queued (best effort, no waiting): an ABORT, or the
	 * SHUTDOWN-COMPLETE of the association that just ended, still reaches
	 * the peer instead of it learning from an ICMP error */
	if (u->tx_mv)
		sctp_udp_flush(u);
	drop_queue(u);
	sctp_udp_peers_free_all(u);
	sctp_udp_tx_free(u);
	sctp_udp_rx_free(u);
	if (u->rd)
		event_free(u->rd);
	if (u->wr)
		event_free(u->wr);
	if (u->sweep)
		event_free(u->sweep);
	close(u->fd);
	pthread_mutex_destroy(&u->qlock);
	free(u);
}

int sctp_udp_port(const struct sctp_udp *u)
{
	return u->port;
}

const char *sctp_udp_local_fmt(const struct sctp_udp *u, char *buf)
{
	return ddp_fd_local_fmt(u->fd, buf);
}

void sctp_udp_set_filter(struct sctp_udp *u, sctp_udp_filter f, void *user)
{
	u->filter = f;
	u->filter_user = user;
}

void sctp_udp_stats(const struct sctp_udp *u, uint64_t *rx, uint64_t *bad_crc, uint64_t *tx)
{
	if (rx)
		*rx = u->c.rx_pkts;
	if (bad_crc)
		*bad_crc = u->c.bad_crc;
	if (tx)
		*tx = u->c.tx_pkts;
}

void sctp_udp_counters(const struct sctp_udp *u, struct sctp_udp_counters *c)
{
	pthread_mutex_lock((pthread_mutex_t *)&u->qlock);
	*c = u->c;
	pthread_mutex_unlock((pthread_mutex_t *)&u->qlock);
	c->peers = u->npeers;
	c->peer_max_chain = sctp_udp_peer_max_chain(u);
}

void sctp_udp_set_log(struct sctp_udp *u, struct ddp_ctx *ctx)
{
	u->log_ctx = ctx;
}
