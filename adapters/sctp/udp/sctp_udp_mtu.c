/*
 * Path MTU of each UDP peer (RFC 5043 §9: a DDP segment needs neither
 * SCTP nor IP fragmentation, so the SCTP packet must fit the IP path).
 * The value is the IP-level MTU (what `ip link` shows on a direct route):
 * a new peer starts from the MTU of the interface the kernel's route to it
 * goes out of (link_mtu: the route's output interface from rtnetlink, its
 * MTU from SIOCGIFMTU), capped by the configured path_mtu. Not from the
 * route's own MTU: that holds the path MTU the kernel cached from ICMP
 * "fragmentation needed", which anyone can forge for ten minutes at a
 * time, and our sends ignore it anyway (IP_PMTUDISC_PROBE). Only where
 * rtnetlink cannot tell is the route's MTU taken (a UDP socket connect()ed
 * to the peer, getsockopt IP_MTU / IPV6_MTU). The value goes down on
 * EMSGSIZE from a send (the interface is read again) and on an ICMP
 * "fragmentation needed" / ICMPv6 "packet too big" whose quote proves it
 * answers a packet of ours (IP_RECVERR, ee_info = the next-hop MTU), never
 * below sctp_udp_mtu_floor(). It goes up, or down in a black hole that no
 * ICMP reports, only as this layer's own probes decide (sctp_udp_mtu_probed
 * from sctp_udp_plpmtud.c, RFC 8899 §4.3, §5.2), never above the MTU the
 * peer started from.
 */
#include "sctp/udp/sctp_udp_int.h"

#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define V4_HDR  20
#define V6_HDR  40
#define UDP_HDR 8
/* RFC 791: every host accepts 576; with it the largest SCTP message is
 * 520 octets, over the 516 RFC 5043 §9 needs (SCTP_MIN_USER_MSG) */
#define V4_MIN_MTU       576
#define V6_MIN_MTU       1280  /* RFC 8200 §5 */
#define V4_KERNEL_MIN    552   /* Linux route/min_pmtu default */
#define UDP_MAX_PAYLOAD  65507 /* 65535 - 20 - 8 (IPv4 total length) */
#define ROUTE_RECHECK_MS 10000 /* a short route is believed this long */

/* The lowest path MTU we ever use: the protocol floor, or the kernel's
 * own floor for the route's MTU if that is higher (below it the kernel
 * does not lower a route, so asking for less gains nothing). */
uint32_t sctp_udp_mtu_floor(int family)
{
	/* read once per process (endpoints of several threads may race
	 * to it: each reads the same value) */
	static _Atomic uint32_t kmin;
	uint32_t k;
	if (family == AF_INET6)
		return V6_MIN_MTU;
	k = atomic_load_explicit(&kmin, memory_order_relaxed);
	if (!k) {
		FILE *f = fopen("/proc/sys/net/ipv4/route/min_pmtu", "re");
		unsigned v = 0;
		if (!f || fscanf(f, "%u", &v) != 1 || v < 68 || v > 65535)
			v = V4_KERNEL_MIN;
		if (f)
			fclose(f);
		k = v;
		atomic_store_explicit(&kmin, k, memory_order_relaxed);
	}
	return k > V4_MIN_MTU ? k : V4_MIN_MTU;
}

/* Set DF on everything we send, but let the kernel ignore the path MTU it
 * cached from ICMP (IP_PMTUDISC_PROBE): any host can forge a
 * "fragmentation needed" that lowers that cache, and with IP_PMTUDISC_DO
 * every send over it would fail with EMSGSIZE and drag our path MTU down
 * with it: forged ICMP would throttle any association (docs/performance.md,
 * section 18). The path MTU is ours to keep (sctp_udp_plpmtud_ptb: only ICMP
 * that quotes our verification tag lowers it); EMSGSIZE thus means the
 * interface's own MTU is smaller than the datagram. */
void sctp_udp_mtu_socket(struct sctp_udp *u)
{
	int v, one = 1;
	if (u->family == AF_INET) {
		v = IP_PMTUDISC_PROBE;
		setsockopt(u->fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v));
	} else {
		v = IPV6_PMTUDISC_PROBE;
		setsockopt(u->fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &v, sizeof(v));
		setsockopt(u->fd, IPPROTO_IPV6, IPV6_DONTFRAG, &one, sizeof(one));
	}
}

/* The route's MTU towards sa (0 if the kernel cannot tell). */
static uint32_t route_mtu(const struct sockaddr_storage *sa, socklen_t sl)
{
	int fd, v, mtu = 0;
	socklen_t l = sizeof(mtu);
	fd = socket(sa->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (sa->ss_family == AF_INET) {
		v = IP_PMTUDISC_DO;
		setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof(v));
	} else {
		v = IPV6_PMTUDISC_DO;
		setsockopt(fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &v, sizeof(v));
	}
	if (connect(fd, (const struct sockaddr *)sa, sl) == 0 &&
	    getsockopt(fd, sa->ss_family == AF_INET ? IPPROTO_IP : IPPROTO_IPV6,
	               sa->ss_family == AF_INET ? IP_MTU : IPV6_MTU, &mtu, &l) < 0)
		mtu = 0;
	close(fd);
	return mtu > 0 ? (uint32_t)mtu : 0;
}

