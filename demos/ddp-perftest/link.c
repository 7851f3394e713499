/* The LLP side of ddp-perftest: perftest's rdma_cm connections as MPA
 * connections (one per queue pair, all to the same port, as rdma_cm makes
 * them) or, over SCTP, as DDP stream sessions of one association (stream 0
 * the control queue pair, 1..q the test ones). The library's callbacks only
 * record completions and ends; the test flow polls them from a blocking
 * loop around event_base_loop(EVLOOP_ONCE), the shape of perftest's own
 * ibv_poll_cq loops. One network per process (the callbacks find it
 * through a static pointer). */
#include "perftest.h"

#include <arpa/inet.h>
#include <event2/event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ddp/mpa.h>
#include <ddp/sctp.h>

#define PT_MAX_QP 65

struct pt_net {
	const struct pt_opts *o;
	struct event_base *base;
	ddp_ctx *ctx;
	ddp_rdmap_dev *dev;
	ddp_pd *pd;
	struct event *deadline, *tick;
	int expired;
	ddp_mpa_listener *l;
	ddp_sctp_ep *ep;
	ddp_sctp_assoc *assoc;
	int assoc_up, assoc_gone;
	uint32_t next_stream;
	uint16_t srv_ird, srv_ord;
	struct pt_qp *all[PT_MAX_QP];
	int nall;
	struct pt_qp *pending[PT_MAX_QP];
	uint32_t stags[2 * PT_MAX_QP]; /* registered, invalidated at the end */
	int nstags;
	int npending;
};

static struct pt_net *net1;
static char reason[256];

int pt_fail(const char *fmt, ...)
{
	if (!reason[0]) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(reason, sizeof(reason), fmt, ap);
		va_end(ap);
	}
	return -1;
}

const char *pt_reason(void)
{
	return reason[0] ? reason : "failed";
}

uint64_t pt_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

ddp_ctx *pt_ctx(struct pt_net *n)
{
	return n->ctx;
}
ddp_pd *pt_pd(struct pt_net *n)
{
	return n->pd;
}

int pt_reg(struct pt_net *n, void *buf, size_t len, uint32_t *stag)
{
	ddp_mr_attr a = {.addr = buf,
	                 .len = len,
	                 .to_base = (uint64_t)(uintptr_t)buf,
	                 .access = DDP_ACCESS_REMOTE_READ | DDP_ACCESS_REMOTE_WRITE,
	                 .pd = n->pd};
	if (n->nstags == (int)(sizeof(n->stags) / sizeof(n->stags[0])))
		return pt_fail("too many regions");
	int rc = ddp_stag_register(n->ctx, &a, stag);
	if (rc)
		return pt_fail("cannot register %zu octets: %s", len, ddp_strerror(rc));
	n->stags[n->nstags++] = *stag;
	return 0;
}

/* ---------------------------------------------------------------- queue pairs */

static void set_down(struct pt_qp *q, const char *why)
{
	if (!q->why[0])
		snprintf(q->why, sizeof(q->why), "%s", why);
	q->down = 1;
}

static void on_complete(ddp_rdmap_qp *qp, const ddp_rdmap_wc *wc, void *user)
{
	struct pt_qp *q = user;
	if (q->cq_len == q->cq_cap) {
		size_t cap = q->cq_cap ? 2 * q->cq_cap : 256;
		struct pt_wc *n = malloc(cap * sizeof(*n));
		if (!n) {
			set_down(q, "out of memory for completions");
			return;
		}
		for (size_t i = 0; i < q->cq_len; i++)
			n[i] = q->cq[(q->cq_head + i) % q->cq_cap];
		free(q->cq);
		q->cq = n;
		q->cq_cap = cap;
		q->cq_head = 0;
	}
	struct pt_wc *w = &q->cq[(q->cq_head + q->cq_len++) % q->cq_cap];
	w->kind = wc->kind;
	w->status = wc->status;
	w->len = wc->len;
	w->ctx = wc->wr_ctx;
}

