/*
 * MPA receive read-ahead policy (see mpa_readahead.h): ring or direct,
 * and how far to read ahead.
 */
#include "mpa/mpa_readahead.h"

#include <string.h>

#include "mpa/mpa_fpdu.h"

void mpa_ra_init(mpa_readahead *r)
{
	memset(r, 0, offsetof(mpa_readahead, small_stage));
	r->buf = r->small_buf;
	r->cap = sizeof(r->small_buf);
	r->stage = r->small_stage;
	r->stage_cap = sizeof(r->small_stage);
}

void mpa_ra_set_ring(mpa_readahead *r, uint8_t *ring)
{
	r->ring = ring;
	r->stage = ring ? ring + MPA_RING_LEN : r->small_stage;
	r->stage_cap = ring ? MPA_RING_STAGE_MAX : sizeof(r->small_stage);
	if (r->stage_max > r->stage_cap)
		r->stage_max = (uint32_t)r->stage_cap;
	if (r->len == 0)
		mpa_ra_pick_buffer(r);
}

void mpa_ra_set_stage_max(mpa_readahead *r, uint32_t n)
{
	r->stage_max = n > r->stage_cap ? (uint32_t)r->stage_cap : n;
}

int mpa_ra_classify(mpa_readahead *r, uint16_t ulpdu_len, uint8_t ctl,
		    int can_stage)
{
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
		return pad_len + MPA_CRC_LEN + MPA_LEN_FIELD + r->tail_len + 4 +
		       3 + MPA_CRC_LEN + next;
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
