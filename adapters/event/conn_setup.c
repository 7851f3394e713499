/* The one adapter model written once for both LLPs (conn_setup.h). */
#include "event/conn_setup.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "common/peer_addr.h"
#include "event/conn_async.h"
#include "event/glue_free.h"
#include "abi.h"
#include "conn_glue.h"

struct conn_setup {
	ddp_conn_glue g; /* first: what the trampolines read */
	const struct conn_setup_ops *ops;
	struct event_base *base;
	ddp_ctx *ctx;
	int outgoing;
	unsigned conns; /* a listener's connections that are up */
	unsigned refs;  /* conn_setup.h: the connection, or the listener + conns */
	/* an asynchronous connect until up or down */
	struct conn_async a;
	struct glue_free gf;
	max_align_t llp[]; /* the binding's state */
};

void *conn_setup_llp(struct conn_setup *cs)
{
	return cs->llp;
}

const void *conn_setup_llp_const(const struct conn_setup *cs)
{
	return cs->llp;
}

struct event_base *conn_setup_base(const struct conn_setup *cs)
{
	return cs->base;
}

ddp_ctx *conn_setup_ctx(const struct conn_setup *cs)
{
	return cs->ctx;
}

int conn_setup_outgoing(const struct conn_setup *cs)
{
	return cs->outgoing;
}

/* The caller's struct sizes, checked before anything else of the call: a
 * struct this release cannot read is refused for that alone. */
static int setup_sizes(const struct conn_setup_ops *ops, const void *cfg,
                       const ddp_conn_callbacks *cb, uint64_t sizes)
{
	ddp_conn_callbacks cb_v;
	int rc = DDP_ABI_IN_HOLDER(cb_v, cb, sizes, 1);
	if (rc == 0 && cfg) {
		void *tmp = malloc(ops->cfg_size);
		if (!tmp)
			return DDP_ERR_NOMEM;
		rc = ddp_abi_in(tmp, ops->cfg_size, ops->cfg_size, cfg, ddp_abi_size(sizes, 0),
		                ops->cfg_holds);
		free(tmp);
	}
	return rc;
}

/* A connect to host:port: the sizes first, then the peer's name. */
static int peer_args(const struct conn_setup_ops *ops, const void *cfg,
                     const ddp_conn_callbacks *cb, uint64_t sizes, const char *host, int port)
{
	int rc = setup_sizes(ops, cfg, cb, sizes);
	if (rc == 0 && (!host || port <= 0 || port > 65535))
		rc = DDP_ERR_INVAL;
	return rc;
}

/* The caller's settings (into the binding's state) and callbacks as
 * this release's structs; then the binding completes the settings. */
static int setup_new(const struct conn_setup_ops *ops, struct event_base *base, ddp_ctx *ctx,
                     const void *cfg, const ddp_conn_callbacks *cb, void *user, uint64_t sizes,
                     int outgoing, struct conn_setup **out)
{
	ddp_conn_callbacks cb_v;
	int rc = DDP_ABI_IN_HOLDER(cb_v, cb, sizes, 1);
	if (rc)
		return rc;
	struct conn_setup *cs = calloc(1, sizeof(*cs) + ops->llp_size);
	if (!cs)
		return DDP_ERR_NOMEM;
	/* the sizes first: a struct this release cannot read is refused for
	 * that, whatever else the call holds */
	rc = ddp_abi_in(cs->llp, ops->cfg_size, ops->cfg_size, cfg, ddp_abi_size(sizes, 0),
	                ops->cfg_holds);
	if (rc == 0 &&
	    (!base || !ctx || !cb || !cb_v.ddp.deliver || !cb_v.stream_open || !cb_v.down))
		rc = DDP_ERR_INVAL;
	if (rc == 0)
		rc = ops->init(cs, cfg != NULL);
	if (rc) {
		free(cs);
		return rc;
	}
	cs->g.cb = cb_v;
	cs->g.user = user;
	cs->ops = ops;
	cs->base = base;
	cs->ctx = ctx;
	cs->outgoing = outgoing;
	cs->refs = 1;
	*out = cs;
	return 0;
}

