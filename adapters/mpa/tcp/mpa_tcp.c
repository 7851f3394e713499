/*
 * An MPA connection over a TCP socket on a libevent event_base: its
 * making and lifetime; EV_READ runs the deframer (recv straight into the
 * placement destination), EV_WRITE flushes the FPDU queue with writev; a
 * start-up timer and the dead-peer check. The application's connect and
 * wrap calls are in mpa_conn_open.c, socket I/O in mpa_sock_io.c, the
 * listener in mpa_listener.c, everything protocol related in
 * adapters/mpa/mpa_proto.c.
 */
#include "mpa/tcp/mpa_tcp_int.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <event2/event.h>

#include <ddp/llp.h>
#include "common/heap_trim.h"
#include "common/peer_addr.h"
#include "conn_glue.h"
#include "dlist.h"
#include "log_limit.h"

mpa_proto *ev_mpa_core(const ddp_mpa_conn *c)
{
	return c ? c->mc : NULL;
}

/* ------------------------------------------------------ lifetime guard */

uint64_t mpa_tcp_now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

void mpa_tcp_startup_put(struct startup_count *sc)
{
	if (sc && --sc->refs == 0)
		free(sc);
}

static void enter(ddp_mpa_conn *c)
{
	life_enter(&c->life);
}

/* Leave an event handler's frame (nothing of another layer below it):
 * a connection freed meanwhile goes now. Returns 1 when c was freed. */
static int leave(ddp_mpa_conn *c)
{
	if (life_leave(&c->life)) {
		mpa_tcp_destroy(c);
		return 1;
	}
	return 0;
}

static void close_socket(ddp_mpa_conn *c, int reset)
{
	if (c->rev)
		event_del(c->rev);
	if (c->wev)
		event_del(c->wev);
	if (c->tmo)
		event_del(c->tmo);
	if (c->dl)
		event_del(c->dl);
	if (c->fd >= 0) {
		if (reset) {
			struct linger lg = {1, 0}; /* RST */
			setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
		}
		close(c->fd);
		c->fd = -1;
	}
}

void mpa_tcp_startup_add(ddp_mpa_conn *c, struct startup_count *sc)
{
	c->sc = sc;
	sc->refs++;
	sc->pending++;
	DLIST_APPEND_T(sc->head, sc->tail, c, su_prev, su_next);
}

ddp_mpa_conn *mpa_tcp_startup_oldest(struct startup_count *sc)
{
	for (ddp_mpa_conn *c = sc->head; c; c = c->su_next)
		if (!c->app_owned && !c->life.closing)
			return c;
	return NULL;
}

/* The connection is past its start-up (up, failed, rejected or freed). */
static void startup_done(ddp_mpa_conn *c)
{
	if (!c->sc)
		return;
	DLIST_UNLINK_T(c->sc->head, c->sc->tail, c, su_prev, su_next);
	c->sc->pending--;
	mpa_tcp_startup_put(c->sc);
	c->sc = NULL;
}

/* connections of this process, for giving freed heap back (heap_trim.h) */
static struct heap_trim conns_mem;

/* the last free of a connection */
static void conn_free_mem(ddp_mpa_conn *c)
{
	free(c);
	heap_trim_sub(&conns_mem, 1);
}

void mpa_tcp_destroy(ddp_mpa_conn *c)
{
	ddp_llp_release_done(&c->rel);
	startup_done(c);
	mpa_tcp_startup_put(mpa_conns_remove(c));
	close_socket(c, !c->finished);
	/* freed outside its callbacks, the work still queued comes back
	 * flushed from ddp_session_free(); a free from there is a no-op */
	c->life.closing = c->life.released = 1;
	c->finished = 1;
	if (c->s)
		ddp_session_free_owned(c->s);
	mpa_proto_free(c->mc);
	if (c->rev)
		event_free(c->rev);
	if (c->wev)
		event_free(c->wev);
	if (c->tmo)
		event_free(c->tmo);
	if (c->live)
		event_free(c->live);
	if (c->dl)
		event_free(c->dl);
	if (c->fin)
		event_free(c->fin);
	conn_free_mem(c);
}

/* Freed while a frame uses it: silent at once (no callback, nothing
 * placed, read or written), released when the last frame leaves. */
static void conn_stop(ddp_mpa_conn *c)
{
	startup_done(c);
	close_socket(c, !c->finished);
	if (c->s)
		ddp_llp_session_silence(c->s);
	mpa_proto_stop(c->mc);
}

