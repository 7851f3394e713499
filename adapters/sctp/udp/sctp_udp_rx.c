/*
 * Input: datagrams read in batches (recvmmsg, RX_MSGS per call) and, where
 * the kernel offers UDP GRO (UDP_GRO sockopt), trains of coalesced
 * datagrams split back into the packets they were (cmsg gso_size). Every
 * packet then goes through the fault filter and the CRC32c check one by
 * one, exactly as a datagram read alone would: the CRC32c before the
 * peer table is looked at (sctp_udp_classify). ICMP errors come from the
 * socket's error queue (IP_RECVERR); what they may do is decided in
 * sctp_udp_icmp.c and acted on in sctp_udp_icmp_entry.
 */
#include "sctp/udp/sctp_udp_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>

#include <ddp/llp.h>
#include "common/peer_addr.h"

#define CTL_LEN    64
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

/* Classify (CRC32c, then the peer table), take out our path MTU probes'
 * acknowledgements (sctp_udp_plpmtud.c) and hand up. */
static void input(struct sctp_udp *u, const struct sockaddr_storage *sa, socklen_t salen,
                  uint8_t *b, size_t n)
{
	struct sctp_udp_peer *p;
	if (sctp_udp_classify(u, sa, salen, b, n, &p) >= SCTP_UDP_KNOWN &&
	    !sctp_udp_plpmtud_input(u, p, b, &n))
		u->ops.input(u->user, p, b, n);
}

/* Fault injection hook (tests), then input. */
void sctp_udp_deliver(struct sctp_udp *u, const struct sockaddr_storage *sa, socklen_t salen,
                      uint8_t *b, size_t n)
{
	unsigned act = u->filter ? u->filter(u->filter_user, b, n) : 0;
	struct pkt *h;
	if (act & SCTP_LL_DROP)
		return;
	if (act & SCTP_LL_HOLD) {
		/* a known source only (peer_free drops what it holds) */
		struct sctp_udp_peer *p = NULL;
		if (sctp_udp_classify(u, sa, salen, b, n, &p) == SCTP_UDP_KNOWN &&
		    (h = malloc(sizeof(*h) + n))) {
			h->peer = p;
			h->len = n;
			memcpy(h->data, b, n);
			free(u->held);
			u->held = h;
			return;
		}
		if (p) /* new: it goes up at once */
			u->ops.input(u->user, p, b, n);
	} else {
		input(u, sa, salen, b, n);
	}
	if (act & SCTP_LL_DUP) /* input() restored the checksum field */
		input(u, sa, salen, b, n);
	if (u->held) {
		h = u->held;
		u->held = NULL;
		input(u, &h->peer->sa, h->peer->salen, h->data, h->len);
		free(h);
	}
}

/* ICMP errors (IP_RECVERR / IPV6_RECVERR): one recvmsg per entry, its
 * quote (the offending datagram's UDP payload) read into a small buffer:
 * the SCTP common header and an INIT's Initiate Tag are in the first 20
 * octets. */
int sctp_udp_errqueue(struct sctp_udp *u)
{
	int icmp = 0;
	for (int i = 0; i < 64; i++) {
		struct sockaddr_storage sa;
		char cbuf[512];
		uint8_t quote[64];
		struct iovec iov = {quote, sizeof(quote)};
		struct msghdr mh;
		ssize_t r;
		memset(&mh, 0, sizeof(mh));
		memset(&sa, 0, sizeof(sa));
		mh.msg_name = &sa;
		mh.msg_namelen = sizeof(sa);
		mh.msg_iov = &iov;
		mh.msg_iovlen = 1;
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		r = recvmsg(u->fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT);
		if (r < 0)
			return icmp;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
			struct sock_extended_err ee;
			struct sctp_icmp_in in;
			if (!((c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_RECVERR) ||
			      (c->cmsg_level == IPPROTO_IPV6 && c->cmsg_type == IPV6_RECVERR)))
				continue;
			if (c->cmsg_len < CMSG_LEN(sizeof(ee)))
				continue;
			memcpy(&ee, CMSG_DATA(c), sizeof(ee));
			memset(&in, 0, sizeof(in));
			in.origin = ee.ee_origin;
			in.type = ee.ee_type;
			in.code = ee.ee_code;
			in.info = ee.ee_info;
			in.quote = quote;
			in.qlen = (size_t)r;
			icmp +=
			    ee.ee_origin == SO_EE_ORIGIN_ICMP || ee.ee_origin == SO_EE_ORIGIN_ICMP6;
			sctp_udp_icmp_entry(u, &sa, mh.msg_namelen, &in);
		}
	}
	return icmp;
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
	if (!g || g >= n)
		g = n;
	else
		u->c.rx_gro++;
	for (size_t off = 0; off < n; off += g) {
		size_t len = n - off < g ? n - off : g;
		u->c.rx_pkts++;
		sctp_udp_deliver(u, &u->rx_sa[i], mh->msg_namelen, b + off, len);
	}
}

