/* DDP header codec (RFC 5041 §4): pure encode/decode, no state. */
#ifndef DDP_WIRE_H
#define DDP_WIRE_H

#include <stddef.h>
#include <stdint.h>

/* Control octet (RFC 5041 §4.1): T L Rsvd(4) DV(2). */
#define DDP_CTRL_T       0x80
#define DDP_CTRL_L       0x40
#define DDP_CTRL_DV_MASK 0x03

struct ddp_hdr {
	uint8_t tagged;       /* T */
	uint8_t last;         /* L */
	uint8_t dv;           /* DDP version */
	uint64_t rsvdulp;     /* 8 bits tagged, 40 bits untagged */
	uint32_t stag;        /* tagged */
	uint64_t to;          /* tagged */
	uint32_t qn, msn, mo; /* untagged */
};

/* Header length for a control octet: 14 tagged, 18 untagged. */
size_t wire_hdr_len(uint8_t ctrl);
/* Encode h into out (at least wire_hdr_len octets). Rsvd bits are sent 0
 * (RFC 5041 §4.1, DDP-HDR-6). Returns the header length. */
size_t wire_encode(const struct ddp_hdr *h, uint8_t *out, size_t cap);
/* Decode a header from buf. Returns the header length, or 0 when len is
 * shorter than the header the control octet announces. Reserved bits are
 * not checked (DDP-HDR-6). */
size_t wire_decode(struct ddp_hdr *h, const uint8_t *buf, size_t len);

#endif
