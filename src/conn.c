/* The one adapter model's shared pieces (ddp.h, llp.h): the data-path
 * trampolines of a session made by *_connect_to / *_listen_on, the
 * listener handle over either adapter, and a session's addresses. */
#include <stdlib.h>
#include <string.h>

#include "conn_glue.h"
#include "core.h"

static void t_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	const ddp_conn_glue *g = user;
	if (g && !g->dead)
		g->cb.ddp.deliver(s, d, g->user);
}

static void t_send_done(ddp_session *s, uint32_t stream, void *ctx, int status, void *user)
{
	const ddp_conn_glue *g = user;
	if (g && !g->dead && g->cb.ddp.send_done)
		g->cb.ddp.send_done(s, stream, ctx, status, g->user);
}

static void t_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	const ddp_conn_glue *g = user;
	if (g && !g->dead && g->cb.ddp.error)
		g->cb.ddp.error(s, e, g->user);
}

static void t_stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev, int status,
                           void *user)
{
	const ddp_conn_glue *g = user;
	if (g && !g->dead && g->cb.ddp.stream_event)
		g->cb.ddp.stream_event(s, stream, ev, status, g->user);
}

static void t_writable(ddp_session *s, uint32_t stream, void *user)
{
	const ddp_conn_glue *g = user;
	if (g && !g->dead && g->cb.ddp.writable)
		g->cb.ddp.writable(s, stream, g->user);
}

static const ddp_callbacks trampolines = {
    .deliver = t_deliver,
    .send_done = t_send_done,
    .error = t_error,
    .stream_event = t_stream_event,
    .writable = t_writable,
};

const ddp_callbacks *ddp_conn_trampolines(void)
{
	return &trampolines;
}

struct ddp_listener {
	const ddp_listener_ops *ops;
	void *impl;
};

int ddp_listener_new(const ddp_listener_ops *ops, void *impl, ddp_listener **out)
{
	if (!ops || !ops->free || !ops->port || !out)
		return DDP_ERR_INVAL;
	ddp_listener *l = malloc(sizeof(*l));
	if (!l)
		return DDP_ERR_NOMEM;
	l->ops = ops;
	l->impl = impl;
	*out = l;
	return 0;
}

int ddp_listener_port(const ddp_listener *l)
{
	return l ? l->ops->port(l->impl) : DDP_ERR_INVAL;
}

void ddp_listener_free(ddp_listener *l)
{
	if (!l)
		return;
	l->ops->free(l->impl);
	free(l);
}

void ddp_connect_cancel(ddp_connecting *h)
{
	if (h && h->cancel)
		h->cancel(h);
}

int ddp_session_addr(const ddp_session *s, int peer, char *buf, size_t len)
{
	if (!s || !buf || len < 2)
		return DDP_ERR_INVAL;
	strcpy(buf, "?");
	if (!s->ops->addr)
		return DDP_ERR_UNSUPPORTED;
	return s->ops->addr(s->llp, peer, buf, len);
}