void mpa_tcp_evict(ddp_mpa_conn *c)
{
	if (c->life.closing)
		return;
	if (life_close(&c->life))
		mpa_tcp_destroy(c); /* not finished: TCP reset */
	else
		conn_stop(c);
}

static void release_now(ddp_llp_release *r)
{
	mpa_tcp_destroy((ddp_mpa_conn *)((char *)r - offsetof(ddp_mpa_conn, rel)));
}

/* Leave a callback made from inside the DDP core or the MPA state machine:
 * when the connection was freed in it and no frame of ours is left, the
 * core's frames may still be below (the callback ran inside one of the
 * application's calls), so it is released from the loop (on_finish), or
 * by ddp_ctx_free() when that comes first. */
static void leave_cb(ddp_mpa_conn *c)
{
	if (life_leave(&c->life)) {
		c->rel.release = release_now;
		ddp_llp_release_defer(c->ctx, &c->rel);
		event_active(c->fin, EV_TIMEOUT, 1);
	}
}

void ddp_mpa_conn_free(ddp_mpa_conn *c)
{
	if (!c || c->life.closing)
		return;
	if (life_close(&c->life))
		mpa_tcp_destroy(c);
	else
		conn_stop(c);
}

/* ------------------------------------------- DDP callback trampolines */

static void t_deliver(ddp_session *s, const ddp_delivery *d, void *user)
{
	ddp_mpa_conn *c = user;
	if (!life_live(&c->life))
		return;
	enter(c);
	c->ucb.deliver(s, d, c->user);
	leave_cb(c);
}

static void t_send_done(ddp_session *s, uint32_t st, void *ctx, int status, void *user)
{
	ddp_mpa_conn *c = user;
	if (c->ucb.send_done && life_live(&c->life)) {
		enter(c);
		c->ucb.send_done(s, st, ctx, status, c->user);
		leave_cb(c);
	}
}

static void t_error(ddp_session *s, const ddp_error_info *e, void *user)
{
	ddp_mpa_conn *c = user;
	if (c->ucb.error && life_live(&c->life)) {
		enter(c);
		c->ucb.error(s, e, c->user);
		leave_cb(c);
	}
}

static void t_stream_event(ddp_session *s, uint32_t st, enum ddp_stream_event e, int status,
                           void *user)
{
	ddp_mpa_conn *c = user;
	if (c->ucb.stream_event && life_live(&c->life)) {
		enter(c);
		c->ucb.stream_event(s, st, e, status, c->user);
		leave_cb(c);
	}
}

static void t_writable(ddp_session *s, uint32_t st, void *user)
{
	ddp_mpa_conn *c = user;
	if (c->ucb.writable && life_live(&c->life)) {
		enter(c);
		c->ucb.writable(s, st, c->user);
		leave_cb(c);
	}
}

static const ddp_callbacks trampolines = {
    .deliver = t_deliver,
    .send_done = t_send_done,
    .error = t_error,
    .stream_event = t_stream_event,
    .writable = t_writable,
};

/* ---------------------------------------------------------- socket io */

static void io_shutdown(void *io, int abortive)
{
	ddp_mpa_conn *c = io;
	if (c->fd < 0)
		return;
	if (abortive)
		close_socket(c, 1);
	else
		shutdown(c->fd, SHUT_WR);
}

/* The connection's end for the application, or its release (leave_cb),
 * from the loop: no frame of the core or of the application's calls is
 * below. */
static void on_finish(evutil_socket_t fd, short what, void *arg)
{
	ddp_mpa_conn *c = arg;
	(void)fd, (void)what;
	if (c->life.released) {
		mpa_tcp_destroy(c);
		return;
	}
	enter(c);
	if (c->up_later && c->ev && life_live(&c->life)) {
		c->up_later = 0;
		c->ev(c, DDP_MPA_CONNECTED, 0, 0, c->user);
	}
	if (c->fin_later && c->ev && life_live(&c->life)) {
		c->fin_later = 0;
		c->ev(c, c->fin_e, c->fin_err, c->fin_code, c->user);
	}
	leave(c);
}

