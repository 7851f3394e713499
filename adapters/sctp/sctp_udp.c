/* SCTP packets over UDP (RFC 6951 format) with our CRC32c, on libevent. */
#include "sctp/sctp_udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/ddp.h>
#include "common/crc32c.h"

#define UDP_MAX 65536
#define TXQ_MAX 8192	/* queued datagrams before we drop (SCTP resends) */
#define SCTP_CSUM_OFF 8 /* RFC 4960 §3.1 checksum field */
#define SCTP_COMMON_HDR 12

struct pkt {
	struct pkt *next;
	struct sctp_udp_peer *peer;
	size_t len;
	uint8_t data[];
};

struct sctp_udp {
	int fd, port;
	struct event *rd, *wr;
	int wr_pending;
	struct sctp_udp_ops ops;
	void *user;
	struct sctp_udp_peer *peers;
	struct pkt *q_head, *q_tail;
	size_t qlen;
	struct pkt *held;
	sctp_ll_filter filter;
	void *filter_user;
	uint64_t rx_pkts, bad_crc, tx_pkts;
	uint8_t rxbuf[UDP_MAX];
};

/* ------------------------------------------------------------ output */

static void arm_flush(struct sctp_udp *u)
{
	if (!u->wr_pending) {
		u->wr_pending = 1;
		event_add(u->wr, NULL);
	}
}

void sctp_udp_send(struct sctp_udp_peer *p, const void *buf, size_t len)
{
	struct sctp_udp *u = p->u;
	struct pkt *k;
	uint32_t crc;

	if (!u || len < SCTP_COMMON_HDR || u->qlen >= TXQ_MAX)
		return; /* dropped: SCTP retransmits */
	k = malloc(sizeof(*k) + len);
	if (!k)
		return;
	k->next = NULL;
	k->peer = p;
	k->len = len;
	memcpy(k->data, buf, len);
	/* RFC 4960 §6.8: CRC32c over the packet with a zero checksum field,
	 * stored least-significant octet first */
	memset(k->data + SCTP_CSUM_OFF, 0, 4);
	crc = ddp_crc32c(0, k->data, len);
	ddp_crc32c_put_wire(k->data + SCTP_CSUM_OFF, crc);
	if (u->q_tail)
		u->q_tail->next = k;
	else
		u->q_head = k;
	u->q_tail = k;
	u->qlen++;
	arm_flush(u);
}

static void flush_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sctp_udp *u = arg;
	(void)what;
	u->wr_pending = 0;
	while (u->q_head) {
		struct pkt *k = u->q_head;
		ssize_t n = sendto(fd, k->data, k->len, 0,
				   (struct sockaddr *)&k->peer->sa,
				   k->peer->salen);
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
			      errno == ENOBUFS)) {
			arm_flush(u);
			return;
		}
		/* other errors (ECONNREFUSED from an earlier ICMP): the
		 * datagram is lost; the error queue reports the peer */
		u->tx_pkts += n >= 0;
		u->q_head = k->next;
		if (!u->q_head)
			u->q_tail = NULL;
		u->qlen--;
		free(k);
	}
}

static void drop_queue(struct sctp_udp *u)
{
	while (u->q_head) {
		struct pkt *k = u->q_head;
		u->q_head = k->next;
		free(k);
	}
	u->q_tail = NULL;
	u->qlen = 0;
	free(u->held);
	u->held = NULL;
}

/* ------------------------------------------------------------ peers */

static int same_addr(const struct sockaddr_storage *a, socklen_t al,
		     const struct sockaddr_storage *b, socklen_t bl)
{
	if (al != bl || a->ss_family != b->ss_family)
		return 0;
	if (a->ss_family == AF_INET) {
		const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
		return x->sin_port == y->sin_port &&
		       x->sin_addr.s_addr == y->sin_addr.s_addr;
	}
	const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
	return x->sin6_port == y->sin6_port &&
	       memcmp(&x->sin6_addr, &y->sin6_addr, 16) == 0;
}

