/*
 * chopper: a seeded byte/segment chopper for tests and fuzz targets.
 * Splits a buffer into random-sized pieces of 1..max octets, and gives the
 * tests a small deterministic PRNG (splitmix64). No allocation, no I/O.
 */
#ifndef DDP_TEST_CHOPPER_H
#define DDP_TEST_CHOPPER_H

#include <stddef.h>
#include <stdint.h>

typedef struct chopper {
	uint64_t state;
} chopper;

/* Seed the generator (any value, 0 included). */
void chopper_seed(chopper *c, uint64_t seed);
/* Next 64 random bits. */
uint64_t chopper_next(chopper *c);
/* Uniform in [0, n) (n == 0 returns 0). */
uint64_t chopper_below(chopper *c, uint64_t n);
/* 1 with probability pct/100. */
int chopper_chance(chopper *c, unsigned pct);
/* Size of the next piece: 1..max, never more than left (left 0 gives 0). */
size_t chopper_piece(chopper *c, size_t left, size_t max);
/* Split len octets into pieces of 1..max octets: writes up to cap piece
 * lengths to out[] and returns how many pieces were written. When cap is
 * too small the last piece takes the rest. */
size_t chopper_split(chopper *c, size_t len, size_t max, size_t *out,
		     size_t cap);
/* Fill buf with random octets. */
void chopper_fill(chopper *c, void *buf, size_t len);

#endif
