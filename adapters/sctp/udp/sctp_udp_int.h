/*
 * Internals of our UDP socket (sctp_udp.h), shared by its files:
 * sctp_udp.c (socket, the send queue, filter, stats), sctp_udp_peers.c
 * (the peer table: proof, hashing, expiry),
 * sctp_udp_tx.c (queue flush: sendmmsg with UDP GSO runs),
 * sctp_udp_rx.c (recvmmsg with UDP GRO splitting, CRC check, the ICMP
 * error queue), sctp_udp_icmp.c (what an ICMP error may do: pure),
 * sctp_udp_mtu.c (path MTU of each peer from the route,
 * EMSGSIZE and ICMP "fragmentation needed" / "packet too big"),
 * sctp_udp_plpmtud.c (probing it, RFC 8899), sctp_udp_probe.c (the
 * probe on the wire: pure), sctp_udp_clock.c (sctp_udp_now_ms) and
 * sctp_udp_pkt.c (the send queue's packets and their free lists).
 */
#ifndef SCTP_UDP_INT_H
#define SCTP_UDP_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "common/siphash.h"
#include "sctp/udp/sctp_udp.h"

struct event;
struct ddp_ctx;

#define UDP_MAX         65536
#define TXQ_MAX         8192 /* queued datagrams before we drop (SCTP resends) */
#define SCTP_CSUM_OFF   8    /* RFC 4960 §3.1 checksum field */
#define SCTP_COMMON_HDR 12
#define GSO_MAX_SEGS    64         /* kernel UDP_MAX_SEGMENTS */
#define GSO_MAX_BYTES   65000      /* one super-datagram stays under 64 KiB */
#define TX_MSGS         256        /* mmsghdr entries per sendmmsg */
#define TX_PKTS         1024       /* packets (iovecs) per sendmmsg */
#define RX_MSGS         32         /* datagrams (or GRO trains) per recvmmsg */
#define PKT_CLASSES     2          /* packet capacities kept for reuse (sctp_udp_pkt.c) */
#define PKT_POOL_BYTES  (1u << 20) /* sent packets kept, per capacity and socket */
#define PEER_IDLE_MS    10000      /* unreferenced peer lifetime (default) */
/* lifetime of a peer no association ever used (its COOKIE ECHO was
 * answered with a COOKIE ACK and the listener has not taken the
 * association yet) */
#define PEER_HANDSHAKE_MS 2000
#define PEER_IDLE_MAX     4096 /* unreferenced peers at most (oldest goes) */
/* Peers on probation at once (sctp_udp_classify): made for an unknown
 * source's INIT or COOKIE ECHO and freed when the read batch that brought
 * it ends (sctp_udp_peers_settle), so at most a batch's worth exist; the
 * bound holds for callers that deliver outside a batch too. */
#define PEER_TRANSIENT_MAX 4096

struct pkt {
	struct pkt *next;
	struct sctp_udp_peer *peer;
	size_t len;
	int df;  /* usrsctp's set_df: may not be IP-fragmented */
	int cls; /* capacity class (sctp_udp_pkt.c), -1: sized to len */
	uint8_t data[];
};

