/* ddp-perf --latency over DDP: both ends of the rows LAT_SCTP (one
 * association, DDP stream i on SCTP stream i for channel i), LAT_MPA_K
 * (one MPA connection per channel) and LAT_MPA_1 (one MPA connection, all
 * channels on its one DDP stream, told apart by the header).
 *
 * Sender: a 1 ms timer sends what the pacing schedule owes each channel,
 * untagged on QN 0, as two iovecs: the 16-octet header (from a ring per
 * DDP stream, kept until send_done) and a body shared by every message.
 * Receiver: enough buffers posted per DDP stream that it never runs dry
 * (no credits: the offered load is fixed), each reposted at delivery. */
#include <arpa/inet.h>
#include <ddp/ddp.h>
#include <ddp/mpa.h>
#include <ddp/sctp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "latency.h"
#include "path_trace.h"
#include "ddp_test.h"

#define HDR_RING 4096	       /* headers in flight per DDP stream */
#define RX_MEM (256u << 20)    /* receive buffers of a row, at most */
#define RX_DEPTH_MIN 64
#define RX_DEPTH_MAX 8192
#define TICK_US 1000

/* A DDP stream the sender uses (tx) or the receiver posts on (rx). */
struct lstream {
	ddp_session *s;
	uint32_t st;
	uint8_t *hdrs; /* sender: HDR_RING headers */
	uint64_t head, tail;
	uint8_t *rbuf; /* receiver: depth buffers */
	int up;
};

struct lend {
	struct event_base *base;
	const struct lat_opts *o;
	enum lat_kind k;
	struct lat_shm *sh;
	int server;
	ddp_ctx *ctx;
	ddp_pd *pd;
	int n;		   /* DDP streams (targets) */
	struct lstream *ls;
	uint32_t depth;	   /* receiver: buffers per DDP stream */
	uint32_t *seq;	   /* sender: per channel */
	uint8_t *body;
	int up, done;
	ddp_sctp_ep *ep;
	ddp_sctp_assoc *a;
	ddp_session *s;
	ddp_mpa_listener *l;
	ddp_mpa_conn **conns;
	int nconn;
	struct lat_pace pace;
	struct event *tick;
	double t0, t_end;
	uint64_t blocked;
};

static int n_targets(enum lat_kind k, int streams)
{
	return k == LAT_MPA_1 ? 1 : streams;
}

static int lend_init(struct lend *e, struct event_base *base, enum lat_kind k,
		     const struct lat_opts *o, struct lat_shm *sh, int server)
{
	memset(e, 0, sizeof(*e));
	e->base = base;
	e->o = o;
	e->k = k;
	e->sh = sh;
	e->server = server;
	e->n = n_targets(k, o->streams);
	e->ls = calloc((size_t)e->n, sizeof(*e->ls));
	e->conns = calloc((size_t)e->n, sizeof(*e->conns));
	if (!e->ls || !e->conns || ddp_ctx_new(NULL, &e->ctx) || ddp_pd_new(e->ctx, &e->pd))
		return -1;
	/* two seconds of a DDP stream's share of the offered load, so a
	 * loss recovery never leaves it without a buffer */
	double per_s = o->rate / 8.0 / (double)o->size / e->n;
	double dep = 2 * per_s;
	double cap = (double)RX_MEM / ((double)e->n * (double)o->size);
	dep = dep < RX_DEPTH_MIN ? RX_DEPTH_MIN : dep > RX_DEPTH_MAX ? RX_DEPTH_MAX : dep;
	e->depth = (uint32_t)(dep > cap ? cap : dep);
	if (e->depth < 4)
		e->depth = 4;
	if (server)
		return 0;
	e->seq = calloc((size_t)o->streams, sizeof(*e->seq));
	e->body = calloc(1, o->size);
	if (!e->seq || !e->body)
		return -1;
	for (int i = 0; i < e->n; i++)
		if (!(e->ls[i].hdrs = malloc((size_t)HDR_RING * LAT_HDR)))
			return -1;
	return 0;
}

static void lend_free(struct lend *e)
{
	if (e->tick)
		event_free(e->tick);
	lat_pace_free(&e->pace);
	for (int i = 0; e->ls && i < e->n; i++) {
		free(e->ls[i].hdrs);
		free(e->ls[i].rbuf);
	}
	free(e->ls);
	free(e->conns);
	free(e->seq);
	free(e->body);
	if (e->pd)
		ddp_pd_free(e->pd);
	if (e->ctx)
		ddp_ctx_free(e->ctx);
}

