/* ddp-perf driver "sctp": DDP over SCTP (usrsctp over UDP), one association
 * with one DDP stream session per benchmark stream. Loopback: both
 * endpoints on this event loop. Client: connects to a `ddp-perf --server
 * --llp sctp`. Server: receives every client run until SIGINT/SIGTERM. The
 * Initiate private data carries the run's parameters. */
#include <arpa/inet.h>
#include <ddp/sctp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv_ddp.h"
#include "path_trace.h"
#include "ddp_test.h"

struct srun {
	struct drun d; /* first: the DDP callbacks' user is the srun */
	struct bench_params p;	/* server: the current client run */
	const struct bench_params *srv_p; /* server: its own options */
	struct bench_result r;
	ddp_ctx *ctx;		/* server: lives across runs */
	ddp_pd *pd;
	ddp_sctp_ep *cep, *sep;
	ddp_sctp_assoc *ca;
	ddp_session *cs, *ss;
	int accepted, active, server;
	uint32_t run;
};

static void end_run(struct srun *m)
{
	rdma_qp_drop(&m->d, NULL); /* before the session goes */
	drun_count_copies(&m->d, m->ss);
	drun_server_report(&m->d, "sctp");
	bench_server_done(m->srv_p, m->r.copied);
	drun_free(&m->d);
	m->active = 0;
}

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct srun *m = user;
	if (status) {
		if (m->server) {
			if (s == m->ss) { /* not an older client's late abort */
				if (m->active)
					end_run(m);
				m->ss = NULL;
			}
			return;
		}
		if (!m->d.stop)
			bench_fail(m->d.r, "SCTP association down: %s", ddp_strerror(status));
		rdma_qp_drop(&m->d, s);
		if (a == m->ca)
			m->ca = NULL;
		if (s == m->cs)
			m->cs = NULL;
		if (s == m->ss)
			m->ss = NULL;
		event_base_loopbreak(m->d.base);
		return;
	}
	if (a != m->ca) { /* the server side */
		m->ss = s;
		return;
	}
	m->cs = s;
	uint32_t run = wire_run_id();
	for (int i = 0; i < m->d.n; i++) {
		uint8_t pd[WIRE_PARAMS_LEN];
		const struct bench_params *p = m->d.p;
		struct wire_params w = { (uint16_t)i, (uint16_t)m->d.n, (uint8_t)p->mode,
					 (uint32_t)p->size, run };
		wire_params_put(pd, &w);
		ddp_sctp_ird_ord io = { .ird = RDMA_DEPTH, .ord = RDMA_DEPTH };
		int rc = m->d.dev ? ddp_sctp_initiate_enhanced(a, (uint32_t)i, &io, pd, sizeof(pd))
				  : ddp_sctp_initiate(a, (uint32_t)i, pd, sizeof(pd));
		if (rc)
			bench_fail(m->d.r, "initiate: %s", ddp_strerror(rc));
	}
}

/* Server: a client's Initiate starts (or joins) a run. */
static int server_initiate(struct srun *m, ddp_sctp_assoc *a, uint32_t stream, const void *pd,
			   size_t len)
{
	struct wire_params w;
	if (wire_params_get(pd, len, &w) || w.index != stream) {
		fprintf(stderr, "ddp-perf: refusing stream %u: bad parameters\n", stream);
		return -1;
	}
	if (m->active && w.run != m->run)
		end_run(m); /* a new client run: the previous one's abort is late */
	if (!m->active) {
		m->run = w.run;
		m->p = (struct bench_params){ .llp = "sctp", .mode = w.mode, .size = w.size,
					      .streams = w.n };
		memset(&m->r, 0, sizeof(m->r));
		if (drun_init(&m->d, m->d.base, &m->p, &m->r, w.n, m->ctx, m->pd)) {
			drun_free(&m->d);
			return -1;
		}
		m->active = 1;
		m->d.serving = 1;
		m->ss = ddp_sctp_session(a);
		m->d.t0 = now_s();
	}
	if (w.n != m->d.n || w.mode != m->p.mode || w.size != m->p.size ||
	    ddp_sctp_session(a) != m->ss || m->d.bs[w.index].rx_s) {
		fprintf(stderr, "ddp-perf: refusing stream %u: a different run is active\n", stream);
		return -1;
	}
	return 0;
}