/* The index of the interface the kernel's route to sa goes out of
 * (RTM_GETROUTE, RTA_OIF), 0 if it cannot tell. */
static int route_oif(const struct sockaddr_storage *sa)
{
	struct {
		struct nlmsghdr n;
		struct rtmsg r;
		uint8_t attr[RTA_SPACE(16)];
	} req;
	union {
		struct nlmsghdr n;
		uint8_t b[4096];
	} rsp;
	struct rtattr *ra;
	const void *addr;
	size_t alen;
	ssize_t got;
	int fd, oif = 0;

	if (sa->ss_family == AF_INET) {
		addr = &((const struct sockaddr_in *)(const void *)sa)->sin_addr;
		alen = 4;
	} else {
		addr = &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;
		alen = 16;
	}
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg)) + RTA_SPACE(alen);
	req.n.nlmsg_type = RTM_GETROUTE;
	req.n.nlmsg_flags = NLM_F_REQUEST;
	req.n.nlmsg_seq = 1;
	req.r.rtm_family = (unsigned char)sa->ss_family;
	req.r.rtm_dst_len = (unsigned char)(alen * 8);
	ra = (struct rtattr *)(void *)req.attr;
	ra->rta_type = RTA_DST;
	ra->rta_len = (unsigned short)RTA_LENGTH(alen);
	memcpy(RTA_DATA(ra), addr, alen);

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return 0;
	if (send(fd, &req, req.n.nlmsg_len, 0) < 0 || (got = recv(fd, &rsp, sizeof(rsp), 0)) < 0) {
		close(fd);
		return 0;
	}
	close(fd);
	for (struct nlmsghdr *n = &rsp.n; NLMSG_OK(n, (size_t)got); n = NLMSG_NEXT(n, got)) {
		struct rtmsg *r;
		int left;
		if (n->nlmsg_type != RTM_NEWROUTE ||
		    n->nlmsg_len < NLMSG_LENGTH(sizeof(struct rtmsg)))
			break;
		r = NLMSG_DATA(n);
		left = (int)RTM_PAYLOAD(n);
		for (ra = RTM_RTA(r); RTA_OK(ra, left); ra = RTA_NEXT(ra, left))
			if (ra->rta_type == RTA_OIF && RTA_PAYLOAD(ra) >= sizeof(int))
				memcpy(&oif, RTA_DATA(ra), sizeof(int));
		break;
	}
	return oif;
}

/* The MTU of the interface the route to sa goes out of (0 if the kernel
 * cannot tell): the path MTU a new peer starts from. */