static void on_term(ddp_rdmap_qp *qp, const ddp_rdmap_term *t, int sent, void *user)
{
	struct pt_qp *q = user;
	char why[160];
	if (!t) {
		set_down(q, "the peer closed the connection");
		return;
	}
	snprintf(why, sizeof(why), "Terminate %s: layer %u type %u code 0x%02x (%s)",
	         sent ? "sent" : "received", t->layer, t->etype, t->code,
	         ddp_rdmap_term_str(t->layer, t->etype, t->code));
	set_down(q, why);
}

static const ddp_rdmap_callbacks qcb = {on_complete, on_term};

static struct pt_qp *qp_new(struct pt_net *n, int data)
{
	if (n->nall == PT_MAX_QP)
		return NULL;
	struct pt_qp *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->net = n;
	q->data = data;
	n->all[n->nall++] = q;
	return q;
}

static int qp_attach(struct pt_qp *q, ddp_session *s, uint32_t stream, uint32_t ird, uint32_t ord)
{
	struct pt_net *n = q->net;
	q->s = s;
	q->stream = stream;
	if (q->data && ddp_stream_set_pd(s, stream, n->pd))
		return -1;
	ddp_rdmap_config cfg = {.ird = ird, .ord = ord, .max_send_wr = 65536};
	if (ddp_rdmap_qp_new(n->dev, s, stream, &cfg, &qcb, q, &q->qp))
		return -1;
	/* perftest's control queue pair has one receive posted before it
	 * connects, and its peer sends as soon as it is established */
	return q->data ? 0 : ddp_rdmap_post_recv(q->qp, q->rbuf, sizeof(q->rbuf), NULL);
}

int pt_poll(struct pt_qp *q, struct pt_wc *wc)
{
	if (!q->cq_len)
		return 0;
	*wc = q->cq[q->cq_head];
	q->cq_head = (q->cq_head + 1) % q->cq_cap;
	q->cq_len--;
	return 1;
}

/* -1 once --timeout ran out: the caller names what it was waiting for. */
int pt_pump(struct pt_net *n)
{
	if (!n->expired)
		event_base_loop(n->base, EVLOOP_ONCE);
	return n->expired ? -1 : 0;
}

int pt_wait_wc(struct pt_qp *q, struct pt_wc *wc, const char *what)
{
	for (;;) {
		if (pt_poll(q, wc)) {
			if (wc->status)
				return pt_fail("%s: %s", what,
				               q->why[0] ? q->why : ddp_strerror(wc->status));
			return 0;
		}
		if (q->down || q->closed)
			return pt_fail("%s: %s", what, q->why[0] ? q->why : "connection ended");
		if (pt_pump(q->net))
			return pt_fail("timed out during %s", what);
	}
}

/* ---------------------------------------------------------------- MPA */

static struct pt_qp *by_conn(struct pt_net *n, ddp_mpa_conn *c)
{
	for (int i = 0; i < n->nall; i++)
		if (n->all[i]->llp == c)
			return n->all[i];
	return NULL;
}

static void mpa_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct pt_net *n = net1;
	struct pt_qp *q = by_conn(n, c);
	if (ev == DDP_MPA_CONNECTED) {
		ddp_mpa_info i;
		ddp_mpa_get_info(c, &i);
		if (n->o->debug)
			fprintf(
			    stderr,
			    "ddp-perftest: MPA rev %u crc %d p2p %d ird %u ord %u (peer %u/%u)\n",
			    i.revision, i.crc, i.peer_to_peer, i.ird, i.ord, i.peer_ird,
			    i.peer_ord);
		int accepted = !q;
		if (accepted) { /* server: the first connection is the control one */
			q = qp_new(n, n->nall > 0);
			if (!q) {
				ddp_mpa_conn_free(c);
				return;
			}
			q->llp = c;
		}
		q->responder_gated = !i.initiator && !i.peer_to_peer;
		if (qp_attach(q, ddp_mpa_session(c), 0, i.ird, i.ord)) {
			set_down(q, "cannot set up the queue pair");
			return;
		}
		if (accepted)
			n->pending[n->npending++] = q;
		return;
	}
	if (!q) {
		ddp_mpa_conn_free(c);
		return;
	}
	q->closed = 1;
	if (ev == DDP_MPA_REJECTED) {
		q->rejected = 1;
		set_down(q, "MPA connection rejected");
	} else if (ev == DDP_MPA_FAILED)
		set_down(q, err ? ddp_strerror(err) : "MPA connection failed");
	else
		set_down(q, "the peer closed the connection");
}

