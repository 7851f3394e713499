/* DDP/SCTP's binding to the one adapter model (event/conn_setup.h, ddp.h
 * "one adapter model", sctp.h): an outgoing connection is an endpoint of
 * its own with one association, a listener one endpoint shared by the
 * associations it accepts; the session is the association's. The
 * connecting side initiates a DDP stream session on every stream of the
 * association (RFC 5043 §6.2), the listening side accepts each; both
 * report it as stream_open. Built on the public calls of sctp_ddp.c. */
#include <stddef.h>
#include <string.h>

#include <ddp/llp.h>
#include <ddp/sctp.h>

#include "event/conn_setup.h"
#include "conn_glue.h"

struct sctp_setup {
	ddp_sctp_config cfg; /* first (conn_setup.h) */
	ddp_sctp_ep *ep;
};

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct conn_setup *cs = user;
	if (status < 0) {
		conn_setup_down(cs, s, status);
		return;
	}
	conn_setup_up(cs, s);
	if (!conn_setup_outgoing(cs))
		return; /* the peer initiates */
	for (uint32_t i = 0; i < ddp_session_nstreams(s); i++)
		if (ddp_sctp_initiate(a, i, NULL, 0) != 0) {
			ddp_sctp_close(a, 1);
			return;
		}
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                   const void *priv, size_t priv_len, void *user)
{
	struct conn_setup *cs = user;
	ddp_session *s = ddp_sctp_session(a);
	(void)status, (void)priv, (void)priv_len;
	switch (ev) {
	case DDP_SCTP_INITIATE:
		if (ddp_sctp_accept(a, stream, NULL, 0) == 0)
			conn_setup_open(cs, s, stream);
		return;
	case DDP_SCTP_ACCEPTED:
		conn_setup_open(cs, s, stream);
		return;
	case DDP_SCTP_REJECTED: /* a stream the peer will not carry */
		ddp_sctp_close(a, 0);
		return;
	case DDP_SCTP_CANCELLED:
		return;
	}
}

/* The one model's defaults (ddp.h, "One behaviour"): the DDP streams of a
 * connection are session.nstreams (else the SCTP nstreams, else 1), each
 * an SCTP stream of the association. */
static int sctp_init(struct conn_setup *cs, int given)
{
	struct sctp_setup *m = conn_setup_llp(cs);
	uint32_t n = m->cfg.session.nstreams ? m->cfg.session.nstreams : m->cfg.nstreams;
	(void)given;
	if (n > 65535)
		return DDP_ERR_INVAL;
	m->cfg.nstreams = (uint16_t)(n ? n : 1);
	return 0;
}

/* The block's endpoint on bind_host:port with the caller's settings. */
static int sctp_ep(struct conn_setup *cs, const char *bind_host, int port)
{
	struct sctp_setup *m = conn_setup_llp(cs);
	ddp_sctp_config c = m->cfg;
	c.addr = bind_host;
	c.port = port;
	c.ctx = conn_setup_ctx(cs);
	c.ddp = *ddp_conn_trampolines();
	c.sctp.assoc = on_assoc;
	c.sctp.session_ctl = on_ctl;
	c.user = cs;
	return ddp_sctp_ep_new(conn_setup_base(cs), &c, &m->ep);
}

/* An endpoint of its own on the wildcard of the peer's family, and the
 * association to the peer. */
static int sctp_dial(struct conn_setup *cs, const struct conn_where *w)
{
	struct sctp_setup *m = conn_setup_llp(cs);
	ddp_sctp_assoc *a;
	int rc = sctp_ep(cs, w->any, -1);
	if (rc)
		return rc;
	rc = ddp_sctp_connect(m->ep, w->host, w->port, &a);
	if (rc) {
		ddp_sctp_ep_free(m->ep);
		m->ep = NULL;
	}
	return rc;
}

/* No host: every IPv4 address; port 0: any. */
static int sctp_listen(struct conn_setup *cs, const struct conn_where *w)
{
	struct sctp_setup *m = conn_setup_llp(cs);
	int rc = sctp_ep(cs, w->host ? w->host : "0.0.0.0", w->port ? w->port : -1);
	if (rc)
		return rc;
	rc = ddp_sctp_listen(m->ep);
	if (rc) {
		ddp_sctp_ep_free(m->ep);
		m->ep = NULL;
	}
	return rc;
}

/* No new association; those up live on, the endpoint goes with the last
 * reference (sctp_release). */
static void sctp_unlisten(struct conn_setup *cs)
{
	struct sctp_setup *m = conn_setup_llp(cs);
	ddp_sctp_unlisten(m->ep);
}

static int sctp_port(const struct conn_setup *cs)
{
	const struct sctp_setup *m = conn_setup_llp_const(cs);
	return ddp_sctp_ep_port(m->ep);
}

/* The endpoint goes (ABORT to what is left); inside a callback its free
 * is deferred to the loop. */
static void sctp_release(struct conn_setup *cs)
{
	struct sctp_setup *m = conn_setup_llp(cs);
	ddp_sctp_ep_free(m->ep);
	m->ep = NULL;
}

static const struct conn_setup_ops sctp_setup_ops = {
    .llp_size = sizeof(struct sctp_setup),
    .cfg_size = sizeof(ddp_sctp_config),
    .cfg_holds = 1,
    .datagram = 1,
    .init = sctp_init,
    .dial = sctp_dial,
    .listen = sctp_listen,
    .unlisten = sctp_unlisten,
    .port = sctp_port,
    .release = sctp_release,
};

int ddp_sctp_connect_to_sized(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                              const ddp_sctp_config *cfg, const ddp_conn_callbacks *cb, void *user,
                              uint64_t sizes)
{
	return conn_setup_connect_to(&sctp_setup_ops, base, ctx, host, port, cfg, cb, user, sizes);
}

int ddp_sctp_connect_async_sized(struct event_base *base, ddp_ctx *ctx, struct evdns_base *dns,
                                 const char *host, int port, const ddp_sctp_config *cfg,
                                 const ddp_conn_callbacks *cb, void *user, ddp_connecting **out,
                                 uint64_t sizes)
{
	return conn_setup_connect_async(&sctp_setup_ops, base, ctx, dns, host, port, cfg, cb, user,
	                                out, sizes);
}

int ddp_sctp_connect_addr_sized(struct event_base *base, ddp_ctx *ctx, const struct sockaddr *sa,
                                unsigned int salen, const ddp_sctp_config *cfg,
                                const ddp_conn_callbacks *cb, void *user, ddp_connecting **out,
                                uint64_t sizes)
{
	return conn_setup_connect_addr(&sctp_setup_ops, base, ctx, sa, salen, cfg, cb, user, out,
	                               sizes);
}

int ddp_sctp_listen_on_sized(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                             const ddp_sctp_config *cfg, const ddp_conn_callbacks *cb, void *user,
                             ddp_listener **out, uint64_t sizes)
{
	return conn_setup_listen_on(&sctp_setup_ops, base, ctx, host, port, cfg, cb, user, out,
	                            sizes);
}