static void user_event(ddp_mpa_conn *c, enum ddp_mpa_event e, int err, uint8_t code)
{
	if (!c->app_owned) {
		/* a listener connection that failed before the application
		 * saw it (bad peer, timeout): free it quietly */
		if (e != DDP_MPA_CONNECTED) {
			enter(c); /* the MPA state machine is below us */
			mpa_tcp_evict(c);
			leave_cb(c);
		}
		return;
	}
	if (e != DDP_MPA_CONNECTED) {
		/* the end (down() in the one adapter model) comes from the
		 * loop on both LLPs, never inside the call that caused it
		 * (ddp_session_close(s, 1), ddp_stream_abort(), ...): ddp.h,
		 * "Callbacks" */
		c->fin_e = e;
		c->fin_err = err;
		c->fin_code = code;
		c->fin_later = 1;
		event_active(c->fin, EV_TIMEOUT, 1);
		return;
	}
	if (c->in_api) {
		/* full operation reached inside ddp_mpa_accept(): reported
		 * from the loop too. The peer sends nothing before our
		 * Reply arrived, so nothing is read before this event. */
		c->up_later = 1;
		event_active(c->fin, EV_TIMEOUT, 1);
		return;
	}
	if (c->ev && life_live(&c->life)) {
		enter(c);
		c->ev(c, e, err, code, c->user);
		leave_cb(c);
	}
}

static void io_event(void *io, enum mpa_proto_event e, int err, uint8_t ecode)
{
	ddp_mpa_conn *c = io;

	switch (e) {
	case MPA_CEV_WANT_WRITE:
		if (c->fd >= 0 && !c->connecting) {
			/* Flush later in this same loop iteration: everything the
			 * ULP posts from the callbacks running now leaves in one
			 * writev, without a round through epoll. on_write waits
			 * for EV_WRITE only when the socket is full. Not from
			 * inside on_write itself (completions there make the ULP
			 * send again): an event that re-activates itself runs
			 * again in the same pass of libevent's active queue, and
			 * with a peer draining the socket on another CPU that
			 * pass never ends and timers starve (docs/performance.md,
			 * section 7). on_write's epilogue waits for EV_WRITE
			 * through epoll instead. */
			if (err && !c->in_write)
				event_active(c->wev, EV_WRITE, 1);
			else if (!err)
				event_del(c->wev);
		}
		return;
	case MPA_CEV_STOP_READ:
		event_del(c->rev);
		return;
	case MPA_CEV_REQUEST:
		if (!life_live(&c->life))
			return;
		if (c->accept) {
			c->app_owned = 1;
			ddp_mpa_info info;
			mpa_tcp_info(c, &info);
			enter(c);
			c->accept(c, &info, c->user);
			leave_cb(c);
		} else {
			mpa_proto_accept(c->mc, NULL, 0);
		}
		return;
	case MPA_CEV_UP:
		startup_done(c);
		event_del(c->tmo);
		c->app_owned = 1;
		user_event(c, DDP_MPA_CONNECTED, 0, 0);
		return;
	case MPA_CEV_REJECTED:
		startup_done(c);
		c->finished = 1;
		close_socket(c, 0);
		user_event(c, DDP_MPA_REJECTED, err, ecode);
		return;
	case MPA_CEV_FAILED:
		startup_done(c);
		c->finished = 1;
		/* a bad start-up frame closes TCP at once (RFC 5044 §7.1) */
		close_socket(c, 1);
		user_event(c, DDP_MPA_FAILED, err, ecode);
		return;
	case MPA_CEV_CLOSED:
		c->finished = 1;
		close_socket(c, err != 0);
		user_event(c, DDP_MPA_CLOSED, err, 0);
		return;
	}
}

static void on_close_deadline(evutil_socket_t fd, short what, void *arg)
{
	ddp_mpa_conn *c = arg;
	(void)fd, (void)what;
	if (c->finished || !c->s)
		return;
	ddp_llp_log_limited(c->ctx, DDP_LOGK_MPA_CLOSE_DEADLINE, DDP_LOG_WARN,
	                    "MPA graceful close to %s not done by its deadline: reset", c->peer);
	enter(c);
	ddp_session_close(c->s, 1);
	leave(c);
}

static void io_close_deadline(void *io, unsigned ms)
{
	ddp_mpa_conn *c = io;
	if (c->fd < 0 || c->finished)
		return;
	if (!c->dl && !(c->dl = evtimer_new(c->base, on_close_deadline, c))) {
		ddp_session_close(c->s, 1); /* no timer: no wait either */
		return;
	}
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
	event_add(c->dl, &tv);
}