static int mpa_open(struct pt_net *n, int data, uint16_t ird, uint16_t ord, struct pt_qp **out)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)n->o->port)};
	inet_pton(AF_INET, n->o->addr, &sa.sin_addr);
	ddp_callbacks cb;
	ddp_rdmap_dev_callbacks(&cb);
	ddp_mpa_config cfg = {.revision = 2, .no_crc = !n->o->mpa_crc, .ird = ird, .ord = ord};
	/* write_lat's server writes first: RFC 5044 §7.1.4 lets an MPA
	 * Responder do that only after the Initiator's first FPDU, so ask for
	 * peer-to-peer mode, whose RTR is that FPDU (RFC 6581) */
	cfg.peer_to_peer = data && n->o->test == PT_WRITE_LAT;
	struct pt_qp *q = qp_new(n, data);
	if (!q)
		return pt_fail("too many queue pairs");
	/* perftest's server listens again for the test connections only after
	 * the sync that precedes them, so a refused connect is retried, as
	 * perftest's client does (rdma_cm_client_connection), for up to 10 s */
	for (int attempt = 0;; attempt++) {
		ddp_mpa_conn *c;
		if (ddp_mpa_connect(n->base, n->ctx, (const struct sockaddr *)&sa, sizeof(sa), &cfg,
		                    &cb, mpa_event, n->dev, &c))
			return pt_fail("cannot connect to %s:%d", n->o->addr, n->o->port);
		q->llp = c;
		while (!q->qp && !q->down)
			if (pt_pump(n))
				return pt_fail("timed out connecting to %s:%d", n->o->addr,
				               n->o->port);
		if (q->qp)
			break;
		if (attempt == 50)
			return pt_fail("connecting to %s:%d: %s (after 50 attempts in 10 s)",
			               n->o->addr, n->o->port, q->why);
		/* a Responder that refuses peer-to-peer mode (siw's rejects
		 * our Request): ask again without it; such a server does not
		 * hold its first FPDU back anyway */
		int again_now = q->rejected && cfg.peer_to_peer;
		if (again_now)
			cfg.peer_to_peer = 0;
		ddp_mpa_conn_free(c);
		q->llp = NULL;
		q->down = q->closed = 0;
		q->why[0] = 0;
		q->rejected = 0;
		for (uint64_t end = pt_now_ns() + (again_now ? 0 : 200000000u); pt_now_ns() < end;)
			if (pt_pump(n))
				return pt_fail("timed out connecting to %s:%d", n->o->addr,
				               n->o->port);
	}
	*out = q;
	return 0;
}

/* ---------------------------------------------------------------- SCTP */

static struct pt_qp *by_stream(struct pt_net *n, uint32_t stream)
{
	for (int i = 0; i < n->nall; i++)
		if (n->all[i]->stream == stream && !n->all[i]->llp)
			return n->all[i];
	return NULL;
}

static void sctp_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct pt_net *n = net1;
	if (status == 0) {
		if (n->assoc) { /* one peer at a time */
			ddp_sctp_close(a, 1);
			return;
		}
		n->assoc = a;
		n->assoc_up = 1;
		return;
	}
	if (a != n->assoc)
		return;
	for (int i = 0; i < n->nall; i++) {
		struct pt_qp *q = n->all[i];
		q->closed = 1;
		set_down(q, status == DDP_ERR_CLOSED ? "the peer closed the association"
		                                     : ddp_strerror(status));
		ddp_rdmap_qp_free(q->qp); /* before the association's session goes */
		q->qp = NULL;
	}
	n->assoc = NULL;
	n->assoc_gone = 1;
}

