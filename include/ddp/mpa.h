/*
 * libddp MPA/TCP transport (RFC 5044 + RFC 6581 start-up) on a libevent
 * event_base. One DDP session (one stream, index 0) per TCP connection.
 *
 * Conventions as in ddp/ddp.h: 0 or a negative DDP_ERR_*, callbacks take
 * the user pointer last, everything on the thread that runs the event_base;
 * a call that takes ddp_mpa_config, callbacks or ddp_mpa_info is a macro
 * that adds one hidden argument, the sizes of those structs as the program
 * was compiled, and calls the exported function of its name with _sized
 * appended: ddp_mpa_connect_to(...) is ddp_mpa_connect_to_sized(...,
 * sizes) (ddp/export.h).
 * Threading: MPA keeps no process-wide state; threads with their own
 * event_base and ddp_ctx run listeners and connections at once without
 * any lock (tests/integration/test_threads.c).
 * Roles: the Initiator sends the MPA Request. ddp_mpa_connect() makes the
 * connecting side the Initiator and ddp_mpa_listen() the accepting side
 * the Responder; ddp_mpa_wrap_fd() takes the role as a parameter, so the
 * TCP and MPA roles are independent.
 */
#ifndef DDP_MPA_H
#define DDP_MPA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <ddp/ddp.h>