static const mpa_proto_io sock_io = {
    .read = mpa_tcp_read,
    .writev = mpa_tcp_writev,
    .shutdown = io_shutdown,
    .event = io_event,
    .readv = mpa_tcp_readv,
    .addr = mpa_tcp_addr,
    .close_deadline = io_close_deadline,
};

/* ------------------------------------------------------ event handlers */

static void on_read(evutil_socket_t fd, short what, void *arg)
{
	ddp_mpa_conn *c = arg;
	enter(c);
	c->reads++;
	mpa_conns_touch(c);
	c->rd_dry = 0;
	c->rd_budget = MPA_TCP_RD_BUDGET;
	mpa_proto_on_readable(c->mc);
	leave(c);
}

/* EMSS from the TCP MSS (RFC 5044 §4.1). TCP's MSS grows after the
 * connection starts (Linux bounds it by half the peer's first window:
 * 32 KiB on loopback at first, 64 KiB once the window opened), so this
 * runs again now and then; MULPDU changes go to DDP (DDP-LLP-1). */
static void refresh_emss(ddp_mpa_conn *c)
{
	int mss = 0;
	socklen_t ml = sizeof(mss);
	if (c->fd >= 0 && getsockopt(c->fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &ml) == 0 && mss > 0)
		mpa_proto_set_emss(c->mc, (uint32_t)mss);
}

/* Period of the liveness check: a quarter of the dead-peer timeout, at
 * most 1 s (TCP_USER_TIMEOUT must be lifted well before the kernel applies
 * it to a closed window, see on_live). */
static unsigned live_period_ms(const ddp_mpa_conn *c)
{
	unsigned p = c->dead_ms / 4;
	return p > 1000 ? 1000 : p < 50 ? 50 : p;
}

void mpa_tcp_start(ddp_mpa_conn *c)
{
	int one = 1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	mpa_tcp_set_dead_peer_timeout(c->fd, c->dead_ms);
	c->uto_off = 0;
	_Static_assert(sizeof(c->peer) >= DDP_ADDR_STRLEN, "peer address");
	ddp_fd_peer_fmt(c->fd, c->peer);
	refresh_emss(c);
	event_add(c->rev, NULL);
	struct timeval tv = {c->timeout_ms / 1000, (c->timeout_ms % 1000) * 1000};
	event_add(c->tmo, &tv);
	unsigned p = live_period_ms(c);
	struct timeval period = {p / 1000, (p % 1000) * 1000};
	event_add(c->live, &period);
	mpa_proto_start(c->mc);
}

static void on_write(evutil_socket_t fd, short what, void *arg)
{
	ddp_mpa_conn *c = arg;
	enter(c);
	if (c->connecting) {
		int err = 0;
		socklen_t l = sizeof(err);
		c->connecting = 0;
		event_del(c->wev);
		if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l) < 0 || err) {
			errno = err;
			/* the same codes as SCTP: refused, no answer, else */
			mpa_proto_on_failed(c->mc, err == ECONNREFUSED ? DDP_ERR_REJECTED
			                           : err == ETIMEDOUT  ? DDP_ERR_TIMEOUT
			                                               : DDP_ERR_SYS);
		} else {
			mpa_tcp_start(c);
		}
	} else {
		mpa_conns_touch(c);
		c->in_write = 1;
		mpa_proto_on_writable(c->mc);
		c->in_write = 0;
		if ((++c->flushes & 63) == 0)
			refresh_emss(c);
		if (c->fd >= 0 && c->mc) {
			if (mpa_proto_queued(c->mc))
				event_add(c->wev, NULL); /* socket full: wait */
			else
				event_del(c->wev);
		}
	}
	leave(c);
}

/* Slow is not dead: a peer is dead when it stops answering, not when it
 * stops accepting data. While nothing waits in the kernel, keepalive and
 * TCP_USER_TIMEOUT (mpa_sock_io.c) judge: an idle peer whose keepalive
 * probes go unanswered fails with ETIMEDOUT (DDP_ERR_TIMEOUT). While
 * octets wait, the kernel cannot tell a slow peer from a dead one: Linux
 * (since 5.11) applies TCP_USER_TIMEOUT to a window that stays closed,
 * answered probes or not, and to retransmissions the peer ACKs without
 * accepting them (its receive buffer shrank under what it had advertised:
 * the octets are dropped, the duplicate ACKs keep coming). RFC 1122
 * §4.2.2.17: the sender MUST keep the connection open as long as the
 * receiver answers. So while octets wait the user timeout is lifted and
 * this check judges: the peer is dead when something we sent after its
 * last ACK (data or a window probe) stays unanswered for dead_ms. The
 * kernel backs probes and retransmissions off (up to 2 min): a peer that
 * dies while nothing is sent is noticed at the next transmission + the
 * timeout. */
