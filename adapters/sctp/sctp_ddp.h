/*
 * Internal hooks of the DDP/SCTP adapter for tests and the benchmark:
 * reach the low-level endpoint / association under a public handle, or
 * build an endpoint the public API does not offer. Not installed; the
 * installed libddp-sctp keeps these symbols local (mk/install.mk).
 */
#ifndef SCTP_DDP_H
#define SCTP_DDP_H

#include <ddp/sctp.h>

#include "sctp/usrsctp/sctp_ll.h"

sctp_ll_ep *sctp_ddp_ep_ll(ddp_sctp_ep *ep);
sctp_ll_assoc *sctp_ddp_assoc_ll(ddp_sctp_assoc *a);
/* Name of the stream's session state (sctp_sst_name). */
const char *sctp_ddp_stream_state(const ddp_sctp_assoc *a, uint32_t stream);
/* The low-level endpoint settings a ddp_sctp_ep_new(cfg) uses: the
 * benchmark's raw usrsctp baseline runs with exactly these. */
void sctp_ddp_ll_config(const ddp_sctp_config *cfg, sctp_ll_config *lc);
/* Tests: ddp_sctp_ep_new() for an endpoint that behaves like a plain SCTP
 * one, neither sending nor requiring the DDP Adaptation Layer Indication
 * (RFC 5043 §11.1), so a test can show that a DDP endpoint refuses it.
 * Ownership and errors: those of ddp_sctp_ep_new (DDP_ERR_INVAL,
 * DDP_ERR_NOMEM, DDP_ERR_SYS); free with ddp_sctp_ep_free. */
int sctp_ddp_ep_new_no_adaptation(struct event_base *base, const ddp_sctp_config *cfg,
                                  ddp_sctp_ep **out);

#endif
