/*
 * Low-level SCTP over UDP (RFC 6951 framing) on libevent: the only thing
 * that knows usrsctp (sctp_usrsctp.c implements it). Plain SCTP messages
 * on associations; DDP lives above it (sctp_ddp.c), and ddp-perf's raw
 * usrsctp baseline uses it directly through ddp_test.h, which also holds
 * the port's test hooks (fault filter, offloads, MTU drop, the stock
 * endpoint).
 *
 * Model: an endpoint (sctp_ll_ep) owns one UDP socket on a user event_base.
 * usrsctp runs in AF_CONN mode without threads: every remote UDP endpoint
 * is one registered AF_CONN address (sctp_ll peer), SCTP packets are the
 * UDP payloads, usrsctp's conn_output only queues them and the queue is
 * flushed from libevent, a libevent timer drives usrsctp_handle_timers()
 * while associations exist. CRC32c is ours (usrsctp offload mode): computed
 * on output, verified before usrsctp_conninput (corrupt packets dropped).
 *
 * Everything of an endpoint runs on its event_base's thread; endpoints of
 * different threads may run at once. usrsctp is one stack per process:
 * the glue holds one process-wide lock around every call into it, and a
 * call made by one thread may produce packets and upcalls for another
 * thread's associations (usrsctp's timers are global): those are queued
 * for the owner and its loop is woken (an eventfd per endpoint), so
 * callbacks still run only on the owner's thread, never under the lock.
 * Callbacks never run inside an sctp_ll_* call made by the user: usrsctp
 * upcalls only mark work, which a zero-timeout event runs from the loop.
 */
#ifndef SCTP_LL_H
#define SCTP_LL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct event_base;
struct sockaddr;

typedef struct sctp_ll_ep sctp_ll_ep;
typedef struct sctp_ll_assoc sctp_ll_assoc;

#define SCTP_LL_UDP_PORT 9899 /* RFC 6951 tunneling port */

typedef struct sctp_ll_config {
	const char *addr;       /* local IPv4/IPv6 literal; NULL = 127.0.0.1 */
	int port;               /* UDP port; 0 or -1 = any */
	uint16_t nstreams;      /* in = out streams asked for (default 64) */
	uint32_t adaptation;    /* Adaptation Layer Indication to send; 0 none */
	int require_adaptation; /* peer must send exactly `adaptation` */
	uint32_t path_mtu;      /* IP path MTU cap (a link MTU, as `ip link`
	                         * shows it); 0 = each peer's route alone.
	                         * SCTP packets fit it without IP
	                         * fragmentation (RFC 5043 §9) */
	uint32_t sndbuf;        /* usrsctp's send buffer; 0 = 8 MiB */
	uint32_t rcvbuf;        /* its receive buffer; 0 = autotuned
	                         * (sctp/sctp_rcvbuf.h: 1 to 8 MiB) */
	unsigned cc;            /* enum ddp_sctp_cc; 0 = the default */
	int unfragmented;       /* SCTP_DISABLE_FRAGMENTS */
	/* failure detection (RFC 4960 §8), 0 = default; see the same fields
	 * of ddp_sctp_config (include/ddp/sctp.h) */
	uint32_t hb_interval_ms;                      /* default 5000 */
	uint32_t rto_min_ms;                          /* default 100 */
	uint32_t rto_initial_ms;                      /* default 200 */
	uint32_t rto_max_ms;                          /* default 10000 */
	uint16_t path_max_retrans, assoc_max_retrans; /* default 15, 15 */
	uint32_t dead_peer_ms;                        /* an established association whose
	                                               * peer sent no datagram for this long
	                                               * is ABORTed and goes down with
	                                               * DDP_ERR_TIMEOUT (heartbeats and
	                                               * retransmissions keep asking it);
	                                               * 0: only the limits above decide */
	uint32_t peer_idle_ms;                        /* a remote UDP endpoint without an
	                                               * association is forgotten after this long
	                                               * without datagrams (default 10000) */
	uint32_t rx_whole_max;                        /* data messages of at most this many
	                                               * octets are read whole, one usrsctp call
	                                               * each and several per hold of the usrsctp
	                                               * lock, into the association's staging area,
	                                               * and handed out of it by sctp_ll_recv
	                                               * (sctp_ll_rinfo.staged); 0: off, every
	                                               * read goes straight into the caller's
	                                               * buffer */
} sctp_ll_config;

