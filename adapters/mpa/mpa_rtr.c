/* RFC 6581 §9.2-9.3 RTR messages (see mpa_rtr.h). */
#include "mpa/mpa_rtr.h"

#include <string.h>

#include <ddp/ddp.h>
#include "mpa/mpa_startup.h"

/* DDP control octets (RFC 5041 §4.1): T, L, DV=1 */
#define CTRL_UNTAGGED_LAST 0x41
#define CTRL_TAGGED_LAST 0xc1
/* RDMAP control octets (RFC 5040 §4.2): RV=1, opcode */
#define RDMAP_WRITE 0x40
#define RDMAP_READ_REQ 0x41
#define RDMAP_SEND 0x43

static void put32(uint8_t *b, uint32_t v)
{
	b[0] = (uint8_t)(v >> 24);
	b[1] = (uint8_t)(v >> 16);
	b[2] = (uint8_t)(v >> 8);
	b[3] = (uint8_t)v;
}

int mpa_rtr_build(unsigned kind, uint8_t *hdr, size_t *hdr_len,
		  uint8_t *payload, size_t *payload_len)
{
	memset(hdr, 0, DDP_UNTAGGED_HDR_LEN);
	*payload_len = 0;
	switch (kind) {
	case MPA_RTR_WRITE:
		hdr[0] = CTRL_TAGGED_LAST;
		hdr[1] = RDMAP_WRITE;
		put32(hdr + 2, 1); /* STag 1, TO 0 */
		*hdr_len = DDP_TAGGED_HDR_LEN;
		return 0;
	case MPA_RTR_SEND:
		hdr[0] = CTRL_UNTAGGED_LAST;
		hdr[1] = RDMAP_SEND;
		put32(hdr + 6, 0);  /* QN 0 */
		put32(hdr + 10, 1); /* MSN 1 */
		*hdr_len = DDP_UNTAGGED_HDR_LEN;
		return 0;
	case MPA_RTR_READ:
		hdr[0] = CTRL_UNTAGGED_LAST;
		hdr[1] = RDMAP_READ_REQ;
		put32(hdr + 6, 1);  /* QN 1 */
		put32(hdr + 10, 1); /* MSN 1 */
		*hdr_len = DDP_UNTAGGED_HDR_LEN;
		memset(payload, 0, MPA_RTR_READ_PAYLOAD);
		put32(payload, 1);	/* sink STag */
		put32(payload + 16, 1); /* source STag (size 0 at 12..15) */
		*payload_len = MPA_RTR_READ_PAYLOAD;
		return 0;
	default:
		return DDP_ERR_INVAL;
	}
}

unsigned mpa_rtr_match(unsigned accepted, const uint8_t *hdr, size_t hdr_len,
		       size_t payload_len)
{
	if (hdr_len < DDP_TAGGED_HDR_LEN)
		return 0;
	uint8_t ctrl = hdr[0], op = hdr[1] & 0x0f;

	if (hdr_len == DDP_TAGGED_HDR_LEN && (ctrl & 0x80) && op == 0 &&
	    payload_len == 0 && (accepted & MPA_RTR_WRITE))
		return MPA_RTR_WRITE;
	if (hdr_len != DDP_UNTAGGED_HDR_LEN || (ctrl & 0x80))
		return 0;
	if (op == 3 && payload_len == 0 && (accepted & MPA_RTR_SEND))
		return MPA_RTR_SEND;
	if (op == 1 && payload_len == MPA_RTR_READ_PAYLOAD &&
	    (accepted & MPA_RTR_READ))
		return MPA_RTR_READ;
	return 0;
}
