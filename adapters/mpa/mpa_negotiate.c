/*
 * MPA start-up negotiation rules, pure functions (RFC 5044 §7.1,
 * RFC 6581 §9). Markers and CRC per RFC 5044 §7.1; IRD/ORD per RFC 6581
 * §9.1 including the 0x3FFF "no negotiation" value; RTR per §9.2-9.3.
 */
#include "mpa/mpa_startup.h"

#include <string.h>

#include <ddp/ddp.h>

static unsigned local_rtr(const mpa_local *l)
{
	unsigned r = l->rtr & MPA_RTR_ALL;
	return r ? r : MPA_RTR_ALL;
}

static void base_frame(const mpa_local *l, mpa_frame *f, int reply)
{
	memset(f, 0, sizeof(*f));
	f->reply = reply;
	f->rev = l->rev;
	if (l->markers)
		f->flags |= MPA_FLAG_M;
	if (l->crc)
		f->flags |= MPA_FLAG_C;
	f->priv = l->priv;
	f->priv_len = l->priv_len;
}

int mpa_build_request(const mpa_local *l, mpa_frame *req)
{
	if (!l || !req || l->rev < MPA_REV_MIN || l->rev > MPA_REV_MAX)
		return DDP_ERR_INVAL;
	base_frame(l, req, 0);
	/* RFC 6581 §6.2: enhanced features need Rev 2 and S=1; we send the
	 * enhanced word whenever we speak Rev 2 (siw does the same). */
	if (l->rev >= 2) {
		req->enhanced = 1;
		req->ird = l->ird & MPA_IRD_ORD_MASK;
		req->ord = l->ord & MPA_IRD_ORD_MASK;
		/* RFC 6581 §9.2: A=1 with every RTR kind we can send; A=0
		 * with B=C=D=0 for client/server. */
		req->p2p = l->p2p;
		req->rtr = l->p2p ? local_rtr(l) : 0;
	}
	return 0;
}

static uint16_t min16(uint16_t a, uint16_t b)
{
	return a < b ? a : b;
}

int mpa_respond(const mpa_local *l, const mpa_frame *req, mpa_frame *rep, mpa_result *res)
{
	if (!l || !req || !rep || !res || req->reply)
		return DDP_ERR_INVAL;
	base_frame(l, rep, 1);
	memset(res, 0, sizeof(*res));
	/* Echo the Request's revision (siw/cxgb4 practice; RFC 5044 §7.1.2
	 * only says to report the revision to the ULP). */
	rep->rev = req->rev;
	res->rev = req->rev;
	/* RFC 5044 §7.1: markers per direction; CRC if C=1 in either frame. */
	res->tx_markers = (req->flags & MPA_FLAG_M) != 0;
	res->rx_markers = l->markers != 0;
	res->crc = l->crc || (req->flags & MPA_FLAG_C);
	/* RFC 6581 §6.2: enhanced reply iff the Request was enhanced. */
	if (!req->enhanced)
		return 0;
	rep->enhanced = 1;
	res->enhanced = 1;
	res->peer_ird = req->ird;
	res->peer_ord = req->ord;
	uint16_t ird = l->ird & MPA_IRD_ORD_MASK;
	uint16_t ord = l->ord & MPA_IRD_ORD_MASK;
	/* RFC 6581 §9.1: responder ORD MUST be <= initiator IRD; IRD is what
	 * we really support. 0x3FFF in the Request switches that half off:
	 * request ORD 0x3FFF -> reply IRD 0x3FFF, request IRD 0x3FFF -> reply
	 * ORD 0x3FFF, our own value kept. */
	if (req->ird == MPA_IRD_ORD_NONE) {
		rep->ord = MPA_IRD_ORD_NONE;
	} else {
		ord = min16(ord, req->ird);
		rep->ord = ord;
	}
	if (req->ord == MPA_IRD_ORD_NONE)
		rep->ird = MPA_IRD_ORD_NONE;
	else
		rep->ird = ird;
	res->ird = ird;
	res->ord = ord;
	/* RFC 6581 §9.3: MUST echo A; set the offered kinds we support, or
	 * at least one we support when none matches. */
	rep->p2p = req->p2p;
	res->p2p = req->p2p;
	if (req->p2p) {
		unsigned common = req->rtr & local_rtr(l);
		rep->rtr = common ? common : local_rtr(l);
		res->rtr = rep->rtr;
	}
	return 0;
}

