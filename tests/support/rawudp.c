/* Spoofed-source loopback UDP for flood tests (rawudp.h). */
#include "rawudp.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <string.h>
#include <sys/socket.h>

#include "common/crc32c.h"

int rawudp_open(void)
{
	int one = 1, big = 4 << 20;
	int fd = socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_RAW);
	if (fd < 0)
		return -1;
	setsockopt(fd, IPPROTO_IP, IP_HDRINCL, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
	return fd;
}

void rawudp_source(uint32_t i, uint32_t *ip, uint16_t *port)
{
	*ip = 127u << 24 | ((i >> 16 & 0xff) | 1) << 16 | (i & 0xffff);
	*port = (uint16_t)(1024 + i % 60000);
}

int rawudp_send(int fd, uint32_t ip, uint16_t sport, uint16_t dport,
		const void *p, size_t n)
{
	uint8_t pkt[1500];
	struct iphdr *h = (struct iphdr *)pkt;
	struct udphdr *u = (struct udphdr *)(pkt + sizeof(*h));
	struct sockaddr_in to;
	if (n > sizeof(pkt) - sizeof(*h) - sizeof(*u))
		return -1;
	memset(pkt, 0, sizeof(*h) + sizeof(*u));
	h->version = 4;
	h->ihl = 5;
	h->ttl = 64;
	h->protocol = IPPROTO_UDP;
	h->saddr = htonl(ip);
	h->daddr = htonl(INADDR_LOOPBACK);
	h->tot_len = htons((uint16_t)(sizeof(*h) + sizeof(*u) + n));
	u->source = htons(sport);
	u->dest = htons(dport);
	u->len = htons((uint16_t)(sizeof(*u) + n));
	u->check = 0; /* IPv4: no UDP checksum */
	memcpy(pkt + sizeof(*h) + sizeof(*u), p, n);
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = h->daddr;
	return sendto(fd, pkt, sizeof(*h) + sizeof(*u) + n, 0,
		      (struct sockaddr *)&to, sizeof(to)) < 0 ? -1 : 0;
}

size_t rawudp_sctp(uint8_t *buf, uint16_t sport, uint16_t dport,
		   uint32_t vtag, uint8_t type, uint16_t len, uint32_t seed)
{
	size_t n = 12 + (size_t)((len + 3) & ~3u);
	uint32_t x = seed | 1;
	memset(buf, 0, n);
	buf[0] = (uint8_t)(sport >> 8);
	buf[1] = (uint8_t)sport;
	buf[2] = (uint8_t)(dport >> 8);
	buf[3] = (uint8_t)dport;
	buf[4] = (uint8_t)(vtag >> 24);
	buf[5] = (uint8_t)(vtag >> 16);
	buf[6] = (uint8_t)(vtag >> 8);
	buf[7] = (uint8_t)vtag;
	buf[12] = type;
	buf[14] = (uint8_t)(len >> 8);
	buf[15] = (uint8_t)len;
	for (size_t i = 16; i < 12 + (size_t)len; i++) {
		x ^= x << 13, x ^= x >> 17, x ^= x << 5;
		buf[i] = (uint8_t)x;
	}
	ddp_crc32c_put_wire(buf + 8, ddp_crc32c(0, buf, n));
	return n;
}
