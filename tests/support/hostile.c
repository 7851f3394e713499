/* Shared targets, case table and generator of the hostile-LLP tests (see
 * hostile.h). */
#include "hostile.h"

#include <string.h>
#include <unistd.h>

#include "ddpwire.h"

const uint32_t hostile_u_qn[HU_N] = {0, 0, 1, 1, 2};
const size_t hostile_u_len[HU_N] = {100, 3000, 1, 1500, 16};

void hostile_canary_fill(guardbuf *g)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	memset(g->map + pg, HOSTILE_CANARY, g->map_len - 2 * pg);
}

int hostile_canary_intact(const guardbuf *g, size_t from)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	const uint8_t *lo = g->map + pg, *hi = g->map + g->map_len - pg;
	for (const uint8_t *p = g->p + from; p < hi; p++)
		if (*p != HOSTILE_CANARY)
			return 0;
	for (const uint8_t *p = lo; p < g->p; p++) /* slack before the buffer */
		if (*p != HOSTILE_CANARY)
			return 0;
	return 1;
}

static int reg(hostile_targets *t, ddp_ctx *ctx, int i, ddp_pd *pd, ddp_session *s, unsigned acc,
               uint64_t tobase)
{
	if (guardbuf_new(&t->g[i], HOSTILE_TLEN) != 0)
		return -1;
	hostile_canary_fill(&t->g[i]);
	ddp_mr_attr a = {.addr = t->g[i].p,
	                 .len = HOSTILE_TLEN,
	                 .to_base = tobase,
	                 .access = acc,
	                 .pd = pd,
	                 .session = s,
	                 .stream = 0};
	t->tobase[i] = tobase;
	return ddp_stag_register(ctx, &a, &t->stag[i]) == 0 ? 0 : -1;
}

int hostile_targets_new(hostile_targets *t, ddp_ctx *ctx, ddp_pd *pda, ddp_pd *pdb,
                        ddp_session *other)
{
	const unsigned rw = DDP_ACCESS_REMOTE_WRITE;
	memset(t, 0, sizeof(*t));
	if (reg(t, ctx, HT_GOOD, pda, NULL, rw, HOSTILE_TBASE) ||
	    reg(t, ctx, HT_TOP, pda, NULL, rw, UINT64_MAX - (HOSTILE_TLEN - 1)) ||
	    reg(t, ctx, HT_RO, pda, NULL, DDP_ACCESS_REMOTE_READ, HOSTILE_TBASE) ||
	    reg(t, ctx, HT_OTHERPD, pdb, NULL, rw, HOSTILE_TBASE) ||
	    reg(t, ctx, HT_OTHERSESS, NULL, other, rw, HOSTILE_TBASE) ||
	    reg(t, ctx, HT_REVOKED, pda, NULL, rw, HOSTILE_TBASE))
		return -1;
	if (ddp_stag_invalidate(ctx, t->stag[HT_REVOKED]) != 0)
		return -1;
	/* forbidden to the victim's streams: any write must fault */
	for (int i = HT_RO; i <= HT_REVOKED; i++)
		if (guardbuf_protect(&t->g[i], 0) != 0)
			return -1;
	return 0;
}

void hostile_targets_free(hostile_targets *t, ddp_ctx *ctx, int other_freed)
{
	for (int i = 0; i < HT_N; i++) {
		if (i != HT_REVOKED && !(i == HT_OTHERSESS && other_freed))
			ddp_stag_invalidate(ctx, t->stag[i]);
		guardbuf_free(&t->g[i]);
	}
}

