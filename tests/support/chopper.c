/* chopper: seeded splitter and PRNG (splitmix64) for tests and fuzzers. */
#include "chopper.h"

void chopper_seed(chopper *c, uint64_t seed)
{
	c->state = seed ^ 0x9e3779b97f4a7c15ULL;
}

uint64_t chopper_next(chopper *c)
{
	uint64_t z = (c->state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t chopper_below(chopper *c, uint64_t n)
{
	return n ? chopper_next(c) % n : 0;
}

int chopper_chance(chopper *c, unsigned pct)
{
	return pct && chopper_below(c, 100) < pct;
}

size_t chopper_piece(chopper *c, size_t left, size_t max)
{
	size_t n;

	if (left == 0)
		return 0;
	if (max == 0)
		max = 1;
	n = 1 + (size_t)chopper_below(c, max);
	return n < left ? n : left;
}

size_t chopper_split(chopper *c, size_t len, size_t max, size_t *out,
		     size_t cap)
{
	size_t n = 0;

	while (len && n < cap) {
		size_t p = n + 1 == cap ? len : chopper_piece(c, len, max);

		out[n++] = p;
		len -= p;
	}
	return n;
}

void chopper_fill(chopper *c, void *buf, size_t len)
{
	uint8_t *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)chopper_next(c);
}
