/* ddp-perf drivers "usrsctp" and "usrsctp-stock": the raw SCTP baselines.
 * Plain usrsctp messages over the same UDP encapsulation and event loop as
 * DDP/SCTP. "usrsctp" uses exactly the endpoint settings of the DDP path
 * (sctp_ddp_ll_config: path MTU, no fragmentation, buffers, SACK, NODELAY);
 * a message larger than one unfragmented SCTP message goes out in pieces,
 * as DDP segments it. "usrsctp-stock" uses usrsctp's own defaults.
 * Loopback: both endpoints here. Client/server (another process or host):
 * parameters and the receiver's count go over ctl.c's control connection;
 * the server makes a fresh endpoint per client run (UDP port: the one of
 * --listen, or any when that is 0) and says which. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "ctl.h"
#include "ddp_test.h"
#include "path_trace.h"

#define BURST 256

struct urun {
	struct event_base *base;
	const struct bench_params *p;
	struct bench_result *r;
	sctp_ll_ep *sep, *cep;
	sctp_ll_assoc *ca, *sa;
	uint8_t *msg, *rbuf;
	size_t rcap, off, chunk;
	int up, want_up, stop, started, n;
	int serving; /* server role: an association going down ends nothing */
	uint16_t sid;
	struct event *tick, *pump_ev, *setup_to;
	double t0, c0, rtt_t, rtt_sum;
	size_t rtt_got;
};

static void pump(struct urun *u)
{
	const struct bench_params *p = u->p;
	if (u->stop || !u->started || p->mode == MODE_RTT)
		return;
	for (int i = 0; i < BURST; i++) {
		size_t len = p->size - u->off < u->chunk ? p->size - u->off : u->chunk;
		int rc = sctp_ll_send(u->ca, u->sid, 16, u->msg + u->off, len);
		if (rc == DDP_ERR_AGAIN)
			return; /* SCTP_LL_EV_WRITABLE follows */
		if (rc) {
			bench_fail(u->r, "usrsctp send: %s", ddp_strerror(rc));
			event_base_loopbreak(u->base);
			return;
		}
		u->off += len;
		if (u->off == p->size) {
			u->off = 0;
			u->sid = (uint16_t)((u->sid + 1) % u->n);
		}
	}
	event_active(u->pump_ev, EV_TIMEOUT, 1); /* let the loop breathe */
}

static void on_pump(evutil_socket_t fd, short what, void *arg)
{
	pump(arg);
}

static void rtt_ping(struct urun *u)
{
	u->rtt_t = now_s();
	u->rtt_got = 0;
	if (sctp_ll_send(u->ca, 0, 16, u->msg, u->p->size))
		bench_fail(u->r, "usrsctp rtt send failed");
}

static void drain(struct urun *u, sctp_ll_assoc *a)
{
	for (;;) {
		sctp_ll_rinfo ri;
		long n = sctp_ll_recv(a, u->rbuf, u->rcap, &ri);
		if (n < 0)
			return;
		if (u->p->mode == MODE_RTT) {
			if (a == u->sa) { /* server: echo the message */
				if (sctp_ll_send(a, ri.sid, 16, u->rbuf, (size_t)n))
					bench_fail(u->r, "usrsctp rtt echo failed");
				continue;
			}
			u->rtt_got += (size_t)n;
			if (u->rtt_got >= u->p->size) {
				u->rtt_sum += now_s() - u->rtt_t;
				u->r->msgs++;
				u->r->bytes += u->p->size;
				if (!u->stop)
					rtt_ping(u);
			}
			continue;
		}
		if (a == u->sa && u->started)
			u->r->bytes += (uint64_t)n;
	}
}

static void on_event(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user)
{
	struct urun *u = user;
	switch (ev) {
	case SCTP_LL_EV_UP:
		if (++u->up == u->want_up && u->ca) {
			size_t max = sctp_ll_max_msg(u->ca);
			u->chunk = max && max < u->p->size ? max : u->p->size;
			u->started = 1;
			u->c0 = cpu_s();
			u->t0 = now_s();
			struct timeval tv = { 0, 100000 };
			event_add(u->tick, &tv);
			if (u->p->mode == MODE_RTT)
				rtt_ping(u);
			else
				pump(u);
		}
		break;
	case SCTP_LL_EV_READABLE:
		drain(u, a);
		break;
	case SCTP_LL_EV_WRITABLE:
		if (a == u->ca)
			pump(u);
		break;
	case SCTP_LL_EV_DRY:
	case SCTP_LL_EV_LATER: /* never asked for here */
		break;
	case SCTP_LL_EV_DOWN:
		if (!u->stop && !u->serving)
			bench_fail(u->r, "usrsctp association down: %s", ddp_strerror(status));
		if (a == u->ca)
			u->ca = NULL;
		if (a == u->sa)
			u->sa = NULL;
		if (!u->serving)
			event_base_loopbreak(u->base);
		break;
	}
}

