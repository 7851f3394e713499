/* The counting ULP of the one adapter model and both LLPs' setup calls
 * (conn_ulp.h). */
#include "conn_ulp.h"

#if HAVE_LIBEVENT && HAVE_USRSCTP
#include <stddef.h>

#include <ddp/mpa.h>

#include "net_helpers.h"

static void deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)d, (void)user;
}

static void up(ddp_session *s, void *user)
{
	struct conn_end *e = user;
	e->s = s;
	e->ups++;
	if (e->handle)
		*e->handle = NULL;
}

static void stream_open(ddp_session *s, uint32_t stream, void *user)
{
	struct conn_end *e = user;
	e->opens++;
	for (int i = 0; i < 4 && stream == 0; i++)
		ddp_post_recv(s, 0, 0, e->buf[i], sizeof(e->buf[i]), NULL);
}

void conn_ulp_stream_event(ddp_session *s, uint32_t stream, enum ddp_stream_event ev,
			   int status, void *user)
{
	(void)user, (void)status;
	if (ev == DDP_EV_HALF_CLOSED)
		ddp_stream_close(s, stream);
}

static void down(ddp_session *s, int status, void *user)
{
	struct conn_end *e = user;
	(void)s;
	e->downs++;
	e->status = status;
	e->s = NULL;
	if (e->handle)
		*e->handle = NULL;
}

const ddp_conn_callbacks conn_ulp = {
	.ddp = { .deliver = deliver, .stream_event = conn_ulp_stream_event },
	.up = up,
	.stream_open = stream_open,
	.down = down,
};

void conn_ulp_wait(struct event_base *base, const int *count, int want, double secs)
{
	double end = net_now_s() + secs;
	while (*count < want && net_now_s() < end)
		net_run_for(base, 0.01);
}

int conn_listen_on(enum conn_llp llp, struct event_base *base, ddp_ctx *ctx, const char *host,
		   const ddp_sctp_config *sc, const ddp_conn_callbacks *cb, void *user,
		   ddp_listener **out)
{
	if (llp == CONN_MPA)
		return ddp_mpa_listen_on(base, ctx, host, 0, NULL, cb, user, out);
	return ddp_sctp_listen_on(base, ctx, host, 0, sc, cb, user, out);
}

int conn_connect_to(enum conn_llp llp, struct event_base *base, ddp_ctx *ctx, const char *host,
		    int port, const ddp_sctp_config *sc, const ddp_conn_callbacks *cb, void *user)
{
	if (llp == CONN_MPA)
		return ddp_mpa_connect_to(base, ctx, host, port, NULL, cb, user);
	return ddp_sctp_connect_to(base, ctx, host, port, sc, cb, user);
}
#endif
