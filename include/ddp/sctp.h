/*
 * libddp over SCTP (RFC 5043, RFC 6581 §7): DDP on an SCTP association
 * carried in UDP (RFC 6951 format) by usrsctp, driven by a libevent
 * event_base the application owns.
 *
 * One association = one ddp_session; DDP stream i = SCTP stream id i.
 * Each stream carries its own DDP Stream Session: the active side calls
 * ddp_sctp_initiate() with private data, the passive side's ULP sees it in
 * the session_ctl callback and answers with ddp_sctp_accept() or
 * ddp_sctp_reject(). Data flows with the normal ddp_send_*() /
 * ddp_post_recv() calls once the stream is accepted (sends queued before
 * that wait in the core). ddp_stream_close() ends the stream's session
 * (session Terminate); a stream id may then be initiated again.
 *
 * A call that takes ddp_sctp_config, callbacks or ddp_sctp_stats is a
 * macro that adds one hidden argument, the sizes of those structs as the
 * program was compiled, and calls the exported function of its name with
 * _sized appended: ddp_sctp_connect_to(...) is
 * ddp_sctp_connect_to_sized(..., sizes) (ddp/export.h).
 *
 * Threading: an endpoint, its associations and sessions belong to the
 * thread that runs its event_base; every callback runs there. Threads
 * with their own event_base and ddp_ctx may run endpoints at once
 * (tests/integration/test_threads.c: 4 threads, each with an MPA listener
 * and an SCTP endpoint, in a ring, 100 rounds of create / traffic / free,
 * clean under ASan and TSan). usrsctp, though, is ONE stack per process
 * (its socket tables, timers and buffer pools are global, and libddp
 * starts it without its own threads), so:
 *  - every call into usrsctp, from any endpoint and thread, holds one
 *    process-wide lock inside libddp, so the usrsctp part of all
 *    threads' SCTP work runs one thread at a time (more threads add
 *    throughput for the DDP and MPA work around it, not for usrsctp's);
 *    none of your callbacks runs under that lock;
 *  - usrsctp's timers are global: whichever endpoint's 10 ms tick comes
 *    first runs the due timers of every association, and a packet or
 *    wake-up that produces for another thread's association is queued for
 *    that thread and its loop is woken (one eventfd per endpoint). A
 *    thread with SCTP endpoints must keep running its event_base, else the
 *    peers of its associations stall (as with any event loop);
 *  - the first endpoint of the process starts usrsctp (and, once, tests
 *    the gather send), the last one stops it;
 *  - with the bundled usrsctp, each thread that runs SCTP endpoints keeps
 *    the stack's freed buffers (packets, chunks, queue entries) for reuse
 *    while any association of the process exists: at most 4 MiB or
 *    4,096 objects of each of usrsctp's 12 kinds (18 MiB a thread if
 *    every kind filled up), emptied when the thread
 *    exits and at its next SCTP work after the last association is gone
 *    (docs/building.md, patches 0006 and 0007).
 * A single-threaded program pays for the lock too: an uncontended lock
 * costs tens of ns and is taken a few times per message and once per
 * received packet (docs/performance.md, section 18, has what it
 * costs).
 */
#ifndef DDP_SCTP_H
#define DDP_SCTP_H

#include <ddp/ddp.h>