/* After the last reference nothing calls the ULP any more; the block goes
 * from the loop (or in ddp_ctx_free), once the frames that read it are
 * gone (glue_free.h). */
static void setup_put(struct conn_setup *cs)
{
	if (--cs->refs)
		return;
	cs->g.dead = 1;
	if (cs->ops->release)
		cs->ops->release(cs);
	glue_free_later(&cs->gf, cs->base, cs->ctx, cs);
}

/* sa as the binding gets it: host is NULL when the caller gave none. */
static int where_of(const struct sockaddr *sa, unsigned int salen, int named, char *num, size_t n,
                    struct conn_where *w)
{
	if (salen < sizeof(sa_family_t) || (sa->sa_family != AF_INET && sa->sa_family != AF_INET6))
		return DDP_ERR_INVAL;
	if (sa->sa_family == AF_INET6 && salen < sizeof(struct sockaddr_in6))
		return DDP_ERR_INVAL;
	if (sa->sa_family == AF_INET && salen < sizeof(struct sockaddr_in))
		return DDP_ERR_INVAL;
	if (ddp_addr_host(sa, salen, num, n))
		return DDP_ERR_INVAL;
	w->sa = sa;
	w->salen = salen;
	w->host = named ? num : NULL;
	w->port = sa->sa_family == AF_INET6 ? ntohs(((const struct sockaddr_in6 *)sa)->sin6_port)
	                                    : ntohs(((const struct sockaddr_in *)sa)->sin_port);
	w->any = sa->sa_family == AF_INET6 ? "::" : "0.0.0.0";
	return 0;
}

static int dial_at(struct conn_setup *cs, const struct sockaddr *sa, unsigned int salen)
{
	char num[DDP_ADDR_STRLEN];
	struct conn_where w;
	int rc = where_of(sa, salen, 1, num, sizeof(num), &w);
	return rc ? rc : cs->ops->dial(cs, &w);
}

int conn_setup_connect_to(const struct conn_setup_ops *ops, struct event_base *base, ddp_ctx *ctx,
                          const char *host, int port, const void *cfg, const ddp_conn_callbacks *cb,
                          void *user, uint64_t sizes)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct conn_setup *cs;
	int rc = peer_args(ops, cfg, cb, sizes, host, port);
	if (rc == 0)
		rc = ddp_addr_resolve(host, port, 0, &ss, &sl);
	if (rc == 0)
		rc = setup_new(ops, base, ctx, cfg, cb, user, sizes, 1, &cs);
	if (rc)
		return rc;
	rc = dial_at(cs, (struct sockaddr *)&ss, sl);
	if (rc)
		free(cs); /* nothing began: no callback, no frame reads it */
	return rc;
}

/* ------------------------------------------- asynchronous connect */

static struct conn_setup *of_async(struct conn_async *a)
{
	return (struct conn_setup *)((char *)a - offsetof(struct conn_setup, a));
}

static int async_dial(struct conn_async *a, const struct sockaddr *sa, socklen_t sl)
{
	return dial_at(of_async(a), sa, sl);
}

/* Cancelled while the connection is being set up (g.dead is set). */
static void async_stop(struct conn_async *a)
{
	struct conn_setup *cs = of_async(a);
	if (cs->ops->stop)
		cs->ops->stop(cs);
	setup_put(cs);
}

int conn_setup_connect_async(const struct conn_setup_ops *ops, struct event_base *base,
                             ddp_ctx *ctx, struct evdns_base *dns, const char *host, int port,
                             const void *cfg, const ddp_conn_callbacks *cb, void *user,
                             ddp_connecting **out, uint64_t sizes)
{
	struct conn_setup *cs;
	int rc = peer_args(ops, cfg, cb, sizes, host, port);
	if (rc == 0)
		rc = setup_new(ops, base, ctx, cfg, cb, user, sizes, 1, &cs);
	if (rc)
		return rc;
	conn_async_init(&cs->a, cs, &cs->g, async_dial, async_stop);
	return conn_async_by_name(&cs->a, base, dns, host, port,
	                          ops->datagram ? SOCK_DGRAM : SOCK_STREAM, out);
}

