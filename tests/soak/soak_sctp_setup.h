/* ddp-soak: the set-up the SCTP loads share (soak_sctp_flood.c,
 * soak_sctp_initflood.c, soak_sctp_streams.c, soak_sctp_pin.c): a victim
 * DDP/SCTP listener of the load's own, the attacker's bare sctp_ll endpoint
 * (the peer's side of the wire, no DDP), and the callbacks every one of
 * them has alike. */
#ifndef DDP_SOAK_SCTP_SETUP_H
#define DDP_SOAK_SCTP_SETUP_H

#include <ddp/sctp.h>

#include "sctp/usrsctp/sctp_ll.h"
#include "soak.h"

/* c zeroed, then any port, nstreams, the context and PD, and the stream
 * event that closes a stream its peer half-closed; the load adds the rest */
void soak_sctp_vconfig(ddp_sctp_config *c, ddp_ctx *ctx, ddp_pd *pd, uint16_t nstreams);
/* the victim's listener from c, its port published at soak_sh->port[slot];
 * 0 or a negative DDP_ERR_* */
int soak_sctp_vlisten(struct event_base *base, const ddp_sctp_config *c, enum soak_port slot,
                      ddp_sctp_ep **ep);
/* the attacker's endpoint: asks for nstreams, sends the DDP Adaptation
 * Layer Indication (RFC 5043 §11.1) so the victim takes its associations;
 * bufs: its usrsctp socket buffers (0: the default) */
int soak_sctp_att_ep(struct event_base *base, uint16_t nstreams, uint32_t bufs, sctp_ll_ep **ep);
/* reads and drops whatever the victim sent on a (Accepts, Rejects,
 * Terminates: the attackers do not look at them) */
void soak_sctp_drain(sctp_ll_assoc *a);
/* the victim's ULP: a stream its peer half-closed (a Terminate) is closed */
void soak_sctp_half_closed(ddp_session *s, uint32_t st, enum ddp_stream_event ev, int status,
                           void *user);

#endif
