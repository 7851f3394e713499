/*
 * usrsctp glue, the I/O half: socket options of our SCTP sockets, the
 * gather send of one message and the receive call with its next-message
 * info. The other half (endpoints, associations, notifications) is
 * sctp_usrsctp.c; only these two files include usrsctp.h.
 */
#include "libevent/sctp_usrsctp_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <usrsctp.h>

#include <ddp/ddp.h>
#include "cursor.h"

static int set_opt(struct socket *so, int level, int name, const void *v,
		   socklen_t l)
{
	return usrsctp_setsockopt(so, level, name, v, l) < 0 ? DDP_ERR_SYS : 0;
}

/*
 * Path MTU, fixed by us (SPP_PMTUD_DISABLE: usrsctp cannot see ICMP in
 * AF_CONN mode; sctp_udp follows the route, EMSGSIZE and ICMP for it).
 * How usrsctp counts it for an AF_CONN peer (usrsctp 0.9.5
 * sctp_add_remote_addr / SCTP_PEER_ADDR_PARAMS: net->mtu = spp_pathmtu +
 * 12): the SCTP packet, i.e. our UDP payload, is at most spp_pathmtu + 12
 * octets. So spp_pathmtu = largest UDP payload - 12 = link MTU - 40 (IPv4)
 * or - 60 (IPv6). Its fragmentation point (SCTP_MAXSEG, the largest
 * unfragmented message) is payload - 12 - 16 (DATA chunk header) -
 * (payload % 4). Measured (test_sctp_mtu): link MTU 1500 over IPv4 ->
 * largest datagram 1472 = 1500 - 28, largest message 1444; loopback
 * (65536) -> payload capped at 65507, message 65476.
 */
#define SCTP_CONN_HDR 12 /* counted by usrsctp on top of spp_pathmtu */

int sctp_usrsctp_set_mtu(struct socket *so, uint32_t payload)
{
	struct sctp_paddrparams pp;
	struct sockaddr_conn any;
	memset(&pp, 0, sizeof(pp));
	/* the wildcard AF_CONN address: every path of the association
	 * (one-to-one socket), or the socket's default before it has one
	 * (with no address at all usrsctp refuses it on an association:
	 * EAFNOSUPPORT) */
	memset(&any, 0, sizeof(any));
	any.sconn_family = AF_CONN;
	memcpy(&pp.spp_address, &any, sizeof(any));
	pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
	pp.spp_flags = SPP_PMTUD_DISABLE;
	pp.spp_pathmtu = payload - SCTP_CONN_HDR;
	return set_opt(so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp));
}

