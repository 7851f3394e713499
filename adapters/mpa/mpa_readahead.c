/*
 * MPA receive read-ahead policy (see mpa_readahead.h): ring or direct,
 * and how far to read ahead.
 */
#include "mpa/mpa_readahead.h"
#include "ddp_test.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "mpa/mpa_fpdu.h"

/* Rings of our own alive in this process, and the most alive at once
 * (mpa_ra_rings). */
static atomic_long rings_now, rings_peak;

static void ring_count(long d)
{
	long n = atomic_fetch_add(&rings_now, d) + d;
	long p = atomic_load(&rings_peak);
	while (n > p && !atomic_compare_exchange_weak(&rings_peak, &p, n))
		;
}

void mpa_ra_rings(long *now, long *peak)
{
	*now = atomic_load(&rings_now);
	*peak = atomic_load(&rings_peak);
}

void mpa_ra_init(mpa_readahead *r)
{
	memset(r, 0, offsetof(mpa_readahead, small_stage));
	r->buf = r->small_buf;
	r->cap = sizeof(r->small_buf);
	r->stage = r->small_stage;
	r->stage_cap = sizeof(r->small_stage);
}

static void clamp_stage(mpa_readahead *r)
{
	r->stage_max = r->stage_want > r->stage_cap ? (uint32_t)r->stage_cap : r->stage_want;
}

void mpa_ra_set_ring(mpa_readahead *r, uint8_t *ring)
{
	r->ring = ring;
	r->stage = ring ? ring + MPA_RING_LEN : r->small_stage;
	r->stage_cap = ring ? MPA_RING_STAGE_MAX : sizeof(r->small_stage);
	clamp_stage(r);
	if (r->len == 0)
		mpa_ra_pick_buffer(r);
}

void mpa_ra_set_stage_max(mpa_readahead *r, uint32_t n)
{
	r->stage_want = n;
	clamp_stage(r);
}

void mpa_ra_set_ring_lazy(mpa_readahead *r, int on)
{
	r->ring_lazy = on;
}

/* An FPDU of ulpdu_len octets that the sink could take whole arrives: a
 * ring of our own when it would be staged through one. */
static void want_ring(mpa_readahead *r, uint16_t ulpdu_len)
{
	if (r->ring || !r->ring_lazy || ulpdu_len > r->stage_want || ulpdu_len > MPA_RING_STAGE_MAX)
		return;
	/* a small FPDU starts a run only with the next one */
	if (ulpdu_len <= r->stage_max && r->small_run < 1)
		return;
	uint8_t *ring = malloc(MPA_RING_ALLOC);
	if (!ring)
		return; /* the inline buffers serve */
	ring_count(1);
	r->ring_own = 1;
	mpa_ra_set_ring(r, ring);
}

/* The pages wholly inside the block go back to the system before free():
 * the allocator keeps a freed block of this size for reuse (it is not
 * returned by free() unless it sits at the top of the heap), and a quiet
 * connection is to cost no resident memory for it. Contents of memory
 * handed to free() are the allocator's business only at its edges, which
 * this leaves alone. */
static void free_ring(uint8_t *ring)
{
	long pg = sysconf(_SC_PAGESIZE);
	if (pg > 0) {
		uintptr_t a = ((uintptr_t)ring + (uintptr_t)pg - 1) & ~((uintptr_t)pg - 1);
		uintptr_t e = ((uintptr_t)ring + MPA_RING_ALLOC) & ~((uintptr_t)pg - 1);
		if (e > a)
			madvise((void *)a, e - a, MADV_DONTNEED);
	}
	free(ring);
}

int mpa_ra_release(mpa_readahead *r)
{
	if (!r->ring || !r->ring_own || r->len)
		return 0;
	uint8_t *ring = r->ring;
	r->small_run = 0;
	r->ring_own = 0;
	mpa_ra_set_ring(r, NULL);
	free_ring(ring);
	ring_count(-1);
	return 1;
}

void mpa_ra_fini(mpa_readahead *r)
{
	if (r->ring && r->ring_own) {
		free(r->ring);
		ring_count(-1);
	}
	r->ring = NULL;
	r->ring_own = 0;
}

int mpa_ra_classify(mpa_readahead *r, uint16_t ulpdu_len, uint8_t ctl, int can_stage)
{
	if (can_stage)
		want_ring(r, ulpdu_len);
	if (can_stage && ulpdu_len <= r->stage_max)
		r->small_run++;
	else
		r->small_run = 0;
	r->cur_idx = r->msg_idx;
	r->cur_last = (ctl & 0x40) != 0; /* L (RFC 5041 §4.2) */
	if (r->cur_last) {
		r->tail_idx = r->cur_idx;
		r->tail_len = r->small_run ? ulpdu_len : 0;
		r->msg_idx = 0;
	} else if (r->msg_idx < 0xffff) {
		r->msg_idx++;
	}
	return r->small_run != 0;
}

size_t mpa_ra_run_ahead(const mpa_readahead *r)
{
	/* In a run of small FPDUs the next one is likely small too: read
	 * ahead, 4 KiB after two small FPDUs in a row, doubling with each
	 * further one up to the whole buffer (128 KiB from the seventh on). A
	 * short run (small messages between large ones) thus reads little of
	 * a large FPDU that follows into our buffer (such octets are copied,
	 * counted); a long one (MSS-bound FPDUs) reads 64 KiB and more per
	 * call. An isolated small FPDU (the tail segment of a large message)
	 * does not start a run. */
	if (r->small_run < 2)
		return 0;
	unsigned shift = r->small_run < 7 ? r->small_run + 10 : 17;
	size_t want = (size_t)1 << shift;
	return want < r->cap ? want : r->cap;
}

size_t mpa_ra_payload_ahead(const mpa_readahead *r, size_t pad_len)
{
	size_t next = MPA_LEN_FIELD + DDP_MAX_HDR_LEN;
	if (!r->cur_last && r->tail_len && r->cur_idx + 1 == r->tail_idx)
		/* the tail FPDU whole (+ slack for a header 4 octets longer
		 * than last time), then the next header */
		return pad_len + MPA_CRC_LEN + MPA_LEN_FIELD + r->tail_len + 4 + 3 + MPA_CRC_LEN +
		       next;
	return pad_len + MPA_CRC_LEN + next;
}

void mpa_ra_pick_buffer(mpa_readahead *r)
{
	uint8_t *want = r->ring && r->small_run >= 2 ? r->ring : r->small_buf;
	if (r->len || want == r->buf)
		return;
	r->buf = want;
	r->cap = want == r->ring ? MPA_RING_LEN : sizeof(r->small_buf);
	r->off = 0;
}
