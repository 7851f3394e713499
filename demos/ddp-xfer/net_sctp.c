/* ddp-xfer over SCTP (usrsctp over UDP): one association, transfer stream
 * i = SCTP/DDP stream i, opened with a DDP Stream Session Initiate whose
 * private data is the hello (see main.c). */
#include <stdint.h>
#include <arpa/inet.h>
#include <ddp/sctp.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>

#include "xfer.h"

static ddp_sctp_ep *ep;
static ddp_sctp_assoc *assoc; /* the transfer's association */
static int up, ended;
static char peer_addr[INET6_ADDRSTRLEN];

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	if (status == 0) {
		/* receiver: an association becomes the transfer's when its
		 * first stream joins (on_ctl); strangers get their streams
		 * rejected with a reason */
		if (a != assoc)
			return;
		up = 1;
		xf_heard();
		if (ddp_session_nstreams(s) < xf.nstreams) {
			xf_fail("the association has %u streams, %u needed", ddp_session_nstreams(s),
				xf.nstreams);
			return;
		}
		for (unsigned i = 0; i < xf.nstreams && !xf.failed; i++) {
			uint8_t pd[XF_HELLO_LEN];
			int rc = xf_send_prepare(i, s, i, a);
			if (rc) {
				xf_fail("stream %u: posting buffers: %s", i, ddp_strerror(rc));
				return;
			}
			xf_send_hello(i, pd);
			rc = ddp_sctp_initiate(a, i, pd, sizeof(pd));
			if (rc) {
				xf_fail("stream %u: initiate: %s", i, ddp_strerror(rc));
				return;
			}
		}
		return;
	}
	if (a != assoc)
		return;
	/* the association and its session are freed after this returns */
	for (unsigned i = 0; i < XF_MAX_STREAMS; i++)
		if (xf.str[i].s == s)
			xf.str[i].s = NULL;
	assoc = NULL;
	ended = 1;
	if (!xf.succeeded && !xf.failed) {
		const char *peer = xf.o.sender ? "receiver" : "sender";
		if (!up)
			xf_fail("SCTP association to %s:%d (UDP) failed: %s (is a receiver "
				"listening?)", xf.o.host, xf.o.port, ddp_strerror(status));
		else
			xf_fail("SCTP association with the %s lost: %s", peer, ddp_strerror(status));
	}
	xf_net_closed();
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		   const void *pd, size_t pd_len, void *user)
{
	if (ev == DDP_SCTP_INITIATE) {
		unsigned idx;
		const char *why = "";
		if (xf.failed || xf.succeeded)
			why = "transfer over";
		else if (assoc && a != assoc)
			why = "busy with another association";
		if (*why || xf_recv_join(ddp_sctp_session(a), stream, a, pd, pd_len, &idx,
					 &why) != 0) {
			ddp_sctp_reject(a, stream, why, strlen(why));
			return;
		}
		if (!assoc) {
			assoc = a;
			up = 1;
		}
		xf_heard();
		int rc = ddp_sctp_accept(a, stream, NULL, 0);
		if (rc) {
			xf_fail("stream %u: accept: %s", idx, ddp_strerror(rc));
			return;
		}
		xf_recv_start(idx);
		return;
	}
	if (a != assoc)
		return;
	xf_heard();
	switch (ev) {
	case DDP_SCTP_INITIATE:
		return;
	case DDP_SCTP_ACCEPTED:
		xf_send_open(stream);
		return;
	case DDP_SCTP_REJECTED: {
		char why[128];
		size_t n = pd_len < sizeof(why) - 1 ? pd_len : sizeof(why) - 1;
		memcpy(why, pd, n);
		why[n] = 0;
		xf_fail("stream %u: the receiver refused the stream: %s%s%s", stream,
			ddp_strerror(status), n ? ": " : "", why);
		return;
	}
	case DDP_SCTP_CANCELLED:
		if (!xf.succeeded)
			xf_fail("stream %u: the sender cancelled the stream", stream);
		return;
	}
}