static uint32_t min_depth(uint32_t peer_ird)
{
	return peer_ird < RDMA_DEPTH ? peer_ird : RDMA_DEPTH;
}

/* Accept a stream: RDMA modes with an Enhanced Accept and the responder's
 * queue pair made first (the requester may post at once). */
static int accept_stream(struct srun *m, ddp_sctp_assoc *a, uint32_t stream, const uint8_t spd[4])
{
	if (!m->d.dev)
		return ddp_sctp_accept(a, stream, spd, 4);
	ddp_sctp_ird_ord peer, io = { .ird = RDMA_DEPTH };
	if (ddp_sctp_peer_ird_ord(a, stream, &peer))
		return -1;
	io.ord = (uint16_t)min_depth(peer.ird);
	if (rdma_qp_start(&m->d, &m->d.bs[stream], ddp_sctp_session(a), stream, io.ird, io.ord, 0))
		return -1;
	return ddp_sctp_accept_enhanced(a, stream, &io, spd, 4);
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		   const void *pd, size_t len, void *user)
{
	struct srun *m = user;
	if (ev == DDP_SCTP_INITIATE) {
		if (m->server && server_initiate(m, a, stream, pd, len)) {
			ddp_sctp_reject(a, stream, "busy", 4);
			return;
		}
		if ((int)stream >= m->d.n) {
			ddp_sctp_reject(a, stream, NULL, 0);
			return;
		}
		struct bstream *b = &m->d.bs[stream];
		b->rx_s = ddp_sctp_session(a);
		b->rx_st = stream;
		uint8_t spd[4];
		if (drun_rx_ready(&m->d, b) || (stag_put(spd, b->stag), accept_stream(m, a, stream, spd)))
			bench_fail(m->d.r, "accept on stream %u failed", stream);
		return;
	}
	if (m->server)
		return;
	if (ev != DDP_SCTP_ACCEPTED || (int)stream >= m->d.n) {
		bench_fail(m->d.r, "stream %u refused: %s", stream, ddp_strerror(status));
		event_base_loopbreak(m->d.base);
		return;
	}
	struct bstream *b = &m->d.bs[stream];
	b->tx_s = m->cs;
	b->tx_st = stream;
	b->stag = stag_get(pd, len);
	ddp_sctp_ird_ord peer;
	if (m->d.dev) {
		if (ddp_sctp_peer_ird_ord(a, stream, &peer) ||
		    rdma_qp_start(&m->d, b, m->cs, stream, RDMA_DEPTH, min_depth(peer.ird), 1)) {
			bench_fail(m->d.r, "no RDMAP queue pair on stream %u", stream);
			event_base_loopbreak(m->d.base);
			return;
		}
	} else if (drun_tx_ready(&m->d, b)) {
		bench_fail(m->d.r, "posting credit buffers failed");
	}
	if (++m->accepted == m->d.n)
		drun_measure(&m->d);
}

static ddp_sctp_config base_config(struct srun *m, ddp_ctx *ctx, ddp_pd *pd, int n)
{
	ddp_sctp_config cfg = { .port = -1, .nstreams = (uint16_t)(n < 16 ? 16 : n), .ctx = ctx,
				.ddp = drun_callbacks, .user = m };
	cfg.session.pd = pd;
	cfg.session.max_tx_queued = 4 * DEPTH_MAX;
	cfg.session.max_posted = WINDOW_MSGS_MAX; /* the untagged window grows */
	cfg.sctp.assoc = on_assoc;
	cfg.sctp.session_ctl = on_ctl;
	return cfg;
}

/* --sctp-cc / --sctp-buf (the usrsctp rows take the same) */
static void tune(ddp_sctp_config *cfg, const struct bench_params *p)
{
	cfg->cc = (enum ddp_sctp_cc)p->sctp_cc;
	cfg->sndbuf = cfg->rcvbuf = p->sctp_buf;
}

static sctp_ll_assoc *client_ll(void *arg)
{
	struct srun *m = arg;
	return m->ca ? sctp_ddp_assoc_ll(m->ca) : NULL;
}