/* Receiver: post the buffers of one DDP stream. */
static int rx_post(struct lend *e, struct lstream *t)
{
	if (!t->rbuf && !(t->rbuf = malloc((size_t)e->depth * e->o->size)))
		return -1;
	memset(t->rbuf, 0, (size_t)e->depth * e->o->size); /* faults before the run */
	for (uint32_t i = 0; i < e->depth; i++)
		if (ddp_post_recv(t->s, t->st, 0, t->rbuf + (size_t)i * e->o->size, e->o->size,
				  NULL))
			return -1;
	return 0;
}

/* ------------------------------------------------------ DDP callbacks */

static void on_deliver(ddp_session *s, const ddp_delivery *dl, void *user)
{
	struct lend *e = user;
	if (dl->status || dl->tagged || !e->server)
		return;
	lat_record(e->sh, dl->buf, dl->len, e->o);
	if (ddp_post_recv(s, dl->stream, 0, dl->buf, dl->buf_len, NULL))
		lat_fail(e->sh, "reposting a receive buffer failed");
}

static void on_send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	struct lend *e = user;
	struct lstream *t = ctx;
	if (t)
		t->tail++;
	if (status && !e->done)
		lat_fail(e->sh, "send completed with %s", ddp_strerror(status));
}

static void on_error(ddp_session *s, const ddp_error_info *ei, void *user)
{
	struct lend *e = user;
	if (!e->done)
		lat_fail(e->sh, "DDP error layer %u type 0x%x code 0x%02x on stream %u", ei->layer,
			 ei->etype, ei->code, ei->stream);
}

static const ddp_callbacks lat_cb = {
	.deliver = on_deliver,
	.send_done = on_send_done,
	.error = on_error,
};

/* ------------------------------------------------------------ sender */

/* One message of channel ch: 0, 1 when the stream cannot take it now. */
static int send_one(struct lend *e, int ch)
{
	struct lstream *t = &e->ls[ch % e->n];
	if (t->head - t->tail >= HDR_RING)
		return 1;
	uint8_t *h = t->hdrs + (size_t)(t->head % HDR_RING) * LAT_HDR;
	lat_stamp(h, (uint32_t)ch, e->seq[ch]);
	struct iovec v[2] = { { h, LAT_HDR }, { e->body, e->o->size - LAT_HDR } };
	int rc = ddp_send_untagged(t->s, t->st, 0, 0, v, e->o->size > LAT_HDR ? 2 : 1, t);
	if (rc == DDP_ERR_LIMIT)
		return 1;
	if (rc) {
		lat_fail(e->sh, "send: %s", ddp_strerror(rc));
		return 1;
	}
	t->head++;
	e->seq[ch]++;
	e->pace.done_n[ch]++;
	e->sh->sent++;
	return 0;
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct lend *e = arg;
	double now = now_s();
	if (e->sh->failed) {
		event_base_loopbreak(e->base);
		return;
	}
	if (now < e->t0 + e->o->duration) {
		for (int ch = 0; ch < e->o->streams; ch++)
			for (uint64_t owe = lat_pace_owed(&e->pace, ch, now); owe; owe--)
				if (send_one(e, ch)) {
					e->blocked++; /* sent later, when it can take it */
					break;
				}
		return;
	}
	if (!e->t_end)
		e->t_end = now;
	/* drain: every message sent delivered, or the bound passed */
	if (__atomic_load_n(&e->sh->delivered, __ATOMIC_RELAXED) >= e->sh->sent ||
	    now > e->t_end + e->o->drain)
		event_base_loopbreak(e->base);
}

static void start(struct lend *e)
{
	e->t0 = now_s();
	if (lat_pace_init(&e->pace, e->o, e->t0)) {
		lat_fail(e->sh, "out of memory");
		event_base_loopbreak(e->base);
		return;
	}
	e->tick = event_new(e->base, -1, EV_PERSIST, on_tick, e);
	struct timeval tv = { 0, TICK_US };
	event_add(e->tick, &tv);
}

static void target_up(struct lend *e)
{
	if (++e->up == e->n)
		start(e);
}

/* ------------------------------------------------------------- SCTP */

static void sctp_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct lend *e = user;
	if (status) {
		if (!e->server && !e->done)
			lat_fail(e->sh, "SCTP association down: %s", ddp_strerror(status));
		if (s == e->s) {
			e->s = NULL;
			e->a = NULL;
		}
		if (!e->server)
			event_base_loopbreak(e->base);
		return;
	}
	e->s = s;
	if (e->server) {
		e->a = a;
		return;
	}
	for (int i = 0; i < e->n; i++) {
		int rc = ddp_sctp_initiate(a, (uint32_t)i, "lat", 3);
		if (rc)
			lat_fail(e->sh, "initiate: %s", ddp_strerror(rc));
	}
}

