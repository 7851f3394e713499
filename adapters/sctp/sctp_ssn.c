/* DDP-SSN and DDP Segment Chunk framing (RFC 5043 §5.2.1). */
#include "sctp/sctp_ssn.h"

#include <ddp/ddp.h>

#include "cursor.h"

void sctp_ssn_put(uint8_t *p, uint16_t ssn)
{
	struct wcur w = wc_init(p, SCTP_SSN_LEN);
	wc_put_be(&w, SCTP_SSN_LEN, ssn);
}

uint16_t sctp_ssn_get(const uint8_t *p)
{
	struct rcur c = rc_init(p, SCTP_SSN_LEN);
	uint64_t v = 0;
	rc_get_be(&c, SCTP_SSN_LEN, &v); /* cannot fail: 2 of 2 octets */
	return (uint16_t)v;
}

size_t sctp_seg_prefix_len(uint8_t ddp_ctrl)
{
	/* RFC 5041 §4.1: T is the most significant bit of the control octet */
	return SCTP_SSN_LEN + ((ddp_ctrl & 0x80) ? DDP_TAGGED_HDR_LEN : DDP_UNTAGGED_HDR_LEN);
}

int sctp_seg_split(const uint8_t *msg, size_t len, uint16_t *ssn, const uint8_t **seg,
                   size_t *seg_len)
{
	struct rcur c = rc_init(msg, len);
	uint64_t v, ctrl;

	/* RFC 5043 §5.2.1: DDP-SSN(2) then the DDP segment, which always has
	 * a whole header (RFC 5041 §4, DDP-HDR-9) */
	if (rc_get_be(&c, SCTP_SSN_LEN, &v) || rc_peek_be(&c, 1, &ctrl))
		return DDP_ERR_PROTO;
	if (len < sctp_seg_prefix_len((uint8_t)ctrl))
		return DDP_ERR_PROTO;
	*ssn = (uint16_t)v;
	*seg = c.p;
	*seg_len = rc_left(&c);
	return 0;
}
