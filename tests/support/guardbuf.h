/* Buffers between PROT_NONE guard pages, for memory-safety tests: a write
 * one octet before or after the buffer faults. The buffer is placed flush
 * against the upper guard page (an overrun faults at once); the lower guard
 * page catches underruns. guardbuf_protect() can make the buffer itself
 * read-only so any write into it faults too. */
#ifndef DDP_TEST_GUARDBUF_H
#define DDP_TEST_GUARDBUF_H

#include <stddef.h>
#include <stdint.h>

typedef struct guardbuf {
	uint8_t *p;	/* first octet of the usable buffer */
	size_t len;
	uint8_t *map;	/* whole mapping (guard + pages + guard) */
	size_t map_len;
} guardbuf;

/* Map len (> 0) octets between guard pages. Returns 0 or -1. */
int guardbuf_new(guardbuf *g, size_t len);
/* writable != 0: read-write, else read-only. Returns 0 or -1. */
int guardbuf_protect(guardbuf *g, int writable);
void guardbuf_free(guardbuf *g);

#endif