static void sctp_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		     const void *pd, size_t len, void *user)
{
	struct lend *e = user;
	if ((int)stream >= e->n) {
		if (ev == DDP_SCTP_INITIATE)
			ddp_sctp_reject(a, stream, NULL, 0);
		return;
	}
	struct lstream *t = &e->ls[stream];
	t->s = ddp_sctp_session(a);
	t->st = stream;
	if (ev == DDP_SCTP_INITIATE) {
		if (rx_post(e, t) || ddp_sctp_accept(a, stream, NULL, 0))
			lat_fail(e->sh, "accepting stream %u failed", stream);
		return;
	}
	if (e->server)
		return;
	if (ev != DDP_SCTP_ACCEPTED) {
		lat_fail(e->sh, "stream %u refused: %s", stream, ddp_strerror(status));
		event_base_loopbreak(e->base);
		return;
	}
	target_up(e);
}

static int sctp_setup(struct lend *e, const char *host, int port)
{
	ddp_sctp_config cfg = { .port = -1, .nstreams = (uint16_t)(e->n < 16 ? 16 : e->n),
				.ctx = e->ctx, .ddp = lat_cb, .user = e, .path_mtu = e->o->mtu };
	cfg.session.pd = e->pd;
	cfg.session.max_posted = e->depth;
	cfg.session.max_tx_queued = HDR_RING;
	cfg.session.max_tx_octets = 64u << 20;
	cfg.cc = (enum ddp_sctp_cc)e->o->sctp_cc;
	cfg.sctp.assoc = sctp_assoc;
	cfg.sctp.session_ctl = sctp_ctl;
	cfg.addr = e->server ? host : "0.0.0.0";
	int rc = ddp_sctp_ep_new(e->base, &cfg, &e->ep);
	if (!rc)
		rc = e->server ? ddp_sctp_listen(e->ep) : ddp_sctp_connect(e->ep, host, port, &e->a);
	if (rc)
		lat_fail(e->sh, "SCTP set-up: %s", ddp_strerror(rc));
	return rc ? -1 : 0;
}

/* -------------------------------------------------------------- MPA */

static void mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct lend *e = user;
	if (ev == DDP_MPA_CONNECTED) {
		if (!e->server)
			target_up(e);
		return;
	}
	if (!e->server && !e->done) {
		lat_fail(e->sh, "MPA connection ended: %s (MPA code %u)", ddp_strerror(err), code);
		event_base_loopbreak(e->base);
	}
}

static void mpa_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct lend *e = user;
	if (e->nconn >= e->n) {
		ddp_mpa_reject(c, "busy", 4);
		return;
	}
	struct lstream *t = &e->ls[e->nconn];
	e->conns[e->nconn++] = c;
	t->s = ddp_mpa_session(c);
	if (rx_post(e, t))
		lat_fail(e->sh, "posting receive buffers failed");
	ddp_mpa_accept(c, NULL, 0);
}

static int mpa_setup(struct lend *e, const struct sockaddr_in *sa)
{
	ddp_mpa_config cfg = { .revision = 2, .tcp_congestion = e->o->tcp_cc };
	cfg.session.pd = e->pd;
	cfg.session.max_posted = e->depth;
	cfg.session.max_tx_queued = HDR_RING;
	cfg.session.max_tx_octets = 64u << 20;
	int rc = 0;
	if (e->server)
		return ddp_mpa_listen(e->base, e->ctx, (const struct sockaddr *)sa, sizeof(*sa), &cfg,
				      &lat_cb, mpa_accept, mpa_event, e, &e->l)
			       ? -1
			       : 0;
	for (int i = 0; i < e->n && !rc; i++) {
		rc = ddp_mpa_connect(e->base, e->ctx, (const struct sockaddr *)sa, sizeof(*sa), &cfg,
				     &lat_cb, mpa_event, e, &e->conns[i]);
		if (!rc) {
			e->nconn++;
			e->ls[i].s = ddp_mpa_session(e->conns[i]);
		}
	}
	if (rc)
		lat_fail(e->sh, "MPA connect: %s", ddp_strerror(rc));
	return rc ? -1 : 0;
}

static void teardown(struct lend *e)
{
	e->done = 1;
	if (e->ep)
		ddp_sctp_ep_free(e->ep);
	e->ep = NULL;
	for (int i = 0; i < e->nconn; i++)
		ddp_mpa_conn_free(e->conns[i]);
	e->nconn = 0;
	if (e->l)
		ddp_mpa_listener_free(e->l);
	e->l = NULL;
}

