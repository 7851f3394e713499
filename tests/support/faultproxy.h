/*
 * faultproxy: a TCP proxy on 127.0.0.1 for fault tests, driven by a
 * libevent event_base (integration tests only; compiled to nothing without
 * libevent). It accepts ONE connection, connects to a target port and
 * forwards both ways, re-segmenting the byte stream into random writes of
 * 1..max_piece octets (seeded), optionally flipping one bit at a chosen
 * stream offset (client -> server direction), with backpressure (stops
 * reading above FPROXY_HIGH queued octets). It can "die" with an RST to
 * both ends (SO_LINGER 0) or go silent (stop moving octets, sockets open).
 */
#ifndef DDP_TEST_FAULTPROXY_H
#define DDP_TEST_FAULTPROXY_H

#include <stddef.h>
#include <stdint.h>

struct event_base;
struct event;

#define FPROXY_HIGH (256 * 1024)

struct fproxy_dir {
	int from, to;
	struct event *rev, *wev;
	uint8_t *pend;
	size_t plen, pcap;
	uint64_t seen;	  /* octets read so far in this direction */
	uint64_t flip_at; /* flip flip_mask into the octet at this offset
			   * (0 = never; offset 0 cannot be flipped) */
	uint8_t flip_mask;
	uint32_t seed;
	size_t max_piece; /* random write sizes 1..max_piece */
	int eof, failed;
};

typedef struct fproxy {
	struct event_base *base;
	int lfd, port, target_port;
	struct event *lev;
	struct fproxy_dir d[2]; /* 0: client -> server, 1: server -> client */
	int active, dead;
} fproxy;

/* Listen on 127.0.0.1 (ephemeral port: px->port) and forward the first
 * accepted connection to 127.0.0.1:target. Returns 0 or -1 (errno set). */
int fproxy_start(fproxy *px, struct event_base *base, int target,
		 size_t max_piece, uint32_t seed);
/* Die: rst != 0 closes both sockets with SO_LINGER 0 (an RST to each end);
 * rst == 0 stops reading and writing, sockets stay open (silent peer). */
void fproxy_kill(fproxy *px, int rst);
/* Free everything (closes what is still open). */
void fproxy_stop(fproxy *px);

#endif