static struct sctp_udp_peer *peer_find(struct sctp_udp *u,
				       const struct sockaddr_storage *sa,
				       socklen_t salen, int create)
{
	struct sctp_udp_peer *p;
	for (p = u->peers; p; p = p->next)
		if (same_addr(&p->sa, p->salen, sa, salen))
			return p;
	if (!create)
		return NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->u = u;
	memcpy(&p->sa, sa, salen);
	p->salen = salen;
	p->next = u->peers;
	u->peers = p;
	if (u->ops.peer_new)
		u->ops.peer_new(u->user, p);
	return p;
}

/* Parse an IPv4/IPv6 literal; port < 0 leaves 0. */
static int make_addr(const char *addr, int port, struct sockaddr_storage *ss,
		     socklen_t *sl)
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

struct sctp_udp_peer *sctp_udp_peer_get(struct sctp_udp *u, const char *addr,
					int port)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	if (port <= 0 || port > 65535 || make_addr(addr, port, &ss, &sl))
		return NULL;
	return peer_find(u, &ss, sl, 1);
}

/* ------------------------------------------------------------ input */

static void input(struct sctp_udp *u, struct sctp_udp_peer *p, uint8_t *b,
		  size_t n)
{
	uint32_t want, got;
	if (n < SCTP_COMMON_HDR)
		return;
	/* RFC 4960 §6.8: verify CRC32c before usrsctp sees the packet */
	want = ddp_crc32c_get_wire(b + SCTP_CSUM_OFF);
	memset(b + SCTP_CSUM_OFF, 0, 4);
	got = ddp_crc32c(0, b, n);
	ddp_crc32c_put_wire(b + SCTP_CSUM_OFF, want);
	if (got != want) {
		u->bad_crc++;
		return;
	}
	u->ops.input(u->user, p, b, n);
}

/* ICMP errors (IP_RECVERR): port unreachable = the peer is gone. */
static void read_errqueue(struct sctp_udp *u)
{
	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage sa;
		char cbuf[512];
		uint8_t dummy[64];
		struct iovec iov = { dummy, sizeof(dummy) };
		struct msghdr mh;
		memset(&mh, 0, sizeof(mh));
		mh.msg_name = &sa;
		mh.msg_namelen = sizeof(sa);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		if (recvmsg(u->fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c;
		     c = CMSG_NXTHDR(&mh, c)) {
			struct sock_extended_err ee;
			struct sctp_udp_peer *p;
			if (!((c->cmsg_level == IPPROTO_IP &&
			       c->cmsg_type == IP_RECVERR) ||
			      (c->cmsg_level == IPPROTO_IPV6 &&
			       c->cmsg_type == IPV6_RECVERR)))
				continue;
			memcpy(&ee, CMSG_DATA(c), sizeof(ee));
			if (ee.ee_errno != ECONNREFUSED &&
			    ee.ee_errno != EHOSTUNREACH &&
			    ee.ee_errno != ENETUNREACH)
				continue;
			p = peer_find(u, &sa, mh.msg_namelen, 0);
			if (p && u->ops.peer_failed)
				u->ops.peer_failed(u->user, p);
		}
	}
}

/* Fault injection hook (tests), then input. */
static void deliver(struct sctp_udp *u, struct sctp_udp_peer *p, uint8_t *b,
		    size_t n)
{
	unsigned act = u->filter ? u->filter(u->filter_user, b, n) : 0;
	struct pkt *h;
	if (act & SCTP_LL_DROP)
		return;
	if (act & SCTP_LL_HOLD) {
		h = malloc(sizeof(*h) + n);
		if (h) {
			h->peer = p;
			h->len = n;
			memcpy(h->data, b, n);
			free(u->held);
			u->held = h;
			return;
		}
	}
	input(u, p, b, n);
	if (act & SCTP_LL_DUP) /* input() restored the checksum field */
		input(u, p, b, n);
	if (u->held) {
		h = u->held;
		u->held = NULL;
		input(u, h->peer, h->data, h->len);
		free(h);
	}
}

