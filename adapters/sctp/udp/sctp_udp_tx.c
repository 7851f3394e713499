/*
 * The send queue's flush: everything queued in one loop iteration leaves
 * in as few system calls as the kernel allows. One sendmmsg carries up to
 * TX_MSGS datagrams; with UDP GSO (UDP_SEGMENT cmsg) one entry is a run of
 * consecutive packets to one peer of one size (the last may be shorter,
 * as GSO allows), gathered with an iovec per packet: at most 64 segments
 * and GSO_MAX_BYTES per super-datagram. Fallbacks: GSO that the socket
 * refuses at setup is never used; a GSO send failing with EIO, EINVAL or
 * ENOTSUP/EOPNOTSUPP switches GSO off for the socket and the same packets
 * go out plainly. EMSGSIZE lowers the peer's path MTU (sctp_udp_mtu.c);
 * below our floor the kernel's route is matched with DF off instead.
 */
#include "sctp/udp/sctp_udp_int.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>

#define CTL_LEN CMSG_SPACE(sizeof(uint16_t))

void sctp_udp_arm_flush(struct sctp_udp *u)
{
	if (!u->wr_pending) {
		u->wr_pending = 1;
		event_add(u->wr, NULL);
	}
}

int sctp_udp_tx_init(struct sctp_udp *u)
{
	int zero = 0;
	u->tx_mv = calloc(TX_MSGS, sizeof(*u->tx_mv));
	u->tx_iov = calloc(TX_PKTS, sizeof(*u->tx_iov));
	u->tx_ctl = calloc(TX_MSGS, CTL_LEN);
	u->tx_first = calloc(TX_MSGS, sizeof(*u->tx_first));
	u->tx_npkt = calloc(TX_MSGS, sizeof(*u->tx_npkt));
	if (!u->tx_mv || !u->tx_iov || !u->tx_ctl || !u->tx_first || !u->tx_npkt)
		return -1;
	/* UDP GSO where the kernel has it (Linux 4.18+) */
	u->gso = setsockopt(u->fd, SOL_UDP, UDP_SEGMENT, &zero, sizeof(zero)) == 0;
	return 0;
}

void sctp_udp_tx_free(struct sctp_udp *u)
{
	free(u->tx_mv);
	free(u->tx_iov);
	free(u->tx_ctl);
	free(u->tx_first);
	free(u->tx_npkt);
	u->tx_mv = NULL;
}

/* Take n packets off the queue head (sent or dropped). Under qlock. */
static void pop(struct sctp_udp *u, int n)
{
	while (n-- > 0 && u->q_head) {
		struct pkt *k = u->q_head;
		u->q_head = k->next;
		if (!u->q_head)
			u->q_tail = NULL;
		u->qlen--;
		sctp_udp_pkt_free(u, k);
	}
}

static int too_big(const struct pkt *k)
{
	return k->len > sctp_udp_peer_max_payload(k->peer);
}

/* Sent alone with DF off: a chunk usrsctp let be fragmented that no longer
 * fits (RFC 4960 §7.3), or one under our floor that the kernel's route
 * (below the floor) refuses with DF. */
static int df_off(const struct pkt *k)
{
	return (too_big(k) && !k->df) || sctp_udp_mtu_route_short(k->peer, k->len);
}

/* Fill the mmsghdr vector from the queue head. Returns the entries.
 * Under qlock (another thread may be appending). */
static int build(struct sctp_udp *u)
{
	struct pkt *k = u->q_head;
	int nmsg = 0, niov = 0;
	while (k && nmsg < TX_MSGS && niov < TX_PKTS) {
		struct msghdr *mh = &u->tx_mv[nmsg].msg_hdr;
		struct pkt *first = k;
		size_t g = k->len, total = k->len;
		int cnt = 1, gso_ok;
		if (df_off(k))
			break; /* sent alone with DF off (flush) */
		memset(mh, 0, sizeof(*mh));
		u->tx_iov[niov].iov_base = k->data;
		u->tx_iov[niov].iov_len = k->len;
		gso_ok = u->gso && !too_big(k);
		k = k->next;
		/* a GSO run: same peer, all but the last exactly g octets */
		while (gso_ok && k && k->peer == first->peer && k->len <= g && !df_off(k) &&
		       cnt < GSO_MAX_SEGS && niov + cnt < TX_PKTS &&
		       total + k->len <= GSO_MAX_BYTES) {
			u->tx_iov[niov + cnt].iov_base = k->data;
			u->tx_iov[niov + cnt].iov_len = k->len;
			total += k->len;
			cnt++;
			k = k->next;
			if (u->tx_iov[niov + cnt - 1].iov_len < g)
				break;
		}
		mh->msg_name = &first->peer->sa;
		mh->msg_namelen = first->peer->salen;
		mh->msg_iov = &u->tx_iov[niov];
		mh->msg_iovlen = (size_t)cnt;
		if (cnt > 1) {
			struct cmsghdr *c;
			uint16_t gs = (uint16_t)g;
			mh->msg_control = u->tx_ctl + (size_t)nmsg * CTL_LEN;
			mh->msg_controllen = CTL_LEN;
			c = CMSG_FIRSTHDR(mh);
			c->cmsg_level = SOL_UDP;
			c->cmsg_type = UDP_SEGMENT;
			c->cmsg_len = CMSG_LEN(sizeof(gs));
			memcpy(CMSG_DATA(c), &gs, sizeof(gs));
		}
		u->tx_first[nmsg] = first;
		u->tx_npkt[nmsg] = cnt;
		niov += cnt;
		nmsg++;
	}
	return nmsg;
}

