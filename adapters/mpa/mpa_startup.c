/*
 * MPA Request/Reply frame codec and resumable parser (RFC 5044 §7.1,
 * RFC 6581 §6). All wire access goes through the core's cursor (cursor.h).
 */
#include "mpa/mpa_startup.h"

#include <string.h>

#include <ddp/ddp.h>

#include "cursor.h"

static const uint8_t key_req[MPA_KEY_LEN] = "MPA ID Req Frame";
static const uint8_t key_rep[MPA_KEY_LEN] = "MPA ID Rep Frame";

static const char *const state_names[MPA_SP_NSTATES] = {
    [MPA_SP_KEY] = "KEY",
    [MPA_SP_PD] = "PRIVATE_DATA",
    [MPA_SP_DONE] = "DONE",
    [MPA_SP_ERROR] = "ERROR",
};

const char *mpa_sp_state_name(enum mpa_sp_state st)
{
	if ((unsigned)st >= MPA_SP_NSTATES)
		return "?";
	return state_names[st];
}

static size_t wire_pd_len(const mpa_frame *f)
{
	return (size_t)f->priv_len + (f->enhanced ? MPA_ENH_LEN : 0);
}

size_t mpa_frame_len(const mpa_frame *f)
{
	return MPA_FRAME_HDR_LEN + wire_pd_len(f);
}

int mpa_frame_encode(const mpa_frame *f, uint8_t *out, size_t cap, size_t *len)
{
	if (!f || !out || !len || (f->priv_len && !f->priv))
		return DDP_ERR_INVAL;
	if (f->rev < MPA_REV_MIN || f->rev > MPA_REV_MAX)
		return DDP_ERR_INVAL;
	if (f->enhanced && (f->rev < 2 || f->ird > MPA_IRD_ORD_MASK || f->ord > MPA_IRD_ORD_MASK))
		return DDP_ERR_INVAL;
	size_t pdl = wire_pd_len(f);
	if (pdl > MPA_PD_MAX) /* RFC 5044 §7.1: PD_Length MUST be <= 512 */
		return DDP_ERR_INVAL;
	if (cap < MPA_FRAME_HDR_LEN + pdl)
		return DDP_ERR_LIMIT;

	struct wcur w = wc_init(out, cap);
	wc_put_bytes(&w, f->reply ? key_rep : key_req, MPA_KEY_LEN);
	uint8_t flags = f->flags & (MPA_FLAG_M | MPA_FLAG_C | MPA_FLAG_R);
	/* RFC 5044 §7.1: R MUST be 0 in a Request; Res bits sent as 0. */
	if (!f->reply)
		flags &= (uint8_t)~MPA_FLAG_R;
	if (f->enhanced)
		flags |= MPA_FLAG_S;
	wc_put_be(&w, 1, flags);
	wc_put_be(&w, 1, f->rev);
	wc_put_be(&w, 2, pdl);
	if (f->enhanced) {
		uint16_t ird = f->ird & MPA_IRD_ORD_MASK;
		uint16_t ord = f->ord & MPA_IRD_ORD_MASK;
		if (f->p2p)
			ird |= 0x8000; /* A */
		if (f->p2p && (f->rtr & MPA_RTR_SEND))
			ird |= 0x4000; /* B */
		if (f->p2p && (f->rtr & MPA_RTR_WRITE))
			ord |= 0x8000; /* C */
		if (f->p2p && (f->rtr & MPA_RTR_READ))
			ord |= 0x4000; /* D */
		wc_put_be(&w, 2, ird);
		wc_put_be(&w, 2, ord);
	}
	wc_put_bytes(&w, f->priv, f->priv_len);
	if (w.overflow)
		return DDP_ERR_LIMIT; /* not reached: cap was checked above */
	*len = MPA_FRAME_HDR_LEN + pdl;
	return 0;
}

void mpa_sp_init(mpa_startup_parser *p, int expect_reply, uint16_t priv_cap)
{
	memset(p, 0, sizeof(*p));
	p->state = MPA_SP_KEY;
	p->expect_reply = expect_reply;
	p->priv_cap = (priv_cap == 0 || priv_cap > MPA_PD_MAX) ? MPA_PD_MAX : priv_cap;
}

static int fail(mpa_startup_parser *p, const char *why)
{
	p->state = MPA_SP_ERROR;
	p->ecode = DDP_MPA_ECODE_BAD_FRAME; /* RFC 5044 §8 code 0x04 */
	p->why = why;
	return DDP_ERR_PROTO;
}