static uint32_t link_mtu(const struct sockaddr_storage *sa)
{
	struct ifreq ifr;
	int fd, oif = route_oif(sa);
	uint32_t mtu = 0;
	if (oif <= 0)
		return 0;
	fd = socket(sa->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	ifr.ifr_ifindex = oif;
	if (ioctl(fd, SIOCGIFNAME, &ifr) == 0 && ioctl(fd, SIOCGIFMTU, &ifr) == 0 &&
	    ifr.ifr_mtu > 0)
		mtu = (uint32_t)ifr.ifr_mtu;
	close(fd);
	return mtu;
}

/* What a new peer's path starts from, or a send's EMSGSIZE is read
 * against: the interface's MTU, else the route's. */
static uint32_t start_mtu(const struct sockaddr_storage *sa, socklen_t sl)
{
	uint32_t m = link_mtu(sa);
	return m ? m : route_mtu(sa, sl);
}

static uint32_t capped(const struct sctp_udp *u, int family, uint32_t mtu)
{
	if (u->mtu_cap && mtu > u->mtu_cap)
		mtu = u->mtu_cap;
	if (mtu < sctp_udp_mtu_floor(family))
		mtu = sctp_udp_mtu_floor(family);
	return mtu;
}

void sctp_udp_mtu_init(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	uint32_t m = start_mtu(&p->sa, p->salen);
	/* no route (yet): the minimum every path carries */
	p->mtu = capped(u, p->sa.ss_family, m ? m : sctp_udp_mtu_floor(p->sa.ss_family));
	p->plp.max = p->mtu;
}

uint32_t sctp_udp_peer_max_payload(const struct sctp_udp_peer *p)
{
	uint32_t hdr = (p->sa.ss_family == AF_INET6 ? V6_HDR : V4_HDR) + UDP_HDR;
	uint32_t m = p->mtu - hdr;
	return m > UDP_MAX_PAYLOAD ? UDP_MAX_PAYLOAD : m;
}

uint32_t sctp_udp_max_payload(const struct sctp_udp *u)
{
	uint32_t hdr = (u->family == AF_INET6 ? V6_HDR : V4_HDR) + UDP_HDR;
	if (u->mtu_cap && u->mtu_cap - hdr < UDP_MAX_PAYLOAD)
		return capped(u, u->family, u->mtu_cap) - hdr;
	return UDP_MAX_PAYLOAD;
}

static void set_mtu(struct sctp_udp *u, struct sctp_udp_peer *p, uint32_t mtu)
{
	if (mtu < p->mtu)
		u->c.mtu_drops++;
	else
		u->c.mtu_raises++;
	p->mtu = mtu;
	if (u->ops.peer_mtu)
		u->ops.peer_mtu(u->user, p);
}

/* RFC 1191 §7 plateaus: the guess when a router gives no next-hop MTU */
static uint32_t plateau_below(uint32_t mtu)
{
	static const uint32_t pl[] = {65535, 32000, 17914, 8166, 4352, 2002,
	                              1492,  1006,  508,   296,  68};
	for (size_t i = 0; i < sizeof(pl) / sizeof(pl[0]); i++)
		if (pl[i] < mtu)
			return pl[i];
	return 68;
}

/* It lowers what we send to p only: the receive side keeps what it
 * advertised, and no other peer or route is touched (O(1)). */
uint32_t sctp_udp_mtu_lower(struct sctp_udp *u, struct sctp_udp_peer *p, uint32_t mtu)
{
	uint32_t old = p->mtu;
	mtu = capped(u, p->sa.ss_family, mtu ? mtu : plateau_below(p->mtu));
	if (mtu >= p->mtu)
		return 0;
	set_mtu(u, p, mtu);
	return old;
}

void sctp_udp_mtu_probed(struct sctp_udp *u, struct sctp_udp_peer *p, uint32_t mtu)
{
	mtu = capped(u, p->sa.ss_family, mtu);
	if (mtu > p->plp.max)
		mtu = p->plp.max;
	if (mtu != p->mtu)
		set_mtu(u, p, mtu);
}

/* The send failed with EMSGSIZE: with IP_PMTUDISC_PROBE that is the
 * interface's own MTU, below p->mtu (one read, for this peer only;
 * start_mtu). An MTU below our floor would refuse every datagram at the
 * floor size for good: those between it and the floor go with DF off
 * (sctp_udp_mtu_route_short) so the association keeps moving. */
void sctp_udp_mtu_emsgsize(struct sctp_udp *u, struct sctp_udp_peer *p)
{
	uint32_t m = start_mtu(&p->sa, p->salen);
	if (!m)
		return;
	if (m < sctp_udp_mtu_floor(p->sa.ss_family)) {
		p->route_mtu = m;
		p->route_ms = sctp_udp_now_ms();
	}
	/* the probes' ceiling too (sctp_udp_plpmtud.c) */
	if (capped(u, p->sa.ss_family, m) < p->plp.max)
		p->plp.max = capped(u, p->sa.ss_family, m);
	(void)sctp_udp_mtu_lower(u, p, m);
}

int sctp_udp_mtu_route_short(const struct sctp_udp_peer *p, size_t len)
{
	uint32_t hdr = (p->sa.ss_family == AF_INET6 ? V6_HDR : V4_HDR) + UDP_HDR;
	if (!p->route_mtu || len + hdr <= p->route_mtu)
		return 0;
	return sctp_udp_now_ms() - p->route_ms < ROUTE_RECHECK_MS;
}

/* RFC 4960 §7.3: a chunk that no longer fits a lowered path MTU is sent
 * IP-fragmented (usrsctp clears set_df for it). DF goes off for this one
 * datagram only. */
int sctp_udp_send_fragmentable(struct sctp_udp *u, struct pkt *k)
{
	int off, zero = 0, e;
	ssize_t n;
	if (u->family == AF_INET) {
		off = IP_PMTUDISC_DONT;
		setsockopt(u->fd, IPPROTO_IP, IP_MTU_DISCOVER, &off, sizeof(off));
	} else {
		off = IPV6_PMTUDISC_DONT;
		setsockopt(u->fd, IPPROTO_IPV6, IPV6_DONTFRAG, &zero, sizeof(zero));
		setsockopt(u->fd, IPPROTO_IPV6, IPV6_MTU_DISCOVER, &off, sizeof(off));
	}
	n = sendto(u->fd, k->data, k->len, 0, (struct sockaddr *)&k->peer->sa, k->peer->salen);
	e = errno;
	sctp_udp_mtu_socket(u);
	u->c.tx_calls++;
	if (n >= 0)
		u->c.tx_frag++;
	errno = e;
	return n < 0 ? -1 : 0;
}
