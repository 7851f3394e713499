/* Fault shim for the SCTP tests' UDP path (sctp_ll_set_filter): drops,
 * duplicates, reorders (holds past the next datagram) and corrupts
 * datagrams at a seeded rate, counting what it did. */
#ifndef DDP_TEST_NET_UDPFAULT_H
#define DDP_TEST_NET_UDPFAULT_H

#include <stddef.h>
#include <stdint.h>

struct udp_faults {
	unsigned long n, drop, dup, hold, corrupt; /* datagrams seen / hit */
	uint32_t rng;
	unsigned pct;	/* percent of datagrams for each kind of fault */
	size_t skip;	/* corruption flips one bit after this many octets */
};

/* Counters cleared; pct % each of drop, duplicate, hold and corrupt. */
void udp_faults_init(struct udp_faults *f, uint32_t seed, unsigned pct,
		     size_t skip);
/* The filter: user is a struct udp_faults. Returns SCTP_LL_*. */
unsigned udp_faults_filter(void *user, uint8_t *pkt, size_t len);
/* A filter that drops everything (a peer gone silent). */
unsigned udp_drop_all(void *user, uint8_t *pkt, size_t len);

#endif
