/* ddp-perf driver "mpa": DDP over MPA/TCP (CRC on, no markers, revision 2),
 * one TCP connection per benchmark stream. Loopback: both ends on this
 * event loop. Client: this end sends to a `ddp-perf --server`. Server:
 * receives (or echoes, for rtt) every client run until SIGINT/SIGTERM. The
 * client's MPA private data carries the run's parameters. */
#include <arpa/inet.h>
#include <ddp/mpa.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drv_ddp.h"

struct mrun {
	struct drun d; /* first: the DDP callbacks' user is the mrun */
	struct bench_params p;	/* server: the current client run */
	const struct bench_params *srv_p; /* server: its own options */
	struct bench_result r;	/* server */
	ddp_ctx *ctx;		/* server: lives across runs */
	ddp_pd *pd;
	ddp_mpa_listener *l;
	ddp_mpa_conn **cli, **srv;
	int nsrv, up, want_up, active;
	uint32_t run;
};

static ddp_mpa_config base_config(ddp_pd *pd, const struct bench_params *p)
{
	ddp_mpa_config cfg = { .revision = 2, .tcp_congestion = p->tcp_cc };
	cfg.session.pd = pd;
	cfg.session.max_tx_queued = 4 * DEPTH_MAX;
	cfg.session.max_posted = WINDOW_MSGS_MAX; /* the untagged window grows */
	cfg.no_crc = p->no_crc; /* RFC 5044 §7.1: CRCs unless both ends say C=0 */
	cfg.ird = cfg.ord = RDMA_DEPTH; /* the RDMA modes' Read depth */
	return cfg;
}

/* RDMA modes: a queue pair on the connection that became fully
 * operational (ours: the requester's; an accepted one: the responder's). */
static int qp_on_connected(struct drun *d, ddp_mpa_conn *c, struct bstream *b, int requester)
{
	ddp_mpa_info info;
	if (!d->dev || !b || ddp_mpa_get_info(c, &info) != 0)
		return 0;
	return rdma_qp_start(d, b, ddp_mpa_session(c), 0, info.ird, info.ord, requester);
}

static struct bstream *rx_of(struct drun *d, ddp_mpa_conn *c)
{
	for (int i = 0; d->bs && i < d->n; i++)
		if (d->bs[i].rx_s && d->bs[i].rx_s == ddp_mpa_session(c))
			return &d->bs[i];
	return NULL;
}

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct mrun *m = user;
	if (ev == DDP_MPA_CONNECTED) {
		int mine = 0;
		for (int i = 0; i < m->d.n; i++)
			if (m->cli[i] == c) {
				mine = 1;
				if (qp_on_connected(&m->d, c, &m->d.bs[i], 1))
					goto failed;
			}
		if (!mine && qp_on_connected(&m->d, c, rx_of(&m->d, c), 0))
			goto failed;
		/* our own connections learn the receiver's STag from the Reply */
		for (int i = 0; i < m->d.n; i++) {
			ddp_mpa_info info;
			if (m->cli[i] != c || ddp_mpa_get_info(c, &info) != 0)
				continue;
			m->d.bs[i].stag = stag_get(info.private_data, info.private_data_len);
			if (info.crc && m->d.p->no_crc) { /* a server without --no-crc */
				bench_fail(m->d.r, "--no-crc: the peer asked for CRCs "
						   "(run the server with --no-crc too)");
				event_base_loopbreak(m->d.base);
				return;
			}
		}
		if (++m->up == m->want_up && !m->d.started)
			drun_measure(&m->d);
		return;
failed:
		event_base_loopbreak(m->d.base);
		return;
	}
	if (!m->d.stop)
		bench_fail(m->d.r, "MPA connection %s: %s (MPA code %u)",
			   ev == DDP_MPA_CLOSED ? "closed" : "failed", ddp_strerror(err), code);
	event_base_loopbreak(m->d.base);
}

