/*
 * ddp-rping — rdma-core's rping over libddp (RFC 5040 RDMAP on DDP), as a
 * drop-in peer for `rping -s` / `rping -c` (e.g. Linux siw).
 *
 *   ddp-rping -s [-a ADDR] [-p PORT] [-C N] [-S SIZE] [-v] [-V] [-d]
 *   ddp-rping -c  -a ADDR  [-p PORT] [-C N] [-S SIZE] [-v] [-V] [-d]
 *             [--llp mpa|sctp] [--mpa-crc] [--timeout S] [--wrong-rkey]
 *
 * MPA: revision 2 with the RFC 6581 IRD/ORD word (IRD = ORD = 1, as
 * rping asks); --mpa-crc asks for CRCs (C=1), without it C=0 (CRCs are
 * still used when the peer asks, RFC 5044 §7.1). SCTP: DDP stream 0 of an
 * association (UDP encapsulated), Enhanced Initiate/Accept with IRD/ORD.
 * Exit 0 only when every iteration completed (and, with -V, verified);
 * otherwise one line "ddp-rping: REASON" and exit 1. --wrong-rkey (for the
 * interop tests) names a wrong STag in the server's RDMA Write / the
 * client's advertised sink, so the peer's Terminate path runs.
 */
#include <arpa/inet.h>
#include <event2/event.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ddp/mpa.h>
#include <ddp/sctp.h>

#include "rping.h"

static struct {
	struct rping_opts o;
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_rdmap_dev *dev;
	struct rping *r;
	ddp_mpa_conn *conn;
	ddp_sctp_assoc *assoc;
	int rc;
	const char *why;
	int finished;
} g = { .rc = 1, .why = "did not finish" };

static void fin(int rc, const char *why)
{
	if (g.finished)
		return;
	g.finished = 1;
	g.rc = rc;
	g.why = why;
	/* an orderly end: the peer sees our FIN / SHUTDOWN */
	if (g.conn)
		ddp_session_close(ddp_mpa_session(g.conn), 0);
	else if (g.assoc)
		ddp_sctp_close(g.assoc, 0);
	if (!g.o.server || rc)
		event_base_loopexit(g.base, &(struct timeval){ 1, 0 });
	if (!rc && g.o.server)
		event_base_loopexit(g.base, &(struct timeval){ 0, 200000 });
}

/* ---------------------------------------------------------------- MPA */

static void mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	if (ev == DDP_MPA_CONNECTED) {
		ddp_mpa_info i;
		ddp_mpa_get_info(c, &i);
		if (g.o.debug)
			fprintf(stderr, "ddp-rping: MPA rev %u crc %d enhanced %d ird %u ord %u "
					"(peer %u/%u)\n", i.revision, i.crc, i.enhanced, i.ird,
				i.ord, i.peer_ird, i.peer_ord);
		if (g.r) { /* one connection at a time, like rping without -P */
			ddp_session_close(ddp_mpa_session(c), 1);
			return;
		}
		g.conn = c;
		g.r = rping_new(&g.o, g.dev, ddp_mpa_session(c), 0, i.ird, i.ord, fin);
		if (!g.r)
			fin(1, "cannot set up the queue pair");
		return;
	}
	if (c != g.conn) {
		ddp_mpa_conn_free(c);
		return;
	}
	if (ev == DDP_MPA_REJECTED)
		fin(1, "MPA connection rejected");
	else if (ev == DDP_MPA_FAILED && !g.r)
		fin(1, err ? ddp_strerror(err) : "MPA start-up failed");
	rping_llp_down(g.r, ev == DDP_MPA_CLOSED ? 0 : (err ? err : DDP_ERR_LLP));
	if (!g.finished)
		fin(1, "connection ended");
	event_base_loopexit(g.base, NULL);
}

