/* MPA/TCP's binding to the one adapter model (event/conn_setup.h, ddp.h
 * "one adapter model", mpa.h): a connection is dialled with
 * ddp_mpa_connect(), a listener is ddp_mpa_listen() accepting every
 * connection at once, the session is the connection's, and the
 * connection is freed after down(). MPA carries one DDP stream per
 * connection (RFC 5044 §5: the DDP stream is the TCP connection). */
#include <stddef.h>
#include <string.h>

#include <ddp/llp.h>
#include <ddp/mpa.h>

#include "event/conn_setup.h"
#include "conn_glue.h"

struct mpa_setup {
	ddp_mpa_config cfg; /* first (conn_setup.h) */
	uint8_t priv[512];  /* the Request's private data, the caller's copy may go */
	ddp_mpa_conn *c;    /* an outgoing connection until up or down */
	ddp_mpa_listener *l;
};

static void on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct conn_setup *cs = user;
	ddp_session *s = ddp_mpa_session(c);
	(void)code;
	if (ev == DDP_MPA_CONNECTED) {
		conn_setup_up(cs, s);
		conn_setup_open(cs, s, 0);
		return;
	}
	/* CLOSED: 0 in order, DDP_ERR_ABORTED after our abortive close */
	int status = ev == DDP_MPA_CLOSED     ? (err < 0 ? err : 0)
	             : ev == DDP_MPA_REJECTED ? DDP_ERR_REJECTED
	             : err                    ? err
	                                      : DDP_ERR_LLP;
	conn_setup_down(cs, s, status);
	ddp_mpa_set_user(c, NULL);
	ddp_mpa_conn_free(c); /* allowed inside its callbacks */
}

static int mpa_init(struct conn_setup *cs, int given)
{
	struct mpa_setup *m = conn_setup_llp(cs);
	if (!given)
		m->cfg.revision = 2;
	/* one DDP stream per connection: any other count is refused, not
	 * ignored */
	if (m->cfg.session.nstreams > 1 || m->cfg.private_data_len > sizeof(m->priv))
		return DDP_ERR_INVAL;
	if (m->cfg.private_data_len) {
		memcpy(m->priv, m->cfg.private_data, m->cfg.private_data_len);
		m->cfg.private_data = m->priv;
	}
	return 0;
}

static int mpa_dial(struct conn_setup *cs, const struct conn_where *w)
{
	struct mpa_setup *m = conn_setup_llp(cs);
	return ddp_mpa_connect(conn_setup_base(cs), conn_setup_ctx(cs), w->sa, w->salen, &m->cfg,
	                       ddp_conn_trampolines(), on_event, cs, &m->c);
}

static int mpa_listen(struct conn_setup *cs, const struct conn_where *w)
{
	struct mpa_setup *m = conn_setup_llp(cs);
	return ddp_mpa_listen(conn_setup_base(cs), conn_setup_ctx(cs), w->sa, w->salen, &m->cfg,
	                      ddp_conn_trampolines(), NULL, on_event, cs, &m->l);
}

/* A connect cancelled while TCP (or the MPA start-up) is under way: the
 * connection is reset, no event comes any more. */
static void mpa_stop(struct conn_setup *cs)
{
	struct mpa_setup *m = conn_setup_llp(cs);
	ddp_mpa_set_user(m->c, NULL);
	ddp_mpa_conn_free(m->c);
}

/* The listening socket goes; the connections it accepted stay. */
static void mpa_unlisten(struct conn_setup *cs)
{
	struct mpa_setup *m = conn_setup_llp(cs);
	ddp_mpa_listener_free(m->l);
	m->l = NULL;
}

static int mpa_port(const struct conn_setup *cs)
{
	const struct mpa_setup *m = conn_setup_llp_const(cs);
	return ddp_mpa_listener_port(m->l);
}

static const struct conn_setup_ops mpa_setup_ops = {
    .llp_size = sizeof(struct mpa_setup),
    .cfg_size = sizeof(ddp_mpa_config),
    .cfg_holds = 1,
    .init = mpa_init,
    .dial = mpa_dial,
    .listen = mpa_listen,
    .stop = mpa_stop,
    .unlisten = mpa_unlisten,
    .port = mpa_port,
};

int ddp_mpa_connect_to_sized(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                             const ddp_mpa_config *cfg, const ddp_conn_callbacks *cb, void *user,
                             uint64_t sizes)
{
	return conn_setup_connect_to(&mpa_setup_ops, base, ctx, host, port, cfg, cb, user, sizes);
}

int ddp_mpa_connect_async_sized(struct event_base *base, ddp_ctx *ctx, struct evdns_base *dns,
                                const char *host, int port, const ddp_mpa_config *cfg,
                                const ddp_conn_callbacks *cb, void *user, ddp_connecting **out,
                                uint64_t sizes)
{
	return conn_setup_connect_async(&mpa_setup_ops, base, ctx, dns, host, port, cfg, cb, user,
	                                out, sizes);
}

int ddp_mpa_connect_addr_sized(struct event_base *base, ddp_ctx *ctx, const struct sockaddr *sa,
                               socklen_t salen, const ddp_mpa_config *cfg,
                               const ddp_conn_callbacks *cb, void *user, ddp_connecting **out,
                               uint64_t sizes)
{
	return conn_setup_connect_addr(&mpa_setup_ops, base, ctx, sa, salen, cfg, cb, user, out,
	                               sizes);
}

int ddp_mpa_listen_on_sized(struct event_base *base, ddp_ctx *ctx, const char *host, int port,
                            const ddp_mpa_config *cfg, const ddp_conn_callbacks *cb, void *user,
                            ddp_listener **out, uint64_t sizes)
{
	return conn_setup_listen_on(&mpa_setup_ops, base, ctx, host, port, cfg, cb, user, out,
	                            sizes);
}