static void read_cb(evutil_socket_t fd, short what, void *arg)
{
	struct sctp_udp *u = arg;
	(void)what;
	for (int i = 0; i < 256; i++) {
		struct sockaddr_storage sa;
		socklen_t sl = sizeof(sa);
		ssize_t n = recvfrom(fd, u->rxbuf, sizeof(u->rxbuf), 0,
				     (struct sockaddr *)&sa, &sl);
		struct sctp_udp_peer *p;
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			read_errqueue(u);
			continue;
		}
		u->rx_pkts++;
		/* a listener learns new peers; others talk to known ones */
		p = peer_find(u, &sa, sl, u->ops.learn && u->ops.learn(u->user));
		if (p)
			deliver(u, p, u->rxbuf, (size_t)n);
	}
	read_errqueue(u);
}

/* ------------------------------------------------------------ socket */

int sctp_udp_open(struct event_base *base, const char *addr, int port,
		  const struct sctp_udp_ops *ops, void *user,
		  struct sctp_udp **out)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct sctp_udp *u;
	int one = 1, big = 8 << 20;

	if (!base || !ops || !ops->input || !out || port < -1 || port > 65535)
		return DDP_ERR_INVAL;
	if (make_addr(addr ? addr : "127.0.0.1",
		      port == 0 ? SCTP_LL_UDP_PORT : port, &ss, &sl))
		return DDP_ERR_INVAL;
	u = calloc(1, sizeof(*u));
	if (!u)
		return DDP_ERR_NOMEM;
	u->ops = *ops;
	u->user = user;
	u->fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (u->fd < 0) {
		free(u);
		return DDP_ERR_SYS;
	}
	setsockopt(u->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
	setsockopt(u->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	if (ss.ss_family == AF_INET)
		setsockopt(u->fd, IPPROTO_IP, IP_RECVERR, &one, sizeof(one));
	else
		setsockopt(u->fd, IPPROTO_IPV6, IPV6_RECVERR, &one, sizeof(one));
	if (bind(u->fd, (struct sockaddr *)&ss, sl) < 0 ||
	    getsockname(u->fd, (struct sockaddr *)&ss, &sl) < 0) {
		close(u->fd);
		free(u);
		return DDP_ERR_SYS;
	}
	u->port = ntohs(ss.ss_family == AF_INET ?
				((struct sockaddr_in *)&ss)->sin_port :
				((struct sockaddr_in6 *)&ss)->sin6_port);
	u->rd = event_new(base, u->fd, EV_READ | EV_PERSIST, read_cb, u);
	u->wr = event_new(base, u->fd, EV_WRITE, flush_cb, u);
	if (!u->rd || !u->wr) {
		sctp_udp_close(u);
		return DDP_ERR_NOMEM;
	}
	event_add(u->rd, NULL);
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
	flush_cb(u->fd, 0, u);
	while (u->peers) {
		struct sctp_udp_peer *p = u->peers;
		u->peers = p->next;
		if (u->ops.peer_free)
			u->ops.peer_free(u->user, p);
		p->u = NULL;
		free(p);
	}
	drop_queue(u);
	if (u->rd)
		event_free(u->rd);
	if (u->wr)
		event_free(u->wr);
	close(u->fd);
	free(u);
}

int sctp_udp_port(const struct sctp_udp *u)
{
	return u->port;
}

void sctp_udp_set_filter(struct sctp_udp *u, sctp_ll_filter f, void *user)
{
	u->filter = f;
	u->filter_user = user;
}

void sctp_udp_stats(const struct sctp_udp *u, uint64_t *rx, uint64_t *bad_crc,
		    uint64_t *tx)
{
	if (rx)
		*rx = u->rx_pkts;
	if (bad_crc)
		*bad_crc = u->bad_crc;
	if (tx)
		*tx = u->tx_pkts;
}