int conn_setup_connect_addr(const struct conn_setup_ops *ops, struct event_base *base, ddp_ctx *ctx,
                            const struct sockaddr *sa, unsigned int salen, const void *cfg,
                            const ddp_conn_callbacks *cb, void *user, ddp_connecting **out,
                            uint64_t sizes)
{
	struct conn_setup *cs;
	char num[DDP_ADDR_STRLEN];
	struct conn_where w;
	int src = setup_sizes(ops, cfg, cb, sizes);
	if (src)
		return src;
	if (!sa || where_of(sa, salen, 1, num, sizeof(num), &w) || w.port <= 0)
		return DDP_ERR_INVAL;
	int rc = setup_new(ops, base, ctx, cfg, cb, user, sizes, 1, &cs);
	if (rc)
		return rc;
	conn_async_init(&cs->a, cs, &cs->g, async_dial, async_stop);
	return conn_async_by_addr(&cs->a, sa, salen, out);
}

/* ------------------------------------------------------ listener */

static void listener_free(void *impl)
{
	struct conn_setup *cs = impl;
	cs->ops->unlisten(cs);
	setup_put(cs);
}

static int listener_port(const void *impl)
{
	const struct conn_setup *cs = impl;
	return cs->ops->port(cs);
}

static const ddp_listener_ops setup_listener_ops = {.free = listener_free, .port = listener_port};

int conn_setup_listen_on(const struct conn_setup_ops *ops, struct event_base *base, ddp_ctx *ctx,
                         const char *host, int port, const void *cfg, const ddp_conn_callbacks *cb,
                         void *user, ddp_listener **out, uint64_t sizes)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct conn_setup *cs;
	char num[DDP_ADDR_STRLEN];
	struct conn_where w;
	int src = setup_sizes(ops, cfg, cb, sizes);
	if (src)
		return src;
	if (!out || port < 0 || port > 65535)
		return DDP_ERR_INVAL;
	int rc = ddp_addr_resolve(host, port, 1, &ss, &sl);
	if (rc == 0)
		rc = where_of((struct sockaddr *)&ss, sl, host != NULL, num, sizeof(num), &w);
	if (rc == 0)
		rc = setup_new(ops, base, ctx, cfg, cb, user, sizes, 0, &cs);
	if (rc)
		return rc;
	rc = ops->listen(cs, &w);
	if (rc) {
		free(cs);
		return rc;
	}
	rc = ddp_listener_new(&setup_listener_ops, cs, out);
	if (rc) { /* nothing was accepted yet: no callback, no frame */
		ops->unlisten(cs);
		if (ops->release)
			ops->release(cs);
		free(cs);
	}
	return rc;
}

/* ------------------------------------------- the connections' events */

void conn_setup_up(struct conn_setup *cs, ddp_session *s)
{
	cs->a.connecting = 0; /* the connect's handle is gone */
	if (!cs->outgoing) {
		cs->conns++; /* a listener's connection, now the ULP's */
		cs->refs++;
	}
	if (cs->g.cb.up)
		cs->g.cb.up(s, cs->g.user);
}

void conn_setup_open(struct conn_setup *cs, ddp_session *s, uint32_t stream)
{
	cs->g.cb.stream_open(s, stream, cs->g.user);
}

void conn_setup_down(struct conn_setup *cs, ddp_session *s, int status)
{
	cs->a.connecting = 0;
	if (cs->outgoing)
		cs->g.dead = 1; /* its one connection: nothing more for the ULP */
	cs->g.cb.down(s, status == DDP_ERR_CLOSED ? 0 : status, cs->g.user);
	if (cs->outgoing) {
		setup_put(cs);
	} else if (s && cs->conns) {
		cs->conns--;
		setup_put(cs);
	}
}