static void on_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct mrun *m = user;
	struct wire_params w;
	if (wire_params_get(req->private_data, req->private_data_len, &w) || w.index >= m->d.n ||
	    m->nsrv >= m->d.n) {
		ddp_mpa_reject(c, NULL, 0);
		return;
	}
	m->srv[m->nsrv++] = c;
	struct bstream *b = &m->d.bs[w.index];
	b->rx_s = ddp_mpa_session(c);
	if (drun_rx_ready(&m->d, b))
		bench_fail(m->d.r, "posting receive buffers failed");
	uint8_t pd[4];
	stag_put(pd, b->stag);
	ddp_mpa_accept(c, pd, sizeof(pd));
}

static int run_mpa_local(struct event_base *base, const struct bench_params *p,
			 struct bench_result *r)
{
	struct mrun m = { 0 };
	int client = p->role == 2;
	int n = bench_mode_rtt(p->mode) ? 1 : p->streams;
	if (drun_init(&m.d, base, p, r, n, NULL, NULL)) {
		bench_fail(r, "out of memory");
		drun_free(&m.d);
		return -1;
	}
	m.d.count_tx = client;
	m.want_up = client ? n : 2 * n;
	m.cli = calloc((size_t)n, sizeof(*m.cli));
	m.srv = calloc((size_t)n, sizeof(*m.srv));
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	ddp_mpa_config cfg = base_config(m.d.pd, p);
	int rc;
	if (client) {
		memcpy(&sa, &p->addr, sizeof(sa));
	} else {
		rc = ddp_mpa_listen(base, m.d.ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg,
				    &drun_callbacks, on_accept, on_event, &m, &m.l);
		if (rc) {
			bench_fail(r, "MPA listen: %s", ddp_strerror(rc));
			goto out;
		}
		sa.sin_port = htons((uint16_t)ddp_mpa_listener_port(m.l));
	}
	uint32_t run = wire_run_id();
	for (int i = 0; i < n; i++) {
		uint8_t pd[WIRE_PARAMS_LEN];
		struct wire_params w = { (uint16_t)i, (uint16_t)n, (uint8_t)p->mode, (uint32_t)p->size,
					 run };
		wire_params_put(pd, &w);
		ddp_mpa_config cc = cfg;
		cc.private_data = pd;
		cc.private_data_len = sizeof(pd);
		rc = ddp_mpa_connect(base, m.d.ctx, (struct sockaddr *)&sa, sizeof(sa), &cc,
				     &drun_callbacks, on_event, &m, &m.cli[i]);
		if (rc) {
			bench_fail(r, "MPA connect: %s", ddp_strerror(rc));
			goto out;
		}
		/* the session exists at once; sends wait for full operation */
		m.d.bs[i].tx_s = ddp_mpa_session(m.cli[i]);
		if (drun_tx_ready(&m.d, &m.d.bs[i])) {
			bench_fail(r, "posting credit buffers failed");
			goto out;
		}
	}
	drun_loop(&m.d);
out:
	m.d.stop = 1;
	rdma_qp_drop(&m.d, NULL); /* before the sessions go */
	for (int i = 0; i < n; i++) {
		if (m.cli[i]) {
			drun_count_copies(&m.d, ddp_mpa_session(m.cli[i]));
			ddp_mpa_conn_free(m.cli[i]);
		}
	}
	for (int i = 0; i < m.nsrv; i++) {
		drun_count_copies(&m.d, ddp_mpa_session(m.srv[i]));
		ddp_mpa_conn_free(m.srv[i]);
	}
	ddp_mpa_listener_free(m.l);
	free(m.cli);
	free(m.srv);
	drun_free(&m.d);
	return r->failed ? -1 : 0;
}

/* ------------------------------------------------------------ server */

static void end_run(struct mrun *m)
{
	for (int i = 0; i < m->nsrv; i++)
		if (m->srv[i])
			drun_count_copies(&m->d, ddp_mpa_session(m->srv[i]));
	drun_server_report(&m->d, "mpa");
	bench_server_done(m->srv_p, m->r.copied);
	rdma_qp_drop(&m->d, NULL);
	for (int i = 0; i < m->nsrv; i++)
		if (m->srv[i])
			ddp_mpa_conn_free(m->srv[i]);
	free(m->srv);
	m->srv = NULL;
	m->nsrv = 0;
	drun_free(&m->d);
	m->active = 0;
}

