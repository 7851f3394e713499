/* Self-checking test messages (msgcheck.h). */
#include "msgcheck.h"

#include <stdlib.h>
#include <string.h>

uint32_t msgcheck_mix(uint32_t x)
{
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	x ^= x >> 16;
	return x;
}

static uint32_t fnv(const uint8_t *p, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

void msgcheck_make(uint8_t *b, uint32_t st, uint32_t seq, size_t n)
{
	uint32_t x = msgcheck_mix(seq ^ (st << 24));
	for (size_t i = MSGCHECK_MIN; i < n; i++) {
		x = x * 1103515245u + 12345u;
		b[i] = (uint8_t)(x >> 16);
	}
	memcpy(b + 4, &seq, 4);
	memcpy(b + 8, &st, 4);
	uint32_t h = fnv(b + 4, n - 4);
	memcpy(b, &h, 4);
}

int msgcheck_ok(const uint8_t *b, size_t n, uint32_t st, uint32_t seq)
{
	uint32_t h, s;
	if (n < MSGCHECK_MIN)
		return 0;
	memcpy(&h, b, 4);
	memcpy(&s, b + 4, 4);
	if (s != seq || h != fnv(b + 4, n - 4))
		return 0;
	uint8_t *ref = malloc(n);
	if (!ref)
		return 0;
	msgcheck_make(ref, st, seq, n);
	int ok = memcmp(ref, b, n) == 0;
	free(ref);
	return ok;
}

double msgcheck_ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 +
	       (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}
