/* RDMAP wire codec (see rdmap_wire.h). */
#include "rdmap_wire.h"

#include <string.h>

#include "cursor.h"

int rdmapi_rreq_decode(rdmapi_rreq *out, const uint8_t **src, const uint8_t *end)
{
	struct rcur c = {*src, end};
	uint64_t v[5];
	static const unsigned w[5] = {4, 8, 4, 4, 8};
	for (int i = 0; i < 5; i++)
		if (rc_get_be(&c, w[i], &v[i]))
			return DDP_ERR_NEED_MORE;
	out->sink_stag = (uint32_t)v[0];
	out->sink_to = v[1];
	out->size = (uint32_t)v[2];
	out->src_stag = (uint32_t)v[3];
	out->src_to = v[4];
	*src = c.p;
	return 0;
}

void rdmapi_rreq_encode(const rdmapi_rreq *r, uint8_t *buf)
{
	struct wcur c = {buf, buf + RDMAPI_RREQ_LEN, 0};
	wc_put_be(&c, 4, r->sink_stag);
	wc_put_be(&c, 8, r->sink_to);
	wc_put_be(&c, 4, r->size);
	wc_put_be(&c, 4, r->src_stag);
	wc_put_be(&c, 8, r->src_to);
}

int rdmapi_term_encode(const ddp_rdmap_term *t, uint8_t *buf, size_t cap)
{
	struct wcur c = {buf, buf + cap, 0};
	/* RFC 5040 §4.8: Layer(4) EType(4) Code(8) M D R Reserved(13). */
	wc_put_be(&c, 1, (uint64_t)((t->layer & 0xf) << 4 | (t->etype & 0xf)));
	wc_put_be(&c, 1, t->code);
	wc_put_be(&c, 1, (uint64_t)((t->m ? 0x80 : 0) | (t->d ? 0x40 : 0) | (t->r ? 0x20 : 0)));
	wc_put_be(&c, 1, 0);
	if (t->d || t->m) {
		wc_put_be(&c, 2, t->m ? t->seg_len : 0);
		if (t->d) {
			if ((size_t)(c.end - c.p) < t->ddp_hdr_len)
				return DDP_ERR_INVAL;
			memcpy(c.p, t->ddp_hdr, t->ddp_hdr_len);
			c.p += t->ddp_hdr_len;
		}
	}
	if (t->r) {
		if ((size_t)(c.end - c.p) < t->rdmap_hdr_len)
			return DDP_ERR_INVAL;
		memcpy(c.p, t->rdmap_hdr, t->rdmap_hdr_len);
		c.p += t->rdmap_hdr_len;
	}
	if (c.overflow)
		return DDP_ERR_INVAL;
	return (int)(c.p - buf);
}

/* ------------------------------------------------------------- decoding */

int ddp_rdmap_term_valid(uint8_t layer, uint8_t etype, uint8_t code)
{
	switch (layer) {
	case DDP_LAYER_RDMAP: /* RFC 5040 §4.8 */
		if (etype == DDP_RDMAP_ETYPE_CATASTROPHIC)
			return code == 0x00;
		if (etype == DDP_RDMAP_ETYPE_PROTECTION)
			return code <= 0x04 || code == 0x09 || code == 0xff;
		if (etype == DDP_RDMAP_ETYPE_OPERATION)
			return (code >= 0x05 && code <= 0x09) || code == 0xff;
		return 0;
	case DDP_LAYER_DDP: /* RFC 5041 §7.2 (+ libddp's LLP type 3) */
		if (etype == DDP_ETYPE_CATASTROPHIC)
			return code == 0x00;
		if (etype == DDP_ETYPE_TAGGED)
			return code <= 0x04;
		if (etype == DDP_ETYPE_UNTAGGED)
			return code >= 0x01 && code <= 0x06;
		if (etype == DDP_ETYPE_LLP)
			return code >= 0x01 && code <= 0x05;
		return 0;
	case DDP_LAYER_LLP: /* RFC 5044 §8, RFC 6581 §8 */
		return etype == 0 && code >= 0x01 && code <= 0x07;
	default:
		return 0;
	}
}