/* Association events (sctp_ll_assoc_cb.event). */
enum sctp_ll_event {
	SCTP_LL_EV_UP = 1,   /* established and adaptation checked */
	SCTP_LL_EV_READABLE, /* sctp_ll_recv has something */
	SCTP_LL_EV_WRITABLE, /* send space again after DDP_ERR_AGAIN */
	SCTP_LL_EV_DRY,      /* everything sent was acknowledged */
	SCTP_LL_EV_LATER,    /* asked for by sctp_ll_later() */
	SCTP_LL_EV_DOWN,     /* gone: status DDP_ERR_CLOSED (shutdown),
	                      * DDP_ERR_LLP (lost, refused, aborted),
	                      * DDP_ERR_PROTO (adaptation mismatch),
	                      * DDP_ERR_TIMEOUT (setup timed out) */
};

typedef struct sctp_ll_assoc_cb {
	void (*event)(sctp_ll_assoc *a, enum sctp_ll_event ev, int status, void *user);
} sctp_ll_assoc_cb;

/* A new inbound association on a listening endpoint (not up yet: wait
 * for SCTP_LL_EV_UP). Set callbacks with sctp_ll_assoc_set_cb. */
typedef void (*sctp_ll_accept_cb)(sctp_ll_ep *ep, sctp_ll_assoc *a, void *user);

/* Create an endpoint (bind the UDP socket, start usrsctp if first).
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM, DDP_ERR_SYS (socket/bind),
 * DDP_ERR_UNSUPPORTED (cfg->cc names a module this usrsctp lacks). */
int sctp_ll_ep_new(struct event_base *base, const sctp_ll_config *cfg, sctp_ll_ep **out);
/* Abort every association and free. Last endpoint stops usrsctp. */
void sctp_ll_ep_free(sctp_ll_ep *ep);
int sctp_ll_ep_port(const sctp_ll_ep *ep);
/* Accept associations. Errors: DDP_ERR_SYS, DDP_ERR_STATE. */
int sctp_ll_listen(sctp_ll_ep *ep, sctp_ll_accept_cb cb, void *user);
/* UDP datagrams seen / dropped as corrupt (CRC32c) by the endpoint. */
void sctp_ll_ep_stats(const sctp_ll_ep *ep, uint64_t *rx_pkts, uint64_t *bad_crc,
                      uint64_t *tx_pkts);
/* System calls and offloads of the endpoint's UDP socket. */
typedef struct sctp_ll_io_stats {
	uint64_t rx_pkts, tx_pkts;   /* datagrams (packets, not batches) */
	uint64_t rx_calls, tx_calls; /* recvmmsg / sendmmsg + sendmsg */
	uint64_t tx_gso, rx_gro;     /* GSO super-datagrams, GRO trains */
	uint64_t tx_drops, mtu_drops, tx_frag;
	uint64_t tx_async_err;                 /* sends an ICMP report's error failed
	                                        * (IP_RECVERR), made again */
	uint64_t peers;                        /* remote UDP endpoints known now */
	uint64_t conn_addrs;                   /* of them, registered with usrsctp
	                                        * (used by an association) */
	uint64_t rx_unproven;                  /* datagrams from unknown sources that
	                                        * were neither a valid lone INIT nor a
	                                        * COOKIE ECHO: dropped without any
	                                        * state */
	uint64_t peers_expired, peers_evicted; /* idle peers freed */
	uint64_t init_limited;                 /* INITs / COOKIE ECHOs from unknown
	                                        * sources dropped: too many peers on
	                                        * probation at once */
	uint64_t tx_copied;                    /* octets of multi-piece messages copied
	                                        * into one buffer (no gather send: see
	                                        * sctp_ll_send_gathers) */
	uint64_t bad_crc;                      /* dropped before any peer lookup */
	uint64_t peer_lookups, peer_probes;    /* peer table: lookups, entries
	                                        * compared */
	uint64_t peer_max_chain;               /* longest hash chain now */
	/* path MTU probing (RFC 8899, sctp_udp_plpmtud.c): increases a probe
	 * confirmed; probes sent, answered; sizes failed; forged or stale
	 * acknowledgements dropped (those that come while a probe is
	 * unanswered or within the probe timer of the last one) */
	uint64_t mtu_raises, probes_sent, probes_acked, probes_failed, probe_bad_acks;
	/* ICMP errors: acted on only when the quote proves the packet ours */
	uint64_t icmp_dead, icmp_mtu; /* acted on */
	uint64_t icmp_unverified;     /* no proof: discarded */
	uint64_t icmp_ignored;        /* host/net unreachable, other: counted */
} sctp_ll_io_stats;
void sctp_ll_ep_io_stats(const sctp_ll_ep *ep, sctp_ll_io_stats *st);

