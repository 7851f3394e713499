/* Self-checking test messages for the fault tests: octets 0..3 hold the
 * FNV-1a checksum of the rest, 4..7 the sequence number, 8..11 the stream,
 * then octets derived from (stream, seq). Any corruption, reorder or mix-up
 * between streams fails the check. */
#ifndef DDP_TEST_MSGCHECK_H
#define DDP_TEST_MSGCHECK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define MSGCHECK_MIN 12 /* shortest message that carries the fields */

/* A well-mixed 32-bit hash (for lengths and content). */
uint32_t msgcheck_mix(uint32_t x);
/* Fill b[0..n) (n >= MSGCHECK_MIN) as message seq of stream st. */
void msgcheck_make(uint8_t *b, uint32_t st, uint32_t seq, size_t n);
/* 1 when b[0..n) is exactly what msgcheck_make(st, seq, n) writes. */
int msgcheck_ok(const uint8_t *b, size_t n, uint32_t st, uint32_t seq);
/* Milliseconds since t0 (CLOCK_MONOTONIC). */
double msgcheck_ms_since(const struct timespec *t0);

#endif
