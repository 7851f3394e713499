/*
 * fuzzfix: a receive-side fixture for the DDP core fuzz targets.
 *
 * One context, two PDs, one session (over nullllp) with 2 streams in PD A,
 * and an arena of canary bytes holding every buffer the session may write:
 * tagged regions (PD-bound, stream-bound, TO near 2^64, read-only, other
 * PD) and posted untagged buffers. The fixture tracks which regions are
 * writable right now (a valid STag with REMOTE_WRITE, a posted buffer not
 * yet given back); when one stops being writable (invalidated, delivered,
 * flushed) it is refilled with canaries. ff_check() then proves that no
 * octet outside the writable regions ever changed, and ff_feed() checks
 * every header-first destination before it copies a byte. Any breach, or a
 * broken delivery invariant (MSN order, buffer length), calls abort().
 */
#ifndef DDP_TEST_FUZZFIX_H
#define DDP_TEST_FUZZFIX_H

#include <stddef.h>
#include <stdint.h>

#include <ddp/ddp.h>
#include <ddp/llp.h>

#include "nullllp.h"

#define FF_NREG 12
#define FF_NSTAG 5
#define FF_ARENA 1024
#define FF_CANARY 0xA5

typedef struct ff_region {
	size_t off, len;
	int writable;
	int stag_idx;	  /* -1: posted buffer */
	uint32_t stream, qn;
} ff_region;

typedef struct fuzzfix {
	ddp_ctx *ctx;
	ddp_pd *pda, *pdb;
	ddp_session *s;
	nullllp llp;
	uint8_t arena[FF_ARENA];
	ff_region reg[FF_NREG];
	int nreg;
	uint32_t stag[FF_NSTAG];
	int stag_live[FF_NSTAG];
	uint32_t rnd;
	uint32_t next_msn[2][3]; /* next MSN expected to be delivered */
	size_t ndlv, nerr, nevents;
	int allow_msn_gaps;	 /* after stream reset */
} fuzzfix;

/* Set everything up; window: reorder window (0 = default). Aborts on
 * failure (the fuzz target cannot run without it). */
void ff_init(fuzzfix *f, uint32_t window);
/* Check, free everything, check again (ownership returned). */
void ff_fini(fuzzfix *f);
/* Feed one segment: whole-segment entry, or header-first when hdr_first
 * and len holds a header (payload copied in pieces of 1..piece octets;
 * revoke >= 0 invalidates that STag slot after the first piece). */
void ff_feed(fuzzfix *f, uint32_t stream, uint32_t seq, const uint8_t *seg,
	     size_t len, int hdr_first, size_t piece, int revoke);
/* STag of slot sel % FF_NSTAG (valid or not). */
uint32_t ff_stag(const fuzzfix *f, unsigned sel);
/* Invalidate STag slot sel % FF_NSTAG if still live. */
void ff_invalidate(fuzzfix *f, unsigned sel);
/* abort() unless every octet outside writable regions is a canary. */
void ff_check(const fuzzfix *f);

#endif
