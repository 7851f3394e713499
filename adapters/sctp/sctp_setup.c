/* DDP/SCTP in the one adapter model (ddp.h "one adapter model", sctp.h):
 * host + port, ddp_conn_callbacks, the session is the connection. The
 * connecting side initiates a DDP stream session on every stream of the
 * association (RFC 5043 §6.2), the listening side accepts each; both
 * report it as stream_open. Built on the public calls of sctp_ddp.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <event2/event.h>

#include <ddp/llp.h>
#include <ddp/sctp.h>

#include "common/peer_addr.h"
#include "event/conn_async.h"
#include "event/glue_free.h"
#include "abi.h"
#include "conn_glue.h"

/* One glue per endpoint: an outgoing connection has an endpoint of its
 * own, a listener one shared by its associations. A listener freed while
 * associations are up stops taking new ones; its endpoint (and this glue)
 * goes with the last of them, as an MPA listener leaves its connections
 * alive. */
struct sctp_glue {
	ddp_conn_glue g;
	struct event_base *base;
	ddp_sctp_ep *ep;
	int outgoing;
	int listener_gone; /* ddp_listener_free() was called */
	unsigned up;       /* associations up (listener side) */
	/* an asynchronous connect (ddp_sctp_connect_async / _addr) until up
	 * or down: the handle and its steps, what to open then */
	struct conn_async a;
	int port;
	ddp_ctx *ctx;
	ddp_sctp_config cfg;
	struct glue_free gf;
};

static void glue_release(struct sctp_glue *m);

static void on_assoc(ddp_sctp_assoc *a, ddp_session *s, int status, void *user)
{
	struct sctp_glue *m = user;
	m->a.connecting = 0; /* up or down: the handle is gone */
	if (status == 0) {
		if (!m->outgoing)
			m->up++;
		if (m->g.cb.up)
			m->g.cb.up(s, m->g.user);
		if (!m->outgoing)
			return; /* the peer initiates */
		for (uint32_t i = 0; i < ddp_session_nstreams(s); i++)
			if (ddp_sctp_initiate(a, i, NULL, 0) != 0) {
				ddp_sctp_close(a, 1);
				return;
			}
		return;
	}
	if (m->outgoing)
		m->g.dead = 1;
	if (!m->outgoing && s && m->up)
		m->up--;
	m->g.cb.down(s, status == DDP_ERR_CLOSED ? 0 : status, m->g.user);
	if (m->outgoing || (m->listener_gone && m->up == 0)) {
		m->g.dead = 1;
		glue_release(m);
	}
}

/* The endpoint goes (its free is deferred to the loop inside a callback,
 * and so is the glue's, after it, or ddp_ctx_free frees both). */
static void glue_release(struct sctp_glue *m)
{
	ddp_sctp_ep_free(m->ep);
	glue_free_later(&m->gf, m->base, m->ctx, m);
}

static void on_ctl(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
                   const void *priv, size_t priv_len, void *user)
{
	struct sctp_glue *m = user;
	ddp_session *s = ddp_sctp_session(a);
	(void)status, (void)priv, (void)priv_len;
	switch (ev) {
	case DDP_SCTP_INITIATE:
		if (ddp_sctp_accept(a, stream, NULL, 0) == 0)
			m->g.cb.stream_open(s, stream, m->g.user);
		return;
	case DDP_SCTP_ACCEPTED:
		m->g.cb.stream_open(s, stream, m->g.user);
		return;
	case DDP_SCTP_REJECTED: /* a stream the peer will not carry */
		ddp_sctp_close(a, 0);
		return;
	case DDP_SCTP_CANCELLED:
		return;
	}
}

static int glue_alloc(struct event_base *base, ddp_ctx *ctx, const ddp_conn_callbacks *cb,
                      void *user, int outgoing, struct sctp_glue **out)
{
	if (!base || !ctx || !cb || !cb->ddp.deliver || !cb->stream_open || !cb->down)
		return DDP_ERR_INVAL;
	struct sctp_glue *m = calloc(1, sizeof(*m));
	if (!m)
		return DDP_ERR_NOMEM;
	m->g.cb = *cb;
	m->g.user = user;
	m->base = base;
	m->outgoing = outgoing;
	m->ctx = ctx;
	*out = m;
	return 0;
}

/* The glue's endpoint on bind_host:port with cfg's settings. */
static int glue_ep(struct sctp_glue *m, const char *bind_host, int port, const ddp_sctp_config *cfg)
{
	ddp_sctp_config c;
	if (cfg)
		c = *cfg;
	else
		memset(&c, 0, sizeof(c));
	c.addr = bind_host;
	c.port = port;
	c.ctx = m->ctx;
	c.ddp = *ddp_conn_trampolines();
	c.sctp.assoc = on_assoc;
	c.sctp.session_ctl = on_ctl;
	c.user = m;
	return ddp_sctp_ep_new(m->base, &c, &m->ep);
}