#define NOTICES_PER_SEC 4

/* Through the context's log hook: at most NOTICES_PER_SEC lines a second,
 * then one line with the count of those left out. */
static void notice(struct sctp_udp *u, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void notice(struct sctp_udp *u, const char *fmt, ...)
{
	char line[200];
	va_list ap;
	uint64_t sec;
	if (!u->log_ctx)
		return;
	sec = sctp_udp_now_ms() / 1000;
	if (sec != u->log_sec) {
		if (u->log_quiet)
			ddp_llp_log(u->log_ctx, DDP_LOG_WARN,
			            "ddp-sctp udp %d: %llu more notices not logged", u->port,
			            (unsigned long long)u->log_quiet);
		u->log_sec = sec;
		u->log_left = NOTICES_PER_SEC;
		u->log_quiet = 0;
	}
	if (!u->log_left) {
		u->log_quiet++;
		return;
	}
	u->log_left--;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ddp_llp_log(u->log_ctx, DDP_LOG_WARN, "ddp-sctp udp %d: %s", u->port, line);
}

/* Datagrams from unknown sources that were dropped (neither a lone INIT
 * nor a COOKIE ECHO, or too many on probation): one line a second at
 * most, with the count since the last one. */
static void drop_notice(struct sctp_udp *u)
{
	uint64_t n = u->c.rx_unproven + u->c.init_limited, sec;
	if (n == u->drop_logged)
		return;
	sec = sctp_udp_now_ms() / 1000;
	if (sec == u->drop_sec)
		return;
	notice(u, "%llu datagrams from unknown sources dropped without state (%llu in all)",
	       (unsigned long long)(n - u->drop_logged), (unsigned long long)n);
	u->drop_sec = sec;
	u->drop_logged = n;
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
			(void)sctp_udp_errqueue(u); /* a pending ICMP error */
			continue;
		}
		u->c.rx_calls++;
		for (int i = 0; i < r; i++)
			one_datagram(u, i, u->rx_mv[i].msg_len);
		if (r < RX_MSGS)
			break;
	}
	(void)sctp_udp_errqueue(u);
	sctp_udp_peers_settle(u);
	drop_notice(u);
}

static const char *kind_name(const struct sctp_icmp_out *o)
{
	switch (o->kind) {
	case SCTP_ICMP_DEAD:
		return "port/protocol unreachable";
	case SCTP_ICMP_MTU:
		return "fragmentation needed";
	case SCTP_ICMP_UNREACH:
		return "unreachable";
	default:
		return "error";
	}
}

/* RFC 6951 §5.5, RFC 9260 App. C. O(1): one classification, at most one
 * lookup in the keyed peer table and a look at that peer's few tags. */
void sctp_udp_icmp_entry(struct sctp_udp *u, const struct sockaddr_storage *sa, socklen_t salen,
                         const struct sctp_icmp_in *in)
{
	struct sctp_icmp_out o;
	struct sctp_udp_peer *p = NULL;
	char who[DDP_ADDR_STRLEN];
	int ours = 0;
	sctp_udp_icmp_classify(in, &o);
	if (o.kind == SCTP_ICMP_LOCAL) {
		u->c.icmp_local++;
		return;
	}
	ddp_addr_fmt((const struct sockaddr *)sa, salen, who);
	if (o.kind != SCTP_ICMP_DEAD && o.kind != SCTP_ICMP_MTU) {
		/* host / net unreachable may be transient (routing): SCTP's
		 * own retransmission limits decide */
		u->c.icmp_ignored++;
		notice(u,
		       "ICMP %s (origin %u type %u code %u) for %s: "
		       "counted, not acted on",
		       kind_name(&o), in->origin, in->type, in->code, who);
		return;
	}
	if (o.tagged)
		p = sctp_udp_peer_find(u, sa, salen);
	if (p) {
		pthread_mutex_lock(&u->qlock);
		ours = sctp_udp_tags_match(&p->tags, &o);
		pthread_mutex_unlock(&u->qlock);
	}
	if (!ours) {
		u->c.icmp_unverified++;
		notice(u, "ICMP %s for %s discarded: %s (RFC 6951 §5.5)", kind_name(&o), who,
		       !o.tagged ? "the quote holds no SCTP verification tag"
		       : !p      ? "no such peer"
		                 : "the quoted verification tag is not ours");
		return;
	}
	if (o.kind == SCTP_ICMP_DEAD) {
		u->c.icmp_dead++;
		notice(u, "ICMP %s for %s quoting our tag: its associations end", kind_name(&o),
		       who);
		if (u->ops.peer_failed)
			u->ops.peer_failed(u->user, p);
		return;
	}
	u->c.icmp_mtu++;
	sctp_udp_plpmtud_ptb(u, p, o.mtu);
}
