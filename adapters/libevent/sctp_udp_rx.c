/*
 * Input: datagrams read in batches (recvmmsg, RX_MSGS per call) and, where
 * the kernel offers UDP GRO (UDP_GRO sockopt), trains of coalesced
 * datagrams split back into the packets they were (cmsg gso_size). Every
 * packet then goes through the fault filter and the CRC32c check one by
 * one, exactly as a datagram read alone would. ICMP errors come from the
 * socket's error queue (IP_RECVERR): port/host unreachable fails the
 * peer, "fragmentation needed" / "packet too big" lowers its path MTU.
 */
#include "libevent/sctp_udp_int.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>


#define CTL_LEN 64
#define READ_CALLS 8 /* recvmmsg calls per readable event */

int sctp_udp_rx_init(struct sctp_udp *u)
{
	int one = 1;
	u->rx_mv = calloc(RX_MSGS, sizeof(*u->rx_mv));
	u->rx_iov = calloc(RX_MSGS, sizeof(*u->rx_iov));
	u->rx_sa = calloc(RX_MSGS, sizeof(*u->rx_sa));
	u->rx_ctl = calloc(RX_MSGS, CTL_LEN);
	/* large and mostly untouched: pages are backed as datagrams land */
	u->rx_buf = malloc((size_t)RX_MSGS * UDP_MAX);
	if (!u->rx_mv || !u->rx_iov || !u->rx_sa || !u->rx_ctl || !u->rx_buf)
		return -1;
	for (int i = 0; i < RX_MSGS; i++) {
		u->rx_iov[i].iov_base = u->rx_buf + (size_t)i * UDP_MAX;
		u->rx_iov[i].iov_len = UDP_MAX;
	}
	/* UDP GRO where the kernel has it (Linux 5.0+) */
	u->gro = setsockopt(u->fd, SOL_UDP, UDP_GRO, &one, sizeof(one)) == 0;
	return 0;
}

void sctp_udp_rx_free(struct sctp_udp *u)
{
	free(u->rx_mv);
	free(u->rx_iov);
	free(u->rx_sa);
	free(u->rx_ctl);
	free(u->rx_buf);
}

void sctp_udp_set_offload(struct sctp_udp *u, int gso, int gro)
{
	int v = gro ? 1 : 0;
	if (!gso)
		u->gso = 0;
	u->gro = setsockopt(u->fd, SOL_UDP, UDP_GRO, &v, sizeof(v)) == 0 && v;
}

/* p NULL: an unknown source, which becomes a peer only with a valid lone
 * INIT (sctp_udp_peers.c); a listener only (ops->learn). */
static void input(struct sctp_udp *u, struct sctp_udp_peer *p,
		  const struct sockaddr_storage *sa, socklen_t salen,
		  uint8_t *b, size_t n)
{
	/* RFC 4960 §6.8: verify CRC32c before usrsctp sees the packet */
	if (!sctp_udp_crc_ok(b, n)) {
		u->c.bad_crc++;
		return;
	}
	if (!p) {
		if (!sa || !sctp_udp_proves_peer(b, n) ||
		    !(u->ops.learn && u->ops.learn(u->user)) ||
		    !(p = sctp_udp_peer_add(u, sa, salen))) {
			u->c.rx_unproven++;
			return;
		}
	} else if (!p->refs) {
		sctp_udp_peer_touch(u, p, sctp_udp_now_ms());
	}
	u->ops.input(u->user, p, b, n);
}

