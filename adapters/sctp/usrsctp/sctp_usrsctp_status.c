/* The association's status as usrsctp reports it (SCTP_STATUS, the send
 * buffer's use), read under the process-wide lock; for traces, tests and
 * the session-control bound. One of the files that include usrsctp.h. */
#include "sctp/usrsctp/sctp_usrsctp_int.h"

#include <string.h>

#include <usrsctp.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>

/* The association's congestion window, peer window, round trip and queues
 * (SCTP_STATUS), and the stack's retransmission counters, for traces and
 * tests. */

int sctp_ll_path_status(struct sctp_ll_assoc *a, sctp_ll_path *out)
{
	struct sctp_status ss;
	struct sctpstat st;
	socklen_t l = sizeof(ss);
	int r;

	if (!a || !a->so || !out)
		return DDP_ERR_INVAL;
	memset(&ss, 0, sizeof(ss));
	memset(&st, 0, sizeof(st));
	sctp_usrsctp_lock(a->ep->base);
	r = usrsctp_getsockopt(a->so, IPPROTO_SCTP, SCTP_STATUS, &ss, &l);
	usrsctp_get_stat(&st);
	sctp_usrsctp_unlock();
	if (r < 0)
		return DDP_ERR_SYS;
	memset(out, 0, sizeof(*out));
	out->cwnd = ss.sstat_primary.spinfo_cwnd;
	out->peer_rwnd = ss.sstat_rwnd;
	out->srtt_ms = ss.sstat_primary.spinfo_srtt;
	out->rto_ms = ss.sstat_primary.spinfo_rto;
	out->mtu = ss.sstat_primary.spinfo_mtu;
	out->unacked = ss.sstat_unackdata;
	out->pending = ss.sstat_penddata;
	out->rcvbuf = a->rcvbuf;
	out->t3_expiries = st.sctps_timodata;
	out->fast_rtx = st.sctps_sendfastretrans;
	out->rtx = st.sctps_sendretransdata;
	return 0;
}

int sctp_ll_assoc_cc(struct sctp_ll_assoc *a)
{
#ifdef SCTP_PLUGGABLE_CC
	struct sctp_assoc_value av;
	socklen_t l = sizeof(av);
	int r;

	if (!a || !a->so)
		return DDP_ERR_INVAL;
	memset(&av, 0, sizeof(av));
	av.assoc_id = SCTP_FUTURE_ASSOC;
	sctp_usrsctp_lock(a->ep->base);
	r = usrsctp_getsockopt(a->so, IPPROTO_SCTP, SCTP_PLUGGABLE_CC, &av, &l);
	sctp_usrsctp_unlock();
	if (r < 0)
		return DDP_ERR_SYS;
	for (unsigned cc = DDP_SCTP_CC_RFC4960; cc <= DDP_SCTP_CC_CUBIC; cc++)
		if (sctp_usrsctp_cc_module(cc) == (int)av.assoc_value)
			return (int)cc;
	return DDP_ERR_SYS;
#else
	return a ? DDP_ERR_UNSUPPORTED : DDP_ERR_INVAL;
#endif
}

/* SCTP_GET_SNDBUF_USE (struct sctp_sockstat) is a socket option of the
 * FreeBSD SCTP stack that usrsctp implements but does not declare in
 * usrsctp.h: declared here with the stack's number and layout. A usrsctp
 * without it fails the call (ENOPROTOOPT), and the caller is told -1. */
#ifndef SCTP_GET_SNDBUF_USE
#define SCTP_GET_SNDBUF_USE 0x00001101
struct sctp_sockstat {
	sctp_assoc_t ss_assoc_id;
	uint32_t ss_total_sndbuf;
	uint32_t ss_total_recv_buf;
};
#endif

long sctp_ll_queued_octets(struct sctp_ll_assoc *a)
{
	struct sctp_sockstat ss;
	socklen_t l = sizeof(ss);
	int r;

	if (!a || !a->so)
		return -1;
	memset(&ss, 0, sizeof(ss));
	sctp_usrsctp_lock(a->ep->base);
	r = usrsctp_getsockopt(a->so, IPPROTO_SCTP, SCTP_GET_SNDBUF_USE, &ss, &l);
	sctp_usrsctp_unlock();
	if (r < 0 || l != sizeof(ss))
		return -1;
	return (long)ss.ss_total_sndbuf;
}
