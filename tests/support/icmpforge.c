/* icmpforge: forged ICMPv4 errors about UDP datagrams (icmpforge.h). */
#include "icmpforge.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int icmp_own_netns(void)
{
	struct ifreq ifr;
	int fd, ok;
	if (geteuid() != 0 || unshare(CLONE_NEWNET) != 0)
		return 0;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&ifr, 0, sizeof(ifr));
	strcpy(ifr.ifr_name, "lo");
	ok = ioctl(fd, SIOCGIFFLAGS, &ifr) == 0;
	ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
	ok = ok && ioctl(fd, SIOCSIFFLAGS, &ifr) == 0;
	close(fd);
	return ok;
}

int icmp_raw_socket(void)
{
	return socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
}

static uint16_t csum(const uint8_t *b, size_t n)
{
	uint32_t s = 0;
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)b[i] << 8 | b[i + 1];
	if (n & 1)
		s += (uint32_t)b[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

int icmp_forge(int raw, uint8_t type, uint8_t code, uint16_t mtu, const char *src, int sport,
	       const char *dst, int dport, const uint8_t *q, size_t qn)
{
	uint8_t m[8 + 20 + 8 + 64];
	struct sockaddr_in to;
	uint16_t c;
	if (qn > 64)
		return -1;
	memset(m, 0, sizeof(m));
	m[0] = type;
	m[1] = code;
	m[6] = (uint8_t)(mtu >> 8);
	m[7] = (uint8_t)mtu;
	uint8_t *ip = m + 8, *udp = m + 28;
	ip[0] = 0x45;
	ip[2] = 0x05; /* total length as sent: 1400 */
	ip[3] = 0x78;
	ip[6] = 0x40; /* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	inet_pton(AF_INET, src, ip + 12);
	inet_pton(AF_INET, dst, ip + 16);
	c = csum(ip, 20);
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	udp[0] = (uint8_t)(sport >> 8);
	udp[1] = (uint8_t)sport;
	udp[2] = (uint8_t)(dport >> 8);
	udp[3] = (uint8_t)dport;
	udp[4] = 0x05;
	udp[5] = 0x64;
	if (qn)
		memcpy(m + 36, q, qn);
	c = csum(m, 36 + qn);
	m[2] = (uint8_t)(c >> 8);
	m[3] = (uint8_t)c;
	memset(&to, 0, sizeof(to));
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return sendto(raw, m, 36 + qn, 0, (struct sockaddr *)&to, sizeof(to)) ==
			       (ssize_t)(36 + qn)
		       ? 0
		       : -1;
}
