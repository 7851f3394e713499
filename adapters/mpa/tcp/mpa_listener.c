/*
 * MPA/TCP listener on a libevent event_base: accepts TCP connections and
 * starts each as an MPA Responder, with a cap on connections still in
 * start-up (half-open floods), caps on connections in total and per
 * source address (stalled ones make room first, idle ones only when none
 * is stalled: mpa_conn_set.c), and a pause when descriptors run out.
 * Every line a peer can trigger is rate-limited (src/log_limit.h).
 */
#include "mpa/tcp/mpa_tcp_int.h"

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <ddp/llp.h>
#include "common/peer_addr.h"
#include "abi.h"
#include "log_limit.h"

struct ddp_mpa_listener {
	struct event_base *base;
	ddp_ctx *ctx;
	int fd;
	struct event *ev_accept, *ev_resume;
	struct startup_count *sc;
	ddp_mpa_config cfg;
	uint8_t priv[512];
	ddp_callbacks cb;
	ddp_mpa_accept_cb accept;
	ddp_mpa_event_cb ev;
	void *user;
	/* on_accept's frame (src/life.h): an eviction there reports to the
	 * application, which may free the listener */
	struct ddp_life life;
};

static void listener_destroy(ddp_mpa_listener *l);

static void on_accept_resume(evutil_socket_t fd, short what, void *arg)
{
	ddp_mpa_listener *l = arg;
	event_add(l->ev_accept, NULL);
}

/* At the start-up cap (half-open / slowloris floods) the oldest connection
 * still in start-up without a complete MPA Request makes room: a new good
 * client is served, and a slow one holds a slot only until max_startup
 * newer connections arrived. Returns 1 when a slot was freed. */
static int evict_oldest(ddp_mpa_listener *l)
{
	ddp_mpa_conn *old = mpa_tcp_startup_oldest(l->sc);
	char a[DDP_ADDR_STRLEN];
	if (!old)
		return 0;
	ddp_llp_log_limited(l->ctx, DDP_LOGK_MPA_STARTUP_EVICT, DDP_LOG_WARN,
	                    "MPA start-up cap %u reached: evicted %s (no MPA Request "
	                    "after %llu ms)",
	                    l->cfg.max_startup, ddp_fd_peer_fmt(old->fd, a),
	                    (unsigned long long)(mpa_tcp_now_ms() - old->born_ms));
	mpa_tcp_evict(old);
	return 1;
}

