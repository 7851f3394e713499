/*
 * Packets as a TUN device with IFF_VNET_HDR hands them over: a virtio_net_hdr
 * (10 octets, little endian on every host we build for) and the IP packet.
 * With TSO on, one read may be a TCP super-packet of up to 64 KiB that stands
 * for nseg wire packets of hdrlen + mss octets; lk_pkt_run cuts a run of them
 * out, doing what the kernel's tcp_gso_segment does to the headers.
 */
#include "linkem.h"

#include <string.h>

#define VH_F_NEEDS_CSUM 1
#define VH_GSO_TCPV4    1
#define VH_GSO_TCPV6    4

static uint16_t get16le(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static void put16le(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint32_t sum16(const uint8_t *p, size_t n, uint32_t s)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += get16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

int lk_pkt_parse(const uint8_t *buf, size_t len, struct lk_pktinfo *pi)
{
	memset(pi, 0, sizeof *pi);
	pi->nseg = 1;
	if (len < LK_VNET_HDR_LEN)
		return -1;
	const uint8_t *ip = buf + LK_VNET_HDR_LEN;
	size_t iplen = len - LK_VNET_HDR_LEN;
	unsigned gt = buf[1] & 0x7f;
	uint32_t mss = get16le(buf + 4);
	if ((gt != VH_GSO_TCPV4 && gt != VH_GSO_TCPV6) || mss == 0)
		return 0;
	/* a super-packet: nseg from its length even if we cannot cut it */
	size_t iphl = 0;
	if (gt == VH_GSO_TCPV4 && iplen >= 20 && (ip[0] >> 4) == 4 && ip[9] == 6)
		iphl = (size_t)(ip[0] & 15) * 4;
	else if (gt == VH_GSO_TCPV6 && iplen >= 40 && (ip[0] >> 4) == 6 && ip[6] == 6)
		iphl = 40;
	size_t hl = 0;
	if (iphl >= 20 && iphl + 20 <= iplen) {
		size_t thl = (size_t)(ip[iphl + 12] >> 4) * 4;
		if (thl >= 20 && iphl + thl <= iplen)
			hl = iphl + thl;
	}
	if (hl == 0) {
		pi->nseg = (uint32_t)((iplen + mss - 1) / mss);
		if (pi->nseg == 0)
			pi->nseg = 1;
		pi->payload = (uint32_t)iplen;
		pi->mss = mss;
		return 0;
	}
	pi->hdrlen = (uint32_t)hl;
	pi->mss = mss;
	pi->payload = (uint32_t)(iplen - hl);
	pi->nseg = (pi->payload + mss - 1) / mss;
	if (pi->nseg == 0)
		pi->nseg = 1;
	pi->splittable = pi->nseg <= LK_MAX_SEGS;
	return 0;
}

uint32_t lk_pkt_wire_len(const struct lk_pktinfo *pi, size_t len, uint32_t i)
{
	uint32_t iplen = len > LK_VNET_HDR_LEN ? (uint32_t)(len - LK_VNET_HDR_LEN) : 0;
	if (pi->nseg <= 1)
		return iplen;
	if (!pi->hdrlen) /* a super-packet we cannot read: share it out */
		return iplen / pi->nseg;
	if (i + 1 < pi->nseg)
		return pi->hdrlen + pi->mss;
	return pi->hdrlen + pi->payload - (pi->nseg - 1) * pi->mss;
}

size_t lk_pkt_run(const uint8_t *buf, size_t len, const struct lk_pktinfo *pi, uint32_t first,
		  uint32_t n, uint8_t *out, size_t outcap)
{
	if (!pi->splittable || n == 0 || first >= pi->nseg || n > pi->nseg - first)
		return 0;
	uint32_t off = first * pi->mss;
	uint32_t plen = pi->payload - off;
	if (plen > n * pi->mss)
		plen = n * pi->mss;
	size_t total = LK_VNET_HDR_LEN + pi->hdrlen + plen;
	if (total > outcap || LK_VNET_HDR_LEN + pi->hdrlen + pi->payload > len)
		return 0;
	const uint8_t *ip = buf + LK_VNET_HDR_LEN;
	memcpy(out, buf, LK_VNET_HDR_LEN + pi->hdrlen);
	memcpy(out + LK_VNET_HDR_LEN + pi->hdrlen, ip + pi->hdrlen + off, plen);

	uint8_t *vh = out;
	uint8_t *oip = out + LK_VNET_HDR_LEN;
	int v4 = (ip[0] >> 4) == 4;
	size_t iphl = v4 ? (size_t)(ip[0] & 15) * 4 : 40;
	uint8_t *th = oip + iphl;
	uint32_t tcplen = pi->hdrlen - (uint32_t)iphl + plen;

	vh[0] = VH_F_NEEDS_CSUM;
	if (n == 1) {
		vh[1] = 0;
		put16le(vh + 4, 0);
	}
	put16le(vh + 2, (uint16_t)pi->hdrlen);
	put16le(vh + 6, (uint16_t)iphl);
	put16le(vh + 8, 16);

	uint32_t pseudo;
	if (v4) {
		put16(oip + 2, (uint16_t)(pi->hdrlen + plen));
		put16(oip + 4, (uint16_t)(get16(ip + 4) + first));
		put16(oip + 10, 0);
		put16(oip + 10, (uint16_t)~fold(sum16(oip, iphl, 0)));
		pseudo = sum16(oip + 12, 8, 6 + tcplen);
	} else {
		put16(oip + 4, (uint16_t)(pi->hdrlen - 40 + plen));
		pseudo = sum16(oip + 8, 32, 6 + (tcplen >> 16) + (tcplen & 0xffff));
	}
	uint32_t seq = (uint32_t)th[4] << 24 | (uint32_t)th[5] << 16 | (uint32_t)th[6] << 8 | th[7];
	seq += off;
	th[4] = (uint8_t)(seq >> 24);
	th[5] = (uint8_t)(seq >> 16);
	th[6] = (uint8_t)(seq >> 8);
	th[7] = (uint8_t)seq;
	if (first + n < pi->nseg)
		th[13] &= (uint8_t)~0x09; /* FIN and PSH only on the last piece */
	if (first > 0)
		th[13] &= (uint8_t)~0x80; /* CWR only on the first */
	/* CHECKSUM_PARTIAL: the field holds the pseudo-header sum */
	put16(th + 16, fold(pseudo));
	return total;
}
