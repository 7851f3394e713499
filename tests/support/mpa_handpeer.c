/* Our MPA connection to a peer played by hand (mpa_handpeer.h). */
#include "mpa_handpeer.h"

#if HAVE_LIBEVENT
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <event2/event.h>

#include "net_helpers.h"

char handpeer_log[4096];

static void on_log(void *user, enum ddp_log_level level, const char *msg)
{
	size_t n = strlen(handpeer_log);
	(void)user, (void)level;
	snprintf(handpeer_log + n, sizeof(handpeer_log) - n, "%s\n", msg);
}

static void on_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	(void)s, (void)d, (void)user;
}

static void on_send_done(ddp_session *s, uint32_t st, void *ctx, int status, void *user)
{
	struct handpeer *p = user;
	(void)s, (void)st, (void)ctx;
	if (status == 0)
		p->done_ok++;
	else
		p->done_bad++;
}

static void on_stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event e, int status,
			    void *user)
{
	struct handpeer *p = user;
	(void)s, (void)st, (void)e;
	if (status < 0 && !p->stream_err)
		p->stream_err = status;
}

const ddp_callbacks handpeer_cbs = {
	.deliver = on_deliver,
	.send_done = on_send_done,
	.stream_event = on_stream_event,
};

void handpeer_on_event(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t code, void *user)
{
	struct handpeer *p = user;
	(void)c, (void)code;
	if (ev == DDP_MPA_CONNECTED) {
		p->connected = 1;
		return;
	}
	p->failed = 1;
	p->fail_err = err;
	p->t_failed = net_now_s();
}

ddp_mpa_config handpeer_config(unsigned dead_ms)
{
	ddp_mpa_config mc;
	memset(&mc, 0, sizeof(mc));
	mc.revision = 1;
	mc.dead_peer_timeout_ms = dead_ms;
	mc.session.max_tx_queued = 64;
	return mc;
}

int handpeer_respond(struct event_base *base, int fd, const int *connected)
{
	uint8_t req[20], rep[20];
	size_t got = 0;
	for (int i = 0; i < 500 && got < 20; i++) {
		net_run_for(base, 0.01);
		ssize_t r = recv(fd, req + got, 20 - got, MSG_DONTWAIT);
		if (r > 0)
			got += (size_t)r;
	}
	if (got != 20 || memcmp(req, "MPA ID Req Frame", 16) != 0)
		return -1;
	memcpy(rep, "MPA ID Rep Frame", 16);
	rep[16] = 0x40; /* C */
	rep[17] = 1;
	rep[18] = rep[19] = 0;
	if (send(fd, rep, 20, 0) != 20)
		return -1;
	for (int i = 0; i < 500 && !*connected; i++)
		net_run_for(base, 0.01);
	return *connected ? 0 : -1;
}

void handpeer_top_up(struct handpeer *p)
{
	static uint8_t payload[HANDPEER_PAYLOAD];
	struct iovec v = { payload, sizeof(payload) };
	while (ddp_send_untagged(ddp_mpa_session(p->c), 0, 0, 0, &v, 1, NULL) == 0)
		;
}

uint64_t handpeer_drain(int fd, uint64_t most)
{
	static uint8_t sink[65536];
	uint64_t n = 0;
	ssize_t r;
	while (n < most &&
	       (r = recv(fd, sink, most - n < sizeof(sink) ? (size_t)(most - n) : sizeof(sink),
			 MSG_DONTWAIT)) > 0)
		n += (uint64_t)r;
	return n;
}

int handpeer_env_new(struct event_base **base, ddp_ctx **ctx)
{
	ddp_ctx_config cc = { .log = on_log };
	handpeer_log[0] = 0;
	*base = event_base_new();
	return *base && ddp_ctx_new(&cc, ctx) == 0 ? 0 : -1;
}

int handpeer_env_free(struct event_base *base, ddp_ctx *ctx)
{
	int rc = ddp_ctx_free(ctx);
	event_base_free(base);
	return rc == 0 ? 0 : -1;
}
#endif