/* Reset and close a connection we do not take. */
static void refuse(int fd)
{
	struct linger lg = {1, 0};
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

/* A connection cap (max_conns, or max_conns_per_addr for src) is reached
 * as fd arrives: the victim mpa_conns_victim names makes room. Returns 1
 * when one was ended, 0 when none may go (the caller refuses fd); either
 * is logged. */
static int make_room(ddp_mpa_listener *l, const struct mpa_src *src, unsigned cap, int fd)
{
	char a[DDP_ADDR_STRLEN];
	const char *what = src ? "per-source connection" : "connection";
	uint64_t now = mpa_tcp_mono_ms();
	enum mpa_victim why;
	ddp_mpa_conn *old = mpa_conns_victim(l->sc, src, now, &why);
	ddp_fd_peer_fmt(fd, a);
	if (!old) {
		ddp_llp_log_limited(l->ctx, DDP_LOGK_MPA_CONN_REFUSE, DDP_LOG_WARN,
		                    "MPA %s cap %u reached, none idle or stalled: refused %s", what,
		                    cap, a);
		return 0;
	}
	const char *op = old->peer[0] ? old->peer : "?";
	unsigned long long q = (unsigned long long)(now - old->active_ms);
	if (why == MPA_VICTIM_STARTUP)
		ddp_llp_log_limited(
		    l->ctx, DDP_LOGK_MPA_CONN_EVICT, DDP_LOG_WARN,
		    "MPA %s cap %u reached: evicted %s (in MPA start-up for %llu ms) "
		    "for %s",
		    what, cap, op, (unsigned long long)(now - old->born_ms), a);
	else if (why == MPA_VICTIM_STALLED)
		ddp_llp_log_limited(l->ctx, DDP_LOGK_MPA_CONN_EVICT, DDP_LOG_WARN,
		                    "MPA %s cap %u reached: evicted %s (stalled: took nothing of "
		                    "what we send for %llu ms, idle for %llu ms) for %s",
		                    what, cap, op, (unsigned long long)(now - old->took_ms), q, a);
	else
		ddp_llp_log_limited(l->ctx, DDP_LOGK_MPA_CONN_EVICT, DDP_LOG_WARN,
		                    "MPA %s cap %u reached: evicted %s (idle for %llu ms) for %s",
		                    what, cap, op, q, a);
	if (why == MPA_VICTIM_STARTUP) {
		mpa_tcp_evict(old); /* the application never saw it */
		return 1;
	}
	mpa_tcp_startup_put(mpa_conns_remove(old));
	mpa_tcp_fail(old, DDP_ERR_LIMIT);
	return 1;
}

/* The caps on connections let fd in (after ending one if need be). */
static int admit(ddp_mpa_listener *l, int fd, struct mpa_src *src)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	memset(src, 0, sizeof(*src));
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
		mpa_conns_src((struct sockaddr *)&ss, src);
	unsigned per = l->cfg.max_conns_per_addr, all = l->cfg.max_conns;
	if (per != UINT_MAX && src->len && mpa_conns_count(l->sc, src) >= per &&
	    !make_room(l, src, per, fd))
		return 0;
	if (all != UINT_MAX && mpa_conns_count(l->sc, NULL) >= all && !make_room(l, NULL, all, fd))
		return 0;
	return 1;
}

static void accept_some(ddp_mpa_listener *l);

static void on_accept(evutil_socket_t lfd, short what, void *arg)
{
	ddp_mpa_listener *l = arg;
	life_enter(&l->life);
	accept_some(l);
	if (life_leave(&l->life))
		listener_destroy(l);
}

static void accept_some(ddp_mpa_listener *l)
{
	for (int i = 0; i < 64 && !l->life.closing; i++) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				/* out of descriptors or memory: the pending
				 * connection stays readable; pause accepting for
				 * 100 ms instead of spinning on it */
				struct timeval tv = {0, 100000};
				event_del(l->ev_accept);
				evtimer_add(l->ev_resume, &tv);
			}
			return; /* EAGAIN or a transient error */
		}
		struct mpa_src src;
		if (!admit(l, fd, &src) || l->life.closing) {
			refuse(fd);
			continue;
		}
		if (l->sc->pending >= l->cfg.max_startup && !evict_oldest(l)) {
			/* every start-up slot holds a connection whose
			 * Request waits for the application: refuse */
			char a[DDP_ADDR_STRLEN];
			ddp_llp_log_limited(l->ctx, DDP_LOGK_MPA_STARTUP_REFUSE, DDP_LOG_WARN,
			                    "MPA start-up cap %u reached, all waiting "
			                    "for the application: refused %s",
			                    l->cfg.max_startup, ddp_fd_peer_fmt(fd, a));
			refuse(fd);
			continue;
		}
		ddp_mpa_conn *c;
		if (mpa_tcp_conn_new(l->base, l->ctx, fd, 0, 1, &l->cfg, &l->cb, l->accept, l->ev,
		                     l->user, &c) < 0) {
			close(fd);
			continue;
		}
		mpa_tcp_startup_add(c, l->sc);
		mpa_conns_add(l->sc, c, &src);
		mpa_tcp_start(c);
	}
}