int mpa_build_reject(const mpa_local *l, const mpa_frame *req, mpa_frame *rep)
{
	mpa_result dummy;
	int rc = mpa_respond(l, req, rep, &dummy);
	if (rc < 0)
		return rc;
	rep->flags |= MPA_FLAG_R;
	return 0;
}

static unsigned pick_rtr(unsigned common)
{
	/* Preference: zero-length Write (siw's choice), Read, Send. */
	if (common & MPA_RTR_WRITE)
		return MPA_RTR_WRITE;
	if (common & MPA_RTR_READ)
		return MPA_RTR_READ;
	if (common & MPA_RTR_SEND)
		return MPA_RTR_SEND;
	return 0;
}

int mpa_check_reply(const mpa_local *l, const mpa_frame *req, const mpa_frame *rep, mpa_result *res,
                    uint8_t *ecode)
{
	uint8_t dummy;

	if (!ecode)
		ecode = &dummy;
	*ecode = 0;
	if (!l || !req || !rep || !res || !rep->reply)
		return DDP_ERR_INVAL;
	memset(res, 0, sizeof(*res));
	res->rev = rep->rev;
	if (rep->enhanced) {
		res->peer_ird = rep->ird;
		res->peer_ord = rep->ord;
	}
	if (rep->flags & MPA_FLAG_R)
		return DDP_ERR_REJECTED; /* RFC 5044 §7.1.3: leave MPA */
	/* A Reply may not raise the revision (cxgb4/siw practice), and an
	 * enhanced Reply needs an enhanced Request (RFC 6581 §6.2). */
	if (rep->rev > req->rev || (rep->enhanced && !req->enhanced)) {
		*ecode = DDP_MPA_ECODE_BAD_FRAME;
		return DDP_ERR_PROTO;
	}
	res->tx_markers = (rep->flags & MPA_FLAG_M) != 0;
	res->rx_markers = (req->flags & MPA_FLAG_M) != 0;
	res->crc = (req->flags & MPA_FLAG_C) || (rep->flags & MPA_FLAG_C);
	if (!req->enhanced || !rep->enhanced)
		return 0; /* enhanced Request, plain Reply: plain operation */
	res->enhanced = 1;
	uint16_t ird = req->ird, ord = req->ord;
	/* RFC 6581 §9.1: IRD >= responder ORD, ORD <= responder IRD; 0x3FFF
	 * from the responder leaves ours alone. */
	if (rep->ord != MPA_IRD_ORD_NONE && req->ird != MPA_IRD_ORD_NONE && rep->ord > ird) {
		*ecode = DDP_MPA_ECODE_IRD; /* TERM 2/0/6 */
		return DDP_ERR_PROTO;
	}
	if (rep->ird != MPA_IRD_ORD_NONE && ord != MPA_IRD_ORD_NONE && ord > rep->ird)
		ord = rep->ird;
	res->ird = ird;
	res->ord = ord;
	/* RFC 6581 §9.2: after A=1 the initiator sends one common RTR. */
	if (req->p2p && rep->p2p) {
		res->p2p = 1;
		res->rtr = pick_rtr(req->rtr & rep->rtr);
		if (!res->rtr) {
			*ecode = DDP_MPA_ECODE_NO_RTR; /* TERM 2/0/7 */
			return DDP_ERR_PROTO;
		}
	} else if (req->p2p != rep->p2p) {
		/* RFC 6581 §9.3: the responder MUST echo A. */
		*ecode = DDP_MPA_ECODE_NO_RTR;
		return DDP_ERR_PROTO;
	}
	return 0;
}
