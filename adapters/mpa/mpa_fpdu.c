/*
 * MPA transmit framing (RFC 5044 §4): MULPDU and FPDU construction with
 * markers, PAD and CRC, as an iovec over the caller's payload.
 */
#include "mpa/mpa_fpdu.h"

#include <stdlib.h>
#include <string.h>

#include "common/crc32c.h"
#include "cursor.h"

uint32_t mpa_mulpdu(uint32_t emss, int markers)
{
	int64_t m;

	/* RFC 5044 §4.1 MULPDU formulas (MUST). */
	if (markers)
		m = (int64_t)emss - (6 + 4 * (((int64_t)emss + 511) / 512) + emss % 4);
	else
		m = (int64_t)emss - (6 + emss % 4);
	/* RFC 5044 §3: MULPDU MUST lie in 128..64768. */
	if (m < MPA_MULPDU_MIN)
		m = MPA_MULPDU_MIN;
	if (m > MPA_MULPDU_MAX)
		m = MPA_MULPDU_MAX;
	return (uint32_t)m;
}

/* Builder state while laying out one FPDU. */
struct lay {
	mpa_tx_stream *t;
	mpa_fpdu *f;
	int cap;        /* iov capacity */
	int nmk, mkcap; /* markers used / capacity */
	uint64_t start; /* stream pos of ULPDU_Length */
};

static void add_iov(struct lay *l, const void *p, size_t n)
{
	mpa_fpdu *f = l->f;

	if (n == 0)
		return;
	/* merge with the previous piece when contiguous (our own buffers) */
	if (f->iovcnt > 0) {
		struct iovec *prev = &f->iov[f->iovcnt - 1];
		if ((const uint8_t *)prev->iov_base + prev->iov_len == (const uint8_t *)p) {
			prev->iov_len += n;
			return;
		}
	}
	f->iov[f->iovcnt].iov_base = (void *)(uintptr_t)p;
	f->iov[f->iovcnt].iov_len = n;
	f->iovcnt++;
}

static void put_marker(struct lay *l, int at_fpdu_start)
{
	uint8_t *m = l->f->mk[l->nmk++];
	/* RFC 5044 §4.3: FPDUPTR = octets from ULPDU_Length to the marker;
	 * 0 when the marker sits right before ULPDU_Length. Low 2 bits 0. */
	uint64_t ptr = at_fpdu_start ? 0 : l->t->pos - l->start;
	struct wcur w = wc_init(m, MPA_MARKER_LEN);

	wc_put_be(&w, 2, 0); /* RESERVED */
	wc_put_be(&w, 2, ptr & 0xfffc);
	add_iov(l, m, MPA_MARKER_LEN);
	l->t->pos += MPA_MARKER_LEN;
}

/* Emit n logical octets at p, inserting markers at 512 boundaries. */
static void emit(struct lay *l, const uint8_t *p, size_t n)
{
	while (n > 0) {
		if (l->t->markers && l->t->pos % MPA_MARKER_INTERVAL == 0)
			put_marker(l, 0);
		size_t room = MPA_MARKER_INTERVAL - l->t->pos % MPA_MARKER_INTERVAL;
		size_t k = n < room ? n : room;
		if (!l->t->markers)
			k = n;
		add_iov(l, p, k);
		l->t->pos += k;
		p += k;
		n -= k;
	}
}

/* Checks of mpa_fpdu_build's arguments. */
static int check_args(const mpa_tx_stream *t, const struct iovec *iov, int iovcnt, size_t ulpdu_len)
{
	if (!t || !iov || iovcnt < 1)
		return DDP_ERR_INVAL;
	size_t hl = iov[0].iov_len;
	if (!iov[0].iov_base || (hl != DDP_TAGGED_HDR_LEN && hl != DDP_UNTAGGED_HDR_LEN) ||
	    hl != ddp_hdr_len(((const uint8_t *)iov[0].iov_base)[0]))
		return DDP_ERR_INVAL;
	size_t sum = 0;
	for (int i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len && !iov[i].iov_base)
			return DDP_ERR_INVAL;
		sum += iov[i].iov_len;
	}
	if (sum != ulpdu_len)
		return DDP_ERR_INVAL;
	if (ulpdu_len > MPA_MULPDU_MAX)
		return DDP_ERR_TOOBIG;
	return 0;
}

/* iov[] entries and markers one FPDU may need. */
static void caps(const mpa_tx_stream *t, int iovcnt, size_t ulpdu_len, int *cap, int *mkcap)
{
	size_t pad = mpa_pad_len(ulpdu_len);
	size_t logical = MPA_LEN_FIELD + ulpdu_len + pad + MPA_CRC_LEN;
	*mkcap = t->markers ? (int)(logical / (MPA_MARKER_INTERVAL - MPA_MARKER_LEN)) + 2 : 0;
	*cap = iovcnt + 2 * *mkcap + 6;
}

size_t mpa_fpdu_size(const mpa_tx_stream *t, int iovcnt, size_t ulpdu_len)
{
	int cap, mkcap;
	caps(t, iovcnt < 1 ? 1 : iovcnt, ulpdu_len, &cap, &mkcap);
	return sizeof(mpa_fpdu) + (size_t)cap * sizeof(struct iovec) +
	       (size_t)mkcap * MPA_MARKER_LEN;
}

