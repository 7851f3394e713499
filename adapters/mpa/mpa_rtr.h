/*
 * RFC 6581 §9.2-9.3 Ready-To-Receive (RTR) messages: the zero-length RDMAP
 * message the Initiator sends as its first FPDU in peer-to-peer mode, and
 * the Responder's check of that first FPDU. The MPA adapter sends and
 * consumes the RTR itself, so the DDP core and the ULP never see it.
 */
#ifndef DDP_MPA_RTR_H
#define DDP_MPA_RTR_H

#include <stddef.h>
#include <stdint.h>

#define MPA_RTR_READ_PAYLOAD 28 /* RDMA Read Request header (RFC 5040) */

/* DDP header + payload of the RTR of one kind (MPA_RTR_SEND, _WRITE or
 * _READ): zero-length Send (QN 0, MSN 1), zero-length RDMA Write (STag 1,
 * TO 0, siw practice), zero-length RDMA Read Request (QN 1, MSN 1, sink and
 * source STag 1, size 0). hdr needs 18 octets, payload 28.
 * Errors: DDP_ERR_INVAL (unknown kind). */
int mpa_rtr_build(unsigned kind, uint8_t *hdr, size_t *hdr_len, uint8_t *payload,
                  size_t *payload_len);

/* Which RTR kind (MPA_RTR_*) a received DDP header + payload length is,
 * among the accepted kinds; 0 when it is none of them. */
unsigned mpa_rtr_match(unsigned accepted, const uint8_t *hdr, size_t hdr_len, size_t payload_len);

#endif
