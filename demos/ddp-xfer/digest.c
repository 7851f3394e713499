/* ddp-xfer: SHA-256 through OpenSSL's EVP digest API. */
#include "digest.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int xf_sha256_init(struct xf_sha256 *c)
{
	EVP_MD_CTX *m = EVP_MD_CTX_new();
	c->md = m;
	if (!m || EVP_DigestInit_ex(m, EVP_sha256(), NULL) != 1) {
		xf_sha256_free(c);
		return -1;
	}
	return 0;
}

void xf_sha256_update(struct xf_sha256 *c, const void *p, size_t n)
{
	if (n)
		EVP_DigestUpdate(c->md, p, n); /* cannot fail for SHA-256 */
}

int xf_sha256_final(struct xf_sha256 *c, uint8_t out[XF_SHA256_LEN])
{
	unsigned n = 0;
	int ok = EVP_DigestFinal_ex(c->md, out, &n) == 1 && n == XF_SHA256_LEN;
	xf_sha256_free(c);
	return ok ? 0 : -1;
}

void xf_sha256_free(struct xf_sha256 *c)
{
	EVP_MD_CTX_free(c->md);
	c->md = NULL;
}

void xf_sha256_hex(const uint8_t d[XF_SHA256_LEN], char out[2 * XF_SHA256_LEN + 1])
{
	static const char hx[] = "0123456789abcdef";
	for (int i = 0; i < XF_SHA256_LEN; i++) {
		out[2 * i] = hx[d[i] >> 4];
		out[2 * i + 1] = hx[d[i] & 15];
	}
	out[2 * XF_SHA256_LEN] = 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double xf_sha256_rate(size_t block, double seconds)
{
	uint8_t *buf = malloc(block);
	struct xf_sha256 c;
	if (!buf || xf_sha256_init(&c)) {
		free(buf);
		return -1;
	}
	for (size_t i = 0; i < block; i++)
		buf[i] = (uint8_t)(i * 131u + (i >> 9));
	xf_sha256_update(&c, buf, block); /* warm up: pages, caches, clock */
	double t0 = now(), t;
	unsigned long long n = 0;
	do {
		xf_sha256_update(&c, buf, block);
		n += block;
	} while ((t = now() - t0) < seconds);
	uint8_t d[XF_SHA256_LEN];
	int rc = xf_sha256_final(&c, d);
	free(buf);
	return rc ? -1 : (double)n / t;
}
