/*
 * hostile: shared material of the memory-safety tests that attack a victim
 * session through a real LLP (tests/integration/test_hostile_*.c):
 *  - the victim's tagged targets: guard-page buffers (guardbuf) filled with
 *    a canary and registered as good, top-of-TO-space, read-only, other-PD,
 *    other-session and revoked STags; the forbidden ones mapped read-only;
 *  - the untagged buffers to post on every attacked stream;
 *  - the table of hostile DDP headers with the RFC 5041 §7.2 (etype, code)
 *    each must produce, and an edge-biased random segment generator (as in
 *    tests/unit/test_guard_pages.c).
 * No cmocka here: functions return 0 / -1 and the tests assert.
 */
#ifndef DDP_TEST_HOSTILE_H
#define DDP_TEST_HOSTILE_H

#include <stddef.h>
#include <stdint.h>

#include <ddp/ddp.h>

#include "guardbuf.h"

#define HOSTILE_CANARY  0x5C
#define HOSTILE_EVIL    0xA5       /* every attacker payload octet */
#define HOSTILE_TLEN    4096       /* tagged target length */
#define HOSTILE_TBASE   0x10000ull /* to_base of most targets */
#define HOSTILE_MAX_SEG (2 * HOSTILE_TLEN + 64)

enum {
	HT_GOOD,      /* PD A, write, TO base HOSTILE_TBASE */
	HT_TOP,       /* PD A, write, the last TLEN octets of TO space */
	HT_RO,        /* PD A, read only            (read-only mapping) */
	HT_OTHERPD,   /* PD B, write                (read-only mapping) */
	HT_OTHERSESS, /* bound to another session   (read-only mapping) */
	HT_REVOKED,   /* PD A, invalidated          (read-only mapping) */
	HT_N
};

typedef struct hostile_targets {
	guardbuf g[HT_N];
	uint32_t stag[HT_N];
	uint64_t tobase[HT_N];
} hostile_targets;

/* Map, canary-fill and register the targets in ctx (pda: the victim
 * streams' PD, pdb another PD, other: another session of ctx), revoke
 * HT_REVOKED and make the forbidden ones read-only. Returns 0 or -1. */
int hostile_targets_new(hostile_targets *t, ddp_ctx *ctx, ddp_pd *pda, ddp_pd *pdb,
                        ddp_session *other);
/* Invalidate what is still registered (call before freeing `other`'s
 * session is fine: HT_OTHERSESS is skipped when other_freed) and unmap. */
void hostile_targets_free(hostile_targets *t, ddp_ctx *ctx, int other_freed);

/* Untagged buffers posted on every attacked stream: queue and length.
 * MSN 1 and 2 of QN 0 and 1; QN 2 holds the probe buffer (MSN 1). */
enum { HU_Q0A, HU_Q0B, HU_Q1A, HU_Q1B, HU_PROBE, HU_N };
extern const uint32_t hostile_u_qn[HU_N];
extern const size_t hostile_u_len[HU_N];

/* Fill the whole writable part of g (buffer and the slack before it). */
void hostile_canary_fill(guardbuf *g);
/* 1 when the slack before g->p and g->p[from..len) still hold the canary. */
int hostile_canary_intact(const guardbuf *g, size_t from);

/* One row of the table: a hostile segment and its RFC 5041 §7.2 code. */
typedef struct hostile_case {
	const char *name; /* names the DDP-VAL / DDP-SEC id */
	int tagged;
	int tgt; /* HT_* */
	uint32_t stag_xor;
	int64_t to_off; /* TO relative to the target's to_base */
	uint32_t qn, msn, mo;
	size_t plen;
	uint8_t dv;
	uint8_t etype, code;
	int pre_probe; /* first send the probe (QN 2, MSN 1, "ok!"), which
	                * is delivered and empties QN 2 */
} hostile_case;

extern const hostile_case hostile_cases[];
extern const size_t hostile_ncases;

/* The probe: a valid 3-octet untagged message "ok!" on QN 2, MSN 1
 * (HU_PROBE). Returns its length (seg: DDP_UNTAGGED_HDR_LEN + 3). */
size_t hostile_probe(uint8_t *seg);

/* Build the L=1 segment of a case into seg (HOSTILE_MAX_SEG octets);
 * returns its length. */
size_t hostile_build(const hostile_targets *t, const hostile_case *c, uint8_t *seg);

/* An edge-biased random hostile segment (never on QN 2 unless a random
 * 32-bit QN happens to be 2) into seg (HOSTILE_MAX_SEG octets); returns its
 * length. *rng: xorshift state, not 0. */
size_t hostile_random(const hostile_targets *t, uint64_t *rng, uint8_t *seg);
uint32_t hostile_rnd(uint64_t *rng);

#endif
