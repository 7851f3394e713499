/* DDP header codec (RFC 5041 §4.1-§4.3). */
#include "wire.h"

#include <ddp/llp.h>
#include <string.h>

#include "cursor.h"

size_t wire_hdr_len(uint8_t ctrl)
{
	return (ctrl & DDP_CTRL_T) ? DDP_TAGGED_HDR_LEN : DDP_UNTAGGED_HDR_LEN;
}

size_t ddp_hdr_len(uint8_t ctrl)
{
	return wire_hdr_len(ctrl);
}

size_t wire_encode(const struct ddp_hdr *h, uint8_t *out, size_t cap)
{
	struct wcur c = wc_init(out, cap);
	/* RFC 5041 §4.1: Rsvd MUST be 0 on send; DV is the sender's version. */
	uint8_t ctrl = (uint8_t)((h->tagged ? DDP_CTRL_T : 0) | (h->last ? DDP_CTRL_L : 0) |
	                         (h->dv & DDP_CTRL_DV_MASK));
	wc_put_be(&c, 1, ctrl);
	if (h->tagged) {
		/* RFC 5041 §4.2: RsvdULP(8) STag(32) TO(64). */
		wc_put_be(&c, 1, h->rsvdulp & 0xff);
		wc_put_be(&c, 4, h->stag);
		wc_put_be(&c, 8, h->to);
	} else {
		/* RFC 5041 §4.3: RsvdULP(40) QN(32) MSN(32) MO(32). */
		wc_put_be(&c, 5, h->rsvdulp & 0xffffffffffull);
		wc_put_be(&c, 4, h->qn);
		wc_put_be(&c, 4, h->msn);
		wc_put_be(&c, 4, h->mo);
	}
	return c.overflow ? 0 : (size_t)(c.p - out);
}

size_t wire_decode(struct ddp_hdr *h, const uint8_t *buf, size_t len)
{
	struct rcur c = rc_init(buf, len);
	uint64_t v, ctrl;

	memset(h, 0, sizeof(*h));
	if (rc_get_be(&c, 1, &ctrl))
		return 0;
	h->tagged = (ctrl & DDP_CTRL_T) != 0;
	h->last = (ctrl & DDP_CTRL_L) != 0;
	h->dv = ctrl & DDP_CTRL_DV_MASK;
	if (h->tagged) {
		if (rc_get_be(&c, 1, &h->rsvdulp) || rc_get_be(&c, 4, &v) ||
		    rc_get_be(&c, 8, &h->to))
			return 0;
		h->stag = (uint32_t)v;
	} else {
		if (rc_get_be(&c, 5, &h->rsvdulp) || rc_get_be(&c, 4, &v))
			return 0;
		h->qn = (uint32_t)v;
		if (rc_get_be(&c, 4, &v))
			return 0;
		h->msn = (uint32_t)v;
		if (rc_get_be(&c, 4, &v))
			return 0;
		h->mo = (uint32_t)v;
	}
	return (size_t)(c.p - buf);
}