static int glue_new(struct event_base *base, ddp_ctx *ctx, const char *bind_host, int port,
                    const ddp_sctp_config *cfg, const ddp_conn_callbacks *cb, void *user,
                    int outgoing, struct sctp_glue **out)
{
	struct sctp_glue *m;
	int rc = glue_alloc(base, ctx, cb, user, outgoing, &m);
	if (rc == 0 && (rc = glue_ep(m, bind_host, port, cfg)) != 0)
		free(m);
	if (rc == 0)
		*out = m;
	return rc;
}

/* The numeric host of host:port, and the wildcard of its family to bind
 * our UDP socket to. */
static int numeric(const char *host, int port, int passive, char *num, size_t n, const char **any)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int rc = ddp_addr_resolve(host, port, passive, &ss, &sl);
	if (rc == 0)
		rc = ddp_addr_host((struct sockaddr *)&ss, sl, num, n);
	*any = ss.ss_family == AF_INET6 ? "::" : "0.0.0.0";
	return rc;
}

static int sctp_connect_to_in(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                              const ddp_sctp_config *cfg, const ddp_conn_callbacks *cb, void *user)
{
	char num[64];
	const char *any;
	struct sctp_glue *m;
	ddp_sctp_assoc *a;
	if (!host || port <= 0)
		return DDP_ERR_INVAL;
	int rc = numeric(host, port, 0, num, sizeof(num), &any);
	if (rc == 0)
		rc = glue_new(base, ctx, any, -1, cfg, cb, user, 1, &m);
	if (rc)
		return rc;
	rc = ddp_sctp_connect(m->ep, num, port, &a);
	if (rc) {
		ddp_sctp_ep_free(m->ep);
		free(m);
	}
	return rc;
}

int ddp_sctp_connect_to_sized(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                              const ddp_sctp_config *cfg, const ddp_conn_callbacks *cb, void *user,
                              uint64_t sizes)
{
	ddp_sctp_config cfg_v;
	ddp_conn_callbacks cb_v;
	int rc;
	rc = DDP_ABI_IN_HOLDER(cfg_v, cfg, sizes, 0);
	if (rc)
		return rc;
	rc = DDP_ABI_IN_HOLDER(cb_v, cb, sizes, 1);
	if (rc)
		return rc;
	return sctp_connect_to_in(base, ctx, host, port, cfg ? &cfg_v : NULL, cb ? &cb_v : NULL,
	                          user);
}

/* ------------------------------------------- asynchronous connect */

/* Cancelled while the association is being set up: its endpoint goes
 * (ABORT), no callback follows (g.dead, and the endpoint's own). */
static void async_stop(struct conn_async *a)
{
	glue_release((struct sctp_glue *)((char *)a - offsetof(struct sctp_glue, a)));
}

/* Open the endpoint for sa's family and the association to it. */
static int async_connect(struct conn_async *ca, const struct sockaddr *sa, socklen_t sl)
{
	struct sctp_glue *m = (struct sctp_glue *)((char *)ca - offsetof(struct sctp_glue, a));
	char num[64];
	ddp_sctp_assoc *a;
	int rc = ddp_addr_host(sa, sl, num, sizeof(num));
	if (rc == 0)
		rc = glue_ep(m, sa->sa_family == AF_INET6 ? "::" : "0.0.0.0", -1, &m->cfg);
	if (rc)
		return rc;
	rc = ddp_sctp_connect(m->ep, num, m->port, &a);
	if (rc) {
		ddp_sctp_ep_free(m->ep);
		m->ep = NULL;
	}
	return rc;
}

static int async_new(struct event_base *base, ddp_ctx *ctx, int port, const ddp_sctp_config *cfg,
                     const ddp_conn_callbacks *cb, void *user, struct sctp_glue **out)
{
	if (port <= 0 || port > 65535)
		return DDP_ERR_INVAL;
	int rc = glue_alloc(base, ctx, cb, user, 1, out);
	if (rc)
		return rc;
	if (cfg)
		(*out)->cfg = *cfg;
	(*out)->port = port;
	conn_async_init(&(*out)->a, *out, &(*out)->g, async_connect, async_stop);
	return 0;
}

static int sctp_connect_async_in(struct event_base *base, ddp_ctx *ctx, struct evdns_base *dns,
                                 const char *host, int port, const ddp_sctp_config *cfg,
                                 const ddp_conn_callbacks *cb, void *user, ddp_connecting **out)
{
	struct sctp_glue *m;
	if (!host)
		return DDP_ERR_INVAL;
	int rc = async_new(base, ctx, port, cfg, cb, user, &m);
	return rc ? rc : conn_async_by_name(&m->a, base, dns, host, port, SOCK_DGRAM, out);
}

