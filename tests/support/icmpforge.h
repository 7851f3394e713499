/*
 * icmpforge: forged ICMPv4 errors about UDP datagrams, for the tests and
 * the soak that attack the SCTP-over-UDP layer from off the path (needs
 * root: a raw ICMP socket). Run them in a network namespace of their own
 * (icmp_own_netns): a forged fragmentation-needed lowers the kernel's own
 * route MTU for the address it names.
 */
#ifndef DDP_TEST_ICMPFORGE_H
#define DDP_TEST_ICMPFORGE_H

#include <stddef.h>
#include <stdint.h>

/* Move the calling process into a new network namespace with its
 * loopback up. Returns 1 when done, 0 when not root or it failed. */
int icmp_own_netns(void);
/* A raw ICMP socket, or -1. */
int icmp_raw_socket(void);
/* Send to 127.0.0.1 an ICMPv4 error of type/code about a UDP datagram
 * from src:sport to dst:dport, quoting the IP and UDP headers and
 * q[0..qn) (qn <= 64) of its payload; mtu: the next-hop MTU field.
 * Returns 0, or -1 when it was not sent whole. */
int icmp_forge(int raw, uint8_t type, uint8_t code, uint16_t mtu, const char *src, int sport,
	       const char *dst, int dport, const uint8_t *q, size_t qn);

#endif
