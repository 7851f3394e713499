/* ddp-perf --latency, the reference row: raw TCP, one connection carrying
 * every channel, each message framed by a 4-octet length (little
 * endian). The sender stamps a message when it appends it to the
 * connection's user-space queue (a bufferevent, as DDP's send queue);
 * the receiver records it when the whole frame has arrived. */
#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/listener.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "latency.h"

struct tend {
	struct event_base *base;
	const struct lat_opts *o;
	struct lat_shm *sh;
	struct bufferevent *bev;
	struct evconnlistener *l;
	struct lat_pace pace;
	struct event *tick;
	uint32_t *seq;
	uint8_t *body;
	double t0, t_end;
	int up;
};

static void no_delay(evutil_socket_t fd, const char *cc)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	bench_set_cc(fd, cc);
}

/* ---------------------------------------------------------- receiver */

static void rx_read(struct bufferevent *bev, void *arg)
{
	struct tend *t = arg;
	struct evbuffer *in = bufferevent_get_input(bev);
	for (;;) {
		uint8_t lb[4];
		if (evbuffer_copyout(in, lb, 4) < 4)
			return;
		uint32_t len = (uint32_t)lb[0] | (uint32_t)lb[1] << 8 | (uint32_t)lb[2] << 16 |
			       (uint32_t)lb[3] << 24;
		if (evbuffer_get_length(in) < 4 + (size_t)len)
			return;
		evbuffer_drain(in, 4);
		uint8_t hdr[LAT_HDR] = { 0 };
		evbuffer_copyout(in, hdr, len < LAT_HDR ? len : LAT_HDR);
		/* the length check wants the message's, the header its start */
		if (len >= LAT_HDR)
			lat_record(t->sh, hdr, len, t->o);
		else
			t->sh->bad++;
		evbuffer_drain(in, len);
	}
}

static void rx_event(struct bufferevent *bev, short what, void *arg)
{
	struct tend *t = arg;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		bufferevent_free(bev);
		if (t->bev == bev)
			t->bev = NULL;
	}
}

static void on_accept(struct evconnlistener *l, evutil_socket_t fd, struct sockaddr *sa, int len,
		      void *arg)
{
	struct tend *t = arg;
	if (t->bev) { /* one connection per run */
		evutil_closesocket(fd);
		return;
	}
	no_delay(fd, t->o->tcp_cc);
	t->bev = bufferevent_socket_new(t->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (!t->bev) {
		evutil_closesocket(fd);
		return;
	}
	bufferevent_setcb(t->bev, rx_read, NULL, rx_event, t);
	bufferevent_enable(t->bev, EV_READ);
}

static void on_signal(evutil_socket_t sig, short what, void *arg)
{
	event_base_loopbreak(arg);
}

int lat_tcp_serve(struct event_base *base, const struct lat_opts *o, const char *host,
		  int announce_fd, struct lat_shm *sh)
{
	struct tend t = { .base = base, .o = o, .sh = sh };
	struct sockaddr_in sa = { .sin_family = AF_INET };
	inet_pton(AF_INET, host, &sa.sin_addr);
	t.l = evconnlistener_new_bind(base, on_accept, &t, LEV_OPT_CLOSE_ON_FREE | LEV_OPT_REUSEABLE,
				      16, (struct sockaddr *)&sa, sizeof(sa));
	if (!t.l) {
		lat_fail(sh, "TCP listen: %s", strerror(errno));
		close(announce_fd);
		return -1;
	}
	socklen_t sl = sizeof(sa);
	getsockname(evconnlistener_get_fd(t.l), (struct sockaddr *)&sa, &sl);
	dprintf(announce_fd, "%d\n", ntohs(sa.sin_port));
	close(announce_fd);
	struct event *si = evsignal_new(base, SIGTERM, on_signal, base);
	event_add(si, NULL);
	event_base_dispatch(base);
	event_free(si);
	if (t.bev)
		bufferevent_free(t.bev);
	evconnlistener_free(t.l);
	return 0;
}

/* ------------------------------------------------------------ sender */

static void send_one(struct tend *t, int ch)
{
	uint8_t f[4 + LAT_HDR];
	uint32_t len = (uint32_t)t->o->size;
	for (int i = 0; i < 4; i++)
		f[i] = (uint8_t)(len >> (8 * i));
	lat_stamp(f + 4, (uint32_t)ch, t->seq[ch]++);
	bufferevent_write(t->bev, f, sizeof(f));
	bufferevent_write(t->bev, t->body, t->o->size - LAT_HDR);
	t->pace.done_n[ch]++;
	t->sh->sent++;
}

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	struct tend *t = arg;
	double now = now_s();
	if (t->sh->failed) {
		event_base_loopbreak(t->base);
		return;
	}
	if (now < t->t0 + t->o->duration) {
		for (int ch = 0; ch < t->o->streams; ch++)
			for (uint64_t owe = lat_pace_owed(&t->pace, ch, now); owe; owe--)
				send_one(t, ch);
		return;
	}
	if (!t->t_end)
		t->t_end = now;
	if (__atomic_load_n(&t->sh->delivered, __ATOMIC_RELAXED) >= t->sh->sent ||
	    now > t->t_end + t->o->drain)
		event_base_loopbreak(t->base);
}

