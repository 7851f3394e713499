/*
 * SCTP packets over our own UDP socket (RFC 6951 format: the SCTP packet
 * is the UDP payload) on libevent, with our CRC32c (RFC 4960 §6.8): output
 * is queued and flushed from the loop in batches (sendmmsg, UDP GSO),
 * input is read in batches (recvmmsg, UDP GRO) and verified packet by
 * packet before it is handed up. Each peer's IP path MTU comes from the
 * route and follows EMSGSIZE / ICMP; DF is set on every datagram that fits.
 * Knows nothing of usrsctp (sctp_usrsctp.c sits on top).
 *
 * Threads: a socket and its peers belong to the thread of its event_base;
 * two things are shared with other threads: the send queue
 * (sctp_udp_send with local 0) and the process-wide peer id table
 * (sctp_udp_peer_by_id), each behind its own mutex.
 */
#ifndef SCTP_UDP_H
#define SCTP_UDP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "sctp/udp/sctp_udp_icmp.h"
#include "sctp/udp/sctp_udp_filter.h"

struct event_base;
struct event;
struct sctp_udp;
struct ddp_ctx;

/* Path MTU probing of one peer (sctp_udp_plpmtud.c, RFC 8899). Sizes are
 * IP packet sizes. */
struct sctp_udp_plpmtud {
	struct event *ev; /* PROBE_TIMER / PMTU_RAISE_TIMER / CONFIRMATION_TIMER */
	int state;
	int limited;                /* the path MTU follows confirmed sizes (a probe
	                             * failed, or a verified ICMP lowered it) */
	uint32_t max;               /* the interface MTU (capped): the search's top */
	uint32_t size;              /* the size being probed */
	uint32_t count;             /* probes of size sent without an answer */
	uint32_t confirmed, failed; /* largest acked, smallest failed (0 none) */
	uint32_t seq, seq0;         /* last probe's sequence, first of size */
	uint64_t sent_ms;           /* when the last probe left (0: none yet) */
	uint16_t sport, dport;      /* the probed association's ports */
	uint32_t tag, own;          /* its tags: the peer's, ours */
};

/* One remote UDP endpoint (one AF_CONN address for usrsctp), created only
 * for a proven source (sctp_udp_peers.c): freed when unreferenced and idle
 * for a while. */
struct sctp_udp_peer {
	struct sctp_udp_peer *next;                  /* address hash chain */
	struct sctp_udp_peer *id_next;               /* id hash chain */
	struct sctp_udp_peer *idle_prev, *idle_next; /* LRU, refs == 0 only */
	struct sctp_udp *u;
	struct sockaddr_storage sa;
	socklen_t salen;
	uint32_t mtu;              /* IP path MTU (link MTU on a direct route) */
	uint32_t route_mtu;        /* the interface MTU toward it when below our
	                            * floor (then datagrams over it go with DF
	                            * off), else 0 */
	uint64_t route_ms;         /* when route_mtu was read */
	struct sctp_udp_tags tags; /* proof tags of what we sent (ICMP);
	                            * under the socket's qlock */
	uintptr_t id;              /* usrsctp's AF_CONN address: the source
	                            * address's keyed hash (sctp_udp_peers.c) */
	unsigned refs;             /* associations using it */
	int ever_ref;              /* an association has used it */
	/* on probation (sctp_udp_peers.c): made for an unknown source's lone
	 * INIT or COOKIE ECHO, freed once that packet was answered unless
	 * usrsctp's answer was a COOKIE ACK (proven) */
	int transient, proven;
	struct sctp_udp_peer *trans_prev, *trans_next;
	int conn_registered; /* usrsctp knows its address (set and read
	                      * by the usrsctp glue, under its lock) */
	uint64_t last_ms;    /* last datagram in (referenced or not) / last
	                      * reference dropped */
	struct sctp_udp_plpmtud plp;
};

/* Counters (packets, not batches, unless named *_calls). */
struct sctp_udp_counters {
	uint64_t rx_pkts, bad_crc, tx_pkts;
	uint64_t tx_calls;     /* sendmmsg / sendmsg calls */
	uint64_t rx_calls;     /* recvmmsg calls that returned datagrams */
	uint64_t tx_gso;       /* GSO super-datagrams sent */
	uint64_t rx_gro;       /* GRO trains split */
	uint64_t tx_drops;     /* queue full or send error */
	uint64_t tx_async_err; /* sends failed by an ICMP report's error
	                        * (IP_RECVERR) and sent again */
	uint64_t mtu_drops;    /* path MTU decreases applied */
	uint64_t mtu_raises;   /* path MTU increases (a probe) */
	/* path MTU probes (RFC 8899): sent, answered, sizes failed
	 * (MAX_PROBES unanswered), acknowledgements with our marker that
	 * did not prove themselves (tag, ports, nonce): dropped (those that
	 * come while one may: sctp_udp_plpmtud_input) */
	uint64_t probes_sent, probes_acked, probes_failed, probe_bad_acks;
	uint64_t tx_frag;                      /* datagrams sent with DF off (RFC 4960 §7.3) */
	uint64_t rx_unproven;                  /* from unknown sources, neither a lone INIT
	                                        * nor a COOKIE ECHO: dropped without
	                                        * state */
	uint64_t peers_expired, peers_evicted; /* idle peers freed */
	uint64_t init_limited;                 /* INITs / COOKIE ECHOs from unknown sources
	                                        * past PEER_TRANSIENT_MAX peers on
	                                        * probation at once */
	uint64_t peers;                        /* peers now */
	/* the peer table: lookups (one per datagram whose CRC32c checked
	 * out, and per new association) and the entries they compared */
	uint64_t peer_lookups, peer_probes;
	uint64_t peer_max_chain; /* longest hash chain now */
	/* ICMP errors (error queue): acted on only when the quoted SCTP
	 * packet proves it ours (ports + verification tag) */
	uint64_t icmp_dead;       /* port / protocol unreachable: peer failed */
	uint64_t icmp_mtu;        /* fragmentation needed / packet too big */
	uint64_t icmp_unverified; /* DEAD / MTU kinds without the proof
	                           * (quote too short, unknown peer, wrong
	                           * tag): discarded */
	uint64_t icmp_ignored;    /* host / net unreachable and other types:
	                           * counted, never acted on */
	uint64_t icmp_local;      /* our own send errors (the send path acts) */
};