int mpa_fpdu_build(mpa_tx_stream *t, const struct iovec *iov, int iovcnt, size_t ulpdu_len,
                   mpa_fpdu **out)
{
	if (!out)
		return DDP_ERR_INVAL;
	int rc = check_args(t, iov, iovcnt, ulpdu_len);
	if (rc)
		return rc;
	void *mem = malloc(mpa_fpdu_size(t, iovcnt, ulpdu_len));
	if (!mem)
		return DDP_ERR_NOMEM;
	return mpa_fpdu_build_in(t, iov, iovcnt, ulpdu_len, mem, out);
}

int mpa_fpdu_build_in(mpa_tx_stream *t, const struct iovec *iov, int iovcnt, size_t ulpdu_len,
                      void *mem, mpa_fpdu **out)
{
	if (!out || !mem)
		return DDP_ERR_INVAL;
	int rc = check_args(t, iov, iovcnt, ulpdu_len);
	if (rc)
		return rc;
	size_t hl = iov[0].iov_len;
	size_t pad = mpa_pad_len(ulpdu_len);
	int cap, mkcap;
	caps(t, iovcnt, ulpdu_len, &cap, &mkcap);
	mpa_fpdu *f = mem;
	/* the fields one by one, not a memset of the whole struct: head and
	 * tail are written below anyway, and this runs once per FPDU
	 * (docs/performance.md, section 18) */
	f->next = NULL;
	f->written = 0;
	f->pending = 0;
	f->pooled = 0;
	f->iovcnt = 0;
	f->iov = (struct iovec *)(f + 1);
	f->mk = (uint8_t(*)[MPA_MARKER_LEN])(f->iov + cap);

	struct lay l = {.t = t, .f = f, .cap = cap, .mkcap = mkcap};
	uint64_t pos0 = t->pos;

	/* A marker due right at the FPDU start precedes ULPDU_Length and
	 * belongs to this FPDU with FPDUPTR 0 (RFC 5044 §4.3). */
	if (t->markers && t->pos % MPA_MARKER_INTERVAL == 0)
		put_marker(&l, 1);
	l.start = t->pos;
	struct wcur head = wc_init(f->head, sizeof(f->head));
	wc_put_be(&head, MPA_LEN_FIELD, ulpdu_len);
	wc_put_bytes(&head, iov[0].iov_base, hl);
	emit(&l, f->head, MPA_LEN_FIELD + hl);
	for (int i = 1; i < iovcnt; i++)
		emit(&l, iov[i].iov_base, iov[i].iov_len);
	memset(f->tail, 0, pad); /* PAD MUST be zero */
	emit(&l, f->tail, pad);
	/* A marker due right before the CRC belongs to this FPDU (§4.4). */
	if (t->markers && t->pos % MPA_MARKER_INTERVAL == 0)
		put_marker(&l, 0);
	uint32_t crc = 0;
	if (t->crc)
		for (int i = 0; i < f->iovcnt; i++)
			crc = ddp_crc32c(crc, f->iov[i].iov_base, f->iov[i].iov_len);
	uint8_t *c = f->tail + pad;
	struct wcur cw = wc_init(c, MPA_CRC_LEN);
	wc_put_le(&cw, MPA_CRC_LEN, crc); /* RFC 5044 §4.4: LSB first */
	add_iov(&l, c, MPA_CRC_LEN);
	t->pos += MPA_CRC_LEN;
	f->wire_len = (size_t)(t->pos - pos0);
	*out = f;
	return 0;
}

int mpa_fpdu_pool_build(mpa_fpdu_pool *p, mpa_tx_stream *t, const struct iovec *iov, int iovcnt,
                        size_t ulpdu_len, mpa_fpdu **out)
{
	if (!p || !t || mpa_fpdu_size(t, iovcnt, ulpdu_len) > MPA_FPDU_BLOCK)
		return mpa_fpdu_build(t, iov, iovcnt, ulpdu_len, out);
	mpa_fpdu *mem = p->free;
	if (mem)
		p->free = mem->next;
	else if (!(mem = malloc(MPA_FPDU_BLOCK)))
		return DDP_ERR_NOMEM;
	else
		p->alive++;
	int rc = mpa_fpdu_build_in(t, iov, iovcnt, ulpdu_len, mem, out);
	if (rc < 0) {
		mem->next = p->free;
		p->free = mem;
		return rc;
	}
	mem->pooled = 1;
	return rc;
}

void mpa_fpdu_pool_put(mpa_fpdu_pool *p, mpa_fpdu *f)
{
	if (f->pooled && p->alive <= MPA_FPDU_POOL_MAX) {
		f->next = p->free;
		p->free = f;
		return;
	}
	if (f->pooled)
		p->alive--;
	free(f);
}

void mpa_fpdu_pool_drain(mpa_fpdu_pool *p)
{
	while (p->free) {
		mpa_fpdu *f = p->free;
		p->free = f->next;
		free(f);
		p->alive--;
	}
}