#ifdef __cplusplus
extern "C" {
#endif

struct event_base;
struct evdns_base;
struct sockaddr;

typedef struct ddp_sctp_ep ddp_sctp_ep;       /* a UDP socket + usrsctp */
typedef struct ddp_sctp_assoc ddp_sctp_assoc; /* one association */

#define DDP_SCTP_UDP_PORT   9899        /* RFC 6951 SCTP-over-UDP port */
#define DDP_SCTP_MAX_PRIV   512         /* private data of a control message */
#define DDP_SCTP_IDLE_NEVER 0xFFFFFFFFu /* idle_assoc_timeout_ms: never */

/* Session-control events (session_ctl callback). */
enum ddp_sctp_event {
	/* passive: the peer asks for a DDP stream session; answer with
	 * ddp_sctp_accept() or ddp_sctp_reject(), now or later */
	DDP_SCTP_INITIATE = 1,
	/* active: the peer accepted (status 0) */
	DDP_SCTP_ACCEPTED = 2,
	/* active: refused: status DDP_ERR_REJECTED (the peer's ULP sent
	 * Reject) or DDP_ERR_CLOSED (Terminate: refused below the ULP) */
	DDP_SCTP_REJECTED = 3,
	/* passive: the peer gave up (or broke the protocol) before our
	 * answer; the INITIATE is void */
	DDP_SCTP_CANCELLED = 4,
};

/* usrsctp's congestion control modules (ddp_sctp_config.cc). */
enum ddp_sctp_cc {
	DDP_SCTP_CC_DEFAULT = 0, /* the library's choice: DDP_SCTP_CC_CUBIC,
	                          * or DDP_SCTP_CC_RFC4960 with the packaged
	                          * usrsctp (docs/performance.md, section 22) */
	DDP_SCTP_CC_RFC4960 = 1, /* RFC 4960 §7.2 (usrsctp's "RFC 2581") */
	DDP_SCTP_CC_HSTCP = 2,   /* HighSpeed TCP, RFC 3649 */
	DDP_SCTP_CC_HTCP = 3,    /* H-TCP */
	DDP_SCTP_CC_RTCC = 4,    /* RTCC, usrsctp's RTT-based variant */
	DDP_SCTP_CC_CUBIC = 5,   /* CUBIC, RFC 9438: the bundled usrsctp only;
	                          * with the packaged library (configure
	                          * --with-system-usrsctp) ddp_sctp_ep_new
	                          * fails with DDP_ERR_UNSUPPORTED */
};

typedef struct ddp_sctp_callbacks {
	/* Association up (status 0: s is ready, streams idle) or gone
	 * (status < 0: DDP_ERR_CLOSED graceful, DDP_ERR_ABORTED aborted by
	 * us (ddp_sctp_close(a, 1), ddp_session_close(s, 1), a close
	 * deadline), DDP_ERR_LLP aborted by the peer or its port gone,
	 * DDP_ERR_TIMEOUT the peer stopped answering (retransmissions or
	 * the INIT ran out), DDP_ERR_REJECTED our INIT refused,
	 * DDP_ERR_PROTO no DDP adaptation indication from the peer).
	 * After a status < 0 callback returns
	 * the association and its session are freed. Required. */
	void (*assoc)(ddp_sctp_assoc *a, ddp_session *s, int status, void *user);
	/* Session control on one stream. priv/priv_len: the private data
	 * (valid during the call only). Required. */
	void (*session_ctl)(ddp_sctp_assoc *a, uint32_t stream, enum ddp_sctp_event ev, int status,
	                    const void *priv, size_t priv_len, void *user);
} ddp_sctp_callbacks;

typedef struct ddp_sctp_config {
	const char *addr;               /* local UDP address literal, NULL = 127.0.0.1 */
	int port;                       /* UDP port; 0 (or -1) = any, as a listener's
	                                 * port 0 everywhere; DDP_SCTP_UDP_PORT is
	                                 * RFC 6951's well-known port */
	uint16_t nstreams;              /* SCTP streams in = out (default 64; the
	                                 * one adapter model: session.nstreams,
	                                 * default 1, ddp.h "One behaviour"): the
	                                 * most an association gets, whatever the
	                                 * peer asks. Each costs about 300 octets of
	                                 * DDP state at once (the core's stream: 184
	                                 * + 32 per untagged queue + malloc's 16) plus
	                                 * 10 here, and about 1,100 more once it
	                                 * carries a DDP stream session (most of it
	                                 * the received-DDP-SSN window, 8,192 bits);
	                                 * usrsctp's own
	                                 * per-stream state comes on top */
	uint32_t max_streams;           /* streams of all associations of this
	                                 * endpoint together (default 65536, ~20 MB of
	                                 * DDP state); an accepted association that
	                                 * does not fit evicts the oldest ones without
	                                 * a DDP stream session, else it is ABORTed
	                                 * (both logged); ours always fit */
	uint32_t max_pending_initiates; /* Initiates waiting for the ULP per
	                                 * association (default 64, RFC 5043
	                                 * §5.2.3: finite; over it: Terminate) */
	uint32_t max_ctl_queue_bytes;   /* session-control messages of ours
	                                 * waiting for room in SCTP, per association
	                                 * (default 65536; each costs its length + 16
	                                 * octets, a Terminate 20; one Terminate per
	                                 * stream at most), behind the 4,096 that
	                                 * SCTP may still hold: at the bound the
	                                 * association stops reading until half of it
	                                 * was sent, so a peer that sends Initiates and
	                                 * never reads our answers is stopped by SCTP's
	                                 * flow control, not by our memory */
	uint32_t path_mtu;              /* IP path MTU cap: a link MTU as `ip link`
	                                 * shows it (1500 on Ethernet); 0 = the MTU
	                                 * of the interface toward each peer (not
	                                 * the route's MTU, which forged ICMP can
	                                 * lower). Datagrams fit it
	                                 * unfragmented (RFC 5043 §9): largest UDP
	                                 * payload = MTU - 28 (IPv4) / - 48 (IPv6),
	                                 * MULPDU = payload - 62 (- payload % 4);
	                                 * lowered by EMSGSIZE and ICMP. */
	uint32_t max_assocs;            /* associations alive at once (default 256):
	                                 * each can hold nstreams reorder windows of
	                                 * up to ~230 KiB; at the cap the oldest
	                                 * accepted association without a DDP
	                                 * stream session is ABORTed to make room
	                                 * (logged); only when every one has a
	                                 * session is the new peer ABORTed (logged) */
	uint32_t idle_assoc_timeout_ms; /* an accepted association without
	                                 * a DDP stream session (no stream being
	                                 * initiated, open or closing) for this long
	                                 * is ended with a graceful SHUTDOWN (ABORT
	                                 * if not done 5 s later), logged with the
	                                 * peer's address; its assoc callback sees
	                                 * DDP_ERR_CLOSED (DDP_ERR_ABORTED if aborted).
	                                 * 0 = default 10000; DDP_SCTP_IDLE_NEVER:
	                                 * never. Associations opened with
	                                 * ddp_sctp_connect() are not ended. */
	/* Failure detection (RFC 4960 §8.1-§8.3); 0 = default. Usually set
	 * dead_peer_timeout_ms (at the end) alone: it means what MPA's does.
	 * The fields below are the finer knobs. A peer that answers nothing
	 * (no SACK, no HEARTBEAT-ACK) is declared dead (assoc callback
	 * DDP_ERR_TIMEOUT) once assoc_max_retrans consecutive errors passed:
	 * each retransmission time-out (RTO doubling from rto_initial, at
	 * least rto_min, up to rto_max) and each unanswered heartbeat (every
	 * hb_interval on an idle path) counts one, so the time to give up is
	 * less than the sum of the backed-off RTOs. With dead_peer_timeout_ms
	 * in force (set, or all of these 0) the defaults are heartbeat and
	 * RTO max a quarter of it, RTO 100 ms min, 200 ms initial, and
	 * retransmission limits that last twice it: the peer's silence
	 * decides. With any of these set and dead_peer_timeout_ms 0, these
	 * alone decide, with the defaults heartbeat 5 s, RTO max 10 s, 15
	 * retransmissions (~1 min of silence, docs/timeouts.md for others;
	 * e.g. 1000 / 1000 / 4: ~3 s). An ICMP port unreachable still ends an
	 * association at once. path_max_retrans above assoc_max_retrans has no
	 * effect on a single-homed association. rto_min > rto_max is lowered
	 * to rto_max, rto_initial is clamped into [rto_min, rto_max]. */
	uint32_t hb_interval_ms;    /* heartbeat on an idle path */
	uint32_t rto_min_ms;        /* 100 */
	uint32_t rto_initial_ms;    /* 200 */
	uint32_t rto_max_ms;        /* see above */
	uint16_t path_max_retrans;  /* see above */
	uint16_t assoc_max_retrans; /* see above */
	ddp_ctx *ctx;               /* required */
	ddp_session_config session; /* nstreams is set from the association;
	                             * reorder_window is raised to at least
	                             * 8192 (the peer may have 4096 chunks per
	                             * stream in flight, RFC 5043 §10) */
	ddp_callbacks ddp;          /* data-path callbacks of every session */
	ddp_sctp_callbacks sctp;
	void *user; /* passed to every callback */
	/* Long paths (docs/performance.md, "Long paths"). usrsctp's socket
	 * buffers, octets. They are limits, not allocations: memory is used
	 * only while data waits. The send buffer holds what is
	 * unacknowledged; 0 = 8 MiB (1 Gbit/s x 64 ms). The receive buffer is
	 * the window the peer may fill; 0 = autotuned: it starts at 1 MiB and
	 * grows to twice what the application read in one round trip of the
	 * path (the least usrsctp saw, without the transfer's own queue), up to
	 * 8 MiB, never shrinking; INIT / INIT-ACK offer 8 MiB, so the peer's
	 * slow start is not cut short. Autotuned, a window of at most twice
	 * what arrives in one round trip does not overfill a bottleneck's
	 * queue in slow start; a fixed 8 MiB (rcvbuf = 8 << 20) suits a path
	 * behind a forwarder short of CPU, where a deeper queue batches better
	 * (docs/performance.md, sections 14 and 15, compare the two). */
	uint32_t sndbuf, rcvbuf;
	enum ddp_sctp_cc cc; /* congestion control of our sending side */
	/* An established association whose peer sent nothing (no datagram
	 * from its address) for this long is ABORTed: assoc callback and the
	 * one model's down() with DDP_ERR_TIMEOUT, the same as
	 * ddp_mpa_config.dead_peer_timeout_ms for MPA. 0: the default,
	 * DDP_DEAD_PEER_TIMEOUT_MS (8000), unless a finer failure-detection
	 * field above is set (then those decide alone). usrsctp runs in the
	 * peer's process: a stopped process (SIGSTOP, a debugger, a long
	 * pause) is silence here, unlike TCP whose kernel answers for it, so
	 * raise this for peers that may pause longer. Time in which our own
	 * thread did not run does not count. */
	unsigned dead_peer_timeout_ms;
} ddp_sctp_config;

/* The one adapter model (ddp.h): connect to host:port (the peer's UDP
 * port; numeric IPv4 / IPv6 or a name, resolved with getaddrinfo, which
 * blocks while a resolver is asked) or listen on it (host NULL: every IPv4
 * address; port 0: any, see ddp_listener_port()). cfg: SCTP settings
 * (NULL: defaults); its addr, port, ctx, ddp, sctp and user fields are
 * ignored. A connecting side has an endpoint of its own and initiates a
 * DDP stream session on every stream (cfg->session.nstreams, else
 * cfg->nstreams, default 1: ddp.h "One behaviour"); the
 * listening side accepts every Initiate; each becomes cb->stream_open.
 * The adapter frees the association after cb->down (and a connecting
 * side's endpoint with it). ddp_listener_free() stops taking new
 * associations; those up live on (as an MPA listener's connections), and
 * the listener's UDP port stays bound until the last of them went down.
 * Errors: DDP_ERR_INVAL (NULL, port out of range, callbacks missing),
 * DDP_ERR_NOENT (host not found), DDP_ERR_NOMEM, DDP_ERR_SYS. */
DDP_API int ddp_sctp_connect_to_sized(struct event_base *base, ddp_ctx *ctx, const char *host,
                                      int port, const ddp_sctp_config *cfg,
                                      const ddp_conn_callbacks *cb, void *user, uint64_t sizes);
#define ddp_sctp_connect_to(...)                                                                   \
	ddp_sctp_connect_to_sized(__VA_ARGS__, DDP_SIZES2(ddp_sctp_config, ddp_conn_callbacks))
DDP_API int ddp_sctp_listen_on_sized(struct event_base *base, ddp_ctx *ctx, const char *host,
                                     int port, const ddp_sctp_config *cfg,
                                     const ddp_conn_callbacks *cb, void *user, ddp_listener **out,
                                     uint64_t sizes);
#define ddp_sctp_listen_on(...)                                                                    \
	ddp_sctp_listen_on_sized(__VA_ARGS__, DDP_SIZES2(ddp_sctp_config, ddp_conn_callbacks))
/* The same as ddp_sctp_connect_to(), without blocking: returns at once,
 * before any callback; the name is resolved by evdns on dns (NULL: one
 * made for this connect), and one it cannot resolve ends in
 * cb->down(NULL, DDP_ERR_NOENT). *out (may be NULL): the handle for
 * ddp_connect_cancel(), valid until cb->up or cb->down.
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM. */
DDP_API int ddp_sctp_connect_async_sized(struct event_base *base, ddp_ctx *ctx,
                                         struct evdns_base *dns, const char *host, int port,
                                         const ddp_sctp_config *cfg, const ddp_conn_callbacks *cb,
                                         void *user, ddp_connecting **out, uint64_t sizes);
#define ddp_sctp_connect_async(...)                                                                \
	ddp_sctp_connect_async_sized(__VA_ARGS__, DDP_SIZES2(ddp_sctp_config, ddp_conn_callbacks))
/* The same to an address (IPv4 or IPv6, its port the peer's UDP port): the
 * association's INIT goes out from this call's endpoint; callbacks come
 * from the loop. Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM, DDP_ERR_SYS. */
DDP_API int ddp_sctp_connect_addr_sized(struct event_base *base, ddp_ctx *ctx,
                                        const struct sockaddr *sa, unsigned int salen,
                                        const ddp_sctp_config *cfg, const ddp_conn_callbacks *cb,
                                        void *user, ddp_connecting **out, uint64_t sizes);
#define ddp_sctp_connect_addr(...)                                                                 \
	ddp_sctp_connect_addr_sized(__VA_ARGS__, DDP_SIZES2(ddp_sctp_config, ddp_conn_callbacks))
/* Create an endpoint bound to cfg->addr:port (UDP) on base. cfg is copied.
 * Errors: DDP_ERR_INVAL (NULL, no ctx or callbacks, cc not a ddp_sctp_cc), DDP_ERR_NOMEM,
 * DDP_ERR_SYS (socket/bind failed, see errno), DDP_ERR_UNSUPPORTED (cc is a
 * module the usrsctp this library was built with lacks). */
DDP_API int ddp_sctp_ep_new_sized(struct event_base *base, const ddp_sctp_config *cfg,
                                  ddp_sctp_ep **out, uint64_t sizes);
#define ddp_sctp_ep_new(...) ddp_sctp_ep_new_sized(__VA_ARGS__, DDP_SIZES1(ddp_sctp_config))
/* Abort every association (one ABORT datagram each, sent before the UDP
 * socket closes) and free the endpoint. The sessions are freed: their
 * outstanding sends and posted buffers come back through the DDP
 * callbacks (send_done / deliver with a status < 0); no assoc or
 * session_ctl callback runs after this call. Outside callbacks all of it
 * happens during this call. Safe inside any callback of this endpoint
 * (assoc, session_ctl, and the DDP callbacks of its sessions, also those
 * that run inside your own ddp_* call, such as a deliver flushed by
 * ddp_session_close(s, 1)): silent at once (ddp.h, "Lifetime": no
 * callback of any kind follows, nothing more is placed into its sessions'
 * buffers or sent); the endpoint is freed from the event loop once the
 * callback has returned, or by ddp_ctx_free() if that comes first (no
 * extra pass of the loop is needed). NULL is a no-op. */
DDP_API void ddp_sctp_ep_free(ddp_sctp_ep *ep);
/* The bound UDP port. */
DDP_API int ddp_sctp_ep_port(const ddp_sctp_ep *ep);
/* Accept associations from any UDP peer. Errors: DDP_ERR_INVAL,
 * DDP_ERR_STATE (already listening), DDP_ERR_SYS. */
DDP_API int ddp_sctp_listen(ddp_sctp_ep *ep);
/* Take no new association from now on (those that come are ABORTed);
 * the associations already there go on. Errors: DDP_ERR_INVAL. */
DDP_API int ddp_sctp_unlisten(ddp_sctp_ep *ep);
/* Open an association to addr:port (UDP). *out is valid until its assoc
 * callback reports status < 0. Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM,
 * DDP_ERR_SYS. */
DDP_API int ddp_sctp_connect(ddp_sctp_ep *ep, const char *addr, int port, ddp_sctp_assoc **out);

/* The association's DDP session (NULL before it is up). Owned by the
 * association: do not free it. */
DDP_API ddp_session *ddp_sctp_session(const ddp_sctp_assoc *a);

/* Start a DDP stream session on stream (RFC 5043 §6.2): sends Initiate
 * with priv (0..512 octets, copied). The answer comes as ACCEPTED/REJECTED.
 * Errors: DDP_ERR_INVAL (bad stream, priv too long), DDP_ERR_STATE (session
 * already running / association not up), DDP_ERR_BUSY (the stream's old
 * session may still have chunks in flight, RFC 5043 §6: retry later),
 * DDP_ERR_NOMEM. */
DDP_API int ddp_sctp_initiate(ddp_sctp_assoc *a, uint32_t stream, const void *priv,
                              size_t priv_len);
/* Answer an INITIATE (Accept / Reject with private data, copied). Reject
 * is only ever sent through this call (RFC 5043 §5.2.3). An Enhanced
 * Initiate (RFC 6581) is answered with Enhanced Accept / Reject; the
 * Accept then carries IRD/ORD 0x3FFF ("the ULP negotiates") and priv may
 * hold at most 508 octets. Errors: DDP_ERR_INVAL (bad stream, priv too
 * long), DDP_ERR_STATE (no INITIATE pending on stream). */
DDP_API int ddp_sctp_accept(ddp_sctp_assoc *a, uint32_t stream, const void *priv, size_t priv_len);
DDP_API int ddp_sctp_reject(ddp_sctp_assoc *a, uint32_t stream, const void *priv, size_t priv_len);

/* RFC 6581 §7: the IRD/ORD word of Enhanced Initiate / Accept (same layout
 * as MPA's). */
typedef struct ddp_sctp_ird_ord {
	uint8_t p2p;        /* A: peer-to-peer connection model */
	uint8_t send0_rtr;  /* B: zero-length Send RTR */
	uint8_t write0_rtr; /* C: zero-length RDMA Write RTR */
	uint8_t read0_rtr;  /* D: zero-length RDMA Read RTR */
	uint16_t ird, ord;  /* 14 bits; 0x3FFF = the ULP negotiates */
} ddp_sctp_ird_ord;

/* ddp_sctp_initiate() with an Enhanced Initiate (code 0x0005) carrying io
 * (RFC 6581 §7: only when enhanced behaviour is wanted); priv <= 508 octets.
 * Errors: those of ddp_sctp_initiate, DDP_ERR_INVAL (io NULL or IRD/ORD
 * over 14 bits). */
DDP_API int ddp_sctp_initiate_enhanced(ddp_sctp_assoc *a, uint32_t stream,
                                       const ddp_sctp_ird_ord *io, const void *priv,
                                       size_t priv_len);
/* Accept an Enhanced Initiate with our IRD/ORD word (io NULL: 0x3FFF for
 * both); priv <= 508 octets. Errors: those of ddp_sctp_accept. */
DDP_API int ddp_sctp_accept_enhanced(ddp_sctp_assoc *a, uint32_t stream, const ddp_sctp_ird_ord *io,
                                     const void *priv, size_t priv_len);
/* The IRD/ORD word the peer sent in this stream's current session.
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOENT (the peer sent none). */
DDP_API int ddp_sctp_peer_ird_ord(const ddp_sctp_assoc *a, uint32_t stream, ddp_sctp_ird_ord *out);

/* End the association: graceful (abortive == 0: every message already
 * queued is sent first, each stream session ends with its Terminate, then
 * the SHUTDOWN; the same as ddp_session_close(s, 0)) or ABORT at once.
 * The assoc callback reports the end, from the loop (never inside this
 * call). Errors: DDP_ERR_INVAL. */
DDP_API int ddp_sctp_close(ddp_sctp_assoc *a, int abortive);

/* Statistics of an association. */
typedef struct ddp_sctp_stats {
	uint64_t rx_hdr_first;   /* segments placed header-first (no copy) */
	uint64_t rx_staged;      /* segments whose length was not known in
	                          * advance: staged and copied (counted in
	                          * ddp_session_copied_bytes) */
	uint64_t rx_ctl, tx_ctl; /* control messages */
	uint64_t rx_dropped;     /* chunks of no / a dead session */
	uint64_t udp_bad_crc;    /* datagrams dropped on CRC32c (endpoint) */
	uint64_t rx_whole;       /* small segments read whole with one usrsctp
	                          * call (several per hold of its lock) and
	                          * copied once into place (counted in
	                          * ddp_session_copied_bytes) */
	uint64_t rx_calls;       /* usrsctp receive calls that returned data */
} ddp_sctp_stats;
DDP_API void ddp_sctp_get_stats_sized(const ddp_sctp_assoc *a, ddp_sctp_stats *st, uint64_t sizes);
#define ddp_sctp_get_stats(...) ddp_sctp_get_stats_sized(__VA_ARGS__, DDP_SIZES1(ddp_sctp_stats))

#ifdef __cplusplus
}
#endif
#endif
