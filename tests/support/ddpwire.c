/* ddpwire: reference DDP header codec for tests (RFC 5041 §4). */
#include <string.h>

#include "ddpwire.h"

void tw_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

void tw_put64(uint8_t *p, uint64_t v)
{
	tw_put32(p, (uint32_t)(v >> 32));
	tw_put32(p + 4, (uint32_t)v);
}

uint32_t tw_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

uint64_t tw_get64(const uint8_t *p)
{
	return (uint64_t)tw_get32(p) << 32 | tw_get32(p + 4);
}

size_t tw_tagged(uint8_t *out, int last, uint8_t dv, uint8_t rsvdulp,
		 uint32_t stag, uint64_t to, const void *payload, size_t plen)
{
	out[0] = (uint8_t)(TW_T | (last ? TW_L : 0) | (dv & TW_DV));
	out[1] = rsvdulp;
	tw_put32(out + 2, stag);
	tw_put64(out + 6, to);
	if (plen)
		memcpy(out + 14, payload, plen);
	return 14 + plen;
}

size_t tw_untagged(uint8_t *out, int last, uint8_t dv, uint64_t rsvdulp,
		   uint32_t qn, uint32_t msn, uint32_t mo, const void *payload,
		   size_t plen)
{
	out[0] = (uint8_t)((last ? TW_L : 0) | (dv & TW_DV));
	for (int i = 0; i < 5; i++)
		out[1 + i] = (uint8_t)(rsvdulp >> (8 * (4 - i)));
	tw_put32(out + 6, qn);
	tw_put32(out + 10, msn);
	tw_put32(out + 14, mo);
	if (plen)
		memcpy(out + 18, payload, plen);
	return 18 + plen;
}

int tw_decode(const uint8_t *seg, size_t len, tw_hdr *h)
{
	memset(h, 0, sizeof(*h));
	if (len < 1)
		return -1;
	h->tagged = !!(seg[0] & TW_T);
	h->last = !!(seg[0] & TW_L);
	h->dv = seg[0] & TW_DV;
	h->rsvd = (seg[0] & TW_RSVD) >> 2;
	h->hdr_len = h->tagged ? 14 : 18;
	if (len < h->hdr_len)
		return -1;
	if (h->tagged) {
		h->rsvdulp = seg[1];
		h->stag = tw_get32(seg + 2);
		h->to = tw_get64(seg + 6);
	} else {
		for (int i = 0; i < 5; i++)
			h->rsvdulp = h->rsvdulp << 8 | seg[1 + i];
		h->qn = tw_get32(seg + 6);
		h->msn = tw_get32(seg + 10);
		h->mo = tw_get32(seg + 14);
	}
	h->payload = seg + h->hdr_len;
	h->payload_len = len - h->hdr_len;
	return 0;
}