int ddp_mpa_listen_sized(struct event_base *base, ddp_ctx *ctx, const struct sockaddr *sa,
                         socklen_t salen, const ddp_mpa_config *cfg, const ddp_callbacks *cb,
                         ddp_mpa_accept_cb accept, ddp_mpa_event_cb ev, void *user,
                         ddp_mpa_listener **out, uint64_t sizes)
{
	ddp_mpa_config cfg_v;
	ddp_callbacks cb_v;
	int rc;
	if (DDP_ABI_TAKE(rc, cfg_v, cfg, sizes, 0) || DDP_ABI_TAKE(rc, cb_v, cb, sizes, 1))
		return rc;
	if (!base || !ctx || !sa || !cb || !cb->deliver || !out)
		return DDP_ERR_INVAL;
	if (cfg && cfg->private_data_len > sizeof(((ddp_mpa_listener *)0)->priv))
		return DDP_ERR_INVAL;
	ddp_mpa_listener *l = calloc(1, sizeof(*l));
	if (!l)
		return DDP_ERR_NOMEM;
	l->base = base;
	l->ctx = ctx;
	if (cfg)
		l->cfg = *cfg;
	if (l->cfg.private_data_len) {
		memcpy(l->priv, cfg->private_data, l->cfg.private_data_len);
		l->cfg.private_data = l->priv;
	}
	l->cb = *cb;
	l->accept = accept;
	l->ev = ev;
	l->user = user;
	l->fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	int one = 1;
	if (l->fd >= 0 && mpa_tcp_set_congestion(l->fd, l->cfg.tcp_congestion) < 0) {
		close(l->fd);
		free(l);
		return DDP_ERR_INVAL;
	}
	l->cfg.tcp_congestion = NULL;          /* applied; accepted sockets inherit it */
	if (l->fd >= 0 && l->cfg.tcp_sndbuf) { /* inherited too */
		int sb = l->cfg.tcp_sndbuf > INT_MAX / 2 ? INT_MAX / 2 : (int)l->cfg.tcp_sndbuf;
		setsockopt(l->fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
	}
	if (l->fd < 0 || setsockopt(l->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(l->fd, sa, salen) < 0 || listen(l->fd, 128) < 0) {
		int e = errno;
		if (l->fd >= 0)
			close(l->fd);
		free(l);
		errno = e;
		return DDP_ERR_SYS;
	}
	l->ev_accept = event_new(base, l->fd, EV_READ | EV_PERSIST, on_accept, l);
	l->ev_resume = evtimer_new(base, on_accept_resume, l);
	l->sc = calloc(1, sizeof(*l->sc));
	if (l->sc)
		l->sc->refs = 1;
	if (!l->cfg.max_startup)
		l->cfg.max_startup = 1024;
	if (!l->cfg.max_conns)
		l->cfg.max_conns = 4096;
	if (!l->cfg.max_conns_per_addr)
		l->cfg.max_conns_per_addr = 1024;
	if (!l->ev_accept || !l->ev_resume || !l->sc || event_add(l->ev_accept, NULL) < 0) {
		if (l->ev_accept)
			event_free(l->ev_accept);
		if (l->ev_resume)
			event_free(l->ev_resume);
		free(l->sc);
		close(l->fd);
		free(l);
		return DDP_ERR_NOMEM;
	}
	*out = l;
	return 0;
}

int ddp_mpa_listener_port(const ddp_mpa_listener *l)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if (!l || getsockname(l->fd, (struct sockaddr *)&ss, &sl) < 0)
		return DDP_ERR_INVAL;
	if (ss.ss_family == AF_INET)
		return ntohs(((struct sockaddr_in *)&ss)->sin_port);
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return DDP_ERR_INVAL;
}

void ddp_mpa_listener_free(ddp_mpa_listener *l)
{
	if (!l || l->life.closing)
		return;
	if (life_close(&l->life))
		listener_destroy(l);
	else /* inside on_accept (an eviction's callback): when it unwinds */
		event_del(l->ev_accept);
}

static void listener_destroy(ddp_mpa_listener *l)
{
	event_free(l->ev_accept);
	if (l->ev_resume)
		event_free(l->ev_resume);
	mpa_tcp_startup_put(l->sc);
	close(l->fd);
	free(l);
}
