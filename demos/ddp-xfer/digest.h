/* ddp-xfer: SHA-256 of the transferred octets, computed by OpenSSL's
 * libcrypto (EVP digest API: SHA-NI / AVX2 code where the CPU has it). */
#ifndef DDP_XFER_DIGEST_H
#define DDP_XFER_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#define XF_SHA256_LEN 32

struct xf_sha256 {
	void *md; /* EVP_MD_CTX */
};

/* Start a new digest. 0, or -1 when libcrypto cannot (out of memory). */
int xf_sha256_init(struct xf_sha256 *c);
/* Hash n more octets of the message (p may be NULL when n is 0). */
void xf_sha256_update(struct xf_sha256 *c, const void *p, size_t n);
/* Finish: write the 32-octet digest to out and free the context. 0 or -1. */
int xf_sha256_final(struct xf_sha256 *c, uint8_t out[XF_SHA256_LEN]);
/* Free a context that will not be finished (NULL-safe, idempotent). */
void xf_sha256_free(struct xf_sha256 *c);
/* Lower-case hex of a digest, NUL terminated (65 octets). */
void xf_sha256_hex(const uint8_t d[XF_SHA256_LEN], char out[2 * XF_SHA256_LEN + 1]);
/* One core's SHA-256 rate over an in-memory buffer of `block` octets, for
 * about `seconds`: octets per second, or < 0 on failure. */
double xf_sha256_rate(size_t block, double seconds);

#endif