static void sctp_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                     const void *pd, size_t pd_len, void *user)
{
	struct pt_net *n = net1;
	ddp_sctp_ird_ord peer = {.ird = 0, .ord = 0};
	int have = ddp_sctp_peer_ird_ord(a, stream, &peer) == 0;
	if (ev == DDP_SCTP_INITIATE) {
		struct pt_qp *q = by_stream(n, stream) ? NULL : qp_new(n, n->nall > 0);
		if (!q) {
			ddp_sctp_reject(a, stream, NULL, 0);
			return;
		}
		q->stream = stream;
		uint16_t ord = have && peer.ird < n->srv_ord ? peer.ird : n->srv_ord;
		ddp_sctp_ird_ord io = {.ird = n->srv_ird, .ord = ord};
		if (qp_attach(q, ddp_sctp_session(a), stream, io.ird, io.ord) ||
		    ddp_sctp_accept_enhanced(a, stream, &io, NULL, 0)) {
			set_down(q, "cannot accept the DDP stream session");
			return;
		}
		n->pending[n->npending++] = q;
		return;
	}
	struct pt_qp *q = by_stream(n, stream);
	if (!q)
		return;
	if (ev == DDP_SCTP_ACCEPTED) {
		uint16_t ord = have && peer.ird < q->want_ord ? peer.ird : q->want_ord;
		if (qp_attach(q, ddp_sctp_session(a), stream, q->want_ird, ord))
			set_down(q, "cannot set up the queue pair");
	} else {
		set_down(q, "DDP stream session refused");
	}
}

static int sctp_open(struct pt_net *n, int data, uint16_t ird, uint16_t ord, struct pt_qp **out)
{
	if (!n->assoc) {
		if (n->assoc_gone)
			return pt_fail("the SCTP association ended");
		ddp_sctp_assoc *a;
		if (ddp_sctp_connect(n->ep, n->o->addr, n->o->port, &a))
			return pt_fail("cannot connect to %s:%d", n->o->addr, n->o->port);
		while (!n->assoc_up)
			if (n->assoc_gone || pt_pump(n))
				return pt_fail("no SCTP association with %s:%d", n->o->addr,
				               n->o->port);
	}
	struct pt_qp *q = qp_new(n, data);
	if (!q)
		return pt_fail("too many queue pairs");
	q->stream = n->next_stream++;
	q->want_ird = ird;
	q->want_ord = ord;
	ddp_sctp_ird_ord io = {.ird = ird, .ord = ord};
	if (ddp_sctp_initiate_enhanced(n->assoc, q->stream, &io, NULL, 0))
		return pt_fail("cannot initiate DDP stream session %u", q->stream);
	while (!q->qp) {
		if (q->down)
			return pt_fail("DDP stream session %u: %s", q->stream, q->why);
		if (pt_pump(n))
			return pt_fail("timed out opening DDP stream session %u", q->stream);
	}
	*out = q;
	return 0;
}

/* ---------------------------------------------------------------- the network */

static void tick_cb(evutil_socket_t fd, short what, void *arg)
{
}

static void deadline_cb(evutil_socket_t fd, short what, void *arg)
{
	struct pt_net *n = arg;
	n->expired = 1;
	event_base_loopbreak(n->base);
}

int pt_net_new(const struct pt_opts *o, struct pt_net **out)
{
	struct pt_net *n = calloc(1, sizeof(*n));
	if (!n)
		return pt_fail("out of memory");
	net1 = n;
	*out = n;
	n->o = o;
	n->srv_ird = n->srv_ord = (uint16_t)o->out_reads;
	n->base = event_base_new();
	if (!n->base || ddp_ctx_new(NULL, &n->ctx) ||
	    ddp_rdmap_dev_new(n->ctx, NULL, NULL, &n->dev) || ddp_pd_new(n->ctx, &n->pd))
		return pt_fail("out of memory");
	n->deadline = evtimer_new(n->base, deadline_cb, n);
	struct timeval tmo = {o->timeout, 0}, tv = {0, 100000};
	evtimer_add(n->deadline, &tmo);
	/* a heartbeat: loops that wait for time (-D, the close) wake up */
	n->tick = event_new(n->base, -1, EV_PERSIST, tick_cb, NULL);
	if (!n->tick || event_add(n->tick, &tv))
		return pt_fail("out of memory");
	if (o->sctp) {
		ddp_sctp_config cfg = {.addr = o->server ? o->addr : "0.0.0.0",
		                       .port = o->server ? o->port : -1,
		                       .nstreams = 64,
		                       .ctx = n->ctx,
		                       .user = n->dev};
		ddp_rdmap_dev_callbacks(&cfg.ddp);
		cfg.sctp.assoc = sctp_assoc;
		cfg.sctp.session_ctl = sctp_ctl;
		if (ddp_sctp_ep_new(n->base, &cfg, &n->ep))
			return pt_fail("cannot open the SCTP endpoint");
		if (o->server && ddp_sctp_listen(n->ep))
			return pt_fail("cannot listen on %s:%d", o->addr, o->port);
		return 0;
	}
	if (o->server) {
		struct sockaddr_in sa = {.sin_family = AF_INET,
		                         .sin_port = htons((uint16_t)o->port)};
		inet_pton(AF_INET, o->addr, &sa.sin_addr);
		ddp_callbacks cb;
		ddp_rdmap_dev_callbacks(&cb);
		ddp_mpa_config cfg = {
		    .revision = 2, .no_crc = !o->mpa_crc, .ird = n->srv_ird, .ord = n->srv_ord};
		if (ddp_mpa_listen(n->base, n->ctx, (const struct sockaddr *)&sa, sizeof(sa), &cfg,
		                   &cb, NULL, mpa_event, n->dev, &n->l))
			return pt_fail("cannot listen on %s:%d", o->addr, o->port);
	}
	return 0;
}

