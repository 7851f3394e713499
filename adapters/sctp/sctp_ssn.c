/* DDP-SSN and DDP Segment Chunk framing (RFC 5043 §5.2.1). */
#include "sctp/sctp_ssn.h"

#include <ddp/ddp.h>

void sctp_ssn_put(uint8_t *p, uint16_t ssn)
{
	p[0] = (uint8_t)(ssn >> 8);
	p[1] = (uint8_t)ssn;
}

uint16_t sctp_ssn_get(const uint8_t *p)
{
	return (uint16_t)((uint16_t)p[0] << 8 | p[1]);
}

size_t sctp_seg_prefix_len(uint8_t ddp_ctrl)
{
	/* RFC 5041 §4.1: T is the most significant bit of the control octet */
	return SCTP_SSN_LEN +
	       ((ddp_ctrl & 0x80) ? DDP_TAGGED_HDR_LEN : DDP_UNTAGGED_HDR_LEN);
}

int sctp_seg_split(const uint8_t *msg, size_t len, uint16_t *ssn,
		   const uint8_t **seg, size_t *seg_len)
{
	/* RFC 5043 §5.2.1: DDP-SSN(2) then the DDP segment, which always has
	 * a whole header (RFC 5041 §4, DDP-HDR-9) */
	if (len < SCTP_SSN_LEN + 1)
		return DDP_ERR_PROTO;
	if (len < sctp_seg_prefix_len(msg[SCTP_SSN_LEN]))
		return DDP_ERR_PROTO;
	*ssn = sctp_ssn_get(msg);
	*seg = msg + SCTP_SSN_LEN;
	*seg_len = len - SCTP_SSN_LEN;
	return 0;
}