#define T HOSTILE_TLEN
const hostile_case hostile_cases[] = {
    /* DDP-VAL-T3, DDP-SEC-4: TO one below the registered range */
    {"T3 TO below", 1, HT_GOOD, 0, -1, 0, 0, 0, 16, 1, 1, DDP_ECODE_T_BOUNDS, 0},
    /* DDP-VAL-T3: TO one past the end */
    {"T3 TO above", 1, HT_GOOD, 0, T, 0, 0, 0, 1, 1, 1, DDP_ECODE_T_BOUNDS, 0},
    /* DDP-VAL-T4, DDP-SEC-4: the last octet one past the end */
    {"T4 len one past", 1, HT_GOOD, 0, 1, 0, 0, 0, T, 1, 1, DDP_ECODE_T_BOUNDS, 0},
    {"T4 len+1", 1, HT_GOOD, 0, 0, 0, 0, 0, T + 1, 1, 1, DDP_ECODE_T_BOUNDS, 0},
    /* DDP-VAL-T5: TO + len wraps 2^64 */
    {"T5 TO wrap", 1, HT_TOP, 0, T - 3, 0, 0, 0, 8, 1, 1, DDP_ECODE_T_TO_WRAP, 0},
    {"T5 TO wrap big", 1, HT_TOP, 0, 0, 0, 0, 0, 2 * T, 1, 1, DDP_ECODE_T_TO_WRAP, 0},
    /* DDP-VAL-T1, DDP-SEC-9: stale key (STag ^ 1) */
    {"T1 stale key", 1, HT_GOOD, 1, 0, 0, 0, 0, 16, 1, 1, DDP_ECODE_T_INVALID_STAG, 0},
    /* DDP-VAL-T6, DDP-SEC-1/2: STag of another PD */
    {"T6 other PD", 1, HT_OTHERPD, 0, 0, 0, 0, 0, 2000, 1, 1, DDP_ECODE_T_NOT_ASSOCIATED, 0},
    /* DDP-VAL-T6, DDP-SEC-7: STag bound to another session's stream */
    {"T6 other stream", 1, HT_OTHERSESS, 0, 0, 0, 0, 0, 16, 1, 1, DDP_ECODE_T_NOT_ASSOCIATED, 0},
    /* DDP-VAL-T2, DDP-SEC-5: revoked STag */
    {"T2 revoked", 1, HT_REVOKED, 0, 0, 0, 0, 0, 2000, 1, 1, DDP_ECODE_T_INVALID_STAG, 0},
    /* DDP-SEC-6: read-only region (siw maps it to 1/0x00) */
    {"SEC-6 read-only", 1, HT_RO, 0, 0, 0, 0, 0, 16, 1, 1, DDP_ECODE_T_INVALID_STAG, 0},
    /* RFC 5041 §7.2 tagged: DDP version not 1 */
    {"T bad DV", 1, HT_GOOD, 0, 0, 0, 0, 0, 16, 0, 1, DDP_ECODE_T_BAD_VERSION, 0},
    /* DDP-VAL-U1: QN not valid (3 queues) */
    {"U1 bad QN", 0, 0, 0, 0, 3, 1, 0, 16, 1, 2, DDP_ECODE_U_INVALID_QN, 0},
    {"U1 huge QN", 0, 0, 0, 0, 0xFFFFFFFFu, 1, 0, 16, 1, 2, DDP_ECODE_U_INVALID_QN, 0},
    /* DDP-VAL-U2: MSN one past the last posted buffer (no buffer for it
     * yet, RFC 5041 §7.2 0x02); DDP-VAL-U5: MSN before the first (0x03) */
    {"U2 MSN one past", 0, 0, 0, 0, 0, 3, 0, 16, 1, 2, DDP_ECODE_U_MSN_NOBUF, 0},
    {"U5 MSN below", 0, 0, 0, 0, 1, 0, 0, 16, 1, 2, DDP_ECODE_U_MSN_RANGE, 0},
    /* DDP-VAL-U3: MO at / far past the end of the buffer */
    {"U3 MO at end", 0, 0, 0, 0, 0, 1, 100, 1, 1, 2, DDP_ECODE_U_INVALID_MO, 0},
    {"U3 MO far", 0, 0, 0, 0, 0, 2, 0xFFFFFFF0u, 2000, 1, 2, DDP_ECODE_U_INVALID_MO, 0},
    /* DDP-VAL-U4: MO + len one past the buffer */
    {"U4 too long", 0, 0, 0, 0, 0, 1, 0, 101, 1, 2, DDP_ECODE_U_TOO_LONG, 0},
    {"U4 too long big", 0, 0, 0, 0, 0, 2, 1, 3000, 1, 2, DDP_ECODE_U_TOO_LONG, 0},
    /* DDP-VAL-U2: no buffer posted on the QN (the probe emptied QN 2) */
    {"U2 no buffer", 0, 0, 0, 0, 2, 2, 0, 16, 1, 2, DDP_ECODE_U_MSN_NOBUF, 1},
    /* RFC 5041 §7.2 untagged: DDP version not 1 */
    {"U bad DV", 0, 0, 0, 0, 0, 1, 0, 16, 2, 2, DDP_ECODE_U_BAD_VERSION, 0},
};
#undef T
const size_t hostile_ncases = sizeof hostile_cases / sizeof hostile_cases[0];