/* Open an association to the endpoint at addr:port.
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM, DDP_ERR_SYS. */
int sctp_ll_connect(sctp_ll_ep *ep, const char *addr, int port, const sctp_ll_assoc_cb *cb,
                    void *user, sctp_ll_assoc **out);
void sctp_ll_assoc_set_cb(sctp_ll_assoc *a, const sctp_ll_assoc_cb *cb, void *user);
/* Streams in each direction (after UP; min of in and out). */
uint16_t sctp_ll_nstreams(const sctp_ll_assoc *a);
/* Largest user message that goes out unfragmented (after UP): follows the
 * path MTU down (EMSGSIZE, ICMP). A message up to the value at UP is still
 * accepted after a decrease (sent SCTP-fragmented, RFC 4960 §6.9: a DDP
 * segment cut before the decrease); the caller cuts new ones smaller. */
uint32_t sctp_ll_max_msg(const sctp_ll_assoc *a);
/* Largest user message the association accepts: the endpoint's limit
 * (path_mtu, else the largest UDP payload), at least sctp_ll_max_msg at
 * UP. Never follows a path MTU decrease: what we send and what the peer
 * may send are different paths. */
uint32_t sctp_ll_max_msg_rx(const sctp_ll_assoc *a);
/* The UDP layer's notices (ICMP errors discarded or counted) go to ctx's
 * log hook, rate-limited (NULL: none). */
struct ddp_ctx;
void sctp_ll_ep_set_log(sctp_ll_ep *ep, struct ddp_ctx *ctx);
/* Run fn(arg) once from the endpoint's event loop, after every callback
 * frame on the stack now has unwound (fn may free the endpoint). Returns
 * a handle valid until fn runs or sctp_ll_defer_cancel(), NULL without
 * memory. The deferral does not need the endpoint to live on. */
typedef struct sctp_ll_defer sctp_ll_defer;
sctp_ll_defer *sctp_ll_ep_defer(sctp_ll_ep *ep, void (*fn)(void *arg), void *arg);
/* fn will not run; d is freed. NULL: no-op. */
void sctp_ll_defer_cancel(sctp_ll_defer *d);
/* The association's remote UDP endpoint as text for log messages
 * ("127.0.0.1:9899", "[::1]:9899", "?"): written into buf
 * (SCTP_LL_ADDR_STRLEN octets), which is returned. */
#define SCTP_LL_ADDR_STRLEN 64
const char *sctp_ll_peer_fmt(const sctp_ll_assoc *a, char *buf);
/* Our UDP address of a's endpoint as text (DDP_ADDR_STRLEN octets). */
const char *sctp_ll_local_fmt(const sctp_ll_assoc *a, char *buf);
/* The reason text of the ABORT that ended the association (the peer's
 * User-Initiated Abort cause, RFC 4960 §3.3.10.12), "" if none; valid
 * during the SCTP_LL_EV_DOWN event. */
const char *sctp_ll_assoc_peer_abort(const sctp_ll_assoc *a);

/* Send one message (ppid in host order, sent unordered). Returns 0,
 * DDP_ERR_AGAIN (no room: wait for SCTP_LL_EV_WRITABLE), DDP_ERR_TOOBIG
 * (over sctp_ll_max_msg), DDP_ERR_CLOSED, DDP_ERR_LLP. */
int sctp_ll_send(sctp_ll_assoc *a, uint16_t sid, uint32_t ppid, const void *buf, size_t len);
/* Gather variant: the message is iov[0..iovcnt-1] in order; usrsctp copies
 * it from there into its own buffers during the call (no copy of ours).
 * Same returns as sctp_ll_send. */
int sctp_ll_sendv(sctp_ll_assoc *a, uint16_t sid, uint32_t ppid, const struct iovec *iov,
                  int iovcnt);

/* 1 when sctp_ll_sendv hands several pieces to usrsctp without a copy:
 * configure found a usrsctp whose private send entry point it knows and
 * the start-up self-test passed (the first endpoint runs it). 0: each
 * multi-piece message is copied into one buffer first (counted in
 * sctp_ll_io_stats.tx_copied). */
int sctp_ll_send_gathers(void);