const char *ddp_rdmap_term_str(uint8_t layer, uint8_t etype, uint8_t code)
{
	if (!ddp_rdmap_term_valid(layer, etype, code))
		return "undefined error";
	if (layer == DDP_LAYER_RDMAP) {
		static const char *const c[] = {"invalid STag",
		                                "base or bounds violation",
		                                "access rights violation",
		                                "STag not associated with RDMAP stream",
		                                "TO wrap",
		                                "invalid RDMAP version",
		                                "unexpected opcode",
		                                "catastrophic error, localized to RDMAP stream",
		                                "catastrophic error, global",
		                                "STag cannot be invalidated"};
		if (etype == DDP_RDMAP_ETYPE_CATASTROPHIC)
			return "RDMAP local catastrophic error";
		return code <= 0x09 ? c[code] : "unspecified error";
	}
	return ddp_error_str(layer, etype, code); /* DDP and LLP layers: libddp */
}

/* Hdrct bits of octet 2 in the RFC layout (0x80/0x40/0x20) and in siw's
 * (0x01/0x02/0x04). */
static int rfc_flags(uint8_t b)
{
	return (b & 0xe0) != 0;
}
static int siw_flags(uint8_t b)
{
	return (b & 0x07) != 0;
}

int ddp_rdmap_term_decode(ddp_rdmap_term *out, const uint8_t **src, const uint8_t *end)
{
	struct rcur c = {*src, end};
	uint64_t ctl;
	if (!out || rc_get_be(&c, 4, &ctl))
		return DDP_ERR_NEED_MORE;
	memset(out, 0, sizeof(*out));
	uint8_t b0 = (uint8_t)(ctl >> 24), code = (uint8_t)(ctl >> 16), b2 = (uint8_t)(ctl >> 8);
	int rfc_ok = ddp_rdmap_term_valid(b0 >> 4, b0 & 0xf, code);
	int siw_ok = ddp_rdmap_term_valid(b0 & 0xf, b0 >> 4, code);
	/* siw declares the bitfields little-endian first (see
	 * adapters/mpa/README.md): prefer the reading that names a defined
	 * error; when both do, the position of the Hdrct bits decides; the RFC
	 * reading otherwise. */
	int swapped = siw_ok && (!rfc_ok || (siw_flags(b2) && !rfc_flags(b2)));
	if (!rfc_ok && !siw_ok)
		return DDP_ERR_PROTO;
	out->swapped = (uint8_t)swapped;
	out->code = code;
	if (swapped) {
		out->layer = b0 & 0xf;
		out->etype = b0 >> 4;
		out->m = b2 & 1;
		out->d = (b2 >> 1) & 1;
		out->r = (b2 >> 2) & 1;
	} else {
		out->layer = b0 >> 4;
		out->etype = b0 & 0xf;
		out->m = (b2 >> 7) & 1;
		out->d = (b2 >> 6) & 1;
		out->r = (b2 >> 5) & 1;
	}
	/* What follows is kept as far as it is present (lenient). */
	uint64_t v;
	if ((out->m || out->d) && rc_get_be(&c, 2, &v) == 0) {
		out->seg_len = (uint16_t)v;
		if (out->d && c.p < c.end) {
			size_t want = (c.p[0] & 0x80) ? DDP_TAGGED_HDR_LEN : DDP_UNTAGGED_HDR_LEN;
			size_t have = (size_t)(c.end - c.p);
			size_t n = have < want ? have : want;
			memcpy(out->ddp_hdr, c.p, n);
			out->ddp_hdr_len = (uint8_t)n;
			c.p += n;
		}
	}
	if (out->r && c.p < c.end) {
		size_t have = (size_t)(c.end - c.p);
		size_t n = have < sizeof(out->rdmap_hdr) ? have : sizeof(out->rdmap_hdr);
		memcpy(out->rdmap_hdr, c.p, n);
		out->rdmap_hdr_len = (uint8_t)n;
		c.p += n;
	}
	*src = c.p;
	return 0;
}
