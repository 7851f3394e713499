/*
 * SCTP packets over our own UDP socket (RFC 6951 format: the SCTP packet
 * is the UDP payload) on libevent, with our CRC32c (RFC 4960 §6.8): output
 * is queued and flushed from the loop, input is verified before it is
 * handed up. Knows nothing of usrsctp (sctp_usrsctp.c sits on top).
 */
#ifndef SCTP_UDP_H
#define SCTP_UDP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "sctp/sctp_ll.h"

struct event_base;
struct sctp_udp;

/* One remote UDP endpoint (one AF_CONN address for usrsctp). */
struct sctp_udp_peer {
	struct sctp_udp_peer *next;
	struct sctp_udp *u;	/* NULL once the socket is closed */
	struct sockaddr_storage sa;
	socklen_t salen;
};

struct sctp_udp_ops {
	/* a datagram whose CRC32c checked out */
	void (*input)(void *user, struct sctp_udp_peer *p, uint8_t *pkt,
		      size_t len);
	/* a peer was created / is about to be freed */
	void (*peer_new)(void *user, struct sctp_udp_peer *p);
	void (*peer_free)(void *user, struct sctp_udp_peer *p);
	/* ICMP error for datagrams sent to p (port unreachable, ...) */
	void (*peer_failed)(void *user, struct sctp_udp_peer *p);
	/* may datagrams from unknown addresses create peers? */
	int (*learn)(void *user);
};

/* Bind addr (NULL = 127.0.0.1) : port (0 = 9899, -1 = any).
 * Errors: DDP_ERR_INVAL, DDP_ERR_NOMEM, DDP_ERR_SYS. */
int sctp_udp_open(struct event_base *base, const char *addr, int port,
		  const struct sctp_udp_ops *ops, void *user,
		  struct sctp_udp **out);
/* Frees every peer (peer_free first) and drops queued datagrams. */
void sctp_udp_close(struct sctp_udp *u);
int sctp_udp_port(const struct sctp_udp *u);
/* Peer for addr:port (literal), created if new. NULL: bad address / NOMEM. */
struct sctp_udp_peer *sctp_udp_peer_get(struct sctp_udp *u, const char *addr,
					int port);
/* Queue one SCTP packet for p; the CRC32c is filled in on our copy. A full
 * queue drops it (SCTP retransmits). */
void sctp_udp_send(struct sctp_udp_peer *p, const void *pkt, size_t len);
void sctp_udp_set_filter(struct sctp_udp *u, sctp_ll_filter f, void *user);
void sctp_udp_stats(const struct sctp_udp *u, uint64_t *rx, uint64_t *bad_crc,
		    uint64_t *tx);

#endif
