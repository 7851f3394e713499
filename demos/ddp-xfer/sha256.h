/* ddp-xfer: SHA-256 (FIPS 180-4), streaming interface. */
#ifndef DDP_XFER_SHA256_H
#define DDP_XFER_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define XF_SHA256_LEN 32

struct xf_sha256 {
	uint32_t h[8];	   /* chaining value */
	uint64_t bits;	   /* message length so far, in bits */
	uint8_t blk[64];   /* partial block */
	size_t used;	   /* octets in blk */
};

/* Start a new digest. */
void xf_sha256_init(struct xf_sha256 *c);
/* Hash n more octets of the message (p may be NULL when n is 0). */
void xf_sha256_update(struct xf_sha256 *c, const void *p, size_t n);
/* Finish: write the 32-octet digest to out. c must be re-initialised
 * before it is used again. */
void xf_sha256_final(struct xf_sha256 *c, uint8_t out[XF_SHA256_LEN]);
/* Lower-case hex of a digest, NUL terminated (65 octets). */
void xf_sha256_hex(const uint8_t d[XF_SHA256_LEN], char out[2 * XF_SHA256_LEN + 1]);

#endif