/* Socket options shared by connecting and listening sockets. */
int sctp_usrsctp_setup_socket(sctp_ll_ep *ep, struct socket *so,
			      uint32_t payload)
{
	const sctp_ll_config *c = &ep->cfg;
	static const uint16_t evs[] = {
		SCTP_ASSOC_CHANGE, SCTP_ADAPTATION_INDICATION,
		SCTP_SHUTDOWN_EVENT, SCTP_SENDER_DRY_EVENT,
		SCTP_SEND_FAILED_EVENT,
	};
	struct sctp_initmsg im;
	struct sctp_setadaptation ad;
	struct sctp_paddrparams pp;
	struct sctp_rtoinfo rto;
	struct sctp_assocparams ap;
	const int one = 1;
	int sb, rb, rc = 0;

	usrsctp_set_non_blocking(so, 1);
	/* RFC 5043 §9: SCTP packets fit the IP path (also the stock baseline:
	 * the same packets on the wire, only usrsctp's tuning differs) */
	rc |= sctp_usrsctp_set_mtu(so, payload);
	for (size_t i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		struct sctp_event e;
		memset(&e, 0, sizeof(e));
		e.se_assoc_id = SCTP_FUTURE_ASSOC;
		e.se_on = 1;
		e.se_type = evs[i];
		rc |= set_opt(so, IPPROTO_SCTP, SCTP_EVENT, &e, sizeof(e));
	}
	rc |= set_opt(so, IPPROTO_SCTP, SCTP_RECVRCVINFO, &one, sizeof(one));
	rc |= set_opt(so, IPPROTO_SCTP, SCTP_RECVNXTINFO, &one, sizeof(one));
	/* RFC 5043 §5.1: equal inbound and outbound stream counts */
	memset(&im, 0, sizeof(im));
	im.sinit_num_ostreams = c->nstreams;
	im.sinit_max_instreams = c->nstreams;
	rc |= set_opt(so, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof(im));
	if (c->adaptation) {
		/* RFC 5043 §11.1: Adaptation Layer Indication in INIT/INIT-ACK
		 * (host order here; the stack converts) */
		ad.ssb_adaptation_ind = c->adaptation;
		rc |= set_opt(so, IPPROTO_SCTP, SCTP_ADAPTATION_LAYER, &ad,
			      sizeof(ad));
	}
	if (c->stock) {
		/* usrsctp as it comes: undo the global sysctls (ours) per
		 * association, set nothing else */
		struct sctp_sack_info sk;
		memset(&sk, 0, sizeof(sk));
		sk.sack_assoc_id = SCTP_FUTURE_ASSOC;
		sk.sack_delay = 200;
		sk.sack_freq = 2;
		rc |= set_opt(so, IPPROTO_SCTP, SCTP_DELAYED_SACK, &sk, sizeof(sk));
		memset(&rto, 0, sizeof(rto));
		rto.srto_assoc_id = SCTP_FUTURE_ASSOC;
		rto.srto_initial = 3000;
		rto.srto_min = 1000;
		rto.srto_max = 60000;
		rc |= set_opt(so, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof(rto));
		return rc ? DDP_ERR_SYS : 0;
	}
	/* RFC 5043 §9: no SCTP fragmentation of DDP segments */
	if (c->unfragmented)
		rc |= set_opt(so, IPPROTO_SCTP, SCTP_DISABLE_FRAGMENTS, &one,
			      sizeof(one));
	rc |= set_opt(so, IPPROTO_SCTP, SCTP_NODELAY, &one, sizeof(one));
	sb = (int)c->sndbuf;
	rb = (int)c->rcvbuf;
	rc |= set_opt(so, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
	rc |= set_opt(so, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	/* heartbeat for liveness */
	memset(&pp, 0, sizeof(pp));
	pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
	pp.spp_flags = SPP_HB_ENABLE;
	pp.spp_hbinterval = c->hb_interval_ms;
	pp.spp_pathmaxrxt = c->path_max_retrans;
	rc |= set_opt(so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof(pp));
	memset(&rto, 0, sizeof(rto));
	rto.srto_assoc_id = SCTP_FUTURE_ASSOC;
	rto.srto_initial = c->rto_initial_ms;
	rto.srto_min = c->rto_min_ms;
	rto.srto_max = c->rto_max_ms;
	rc |= set_opt(so, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof(rto));
	memset(&ap, 0, sizeof(ap));
	ap.sasoc_assoc_id = SCTP_FUTURE_ASSOC;
	/* RFC 4960 §8.1: consecutive unanswered retransmissions and
	 * heartbeats before the association is declared dead */
	ap.sasoc_asocmaxrxt = c->assoc_max_retrans;
	rc |= set_opt(so, IPPROTO_SCTP, SCTP_ASSOCINFO, &ap, sizeof(ap));
	return rc ? DDP_ERR_SYS : 0;
}

static int send_errno(struct sctp_ll_assoc *a)
{
	switch (errno) {
	case EAGAIN:
#if EWOULDBLOCK != EAGAIN
	case EWOULDBLOCK:
#endif
	case ENOBUFS:
		a->want_write = 1;
		return DDP_ERR_AGAIN;
	case EMSGSIZE:
		return DDP_ERR_TOOBIG;
	case ENOTCONN:
	case EPIPE:
	case ESHUTDOWN:
		return DDP_ERR_CLOSED;
	default:
		return DDP_ERR_LLP;
	}
}

/*
 * Gather send. usrsctp_sendv() takes one buffer; it is a thin wrapper that
 * puts that buffer into a one-entry `struct uio` and calls
 * sctp_lower_sosend(), which libusrsctp exports but usrsctp.h does not
 * declare. Calling it with several iovecs makes usrsctp copy the DDP-SSN,
 * the DDP header and the ULP's payload straight into its own mbufs as ONE
 * message: no staging copy of ours. (SCTP_EXPLICIT_EOR with two sendv calls
 * was tried first and splits messages into fragments on the wire, which
 * RFC 5043 §9 forbids.) The struct is usrsctp's `struct uio` from
 * user_socketvar.h (usrsctp 0.9.x); test_sctp_ll checks multi-iovec
 * messages arrive intact and unfragmented.
 */
struct usrsctp_uio {
	struct iovec *uio_iov;
	int uio_iovcnt;
	off_t uio_offset;
	ssize_t uio_resid;
	int uio_segflg; /* enum uio_seg: UIO_USERSPACE = 0 */
	int uio_rw;	/* enum uio_rw: UIO_WRITE = 1 */
};
/* usrsctp's netinet/sctp_uio.h `struct sctp_sndrcvinfo` (128 octets with
 * its reserved pad), also not in usrsctp.h. */
struct usrsctp_sndrcvinfo {
	uint16_t sinfo_stream;
	uint16_t sinfo_ssn;
	uint16_t sinfo_flags;
	uint32_t sinfo_ppid;
	uint32_t sinfo_context;
	uint32_t sinfo_timetolive;
	uint32_t sinfo_tsn;
	uint32_t sinfo_cumtsn;
	sctp_assoc_t sinfo_assoc_id;
	uint16_t sinfo_keynumber;
	uint16_t sinfo_keynumber_valid;
	uint8_t reserve_pad[92];
};
_Static_assert(sizeof(struct usrsctp_sndrcvinfo) == 128, "usrsctp sctp_sndrcvinfo layout");
int sctp_lower_sosend(struct socket *so, struct sockaddr *addr, struct usrsctp_uio *uio,
		      void *top, void *control, int flags, struct usrsctp_sndrcvinfo *srcv);

/* RFC 4960 §3.3.10.12 / RFC 6458 §5.3.4 (SCTP_ABORT): ABORT the
 * association now with a User-Initiated Abort cause whose Upper Layer
 * Abort Reason is reason, so the peer can read why. */
int sctp_usrsctp_abort_reason(struct socket *so, const char *reason)
{
	struct sctp_sndinfo snd;
	memset(&snd, 0, sizeof(snd));
	snd.snd_flags = SCTP_ABORT;
	return usrsctp_sendv(so, reason, strlen(reason), NULL, 0, &snd,
			     sizeof(snd), SCTP_SENDV_SNDINFO, 0) < 0 ?
		       DDP_ERR_SYS :
		       0;
}

void sctp_usrsctp_peer_abort(const uint8_t *info, size_t n, char *out,
			     size_t outn)
{
	out[0] = 0;
	if (outn == 0)
		return;
	/* RFC 4960 §3.3.7: ABORT chunk = type 6, flags, length, causes */
	struct rcur c = rc_init(info, n);
	uint64_t type, flags, clen;
	if (rc_get_be(&c, 1, &type) || type != 6 || rc_get_be(&c, 1, &flags) ||
	    rc_get_be(&c, 2, &clen) || clen < 4)
		return;
	if (clen - 4 < rc_left(&c))
		c = rc_init(c.p, (size_t)clen - 4); /* the causes of this chunk */
	uint64_t code, len;
	while (!rc_get_be(&c, 2, &code) && !rc_get_be(&c, 2, &len)) {
		if (len < 4)
			return;
		const uint8_t *v = rc_take(&c, (size_t)len - 4);
		if (!v)
			return;
		/* §3.3.10.12: User-Initiated Abort, Upper Layer Abort Reason */
		if (code == 12) {
			size_t k = len - 4 < outn - 1 ? (size_t)len - 4 : outn - 1;
			for (size_t i = 0; i < k; i++)
				out[i] = v[i] < 0x20 || v[i] == 0x7f ? '?' : (char)v[i];
			out[k] = 0;
			return;
		}
		rc_skip(&c, (4 - (len & 3)) & 3); /* padding to 4 octets */
	}
}

const char *sctp_ll_assoc_peer_abort(const sctp_ll_assoc *a)
{
	return a ? a->peer_abort : "";
}

static int send_iov(struct sctp_ll_assoc *a, uint16_t sid, uint32_t ppid,
		    const struct iovec *iov, int iovcnt, size_t len)
{
	struct usrsctp_sndrcvinfo si;
	struct usrsctp_uio uio;
	memset(&si, 0, sizeof(si));
	si.sinfo_stream = sid;
	/* RFC 5043 §5.1: U=1 on every chunk */
	si.sinfo_flags = SCTP_UNORDERED;
	si.sinfo_ppid = htonl(ppid); /* PPID passes through untouched */
	memset(&uio, 0, sizeof(uio));
	uio.uio_iov = (struct iovec *)iov;
	uio.uio_iovcnt = iovcnt;
	uio.uio_resid = (ssize_t)len;
	uio.uio_segflg = 0;
	uio.uio_rw = 1;
	errno = sctp_lower_sosend(a->so, NULL, &uio, NULL, NULL, 0, &si);
	return errno ? -1 : 0;
}

int sctp_ll_sendv(sctp_ll_assoc *a, uint16_t sid, uint32_t ppid,
		  const struct iovec *iov, int iovcnt)
{
	size_t len = 0;
	if (!a || iovcnt < 1 || !iov)
		return DDP_ERR_INVAL;
	for (int i = 0; i < iovcnt; i++)
		len += iov[i].iov_len;
	if (a->state != A_UP || !a->so)
		return DDP_ERR_CLOSED;
	if (a->max_msg_up && len > a->max_msg_up)
		return DDP_ERR_TOOBIG;
	if (sid >= a->nstreams)
		return DDP_ERR_INVAL;
	if (len > a->max_msg && a->ep->cfg.unfragmented) {
		/* cut for a path MTU that has since dropped: only SCTP
		 * fragmentation gets it across now (RFC 4960 §6.9) */
		const int zero = 0, one = 1;
		int rc;
		usrsctp_setsockopt(a->so, IPPROTO_SCTP, SCTP_DISABLE_FRAGMENTS,
				   &zero, sizeof(zero));
		rc = send_iov(a, sid, ppid, iov, iovcnt, len);
		usrsctp_setsockopt(a->so, IPPROTO_SCTP, SCTP_DISABLE_FRAGMENTS,
				   &one, sizeof(one));
		return rc == 0 ? 0 : send_errno(a);
	}
	if (send_iov(a, sid, ppid, iov, iovcnt, len) == 0)
		return 0;
	return send_errno(a);
}

int sctp_ll_send(sctp_ll_assoc *a, uint16_t sid, uint32_t ppid,
		 const void *buf, size_t len)
{
	if (!a || (!buf && len))
		return DDP_ERR_INVAL;
	struct iovec v = { (void *)buf, len };
	return sctp_ll_sendv(a, sid, ppid, &v, 1);
}

void sctp_ll_want_writable(sctp_ll_assoc *a)
{
	if (a)
		a->want_write = 1;
}

long sctp_ll_recv(sctp_ll_assoc *a, void *buf, size_t len, sctp_ll_rinfo *ri)
{
	if (!a || !ri || (!buf && len))
		return DDP_ERR_INVAL;
	for (;;) {
		struct sctp_recvv_rn rn;
		socklen_t il = sizeof(rn);
		unsigned it = 0;
		int fl = 0;
		ssize_t n;
		if (!a->so || a->state != A_UP)
			return DDP_ERR_CLOSED;
		memset(&rn, 0, sizeof(rn));
		n = usrsctp_recvv(a->so, buf, len, NULL, NULL, &rn, &il, &it,
				  &fl);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return DDP_ERR_AGAIN;
			sctp_usrsctp_go_down(a, DDP_ERR_LLP);
			return DDP_ERR_CLOSED;
		}
		if (n == 0 && !(fl & MSG_EOR) && !a->mid_msg) {
			/* orderly end of the association */
			sctp_usrsctp_go_down(a, DDP_ERR_CLOSED);
			return DDP_ERR_CLOSED;
		}
		if (fl & MSG_NOTIFICATION) {
			sctp_usrsctp_read_notification(a, buf, (size_t)n, fl & MSG_EOR);
			continue;
		}
		memset(ri, 0, sizeof(*ri));
		if (it == SCTP_RECVV_RCVINFO || it == SCTP_RECVV_RN) {
			ri->sid = rn.recvv_rcvinfo.rcv_sid;
			ri->ppid = ntohl(rn.recvv_rcvinfo.rcv_ppid);
			ri->unordered =
				(rn.recvv_rcvinfo.rcv_flags & SCTP_UNORDERED) != 0;
		}
		if (it == SCTP_RECVV_RN || it == SCTP_RECVV_NXTINFO) {
			struct sctp_nxtinfo *nx = it == SCTP_RECVV_RN ?
				&rn.recvv_nxtinfo : (struct sctp_nxtinfo *)&rn;
			if ((nx->nxt_flags & SCTP_COMPLETE) &&
			    !(nx->nxt_flags & SCTP_NOTIFICATION)) {
				ri->next_valid = 1;
				ri->next_sid = nx->nxt_sid;
				ri->next_ppid = ntohl(nx->nxt_ppid);
				ri->next_len = nx->nxt_length;
			}
		}
		ri->eor = (fl & MSG_EOR) != 0;
		a->mid_msg = !ri->eor;
		return (long)n;
	}
}
