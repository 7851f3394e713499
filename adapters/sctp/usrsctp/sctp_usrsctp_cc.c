/* The congestion control module: ddp_sctp_config.cc as usrsctp names it
 * (set on each socket, sctp_usrsctp_io.c; or, with the packaged usrsctp,
 * as the default of the socket being made, sctp_usrsctp.c; read back by
 * sctp_ll_assoc_cc, sctp_usrsctp_status.c). No usrsctp call. */
#include "sctp/usrsctp/sctp_usrsctp_int.h"

#include <usrsctp.h>

#include <ddp/ddp.h>
#include <ddp/sctp.h>

/* usrsctp's module for ddp_sctp_config.cc; -1: this usrsctp has none */
int sctp_usrsctp_cc_module(unsigned cc)
{
	switch (cc) {
	case DDP_SCTP_CC_HSTCP:
		return SCTP_CC_HSTCP;
	case DDP_SCTP_CC_HTCP:
		return SCTP_CC_HTCP;
#ifdef SCTP_PLUGGABLE_CC
	case DDP_SCTP_CC_RTCC:
		return SCTP_CC_RTCC;
	case DDP_SCTP_CC_CUBIC:
		return SCTP_CC_CUBIC;
#else
	/* the packaged usrsctp: no per-socket option in its header, and its
	 * default-module sysctl takes modules 0 to 2 (RFC 4960, HSTCP, H-TCP;
	 * SCTPCTL_DEFAULT_CC_MODULE_MAX); no CUBIC (patch 0005) */
	case DDP_SCTP_CC_RTCC:
	case DDP_SCTP_CC_CUBIC:
		return -1;
#endif
	case DDP_SCTP_CC_RFC4960:
		return SCTP_CC_RFC2581;
	default:
		/* why: docs/performance.md, section 22 */
#ifdef SCTP_PLUGGABLE_CC
		return SCTP_CC_CUBIC;
#else
		return SCTP_CC_RFC2581;
#endif
	}
}