static int run_mpa(const struct sockaddr_in *sa)
{
	ddp_callbacks cb;
	ddp_rdmap_dev_callbacks(&cb);
	ddp_mpa_config cfg = { .revision = 2, .no_crc = !g.o.mpa_crc, .ird = 1, .ord = 1 };
	if (g.o.server) {
		ddp_mpa_listener *l;
		if (ddp_mpa_listen(g.base, g.ctx, (const struct sockaddr *)sa, sizeof(*sa), &cfg, &cb,
				   NULL, mpa_event, g.dev, &l))
			return fin(1, "cannot listen"), 1;
		event_base_dispatch(g.base);
		ddp_mpa_listener_free(l);
	} else {
		if (ddp_mpa_connect(g.base, g.ctx, (const struct sockaddr *)sa, sizeof(*sa), &cfg,
				    &cb, mpa_event, g.dev, &g.conn))
			return fin(1, "cannot connect"), 1;
		event_base_dispatch(g.base);
	}
	rping_free(g.r);
	g.r = NULL;
	ddp_mpa_conn_free(g.conn);
	return 0;
}

/* ---------------------------------------------------------------- SCTP */

static void start_stream(ddp_sctp_assoc *a, uint32_t ird, uint32_t ord)
{
	g.assoc = a;
	g.r = rping_new(&g.o, g.dev, ddp_sctp_session(a), 0, ird, ord, fin);
	if (!g.r)
		fin(1, "cannot set up the queue pair");
}

static void sctp_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	if (status == 0) {
		if (!g.o.server) {
			ddp_sctp_ird_ord io = { .ird = 1, .ord = 1 };
			if (ddp_sctp_initiate_enhanced(a, 0, &io, NULL, 0))
				fin(1, "cannot initiate the DDP stream session");
		}
		return;
	}
	if (g.assoc == a) {
		rping_llp_down(g.r, status == DDP_ERR_CLOSED ? 0 : status);
		rping_free(g.r); /* before the association's session goes */
		g.r = NULL;
		g.assoc = NULL;
		if (!g.finished)
			fin(1, "association ended");
		event_base_loopexit(g.base, NULL);
	}
}

static void sctp_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		     const void *pd, size_t pd_len, void *user)
{
	ddp_sctp_ird_ord peer = { .ird = 0, .ord = 0 };
	int have = ddp_sctp_peer_ird_ord(a, stream, &peer) == 0;
	if (ev == DDP_SCTP_INITIATE) {
		if (g.r || stream != 0) {
			ddp_sctp_reject(a, stream, NULL, 0);
			return;
		}
		/* RFC 6581 §9.1: our ORD <= the peer's IRD */
		uint32_t ord = have ? (peer.ird < 1 ? peer.ird : 1) : 1;
		ddp_sctp_ird_ord io = { .ird = 1, .ord = (uint16_t)ord };
		start_stream(a, 1, ord);
		if (g.r && ddp_sctp_accept_enhanced(a, stream, &io, NULL, 0))
			fin(1, "cannot accept the DDP stream session");
	} else if (ev == DDP_SCTP_ACCEPTED) {
		uint32_t ord = have ? (peer.ird < 1 ? peer.ird : 1) : 1;
		start_stream(a, 1, ord);
	} else {
		fin(1, "DDP stream session refused");
	}
}

static int run_sctp(void)
{
	/* the client's UDP socket on every address: the server may be on
	 * another host (was loopback only) */
	ddp_sctp_config cfg = { .addr = g.o.server ? g.o.addr : "0.0.0.0",
				.port = g.o.server ? g.o.port : -1, .nstreams = 1, .ctx = g.ctx,
				.user = g.dev };
	ddp_rdmap_dev_callbacks(&cfg.ddp);
	cfg.sctp.assoc = sctp_assoc;
	cfg.sctp.session_ctl = sctp_ctl;
	ddp_sctp_ep *ep;
	if (ddp_sctp_ep_new(g.base, &cfg, &ep))
		return fin(1, "cannot open the SCTP endpoint"), 1;
	ddp_sctp_assoc *a;
	if (g.o.server ? ddp_sctp_listen(ep) : ddp_sctp_connect(ep, g.o.addr, g.o.port, &a)) {
		ddp_sctp_ep_free(ep);
		return fin(1, g.o.server ? "cannot listen" : "cannot connect"), 1;
	}
	event_base_dispatch(g.base);
	if (g.r) {
		rping_free(g.r);
		g.r = NULL;
	}
	ddp_sctp_ep_free(ep);
	return 0;
}

