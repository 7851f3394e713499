/*
 * Internal hooks of the DDP/SCTP adapter for tests and the benchmark:
 * reach the low-level endpoint / association under a public handle.
 */
#ifndef SCTP_DDP_H
#define SCTP_DDP_H

#include <ddp/sctp.h>

#include "sctp/sctp_ll.h"

sctp_ll_ep *sctp_ddp_ep_ll(ddp_sctp_ep *ep);
sctp_ll_assoc *sctp_ddp_assoc_ll(ddp_sctp_assoc *a);
/* Name of the stream's session state (sctp_sst_name). */
const char *sctp_ddp_stream_state(const ddp_sctp_assoc *a, uint32_t stream);

#endif