/* The fixed header is complete: validate it. */
static int check_header(mpa_startup_parser *p)
{
	struct rcur c = rc_init(p->hdr, MPA_FRAME_HDR_LEN);
	const uint8_t *key = rc_take(&c, MPA_KEY_LEN);
	uint64_t flags = 0, rev = 0, pdl = 0;
	/* cannot fail: the whole fixed header is there */
	if (!key || rc_get_be(&c, 1, &flags) || rc_get_be(&c, 1, &rev) || rc_get_be(&c, 2, &pdl))
		return fail(p, "short header");
	int is_req = memcmp(key, key_req, MPA_KEY_LEN) == 0;
	int is_rep = memcmp(key, key_rep, MPA_KEY_LEN) == 0;

	/* RFC 5044 §7.1.1: the Req/Rep difference MUST be used to detect
	 * initiator/initiator (and responder/responder) start-ups. */
	if (!is_req && !is_rep)
		return fail(p, "bad key");
	if (p->expect_reply && is_req)
		return fail(p, "Request where a Reply was expected (initiator/initiator)");
	if (!p->expect_reply && is_rep)
		return fail(p, "Reply where a Request was expected (responder/responder)");
	/* RFC 5044 §7.1.2: the receiver MUST check Rev; we do 1 and 2. */
	if (rev < MPA_REV_MIN || rev > MPA_REV_MAX)
		return fail(p, "unsupported revision");
	p->priv_len = (uint16_t)pdl;
	/* RFC 5044 §7.1: PD_Length > 512 (or our cap) is improperly formatted */
	if (p->priv_len > p->priv_cap)
		return fail(p, "PD_Length over the cap");

	mpa_frame *f = &p->frame;
	memset(f, 0, sizeof(*f));
	f->reply = is_rep;
	/* Res bits MUST NOT be checked (RFC 5044 §7.1); R is not checked in
	 * a Request. */
	f->flags = (uint8_t)flags & (MPA_FLAG_M | MPA_FLAG_C | MPA_FLAG_R | MPA_FLAG_S);
	if (!is_rep)
		f->flags &= (uint8_t)~MPA_FLAG_R;
	f->rev = (uint8_t)rev;
	/* RFC 6581 §6.2: enhanced only with Rev >= 2 and S=1. */
	f->enhanced = f->rev >= 2 && (flags & MPA_FLAG_S);
	if (f->enhanced && p->priv_len < MPA_ENH_LEN)
		return fail(p, "enhanced frame without the IRD/ORD word");
	return 0;
}

static void finish_frame(mpa_startup_parser *p)
{
	mpa_frame *f = &p->frame;
	struct rcur c = rc_init(p->priv, p->priv_len);
	uint64_t ird, ord;

	/* check_header saw PD_Length >= 4 when enhanced */
	if (f->enhanced && !rc_get_be(&c, 2, &ird) && !rc_get_be(&c, 2, &ord)) {
		f->p2p = (ird & 0x8000) != 0;
		f->rtr = 0;
		if (ird & 0x4000)
			f->rtr |= MPA_RTR_SEND;
		if (ord & 0x8000)
			f->rtr |= MPA_RTR_WRITE;
		if (ord & 0x4000)
			f->rtr |= MPA_RTR_READ;
		f->ird = (uint16_t)(ird & MPA_IRD_ORD_MASK);
		f->ord = (uint16_t)(ord & MPA_IRD_ORD_MASK);
	}
	f->priv_len = (uint16_t)rc_left(&c);
	f->priv = f->priv_len ? c.p : NULL;
	p->state = MPA_SP_DONE;
}

int mpa_sp_feed(mpa_startup_parser *p, const uint8_t *buf, size_t n, size_t *used)
{
	size_t off = 0;
	int rc;

	*used = 0;
	for (;;) {
		switch (p->state) {
		case MPA_SP_KEY: {
			size_t want = MPA_FRAME_HDR_LEN - p->got;
			size_t take = n - off < want ? n - off : want;
			memcpy(p->hdr + p->got, buf + off, take);
			p->got += take;
			off += take;
			*used = off;
			if (p->got < MPA_FRAME_HDR_LEN)
				return DDP_ERR_NEED_MORE;
			rc = check_header(p);
			if (rc < 0)
				return rc;
			p->got = 0;
			p->state = MPA_SP_PD;
			break;
		}
		case MPA_SP_PD: {
			size_t want = p->priv_len - p->got;
			size_t take = n - off < want ? n - off : want;
			memcpy(p->priv + p->got, buf + off, take);
			p->got += take;
			off += take;
			*used = off;
			if (p->got < p->priv_len)
				return DDP_ERR_NEED_MORE;
			finish_frame(p);
			/* spec §2 (siw/cxgb4 strictness): nothing may follow a
			 * start-up frame before the peer has seen ours. */
			if (off < n)
				return fail(p, "octets after the start-up frame");
			return 0;
		}
		case MPA_SP_DONE:
			return 0;
		case MPA_SP_ERROR:
		default:
			return DDP_ERR_PROTO;
		}
	}
}
