/*
 * Internals shared by the MPA/TCP files of the libevent adapter: the
 * connection object (mpa_tcp.c), its socket I/O (mpa_sock_io.c) and the
 * listener (mpa_listener.c). Not installed.
 */
#ifndef DDP_EV_MPA_TCP_INT_H
#define DDP_EV_MPA_TCP_INT_H

#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>

#include <event2/event.h>

#include <ddp/llp.h>

#include "mpa/tcp/mpa_tcp.h"
#include "life.h"

/* Connections of a listener still in MPA start-up (ddp_mpa_config.
 * max_startup). Shared by the listener and its connections: whichever
 * goes last frees it. */
struct startup_count {
	unsigned refs, pending;
	/* the connections in start-up, oldest first (eviction at the cap) */
	struct ddp_mpa_conn *head, *tail;
	/* every connection of the listener until it is freed, least recently
	 * active first (mpa_conn_set.c: max_conns, max_conns_per_addr) */
	struct ddp_mpa_conn *lru_head, *lru_tail;
};

/* A source address for the per-source cap: IPv4 (also v4-mapped IPv6)
 * or IPv6, without the port. */
struct mpa_src {
	uint8_t a[16];
	uint8_t len; /* 4, 16, or 0 (unknown family) */
};

/* Quiet this long (nothing read or written), a connection is idle: one
 * the connection caps may evict. */
#define MPA_TCP_IDLE_MS 1000u

/* What the liveness check last saw of the octets we send a connection
 * (mpa_conns_check_drain). */
enum mpa_drain {
	MPA_DRAIN_EMPTY, /* nothing waited for the peer */
	MPA_DRAIN_NEW,   /* octets waited, first seen: not judged yet */
	MPA_DRAIN_OK,    /* the peer took octets since the check before */
	MPA_DRAIN_NONE,  /* octets wait and it took none since took_ms */
};

/* Why a connection cap ended a connection (mpa_conns_victim). */
enum mpa_victim {
	MPA_VICTIM_STARTUP, /* MPA start-up not finished, not seen by the application */
	MPA_VICTIM_STALLED, /* stalled and quiet */
	MPA_VICTIM_IDLE,    /* well-behaved and quiet, none stalled or being judged */
};

/* Octets one readable event reads at most before it returns to the loop:
 * a peer that keeps the socket full (a sender on another CPU) must not
 * hold the event loop in one callback, where the application's timers and
 * the other connections would starve. epoll is level-triggered, so the
 * rest is read on the next pass. */
#define MPA_TCP_RD_BUDGET (2u << 20)

struct ddp_mpa_conn {
	struct event_base *base;
	int fd;
	int connecting; /* TCP connect in progress */
	struct event *rev, *wev, *tmo;
	int rd_dry;                        /* the last recv was short: the socket is empty, or this
	                                    * readable event used up its budget (MPA_TCP_RD_BUDGET) */
	size_t rd_budget;                  /* octets this readable event may still read */
	int in_write;                      /* inside on_write: its epilogue re-arms EV_WRITE */
	unsigned flushes;                  /* write-queue flushes (EMSS is re-read every 64) */
	unsigned reads;                    /* readable events */
	unsigned reads_seen, flushes_seen; /* at the last liveness check: the
	                                    * same again means quiet (mpa_proto_quiet) */
	struct startup_count *sc;          /* listener's count while starting up */
	struct ddp_mpa_conn *su_prev, *su_next;   /* sc's list */
	struct startup_count *lc;                 /* the listener's set (mpa_conn_set.c), or NULL */
	struct ddp_mpa_conn *lru_prev, *lru_next; /* lc's activity list */
	struct mpa_src src;                       /* the peer's address, for the per-source cap */
	uint64_t active_ms;                       /* last read or write (mpa_tcp_mono_ms) */
	/* whether the peer takes what we send (mpa_conn_set.c, "stalled"),
	 * as the liveness check last saw it */
	uint64_t tx_octets;   /* octets the kernel took from us (writev) */
	uint64_t tx_seen;     /* tx_octets at the last check */
	uint64_t acked_seen;  /* octets the peer had acknowledged at the last check */
	uint64_t took_ms;     /* the last check that saw it take octets, or first saw
	                       * octets wait */
	uint8_t drain;        /* enum mpa_drain */
	ddp_ctx *ctx;         /* log hook */
	uint64_t born_ms;     /* accepted / connected (monotonic ms) */
	unsigned dead_ms;     /* dead-peer timeout */
	struct event *live;   /* liveness check (mpa_tcp_live_period_ms) */
	struct event *dl;     /* graceful close deadline (close_deadline) */
	int uto_off;          /* TCP_USER_TIMEOUT lifted: octets wait in the
	                       * kernel, on_live judges the peer */
	uint64_t probe_since; /* ms: when the oldest transmission (data or a
	                       * window probe) the peer has not answered left,
	                       * or 0 */
	char peer[64];        /* the peer's address for log lines, taken when
	                       * TCP is up (DDP_ADDR_STRLEN) */
	mpa_proto *mc;
	ddp_session *s;
	ddp_callbacks ucb; /* the application's DDP callbacks */
	ddp_mpa_event_cb ev;
	ddp_mpa_accept_cb accept;
	void *user;
	unsigned timeout_ms;
	struct ddp_life life; /* frames on the stack, freed (src/life.h) */
	/* from the loop: the connection's end (REJECTED, FAILED, CLOSED,
	 * never inside the application's call that caused it), or its
	 * release after a free inside a callback made in such a call */
	struct event *fin;
	enum ddp_mpa_event fin_e;
	int fin_err;
	uint8_t fin_code;
	uint8_t fin_later;   /* fin_e waits for fin */
	uint8_t up_later;    /* CONNECTED waits for fin (it came inside
	                      * ddp_mpa_accept) */
	uint8_t in_api;      /* inside ddp_mpa_accept / ddp_mpa_reject */
	ddp_llp_release rel; /* that release, registered with ctx */
	int finished;        /* FAILED/REJECTED/CLOSED reported */
	int app_owned;       /* the application has seen this conn; before
	                      * that (listener, start-up) it is ours */
};

