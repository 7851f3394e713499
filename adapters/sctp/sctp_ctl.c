/* DDP Stream Session Control codec (RFC 5043 §5.2.3, RFC 6581 §7). */
#include "sctp/sctp_ctl.h"

#include <string.h>

#include <ddp/ddp.h>

#include "cursor.h"

static int is_enh_ia(unsigned code)
{
	return code == SCTP_CTL_ENH_INITIATE || code == SCTP_CTL_ENH_ACCEPT;
}

static int fail(enum sctp_ctl_why *why, enum sctp_ctl_why w, int err)
{
	if (why)
		*why = w;
	return err;
}

static void ird_ord_unpack(uint32_t w, struct sctp_ird_ord *io)
{
	/* RFC 6581 §7 / RFC 6581 §9: bit 0 is the most significant bit */
	io->a = (uint8_t)(w >> 31 & 1);
	io->b = (uint8_t)(w >> 30 & 1);
	io->ird = (uint16_t)(w >> 16 & SCTP_CTL_IRD_ORD_MAX);
	io->c = (uint8_t)(w >> 15 & 1);
	io->d = (uint8_t)(w >> 14 & 1);
	io->ord = (uint16_t)(w & SCTP_CTL_IRD_ORD_MAX);
}

static uint32_t ird_ord_pack(const struct sctp_ird_ord *io)
{
	return (uint32_t)(io->a & 1) << 31 | (uint32_t)(io->b & 1) << 30 | (uint32_t)io->ird << 16 |
	       (uint32_t)(io->c & 1) << 15 | (uint32_t)(io->d & 1) << 14 | io->ord;
}

int sctp_ctl_decode(struct sctp_ctl_msg *out, const uint8_t *buf, size_t len,
                    enum sctp_ctl_why *why)
{
	uint64_t ssn, code, w;

	if (!out || (!buf && len))
		return DDP_ERR_INVAL;
	memset(out, 0, sizeof(*out));
	struct rcur c = rc_init(buf, len);
	if (rc_get_be(&c, 2, &ssn) || rc_get_be(&c, 2, &code))
		return fail(why, SCTP_CTL_E_SHORT, DDP_ERR_PROTO);
	out->ssn = (uint16_t)ssn;
	out->code = (uint16_t)code;
	if (out->code < SCTP_CTL_INITIATE || out->code > SCTP_CTL_ENH_REJECT)
		return fail(why, SCTP_CTL_E_UNKNOWN_CODE, DDP_ERR_UNSUPPORTED);
	/* RFC 5043 §5.2.3: Terminate MUST NOT carry private data */
	if (out->code == SCTP_CTL_TERMINATE && rc_left(&c))
		return fail(why, SCTP_CTL_E_PD_ON_TERMINATE, DDP_ERR_PROTO);
	/* RFC 5043 §5.2.3: private data at most 512 octets (RFC 6581 §7:
	 * the IRD/ORD word counts) */
	if (rc_left(&c) > SCTP_CTL_MAX_PD)
		return fail(why, SCTP_CTL_E_PD_TOO_LONG, DDP_ERR_TOOBIG);
	if (is_enh_ia(out->code)) {
		/* RFC 6581 §7: enhanced Initiate/Accept start with IRD/ORD */
		if (rc_get_be(&c, 4, &w))
			return fail(why, SCTP_CTL_E_NO_IRD_ORD, DDP_ERR_PROTO);
		ird_ord_unpack((uint32_t)w, &out->ird_ord);
		out->has_ird_ord = 1;
	}
	out->priv = rc_left(&c) ? c.p : NULL;
	out->priv_len = rc_left(&c);
	if (why)
		*why = SCTP_CTL_OK;
	return 0;
}

int sctp_ctl_encode(uint8_t *buf, size_t cap, const struct sctp_ctl_msg *m, size_t *out_len)
{
	size_t n, pd_total;

	if (!buf || !m || !out_len || (!m->priv && m->priv_len))
		return DDP_ERR_INVAL;
	if (m->code < SCTP_CTL_INITIATE || m->code > SCTP_CTL_ENH_REJECT)
		return DDP_ERR_INVAL;
	if (m->code == SCTP_CTL_TERMINATE && m->priv_len) /* RFC 5043 §5.2.3 */
		return DDP_ERR_INVAL;
	if (is_enh_ia(m->code) &&
	    (m->ird_ord.ird > SCTP_CTL_IRD_ORD_MAX || m->ird_ord.ord > SCTP_CTL_IRD_ORD_MAX))
		return DDP_ERR_INVAL;
	if (m->priv_len > SCTP_CTL_MAX_PD)
		return DDP_ERR_TOOBIG;
	pd_total = m->priv_len + (is_enh_ia(m->code) ? SCTP_CTL_IRD_ORD_LEN : 0);
	if (pd_total > SCTP_CTL_MAX_PD) /* RFC 6581 §7: word counts */
		return DDP_ERR_TOOBIG;
	n = SCTP_CTL_HDR_LEN + pd_total;
	if (n > cap)
		return DDP_ERR_TOOBIG;
	struct wcur w = wc_init(buf, n);
	wc_put_be(&w, 2, m->ssn);
	wc_put_be(&w, 2, m->code);
	if (is_enh_ia(m->code))
		wc_put_be(&w, 4, ird_ord_pack(&m->ird_ord));
	wc_put_bytes(&w, m->priv, m->priv_len);
	if (w.overflow)
		return DDP_ERR_TOOBIG; /* not reached: n was checked above */
	*out_len = n;
	return 0;
}

const char *sctp_ctl_code_name(unsigned code)
{
	static const char *const names[] = {
	    "?",         "Initiate",          "Accept",          "Reject",
	    "Terminate", "Enhanced Initiate", "Enhanced Accept", "Enhanced Reject",
	};
	return code < sizeof(names) / sizeof(names[0]) ? names[code] : "?";
}

const char *sctp_ctl_why_str(enum sctp_ctl_why why)
{
	switch (why) {
	case SCTP_CTL_OK:
		return "ok";
	case SCTP_CTL_E_SHORT:
		return "control message shorter than 4 octets";
	case SCTP_CTL_E_UNKNOWN_CODE:
		return "unknown session-control function code";
	case SCTP_CTL_E_PD_TOO_LONG:
		return "private data longer than 512 octets";
	case SCTP_CTL_E_PD_ON_TERMINATE:
		return "Terminate carries private data";
	case SCTP_CTL_E_NO_IRD_ORD:
		return "enhanced Initiate/Accept without the IRD/ORD word";
	}
	return "?";
}