/* Ask for SCTP_LL_EV_WRITABLE when send space frees up (SACK). */
void sctp_ll_want_writable(sctp_ll_assoc *a);
/* Ask for one SCTP_LL_EV_LATER from the loop (the association's work
 * event): what the DDP layer reports there (messages sent, a stream
 * session closed) is never reported inside the application's call that
 * caused it. */
void sctp_ll_later(sctp_ll_assoc *a);

/* What one sctp_ll_recv call returned. */
typedef struct sctp_ll_rinfo {
	uint16_t sid;
	uint32_t ppid;  /* host order */
	int unordered;  /* U=1 */
	int eor;        /* this read ended the message */
	int next_valid; /* next message already known: */
	uint16_t next_sid;
	uint32_t next_ppid;
	uint32_t next_len;  /* its length (complete messages only) */
	int staged;         /* copied out of the staging area (rx_whole_max):
	                     * the message was read whole earlier */
	uint32_t whole_len; /* > 0: the message being read is held whole in
	                     * the staging area: its length */
	uint32_t calls;     /* usrsctp receive calls that returned data
	                     * for this read (0: all from the staging
	                     * area; a batch counts at its first read) */
} sctp_ll_rinfo;

/* Read the next piece of the current message into buf (a message may be
 * read in several calls; ri->eor marks its end). Notifications are
 * consumed internally (they may pass through buf first). With
 * rx_whole_max set, a message the previous read announced (or, unknown, one
 * that turns out) at most that long is read whole, with the ones queued
 * behind it, and served from the staging area (ri->staged: a copy the
 * caller counts). Returns octets read (0 with ri->eor for an empty
 * message), DDP_ERR_AGAIN (nothing queued), DDP_ERR_CLOSED. */
long sctp_ll_recv(sctp_ll_assoc *a, void *buf, size_t len, sctp_ll_rinfo *ri);

/* The remote UDP address of a as text ("127.0.0.1:4242", "?" if unknown)
 * in buf (at least 64 octets), for log messages. Returns buf. */
const char *sctp_ll_assoc_peer(const sctp_ll_assoc *a, char *buf);
/* Call tick(user) from the endpoint's timer (every ~100 ms while
 * associations exist, never inside an sctp_ll_* call); NULL: none. */
void sctp_ll_set_tick(sctp_ll_ep *ep, void (*tick)(void *user), void *user);

/* A snapshot of the association's transport state (usrsctp's
 * SCTP_STATUS), for traces over time. */
typedef struct sctp_ll_path {
	uint32_t cwnd;      /* primary path's congestion window, octets */
	uint32_t peer_rwnd; /* the peer's advertised receive window */
	uint32_t srtt_ms, rto_ms, mtu;
	uint32_t unacked; /* DATA chunks sent and not acknowledged */
	uint32_t pending; /* DATA chunks received and not yet read (SCTP_STATUS
	                   * sstat_penddata: this end's receive side) */
	uint32_t rcvbuf;  /* this end's receive buffer now (autotuned or set) */
	/* usrsctp's counters since the stack started, of every association
	 * in the process (usrsctp_get_stat): T3-rtx expiries, DATA chunks
	 * fast-retransmitted, DATA chunks retransmitted in all */
	uint32_t t3_expiries, fast_rtx, rtx;
} sctp_ll_path;
/* Returns 0, DDP_ERR_INVAL (no socket), DDP_ERR_SYS. */
int sctp_ll_path_status(sctp_ll_assoc *a, sctp_ll_path *out);
/* The congestion control module the association runs (enum ddp_sctp_cc,
 * never DDP_SCTP_CC_DEFAULT), as usrsctp reports it; DDP_ERR_UNSUPPORTED:
 * this usrsctp cannot report it (the packaged one), DDP_ERR_INVAL,
 * DDP_ERR_SYS. */
int sctp_ll_assoc_cc(sctp_ll_assoc *a);
/* Octets of user messages usrsctp holds for a: queued or sent and not yet
 * acknowledged (its send buffer's use). -1: this usrsctp cannot tell. */
long sctp_ll_queued_octets(sctp_ll_assoc *a);

/* Graceful SHUTDOWN (abortive == 0) or ABORT. The association is freed
 * later (after SCTP_LL_EV_DOWN); no callback runs after sctp_ll_free. */
void sctp_ll_close(sctp_ll_assoc *a, int abortive);
/* Forget the association (closes it abortively if still open). */
void sctp_ll_free(sctp_ll_assoc *a);

#endif