static const sctp_ll_assoc_cb ucb = { on_event };

static void on_accept(sctp_ll_ep *ep, sctp_ll_assoc *a, void *user)
{
	struct urun *u = user;
	u->sa = a;
	sctp_ll_assoc_set_cb(a, &ucb, u);
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct urun *u = arg;
	double el = now_s() - u->t0;
	if (u->p->mode != MODE_RTT)
		u->r->msgs = u->r->bytes / u->p->size;
	bench_progress(u->p, u->r, el);
	if (el >= u->p->duration || u->r->failed) {
		u->stop = 1;
		event_base_loopbreak(u->base);
	}
}

static void on_setup_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct urun *u = arg;
	if (!u->started) {
		bench_fail(u->r, "association set-up did not finish in 10 s");
		event_base_loopbreak(u->base);
	}
}

/* The endpoint settings: libddp's (the same function the DDP path uses;
 * --mtu is its path MTU) or, stock, the few sctp_ll_ep_new_stock takes. */
static void ll_config(const struct bench_params *p, int stock, int n, sctp_ll_config *lc)
{
	if (stock) {
		memset(lc, 0, sizeof(*lc));
		lc->port = -1;
		lc->nstreams = 16;
		lc->path_mtu = p->mtu; /* --mtu: the IP path, not tuning */
	} else {
		ddp_sctp_config dc = { .port = -1, .nstreams = 16, .path_mtu = p->mtu };
		sctp_ddp_ll_config(&dc, lc); /* exactly the DDP path's settings */
	}
	if (n > lc->nstreams)
		lc->nstreams = (uint16_t)n;
	if (!stock) { /* --sctp-cc / --sctp-buf: as for the sctp rows */
		lc->cc = (unsigned)p->sctp_cc;
		lc->sndbuf = lc->rcvbuf = p->sctp_buf;
	}
}

/* An endpoint with libddp's settings (lc) or usrsctp's own (stock). */
static int ep_new(struct event_base *base, const sctp_ll_config *lc, int stock, sctp_ll_ep **out)
{
	return stock ? sctp_ll_ep_new_stock(base, lc, out) : sctp_ll_ep_new(base, lc, out);
}

static int urun_init(struct urun *u, struct event_base *base, const struct bench_params *p,
		     struct bench_result *r)
{
	memset(u, 0, sizeof(*u));
	u->base = base;
	u->p = p;
	u->r = r;
	u->n = p->mode == MODE_RTT ? 1 : p->streams;
	u->msg = malloc(p->size);
	u->rcap = 256 * 1024;
	u->rbuf = malloc(u->rcap);
	u->tick = event_new(base, -1, EV_PERSIST, on_tick, u);
	u->pump_ev = event_new(base, -1, 0, on_pump, u);
	u->setup_to = evtimer_new(base, on_setup_timeout, u);
	if (!u->msg || !u->rbuf || !u->tick || !u->pump_ev || !u->setup_to)
		return -1;
	bench_fill(u->msg, p->size, 1);
	return 0;
}

static void urun_free(struct urun *u)
{
	u->stop = 1;
	sctp_ll_ep_free(u->cep);
	sctp_ll_ep_free(u->sep);
	u->cep = u->sep = NULL;
	if (u->tick)
		event_free(u->tick);
	if (u->pump_ev)
		event_free(u->pump_ev);
	if (u->setup_to)
		event_free(u->setup_to);
	u->tick = u->pump_ev = u->setup_to = NULL;
	free(u->msg);
	free(u->rbuf);
	u->msg = u->rbuf = NULL;
}

static sctp_ll_assoc *client_ll(void *arg)
{
	return ((struct urun *)arg)->ca;
}

