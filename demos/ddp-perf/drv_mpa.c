/* ddp-perf driver "mpa": DDP over MPA/TCP (CRC on, no markers, revision 2),
 * one TCP connection per benchmark stream, both ends on this event loop. */
#include <arpa/inet.h>
#include <ddp/mpa.h>
#include <stdlib.h>
#include <string.h>

#include "drv_ddp.h"

struct mrun {
	struct drun d;
	ddp_mpa_listener *l;
	ddp_mpa_conn **cli, **srv;
	int nsrv, up;
};

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct mrun *m = user;
	if (ev != DDP_MPA_CONNECTED) {
		if (!m->d.stop)
			bench_fail(m->d.r, "MPA connection %s: %s (MPA code %u)",
				   ev == DDP_MPA_CLOSED ? "closed" : "failed", ddp_strerror(err), code);
		event_base_loopbreak(m->d.base);
		return;
	}
	if (++m->up == 2 * m->d.n && !m->d.started)
		drun_measure(&m->d);
}

static void on_accept(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user)
{
	struct mrun *m = user;
	if (m->nsrv >= m->d.n) {
		ddp_mpa_reject(c, NULL, 0);
		return;
	}
	/* the Request's private data says which benchmark stream this is */
	int i = req->private_data_len == 4 ? (int)(req->private_data[0] | req->private_data[1] << 8)
					   : -1;
	if (i < 0 || i >= m->d.n) {
		ddp_mpa_reject(c, NULL, 0);
		return;
	}
	m->srv[m->nsrv++] = c;
	struct bstream *b = &m->d.bs[i];
	b->rx_s = ddp_mpa_session(c);
	b->rx_st = 0;
	if (drun_rx_ready(&m->d, b))
		bench_fail(m->d.r, "posting receive buffers failed");
	ddp_mpa_accept(c, NULL, 0);
}

static int run_mpa(struct event_base *base, const struct bench_params *p, struct bench_result *r)
{
	struct mrun m = { 0 };
	int n = p->mode == MODE_RTT ? 1 : p->streams;
	if (drun_init(&m.d, base, p, r, n)) {
		bench_fail(r, "out of memory");
		drun_free(&m.d);
		return -1;
	}
	m.cli = calloc((size_t)n, sizeof(*m.cli));
	m.srv = calloc((size_t)n, sizeof(*m.srv));
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	ddp_mpa_config cfg = { .revision = 2 };
	cfg.session.pd = m.d.pd;
	cfg.session.max_tx_queued = 4 * DEPTH;
	int rc = ddp_mpa_listen(base, m.d.ctx, (struct sockaddr *)&sa, sizeof(sa), &cfg,
				&drun_callbacks, on_accept, on_event, &m, &m.l);
	if (rc) {
		bench_fail(r, "MPA listen: %s", ddp_strerror(rc));
		goto out;
	}
	sa.sin_port = htons((uint16_t)ddp_mpa_listener_port(m.l));
	for (int i = 0; i < n; i++) {
		uint8_t pd[4] = { (uint8_t)i, (uint8_t)(i >> 8), 0, 0 };
		ddp_mpa_config cc = cfg;
		cc.private_data = pd;
		cc.private_data_len = 4;
		rc = ddp_mpa_connect(base, m.d.ctx, (struct sockaddr *)&sa, sizeof(sa), &cc,
				     &drun_callbacks, on_event, &m, &m.cli[i]);
		if (rc) {
			bench_fail(r, "MPA connect: %s", ddp_strerror(rc));
			goto out;
		}
		/* the session exists at once; sends wait for full operation */
		m.d.bs[i].tx_s = ddp_mpa_session(m.cli[i]);
		m.d.bs[i].tx_st = 0;
		if (drun_tx_ready(&m.d, &m.d.bs[i])) {
			bench_fail(r, "posting credit buffers failed");
			goto out;
		}
	}
	/* the listener's connections use the listener's user (&m) */
	drun_loop(&m.d);
out:
	m.d.stop = 1;
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

const struct bench_driver drv_mpa = { "mpa", run_mpa };
