/* MPA/TCP in the one adapter model (ddp.h "one adapter model", mpa.h):
 * host + port, ddp_conn_callbacks, the session is the connection, the
 * adapter frees the connection after down(). Built on the MPA calls of
 * mpa_tcp.c / mpa_listener.c. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <event2/event.h>

#include <ddp/llp.h>
#include <ddp/mpa.h>

#include "common/peer_addr.h"
#include "event/conn_async.h"
#include "event/glue_free.h"
#include "abi.h"
#include "conn_glue.h"

/* One glue per outgoing connection; one per listener, shared by its
 * connections (refs: the listener + every connection that is up). */
struct mpa_glue {
	ddp_conn_glue g;
	struct event_base *base;
	ddp_mpa_listener *l;
	unsigned refs;
	/* an asynchronous connect (ddp_mpa_connect_async / _addr) until up
	 * or down: the handle and its steps, what to connect with, the
	 * connection */
	struct conn_async a;
	ddp_ctx *ctx;
	ddp_mpa_config cfg;
	uint8_t priv[512];
	ddp_mpa_conn *c;
	struct glue_free gf;
};

/* After the last reference: freed from the loop (or by ddp_ctx_free),
 * once the connection freed inside this callback frame is gone (its
 * flushes may still run the trampolines, which see g.dead). */
static void glue_put(struct mpa_glue *m)
{
	if (--m->refs)
		return;
	glue_free_later(&m->gf, m->base, m->ctx, m);
}

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct mpa_glue *m = user;
	ddp_session *s = ddp_mpa_session(c);
	(void)code;
	m->a.connecting = 0; /* up or down: the handle is gone */
	if (ev == DDP_MPA_CONNECTED) {
		if (m->l)
			m->refs++; /* a listener's connection, now the ULP's */
		if (m->g.cb.up)
			m->g.cb.up(s, m->g.user);
		m->g.cb.stream_open(s, 0, m->g.user);
		return;
	}
	/* CLOSED: 0 in order, DDP_ERR_ABORTED after our abortive close */
	int status = ev == DDP_MPA_CLOSED     ? (err < 0 ? err : 0)
	             : ev == DDP_MPA_REJECTED ? DDP_ERR_REJECTED
	             : err                    ? err
	                                      : DDP_ERR_LLP;
	if (!m->l)
		m->g.dead = 1; /* one connection: nothing more for the ULP */
	m->g.cb.down(s, status, m->g.user);
	ddp_mpa_set_user(c, NULL);
	ddp_mpa_conn_free(c); /* allowed inside its callbacks */
	glue_put(m);
}

static int glue_new(struct event_base *base, ddp_ctx *ctx, const ddp_conn_callbacks *cb, void *user,
                    struct mpa_glue **out)
{
	if (!base || !cb || !cb->ddp.deliver || !cb->stream_open || !cb->down)
		return DDP_ERR_INVAL;
	struct mpa_glue *m = calloc(1, sizeof(*m));
	if (!m)
		return DDP_ERR_NOMEM;
	m->g.cb = *cb;
	m->g.user = user;
	m->base = base;
	m->ctx = ctx;
	m->refs = 1;
	*out = m;
	return 0;
}

static int mpa_connect_to_in(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                             const ddp_mpa_config *cfg, const ddp_conn_callbacks *cb, void *user)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct mpa_glue *m;
	ddp_mpa_conn *c;
	ddp_mpa_config def = {.revision = 2};
	if (!host || port <= 0)
		return DDP_ERR_INVAL;
	int rc = ddp_addr_resolve(host, port, 0, &ss, &sl);
	if (rc == 0)
		rc = glue_new(base, ctx, cb, user, &m);
	if (rc)
		return rc;
	rc = ddp_mpa_connect(base, ctx, (struct sockaddr *)&ss, sl, cfg ? cfg : &def,
	                     ddp_conn_trampolines(), on_event, m, &c);
	if (rc)
		free(m);
	return rc;
}

int ddp_mpa_connect_to_sized(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                             const ddp_mpa_config *cfg, const ddp_conn_callbacks *cb, void *user,
                             uint64_t sizes)
{
	ddp_mpa_config cfg_v;
	ddp_conn_callbacks cb_v;
	int rc;
	rc = DDP_ABI_IN(cfg_v, cfg, sizes, 0);
	if (rc)
		return rc;
	rc = DDP_ABI_IN_HOLDER(cb_v, cb, sizes, 1);
	if (rc)
		return rc;
	return mpa_connect_to_in(base, ctx, host, port, cfg ? &cfg_v : NULL, cb ? &cb_v : NULL,
	                         user);
}

/* ------------------------------------------- asynchronous connect */

/* Cancelled while TCP (or MPA start-up) is under way: reset it; the
 * session's flushes see g.dead, and no event comes any more. */
static void async_stop(struct conn_async *a)
{
	struct mpa_glue *m = (struct mpa_glue *)((char *)a - offsetof(struct mpa_glue, a));
	ddp_mpa_set_user(m->c, NULL);
	ddp_mpa_conn_free(m->c);
	glue_put(m);
}

static int async_connect(struct conn_async *a, const struct sockaddr *sa, socklen_t sl)
{
	struct mpa_glue *m = (struct mpa_glue *)((char *)a - offsetof(struct mpa_glue, a));
	return ddp_mpa_connect(m->base, m->ctx, sa, sl, &m->cfg, ddp_conn_trampolines(), on_event,
	                       m, &m->c);
}

