/* ddp_strerror: text for every DDP_ERR_* code. */
#include <ddp/ddp.h>

const char *ddp_strerror(int err)
{
	switch (err) {
	case DDP_OK:
		return "success";
	case DDP_ERR_INVAL:
		return "invalid argument";
	case DDP_ERR_NOMEM:
		return "out of memory";
	case DDP_ERR_TOOBIG:
		return "message too large";
	case DDP_ERR_CLOSED:
		return "stream or session closed";
	case DDP_ERR_STATE:
		return "operation not allowed in this state";
	case DDP_ERR_NOENT:
		return "no such object";
	case DDP_ERR_LIMIT:
		return "configured limit reached";
	case DDP_ERR_AGAIN:
		return "lower layer busy, try again";
	case DDP_ERR_STREAM:
		return "stream stopped after an error";
	case DDP_ERR_LLP:
		return "lower layer protocol failure";
	case DDP_ERR_PROTO:
		return "protocol violation by the peer";
	case DDP_ERR_NEED_MORE:
		return "more input needed";
	case DDP_ERR_BUSY:
		return "object in use";
	case DDP_ERR_TIMEOUT:
		return "timed out";
	case DDP_ERR_REJECTED:
		return "rejected by the peer";
	case DDP_ERR_ABORTED:
		return "aborted by teardown";
	case DDP_ERR_UNSUPPORTED:
		return "not supported";
	case DDP_ERR_SYS:
		return "system call failed";
	case DDP_ERR_ACCESS:
		return "access not permitted";
	}
	return "unknown error";
}

/* RFC 5041 §7.2 (layer 1) and RFC 5044 §8 / RFC 6581 §8 (layer 2, MPA).
 * EType 3 of layer 1 is reserved for the LLP; its codes are libddp's own
 * (DDP_ECODE_LLP_*, ddp.h). */
const char *ddp_error_str(uint8_t layer, uint8_t etype, uint8_t code)
{
	static const char *const tagged[] = {"invalid STag", "base or bounds violation",
	                                     "STag not associated with DDP stream", "TO wrap",
	                                     "invalid DDP version"};
	static const char *const untagged[] = {NULL,
	                                       "invalid QN",
	                                       "invalid MSN, no buffer",
	                                       "invalid MSN, MSN range",
	                                       "invalid MO",
	                                       "DDP message too long",
	                                       "invalid DDP version"};
	static const char *const llp[] = {NULL,
	                                  "SSN out of window",
	                                  "segment over MULPDU",
	                                  "segment shorter than a header",
	                                  "data after teardown",
	                                  "bad session control"};
	static const char *const mpa[] = {NULL,
	                                  "TCP connection closed",
	                                  "MPA CRC error",
	                                  "MPA marker error",
	                                  "unexpected MPA frame",
	                                  "MPA local catastrophic",
	                                  "insufficient IRD",
	                                  "no matching RTR"};
	const char *r = NULL;
	if (layer == DDP_LAYER_DDP) {
		if (etype == DDP_ETYPE_CATASTROPHIC && code == 0)
			r = "DDP local catastrophic error";
		else if (etype == DDP_ETYPE_TAGGED && code < sizeof(tagged) / sizeof(*tagged))
			r = tagged[code];
		else if (etype == DDP_ETYPE_UNTAGGED && code < sizeof(untagged) / sizeof(*untagged))
			r = untagged[code];
		else if (etype == DDP_ETYPE_LLP && code < sizeof(llp) / sizeof(*llp))
			r = llp[code];
	} else if (layer == DDP_LAYER_LLP && etype == 0 && code < sizeof(mpa) / sizeof(*mpa)) {
		r = mpa[code];
	}
	return r ? r : "undefined error";
}