static void client_ulp(void *arg, char *buf, size_t len)
{
	struct srun *m = arg;
	const struct bstream *b = &m->d.bs[0];
	uint32_t qm = 0;
	uint64_t q = b->tx_s ? ddp_stream_queued(b->tx_s, b->tx_st, &qm) : 0;
	snprintf(buf, len, "stream0: credits=%u inflight=%u queued=%llu/%u sent=%llu", b->credits,
		 b->inflight, (unsigned long long)q, qm, (unsigned long long)b->sent);
}

static int run_sctp_local(struct event_base *base, const struct bench_params *p,
			  struct bench_result *r)
{
	struct path_trace tr;
	struct srun m = { 0 };
	int client = p->role == 2;
	int n = bench_mode_rtt(p->mode) ? 1 : p->streams;
	if (drun_init(&m.d, base, p, r, n, NULL, NULL)) {
		bench_fail(r, "out of memory");
		drun_free(&m.d);
		return -1;
	}
	m.d.count_tx = client;
	ddp_sctp_config cfg = base_config(&m, m.d.ctx, m.d.pd, n);
	cfg.path_mtu = p->mtu;
	tune(&cfg, p);
	int rc = 0;
	char host[INET_ADDRSTRLEN] = "127.0.0.1";
	int port = 0;
	if (client) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&p->addr;
		inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
		port = ntohs(sin->sin_port);
		cfg.addr = "0.0.0.0";
	} else {
		if ((rc = ddp_sctp_ep_new(base, &cfg, &m.sep)) || (rc = ddp_sctp_listen(m.sep)))
			goto fail;
		port = ddp_sctp_ep_port(m.sep);
	}
	if ((rc = ddp_sctp_ep_new(base, &cfg, &m.cep)) ||
	    (rc = ddp_sctp_connect(m.cep, host, port, &m.ca)))
		goto fail;
	path_trace_start(&tr, base, "sctp", client_ll, &m);
	tr.ulp = client_ulp;
	drun_loop(&m.d);
	path_trace_stop(&tr);
	goto out;
fail:
	bench_fail(r, "SCTP set-up: %s", ddp_strerror(rc));
out:
	m.d.stop = 1;
	rdma_qp_drop(&m.d, NULL); /* before the sessions go */
	drun_count_copies(&m.d, m.cs);
	drun_count_copies(&m.d, m.ss);
	ddp_sctp_ep_free(m.cep);
	ddp_sctp_ep_free(m.sep);
	drun_free(&m.d);
	return r->failed ? -1 : 0;
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopbreak(arg);
}

static int serve_sctp(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	struct srun m = { 0 };
	m.server = 1;
	m.srv_p = p;
	m.d.base = base;
	if (ddp_ctx_new(NULL, &m.ctx) || ddp_pd_new(m.ctx, &m.pd))
		return -1;
	char host[INET_ADDRSTRLEN];
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&p->addr;
	inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
	ddp_sctp_config cfg = base_config(&m, m.ctx, m.pd, 1024);
	cfg.path_mtu = p->mtu;
	tune(&cfg, p);
	cfg.addr = host;
	cfg.port = sin->sin_port ? ntohs(sin->sin_port) : -1; /* 0: any */
	int rc;
	if ((rc = ddp_sctp_ep_new(base, &cfg, &m.sep)) || (rc = ddp_sctp_listen(m.sep))) {
		bench_fail(r, "SCTP listen: %s", ddp_strerror(rc));
		return -1;
	}
	char line[96];
	int port = ddp_sctp_ep_port(m.sep);
	snprintf(line, sizeof(line), "SCTP server on %s:%d (UDP)", host, port);
	bench_serving(p, line, port);
	struct event *si = evsignal_new(base, SIGINT, on_signal, base);
	struct event *st = evsignal_new(base, SIGTERM, on_signal, base);
	event_add(si, NULL);
	event_add(st, NULL);
	event_base_dispatch(base);
	event_free(si);
	event_free(st);
	ddp_sctp_ep_free(m.sep);
	if (m.active)
		end_run(&m);
	ddp_pd_free(m.pd);
	ddp_ctx_free(m.ctx);
	return 0;
}

static int run_sctp(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	return p->role == 1 ? serve_sctp(base, p, r) : run_sctp_local(base, p, r);
}

const struct bench_driver drv_sctp = { "sctp", run_sctp };