static void timeout_cb(evutil_socket_t fd, short what, void *arg)
{
	if (!g.finished)
		fin(1, "timed out");
	event_base_loopbreak(g.base);
}

static void usage(void)
{
	fprintf(stderr, "usage: ddp-rping -s|-c [-a ADDR] [-p PORT] [-C N] [-S SIZE] [-v] [-V] "
			"[-d] [--llp mpa|sctp] [--mpa-crc] [--timeout S]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	g.o.addr = NULL;
	g.o.port = 7174;
	g.o.size = 64;
	int tmo = 120;
	static const struct option lo[] = { { "llp", required_argument, 0, 'L' },
					    { "mpa-crc", no_argument, 0, 'M' },
					    { "timeout", required_argument, 0, 'T' },
					    { "wrong-rkey", no_argument, 0, 'W' },
					    { 0, 0, 0, 0 } };
	int c;
	while ((c = getopt_long(argc, argv, "sca:p:C:S:vVdq", lo, NULL)) != -1) {
		switch (c) {
		case 's': g.o.server = 1; break;
		case 'c': g.o.server = 0; break;
		case 'a': g.o.addr = optarg; break;
		case 'p': g.o.port = atoi(optarg); break;
		case 'C': g.o.count = atol(optarg); break;
		case 'S': g.o.size = (uint32_t)atol(optarg); break;
		case 'v': g.o.verbose = 1; break;
		case 'V': g.o.validate = 1; break;
		case 'd': g.o.debug = 1; break;
		case 'q': break;
		case 'L':
			if (!strcmp(optarg, "sctp"))
				g.o.sctp = 1;
			else if (strcmp(optarg, "mpa"))
				usage();
			break;
		case 'M': g.o.mpa_crc = 1; break;
		case 'T': tmo = atoi(optarg); break;
		case 'W': g.o.wrong_rkey = 1; break;
		default: usage();
		}
	}
	/* rping.c: -S between 23 and 65536 (RPING_MIN_BUFSIZE .. RPING_BUFSIZE) */
	if (g.o.size < 23 || g.o.size > 65536 || g.o.port <= 0 || g.o.port > 65535 ||
	    g.o.count < 0 || (!g.o.server && !g.o.addr))
		usage();
	if (!g.o.addr)
		g.o.addr = "0.0.0.0";
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)g.o.port) };
	if (inet_pton(AF_INET, g.o.addr, &sa.sin_addr) != 1) {
		fprintf(stderr, "ddp-rping: bad address %s\n", g.o.addr);
		return 2;
	}
	g.base = event_base_new();
	if (!g.base || ddp_ctx_new(NULL, &g.ctx) || ddp_rdmap_dev_new(g.ctx, NULL, NULL, &g.dev)) {
		fprintf(stderr, "ddp-rping: out of memory\n");
		return 1;
	}
	struct event *t = evtimer_new(g.base, timeout_cb, NULL);
	struct timeval tv = { tmo, 0 };
	evtimer_add(t, &tv);
	if (g.o.sctp)
		run_sctp();
	else
		run_mpa(&sa);
	event_free(t);
	ddp_rdmap_dev_free(g.dev);
	ddp_ctx_free(g.ctx);
	event_base_free(g.base);
	if (g.rc) {
		fprintf(stderr, "ddp-rping: %s\n", g.why ? g.why : "failed");
		return 1;
	}
	if (g.o.verbose || g.o.debug)
		fprintf(stderr, "ddp-rping: %s done\n", g.o.server ? "server" : "client");
	return 0;
}
