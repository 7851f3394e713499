/* Fuzz target: the parser of our path MTU probes' HEARTBEAT ACKs
 * (sctp_udp_probe.c, RFC 8899 §6.2.1.2) fed arbitrary SCTP packets.
 * Invariants: no over-read (exact-size heap copy); an acknowledgement lies
 * after the common header and inside the packet, is our HEARTBEAT ACK with
 * our marker, and its fields are those of its octets; cutting its chunk out
 * (as sctp_udp_plpmtud.c does for a bundled one) stays inside the packet.
 * A probe built to a size from the input parses back once echoed.
 *
 * Input: the SCTP packet (common header first). */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sctp/udp/sctp_udp_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint32_t get32(const uint8_t *p)
{
	uint32_t n;
	memcpy(&n, p, 4);
	return ntohl(n);
}

static void roundtrip(const uint8_t *data, size_t size)
{
	struct sctp_probe pr, a;
	uint8_t *b, ack[12 + SCTP_PROBE_HB_LEN];
	size_t len, off, clen;
	if (size < 20)
		return;
	memset(&pr, 0, sizeof(pr));
	memcpy(&pr.vtag, data, 4);
	memcpy(&pr.seq, data + 4, 4);
	memcpy(&pr.nonce, data + 8, 8);
	len = SCTP_PROBE_MIN_LEN + 4 * (size_t)(data[16] | (data[17] & 3) << 8);
	pr.size = (uint32_t)len + 28;
	b = malloc(len);
	if (!b)
		return;
	if (sctp_probe_build(b, len, &pr) != len)
		abort();
	memcpy(ack, b + 2, 2);
	memcpy(ack + 2, b, 2);
	memcpy(ack + 4, b + 4, 8);
	memcpy(ack + 12, b + 12, SCTP_PROBE_HB_LEN);
	ack[12] = 5;
	if (sctp_probe_ack_parse(ack, sizeof(ack), &a, &off, &clen) != SCTP_PROBE_ACK ||
	    a.size != pr.size || a.seq != pr.seq || a.nonce != pr.nonce || a.vtag != pr.vtag ||
	    off != 12 || clen != SCTP_PROBE_HB_LEN)
		abort();
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sctp_probe a;
	size_t off = 0, clen = 0;
	uint8_t *p = malloc(size ? size : 1);
	if (!p)
		return 0;
	memcpy(p, data, size);
	if (sctp_probe_ack_parse(p, size, &a, &off, &clen) == SCTP_PROBE_ACK) {
		if (off < 12 || clen < SCTP_PROBE_HB_LEN || off + clen > size)
			abort();
		if (p[off] != 5 || get32(p + off + 8) != SCTP_PROBE_MARKER ||
		    a.size != get32(p + off + 12) || a.seq != get32(p + off + 16) ||
		    a.vtag != get32(p + 4))
			abort();
		/* the cut of sctp_udp_plpmtud_input */
		memmove(p + off, p + off + clen, size - off - clen);
	}
	free(p);
	roundtrip(data, size);
	return 0;
}
