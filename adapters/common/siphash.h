/*
 * SipHash-2-4 (Aumasson and Bernstein, "SipHash: a fast short-input PRF",
 * 2012): a keyed 64-bit hash for tables whose keys an attacker chooses
 * (peer addresses). With a secret random key the attacker cannot predict
 * which bucket an input lands in, so cannot build one long chain.
 */
#ifndef DDP_ADAPTERS_SIPHASH_H
#define DDP_ADAPTERS_SIPHASH_H

#include <ddp/export.h>
#include <stddef.h>
#include <stdint.h>

#define DDP_SIPHASH_KEY_LEN 16

/* SipHash-2-4 of p[0..n) under the 128-bit key (octets 0..7 are k0, 8..15
 * k1, both little-endian, as in the reference implementation). p may be
 * NULL when n == 0. Never fails. */
DDP_API uint64_t ddp_siphash24(const uint8_t key[DDP_SIPHASH_KEY_LEN], const void *p, size_t n);

/* Fill key with random octets from getrandom() (urandom pool; falls back
 * to a clock- and address-derived value only if the call is refused, e.g.
 * by a seccomp filter). Returns 0, or -1 when the fallback was used. */
DDP_API int ddp_siphash_random_key(uint8_t key[DDP_SIPHASH_KEY_LEN]);

#endif