static void tx_event(struct bufferevent *bev, short what, void *arg)
{
	struct tend *t = arg;
	if (what & BEV_EVENT_CONNECTED) {
		no_delay(bufferevent_getfd(bev), t->o->tcp_cc);
		t->t0 = now_s();
		if (lat_pace_init(&t->pace, t->o, t->t0)) {
			lat_fail(t->sh, "out of memory");
			event_base_loopbreak(t->base);
			return;
		}
		t->tick = event_new(t->base, -1, EV_PERSIST, on_tick, t);
		struct timeval tv = { 0, 1000 };
		event_add(t->tick, &tv);
		return;
	}
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR)) {
		lat_fail(t->sh, "TCP connection ended: %s", strerror(EVUTIL_SOCKET_ERROR()));
		event_base_loopbreak(t->base);
	}
}

static void on_setup_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct tend *t = arg;
	if (!t->t0) {
		lat_fail(t->sh, "TCP connect did not finish in 10 s");
		event_base_loopbreak(t->base);
	}
}

int lat_tcp_client(struct event_base *base, const struct lat_opts *o,
		   const struct sockaddr_in *addr, struct lat_shm *sh, double *sent_secs)
{
	struct tend t = { .base = base, .o = o, .sh = sh };
	*sent_secs = 0;
	t.seq = calloc((size_t)o->streams, sizeof(*t.seq));
	t.body = calloc(1, o->size);
	t.bev = bufferevent_socket_new(base, -1, BEV_OPT_CLOSE_ON_FREE);
	if (!t.seq || !t.body || !t.bev) {
		lat_fail(sh, "out of memory");
		goto out;
	}
	bufferevent_setcb(t.bev, NULL, NULL, tx_event, &t);
	bufferevent_enable(t.bev, EV_WRITE);
	if (bufferevent_socket_connect(t.bev, (const struct sockaddr *)addr, sizeof(*addr))) {
		lat_fail(sh, "TCP connect: %s", strerror(errno));
		goto out;
	}
	struct event *to = evtimer_new(base, on_setup_timeout, &t);
	struct timeval tv = { 10, 0 };
	evtimer_add(to, &tv);
	event_base_dispatch(base);
	event_free(to);
	if (t.t0)
		*sent_secs = (t.t_end ? t.t_end : now_s()) - t.t0;
	if (!t.t_end && !sh->failed)
		lat_fail(sh, "the run did not finish");
out:
	if (t.tick)
		event_free(t.tick);
	if (t.bev)
		bufferevent_free(t.bev);
	lat_pace_free(&t.pace);
	free(t.seq);
	free(t.body);
	return sh->failed ? -1 : 0;
}