int ddp_sctp_connect_async_sized(struct event_base *base, ddp_ctx *ctx, struct evdns_base *dns,
                                 const char *host, int port, const ddp_sctp_config *cfg,
                                 const ddp_conn_callbacks *cb, void *user, ddp_connecting **out,
                                 uint64_t sizes)
{
	ddp_sctp_config cfg_v;
	ddp_conn_callbacks cb_v;
	int rc;
	rc = DDP_ABI_IN_HOLDER(cfg_v, cfg, sizes, 0);
	if (rc)
		return rc;
	rc = DDP_ABI_IN_HOLDER(cb_v, cb, sizes, 1);
	if (rc)
		return rc;
	return sctp_connect_async_in(base, ctx, dns, host, port, cfg ? &cfg_v : NULL,
	                             cb ? &cb_v : NULL, user, out);
}

static int sctp_connect_addr_in(struct event_base *base, ddp_ctx *ctx, const struct sockaddr *sa,
                                unsigned int salen, const ddp_sctp_config *cfg,
                                const ddp_conn_callbacks *cb, void *user, ddp_connecting **out)
{
	struct sctp_glue *m;
	char num[64];
	int port;
	if (!sa || ddp_addr_host(sa, salen, num, sizeof(num)))
		return DDP_ERR_INVAL;
	port = sa->sa_family == AF_INET6 ? ntohs(((const struct sockaddr_in6 *)sa)->sin6_port)
	                                 : ntohs(((const struct sockaddr_in *)sa)->sin_port);
	int rc = async_new(base, ctx, port, cfg, cb, user, &m);
	return rc ? rc : conn_async_by_addr(&m->a, sa, salen, out);
}

int ddp_sctp_connect_addr_sized(struct event_base *base, ddp_ctx *ctx, const struct sockaddr *sa,
                                unsigned int salen, const ddp_sctp_config *cfg,
                                const ddp_conn_callbacks *cb, void *user, ddp_connecting **out,
                                uint64_t sizes)
{
	ddp_sctp_config cfg_v;
	ddp_conn_callbacks cb_v;
	int rc;
	rc = DDP_ABI_IN_HOLDER(cfg_v, cfg, sizes, 0);
	if (rc)
		return rc;
	rc = DDP_ABI_IN_HOLDER(cb_v, cb, sizes, 1);
	if (rc)
		return rc;
	return sctp_connect_addr_in(base, ctx, sa, salen, cfg ? &cfg_v : NULL, cb ? &cb_v : NULL,
	                            user, out);
}

static void listener_free(void *impl)
{
	struct sctp_glue *m = impl;
	/* no new association; those up live on, and the endpoint goes with
	 * the last (on_assoc). Inside a callback the endpoint's free is
	 * deferred to the loop, so is the glue's (the sessions' flushes still
	 * run the trampolines, which see g.dead). */
	m->listener_gone = 1;
	ddp_sctp_unlisten(m->ep);
	if (m->up == 0) {
		m->g.dead = 1;
		glue_release(m);
	}
}

static int listener_port(const void *impl)
{
	const struct sctp_glue *m = impl;
	return ddp_sctp_ep_port(m->ep);
}

static const ddp_listener_ops sctp_listener_ops = {.free = listener_free, .port = listener_port};

static int sctp_listen_on_in(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                             const ddp_sctp_config *cfg, const ddp_conn_callbacks *cb, void *user,
                             ddp_listener **out)
{
	char num[64];
	const char *any;
	struct sctp_glue *m;
	if (!out)
		return DDP_ERR_INVAL;
	int rc = host ? numeric(host, port, 1, num, sizeof(num), &any) : 0;
	if (!host)
		strcpy(num, "0.0.0.0"); /* every IPv4 address */
	if (rc == 0)
		rc = glue_new(base, ctx, num, port ? port : -1, cfg, cb, user, 0, &m);
	if (rc)
		return rc;
	rc = ddp_sctp_listen(m->ep);
	if (rc == 0)
		rc = ddp_listener_new(&sctp_listener_ops, m, out);
	if (rc) {
		ddp_sctp_ep_free(m->ep);
		free(m);
	}
	return rc;
}

int ddp_sctp_listen_on_sized(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                             const ddp_sctp_config *cfg, const ddp_conn_callbacks *cb, void *user,
                             ddp_listener **out, uint64_t sizes)
{
	ddp_sctp_config cfg_v;
	ddp_conn_callbacks cb_v;
	int rc;
	rc = DDP_ABI_IN_HOLDER(cfg_v, cfg, sizes, 0);
	if (rc)
		return rc;
	rc = DDP_ABI_IN_HOLDER(cb_v, cb, sizes, 1);
	if (rc)
		return rc;
	return sctp_listen_on_in(base, ctx, host, port, cfg ? &cfg_v : NULL, cb ? &cb_v : NULL,
	                         user, out);
}