/* ---------------------------------------------------------- the ends */

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopbreak(arg);
}

/* DDP_PERF_TRACE=MS: the association's congestion window etc. over time */
static sctp_ll_assoc *assoc_ll(void *arg)
{
	struct lend *e = arg;
	return e->a ? sctp_ddp_assoc_ll(e->a) : NULL;
}

/* ... and the messages waiting in DDP's send queues of all streams */
static void ulp_state(void *arg, char *buf, size_t len)
{
	struct lend *e = arg;
	uint64_t q = 0, inflight = 0;
	for (int i = 0; i < e->n; i++) {
		uint32_t m = 0;
		q += e->ls[i].s ? ddp_stream_queued(e->ls[i].s, e->ls[i].st, &m) : 0;
		inflight += e->ls[i].head - e->ls[i].tail;
	}
	snprintf(buf, len, "ddp_queued=%llu not_done=%llu sent=%llu delivered=%llu",
		 (unsigned long long)q, (unsigned long long)inflight,
		 (unsigned long long)e->sh->sent,
		 (unsigned long long)__atomic_load_n(&e->sh->delivered, __ATOMIC_RELAXED));
}

int lat_serve(struct event_base *base, enum lat_kind k, const struct lat_opts *o,
	      const char *host, int announce_fd, struct lat_shm *sh)
{
	struct lend e;
	int rc = -1, port = 0;
	if (lend_init(&e, base, k, o, sh, 1)) {
		lat_fail(sh, "out of memory");
		goto out;
	}
	if (k == LAT_SCTP) {
		if (sctp_setup(&e, host, 0))
			goto out;
		port = ddp_sctp_ep_port(e.ep);
	} else {
		struct sockaddr_in sa = { .sin_family = AF_INET };
		inet_pton(AF_INET, host, &sa.sin_addr);
		if (mpa_setup(&e, &sa)) {
			lat_fail(sh, "MPA listen failed");
			goto out;
		}
		port = ddp_mpa_listener_port(e.l);
	}
	dprintf(announce_fd, "%d\n", port);
	close(announce_fd);
	announce_fd = -1;
	struct event *si = evsignal_new(base, SIGTERM, on_signal, base);
	struct path_trace tr;
	event_add(si, NULL);
	if (k == LAT_SCTP) { /* the receiver's side: chunks usrsctp holds */
		path_trace_start(&tr, base, "sctp-rx", assoc_ll, &e);
		tr.ulp = ulp_state;
	}
	event_base_dispatch(base);
	if (k == LAT_SCTP)
		path_trace_stop(&tr);
	event_free(si);
	rc = 0;
out:
	if (announce_fd >= 0)
		close(announce_fd);
	teardown(&e);
	lend_free(&e);
	return rc;
}

static void on_setup_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct lend *e = arg;
	if (!e->t0) {
		lat_fail(e->sh, "set-up did not finish in 10 s");
		event_base_loopbreak(e->base);
	}
}

int lat_client(struct event_base *base, enum lat_kind k, const struct lat_opts *o,
	       const struct sockaddr_in *addr, struct lat_shm *sh, double *sent_secs)
{
	struct lend e;
	*sent_secs = 0;
	if (lend_init(&e, base, k, o, sh, 0)) {
		lat_fail(sh, "out of memory");
		lend_free(&e);
		return -1;
	}
	char host[INET_ADDRSTRLEN];
	inet_ntop(AF_INET, &addr->sin_addr, host, sizeof(host));
	int rc = k == LAT_SCTP ? sctp_setup(&e, host, ntohs(addr->sin_port)) : mpa_setup(&e, addr);
	if (!rc) {
		struct event *to = evtimer_new(base, on_setup_timeout, &e);
		struct timeval tv = { 10, 0 };
		struct path_trace tr;
		evtimer_add(to, &tv);
		if (k == LAT_SCTP) {
			path_trace_start(&tr, base, "sctp", assoc_ll, &e);
			tr.ulp = ulp_state;
		}
		event_base_dispatch(base);
		if (k == LAT_SCTP)
			path_trace_stop(&tr);
		event_free(to);
		if (e.t0)
			*sent_secs = (e.t_end ? e.t_end : now_s()) - e.t0;
		if (e.blocked)
			fprintf(stderr, "ddp-perf: --latency %s: the sender was held back %llu times "
					"(its DDP queue full)\n",
				k == LAT_SCTP ? "sctp" : "mpa", (unsigned long long)e.blocked);
		if (!e.t_end && !sh->failed)
			lat_fail(sh, "the run did not finish");
	}
	teardown(&e);
	lend_free(&e);
	return sh->failed ? -1 : 0;
}