static int run(struct event_base *base, const struct bench_params *p, struct bench_result *r,
	       int stock)
{
	struct urun u;
	struct ctl_client cc = { .fd = -1 };
	int rc = 0;
	if (urun_init(&u, base, p, r)) {
		bench_fail(r, "out of memory");
		goto out;
	}
	sctp_ll_config lc;
	ll_config(p, stock, u.n, &lc);
	char host[INET_ADDRSTRLEN] = "127.0.0.1";
	int port;
	if (p->role == 2) { /* the server's data endpoint, learnt over the control connection */
		if (ctl_connect(p, &cc, r))
			goto out;
		inet_ntop(AF_INET, &((const struct sockaddr_in *)&p->addr)->sin_addr, host,
			  sizeof(host));
		port = cc.data_port;
		lc.addr = "0.0.0.0";
		u.want_up = 1;
	} else {
		if ((rc = ep_new(base, &lc, stock, &u.sep)) ||
		    (rc = sctp_ll_listen(u.sep, on_accept, &u)))
			goto fail;
		port = sctp_ll_ep_port(u.sep);
		u.want_up = 2;
	}
	if ((rc = ep_new(base, &lc, stock, &u.cep)) ||
	    (rc = sctp_ll_connect(u.cep, host, port, &ucb, &u, &u.ca)))
		goto fail;
	struct timeval tv = { 10, 0 };
	struct path_trace tr;
	evtimer_add(u.setup_to, &tv);
	path_trace_start(&tr, base, stock ? "usrsctp-stock" : "usrsctp", client_ll, &u);
	event_base_dispatch(base);
	path_trace_stop(&tr);
	r->secs = u.t0 > 0 ? now_s() - u.t0 : 0;
	r->cpu = u.t0 > 0 ? cpu_s() - u.c0 : 0;
	if (p->mode == MODE_RTT && r->msgs)
		r->rtt_us = u.rtt_sum / (double)r->msgs * 1e6;
	else if (p->role == 2 && !r->failed)
		ctl_finish(&cc, r); /* what the server received */
	else
		r->msgs = r->bytes / p->size;
	goto out;
fail:
	bench_fail(r, "usrsctp set-up: %s", ddp_strerror(rc));
out:
	urun_free(&u);
	ctl_close(&cc);
	return r->failed ? -1 : 0;
}

/* ------------------------------------------------------------ server */

struct userver {
	struct urun u;
	struct event_base *base;
	struct ctl_run *run;
	int stock;
};

static int srv_start(void *drv, struct ctl_run *run, int *data_port)
{
	struct userver *s = drv;
	const struct bench_params *p = &run->p;
	s->run = run;
	if (urun_init(&s->u, s->base, p, &run->r))
		return -1;
	s->u.started = 1; /* count from the first octet: the client measures */
	s->u.serving = 1;
	sctp_ll_config lc;
	ll_config(p, s->stock, s->u.n, &lc);
	char host[INET_ADDRSTRLEN];
	const struct sockaddr_in *sin = (const struct sockaddr_in *)&p->addr;
	inet_ntop(AF_INET, &sin->sin_addr, host, sizeof(host));
	lc.addr = host;
	lc.port = sin->sin_port ? ntohs(sin->sin_port) : -1;
	int rc;
	if ((rc = ep_new(s->base, &lc, s->stock, &s->u.sep)) ||
	    (rc = sctp_ll_listen(s->u.sep, on_accept, &s->u))) {
		fprintf(stderr, "ddp-perf: usrsctp server endpoint: %s\n", ddp_strerror(rc));
		urun_free(&s->u);
		return -1;
	}
	*data_port = sctp_ll_ep_port(s->u.sep);
	return 0;
}

static void srv_stop(void *drv)
{
	struct userver *s = drv;
	urun_free(&s->u);
	s->run->r.msgs = s->run->r.bytes / s->run->p.size;
}

static const struct ctl_server_ops srv_ops = { srv_start, NULL, srv_stop };

static int serve(struct event_base *b, const struct bench_params *p, struct bench_result *r,
		 int stock)
{
	struct userver s = { .base = b, .stock = stock };
	return ctl_serve(b, p, &srv_ops, &s, r);
}

static int run_tuned(struct event_base *b, const struct bench_params *p, struct bench_result *r)
{
	return p->role == 1 ? serve(b, p, r, 0) : run(b, p, r, 0);
}

static int run_stock(struct event_base *b, const struct bench_params *p, struct bench_result *r)
{
	return p->role == 1 ? serve(b, p, r, 1) : run(b, p, r, 1);
}

const struct bench_driver drv_usrsctp = { "usrsctp", run_tuned };
const struct bench_driver drv_usrsctp_stock = { "usrsctp-stock", run_stock };