static void srv_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct mrun *m = user;
	if (ev == DDP_MPA_CONNECTED) {
		if (m->active && qp_on_connected(&m->d, c, rx_of(&m->d, c), 0))
			fprintf(stderr, "ddp-perf: %s\n", m->r.why);
		return;
	}
	for (int i = 0; i < m->nsrv; i++)
		if (m->srv[i] == c) {
			drun_count_copies(&m->d, ddp_mpa_session(c));
			rdma_qp_drop(&m->d, ddp_mpa_session(c));
			m->srv[i] = NULL;
			ddp_mpa_conn_free(c);
			m->d.closed++;
		}
	if (m->active && m->d.closed == m->d.n)
		end_run(m);
}

static void srv_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct mrun *m = user;
	struct wire_params w;
	if (wire_params_get(req->private_data, req->private_data_len, &w)) {
		ddp_mpa_reject(c, "bad parameters", 14);
		return;
	}
	if (m->active && w.run != m->run)
		end_run(m); /* a new client run: the old one's conns are late */
	if (!m->active) { /* first connection of a client run */
		m->run = w.run;
		m->p = (struct bench_params){ .llp = "mpa", .mode = w.mode, .size = w.size,
					      .streams = w.n };
		memset(&m->r, 0, sizeof(m->r));
		if (drun_init(&m->d, m->d.base, &m->p, &m->r, w.n, m->ctx, m->pd) ||
		    !(m->srv = calloc(w.n, sizeof(*m->srv)))) {
			ddp_mpa_reject(c, "no memory", 9);
			drun_free(&m->d);
			return;
		}
		m->active = 1;
		m->d.serving = 1;
		m->d.t0 = now_s();
	}
	if (w.n != m->d.n || w.mode != m->p.mode || w.size != m->p.size || m->nsrv >= m->d.n ||
	    m->d.bs[w.index].rx_s) {
		ddp_mpa_reject(c, "busy", 4);
		return;
	}
	m->srv[m->nsrv++] = c;
	struct bstream *b = &m->d.bs[w.index];
	b->rx_s = ddp_mpa_session(c);
	if (drun_rx_ready(&m->d, b))
		fprintf(stderr, "ddp-perf: posting buffers failed\n");
	uint8_t pd[4];
	stag_put(pd, b->stag);
	ddp_mpa_accept(c, pd, sizeof(pd));
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopbreak(arg);
}

static int serve_mpa(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	struct mrun m = { 0 };
	m.d.base = base;
	m.srv_p = p;
	if (ddp_ctx_new(NULL, &m.ctx) || ddp_pd_new(m.ctx, &m.pd))
		return -1;
	ddp_mpa_config cfg = base_config(m.pd, p);
	int rc = ddp_mpa_listen(base, m.ctx, (const struct sockaddr *)&p->addr, p->addrlen, &cfg,
				&drun_callbacks, srv_accept, srv_event, &m, &m.l);
	if (rc) {
		bench_fail(r, "MPA listen: %s", ddp_strerror(rc));
		return -1;
	}
	char line[64];
	snprintf(line, sizeof(line), "MPA server on port %d", ddp_mpa_listener_port(m.l));
	bench_serving(p, line, ddp_mpa_listener_port(m.l));
	struct event *si = evsignal_new(base, SIGINT, on_signal, base);
	struct event *st = evsignal_new(base, SIGTERM, on_signal, base);
	event_add(si, NULL);
	event_add(st, NULL);
	event_base_dispatch(base);
	event_free(si);
	event_free(st);
	if (m.active)
		end_run(&m);
	ddp_mpa_listener_free(m.l);
	ddp_pd_free(m.pd);
	ddp_ctx_free(m.ctx);
	return 0;
}

static int run_mpa(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	return p->role == 1 ? serve_mpa(base, p, r) : run_mpa_local(base, p, r);
}

const struct bench_driver drv_mpa = { "mpa", run_mpa };