struct sctp_udp {
	int fd, port, family;
	struct event *rd, *wr;
	int wr_pending;
	struct sctp_udp_ops ops;
	void *user;
	/* peer table (sctp_udp_peers.c), keyed hash */
	uint8_t hkey[DDP_SIPHASH_KEY_LEN];
	struct sctp_udp_peer **ptab;
	size_t pcap, npeers, nidle;
	struct sctp_udp_peer *idle_head, *idle_tail;
	uint32_t peer_idle_ms;
	struct sctp_udp_peer *trans_head; /* peers on probation */
	size_t ntrans;
	uint64_t drop_sec;    /* second of the last drop notice */
	uint64_t drop_logged; /* drops counted by it */
	struct event *sweep;
	/* the send queue: usrsctp's output callback may run on another
	 * thread (a timer of this endpoint's association fired by another
	 * thread's call into usrsctp) and append to it, so q_head, q_tail,
	 * qlen and c.tx_drops are touched under qlock only; the owner thread
	 * alone removes packets (so it reads their data without the lock) */
	pthread_mutex_t qlock;
	struct pkt *q_head, *q_tail;
	size_t qlen;
	struct pkt *held;
	/* sent packets for reuse, owner thread only (sctp_udp_pkt.c) */
	struct pkt *pool[PKT_CLASSES];
	size_t npool[PKT_CLASSES];
	sctp_udp_filter filter;
	void *filter_user;
	uint32_t mtu_cap; /* IP MTU cap (config path_mtu), 0 none */
	int gso, gro;     /* offloads the kernel accepted */
	struct sctp_udp_counters c;
	/* notices through the context's log hook, rate-limited */
	struct ddp_ctx *log_ctx;
	uint64_t log_sec;   /* second of the current log window */
	unsigned log_left;  /* lines left in it */
	uint64_t log_quiet; /* notices not logged since the last line */
	/* tx batch (sctp_udp_tx.c) */
	struct mmsghdr *tx_mv;
	struct iovec *tx_iov;
	uint8_t *tx_ctl;       /* TX_MSGS control buffers */
	struct pkt **tx_first; /* first packet of each entry */
	int *tx_npkt;          /* packets in each entry */
	/* rx batch (sctp_udp_rx.c) */
	struct mmsghdr *rx_mv;
	struct iovec *rx_iov;
	struct sockaddr_storage *rx_sa;
	uint8_t *rx_ctl;
	uint8_t *rx_buf; /* RX_MSGS x UDP_MAX */
};

/* sctp_udp.c */
void sctp_udp_arm_flush(struct sctp_udp *u);

/* sctp_udp_peers.c */
struct sctp_udp_peer *sctp_udp_peer_find(struct sctp_udp *u, const struct sockaddr_storage *sa,
                                         socklen_t salen);
/* A new peer (NULL: no memory); starts idle (unreferenced). */
struct sctp_udp_peer *sctp_udp_peer_add(struct sctp_udp *u, const struct sockaddr_storage *sa,
                                        socklen_t salen);
void sctp_udp_peer_touch(struct sctp_udp *u, struct sctp_udp_peer *p, uint64_t now);
void sctp_udp_peers_sweep(struct sctp_udp *u, uint64_t now);
void sctp_udp_peers_free_all(struct sctp_udp *u);
/* A lone INIT with verification tag 0, or a packet that starts with a
 * COOKIE ECHO: may create a peer on probation. */
int sctp_udp_proves_peer(const uint8_t *b, size_t n);
/* Does usrsctp's packet b[0..n) carry a COOKIE ACK (its cookie checked
 * out: an association exists)? */
int sctp_udp_is_cookie_ack(const uint8_t *b, size_t n);
/* End of a read batch: what usrsctp answered goes out (sctp_udp_flush),
 * then each peer on probation that no COOKIE ACK proved is freed. */
void sctp_udp_peers_settle(struct sctp_udp *u);
int sctp_udp_crc_ok(uint8_t *b, size_t n);
enum sctp_udp_verdict {
	SCTP_UDP_BAD_CRC,  /* dropped before any lookup */
	SCTP_UDP_UNPROVEN, /* unknown source, neither a lone INIT nor a
	                    * COOKIE ECHO (or not a listener, or too many
	                    * on probation): dropped without state */
	SCTP_UDP_NOMEM,    /* a new peer could not be allocated */
	SCTP_UDP_KNOWN,    /* *out: the source's peer */
	SCTP_UDP_NEW,      /* *out: a peer on probation, made by this lone
	                    * INIT or COOKIE ECHO */
};
/* One received SCTP packet b[0..n) from sa: CRC32c, then the peer table
 * (sctp_udp_peers.c). b's checksum field is left as it was. */
enum sctp_udp_verdict sctp_udp_classify(struct sctp_udp *u, const struct sockaddr_storage *sa,
                                        socklen_t salen, uint8_t *b, size_t n,
                                        struct sctp_udp_peer **out);
/* Longest chain of the address table (tests, stats: a walk of it). */
size_t sctp_udp_peer_max_chain(const struct sctp_udp *u);

/* sctp_udp_pkt.c */
/* A packet for len octets (NULL: no memory): from the owner thread's free
 * list when local (the caller is the owner thread), else malloc. */
struct pkt *sctp_udp_pkt_new(struct sctp_udp *u, size_t len, int local);
/* A packet done with: onto its free list, or freed. Owner thread only. */
void sctp_udp_pkt_free(struct sctp_udp *u, struct pkt *k);
void sctp_udp_pkt_pool_free(struct sctp_udp *u);

