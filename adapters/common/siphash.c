/* SipHash-2-4: two compression rounds per 8-octet word, four finalization
 * rounds (siphash.h). */
#include "common/siphash.h"

#include <errno.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static uint64_t load_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

#define SIPROUND                                                                                   \
	do {                                                                                       \
		v0 += v1;                                                                          \
		v1 = ROTL(v1, 13);                                                                 \
		v1 ^= v0;                                                                          \
		v0 = ROTL(v0, 32);                                                                 \
		v2 += v3;                                                                          \
		v3 = ROTL(v3, 16);                                                                 \
		v3 ^= v2;                                                                          \
		v0 += v3;                                                                          \
		v3 = ROTL(v3, 21);                                                                 \
		v3 ^= v0;                                                                          \
		v2 += v1;                                                                          \
		v1 = ROTL(v1, 17);                                                                 \
		v1 ^= v2;                                                                          \
		v2 = ROTL(v2, 32);                                                                 \
	} while (0)

uint64_t ddp_siphash24(const uint8_t key[DDP_SIPHASH_KEY_LEN], const void *p, size_t n)
{
	const uint8_t *in = p;
	uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
	uint64_t v0 = 0x736f6d6570736575ull ^ k0;
	uint64_t v1 = 0x646f72616e646f6dull ^ k1;
	uint64_t v2 = 0x6c7967656e657261ull ^ k0;
	uint64_t v3 = 0x7465646279746573ull ^ k1;
	uint64_t m, b = (uint64_t)n << 56;
	size_t left = n & 7, i;

	for (i = 0; i + 8 <= n; i += 8) {
		m = load_le64(in + i);
		v3 ^= m;
		SIPROUND;
		SIPROUND;
		v0 ^= m;
	}
	/* the last 0..7 octets, little-endian, under the length octet */
	for (size_t j = 0; j < left; j++)
		b |= (uint64_t)in[i + j] << (8 * j);
	v3 ^= b;
	SIPROUND;
	SIPROUND;
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	SIPROUND;
	return v0 ^ v1 ^ v2 ^ v3;
}

int ddp_siphash_random_key(uint8_t key[DDP_SIPHASH_KEY_LEN])
{
	size_t got = 0;
	while (got < DDP_SIPHASH_KEY_LEN) {
		ssize_t r = getrandom(key + got, DDP_SIPHASH_KEY_LEN - got, 0);
		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	if (got == DDP_SIPHASH_KEY_LEN)
		return 0;
	/* no getrandom: better than a fixed key, not a secret */
	struct timespec t[2];
	clock_gettime(CLOCK_REALTIME, &t[0]);
	clock_gettime(CLOCK_MONOTONIC, &t[1]);
	uintptr_t where = (uintptr_t)&t;
	uint64_t a = ddp_siphash24(key, t, sizeof(t));
	uint64_t b = ddp_siphash24(key, &where, sizeof(where)) ^ a;
	memcpy(key, &a, 8);
	memcpy(key + 8, &b, 8);
	return -1;
}
