/* Bounds-checked read/write cursors over wire bytes, shared by every parser
 * and encoder in src/, adapters/ and rdmap/ (header-only, no dependencies).
 * Byte order lives here and nowhere else: every multi-octet DDP, RDMAP,
 * MPA and RFC 5043 field is big-endian (RFC 5041 §4, RFC 5044 §4); the one
 * exception, the MPA/SCTP CRC32c field, is sent least-significant octet
 * first (RFC 5044 §4.4, RFC 4960 App. B) and has the _le calls.
 *
 * A read past the end fails (returns -1, the cursor does not move) instead
 * of over-reading; a write past the end sets `overflow` and writes nothing
 * more. Field widths n are 1..8 octets (a wider n fails / overflows).
 * Everything is static inline: with a constant n the loops unroll and the
 * bounds checks of fixed-size buffers fold away, so the per-FPDU paths cost
 * what hand-written shifts would. */
#ifndef DDP_CURSOR_H
#define DDP_CURSOR_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rcur {
	const uint8_t *p, *end;
};
struct wcur {
	uint8_t *p, *end;
	int overflow;
};

/* A read cursor over buf[0..len). */
static inline struct rcur rc_init(const void *buf, size_t len)
{
	struct rcur c = {(const uint8_t *)buf, (const uint8_t *)buf + len};
	return c;
}

/* A write cursor over buf[0..cap). */
static inline struct wcur wc_init(void *buf, size_t cap)
{
	struct wcur c = {(uint8_t *)buf, (uint8_t *)buf + cap, 0};
	return c;
}

/* Octets left to read. */
static inline size_t rc_left(const struct rcur *c)
{
	return (size_t)(c->end - c->p);
}

/* Octets left to write (0 after an overflow too). */
static inline size_t wc_left(const struct wcur *c)
{
	return c->overflow ? 0 : (size_t)(c->end - c->p);
}

/* Octet-order primitives, for the calls below only. The common widths are
 * spelled out: gcc turns these shapes into one load (+ bswap), while its
 * -O2 leaves a generic loop a loop; other widths take the loop. */
static inline uint64_t cur_load_be_(const uint8_t *p, unsigned n)
{
	switch (n) {
	case 2:
		return (uint64_t)p[0] << 8 | p[1];
	case 4:
		return (uint64_t)p[0] << 24 | (uint64_t)p[1] << 16 | (uint64_t)p[2] << 8 | p[3];
	case 8:
		return cur_load_be_(p, 4) << 32 | cur_load_be_(p + 4, 4);
	default: {
		uint64_t v = 0;
		for (unsigned i = 0; i < n; i++)
			v = (v << 8) | p[i];
		return v;
	}
	}
}

static inline uint64_t cur_load_le_(const uint8_t *p, unsigned n)
{
	switch (n) {
	case 2:
		return (uint64_t)p[1] << 8 | p[0];
	case 4:
		return (uint64_t)p[3] << 24 | (uint64_t)p[2] << 16 | (uint64_t)p[1] << 8 | p[0];
	default: {
		uint64_t v = 0;
		for (unsigned i = 0; i < n; i++)
			v |= (uint64_t)p[i] << (8 * i);
		return v;
	}
	}
}

/* The n-octet big-endian field at the cursor into *out, without moving.
 * Returns 0, or -1 (nothing read) when fewer than n octets are left. */
static inline int rc_peek_be(const struct rcur *c, unsigned n, uint64_t *out)
{
	if (n > 8 || rc_left(c) < n)
		return -1;
	*out = cur_load_be_(c->p, n);
	return 0;
}

/* As rc_peek_be, then past the field. */
static inline int rc_get_be(struct rcur *c, unsigned n, uint64_t *out)
{
	if (rc_peek_be(c, n, out))
		return -1;
	c->p += n;
	return 0;
}

/* The n-octet least-significant-first field at the cursor (the CRC32c
 * field, RFC 5044 §4.4) into *out, and past it. Returns 0 or -1. */
static inline int rc_get_le(struct rcur *c, unsigned n, uint64_t *out)
{
	if (n > 8 || rc_left(c) < n)
		return -1;
	*out = cur_load_le_(c->p, n);
	c->p += n;
	return 0;
}

/* Past n octets (reserved fields). Returns 0 or -1. */
static inline int rc_skip(struct rcur *c, size_t n)
{
	if (rc_left(c) < n)
		return -1;
	c->p += n;
	return 0;
}

/* n octets in place: a pointer to them (valid as long as the buffer), and
 * the cursor moves past them; NULL (cursor unmoved) when fewer are left. */
static inline const uint8_t *rc_take(struct rcur *c, size_t n)
{
	if (rc_left(c) < n)
		return NULL;
	const uint8_t *at = c->p;
	c->p += n;
	return at;
}

/* n octets copied out into dst. Returns 0 or -1 (nothing copied). */
static inline int rc_get_bytes(struct rcur *c, void *dst, size_t n)
{
	if (rc_left(c) < n)
		return -1;
	if (n)
		memcpy(dst, c->p, n);
	c->p += n;
	return 0;
}

/* Room for n more octets? Sets overflow (for good) when not. */
static inline int wc_room(struct wcur *c, size_t n)
{
	if (c->overflow || (size_t)(c->end - c->p) < n) {
		c->overflow = 1;
		return 0;
	}
	return 1;
}

/* v as an n-octet big-endian field. */
static inline void wc_put_be(struct wcur *c, unsigned n, uint64_t v)
{
	if (n > 8 || !wc_room(c, n)) {
		c->overflow = 1;
		return;
	}
	for (unsigned i = 0; i < n; i++)
		c->p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
	c->p += n;
}

/* v as an n-octet least-significant-first field (the CRC32c field,
 * RFC 5044 §4.4: 0x83992352 goes out as 52 23 99 83). */
static inline void wc_put_le(struct wcur *c, unsigned n, uint64_t v)
{
	if (n > 8 || !wc_room(c, n)) {
		c->overflow = 1;
		return;
	}
	for (unsigned i = 0; i < n; i++)
		c->p[i] = (uint8_t)(v >> (8 * i));
	c->p += n;
}

/* n octets copied from src. */
static inline void wc_put_bytes(struct wcur *c, const void *src, size_t n)
{
	if (!wc_room(c, n))
		return;
	if (n)
		memcpy(c->p, src, n);
	c->p += n;
}

/* n zero octets (PAD, reserved fields). */
static inline void wc_zero(struct wcur *c, size_t n)
{
	if (!wc_room(c, n))
		return;
	memset(c->p, 0, n);
	c->p += n;
}

#endif
