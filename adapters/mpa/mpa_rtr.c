/* RFC 6581 §9.2-9.3 RTR messages (see mpa_rtr.h). */
#include "mpa/mpa_rtr.h"

#include <ddp/ddp.h>
#include "mpa/mpa_startup.h"

#include "cursor.h"

/* DDP control octets (RFC 5041 §4.1): T, L, DV=1 */
#define CTRL_UNTAGGED_LAST 0x41
#define CTRL_TAGGED_LAST   0xc1
/* RDMAP control octets (RFC 5040 §4.2): RV=1, opcode */
#define RDMAP_WRITE    0x40
#define RDMAP_READ_REQ 0x41
#define RDMAP_SEND     0x43

int mpa_rtr_build(unsigned kind, uint8_t *hdr, size_t *hdr_len, uint8_t *payload,
                  size_t *payload_len)
{
	struct wcur h = wc_init(hdr, DDP_UNTAGGED_HDR_LEN);
	struct wcur p = wc_init(payload, MPA_RTR_READ_PAYLOAD);

	*payload_len = 0;
	switch (kind) {
	case MPA_RTR_WRITE: /* RFC 5041 §4.2: ctrl, RsvdULP, STag, TO */
		wc_put_be(&h, 1, CTRL_TAGGED_LAST);
		wc_put_be(&h, 1, RDMAP_WRITE);
		wc_put_be(&h, 4, 1); /* STag 1 (siw practice) */
		wc_put_be(&h, 8, 0); /* TO 0 */
		*hdr_len = DDP_TAGGED_HDR_LEN;
		return 0;
	case MPA_RTR_SEND: /* RFC 5041 §4.3: ctrl, RsvdULP(40), QN, MSN, MO */
		wc_put_be(&h, 1, CTRL_UNTAGGED_LAST);
		wc_put_be(&h, 1, RDMAP_SEND);
		wc_zero(&h, 4);      /* rest of RsvdULP */
		wc_put_be(&h, 4, 0); /* QN 0 */
		wc_put_be(&h, 4, 1); /* MSN 1 */
		wc_put_be(&h, 4, 0); /* MO 0 */
		*hdr_len = DDP_UNTAGGED_HDR_LEN;
		return 0;
	case MPA_RTR_READ:
		wc_put_be(&h, 1, CTRL_UNTAGGED_LAST);
		wc_put_be(&h, 1, RDMAP_READ_REQ);
		wc_zero(&h, 4);
		wc_put_be(&h, 4, 1); /* QN 1 */
		wc_put_be(&h, 4, 1); /* MSN 1 */
		wc_put_be(&h, 4, 0); /* MO 0 */
		*hdr_len = DDP_UNTAGGED_HDR_LEN;
		/* RFC 5040 §4.4: sink STag, sink TO, size, source STag, TO */
		wc_put_be(&p, 4, 1); /* sink STag */
		wc_put_be(&p, 8, 0);
		wc_put_be(&p, 4, 0); /* size 0 */
		wc_put_be(&p, 4, 1); /* source STag */
		wc_put_be(&p, 8, 0);
		*payload_len = MPA_RTR_READ_PAYLOAD;
		return 0;
	default:
		return DDP_ERR_INVAL;
	}
}

unsigned mpa_rtr_match(unsigned accepted, const uint8_t *hdr, size_t hdr_len, size_t payload_len)
{
	if (hdr_len < DDP_TAGGED_HDR_LEN)
		return 0;
	uint8_t ctrl = hdr[0], op = hdr[1] & 0x0f;

	if (hdr_len == DDP_TAGGED_HDR_LEN && (ctrl & 0x80) && op == 0 && payload_len == 0 &&
	    (accepted & MPA_RTR_WRITE))
		return MPA_RTR_WRITE;
	if (hdr_len != DDP_UNTAGGED_HDR_LEN || (ctrl & 0x80))
		return 0;
	if (op == 3 && payload_len == 0 && (accepted & MPA_RTR_SEND))
		return MPA_RTR_SEND;
	if (op == 1 && payload_len == MPA_RTR_READ_PAYLOAD && (accepted & MPA_RTR_READ))
		return MPA_RTR_READ;
	return 0;
}