struct sctp_udp_ops {
	/* a datagram whose CRC32c checked out */
	void (*input)(void *user, struct sctp_udp_peer *p, uint8_t *pkt, size_t len);
	/* a peer is about to be freed */
	void (*peer_free)(void *user, struct sctp_udp_peer *p);
	/* a verified ICMP port / protocol unreachable for datagrams sent to
	 * p: its UDP port is closed, every association over it is gone */
	void (*peer_failed)(void *user, struct sctp_udp_peer *p);
	/* p->mtu changed: down (EMSGSIZE, ICMP fragmentation needed /
	 * packet too big, a probe failed) or up (a probe confirmed it) */
	void (*peer_mtu)(void *user, struct sctp_udp_peer *p);
	/* may datagrams from unknown addresses create peers? */
	int (*learn)(void *user);
};

/* Bind addr (NULL = 127.0.0.1) : port (0 or -1 = any). mtu_cap:
 * largest IP MTU used for any peer (0: the route's alone).
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM, DDP_ERR_SYS. */
int sctp_udp_open(struct event_base *base, const char *addr, int port, uint32_t mtu_cap,
                  const struct sctp_udp_ops *ops, void *user, struct sctp_udp **out);
/* Frees every peer (peer_free first) and drops queued datagrams. */
void sctp_udp_close(struct sctp_udp *u);
int sctp_udp_port(const struct sctp_udp *u);
/* The bound UDP address as text (DDP_ADDR_STRLEN octets). */
const char *sctp_udp_local_fmt(const struct sctp_udp *u, char *buf);
/* Peer for addr:port (literal), created if new. NULL: bad address / NOMEM.
 * The caller takes a reference (sctp_udp_peer_ref) before the loop runs
 * again, else the peer may expire. */
struct sctp_udp_peer *sctp_udp_peer_get(struct sctp_udp *u, const char *addr, int port);
/* An association uses / stops using p: an unreferenced peer expires after
 * the idle time without datagrams (sctp_udp_set_peer_idle). */
void sctp_udp_peer_ref(struct sctp_udp_peer *p);
void sctp_udp_peer_unref(struct sctp_udp_peer *p);
/* The clock of last_ms and the layer's other times: CLOCK_MONOTONIC, ms
 * (sctp_udp_clock.c). */
uint64_t sctp_udp_now_ms(void);
/* usrsctp's AF_CONN address of p, and back (NULL: no such peer any more,
 * e.g. a packet usrsctp emits after we freed the peer). */
void *sctp_udp_peer_conn_addr(const struct sctp_udp_peer *p);
struct sctp_udp_peer *sctp_udp_peer_by_id(const void *conn_addr);
/* Idle time before an unreferenced peer is freed (default 10 s). */
void sctp_udp_set_peer_idle(struct sctp_udp *u, uint32_t ms);
/* Queue one SCTP packet for p; the CRC32c is filled in on our copy. A full
 * queue drops it (SCTP retransmits). df: usrsctp's set_df (0: the packet
 * may be IP-fragmented if it no longer fits the path MTU). local: the
 * caller runs on the thread of p's event_base, which arms the flush; from
 * any other thread (local 0, allowed: the queue has its own lock) the
 * packet waits for sctp_udp_kick() on the owner thread. p stays valid for
 * the call only while its peer_free callback cannot run (the usrsctp glue
 * holds its lock, which that callback takes). */
void sctp_udp_send(struct sctp_udp_peer *p, const void *pkt, size_t len, int df, int local);
/* Owner thread: flush what other threads queued (sctp_udp_send local 0). */
void sctp_udp_kick(struct sctp_udp *u);
/* The user pointer given to sctp_udp_open for p's socket. */
void *sctp_udp_peer_user(const struct sctp_udp_peer *p);
/* Largest UDP payload to p without IP fragmentation: p->mtu - IP header
 * (20 / 40) - 8, at most 65507 (the IPv4 total length limit). */
uint32_t sctp_udp_peer_max_payload(const struct sctp_udp_peer *p);
/* The same for any peer of u: the configured cap, else 65507. */
uint32_t sctp_udp_max_payload(const struct sctp_udp *u);
/* Tests: a path MTU decrease for p as a verified ICMP would report it. */
void sctp_udp_peer_mtu_drop(struct sctp_udp_peer *p, uint32_t mtu);
/* Tests: switch the offloads off (gso, gro: 0 = off, 1 = as available). */
void sctp_udp_set_offload(struct sctp_udp *u, int gso, int gro);
void sctp_udp_set_filter(struct sctp_udp *u, sctp_udp_filter f, void *user);
void sctp_udp_stats(const struct sctp_udp *u, uint64_t *rx, uint64_t *bad_crc, uint64_t *tx);
void sctp_udp_counters(const struct sctp_udp *u, struct sctp_udp_counters *c);
/* Notices (ICMP discarded or counted) go to ctx's log hook (NULL: none). */
void sctp_udp_set_log(struct sctp_udp *u, struct ddp_ctx *ctx);

#endif