static int transient(int e)
{
	return e == EAGAIN || e == EWOULDBLOCK || e == ENOBUFS;
}

/* Owner thread only. qlock is held while the queue's links change and
 * dropped around the system calls and the path MTU callbacks (which call
 * into usrsctp: its lock is always taken before qlock, never after). */
/* sends made again after an ICMP report's error, per flush: a flood of
 * forged ICMP must not keep the flush going for ever */
#define ASYNC_RETRIES 8

void sctp_udp_flush(struct sctp_udp *u)
{
	int async = 0;
	pthread_mutex_lock(&u->qlock);
	while (u->q_head) {
		struct pkt *k = u->q_head;
		int nmsg, r;
		if (df_off(k)) {
			int rc;
			pthread_mutex_unlock(&u->qlock);
			rc = sctp_udp_send_fragmentable(u, k);
			if (rc < 0 && transient(errno)) {
				sctp_udp_arm_flush(u);
				return;
			}
			pthread_mutex_lock(&u->qlock);
			u->c.tx_pkts++;
			pop(u, 1);
			continue;
		}
		nmsg = build(u);
		pthread_mutex_unlock(&u->qlock);
		r = sendmmsg(u->fd, u->tx_mv, (unsigned)nmsg, 0);
		int e = errno;
		pthread_mutex_lock(&u->qlock);
		u->c.tx_calls++;
		if (r > 0) {
			for (int i = 0; i < r; i++) {
				u->c.tx_pkts += (uint64_t)u->tx_npkt[i];
				u->c.tx_gso += u->tx_npkt[i] > 1;
				pop(u, u->tx_npkt[i]);
			}
			continue; /* an error at entry r shows up next call */
		}
		int cnt = u->tx_npkt[0];
		struct sctp_udp_peer *p = u->tx_first[0]->peer;
		if (transient(e)) {
			pthread_mutex_unlock(&u->qlock);
			sctp_udp_arm_flush(u);
			return;
		}
		if (async < ASYNC_RETRIES) {
			/* IP_RECVERR makes the next call on the socket fail
			 * with the error of an ICMP report that came meanwhile
			 * (EMSGSIZE for a frag-needed, ECONNREFUSED for a port
			 * unreachable), whatever this call sends, and anyone
			 * can forge one: read the error queue, where only a
			 * report that quotes our tag acts, and send again */
			pthread_mutex_unlock(&u->qlock);
			int n = sctp_udp_errqueue(u);
			pthread_mutex_lock(&u->qlock);
			if (n > 0) {
				async++;
				u->c.tx_async_err++;
				continue;
			}
		}
		if (cnt > 1 && (e == EIO || e == EINVAL || e == ENOTSUP || e == EOPNOTSUPP)) {
			/* the device or kernel will not segment for us */
			u->gso = 0;
			continue;
		}
		if (e == EMSGSIZE) {
			/* RFC 5043 §9: the route's MTU dropped under what
			 * usrsctp was told; retry once re-sorted by the new
			 * one, else the datagrams are lost (SCTP resends) */
			uint32_t old = p->mtu;
			pthread_mutex_unlock(&u->qlock);
			sctp_udp_mtu_emsgsize(u, p);
			pthread_mutex_lock(&u->qlock);
			/* progress either way: the MTU went down (bounded by
			 * the floor), or the head now goes with DF off */
			if (p->mtu < old || df_off(u->tx_first[0]))
				continue;
		}
		/* other errors (ECONNREFUSED from an earlier ICMP): the
		 * datagrams are lost; the error queue reports the peer */
		u->c.tx_drops += (uint64_t)cnt;
		pop(u, cnt);
	}
	pthread_mutex_unlock(&u->qlock);
}
