/* ddp-perf driver "sctp": DDP over SCTP (usrsctp over UDP on 127.0.0.1),
 * one association with one DDP stream session per benchmark stream, both
 * endpoints on this event loop. */
#include <ddp/sctp.h>
#include <stdlib.h>
#include <string.h>

#include "drv_ddp.h"

struct srun {
	struct drun d;
	ddp_sctp_ep *cep, *sep;
	ddp_sctp_assoc *ca;
	ddp_session *cs, *ss;
	int accepted;
};

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct srun *m = user;
	if (status) {
		if (!m->d.stop)
			bench_fail(m->d.r, "SCTP association down: %s", ddp_strerror(status));
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
	for (int i = 0; i < m->d.n; i++) {
		int rc = ddp_sctp_initiate(a, (uint32_t)i, NULL, 0);
		if (rc)
			bench_fail(m->d.r, "initiate: %s", ddp_strerror(rc));
	}
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
		   const void *pd, size_t len, void *user)
{
	struct srun *m = user;
	if ((int)stream >= m->d.n) {
		bench_fail(m->d.r, "unexpected stream %u", stream);
		return;
	}
	struct bstream *b = &m->d.bs[stream];
	if (ev == DDP_SCTP_INITIATE) {
		b->rx_s = ddp_sctp_session(a);
		b->rx_st = stream;
		if (drun_rx_ready(&m->d, b) || ddp_sctp_accept(a, stream, NULL, 0))
			bench_fail(m->d.r, "accept on stream %u failed", stream);
		return;
	}
	if (ev != DDP_SCTP_ACCEPTED) {
		bench_fail(m->d.r, "stream %u refused: %s", stream, ddp_strerror(status));
		event_base_loopbreak(m->d.base);
		return;
	}
	b->tx_s = m->cs;
	b->tx_st = stream;
	if (drun_tx_ready(&m->d, b))
		bench_fail(m->d.r, "posting credit buffers failed");
	if (++m->accepted == m->d.n)
		drun_measure(&m->d);
}

static int run_sctp(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	struct srun m = { 0 };
	int n = p->mode == MODE_RTT ? 1 : p->streams;
	if (drun_init(&m.d, base, p, r, n)) {
		bench_fail(r, "out of memory");
		drun_free(&m.d);
		return -1;
	}
	ddp_sctp_config cfg = { .port = -1, .nstreams = (uint16_t)(n < 16 ? 16 : n),
				.ctx = m.d.ctx, .ddp = drun_callbacks, .user = &m };
	cfg.session.pd = m.d.pd;
	cfg.session.max_tx_queued = 4 * DEPTH;
	cfg.sctp.assoc = on_assoc;
	cfg.sctp.session_ctl = on_ctl;
	int rc;
	if ((rc = ddp_sctp_ep_new(base, &cfg, &m.sep)) || (rc = ddp_sctp_listen(m.sep)) ||
	    (rc = ddp_sctp_ep_new(base, &cfg, &m.cep)) ||
	    (rc = ddp_sctp_connect(m.cep, "127.0.0.1", ddp_sctp_ep_port(m.sep), &m.ca))) {
		bench_fail(r, "SCTP set-up: %s", ddp_strerror(rc));
		goto out;
	}
	drun_loop(&m.d);
out:
	m.d.stop = 1;
	drun_count_copies(&m.d, m.cs);
	drun_count_copies(&m.d, m.ss);
	ddp_sctp_ep_free(m.cep);
	ddp_sctp_ep_free(m.sep);
	drun_free(&m.d);
	return r->failed ? -1 : 0;
}

const struct bench_driver drv_sctp = { "sctp", run_sctp };