static int async_new(struct event_base *base, ddp_ctx *ctx, const ddp_mpa_config *cfg,
                     const ddp_conn_callbacks *cb, void *user, struct mpa_glue **out)
{
	struct mpa_glue *m;
	if (!ctx)
		return DDP_ERR_INVAL;
	int rc = glue_new(base, ctx, cb, user, &m);
	if (rc)
		return rc;
	m->ctx = ctx;
	m->cfg = cfg ? *cfg : (ddp_mpa_config){.revision = 2};
	if (m->cfg.private_data_len > sizeof(m->priv)) {
		free(m);
		return DDP_ERR_INVAL;
	}
	if (m->cfg.private_data_len) { /* the caller's copy may go now */
		memcpy(m->priv, m->cfg.private_data, m->cfg.private_data_len);
		m->cfg.private_data = m->priv;
	}
	conn_async_init(&m->a, m, &m->g, async_connect, async_stop);
	*out = m;
	return 0;
}

static int mpa_connect_async_in(struct event_base *base, ddp_ctx *ctx, struct evdns_base *dns,
                                const char *host, int port, const ddp_mpa_config *cfg,
                                const ddp_conn_callbacks *cb, void *user, ddp_connecting **out)
{
	struct mpa_glue *m;
	if (!host || port <= 0 || port > 65535)
		return DDP_ERR_INVAL;
	int rc = async_new(base, ctx, cfg, cb, user, &m);
	return rc ? rc : conn_async_by_name(&m->a, base, dns, host, port, SOCK_STREAM, out);
}

int ddp_mpa_connect_async_sized(struct event_base *base, ddp_ctx *ctx, struct evdns_base *dns,
                                const char *host, int port, const ddp_mpa_config *cfg,
                                const ddp_conn_callbacks *cb, void *user, ddp_connecting **out,
                                uint64_t sizes)
{
	ddp_mpa_config cfg_v;
	ddp_conn_callbacks cb_v;
	int rc;
	rc = DDP_ABI_IN(cfg_v, cfg, sizes, 0);
	if (rc)
		return rc;
	rc = DDP_ABI_IN_HOLDER(cb_v, cb, sizes, 1);
	if (rc)
		return rc;
	return mpa_connect_async_in(base, ctx, dns, host, port, cfg ? &cfg_v : NULL,
	                            cb ? &cb_v : NULL, user, out);
}

static int mpa_connect_addr_in(struct event_base *base, ddp_ctx *ctx, const struct sockaddr *sa,
                               socklen_t salen, const ddp_mpa_config *cfg,
                               const ddp_conn_callbacks *cb, void *user, ddp_connecting **out)
{
	struct mpa_glue *m;
	if (!sa)
		return DDP_ERR_INVAL;
	int rc = async_new(base, ctx, cfg, cb, user, &m);
	return rc ? rc : conn_async_by_addr(&m->a, sa, salen, out);
}

int ddp_mpa_connect_addr_sized(struct event_base *base, ddp_ctx *ctx, const struct sockaddr *sa,
                               socklen_t salen, const ddp_mpa_config *cfg,
                               const ddp_conn_callbacks *cb, void *user, ddp_connecting **out,
                               uint64_t sizes)
{
	ddp_mpa_config cfg_v;
	ddp_conn_callbacks cb_v;
	int rc;
	rc = DDP_ABI_IN(cfg_v, cfg, sizes, 0);
	if (rc)
		return rc;
	rc = DDP_ABI_IN_HOLDER(cb_v, cb, sizes, 1);
	if (rc)
		return rc;
	return mpa_connect_addr_in(base, ctx, sa, salen, cfg ? &cfg_v : NULL, cb ? &cb_v : NULL,
	                           user, out);
}

static void listener_free(void *impl)
{
	struct mpa_glue *m = impl;
	ddp_mpa_listener_free(m->l);
	m->l = NULL;
	glue_put(m);
}

static int listener_port(const void *impl)
{
	const struct mpa_glue *m = impl;
	return ddp_mpa_listener_port(m->l);
}

static const ddp_listener_ops mpa_listener_ops = {.free = listener_free, .port = listener_port};

static int mpa_listen_on_in(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                            const ddp_mpa_config *cfg, const ddp_conn_callbacks *cb, void *user,
                            ddp_listener **out)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct mpa_glue *m;
	ddp_mpa_config def = {.revision = 2};
	if (!out)
		return DDP_ERR_INVAL;
	int rc = ddp_addr_resolve(host, port, 1, &ss, &sl);
	if (rc == 0)
		rc = glue_new(base, ctx, cb, user, &m);
	if (rc)
		return rc;
	rc = ddp_mpa_listen(base, ctx, (struct sockaddr *)&ss, sl, cfg ? cfg : &def,
	                    ddp_conn_trampolines(), NULL, on_event, m, &m->l);
	if (rc == 0)
		rc = ddp_listener_new(&mpa_listener_ops, m, out);
	if (rc) {
		ddp_mpa_listener_free(m->l);
		free(m);
	}
	return rc;
}

int ddp_mpa_listen_on_sized(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                            const ddp_mpa_config *cfg, const ddp_conn_callbacks *cb, void *user,
                            ddp_listener **out, uint64_t sizes)
{
	ddp_mpa_config cfg_v;
	ddp_conn_callbacks cb_v;
	int rc;
	rc = DDP_ABI_IN(cfg_v, cfg, sizes, 0);
	if (rc)
		return rc;
	rc = DDP_ABI_IN_HOLDER(cb_v, cb, sizes, 1);
	if (rc)
		return rc;
	return mpa_listen_on_in(base, ctx, host, port, cfg ? &cfg_v : NULL, cb ? &cb_v : NULL, user,
	                        out);
}