size_t hostile_probe(uint8_t *seg)
{
	return tw_untagged(seg, 1, 1, 0, 2, 1, 0, "ok!", 3);
}

size_t hostile_build(const hostile_targets *t, const hostile_case *c, uint8_t *seg)
{
	static uint8_t pay[2 * HOSTILE_TLEN + 16];
	memset(pay, HOSTILE_EVIL, sizeof pay);
	size_t plen = c->plen > sizeof pay ? sizeof pay : c->plen;
	if (c->tagged)
		return tw_tagged(seg, 1, c->dv, 0, t->stag[c->tgt] ^ c->stag_xor,
		                 t->tobase[c->tgt] + (uint64_t)c->to_off, pay, plen);
	return tw_untagged(seg, 1, c->dv, 0, c->qn, c->msn, c->mo, pay, plen);
}

uint32_t hostile_rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 11);
}

/* An edge-biased 64-bit value around center (test_guard_pages.c). */
static uint64_t near(uint64_t *r, uint64_t center, uint64_t span)
{
	switch (hostile_rnd(r) % 6) {
	case 0:
		return center;
	case 1:
		return center + span;
	case 2:
		return center + span - 1 - (hostile_rnd(r) % 4);
	case 3:
		return center - 1 - (hostile_rnd(r) % 4);
	case 4:
		return hostile_rnd(r) % 4 ? center + hostile_rnd(r) % span
		                          : ((uint64_t)hostile_rnd(r) << 32) | hostile_rnd(r);
	default:
		return center + hostile_rnd(r) % (span + 8);
	}
}

size_t hostile_random(const hostile_targets *t, uint64_t *r, uint8_t *seg)
{
	size_t plen;
	switch (hostile_rnd(r) % 5) {
	case 0:
		plen = 0;
		break;
	case 1:
		plen = 1 + hostile_rnd(r) % 4;
		break;
	case 2:
		plen = HOSTILE_TLEN - 2 + hostile_rnd(r) % 5;
		break;
	default:
		plen = hostile_rnd(r) % (2 * HOSTILE_TLEN);
		break;
	}
	uint8_t ctrl =
	    (uint8_t)(hostile_rnd(r) % 16 == 0 ? hostile_rnd(r) : ((hostile_rnd(r) & 0x40) | 0x01));
	size_t hl;
	memset(seg, 0, DDP_MAX_HDR_LEN);
	if (hostile_rnd(r) & 1) {
		ctrl |= 0x80;
		hl = DDP_TAGGED_HDR_LEN;
		static const int pick[] = {HT_GOOD, HT_GOOD, HT_GOOD, HT_TOP, HT_TOP};
		int i =
		    hostile_rnd(r) & 1 ? pick[hostile_rnd(r) % 5] : (int)(hostile_rnd(r) % HT_N);
		uint32_t stag = t->stag[i];
		if (hostile_rnd(r) % 8 == 0)
			stag ^= 1u << (hostile_rnd(r) % 32); /* stale key / other index */
		tw_put32(seg + 2, stag);
		tw_put64(seg + 6, near(r, t->tobase[i], HOSTILE_TLEN));
		seg[1] = (uint8_t)hostile_rnd(r);
	} else {
		ctrl &= 0x7f;
		hl = DDP_UNTAGGED_HDR_LEN;
		tw_put32(seg + 6, hostile_rnd(r) % 8 == 0 ? hostile_rnd(r) : hostile_rnd(r) % 2);
		tw_put32(seg + 10, (uint32_t)near(r, 1, 3));
		tw_put32(seg + 14, (uint32_t)near(r, 0, 3000));
	}
	seg[0] = ctrl;
	memset(seg + hl, HOSTILE_EVIL, plen);
	return hl + plen;
}
