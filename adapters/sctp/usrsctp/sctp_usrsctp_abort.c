/*
 * usrsctp glue: ABORTs with a reason, both ways (RFC 4960 §3.3.10.12 User-
 * Initiated Abort, its Upper Layer Abort Reason): the one we send and the
 * one the peer's ABORT carried.
 */
#include "sctp/usrsctp/sctp_usrsctp_int.h"

#include <string.h>

#include <usrsctp.h>

#include <ddp/ddp.h>
#include "cursor.h"

/* RFC 4960 §3.3.10.12 / RFC 6458 §5.3.4 (SCTP_ABORT): ABORT the
 * association now with a User-Initiated Abort cause whose Upper Layer
 * Abort Reason is reason, so the peer can read why. */
int sctp_usrsctp_abort_reason(struct event_base *b, struct socket *so, const char *reason)
{
	struct sctp_sndinfo snd;
	ssize_t r;
	memset(&snd, 0, sizeof(snd));
	snd.snd_flags = SCTP_ABORT;
	sctp_usrsctp_lock(b);
	r = usrsctp_sendv(so, reason, strlen(reason), NULL, 0, &snd, sizeof(snd),
	                  SCTP_SENDV_SNDINFO, 0);
	sctp_usrsctp_unlock();
	return r < 0 ? DDP_ERR_SYS : 0;
}

void sctp_usrsctp_peer_abort(const uint8_t *info, size_t n, char *out, size_t outn)
{
	out[0] = 0;
	if (outn == 0)
		return;
	/* RFC 4960 §3.3.7: ABORT chunk = type 6, flags, length, causes */
	struct rcur c = rc_init(info, n);
	uint64_t type, flags, clen;
	if (rc_get_be(&c, 1, &type) || type != 6 || rc_get_be(&c, 1, &flags) ||
	    rc_get_be(&c, 2, &clen) || clen < 4)
		return;
	if (clen - 4 < rc_left(&c))
		c = rc_init(c.p, (size_t)clen - 4); /* the causes of this chunk */
	uint64_t code, len;
	while (!rc_get_be(&c, 2, &code) && !rc_get_be(&c, 2, &len)) {
		if (len < 4)
			return;
		const uint8_t *v = rc_take(&c, (size_t)len - 4);
		if (!v)
			return;
		/* §3.3.10.12: User-Initiated Abort, Upper Layer Abort Reason */
		if (code == 12) {
			size_t k = len - 4 < outn - 1 ? (size_t)len - 4 : outn - 1;
			for (size_t i = 0; i < k; i++)
				out[i] = v[i] < 0x20 || v[i] == 0x7f ? '?' : (char)v[i];
			out[k] = 0;
			return;
		}
		rc_skip(&c, (4 - (len & 3)) & 3); /* padding to 4 octets */
	}
}

const char *sctp_ll_assoc_peer_abort(const sctp_ll_assoc *a)
{
	return a ? a->peer_abort : "";
}