static void on_live(evutil_socket_t fd, short what, void *arg)
{
	ddp_mpa_conn *c = arg;
	/* counts of suppressed log lines come out after a flood too */
	ddp_llp_log_flush(c->ctx);
	if (c->finished || !c->mc || c->fd < 0 || mpa_proto_starting(c->mc))
		return;
	/* nothing read or written for a whole period: the receive ring and
	 * spare transmit blocks go back (they return when traffic does) */
	if (c->reads == c->reads_seen && c->flushes == c->flushes_seen)
		mpa_proto_quiet(c->mc);
	c->reads_seen = c->reads;
	c->flushes_seen = c->flushes;
	refresh_emss(c);
	struct tcp_info ti;
	socklen_t tl = sizeof(ti);
	int outq = 0; /* octets in the kernel: in flight or not yet sent */
	memset(&ti, 0, sizeof(ti));
	if (getsockopt(c->fd, IPPROTO_TCP, TCP_INFO, &ti, &tl) != 0 ||
	    ioctl(c->fd, TIOCOUTQ, &outq) != 0)
		return;
	uint64_t now = mpa_tcp_mono_ms();
	mpa_conns_check_drain(c, (uint64_t)outq, now);
	int waiting = outq > 0;
	if (waiting != c->uto_off) {
		mpa_tcp_set_user_timeout(c->fd, waiting ? 0 : c->dead_ms);
		c->uto_off = waiting;
	}
	/* asked and not (yet) answered: a window probe is out (the kernel
	 * clears the count at every ACK), or data left after the last ACK */
	int asked = ti.tcpi_probes > 0 || ti.tcpi_last_data_sent < ti.tcpi_last_ack_recv;
	if (!waiting || !asked) {
		c->probe_since = 0;
		return;
	}
	/* stamp the transmission (a probe's own time is unknown: now); an
	 * ACK at or after the stamp answered it, restamp the newer one */
	uint64_t ack_at = now - ti.tcpi_last_ack_recv;
	if (!c->probe_since || ack_at >= c->probe_since) {
		c->probe_since = ti.tcpi_probes ? now : now - ti.tcpi_last_data_sent;
		return;
	}
	if (now - c->probe_since < c->dead_ms)
		return;
	mpa_tcp_log_unresponsive(c, (unsigned)(now - c->probe_since));
	mpa_tcp_fail(c, DDP_ERR_TIMEOUT);
}

void mpa_tcp_fail(ddp_mpa_conn *c, int err)
{
	enter(c);
	mpa_proto_on_failed(c->mc, err);
	leave(c);
}

static void on_timeout(evutil_socket_t fd, short what, void *arg)
{
	ddp_mpa_conn *c = arg;
	char a[DDP_ADDR_STRLEN];
	ddp_llp_log_limited(c->ctx, DDP_LOGK_MPA_STARTUP_TIMEOUT, DDP_LOG_WARN,
	                    "MPA start-up timed out after %u ms: peer %s", c->timeout_ms,
	                    ddp_fd_peer_fmt(c->fd, a));
	enter(c);
	/* RFC 5044 §7.1: SHOULD time out waiting for start-up frames */
	mpa_proto_on_timeout(c->mc);
	leave(c);
}

/* --------------------------------------------------------- construction */