/* usrsctp wants an address literal: resolve names first. */
static int literal(const char *host, char *out, size_t n)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_DGRAM }, *ai;
	int rc = getaddrinfo(host, NULL, &hints, &ai);
	if (rc) {
		xf_fail("%s: %s", host, gai_strerror(rc));
		return -1;
	}
	const void *a = ai->ai_family == AF_INET
				? (const void *)&((struct sockaddr_in *)ai->ai_addr)->sin_addr
				: (const void *)&((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr;
	int ok = inet_ntop(ai->ai_family, a, out, (socklen_t)n) != NULL;
	freeaddrinfo(ai);
	if (!ok) {
		xf_fail("%s: cannot use this address", host);
		return -1;
	}
	return 0;
}

/* --timeout onto SCTP's failure detection (RFC 4960 §8.1-§8.3): the
 * association must outlive any stall shorter than --timeout, so that the
 * program's own check (main.c) is what reports a longer one, as "timeout:
 * nothing heard from the ... for N s". RTO max is a third of the timeout
 * (1..10 s), heartbeats come every RTO max (at least 5 s); the count of
 * consecutive unanswered retransmissions is what a silent peer takes,
 * RTOs doubling from 100 ms, to last timeout + 5 s, doubled because
 * unanswered heartbeats count as well. Measured (ddp-xfer, receiver
 * SIGSTOPped, tests/programs/test_xfer_stall.sh): see docs/timeouts.md. */
void xf_sctp_liveness(unsigned timeout_s, ddp_sctp_config *cfg)
{
	uint64_t target = (uint64_t)timeout_s * 1000 + 5000, t = 0, rto = 100;
	uint32_t rmax = timeout_s * 1000 / 3, n = 0;
	if (rmax < 1000)
		rmax = 1000;
	if (rmax > 10000)
		rmax = 10000;
	while (t < target) {
		t += rto;
		rto = rto * 2 < rmax ? rto * 2 : rmax;
		n++;
	}
	n *= 2;
	cfg->rto_min_ms = 100;
	cfg->rto_initial_ms = 200;
	cfg->rto_max_ms = rmax;
	/* heartbeats every 5 s whatever the timeout: they only probe (a dead
	 * peer's ICMP port unreachable ends the association within seconds,
	 * test_fault_kill); the retransmission count above was computed from
	 * the RTOs alone, so the time to give up only grows by them */
	cfg->hb_interval_ms = 5000;
	cfg->assoc_max_retrans = (uint16_t)(n < 65535 ? n : 65535);
	cfg->path_max_retrans = cfg->assoc_max_retrans;
}

static int start(void)
{
	if (literal(xf.o.host, peer_addr, sizeof(peer_addr)))
		return -1;
	ddp_sctp_config cfg = { .ctx = xf.ctx, .nstreams = XF_MAX_STREAMS };
	cfg.session.max_tx_queued = 256;
	/* ddp-xfer's own credits bound what is in flight (the receiver's
	 * advertised buffers: depth x chunk per stream); the send queue's
	 * octet limit must not stop a window of large chunks */
	cfg.session.max_tx_octets = UINT64_C(1) << 40;
	cfg.path_mtu = xf.o.mtu;
	cfg.sctp.assoc = on_assoc;
	cfg.sctp.session_ctl = on_ctl;
	xf_sctp_liveness(xf.o.timeout, &cfg);
	int rc;
	if (!xf.o.sender) {
		cfg.addr = peer_addr;
		cfg.port = xf.o.port;
		cfg.ddp = xf_recv_callbacks;
		if ((rc = ddp_sctp_ep_new(xf.base, &cfg, &ep)) || (rc = ddp_sctp_listen(ep))) {
			xf_fail("SCTP listen on %s:%d (UDP): %s", xf.o.host, xf.o.port,
				ddp_strerror(rc));
			return -1;
		}
		fprintf(stderr, "recv: listening on %s:%d (SCTP over UDP)\n", xf.o.host,
			ddp_sctp_ep_port(ep));
		return 0;
	}
	/* local end: loopback for a loopback peer, else any address */
	int loop = !strncmp(peer_addr, "127.", 4) || !strcmp(peer_addr, "::1");
	cfg.addr = loop ? NULL : strchr(peer_addr, ':') ? "::" : "0.0.0.0";
	cfg.port = -1;
	cfg.nstreams = (uint16_t)xf.nstreams;
	cfg.ddp = xf_send_callbacks;
	if ((rc = ddp_sctp_ep_new(xf.base, &cfg, &ep)) ||
	    (rc = ddp_sctp_connect(ep, peer_addr, xf.o.port, &assoc))) {
		xf_fail("SCTP connect to %s:%d (UDP): %s", xf.o.host, xf.o.port, ddp_strerror(rc));
		return -1;
	}
	return 0;
}

static void finish(void)
{
	/* the sender ends the association once it has every RESULT; the
	 * receiver waits for that SHUTDOWN (its RESULTs must arrive first),
	 * unless it stops the transfer itself (its ABORTs leave first) */
	if ((xf.o.sender || xf.lingering) && assoc)
		ddp_sctp_close(assoc, 0);
}

static int all_closed(void)
{
	return ended || !assoc;
}

static void net_free(void)
{
	for (unsigned i = 0; i < XF_MAX_STREAMS; i++)
		xf.str[i].s = NULL;
	ddp_sctp_ep_free(ep); /* aborts what is left, no callbacks */
	ep = NULL;
	assoc = NULL;
}

const struct xf_net xf_net_sctp = { start, finish, all_closed, net_free };