int pt_open(struct pt_net *n, int data, uint16_t ird, uint16_t ord, struct pt_qp **out)
{
	if (!n->o->server)
		return n->o->sctp ? sctp_open(n, data, ird, ord, out)
		                  : mpa_open(n, data, ird, ord, out);
	while (!n->npending) {
		if (n->assoc_gone)
			return pt_fail("the SCTP association ended");
		if (pt_pump(n))
			return pt_fail("timed out waiting for the peer's connection");
	}
	*out = n->pending[0];
	memmove(n->pending, n->pending + 1, --n->npending * sizeof(n->pending[0]));
	return 0;
}

static int any_open(struct pt_net *n, int data)
{
	int open = 0;
	for (int i = 0; i < n->nall; i++)
		open |= n->all[i]->llp && !n->all[i]->closed && n->all[i]->data == data;
	return open;
}

/* Close the connections of one kind in order and wait for their ends, at
 * most two seconds. */
static void close_kind(struct pt_net *n, int data)
{
	for (int i = 0; i < n->nall; i++)
		if (n->all[i]->llp && !n->all[i]->closed && n->all[i]->data == data && n->all[i]->s)
			ddp_session_close(n->all[i]->s, 0);
	uint64_t end = pt_now_ns() + 2000000000u;
	while (any_open(n, data) && pt_now_ns() < end && !n->expired)
		event_base_loop(n->base, EVLOOP_ONCE);
}

void pt_close_all(struct pt_net *n)
{
	if (n->assoc) {
		ddp_sctp_close(n->assoc, 0);
		uint64_t end = pt_now_ns() + 2000000000u;
		while (n->assoc && pt_now_ns() < end && !n->expired)
			event_base_loop(n->base, EVLOOP_ONCE);
		return;
	}
	/* perftest's order (destroy_ctx): the test connections first, the
	 * control one last, so that the peer's last control Send has long
	 * completed when its connection ends */
	close_kind(n, 1);
	close_kind(n, 0);
}

void pt_net_free(struct pt_net *n)
{
	if (!n)
		return;
	for (int i = 0; i < n->nall; i++) {
		struct pt_qp *q = n->all[i];
		ddp_rdmap_qp_free(q->qp);
		if (q->llp)
			ddp_mpa_conn_free(q->llp);
		free(q->cq);
		free(q);
	}
	/* the queue pairs are gone: nothing reads the regions any more */
	for (int i = 0; i < n->nstags; i++)
		ddp_stag_invalidate(n->ctx, n->stags[i]);
	ddp_mpa_listener_free(n->l);
	if (n->ep)
		ddp_sctp_ep_free(n->ep);
	if (n->deadline)
		event_free(n->deadline);
	if (n->tick)
		event_free(n->tick);
	ddp_pd_free(n->pd);
	ddp_rdmap_dev_free(n->dev);
	ddp_ctx_free(n->ctx);
	if (n->base)
		event_base_free(n->base);
	free(n);
	net1 = NULL;
}