/* Fault injection hook (tests), then input. p NULL: from sa (unknown). */
void sctp_udp_deliver(struct sctp_udp *u, struct sctp_udp_peer *p,
		      const struct sockaddr_storage *sa, socklen_t salen,
		      uint8_t *b, size_t n)
{
	unsigned act = u->filter ? u->filter(u->filter_user, b, n) : 0;
	struct pkt *h;
	if (act & SCTP_LL_DROP)
		return;
	if ((act & SCTP_LL_HOLD) && p) {
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
	if (!p) /* the INIT may create it */
		input(u, NULL, sa, salen, b, n);
	else
		input(u, p, NULL, 0, b, n);
	if (act & SCTP_LL_DUP) { /* input() restored the checksum field */
		p = p ? p : sctp_udp_peer_find(u, sa, salen);
		input(u, p, sa, salen, b, n);
	}
	if (u->held) {
		h = u->held;
		u->held = NULL;
		input(u, h->peer, NULL, 0, h->data, h->len);
		free(h);
	}
}

/* ICMP errors (IP_RECVERR / IPV6_RECVERR). */
static void read_errqueue(struct sctp_udp *u)
{
	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage sa;
		char cbuf[512];
		uint8_t dummy[64];
		struct iovec iov = { dummy, sizeof(dummy) };
		struct msghdr mh;
		memset(&mh, 0, sizeof(mh));
		memset(&sa, 0, sizeof(sa));
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
			if (ee.ee_errno == EMSGSIZE) {
				/* ICMP type 3 code 4 (RFC 1191) / ICMPv6
				 * type 2 (RFC 8201), or our own send: ee_info
				 * is the MTU to use from now on */
				sctp_udp_mtu_icmp(u, &sa, ee.ee_info);
				continue;
			}
			if (ee.ee_errno != ECONNREFUSED &&
			    ee.ee_errno != EHOSTUNREACH &&
			    ee.ee_errno != ENETUNREACH)
				continue;
			p = sctp_udp_peer_find(u, &sa, mh.msg_namelen);
			if (p && u->ops.peer_failed)
				u->ops.peer_failed(u->user, p);
		}
	}
}

/* The GRO segment size of entry i (0: a plain datagram). */
static size_t gro_size(struct msghdr *mh)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
		if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
			int g;
			memcpy(&g, CMSG_DATA(c), sizeof(g));
			return g > 0 ? (size_t)g : 0;
		}
	return 0;
}

static void one_datagram(struct sctp_udp *u, int i, size_t n)
{
	struct msghdr *mh = &u->rx_mv[i].msg_hdr;
	uint8_t *b = u->rx_iov[i].iov_base;
	size_t g = u->gro ? gro_size(mh) : 0;
	struct sctp_udp_peer *p;
	if (!g || g >= n)
		g = n;
	else
		u->c.rx_gro++;
	/* O(1); an unknown source is proven packet by packet (input) */
	p = sctp_udp_peer_find(u, &u->rx_sa[i], mh->msg_namelen);
	for (size_t off = 0; off < n; off += g) {
		size_t len = n - off < g ? n - off : g;
		u->c.rx_pkts++;
		if (!p)
			p = sctp_udp_peer_find(u, &u->rx_sa[i], mh->msg_namelen);
		sctp_udp_deliver(u, p, &u->rx_sa[i], mh->msg_namelen, b + off,
				 len);
	}
}

void sctp_udp_read(struct sctp_udp *u)
{
	for (int call = 0; call < READ_CALLS; call++) {
		int r;
		for (int i = 0; i < RX_MSGS; i++) {
			struct msghdr *mh = &u->rx_mv[i].msg_hdr;
			mh->msg_name = &u->rx_sa[i];
			mh->msg_namelen = sizeof(u->rx_sa[i]);
			mh->msg_iov = &u->rx_iov[i];
			mh->msg_iovlen = 1;
			mh->msg_control = u->rx_ctl + (size_t)i * CTL_LEN;
			mh->msg_controllen = CTL_LEN;
			mh->msg_flags = 0;
		}
		r = recvmmsg(u->fd, u->rx_mv, RX_MSGS, MSG_DONTWAIT, NULL);
		if (r < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			read_errqueue(u); /* a pending ICMP error */
			continue;
		}
		u->c.rx_calls++;
		for (int i = 0; i < r; i++)
			one_datagram(u, i, u->rx_mv[i].msg_len);
		if (r < RX_MSGS)
			break;
	}
	read_errqueue(u);
}
