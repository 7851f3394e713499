/* ddp-perf drivers "usrsctp" and "usrsctp-stock": the raw SCTP baselines.
 * Plain usrsctp messages over the same UDP encapsulation and event loop as
 * DDP/SCTP. "usrsctp" uses exactly the endpoint settings of the DDP path
 * (sctp_ddp_ll_config: path MTU, no fragmentation, buffers, SACK, NODELAY);
 * a message larger than one unfragmented SCTP message goes out in pieces,
 * as DDP segments it. "usrsctp-stock" uses usrsctp's own defaults. */
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "sctp/sctp_ddp.h"
#include "sctp/sctp_ll.h"

#define BURST 256

struct urun {
	struct event_base *base;
	const struct bench_params *p;
	struct bench_result *r;
	sctp_ll_ep *sep, *cep;
	sctp_ll_assoc *ca, *sa;
	uint8_t *msg, *rbuf;
	size_t rcap, off, chunk;
	int up, stop, started, n;
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
		if (++u->up == 2) {
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
		break;
	case SCTP_LL_EV_DOWN:
		if (!u->stop)
			bench_fail(u->r, "usrsctp association down: %s", ddp_strerror(status));
		if (a == u->ca)
			u->ca = NULL;
		if (a == u->sa)
			u->sa = NULL;
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

static int run(struct event_base *base, const struct bench_params *p, struct bench_result *r,
	       int stock)
{
	struct urun u = { .base = base, .p = p, .r = r };
	u.n = p->mode == MODE_RTT ? 1 : p->streams;
	u.msg = malloc(p->size);
	u.rcap = 256 * 1024;
	u.rbuf = malloc(u.rcap);
	u.tick = event_new(base, -1, EV_PERSIST, on_tick, &u);
	u.pump_ev = event_new(base, -1, 0, on_pump, &u);
	u.setup_to = evtimer_new(base, on_setup_timeout, &u);
	if (p->role) {
		bench_fail(r, "the raw baselines run on loopback only");
		goto out;
	}
	if (!u.msg || !u.rbuf || !u.tick || !u.pump_ev || !u.setup_to) {
		bench_fail(r, "out of memory");
		goto out;
	}
	bench_fill(u.msg, p->size, 1);
	sctp_ll_config lc;
	if (stock) {
		memset(&lc, 0, sizeof(lc));
		lc.port = -1;
		lc.nstreams = 16;
		lc.stock = 1;
	} else {
		ddp_sctp_config dc = { .port = -1, .nstreams = 16, .path_mtu = p->mtu };
		sctp_ddp_ll_config(&dc, &lc); /* exactly the DDP path's settings */
	}
	if (u.n > lc.nstreams)
		lc.nstreams = (uint16_t)u.n;
	int rc;
	if ((rc = sctp_ll_ep_new(base, &lc, &u.sep)) || (rc = sctp_ll_listen(u.sep, on_accept, &u)) ||
	    (rc = sctp_ll_ep_new(base, &lc, &u.cep)) ||
	    (rc = sctp_ll_connect(u.cep, "127.0.0.1", sctp_ll_ep_port(u.sep), &ucb, &u, &u.ca))) {
		bench_fail(r, "usrsctp set-up: %s", ddp_strerror(rc));
		goto out;
	}
	struct timeval tv = { 10, 0 };
	evtimer_add(u.setup_to, &tv);
	event_base_dispatch(base);
	r->secs = u.t0 > 0 ? now_s() - u.t0 : 0;
	r->cpu = u.t0 > 0 ? cpu_s() - u.c0 : 0;
	if (p->mode == MODE_RTT && r->msgs)
		r->rtt_us = u.rtt_sum / (double)r->msgs * 1e6;
	else
		r->msgs = r->bytes / p->size;
out:
	u.stop = 1;
	sctp_ll_ep_free(u.cep);
	sctp_ll_ep_free(u.sep);
	if (u.tick)
		event_free(u.tick);
	if (u.pump_ev)
		event_free(u.pump_ev);
	if (u.setup_to)
		event_free(u.setup_to);
	free(u.msg);
	free(u.rbuf);
	return r->failed ? -1 : 0;
}

static int run_tuned(struct event_base *b, const struct bench_params *p, struct bench_result *r)
{
	return run(b, p, r, 0);
}

static int run_stock(struct event_base *b, const struct bench_params *p, struct bench_result *r)
{
	return run(b, p, r, 1);
}

const struct bench_driver drv_usrsctp = { "usrsctp", run_tuned };
const struct bench_driver drv_usrsctp_stock = { "usrsctp-stock", run_stock };
