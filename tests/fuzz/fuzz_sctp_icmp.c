/* Fuzz target: the ICMP error classifier of the SCTP UDP layer
 * (sctp_udp_icmp.c) fed arbitrary error-queue entries: origin, type, code,
 * ee_info, the packets we "sent" (their proof tags recorded) and the quote.
 * Invariants: no over-read of the quote (exact-size heap copy); only the
 * MTU kind carries an MTU; a tag is claimed only when the quote reaches
 * it; a match needs a tag; a packet we sent, quoted back, proves itself
 * unless its tag is one we only reflect.
 *
 * Input: origin, type, code, info (4, LE), k; then k records of
 * [len][len octets] noted as sent; the rest is the quote. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sctp/udp/sctp_udp_icmp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int reflected(const uint8_t *q, size_t n)
{
	uint8_t type = q[12];
	if (type == 2) /* INIT ACK */
		return 1;
	return (type == 6 || type == 14) && (q[13] & 1);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sctp_udp_tags sent, self;
	struct sctp_icmp_in in;
	struct sctp_icmp_out o;
	size_t off = 8;
	if (size < 8)
		return 0;
	memset(&sent, 0, sizeof(sent));
	memset(&in, 0, sizeof(in));
	in.origin = data[0] % 5;
	in.type = data[1];
	in.code = data[2];
	in.info = (uint32_t)data[3] | (uint32_t)data[4] << 8 |
		  (uint32_t)data[5] << 16 | (uint32_t)data[6] << 24;
	for (unsigned k = data[7] % 8; k > 0 && off < size; k--) {
		size_t len = data[off++];
		if (len > size - off)
			len = size - off;
		uint8_t *p = malloc(len ? len : 1);
		if (!p)
			return 0;
		memcpy(p, data + off, len);
		sctp_udp_tags_note(&sent, p, len);
		free(p);
		off += len;
	}
	size_t qn = size - off;
	uint8_t *q = malloc(qn ? qn : 1);
	if (!q)
		return 0;
	memcpy(q, data + off, qn);
	in.quote = qn ? q : NULL;
	in.qlen = qn;

	sctp_udp_icmp_classify(&in, &o);
	if (o.kind != SCTP_ICMP_MTU && o.mtu)
		abort();
	if (o.tagged && (qn < 12 || !o.tag))
		abort();
	if (o.init && (qn < 20 || q[12] != 1 || q[4] | q[5] | q[6] | q[7]))
		abort();
	if (sctp_udp_tags_match(&sent, &o) && !o.tagged)
		abort();
	/* what we send, quoted back, proves itself (unless reflected) */
	memset(&self, 0, sizeof(self));
	sctp_udp_tags_note(&self, q, qn);
	int m = sctp_udp_tags_match(&self, &o);
	if (o.tagged && qn >= 16 && !reflected(q, qn) && !m)
		abort();
	if (m && (qn < 16 || reflected(q, qn)))
		abort();
	free(q);
	return 0;
}
