/* UDP datagrams with any loopback source (127.x.y.z : port) through a raw
 * socket (IP_HDRINCL; root / CAP_NET_RAW): one process plays many peers. */
#ifndef DDP_TEST_RAWUDP_H
#define DDP_TEST_RAWUDP_H

#include <stddef.h>
#include <stdint.h>

/* A raw IPv4 socket; -1 without the privilege. */
int rawudp_open(void);
/* Source 127.(i >> 16 & 0xff | 1).(i >> 8).(i) with port 1024 + i % 60000
 * for i = 0, 1, ...: a distinct source per i (host order in *ip, *port). */
void rawudp_source(uint32_t i, uint32_t *ip, uint16_t *port);
/* Send payload p[0..n) from ip:sport to 127.0.0.1:dport. 0 or -1 (errno). */
int rawudp_send(int fd, uint32_t ip, uint16_t sport, uint16_t dport,
		const void *p, size_t n);
/* An SCTP packet (RFC 4960 §3) with its CRC32c: common header (ports,
 * vtag) and one chunk of type/len (value octets from seed). Returns its
 * length; buf holds at least 12 + 4 + len rounded up. */
size_t rawudp_sctp(uint8_t *buf, uint16_t sport, uint16_t dport,
		   uint32_t vtag, uint8_t type, uint16_t len, uint32_t seed);

#endif