/* ---------------------------------------------------- mpa_tcp.c */

/* A connection on fd (ours from now on, closed on failure by the caller).
 * listener_conn: accepted by a listener, the application has not seen it. */
int mpa_tcp_conn_new(struct event_base *base, ddp_ctx *ctx, int fd, int initiator,
                     int listener_conn, const ddp_mpa_config *cfg, const ddp_callbacks *cb,
                     ddp_mpa_accept_cb accept, ddp_mpa_event_cb ev, void *user, ddp_mpa_conn **out);
/* TCP is connected: socket options, events, MPA start-up. */
void mpa_tcp_start(ddp_mpa_conn *c);
/* Free c at once (not from inside its callbacks): the socket is closed,
 * reset unless the close finished. */
void mpa_tcp_destroy(ddp_mpa_conn *c);
/* What ddp_mpa_get_info() reports, in the library's own struct.
 * Errors: DDP_ERR_INVAL, DDP_ERR_STATE (no peer frame yet). */
int mpa_tcp_info(const ddp_mpa_conn *c, ddp_mpa_info *out);
/* Drop one reference to a listener's start-up count. */
void mpa_tcp_startup_put(struct startup_count *sc);
/* A listener connection enters start-up: counted and listed in sc. */
void mpa_tcp_startup_add(ddp_mpa_conn *c, struct startup_count *sc);
/* The oldest connection of sc still in start-up whose MPA Request has
 * not reached the application (unproductive), or NULL. */
ddp_mpa_conn *mpa_tcp_startup_oldest(struct startup_count *sc);
/* End such a connection now (TCP reset), freeing it: only for one the
 * application has not seen (!app_owned). */
void mpa_tcp_evict(ddp_mpa_conn *c);
uint64_t mpa_tcp_now_ms(void);

/* End an established connection from outside its callbacks: reported as
 * DDP_MPA_FAILED with err, the socket reset. c may be freed on return. */
void mpa_tcp_fail(ddp_mpa_conn *c, int err);

/* ---------------------------------------------- mpa_conn_set.c */

struct sockaddr;
void mpa_conns_src(const struct sockaddr *sa, struct mpa_src *out);
/* c joins the listener's set sc (takes a reference to sc). */
void mpa_conns_add(struct startup_count *sc, ddp_mpa_conn *c, const struct mpa_src *src);
/* c leaves its set; returns the set whose reference the caller drops
 * (mpa_tcp_startup_put), NULL when c was in none. */
struct startup_count *mpa_conns_remove(ddp_mpa_conn *c);
/* c read or wrote: the most recently active of its set. */
void mpa_conns_touch(ddp_mpa_conn *c);
/* Connections of sc (from src, or all with NULL) that hold a slot: in
 * start-up or established, not ended. */
unsigned mpa_conns_count(const struct startup_count *sc, const struct mpa_src *src);
/* The liveness check of an established connection: outq octets wait in
 * the kernel's send queue at now. Updates c->drain. */
void mpa_conns_check_drain(struct ddp_mpa_conn *c, uint64_t outq, uint64_t now);
/* The connection of sc (from src, or any with NULL) a cap ends to make
 * room at now, and why; NULL when none may go (the new one is refused).
 * The rule is in mpa_conn_set.c. */
struct ddp_mpa_conn *mpa_conns_victim(const struct startup_count *sc, const struct mpa_src *src,
                                      uint64_t now, enum mpa_victim *why);

/* ------------------------------------------------ mpa_sock_io.c */

uint64_t mpa_tcp_mono_ms(void);
/* mpa_proto_io callbacks on c->fd (io = the ddp_mpa_conn) */
ssize_t mpa_tcp_read(void *io, void *dst, size_t n);
ssize_t mpa_tcp_readv(void *io, const struct iovec *iov, int cnt);
ssize_t mpa_tcp_writev(void *io, const struct iovec *iov, int cnt);
int mpa_tcp_addr(void *io, int peer, char *buf, size_t len);
/* keepalive + TCP_USER_TIMEOUT for a dead-peer report after about ms */
void mpa_tcp_set_dead_peer_timeout(int fd, unsigned ms);
/* TCP_USER_TIMEOUT alone (0: the kernel's default, no user timeout) */
void mpa_tcp_set_user_timeout(int fd, unsigned ms);
/* Octets in c's kernel send queue (sent and not acknowledged, or not
 * sent yet); 0 when unknown. */
uint64_t mpa_tcp_outq(const struct ddp_mpa_conn *c);
/* Log "peer unresponsive for N s" (WARN, with the peer's address). */
void mpa_tcp_log_unresponsive(ddp_mpa_conn *c, unsigned ms);
/* TCP_CONGESTION = name (NULL: leave the system default). Returns 0, or
 * DDP_ERR_INVAL when the kernel does not know or allow it. */
int mpa_tcp_set_congestion(int fd, const char *name);

#endif