/* sctp_udp_tx.c */
int sctp_udp_tx_init(struct sctp_udp *u);
void sctp_udp_tx_free(struct sctp_udp *u);
void sctp_udp_flush(struct sctp_udp *u);

/* Read the socket's error queue: each entry is classified and acted on
 * (sctp_udp_icmp_entry). Returns how many came from ICMP (not the local
 * stack), the reports IP_RECVERR also makes the next send or receive call
 * fail with. */
int sctp_udp_errqueue(struct sctp_udp *u);

/* sctp_udp_rx.c */
int sctp_udp_rx_init(struct sctp_udp *u);
void sctp_udp_rx_free(struct sctp_udp *u);
void sctp_udp_read(struct sctp_udp *u);
/* Fault filter, then CRC check, peer and input: one SCTP packet. */
void sctp_udp_deliver(struct sctp_udp *u, const struct sockaddr_storage *sa, socklen_t salen,
                      uint8_t *b, size_t n);
/* One error-queue entry (sctp_udp_icmp.h): acted on, or counted and
 * logged. sa: the offending datagram's destination. */
struct sctp_icmp_in;
void sctp_udp_icmp_entry(struct sctp_udp *u, const struct sockaddr_storage *sa, socklen_t salen,
                         const struct sctp_icmp_in *in);

/* sctp_udp_mtu.c */
/* DF on the socket (IP_PMTUDISC_DO / IPV6_DONTFRAG). */
void sctp_udp_mtu_socket(struct sctp_udp *u);
/* A new peer's path MTU from the route. */
void sctp_udp_mtu_init(struct sctp_udp *u, struct sctp_udp_peer *p);
/* sendmsg to p failed with EMSGSIZE: the route's MTU went down. */
void sctp_udp_mtu_emsgsize(struct sctp_udp *u, struct sctp_udp_peer *p);
/* p's path MTU goes down to mtu (0: the RFC 1191 plateau below it),
 * never below the floor, ops.peer_mtu told. Returns the MTU before, or 0
 * if mtu was no decrease. O(1). */
uint32_t sctp_udp_mtu_lower(struct sctp_udp *u, struct sctp_udp_peer *p, uint32_t mtu);
/* Is p's datagram of len octets bigger than the kernel's route to it
 * lets out with DF (the route below our floor)? Then it goes with DF off. */
int sctp_udp_mtu_route_short(const struct sctp_udp_peer *p, size_t len);
/* Send k (larger than p's path MTU, usrsctp allows IP fragmentation:
 * RFC 4960 §7.3, a chunk sent before the MTU dropped) with DF off. */
int sctp_udp_send_fragmentable(struct sctp_udp *u, struct pkt *k);
/* The lowest path MTU ever used for family. */
uint32_t sctp_udp_mtu_floor(int family);
/* A probe set p's path MTU (up or down, capped, ops.peer_mtu told). */
void sctp_udp_mtu_probed(struct sctp_udp *u, struct sctp_udp_peer *p, uint32_t mtu);

/* sctp_udp_plpmtud.c */
/* A received packet b[0..*n) of known peer p (CRC32c checked, p->last_ms
 * its arrival: sctp_udp_classify): 1 if it was a lone probe
 * acknowledgement (consumed), else 0 (*n shorter if one was cut out of
 * it); starts p's probing once an association is up. Its chunks are
 * looked through only while an acknowledgement may come (a probe
 * unanswered or sent within the probe timer). */
int sctp_udp_plpmtud_input(struct sctp_udp *u, struct sctp_udp_peer *p, uint8_t *b, size_t *n);
/* A verified ICMP "fragmentation needed" / "packet too big" for p with
 * next-hop MTU mtu (0: not given; the caller checked that its quote
 * carries our tag): p's path MTU goes down at once and the search waits.
 * O(1). */
void sctp_udp_plpmtud_ptb(struct sctp_udp *u, struct sctp_udp_peer *p, uint32_t mtu);
void sctp_udp_plpmtud_free(struct sctp_udp_peer *p);
/* Tests (ddp_test.h): the timers in ms (0: the default). */
void sctp_udp_plpmtud_set_timers_for_test(uint32_t probe, uint32_t raise, uint32_t confirm);

#endif
