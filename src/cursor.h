/* Bounds-checked read/write cursors over wire bytes. Byte order lives here
 * and nowhere else in the core: every multi-octet DDP field is big-endian
 * (RFC 5041 §4). A read past the end fails instead of over-reading. */
#ifndef DDP_CURSOR_H
#define DDP_CURSOR_H

#include <stddef.h>
#include <stdint.h>

struct rcur {
	const uint8_t *p, *end;
};
struct wcur {
	uint8_t *p, *end;
	int overflow;
};

static inline int rc_get_be(struct rcur *c, unsigned n, uint64_t *out)
{
	if ((size_t)(c->end - c->p) < n)
		return -1;
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v = (v << 8) | c->p[i];
	c->p += n;
	*out = v;
	return 0;
}

static inline void wc_put_be(struct wcur *c, unsigned n, uint64_t v)
{
	if ((size_t)(c->end - c->p) < n) {
		c->overflow = 1;
		return;
	}
	for (unsigned i = 0; i < n; i++)
		c->p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	c->p += n;
}

#endif
