/* Path MTU probes on the wire (sctp_udp_probe.h). */
#include "sctp/udp/sctp_udp_probe.h"

#include <arpa/inet.h>
#include <string.h>

#include "common/crc32c.h"

#define CHUNK_HEARTBEAT     4
#define CHUNK_HEARTBEAT_ACK 5
#define CHUNK_PAD           0x84 /* RFC 4820 */
#define PARAM_HB_INFO       1    /* RFC 9260 §3.3.5 */
#define HDR                 12
#define TLV_LEN             24

static void put16(uint8_t *p, uint32_t v)
{
	uint16_t n = htons((uint16_t)v);
	memcpy(p, &n, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
	uint32_t n = htonl(v);
	memcpy(p, &n, 4);
}

static uint32_t get16(const uint8_t *p)
{
	uint16_t n;
	memcpy(&n, p, 2);
	return ntohs(n);
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t n;
	memcpy(&n, p, 4);
	return ntohl(n);
}

size_t sctp_probe_build(uint8_t *buf, size_t len, const struct sctp_probe *pr)
{
	uint8_t *c;
	if (len < SCTP_PROBE_MIN_LEN || len % 4 || len > 65535)
		return 0;
	memset(buf, 0, len);
	put16(buf, pr->sport);
	put16(buf + 2, pr->dport);
	put32(buf + 4, pr->vtag);
	c = buf + HDR;
	c[0] = CHUNK_HEARTBEAT;
	put16(c + 2, SCTP_PROBE_HB_LEN);
	put16(c + 4, PARAM_HB_INFO);
	put16(c + 6, TLV_LEN);
	put32(c + 8, SCTP_PROBE_MARKER);
	put32(c + 12, pr->size);
	put32(c + 16, pr->seq);
	memcpy(c + 20, &pr->nonce, 8);
	/* RFC 4820 §3: the PAD chunk's upper type bits (10) make a peer
	 * that does not know it skip it and go on */
	c += SCTP_PROBE_HB_LEN;
	c[0] = CHUNK_PAD;
	put16(c + 2, (uint32_t)(len - HDR - SCTP_PROBE_HB_LEN));
	/* RFC 9260 §6.8 */
	ddp_crc32c_put_wire(buf + 8, ddp_crc32c(0, buf, len));
	return len;
}

enum sctp_probe_ack sctp_probe_ack_parse(const uint8_t *b, size_t n, struct sctp_probe *out,
                                         size_t *off, size_t *clen)
{
	size_t o = HDR;
	if (n < HDR)
		return SCTP_PROBE_NONE;
	while (n - o >= 4) {
		const uint8_t *c = b + o;
		size_t l = get16(c + 2), padded = (l + 3) & ~(size_t)3;
		if (l < 4 || l > n - o)
			return SCTP_PROBE_NONE;
		if (padded > n - o)
			padded = n - o;
		/* RFC 9260 §3.3.6: the HEARTBEAT ACK echoes our Heartbeat
		 * Info TLV as sent */
		if (c[0] == CHUNK_HEARTBEAT_ACK && l >= 12 && get16(c + 4) == PARAM_HB_INFO &&
		    get32(c + 8) == SCTP_PROBE_MARKER) {
			if (l != SCTP_PROBE_HB_LEN || get16(c + 6) != TLV_LEN)
				return SCTP_PROBE_BAD;
			out->sport = (uint16_t)get16(b);
			out->dport = (uint16_t)get16(b + 2);
			out->vtag = get32(b + 4);
			out->size = get32(c + 12);
			out->seq = get32(c + 16);
			memcpy(&out->nonce, c + 20, 8);
			*off = o;
			*clen = padded;
			return SCTP_PROBE_ACK;
		}
		o += padded;
	}
	return SCTP_PROBE_NONE;
}