#ifdef __cplusplus
extern "C" {
#endif

struct event_base;
struct evdns_base;

typedef struct ddp_mpa_conn ddp_mpa_conn;
typedef struct ddp_mpa_listener ddp_mpa_listener;

/* RFC 6581 RTR kinds (peer-to-peer mode). */
enum {
	DDP_MPA_RTR_SEND = 0x1,  /* zero-length Send */
	DDP_MPA_RTR_WRITE = 0x2, /* zero-length RDMA Write */
	DDP_MPA_RTR_READ = 0x4,  /* zero-length RDMA Read Request */
};

/* Connection settings. Zero fields take the defaults shown. */
typedef struct ddp_mpa_config {
	uint8_t revision;              /* 1 (RFC 5044) or 2 (RFC 6581, sends the
	                                * IRD/ORD word). Default 2. A Responder
	                                * answers with the Request's revision. */
	int markers;                   /* ask the peer to insert markers (M=1) */
	int no_crc;                    /* do not ask for CRCs (C=0): only by explicit
	                                * administrator choice (RFC 5044 §4.4); if
	                                * the peer asks, CRCs are used anyway */
	int peer_to_peer;              /* revision 2 Initiator: RTR exchange (A=1).
	                                * RFC 5044 §7.1.4: the Responder may send no
	                                * FPDU before it received one, so when the
	                                * accepting side must speak first (it sends
	                                * the first ULP message), the connecting side
	                                * sets this: its MPA layer sends the RTR */
	unsigned rtr;                  /* DDP_MPA_RTR_* kinds we can send/accept,
	                                * 0 = all three */
	uint16_t ird, ord;             /* revision 2: our RDMA Read depths (14 bit;
	                                * 0x3FFF = no automatic negotiation) */
	const void *private_data;      /* Initiator: Request private data */
	uint16_t private_data_len;     /* <= 512 (508 with revision 2) */
	uint16_t max_private_data;     /* largest PD_Length accepted from the
	                                * peer, default and maximum 512 */
	unsigned startup_timeout_ms;   /* start-up deadline, default 10000 */
	unsigned dead_peer_timeout_ms; /* a peer that stops answering (no
	                                * FIN/RST: host or path gone) is reported as
	                                * DDP_MPA_FAILED with DDP_ERR_TIMEOUT (the
	                                * session's streams end with DDP_ERR_TIMEOUT
	                                * too; the ctx log hook gets "peer unresponsive
	                                * for N s" with its address) about this long
	                                * after the first transmission it left
	                                * unanswered: data or a window probe sent after
	                                * its last ACK while octets wait, keepalive
	                                * (first probe after half of it, then one a
	                                * second) while idle. Default
	                                * DDP_DEAD_PEER_TIMEOUT_MS (8000), the same as
	                                * ddp_sctp_config's: a dead peer is reported
	                                * within 10 s on both LLPs (ddp.h, "One
	                                * behaviour"). Slow is not dead: a
	                                * peer that stops reading (window closed) or
	                                * shrinks its receive buffer (ACKs without
	                                * accepting) but keeps ACKing is kept, however
	                                * long, and data flows again when it reads
	                                * (RFC 1122 §4.2.2.17); queued sends wait, up
	                                * to tx_queue_cap / session.max_tx_queued
	                                * (then DDP_ERR_LIMIT). TCP backs its
	                                * retransmissions and probes off (up to 2 min):
	                                * a peer that dies while nothing is sent is
	                                * noticed at the next one + this timeout. */
	unsigned max_startup;          /* listener: connections in MPA start-up at
	                                * once (default 1024). At the cap the oldest
	                                * one whose MPA Request is not complete is
	                                * reset to make room (slowloris floods cannot
	                                * lock new clients out); only when every one
	                                * waits for the application is the new one
	                                * reset. Either is logged (ctx log hook,
	                                * rate-limited: past a few lines a second, a
	                                * count of the lines left out) */
	size_t tx_queue_cap;           /* queued octets before DDP is told to wait,
	                                * default 1 MiB; DDP also waits at 128 queued
	                                * FPDUs (64 KiB of bookkeeping: a peer that
	                                * stops reading costs that much, plus what the
	                                * DDP core holds: session.max_tx_queued
	                                * messages of ~130 octets each, default 4096,
	                                * lower it for untrusted peers) */
	const char *tcp_congestion;    /* TCP congestion control of our sockets
	                                * (TCP_CONGESTION, e.g. "cubic"), set before
	                                * connect / on the listening socket (accepted
	                                * ones inherit it); NULL = system default. A
	                                * name the kernel does not know or allow fails
	                                * ddp_mpa_connect/ddp_mpa_listen with
	                                * DDP_ERR_INVAL. Not applied by
	                                * ddp_mpa_wrap_fd (the fd is yours). */
	ddp_session_config session;    /* for the DDP session (nstreams is 1;
	                                * the one adapter model refuses more
	                                * with DDP_ERR_INVAL) */
	unsigned max_conns;            /* listener: MPA connections (in start-up or
	                                * established, until freed) at once,
	                                * default 4096; UINT_MAX: no cap */
	unsigned max_conns_per_addr;   /* listener: the same for each source
	                                * address (IPv4, or IPv6 address; the port
	                                * does not count), default 1024; UINT_MAX: no
	                                * cap. When a new TCP connection arrives at
	                                * either cap, one connection (of that source
	                                * for the per-source cap) makes room, least
	                                * recently active first: one in start-up
	                                * whose Request the application has not seen
	                                * (TCP reset), or a stalled one (octets wait
	                                * for its peer, which took none of them for
	                                * 1 s) that is idle (nothing read or written
	                                * for 1 s): DDP_MPA_FAILED with DDP_ERR_LIMIT,
	                                * TCP reset. Only when no connection is
	                                * stalled, nor sent octets it has not yet
	                                * been seen to take, is an idle one that
	                                * reads what it is sent ended the same way.
	                                * Otherwise the new connection is reset.
	                                * Either is logged (ctx log hook, with the
	                                * addresses, rate-limited) */
	unsigned tcp_sndbuf;           /* listener: SO_SNDBUF of the accepted sockets
	                                * (set on the listening socket), octets; 0 =
	                                * the kernel's autotuning (default). What a
	                                * peer that stops reading makes the kernel
	                                * hold for us is 2-2.5 times this (Linux
	                                * doubles it for its bookkeeping, a write may
	                                * overshoot); autotuned it grows up to
	                                * net.ipv4.tcp_wmem's maximum (4 MiB by
	                                * default; docs/performance.md, section 18).
	                                * A fixed buffer also caps the throughput of
	                                * paths whose bandwidth-delay product is
	                                * larger */
} ddp_mpa_config;

/* What the start-up settled / what the peer sent. */
typedef struct ddp_mpa_info {
	int initiator;              /* we sent the Request */
	uint8_t revision;           /* the negotiated (Reply's) revision; in the
	                             * accept callback: the Request's */
	int crc;                    /* CRCs generated and checked */
	int markers_tx, markers_rx; /* we insert / the peer inserts */
	int enhanced;               /* RFC 6581 enhanced frames both ways */
	int peer_to_peer;
	unsigned rtr;                /* peer's offered RTR kinds (accept cb) or
	                              * the kind(s) in use */
	uint16_t ird, ord;           /* our values after negotiation */
	uint16_t peer_ird, peer_ord; /* raw values the peer sent */
	const uint8_t *private_data; /* the peer's (valid until the next
	                              * event of this connection) */
	uint16_t private_data_len;
	uint32_t mulpdu; /* current MULPDU */
} ddp_mpa_info;

enum ddp_mpa_event {
	DDP_MPA_CONNECTED = 1, /* full operation: the session carries data */
	DDP_MPA_REJECTED = 2,  /* the peer rejected us (R=1), or our rejection
	                        * was sent; info has the peer's private data */
	DDP_MPA_FAILED = 3,    /* TCP connect, start-up (err: DDP_ERR_TIMEOUT,
	                        * DDP_ERR_PROTO with mpa_code 4/6/7, ...) or
	                        * the connection failed */
	DDP_MPA_CLOSED = 4,    /* the connection ended in order */
};

/* Connection events, always from the event loop (ddp.h, "Callbacks"): never
 * inside a call of the application, not even the CONNECTED that
 * ddp_mpa_accept() leads to, nor the CLOSED after ddp_session_close().
 * After FAILED, REJECTED or CLOSED the socket is closed and the only thing
 * left to do is ddp_mpa_conn_free() (which may be called from inside this
 * callback). */
typedef void (*ddp_mpa_event_cb)(ddp_mpa_conn *c, enum ddp_mpa_event ev, int err, uint8_t mpa_code,
                                 void *user);

/* Responder: a valid MPA Request arrived (req: its revision, flags, IRD/ORD,
 * private data). Call ddp_mpa_accept() or ddp_mpa_reject(), here or later
 * (before the start-up timeout). NULL accept callback = accept at once. */
typedef void (*ddp_mpa_accept_cb)(ddp_mpa_conn *c, const ddp_mpa_info *req, void *user);

/* Connect to sa and run the start-up as Initiator. The session exists at
 * once (ddp_mpa_session()): post receive buffers and send right away; sends
 * are held until full operation. cb are the DDP callbacks (their user is
 * the user given here), ev the connection events. *out is owned by the
 * caller: ddp_mpa_conn_free().
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM, DDP_ERR_SYS (socket/connect failed
 * at once; errno kept). */
DDP_API int ddp_mpa_connect_sized(struct event_base *base, ddp_ctx *ctx, const struct sockaddr *sa,
                                  socklen_t salen, const ddp_mpa_config *cfg,
                                  const ddp_callbacks *cb, ddp_mpa_event_cb ev, void *user,
                                  ddp_mpa_conn **out, uint64_t sizes);
#define ddp_mpa_connect(...)                                                                       \
	ddp_mpa_connect_sized(__VA_ARGS__, DDP_SIZES2(ddp_mpa_config, ddp_callbacks))

/* Listen on sa; every accepted TCP connection becomes a Responder-side
 * ddp_mpa_conn, announced through accept (or auto-accepted) and then ev.
 * A connection is owned by the application from the first callback that
 * names it (accept, or DDP_MPA_CONNECTED when accept is NULL): free it with
 * ddp_mpa_conn_free(). Before that the listener owns it: a peer that sends
 * no valid Request (bad frame, time-out, reset) is closed and freed without
 * any callback. Connections start with the listener's user pointer; change
 * it with ddp_mpa_set_user().
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM, DDP_ERR_SYS. */
DDP_API int ddp_mpa_listen_sized(struct event_base *base, ddp_ctx *ctx, const struct sockaddr *sa,
                                 socklen_t salen, const ddp_mpa_config *cfg,
                                 const ddp_callbacks *cb, ddp_mpa_accept_cb accept,
                                 ddp_mpa_event_cb ev, void *user, ddp_mpa_listener **out,
                                 uint64_t sizes);
#define ddp_mpa_listen(...)                                                                        \
	ddp_mpa_listen_sized(__VA_ARGS__, DDP_SIZES2(ddp_mpa_config, ddp_callbacks))
/* Bound TCP port (host order) of a listener, e.g. after port 0. */
DDP_API int ddp_mpa_listener_port(const ddp_mpa_listener *l);
/* Stop listening. Connections already accepted are not touched. */
DDP_API void ddp_mpa_listener_free(ddp_mpa_listener *l);

/* Run MPA over an already connected TCP socket (made non-blocking; owned by
 * the connection from now on, closed by it) in either role.
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM. On error the fd is not closed. */
DDP_API int ddp_mpa_wrap_fd_sized(struct event_base *base, ddp_ctx *ctx, int fd, int initiator,
                                  const ddp_mpa_config *cfg, const ddp_callbacks *cb,
                                  ddp_mpa_accept_cb accept, ddp_mpa_event_cb ev, void *user,
                                  ddp_mpa_conn **out, uint64_t sizes);
#define ddp_mpa_wrap_fd(...)                                                                       \
	ddp_mpa_wrap_fd_sized(__VA_ARGS__, DDP_SIZES2(ddp_mpa_config, ddp_callbacks))

/* The one adapter model (ddp.h): connect to host:port (numeric IPv4 /
 * IPv6 or a name, resolved with getaddrinfo, which blocks while a
 * resolver is asked) or listen on it (host NULL: every address; port 0:
 * any, see ddp_listener_port()). cfg: MPA settings (NULL: revision 2,
 * CRCs on, no markers); every connection of a listener is accepted at
 * once. The session arrives in cb->up / cb->stream_open(s, 0); the
 * adapter frees the connection after cb->down. The listener is the
 * caller's: ddp_listener_free().
 * Errors: DDP_ERR_INVAL (NULL, port out of range, callbacks missing),
 * DDP_ERR_NOENT (host not found), DDP_ERR_NOMEM, DDP_ERR_SYS. */
DDP_API int ddp_mpa_connect_to_sized(struct event_base *base, ddp_ctx *ctx, const char *host,
                                     int port, const ddp_mpa_config *cfg,
                                     const ddp_conn_callbacks *cb, void *user, uint64_t sizes);
#define ddp_mpa_connect_to(...)                                                                    \
	ddp_mpa_connect_to_sized(__VA_ARGS__, DDP_SIZES2(ddp_mpa_config, ddp_conn_callbacks))
DDP_API int ddp_mpa_listen_on_sized(struct event_base *base, ddp_ctx *ctx, const char *host,
                                    int port, const ddp_mpa_config *cfg,
                                    const ddp_conn_callbacks *cb, void *user, ddp_listener **out,
                                    uint64_t sizes);
#define ddp_mpa_listen_on(...)                                                                     \
	ddp_mpa_listen_on_sized(__VA_ARGS__, DDP_SIZES2(ddp_mpa_config, ddp_conn_callbacks))

/* The same as ddp_mpa_connect_to(), without blocking: returns at once,
 * before any callback. A name is resolved by libevent's evdns on dns (the
 * application's evdns_base; NULL: one made for this connect, reading
 * /etc/resolv.conf and /etc/hosts, freed with it); a host it cannot
 * resolve ends in cb->down(NULL, DDP_ERR_NOENT). *out (may be NULL) is
 * the connect's handle for ddp_connect_cancel(), valid until cb->up or
 * cb->down. cfg's private data is copied.
 * Errors: DDP_ERR_INVAL (NULL, port out of range, callbacks missing,
 * private data over 512 octets), DDP_ERR_NOMEM. */
DDP_API int ddp_mpa_connect_async_sized(struct event_base *base, ddp_ctx *ctx,
                                        struct evdns_base *dns, const char *host, int port,
                                        const ddp_mpa_config *cfg, const ddp_conn_callbacks *cb,
                                        void *user, ddp_connecting **out, uint64_t sizes);
#define ddp_mpa_connect_async(...)                                                                 \
	ddp_mpa_connect_async_sized(__VA_ARGS__, DDP_SIZES2(ddp_mpa_config, ddp_conn_callbacks))
/* The same to an address (no resolution): the TCP connect starts in this
 * call; callbacks come from the loop. Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM,
 * DDP_ERR_SYS (the socket or connect failed at once; errno kept). */
DDP_API int ddp_mpa_connect_addr_sized(struct event_base *base, ddp_ctx *ctx,
                                       const struct sockaddr *sa, socklen_t salen,
                                       const ddp_mpa_config *cfg, const ddp_conn_callbacks *cb,
                                       void *user, ddp_connecting **out, uint64_t sizes);
#define ddp_mpa_connect_addr(...)                                                                  \
	ddp_mpa_connect_addr_sized(__VA_ARGS__, DDP_SIZES2(ddp_mpa_config, ddp_conn_callbacks))

/* Responder decision (RFC 5044 §7.1.2): accept (R=0) or reject (R=1), both
 * with optional private data (copied; <= 512 octets, 508 with rev 2). The
 * event that follows (CONNECTED, REJECTED) comes from the loop.
 * Errors: DDP_ERR_STATE (no Request waiting), DDP_ERR_INVAL. */
DDP_API int ddp_mpa_accept(ddp_mpa_conn *c, const void *priv, uint16_t len);
DDP_API int ddp_mpa_reject(ddp_mpa_conn *c, const void *priv, uint16_t len);

/* The DDP session of the connection (owned by it; valid until
 * ddp_mpa_conn_free()). */
DDP_API ddp_session *ddp_mpa_session(const ddp_mpa_conn *c);
/* Negotiated parameters and the peer's private data.
 * Errors: DDP_ERR_INVAL, DDP_ERR_STATE (no start-up frame seen yet). */
DDP_API int ddp_mpa_get_info_sized(const ddp_mpa_conn *c, ddp_mpa_info *out, uint64_t sizes);
#define ddp_mpa_get_info(...) ddp_mpa_get_info_sized(__VA_ARGS__, DDP_SIZES1(ddp_mpa_info))
/* Change the user pointer given to the callbacks of this connection. */
DDP_API void ddp_mpa_set_user(ddp_mpa_conn *c, void *user);
/* Free the connection and its session; an open connection is reset (use
 * ddp_session_close() first and wait for DDP_MPA_CLOSED for an orderly
 * end). Outside its callbacks, queued sends and posted buffers come back
 * with DDP_ERR_ABORTED during this call. Inside any callback of this
 * connection (its own and its session's): silent at once (ddp.h,
 * "Lifetime"), no callback follows, nothing more is placed, read or sent;
 * the memory goes when the callback has unwound (from the loop when the
 * callback ran inside one of the application's calls, or in
 * ddp_ctx_free() if that comes first). NULL is a no-op. */
DDP_API void ddp_mpa_conn_free(ddp_mpa_conn *c);

#ifdef __cplusplus
}
#endif
#endif