int mpa_tcp_conn_new(struct event_base *base, ddp_ctx *ctx, int fd, int initiator,
                     int listener_conn, const ddp_mpa_config *cfg, const ddp_callbacks *cb,
                     ddp_mpa_accept_cb accept, ddp_mpa_event_cb ev, void *user, ddp_mpa_conn **out)
{
	static const ddp_mpa_config defaults;
	if (!base || !ctx || !cb || !cb->deliver || !out)
		return DDP_ERR_INVAL;
	if (!cfg)
		cfg = &defaults;
	mpa_proto_config mc = {
	    .initiator = initiator,
	    .local =
	        {
	            .rev = cfg->revision ? cfg->revision : 2,
	            .markers = cfg->markers != 0,
	            .crc = !cfg->no_crc, /* RFC 5044 §4.4: default CRC on */
	            .p2p = cfg->peer_to_peer != 0,
	            .rtr = cfg->rtr,
	            .ird = cfg->ird,
	            .ord = cfg->ord,
	            .priv = cfg->private_data,
	            .priv_len = cfg->private_data_len,
	        },
	    .priv_cap = cfg->max_private_data,
	    .tx_cap = cfg->tx_queue_cap,
	};
	ddp_mpa_conn *c = calloc(1, sizeof(*c));
	if (!c)
		return DDP_ERR_NOMEM;
	heap_trim_add(&conns_mem, 1);
	c->base = base;
	c->ctx = ctx;
	c->born_ms = mpa_tcp_now_ms();
	c->fd = fd;
	c->ucb = *cb;
	c->ev = ev;
	c->accept = accept;
	c->user = user;
	c->app_owned = !listener_conn;
	c->timeout_ms = cfg->startup_timeout_ms ? cfg->startup_timeout_ms : 10000;
	c->dead_ms =
	    cfg->dead_peer_timeout_ms ? cfg->dead_peer_timeout_ms : DDP_DEAD_PEER_TIMEOUT_MS;
	int rc = mpa_proto_new(&mc, &sock_io, c, &c->mc);
	if (rc < 0) {
		conn_free_mem(c);
		return rc;
	}
	ddp_session_config sc = cfg->session;
	sc.nstreams = 1;
	rc = ddp_session_new(ctx, &sc, &mpa_proto_llp_ops, c->mc, &trampolines, c, &c->s);
	if (rc < 0) {
		mpa_proto_free(c->mc);
		conn_free_mem(c);
		return rc;
	}
	ddp_session_set_owned(c->s); /* freed with the connection */
	mpa_proto_attach(c->mc, c->s);
	c->rev = event_new(base, fd, EV_READ | EV_PERSIST, on_read, c);
	c->wev = event_new(base, fd, EV_WRITE | EV_PERSIST, on_write, c);
	c->tmo = evtimer_new(base, on_timeout, c);
	c->live = event_new(base, -1, EV_PERSIST, on_live, c);
	c->fin = event_new(base, -1, 0, on_finish, c);
	if (!c->rev || !c->wev || !c->tmo || !c->live || !c->fin) {
		c->fd = -1; /* not ours to close on failure */
		c->finished = 1;
		mpa_tcp_destroy(c);
		return DDP_ERR_NOMEM;
	}
	*out = c;
	return 0;
}

/* ------------------------------------------------------------ accessors */

int ddp_mpa_accept(ddp_mpa_conn *c, const void *priv, uint16_t len)
{
	if (!c)
		return DDP_ERR_INVAL;
	enter(c);
	c->in_api++;
	int rc = mpa_proto_accept(c->mc, priv, len);
	c->in_api--;
	leave_cb(c);
	return rc;
}

int ddp_mpa_reject(ddp_mpa_conn *c, const void *priv, uint16_t len)
{
	if (!c)
		return DDP_ERR_INVAL;
	enter(c);
	c->in_api++;
	int rc = mpa_proto_reject(c->mc, priv, len);
	c->in_api--;
	leave_cb(c);
	return rc;
}

int mpa_tcp_info(const ddp_mpa_conn *c, ddp_mpa_info *out)
{
	if (!c || !out)
		return DDP_ERR_INVAL;
	const mpa_frame *pf = mpa_proto_peer_frame(c->mc);
	if (!pf)
		return DDP_ERR_STATE;
	const mpa_result *r = mpa_proto_result(c->mc);
	memset(out, 0, sizeof(*out));
	out->initiator = mpa_proto_is_initiator(c->mc);
	out->revision = pf->rev;
	out->private_data = pf->priv;
	out->private_data_len = pf->priv_len;
	out->peer_to_peer = pf->p2p;
	out->rtr = pf->rtr;
	out->enhanced = pf->enhanced;
	out->peer_ird = pf->ird;
	out->peer_ord = pf->ord;
	out->mulpdu = mpa_proto_mulpdu(c->mc);
	if (r) {
		out->revision = r->rev;
		out->crc = r->crc;
		out->markers_tx = r->tx_markers;
		out->markers_rx = r->rx_markers;
		out->enhanced = r->enhanced;
		out->peer_to_peer = r->p2p;
		out->rtr = r->rtr;
		out->ird = r->ird;
		out->ord = r->ord;
		out->peer_ird = r->peer_ird;
		out->peer_ord = r->peer_ord;
	}
	return 0;
}
